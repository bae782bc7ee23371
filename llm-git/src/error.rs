//! Every way llm-git refuses a request, as one enum converted once into the
//! contract's [`AideError`].

use aide_core::operation::{Operation, named};
use aide_core::voice::{Given, Voice, say};
use aide_core::{AideError, code};
use serde_json::json;

/// The operations hints send the caller to.
const GIT: &Operation = named(crate::operations::OPERATIONS, "git");
const GIT_WRITE: &Operation = named(crate::operations::OPERATIONS, "git_write");

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
    #[error("{} {spec}: {why}", Voice::Cli.arg("lines"))]
    BadLines { spec: String, why: &'static str },
    #[error("{what} must not be empty")]
    Empty { what: &'static str },
    #[error("{given}: {why}")]
    BadName { given: String, why: &'static str },
    #[error("{path} is staged but lies outside the root: a commit takes the whole index")]
    StagedOutside { path: String },
    #[error("{path} is not UTF-8 text; restore writes text through llm-transform")]
    NotText { path: String },
    #[error("{0}")]
    Open(#[from] aide_core::git::OpenError),
    #[error("switching a branch changes the whole work tree, and the root is a folder inside it")]
    SwitchBelowTop,
    #[error("branch `{name}` is not merged into {into}: deleting it would leave commits only its name reaches")]
    Unmerged { name: String, commit: String, into: String },
    #[error("branch `{name}` is checked out{}: it cannot be deleted", if *.elsewhere { " in another work tree" } else { "" })]
    CheckedOut { name: String, elsewhere: bool },
    #[error("{}", delete_alone(Voice::Cli))]
    DeleteCombined,
    #[error("{} is only for {}", Voice::Cli.arg("force"), Voice::Cli.arg("delete"))]
    ForceAlone,
    #[error("the {hook} hook failed ({}): nothing was committed", exit_code.map_or_else(|| "ended by a signal".to_string(), |c| format!("exit {c}")))]
    HookFailed { hook: &'static str, exit_code: Option<i32>, stdout: String, stderr: String },
    #[error("the {hook} hook ran past {seconds} s and was stopped (its whole process tree): nothing was committed")]
    HookTimedOut { hook: &'static str, seconds: u64 },
    #[error("{0}")]
    Start(AideError),
    #[error("git {command}'s output does not read as a diff at its line {}: {source}", source.line())]
    Unreadable { command: &'static str, source: aide_diff::ReadError },
    #[error("cancelled before the commit was made")]
    Cancelled,
    #[error("could not write {what}: {source}")]
    Io { what: &'static str, source: std::io::Error },
}

/// What `--delete` cannot be combined with, in the caller's words.
fn delete_alone(v: Voice) -> String {
    format!(
        "{} cannot be combined with {}, {}, {} or {}",
        v.arg("delete"),
        v.arg("create"),
        v.arg("switch"),
        v.arg("start"),
        v.arg("allow_dirty")
    )
}

impl From<GitError> for AideError {
    // Long because: one arm per error variant, each its code, hint and details; read top to bottom.
    fn from(e: GitError) -> AideError {
        use GitError as E;
        // Errors of the contract's own, passed on as they are.
        let e = match e {
            E::Open(open) => return open.into(),
            E::Start(started) => return started,
            other => other,
        };
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::Missing { .. } => error(code::IO_ERROR).with_hint("install git (apt-get install git)"),
            E::NotARepository { dir } => error(code::NOT_A_REPOSITORY)
                .with_hint(say(|v| {
                    format!(
                        "run it inside a repository, or pass {} of one (git init makes one)",
                        v.pick("--root DIR", "a root")
                    )
                }))
                .with_details(json!({ "path": dir })),
            E::Failed { command, status, stderr } => error(code::GIT_FAILED)
                .with_hint("git's own message says why; run the same git command to see more")
                .with_details(json!({ "command": command, "exit_code": status, "stderr_tail": stderr })),
            E::Unknown { what, given, .. } => error(code::NOT_FOUND)
                .with_hint(say(|v| match *what {
                    "path" => format!(
                        "check the path: it is relative to {}, and must be known to git at that revision",
                        v.arg("root")
                    ),
                    _ => format!(
                        "name a commit, branch or tag ({}, {} list them)",
                        v.call(GIT, &[Given::positional("command", "log")]),
                        v.call(GIT_WRITE, &[Given::positional("command", "branch")])
                    ),
                }))
                .with_details(json!({ "what": what, "given": given })),
            E::NothingToCommit => error(code::NOTHING_TO_COMMIT).with_hint(say(|v| {
                format!(
                    "stage changes first ({})",
                    v.call(
                        GIT_WRITE,
                        &[Given::positional("command", "add"), Given::positional("paths", json!(["PATH"]))]
                    )
                )
            })),
            E::DirtyTree { files, .. } => error(code::DIRTY_TREE)
                .with_hint(say(|v| {
                    format!(
                        "commit or restore them first, or pass {} to switch anyway (git carries them over)",
                        v.on("allow_dirty")
                    )
                }))
                .with_details(json!({ "files": files })),
            E::BadLines { spec, why } => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} {spec}: {why}", v.arg("lines"))))
                    .with_hint(say(|v| format!("write {} (1-based, inclusive)", v.arg_is("lines", "10:20"))))
            }
            E::Empty { .. } => error(code::INVALID_ARGUMENTS).with_hint("give a non-empty value"),
            E::StagedOutside { path } => error(code::CONFLICT)
                .with_hint(say(|v| {
                    format!("commit from the repository's top ({}), or unstage it first", v.arg("root"))
                }))
                .with_details(json!({ "path": path })),
            E::NotText { path } => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| {
                    format!(
                        "restore a binary file with git itself (git restore PATH): it cannot be undone by {}",
                        v.op(llm_transform::UNDO)
                    )
                }))
                .with_details(json!({ "path": path })),
            E::BadName { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("a branch name is a git ref name: no spaces, no leading `-`, no `..`"),
            E::SwitchBelowTop => error(code::PATH_OUTSIDE_ROOT).with_hint(say(|v| {
                format!("switch with {} at the top of the work tree (where .git is)", v.arg("root"))
            })),
            E::Unmerged { name, commit, into } => error(code::CONFLICT)
                .with_hint(say(|v| {
                    format!(
                        "merge it first, or pass {} to delete it anyway (then git branch {name} {commit} makes it again)",
                        v.on("force")
                    )
                }))
                .with_details(json!({ "branch": name, "commit": commit, "merged_into": into, "reason": "unmerged" })),
            E::CheckedOut { name, elsewhere } => error(code::CONFLICT)
                .with_hint(say(|v| {
                    let other = Given::positional("name", "OTHER");
                    let switch = v.call(GIT_WRITE, &[Given::positional("command", "branch"), other, Given::flag("switch", true)]);
                    match elsewhere {
                        true => "switch that work tree to another branch first (git worktree list shows it)".to_string(),
                        false => format!("switch to another branch first ({switch})"),
                    }
                }))
                .with_details(json!({ "branch": name, "reason": "checked_out", "elsewhere": elsewhere })),
            E::DeleteCombined => AideError::new(code::INVALID_ARGUMENTS, say(delete_alone))
                .with_hint(say(|v| format!("delete with {} alone (and {} for an unmerged branch)", v.arg("delete"), v.arg("force")))),
            E::ForceAlone => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} is only for {}", v.arg("force"), v.arg("delete"))),
            )
            .with_hint(say(|v| format!("add {} to delete the branch", v.on("delete")))),
            E::HookFailed { hook, exit_code, stdout, stderr } => error(code::HOOK_FAILED)
                .with_hint("the hook's output says why: fix what it reports and commit again")
                .with_details(json!({
                    "hook": hook, "exit_code": exit_code, "stdout_tail": stdout, "stderr_tail": stderr,
                })),
            E::HookTimedOut { hook, seconds } => error(code::TIMEOUT)
                .with_hint("the hook did not finish: run it by hand to see why it hangs")
                .with_details(json!({ "hook": hook, "timeout_seconds": seconds })),
            E::Unreadable { command, .. } => error(code::GIT_FAILED)
                .with_hint("run the same git command to see its output; a diff.* or color setting may change it")
                .with_details(json!({ "command": command })),
            E::Cancelled => AideError::cancelled(),
            E::Io { what, source } => AideError::io(what, source),
            E::Open(_) | E::Start(_) => AideError::internal("passed on above"),
        }
    }
}
