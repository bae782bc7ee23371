//! What a run leaves for the forwarder: one small file per finished run,
//! `$AIDE_HOME/otel/spool/<execution_id>.json`, written whole under a
//! temporary name and renamed (a reader never sees half a record). It holds
//! what the span says and nothing more: every text in it comes from the
//! execution log's record, already redacted.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::SpanContext;

/// One finished run, as its span will say it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanRecord {
    pub execution_id: String,
    /// `gen_ai.tool.name`: the MCP tool's name, or the executable and its
    /// subcommand (`llm-shell exec`).
    pub tool_name: String,
    /// The executable that ran it and its version.
    pub tool: String,
    pub version: String,
    /// The run's own span (its trace, and the id its children were given).
    pub context: SpanContext,
    /// The caller's span, when the run continued a trace.
    pub parent: Option<SpanContext>,
    pub tracestate: Option<String>,
    /// `mcp:<request id>` for a call through `aide mcp`.
    pub origin: Option<String>,
    pub started: SystemTime,
    pub duration: Duration,
    pub exit_code: i32,
    pub ok: bool,
    pub error_code: Option<String>,
    /// The risk its tool rated (`overall_risk`), and the cap it ran under.
    pub risk: Option<String>,
    pub max_risk: Option<String>,
    /// The sandbox it ran its commands in (`off`, `read-only`,
    /// `workspace-write`) and their network.
    pub sandbox: Option<String>,
    pub network: Option<String>,
    /// The last component of the run's root (never the whole path).
    pub root_name: Option<String>,
    /// The bytes of the document it answered (`--json`, compact).
    pub bytes_out: u64,
    /// The processes it started through the gate: its phases, one child
    /// span each.
    #[serde(default)]
    pub phases: Vec<Phase>,
    /// The request and result, redacted, only when
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
}

/// One process a run started: a child span of the run's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// What started it ("checker", "verify command", "job", …).
    pub purpose: String,
    /// What it ran as, beside its purpose (a checker's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub span_id: String,
    pub started: SystemTime,
    pub duration: Duration,
    /// None while it still runs (a job handed over) or when a signal ended it.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub sandbox: String,
    /// Its command line, redacted: only with content capture on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// What a span carries only when asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    pub request: Option<String>,
    pub result: Option<String>,
}

/// The folder of telemetry's files under `home`.
pub fn telemetry_dir(home: &Path) -> PathBuf {
    home.join("otel")
}

/// The spool folder under `home`.
pub fn spool_dir(home: &Path) -> PathBuf {
    telemetry_dir(home).join("spool")
}

/// The largest record read back: a record without content is a few
/// kilobytes; with content, bounded by the log's own result limit.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// Spools `record` under `home` (creating the folder when needed).
pub fn spool(home: &Path, record: &SpanRecord) -> std::io::Result<()> {
    use std::io::Write;
    let dir = spool_dir(home);
    let bytes = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    let name = format!("{}.json", record.execution_id);
    let tmp = dir.join(format!(".{name}.tmp"));
    let create = || aide_core::fsutil::private_file().write(true).create_new(true).open(&tmp);
    let mut file = match create() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            aide_core::fsutil::private_dir(&telemetry_dir(home))?;
            aide_core::fsutil::private_dir(&dir)?;
            create()?
        }
        other => other?,
    };
    let written = file.write_all(&bytes).and_then(|()| std::fs::rename(&tmp, dir.join(&name)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The spooled records' files, oldest name first (execution ids are
/// UUIDv7: by start time), at most `limit`.
pub fn spooled(home: &Path, limit: usize) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(spool_dir(home)) else { return Vec::new() };
    let mut names: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".json") && !n.starts_with('.')))
        .collect();
    names.sort();
    names.truncate(limit);
    names
}

/// Reads one spooled record and removes its file (read once, sent at most
/// once). None for a file that is not a record (removed all the same).
pub fn take(path: &Path) -> Option<SpanRecord> {
    let bytes = aide_core::fsutil::read_private(path, MAX_RECORD_BYTES);
    let _ = std::fs::remove_file(path);
    serde_json::from_slice(&bytes.ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> SpanRecord {
        SpanRecord {
            execution_id: id.to_string(),
            tool_name: "llm-search".into(),
            tool: "llm-search".into(),
            version: "0.1.0".into(),
            context: SpanContext::child_of(None, &crate::sampler::Sampler::default()),
            parent: None,
            tracestate: None,
            origin: None,
            started: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            duration: Duration::from_millis(3),
            exit_code: 0,
            ok: true,
            error_code: None,
            risk: None,
            max_risk: None,
            sandbox: None,
            network: None,
            root_name: Some("repo".into()),
            bytes_out: 120,
            phases: Vec::new(),
            content: None,
        }
    }

    #[test]
    fn a_spooled_record_is_taken_back_whole_once() {
        let home = tempfile::tempdir().expect("tempdir");
        let a = record("a");
        spool(home.path(), &record("b")).expect("spooled");
        spool(home.path(), &a).expect("spooled");
        let files = spooled(home.path(), 10);
        assert_eq!(files.len(), 2);
        assert!(files[0].ends_with("a.json"), "oldest name first: {files:?}");
        assert_eq!(take(&files[0]), Some(a));
        assert_eq!(spooled(home.path(), 10).len(), 1);
        assert_eq!(spooled(home.path(), 0).len(), 0);
    }

    #[test]
    fn a_file_that_is_not_a_record_is_removed() {
        let home = tempfile::tempdir().expect("tempdir");
        spool(home.path(), &record("a")).expect("spooled");
        let path = spool_dir(home.path()).join("junk.json");
        std::fs::write(&path, "{").expect("written");
        assert_eq!(take(&path), None);
        assert!(!path.exists());
    }
}
