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
    home.join(aide_core::home::TELEMETRY_DIR)
}

/// The folder of one export's settings under `home` (`key`: their
/// [`crate::settings::Settings::key`]): its spool, its forwarder's lock and
/// its counts. Runs asking for another endpoint, credentials or service
/// name have a forwarder of their own.
pub fn export_dir(home: &Path, key: &str) -> PathBuf {
    telemetry_dir(home).join(key)
}

/// The spool folder of an export folder.
pub fn spool_dir(dir: &Path) -> PathBuf {
    dir.join("spool")
}

/// Where the forwarder keeps the records it is sending: one it ends
/// without having sent is counted as lost by the next.
pub fn in_flight_dir(dir: &Path) -> PathBuf {
    dir.join("in-flight")
}

/// The largest record read back: a record without content is a few
/// kilobytes; with content, bounded by the log's own result limit.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// Spools `record` in the export folder `dir` (creating it when needed).
pub fn spool(dir: &Path, record: &SpanRecord) -> std::io::Result<()> {
    use std::io::Write;
    let spool = spool_dir(dir);
    let bytes = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    let name = format!("{}.json", record.execution_id);
    let tmp = spool.join(format!(".{name}.tmp"));
    let done = spooled_path(dir, &record.execution_id);
    let create = || aide_core::fsutil::private_file().write(true).create_new(true).open(&tmp);
    let mut file = match create() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            for folder in [dir.parent().unwrap_or(dir), dir, &spool] {
                aide_core::fsutil::private_dir(folder)?;
            }
            create()?
        }
        other => other?,
    };
    let written = file.write_all(&bytes).and_then(|()| std::fs::rename(&tmp, &done));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Where the record of `execution_id` is spooled in the export folder `dir`.
pub fn spooled_path(dir: &Path, execution_id: &str) -> PathBuf {
    spool_dir(dir).join(format!("{execution_id}.json"))
}

/// The records' files in `folder` (a spool or in-flight folder), oldest
/// name first (execution ids are UUIDv7: by start time), at most `limit`.
pub fn records_in(folder: &Path, limit: usize) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut names: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".json") && !n.starts_with('.')))
        .collect();
    names.sort();
    names.truncate(limit);
    names
}

/// The spooled records' files of the export folder `dir`, oldest first, at most `limit`.
pub fn spooled(dir: &Path, limit: usize) -> Vec<PathBuf> {
    records_in(&spool_dir(dir), limit)
}

/// Takes one spooled record to send: moved into the in-flight folder and
/// read. The record and where it now lies (for [`settle`]); None for a
/// file that is not a record (removed) or one another took first.
pub fn take(dir: &Path, path: &Path) -> Option<(SpanRecord, PathBuf)> {
    let in_flight = in_flight_dir(dir);
    let to = in_flight.join(path.file_name()?);
    let moved = std::fs::rename(path, &to).or_else(|e| match e.kind() {
        std::io::ErrorKind::NotFound if path.exists() => {
            aide_core::fsutil::private_dir(&in_flight)?;
            std::fs::rename(path, &to)
        }
        _ => Err(e),
    });
    if moved.is_err() {
        return None;
    }
    let bytes = aide_core::fsutil::read_private(&to, MAX_RECORD_BYTES);
    match bytes.ok().and_then(|b| serde_json::from_slice(&b).ok()) {
        Some(record) => Some((record, to)),
        None => {
            let _ = std::fs::remove_file(&to);
            None
        }
    }
}

/// Forgets records taken and dealt with (sent, or dropped and counted).
pub fn settle(taken: &[PathBuf]) {
    for path in taken {
        let _ = std::fs::remove_file(path);
    }
}

/// The file where runs count the spans they could not hand to a
/// forwarder (one line each: when, and why).
pub fn losses_path(dir: &Path) -> PathBuf {
    dir.join("lost-by-runs")
}

/// The largest the losses file grows: past it the count reads "at least".
const MAX_LOSS_BYTES: u64 = 1 << 20;

/// Counts one span a run could not hand on, and why (one of aide's own
/// short reasons; best effort: a run never fails for it).
pub fn note_loss(dir: &Path, why: &str) {
    use std::io::Write;
    let path = losses_path(dir);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= MAX_LOSS_BYTES) {
        return;
    }
    let line = format!("{} {}\n", aide_core::time::rfc3339(SystemTime::now()), why.replace('\n', " "));
    let _ = aide_core::fsutil::private_dir(dir);
    if let Ok(mut file) = aide_core::fsutil::private_file().append(true).create(true).open(&path) {
        let _ = file.write_all(line.as_bytes());
    }
}

/// How many spans runs could not hand on, and the last line's reason.
pub fn losses(dir: &Path) -> (u64, Option<String>) {
    let Ok(bytes) = aide_core::fsutil::read_private(&losses_path(dir), MAX_LOSS_BYTES + 4096) else {
        return (0, None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let last = text.lines().last().and_then(|l| l.split_once(' ')).map(|(_, why)| why.to_string());
    (text.lines().count() as u64, last)
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
    fn a_spooled_record_is_taken_whole_once_and_stays_in_flight_until_settled() {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = export_dir(home.path(), "k");
        let a = record("a");
        spool(&dir, &record("b")).expect("spooled");
        spool(&dir, &a).expect("spooled");
        let files = spooled(&dir, 10);
        assert_eq!(files.len(), 2);
        assert!(files[0].ends_with("a.json"), "oldest name first: {files:?}");
        let (taken, at) = take(&dir, &files[0]).expect("taken");
        assert_eq!(taken, a);
        assert_eq!(take(&dir, &files[0]), None, "taken once");
        assert_eq!(spooled(&dir, 10).len(), 1);
        assert_eq!(records_in(&in_flight_dir(&dir), 10), std::slice::from_ref(&at), "in flight until settled");
        settle(&[at]);
        assert!(records_in(&in_flight_dir(&dir), 10).is_empty());
        assert_eq!(spooled(&dir, 0).len(), 0);
    }

    #[test]
    fn a_file_that_is_not_a_record_is_removed() {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = export_dir(home.path(), "k");
        spool(&dir, &record("a")).expect("spooled");
        let path = spool_dir(&dir).join("junk.json");
        std::fs::write(&path, "{").expect("written");
        assert_eq!(take(&dir, &path), None);
        assert!(!path.exists());
        assert!(records_in(&in_flight_dir(&dir), 10).is_empty());
    }

    #[test]
    fn losses_are_counted_with_the_last_reason() {
        let home = tempfile::tempdir().expect("tempdir");
        let dir = export_dir(home.path(), "k");
        assert_eq!(losses(&dir), (0, None));
        note_loss(&dir, "first");
        note_loss(&dir, "the aide executable is not found");
        assert_eq!(losses(&dir), (2, Some("the aide executable is not found".to_string())));
    }
}
