//! How long the log keeps runs: by count, age and the bytes of stored
//! results, from the environment or the defaults.

use std::time::Duration;

use serde::Serialize;

use crate::record::env_parse;

const DEFAULT_MAX_RUNS: u64 = 10_000;
const DEFAULT_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
const DEFAULT_MAX_BYTES: i64 = 256 << 20;

/// The retention limits of the log.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    pub max_age: Duration,
    pub max_runs: u64,
    /// Total bytes of stored results.
    pub max_bytes: i64,
}

impl Retention {
    /// The defaults, overridden by `AIDE_LOG_MAX_AGE`, `AIDE_LOG_MAX_RUNS`, `AIDE_LOG_MAX_BYTES`.
    pub fn from_env() -> Retention {
        Retention {
            max_age: std::env::var("AIDE_LOG_MAX_AGE")
                .ok()
                .and_then(|v| humantime::parse_duration(&v).ok())
                .unwrap_or(DEFAULT_MAX_AGE),
            max_runs: env_parse("AIDE_LOG_MAX_RUNS").unwrap_or(DEFAULT_MAX_RUNS),
            max_bytes: env_parse("AIDE_LOG_MAX_BYTES").unwrap_or(DEFAULT_MAX_BYTES),
        }
    }
}

/// What pruning removed.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct PruneReport {
    pub removed: u64,
    pub remaining: u64,
}
