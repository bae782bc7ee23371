//! Every way `aide` refuses a request of its own, as one enum converted once
//! into the contract's [`AideError`]; the log's storage errors are aide-core's.

use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum AideToolError {
    #[error("run {execution_id} produced {bytes} bytes of JSON, more than the log keeps")]
    ResultCapped { execution_id: String, bytes: u64 },
    #[error("run {execution_id} has no result: it is still running, or was killed or crashed before it recorded one")]
    Unfinished { execution_id: String },
}

impl From<AideToolError> for AideError {
    fn from(e: AideToolError) -> AideError {
        match e {
            AideToolError::ResultCapped { .. } => AideError::new(code::RESULT_CAPPED, e.to_string())
                .with_hint("re-run the tool with a narrower request or --limit, or raise AIDE_LOG_MAX_RESULT_BYTES"),
            AideToolError::Unfinished { .. } => AideError::new(code::NOT_FOUND, e.to_string())
                .with_hint("`aide log list` shows its command line; look again once it ends, or run it again"),
        }
    }
}
