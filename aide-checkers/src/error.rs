//! How running checkers fails, converted once into the contract's errors.

use aide_core::{AideError, code};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum CheckerError {
    /// `--checker NAME` names no checker aide knows.
    #[error("no checker `{name}`")]
    Unknown { name: String, known: Vec<&'static str> },
    /// The checker's program is not installed.
    #[error("{checker} is not installed ({program} not found)")]
    Unavailable { checker: String, program: String, install: &'static str },
    /// The checker crashed, timed out or printed what cannot be read.
    #[error("{checker} failed: {why}")]
    Failed { checker: String, why: String, stderr: String },
    /// The sandbox it would run in cannot be entered here.
    #[error("{0}")]
    Sandbox(AideError),
    #[error("cancelled")]
    Cancelled,
}

/// Why a revision's tree could not be had for a baseline.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("{tree} is not a tree")]
    NotATree { tree: String },
    #[error("tar could not unpack {tree}")]
    Unpack { tree: String },
}

impl From<RevisionError> for AideError {
    fn from(e: RevisionError) -> AideError {
        let message = e.to_string();
        match e {
            RevisionError::NotATree { .. } => {
                AideError::new(code::INVALID_ARGUMENTS, message).with_hint(aide_core::voice::say(|v| {
                    format!("{} takes a revision (a commit, branch or tag)", v.arg("baseline"))
                }))
            }
            RevisionError::Unpack { .. } => AideError::new(code::IO_ERROR, message),
        }
    }
}

impl From<CheckerError> for AideError {
    fn from(e: CheckerError) -> AideError {
        let message = e.to_string();
        match e {
            CheckerError::Unknown { name, known } => {
                let closest = aide_core::suggest::closest(&name, known.iter().copied());
                AideError::new(code::INVALID_ARGUMENTS, message)
                    .with_hint(format!("the checkers are {}", known.join(", ")))
                    .with_details(json!({ "field": "checker", "closest": closest }))
            }
            CheckerError::Unavailable { checker, program, install } => {
                AideError::new(code::CHECKER_UNAVAILABLE, message)
                    .with_hint(install)
                    .with_details(json!({ "checker": checker, "program": program }))
            }
            CheckerError::Failed { checker, stderr, .. } => AideError::new(code::CHECKER_FAILED, message)
                .with_hint("run the checker by hand to see why; nothing it said is reported as complete")
                .with_details(json!({ "checker": checker, "stderr_tail": stderr })),
            CheckerError::Sandbox(e) => e,
            CheckerError::Cancelled => AideError::cancelled(),
        }
    }
}
