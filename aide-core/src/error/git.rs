//! Why git could not be run: a repository that cannot be opened, or a
//! question about a revision git could not answer.

use super::{AideError, code};

/// Why a repository could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("git is not installed (or not on PATH): {reason}")]
    Missing { reason: String },
    #[error("the root is not inside a git repository's work tree ({why})")]
    NotARepository { why: String },
    #[error("the repository's work tree is set outside the root (core.worktree or GIT_WORK_TREE): {why}")]
    WorkTreeElsewhere { why: &'static str },
}

impl From<OpenError> for AideError {
    fn from(e: OpenError) -> AideError {
        let message = e.to_string();
        match e {
            OpenError::Missing { .. } => {
                AideError::new(code::IO_ERROR, message).with_hint("install git (apt-get install git)")
            }
            OpenError::NotARepository { .. } => AideError::new(code::NOT_A_REPOSITORY, message)
                .with_hint(crate::voice::say(|v| {
                    format!(
                        "run it inside a repository, or pass {} of one (git init makes one)",
                        v.pick("--root DIR", "a root")
                    )
                }))
                .with_details(serde_json::json!({ "path": "." })),
            OpenError::WorkTreeElsewhere { why } => AideError::new(code::PATH_OUTSIDE_ROOT, message)
                .with_hint(
                    "git would read and change the files of another folder: unset core.worktree \
                     (git config --unset core.worktree) or GIT_WORK_TREE, or run from that work tree",
                )
                .with_details(serde_json::json!({ "setting": "core.worktree", "why": why })),
        }
    }
}

/// A question about a revision (`--changed`, `--baseline`) git could not answer.
impl From<RunError> for AideError {
    fn from(e: RunError) -> AideError {
        match e {
            RunError::Start(e) => AideError::io("git", &e),
            RunError::Failed { command, stderr, .. } => {
                AideError::new(code::INVALID_ARGUMENTS, format!("git {command}: {stderr}")).with_hint(
                    crate::voice::say(|v| {
                        format!(
                            "{} and {} take a revision of the repository (HEAD, a branch, a commit)",
                            v.arg("changed"),
                            v.arg("baseline")
                        )
                    }),
                )
            }
        }
    }
}

/// Why git gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("git could not be started: {0}")]
    Start(std::io::Error),
    #[error("git {command} failed (exit {status}): {stderr}")]
    Failed { command: String, status: i32, stderr: String },
}
