//! `commit -m MESSAGE`: what is staged, as git commits it — never an empty
//! commit, refused when something staged lies outside the root (a commit
//! takes the whole index). The commit's hooks run as git runs them, but
//! through the gate ([`crate::hooks`]): `pre-commit` (a failure aborts,
//! and what it staged counts), `prepare-commit-msg FILE message` and
//! `commit-msg FILE` (either may rewrite the message in FILE; a failure
//! aborts), then git commits FILE's message with hooks off, then
//! `post-commit`. Every hook sees the author git will record and
//! `GIT_INDEX_FILE`, `GIT_EDITOR=:`, as from git.

use std::ffi::OsString;

use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;

use crate::error::GitError;
use crate::history::one_commit;
use crate::hooks::{HookRun, Hooks};
use crate::output::CommitOutput;
use crate::repo::Repo;

/// The hooks around a commit, in the order git runs them.
const COMMIT_HOOKS: [&str; 4] = ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"];

/// `commit -m MESSAGE`.
pub(crate) fn commit(repo: &Repo, message: &str, ctx: &Context) -> Result<(CommitOutput, Vec<Diagnostic>), GitError> {
    if message.trim().is_empty() {
        return Err(GitError::Empty { what: "the commit message" });
    }
    check_staged(repo)?;
    let hooks = Hooks::new(repo, ctx);
    let mut diagnostics = Vec::new();
    hooks.not_run(&["reference-transaction", "post-index-change"], &mut diagnostics);
    if !COMMIT_HOOKS.iter().any(|h| hooks.has(h)) {
        repo.run(&["commit", "--quiet", "-m", message])?;
    } else {
        with_hooks(repo, &hooks, message, &mut diagnostics)?;
    }
    let committed = one_commit(repo, "HEAD")?;
    let numstat =
        repo.run(&["diff-tree", "--numstat", "-r", "--root", "--no-commit-id", crate::diff::FIRST_PARENT, "HEAD"])?;
    let (mut files, mut insertions, mut deletions) = (0, 0, 0);
    for line in String::from_utf8_lossy(&numstat).lines() {
        let mut f = line.split('\t');
        files += 1;
        insertions += f.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
        deletions += f.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
    }
    let branch = crate::change::current_branch(repo)?;
    Ok((CommitOutput { committed, branch, files, insertions, deletions }, diagnostics))
}

/// Something is staged, and all of it inside the root.
fn check_staged(repo: &Repo) -> Result<(), GitError> {
    let staged = repo.run(&["diff", "--cached", "--name-only", "-z", "--no-renames"])?;
    let staged: Vec<&[u8]> = staged.split(|&b| b == 0).filter(|p| !p.is_empty()).collect();
    if staged.is_empty() {
        return Err(GitError::NothingToCommit);
    }
    if let Some(outside) = staged.iter().find(|p| repo.local(p).is_none()) {
        return Err(GitError::StagedOutside { path: Repo::spelled(outside) });
    }
    Ok(())
}

/// The commit with its hooks run around it.
fn with_hooks(
    repo: &Repo,
    hooks: &Hooks<'_>,
    message: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), GitError> {
    let author = author(repo)?;
    let mut env = author.clone();
    env.push(("GIT_INDEX_FILE", index_file(repo)?));
    env.push(("GIT_EDITOR", ":".into()));
    hooks.run("pre-commit", HookRun { env: env.clone(), ..HookRun::default() })?;
    // What pre-commit staged or unstaged is what is committed.
    check_staged(repo)?;
    let folder = tempfile::Builder::new()
        .prefix("llm-git-commit-")
        .tempdir()
        .map_err(|source| GitError::Io { what: "a folder for the commit message", source })?;
    let file = folder.path().join("COMMIT_EDITMSG");
    let mut text = message.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    std::fs::write(&file, text).map_err(|source| GitError::Io { what: "the commit message", source })?;
    let with_file = |args: Vec<OsString>| HookRun { args, env: env.clone(), writable: Some(folder.path()) };
    hooks.run("prepare-commit-msg", with_file(vec![file.clone().into(), "message".into()]))?;
    hooks.run("commit-msg", with_file(vec![file.clone().into()]))?;
    let args: [OsString; 4] = ["commit".into(), "--quiet".into(), "-F".into(), file.into()];
    let ran = repo.ran_with(&args, None, &author)?;
    crate::repo::stdout_of(ran, &args, None)?;
    hooks.run_after("post-commit", HookRun { env, ..HookRun::default() }, diagnostics);
    Ok(())
}

/// The author git will record, as the environment that makes git record
/// it (so the hooks see the author of the commit they are about, as from
/// git): `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`, `GIT_AUTHOR_DATE`.
fn author(repo: &Repo) -> Result<Vec<(&'static str, OsString)>, GitError> {
    let ident = repo.run(&["var", "GIT_AUTHOR_IDENT"])?;
    let ident = String::from_utf8_lossy(&ident);
    let ident = ident.trim_end();
    // `Name <email> SECONDS ZONE`
    let parsed = ident.rsplitn(3, ' ').collect::<Vec<_>>();
    let [zone, seconds, who] = parsed.as_slice() else {
        return Err(GitError::Failed { command: "var GIT_AUTHOR_IDENT".into(), status: 0, stderr: ident.into() });
    };
    let (name, email) = who.rsplit_once(" <").unwrap_or((who, ""));
    Ok(vec![
        ("GIT_AUTHOR_NAME", name.into()),
        ("GIT_AUTHOR_EMAIL", email.trim_end_matches('>').into()),
        ("GIT_AUTHOR_DATE", format!("@{seconds} {zone}").into()),
    ])
}

/// The index git commits (`GIT_INDEX_FILE`, else the git directory's), absolute.
fn index_file(repo: &Repo) -> Result<OsString, GitError> {
    let path = repo.run(&["rev-parse", "--git-path", "index"])?;
    let path = path.strip_suffix(b"\n").unwrap_or(&path);
    Ok(repo.dir.join(crate::repo::arg(path.to_vec())).into_os_string())
}
