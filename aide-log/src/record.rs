//! What a run leaves in the log: the record it spools, and the rows
//! `aide log` lists and shows.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

pub(crate) const DEFAULT_MAX_RESULT_BYTES: usize = 8 << 20;

/// Whether logging is switched off by the environment (`AIDE_LOG=off|0|false|no`).
pub fn disabled_by_env() -> bool {
    std::env::var("AIDE_LOG").is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"))
}

/// One run to record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub execution_id: String,
    pub tool: String,
    pub version: String,
    pub argv: Vec<String>,
    pub request: Option<String>,
    pub cwd: Option<String>,
    pub root: Option<String>,
    /// Who asked for the run besides its command line: `mcp:<request id>`
    /// for a call through `aide mcp`.
    pub origin: Option<String>,
    pub started: SystemTime,
    pub duration: Duration,
    pub exit_code: i32,
    pub ok: bool,
    pub error_code: Option<String>,
    /// The complete JSON document of the result, compact; empty when it was
    /// over the stored limit (`result_bytes` keeps its size).
    pub result_json: String,
    /// The result's size, when `result_json` was dropped for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    /// The processes the run started through the gate, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<aide_gate::ProcessRecord>,
}

/// The error code of a run that has not recorded its result: still
/// running, or killed or crashed after it started (its provisional record is
/// what the log has).
pub const UNFINISHED: &str = "unfinished";

/// The largest result the log keeps (`AIDE_LOG_MAX_RESULT_BYTES`); a larger
/// one is logged by its size only.
pub fn max_result_bytes() -> usize {
    env_parse("AIDE_LOG_MAX_RESULT_BYTES").unwrap_or(DEFAULT_MAX_RESULT_BYTES)
}

/// A stored run, as `aide log` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunSummary {
    pub execution_id: String,
    pub tool: String,
    pub version: String,
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    pub root: Option<String>,
    /// `mcp:<request id>` for a call through `aide mcp`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// UTC, RFC 3339.
    pub started_at: String,
    pub finished_at: String,
    pub duration_ms: f64,
    pub exit_code: i32,
    pub ok: bool,
    pub error_code: Option<String>,
    pub result_bytes: u64,
    /// The result was larger than the store keeps and was not stored.
    pub result_capped: bool,
}

/// A stored run with its request and result.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub summary: RunSummary,
    pub request: Option<String>,
    pub result_json: Option<String>,
    /// The processes it started through the gate.
    pub processes: Vec<aide_gate::ProcessRecord>,
}

/// How one run ended: what per-tool figures are made of.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub tool: String,
    pub argv: Vec<String>,
    pub duration_ms: f64,
    pub ok: bool,
    /// `unfinished` for a run that never recorded its end.
    pub error_code: Option<String>,
}

/// Filters for listing runs.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub tool: Option<String>,
    pub limit: usize,
    /// Only runs started at or after this time.
    pub since: Option<SystemTime>,
}

pub(crate) fn env_parse<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}
