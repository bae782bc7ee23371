//! # llm-git: git for agents, as typed records
//!
//! Read-only: `status` (porcelain v2, typed: branch and upstream, staged,
//! unstaged, untracked, renamed and conflicted files), `diff [REV]
//! [--staged] [-- PATHS]` (files, hunks with `old_start`/`old_lines`/
//! `new_start`/`new_lines`, each line with its numbers and, in the new
//! file, its byte span; renames, mode changes and binary files said),
//! `log [REV] [--path P] [-n N]`, `blame PATH [--lines A:B] [--rev REV]`,
//! `show REV` or `show REV:PATH`. Changing: `add PATHS`, `commit -m MSG`
//! (never an empty commit), `branch [NAME] [--create] [--switch]` (a switch
//! refuses uncommitted changes unless `--allow-dirty`), `branch NAME
//! --delete [--force]` (refuses the branch checked out, and an unmerged one
//! unless `--force`; answers the commit it pointed at), `restore PATHS`
//! (through llm-transform: checksum-guarded, journaled, undoable; `--staged`
//! unstages).
//!
//! Everything is read from git's own machine formats (porcelain v2 with
//! `-z`, `--format` fields split by control characters, blame
//! `--porcelain`, unified diffs with fixed prefixes), whatever the user's
//! configuration; a differential test holds each to git itself. Paths are
//! relative to `--root` (which may lie inside the repository); nothing
//! outside it is named or changed, and a work tree set elsewhere than its
//! `.git` is refused. Names are git's bytes in the contract's spelling
//! (`\xHH`), taken back in it. Times are git's own (`%aI`, `%cI`):
//! strict ISO 8601 in the author's or committer's offset, as they wrote it.
//!
//! Nothing the repository's own configuration names runs (fsmonitor,
//! filters, signing programs, remotes: [`aide_core::git::guard`]); the
//! hooks of a commit and a switch run as git runs them, but through the
//! gate (`hooks`): timeout, cancellation, log, `aide mcp`'s sandbox.
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `status`: `{ "branch": { "head", "commit", "upstream", "ahead",
//!   "behind", "detached" }, "files": [{ "path", "kind", "index",
//!   "worktree", "staged", "unstaged", "renamed_from", "submodule" }],
//!   "staged", "unstaged", "untracked", "conflicted", "clean" }`
//! * `diff`: `{ "old", "new", "files": [{ "path", "status", "old_path",
//!   "old_mode", "new_mode", "similarity", "binary", "insertions",
//!   "deletions", "checksum", "hunks": [{ "old_start", "old_lines",
//!   "new_start", "new_lines", "header", "lines": [{ "kind", "text",
//!   "old_line", "line", "byte_start", "byte_end" }] }] }], "insertions",
//!   "deletions" }`
//! * `log`: `{ "commits": [{ "commit", "parents", "author",
//!   "author_email", "time", "committer", "committer_email",
//!   "commit_time", "subject", "body" }], "truncated" }`
//! * `blame`: `{ "path", "rev", "lines": [{ "line", "commit", "author",
//!   "author_email", "time", "summary", "original_line", "original_path",
//!   "text" }] }`
//! * `show`: `{ "shown": "commit"|"file"|"folder", "rev", "commit",
//!   "files", "path", "content", "size", "checksum", "binary", "entries" }`
//! * `add`: `{ "added": [status entry] }`; `commit`: `{ "committed": commit,
//!   "branch", "files", "insertions", "deletions" }`; `branch`: `{
//!   "branches": [{ "name", "commit", "current", "upstream" }], "current",
//!   "created", "switched", "deleted": { "name", "commit", "merged",
//!   "restore" } }`; `restore`: `{ "restored": [{ "path",
//!   "checksum_before", "checksum_after" }], "staged", "undo" }`.
//!
//! Exit status: 0; 2 invalid input (`not_a_repository`, `not_found` for an
//! unknown revision, branch or path, `path_outside_root` for a path or a
//! work tree outside the root); 3 `nothing_to_commit`, `dirty_tree`,
//! `conflict` (deleting the branch checked out, or an unmerged one without
//! `--force`), `hook_failed`
//! (a hook refused the commit), `checksum_mismatch` (a file changed while
//! it was restored); 4 `git_failed` (git's stderr in the details),
//! `timeout` (a hook ran past its 600 s).

mod change;
mod commit;
mod diff;
mod error;
mod history;
mod hooks;
mod operations;
mod output;
mod repo;
mod status;
mod when;

use std::path::PathBuf;

use aide_core::envelope::{Diagnostic, diag};
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use history::DEFAULT_LOG_LIMIT;
pub use output::*;

