//! Every way llm-git refuses a request, as one enum converted once into the
//! contract's [`AideError`].

use aide_core::{AideError, code};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed (or not on PATH): {reason}")]
    Missing { reason: String },
    #[error("{dir} is not inside a git repository")]
    NotARepository { dir: String },
    #[error("git {command} failed (exit {status}): {stderr}")]
    Failed { command: String, status: i32, stderr: String },
    #[error("{what} `{given}` does not exist: {stderr}")]
    Unknown { what: &'static str, given: String, stderr: String },
    #[error("nothing is staged: no empty commit is made")]
    NothingToCommit,
    #[error("{count} tracked file{} with uncommitted changes; switching would carry or refuse them", if *.count == 1 { "" } else { "s" })]
    DirtyTree { count: usize, files: Vec<String> },
    #[error("--lines {spec}: {why}")]
    BadLines { spec: String, why: &'static str },
    #[error("{what} must not be empty")]
    Empty { what: &'static str },
    #[error("{given}: {why}")]
    BadName { given: String, why: &'static str },
    #[error("{path} is staged but lies outside the root: a commit takes the whole index")]
    StagedOutside { path: String },
    #[error("{path} is not UTF-8 text; restore writes text through llm-transform")]
    NotText { path: String },
}

impl From<GitError> for AideError {
    fn from(e: GitError) -> AideError {
        use GitError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::Missing { .. } => error(code::IO_ERROR).with_hint("install git (apt-get install git)"),
            E::NotARepository { dir } => error(code::NOT_A_REPOSITORY)
                .with_hint("run it inside a repository, or pass --root DIR of one (git init makes one)")
                .with_details(json!({ "path": dir })),
            E::Failed { command, status, stderr } => error(code::GIT_FAILED)
                .with_hint("git's own message says why; run the same git command to see more")
                .with_details(json!({ "command": command, "exit_code": status, "stderr_tail": stderr })),
            E::Unknown { what, given, .. } => error(code::NOT_FOUND)
                .with_hint(match *what {
                    "path" => "check the path: it is relative to --root, and must be known to git at that revision",
                    _ => "name a commit, branch or tag (llm-git log, llm-git branch list them)",
                })
                .with_details(json!({ "what": what, "given": given })),
            E::NothingToCommit => error(code::NOTHING_TO_COMMIT).with_hint("stage changes first (llm-git add PATH...)"),
            E::DirtyTree { files, .. } => error(code::DIRTY_TREE)
                .with_hint(
                    "commit or restore them first, or pass --allow-dirty to switch anyway (git carries them over)",
                )
                .with_details(json!({ "files": files })),
            E::BadLines { .. } => error(code::INVALID_ARGUMENTS).with_hint("write --lines 10:20 (1-based, inclusive)"),
            E::Empty { .. } => error(code::INVALID_ARGUMENTS).with_hint("give a non-empty value"),
            E::StagedOutside { path } => error(code::CONFLICT)
                .with_hint("commit from the repository's top (--root), or unstage it first")
                .with_details(json!({ "path": path })),
            E::NotText { path } => error(code::INVALID_ARGUMENTS)
                .with_hint(
                    "restore a binary file with git itself (git restore PATH): it cannot be undone by llm-transform",
                )
                .with_details(json!({ "path": path })),
            E::BadName { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("a branch name is a git ref name: no spaces, no leading `-`, no `..`"),
        }
    }
}
