//! Every way llm-deps refuses a request, as one enum converted once into
//! the contract's [`AideError`].

use aide_core::voice::say;
use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum DepsError {
    #[error("no registry could be reached ({registry}: {reason})")]
    NetworkUnavailable { registry: String, reason: String },
    #[error("the advisory database {path} is not a folder")]
    AdvisoryDbNotFound { path: String },
    #[error("the timeout must be a positive number of seconds, at most a day (got {0})")]
    InvalidTimeout(f64),
}

impl From<DepsError> for AideError {
    fn from(e: DepsError) -> AideError {
        use DepsError as E;
        let message = e.to_string();
        match e {
            E::NetworkUnavailable { registry, reason } => AideError::new(code::NETWORK_UNAVAILABLE, message)
                .with_hint(say(|_| {
                    "check the network, a proxy (HTTPS_PROXY) or the registry's address (npm_config_registry); `list`, `tree` and `audit` need none".to_string()
                }))
                .with_details(serde_json::json!({ "registry": registry, "reason": reason })),
            E::AdvisoryDbNotFound { path } => AideError::new(code::NOT_FOUND, message)
                .with_hint(say(|v| {
                    format!(
                        "give {} a clone of https://github.com/rustsec/advisory-db or a folder of OSV JSON files",
                        v.arg("advisory_db")
                    )
                }))
                .with_details(serde_json::json!({ "path": path })),
            E::InvalidTimeout(_) => AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} must be a positive number of seconds, at most a day", v.arg("timeout")))),
        }
    }
}