use crate::error::GitError;
use crate::repo::Repo;

/// A request: the root and one command.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct GitRequest {
    /// The directory to work in, inside a git repository; paths are relative to it.
    #[arg(long, global = true, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: GitCommand,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for GitRequest {}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GitCommand {
    /// Branch and upstream, and the staged, unstaged, untracked and conflicted files.
    Status(PathsArgs),
    /// Changes as files, hunks and lines (the working tree against the index, or REV; the index with --staged).
    Diff(DiffArgs),
    /// Commits, newest first.
    Log(LogArgs),
    /// Who last changed each line of a file.
    Blame(BlameArgs),
    /// A commit and its changes (REV), or a file or folder at a revision (REV:PATH).
    Show(ShowArgs),
    /// Stage files.
    Add(PathsArgs),
    /// Commit what is staged (and PATHs, staged first); nothing staged is refused.
    Commit(CommitArgs),
    /// List branches; create one (--create), switch to one (--switch) or delete one (--delete).
    Branch(BranchArgs),
    /// Put files back as the index (or --source REV) has them, undoably; --staged unstages them.
    Restore(RestoreArgs),
}

/// Paths (relative to --root).
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PathsArgs {
    /// Paths relative to --root.
    #[arg(value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DiffArgs {
    /// Compare with this revision (default: the index; HEAD if staged).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
    /// What is staged, against HEAD or rev.
    #[arg(long, alias = "cached")]
    pub staged: bool,
    /// Files and their line counts only, no hunks (git diff --stat).
    #[arg(long)]
    pub stat: bool,
    /// Only these paths (after `--`).
    #[arg(last = true, value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LogArgs {
    /// Where history starts (default HEAD).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
    /// Only commits that changed this path.
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    /// At most this many commits (default 20).
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct BlameArgs {
    /// The file, relative to --root.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Only these lines, `A:B` (1-based, inclusive).
    #[arg(long, value_name = "A:B")]
    pub lines: Option<String>,
    /// The file as it is at this revision (default: the working tree).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ShowArgs {
    /// A revision, or `REV:PATH` for a file or folder at it (`:PATH`: the index's).
    #[arg(value_name = "REV[:PATH]")]
    pub rev: String,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CommitArgs {
    #[arg(long, short = 'm', value_name = "MESSAGE", help = "The commit message")]
    pub message: String,
    /// Staged first, with what is staged already (git commit --include);
    /// a refused commit leaves them staged.
    #[arg(value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct BranchArgs {
    /// The branch to create or switch to (none: list them).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Create the branch (at start, default HEAD).
    #[arg(long, short = 'c')]
    pub create: bool,
    #[arg(long, short = 's', help = "Switch to the branch")]
    pub switch: bool,
    /// Where a created branch starts.
    #[arg(long, value_name = "REV")]
    pub start: Option<String>,
    /// Switch despite uncommitted changes.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Delete the branch (refused when it is checked out, or not merged into its upstream or HEAD).
    #[arg(long, short = 'd', conflicts_with_all = ["create", "switch", "start", "allow_dirty"])]
    pub delete: bool,
    /// With --delete: delete it though it is not merged.
    #[arg(long, requires = "delete")]
    pub force: bool,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RestoreArgs {
    /// The files, relative to --root.
    #[arg(value_name = "PATH", required = true)]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    /// Unstage them instead; the files stay.
    #[arg(long)]
    pub staged: bool,
    /// The revision to restore from (default: the index).
    #[arg(long, value_name = "REV")]
    pub source: Option<String>,
}

/// Refuses a path that leaves the root (by its letters or through a link).
fn confined(root: &Root, paths: &[String]) -> Result<(), AideError> {
    // An empty path (`show REV:`) is the root itself.
    for p in paths.iter().filter(|p| !p.is_empty()) {
        root.resolve(p)?;
    }
    Ok(())
}

/// Runs a request.
pub fn git(request: &GitRequest, ctx: &Context) -> Result<Outcome<GitOutput>, AideError> {
    let root = ctx.open_root(request.root.as_deref())?;
    let repo = Repo::open(&root)?;
    let mut outcome = answer(request, &root, &repo, ctx)?;
    outcome.diagnostics.extend(ignored_config(&repo));
    outcome.diagnostics.extend(outcome.output.paths().into_iter().filter_map(lossy_name));
    Ok(outcome)
}

/// The repository's own settings git ran without, said once.
fn ignored_config(repo: &Repo) -> Option<Diagnostic> {
    let keys = repo.ignored();
    (!keys.is_empty()).then(|| {
        Diagnostic::new(
            diag::GIT_CONFIG_IGNORED,
            format!(
                "the repository's own configuration names programs git did not run: {} \
                 (filters pass content unfiltered; signing uses your own or git's default program)",
                keys.join(", ")
            ),
        )
    })
}

/// A `lossy_utf8` diagnostic for a name that is not UTF-8 (shown with `\xHH`).
fn lossy_name(path: &str) -> Option<Diagnostic> {
    let bytes = aide_core::text::unescape_path(path)?;
    bytes.to_str().is_none().then(|| {
        Diagnostic::new(
            diag::LOSSY_UTF8,
            "the file name is not UTF-8: shown with \\xHH for each stray byte (and \\\\ for a backslash), a form every tool accepts back",
        )
        .with_path(path)
    })
}

/// The command's answer.
fn answer(request: &GitRequest, root: &Root, repo: &Repo, ctx: &Context) -> Result<Outcome<GitOutput>, AideError> {
    let output = match &request.command {
        GitCommand::Status(a) => {
            confined(root, &a.paths)?;
            GitOutput::Status(status::status(repo, &a.paths)?)
        }
        GitCommand::Diff(a) => {
            confined(root, &a.paths)?;
            let mut diff = diff::diff(repo, root, a.rev.as_deref(), a.staged, &a.paths)?;
            if a.stat {
                diff.files.iter_mut().for_each(|f| f.hunks.clear());
            }
            GitOutput::Diff(diff)
        }
        GitCommand::Log(a) => {
            confined(root, a.path.as_slice())?;
            aide_core::request::check_limit(a.limit)?;
            let limit = a.limit.unwrap_or(DEFAULT_LOG_LIMIT);
            GitOutput::Log(history::log(repo, a.rev.as_deref(), a.path.as_deref(), limit)?)
        }
        GitCommand::Blame(a) => {
            if a.path.is_empty() {
                return Err(GitError::Empty { what: "the path to blame" }.into());
            }
            confined(root, std::slice::from_ref(&a.path))?;
            GitOutput::Blame(history::blame(repo, &a.path, a.lines.as_deref(), a.rev.as_deref())?)
        }
        GitCommand::Show(a) => {
            if a.rev.is_empty() {
                return Err(GitError::Empty { what: "the revision to show" }.into());
            }
            if let Some((_, path)) = a.rev.split_once(':') {
                confined(root, &[path.to_string()])?;
            }
            GitOutput::Show(Box::new(history::show(repo, &a.rev)?))
        }
        GitCommand::Add(a) => {
            confined(root, &a.paths)?;
            let added = change::add(repo, &a.paths)?;
            let mut diagnostics = Vec::new();
            hooks::Hooks::new(repo, ctx).not_run(&["post-index-change"], &mut diagnostics);
            return Ok(Outcome::with_diagnostics(GitOutput::Add(added), diagnostics));
        }
        GitCommand::Commit(a) => {
            if !a.paths.is_empty() {
                confined(root, &a.paths)?;
                change::add(repo, &a.paths)?;
            }
            let (committed, diagnostics) = commit::commit(repo, &a.message, ctx)?;
            return Ok(Outcome::with_diagnostics(GitOutput::Commit(committed), diagnostics));
        }
        GitCommand::Branch(a) => {
            let ask = change::BranchAsk {
                name: a.name.as_deref(),
                create: a.create,
                switch: a.switch,
                start: a.start.as_deref(),
                allow_dirty: a.allow_dirty,
                delete: a.delete,
                force: a.force,
            };
            let (branches, diagnostics) = change::branch(repo, &ask, ctx)?;
            return Ok(Outcome::with_diagnostics(GitOutput::Branch(branches), diagnostics));
        }
        GitCommand::Restore(a) => {
            confined(root, &a.paths)?;
            let (restored, diagnostics) = change::restore(repo, root, &a.paths, a.staged, a.source.as_deref(), ctx)?;
            return Ok(Outcome::with_diagnostics(GitOutput::Restore(restored), diagnostics));
        }
    };
    Ok(Outcome::new(output))
}

/// The `llm-git` tool.
#[derive(Debug)]
pub struct LlmGit;

impl Tool for LlmGit {
    const NAME: &'static str = "llm-git";
    const SUMMARY: &'static str =
        "git as typed records: status, diffs with spans, log, blame, show; add, commit, branch, restore with undo.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str =
        "git as typed records: status, diff with spans, log, blame, show; add, commit, branch, restore (undoable).";
    type Request = GitRequest;
    type Output = GitOutput;

    fn run(request: GitRequest, ctx: &Context) -> Result<Outcome<GitOutput>, AideError> {
        git(&request, ctx)
    }
}
