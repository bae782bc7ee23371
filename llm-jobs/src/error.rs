//! Every way llm-jobs refuses or fails a request, as one enum converted once
//! into the contract's [`AideError`]. A job that runs and fails is a result
//! (its status), not an error.

use aide_core::operation::{Operation, named};
use aide_core::voice::{Voice, say};
use aide_core::{AideError, code};

/// The listing hints send the caller to.
const LIST: &Operation = named(crate::operations::OPERATIONS, "jobs_list");

#[derive(Debug, thiserror::Error)]
pub enum JobsError {
    #[error("no job #{id}")]
    NoJob { id: i64 },
    #[error("job #{id} is still {status}")]
    StillActive { id: i64, status: &'static str },
    #[error("{cwd} is not a directory")]
    NotADirectory { cwd: String },
    #[error("{} must be a number of seconds", Voice::Cli.arg("timeout"))]
    BadWaitTimeout,
    #[error("{} must be at least 1", Voice::Cli.arg("parallel"))]
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
                .with_hint(say(|v| format!("list jobs with `{}`", v.op(LIST))))
                .with_details(serde_json::json!({ "job_id": id })),
            E::StillActive { .. } => {
                error(code::CONFLICT).with_hint(say(|v| format!("kill it first, or pass {}", v.on("force"))))
            }
            E::NotADirectory { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint(say(|v| format!("{} must name a directory", v.arg("cwd"))))
            }
            E::BadWaitTimeout => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} must be a number of seconds", v.arg("timeout"))),
            )
            .with_hint(say(|v| format!("give {} to poll, or seconds to wait", v.arg_is("timeout", 0)))),
            E::ZeroParallel => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} must be at least 1", v.arg("parallel"))))
                    .with_hint(say(|v| format!("give {} or more", v.arg_is("parallel", 1))))
            }
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
