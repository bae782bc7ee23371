//! Every way llm-jobs refuses or fails a request, as one enum converted once
//! into the contract's [`AideError`]. A job that runs and fails is a result
//! (its status), not an error.

use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum JobsError {
    #[error("no job #{id}")]
    NoJob { id: i64 },
    #[error("job #{id} is still {status}")]
    StillActive { id: i64, status: &'static str },
    #[error("{cwd} is not a directory")]
    NotADirectory { cwd: String },
    #[error("--timeout must be a number of seconds")]
    BadWaitTimeout,
    #[error("--parallel must be at least 1")]
    ZeroParallel,
    #[error("unknown signal `{signal}`")]
    UnknownSignal { signal: String },
    #[error("the llm-jobs executable was not found")]
    ExecutableMissing,
    #[error("could not start its supervisor: {message}")]
    SupervisorFailed { message: String },
    #[error("job store: {message}")]
    Store { message: String },
}

impl From<JobsError> for AideError {
    fn from(e: JobsError) -> AideError {
        use JobsError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::NoJob { id } => error(code::NOT_FOUND)
                .with_hint("list jobs with `llm-jobs list`")
                .with_details(serde_json::json!({ "job_id": id })),
            E::StillActive { .. } => error(code::CONFLICT).with_hint("kill it first, or pass --force"),
            E::NotADirectory { .. } => error(code::INVALID_ARGUMENTS).with_hint("--cwd must name a directory"),
            E::BadWaitTimeout => {
                error(code::INVALID_ARGUMENTS).with_hint("give --timeout 0 to poll, or seconds to wait")
            }
            E::ZeroParallel => error(code::INVALID_ARGUMENTS).with_hint("give --parallel 1 or more"),
            E::UnknownSignal { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("use TERM, INT, HUP, QUIT, KILL, USR1, USR2, STOP, CONT or their numbers"),
            E::ExecutableMissing => error(code::NOT_FOUND).with_hint("install llm-jobs beside this tool or on PATH"),
            E::SupervisorFailed { .. } => {
                error(code::IO_ERROR).with_hint("check that llm-jobs is executable and $AIDE_HOME is writable")
            }
            E::Store { .. } => error(code::IO_ERROR).with_hint("check that $AIDE_HOME is writable"),
        }
    }
}
