//! What the forwarder says of itself, for `aide doctor`: where it sends,
//! how many spans it sent and dropped (kept across its lives), and how the
//! last export went. One small JSON file, replaced whole.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The forwarder's state file in the export folder `dir`.
pub fn state_path(dir: &Path) -> PathBuf {
    dir.join("state.json")
}

/// The forwarder's counts and its last export.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ForwarderState {
    /// The endpoint it sends to (the spans', else the metrics'; never with
    /// a password), and how.
    pub endpoint: String,
    pub protocol: String,
    pub exported_spans: u64,
    /// Spans that could not be sent (the endpoint unreachable, slow or
    /// refusing, or a forwarder ended while sending them) and were dropped.
    pub dropped_spans: u64,
    /// Metric exports that failed.
    #[serde(default)]
    pub failed_metric_exports: u64,
    /// Runs whose span is not exported (not sampled, or spans not asked):
    /// counted in the metrics only.
    #[serde(default)]
    pub metrics_only_runs: u64,
    /// Why no metric is sent although metrics are asked (a protocol or
    /// endpoint aide cannot use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_refused: Option<String>,
    pub last_export: Option<LastExport>,
}

/// How the last batch went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastExport {
    /// UTC, RFC 3339.
    pub at: String,
    pub ok: bool,
    pub spans: u64,
    /// Why it failed, as the exporter said.
    pub error: Option<String>,
}

/// Reads the state of the export folder `dir` (None before any forwarder ran).
pub fn read(dir: &Path) -> Option<ForwarderState> {
    let bytes = aide_core::fsutil::read_private(&state_path(dir), 1 << 20).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Replaces the state of the export folder `dir`.
pub fn write(dir: &Path, state: &ForwarderState) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    aide_core::fsutil::write_atomic_with(&state_path(dir), &bytes, Some(aide_core::fsutil::private_permissions()))
}
