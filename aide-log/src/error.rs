//! The log's errors: a log that cannot be opened or written
//! (`log_unavailable`), and an execution id it has no run for.

use std::path::Path;

use aide_core::error::{AideError, code};

pub(crate) fn unavailable(path: &Path, e: impl std::fmt::Display) -> AideError {
    AideError::new(code::LOG_UNAVAILABLE, format!("execution log {}: {e}", path.display())).with_hint(
        aide_core::voice::say(|v| {
            format!(
                "check that $AIDE_HOME is writable, or {}",
                v.pick("pass --no-log / set AIDE_LOG=off", "set AIDE_LOG=off for the server")
            )
        }),
    )
}

/// The error for an execution id the log has no run for (or none the
/// caller may see).
pub fn no_run(id: &str) -> AideError {
    AideError::new(code::NOT_FOUND, format!("no run with execution_id `{id}` in the log"))
        .with_hint("list recent runs with `aide log list`; runs older than the retention limits are pruned")
        .with_details(serde_json::json!({ "execution_id": id }))
}

/// The error for an execution id prefix that matches several runs.
pub(crate) fn ambiguous_prefix(id: &str) -> AideError {
    AideError::new(code::INVALID_ARGUMENTS, format!("execution_id prefix `{id}` matches several runs"))
        .with_hint("give more characters of the id")
}
