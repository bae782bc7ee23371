//! The commands that change the repository (`commit` has a module of its
//! own): `add`, `branch` (list, create, switch — refusing uncommitted
//! changes unless asked; `post-checkout` runs through the gate —, delete —
//! refusing the branch checked out, and an unmerged one unless forced) and
//! `restore`, which puts files back through llm-transform's commit
//! (checksum-guarded, journaled, undoable) and unstages with `--staged`.

use aide_core::envelope::Diagnostic;
use aide_core::tool::{Context, Tool};
use aide_core::{AideError, Root};
use llm_transform::request::Operation;
use llm_transform::{LlmTransform, TransformOutput, TransformRequest};

use std::ffi::OsString;

use crate::error::GitError;
use crate::hooks::{HookRun, Hooks};
use crate::output::{AddOutput, BranchInfo, BranchOutput, DeletedBranch, RestoreOutput, RestoredFile};
use aide_core::git::shown;

use crate::repo::{Repo, literal, object};
use crate::status::status;

/// `add PATHS`: stages them; answers the files now staged among them.
pub(crate) fn add(repo: &Repo, paths: &[String]) -> Result<AddOutput, GitError> {
    if paths.is_empty() {
        return Err(GitError::Empty { what: "the paths to add" });
    }
    let mut args: Vec<OsString> = vec!["add".into(), "--".into()];
    args.extend(paths.iter().map(|p| literal(p)));
    let ran = repo.ran(&args)?;
    if ran.status != 0 {
        if ran.stderr.contains("did not match any files") {
            return Err(GitError::Unknown { what: "path", given: paths.join(" "), stderr: ran.stderr });
        }
        return Err(GitError::Failed { command: shown(&args), status: ran.status, stderr: ran.stderr });
    }
    let now = status(repo, paths)?;
    Ok(AddOutput { added: now.files.into_iter().filter(|f| f.staged).collect() })
}

/// The branch checked out (None: HEAD is detached).
pub(crate) fn current_branch(repo: &Repo) -> Result<Option<String>, GitError> {
    let ran = repo.ran(&["symbolic-ref", "--quiet", "--short", "HEAD"])?;
    Ok((ran.status == 0).then(|| String::from_utf8_lossy(&ran.stdout).trim().to_string()))
}

fn branches(repo: &Repo) -> Result<Vec<BranchInfo>, GitError> {
    let out = repo.run(&[
        "for-each-ref",
        "--format=%(refname:short)%1f%(objectname)%1f%(HEAD)%1f%(upstream:short)",
        "refs/heads",
    ])?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\x1f').collect();
            let [name, commit, head, upstream] = f.as_slice() else { return None };
            Some(BranchInfo {
                name: name.to_string(),
                commit: commit.to_string(),
                current: *head == "*",
                upstream: (!upstream.is_empty()).then(|| upstream.to_string()),
            })
        })
        .collect())
}

/// What `branch` was asked.
pub(crate) struct BranchAsk<'a> {
    pub name: Option<&'a str>,
    pub create: bool,
    pub switch: bool,
    pub start: Option<&'a str>,
    pub allow_dirty: bool,
    pub delete: bool,
    pub force: bool,
}

/// `branch`: lists; with a name, creates (`create`) and/or switches to it
/// (then `post-checkout PREVIOUS NEW 1` runs, as from git).
pub(crate) fn branch(
    repo: &Repo,
    ask: &BranchAsk<'_>,
    ctx: &Context,
) -> Result<(BranchOutput, Vec<Diagnostic>), GitError> {
    let (mut created, mut switched, mut deleted) = (None, None, None);
    let mut diagnostics = Vec::new();
    if ask.force && !ask.delete {
        return Err(GitError::ForceAlone);
    }
    if ask.delete {
        if ask.create || ask.switch || ask.start.is_some() || ask.allow_dirty {
            return Err(GitError::DeleteCombined);
        }
        let Some(name) = ask.name else { return Err(GitError::Empty { what: "the branch to delete" }) };
        check_name(repo, name)?;
        deleted = Some(delete(repo, name, ask.force)?);
        Hooks::new(repo, ctx).not_run(&["reference-transaction"], &mut diagnostics);
    } else if let Some(name) = ask.name {
        check_name(repo, name)?;
        if !ask.create && !ask.switch {
            return Err(GitError::BadName { given: name.to_string(), why: "say --create, --switch or both" });
        }
        let start = ask.start.map(|s| repo.commit(s)).transpose()?;
        let hooks = Hooks::new(repo, ctx);
        if ask.switch {
            if !repo.place().prefix.is_empty() {
                return Err(GitError::SwitchBelowTop);
            }
            if !ask.allow_dirty {
                let dirty: Vec<String> =
                    status(repo, &[])?.files.into_iter().filter(|f| f.staged || f.unstaged).map(|f| f.path).collect();
                if !dirty.is_empty() {
                    return Err(GitError::DirtyTree { count: dirty.len(), files: dirty });
                }
            }
            let mut args = vec!["switch", "--quiet", "--no-guess"];
            if ask.create {
                args.push("-c");
            }
            args.push(name);
            if let Some(start) = &start {
                args.push(start);
            }
            let before = head(repo)?;
            let ran = repo.ran(&args)?;
            if ran.status != 0 {
                if !ask.create && ran.stderr.contains("invalid reference") {
                    return Err(GitError::Unknown { what: "branch", given: name.to_string(), stderr: ran.stderr });
                }
                return Err(GitError::Failed { command: args.join(" "), status: ran.status, stderr: ran.stderr });
            }
            switched = Some(name.to_string());
            let args = vec![before.into(), head(repo)?.into(), "1".into()];
            hooks.run_after("post-checkout", HookRun { args, ..HookRun::default() }, &mut diagnostics);
            hooks.not_run(&["reference-transaction", "post-index-change"], &mut diagnostics);
        } else {
            let mut args = vec!["branch", "--no-track", name];
            if let Some(start) = &start {
                args.push(start);
            }
            repo.run(&args)?;
            hooks.not_run(&["reference-transaction"], &mut diagnostics);
        }
        if ask.create {
            created = Some(name.to_string());
        }
    }
    let output = BranchOutput { branches: branches(repo)?, current: current_branch(repo)?, created, switched, deleted };
    Ok((output, diagnostics))
}

/// `branch NAME --delete [--force]`: git's own `branch -d` (`-D` forced),
/// after the refusals said in the caller's words: an unknown branch, the
/// branch checked out, one not merged into its upstream (HEAD when it has
/// none, as git decides) unless forced. Answers the commit it pointed at.
fn delete(repo: &Repo, name: &str, force: bool) -> Result<DeletedBranch, GitError> {
    let unknown = |stderr: String| GitError::Unknown { what: "branch", given: name.to_string(), stderr };
    let all = branches(repo)?;
    let Some(branch) = all.iter().find(|b| b.name == name) else {
        return Err(unknown("no such branch in refs/heads".into()));
    };
    if branch.current {
        return Err(GitError::CheckedOut { name: name.to_string(), elsewhere: false });
    }
    let mut into = branch.upstream.clone().unwrap_or_else(|| "HEAD".to_string());
    let mut ancestor = repo.ran(&["merge-base", "--is-ancestor", &branch.commit, &into])?;
    if ancestor.status > 1 && into != "HEAD" {
        // An upstream that is gone: git then judges by HEAD.
        into = "HEAD".to_string();
        ancestor = repo.ran(&["merge-base", "--is-ancestor", &branch.commit, &into])?;
    }
    let merged = ancestor.status == 0;
    if !merged && !force {
        return Err(GitError::Unmerged { name: name.to_string(), commit: branch.commit.clone(), into });
    }
    let args = ["branch", if force { "-D" } else { "-d" }, "--", name];
    let ran = repo.ran(&args)?;
    if ran.status != 0 {
        return Err(if ran.stderr.contains("not fully merged") {
            GitError::Unmerged { name: name.to_string(), commit: branch.commit.clone(), into }
        } else if ran.stderr.contains("worktree") || ran.stderr.contains("checked out") {
            GitError::CheckedOut { name: name.to_string(), elsewhere: true }
        } else if ran.stderr.contains("not found") {
            unknown(ran.stderr)
        } else {
            GitError::Failed { command: args.join(" "), status: ran.status, stderr: ran.stderr }
        });
    }
    let commit = branch.commit.clone();
    Ok(DeletedBranch { restore: format!("git branch {name} {commit}"), name: name.to_string(), commit, merged })
}

/// The commit HEAD names (git's null id before the first commit), as
/// `post-checkout` is given it.
fn head(repo: &Repo) -> Result<String, GitError> {
    let ran = repo.ran(&["rev-parse", "--verify", "--quiet", "HEAD"])?;
    let id = String::from_utf8_lossy(&ran.stdout).trim().to_string();
    Ok(if ran.status == 0 && !id.is_empty() { id } else { "0".repeat(40) })
}

/// A branch name git takes, never one read as an option.
fn check_name(repo: &Repo, name: &str) -> Result<(), GitError> {
    if name.starts_with('-') {
        return Err(GitError::BadName { given: name.to_string(), why: "a branch name cannot start with `-`" });
    }
    let ran = repo.ran(&["check-ref-format", "--branch", name])?;
    if ran.status != 0 {
        return Err(GitError::BadName { given: name.to_string(), why: "not a valid branch name" });
    }
    Ok(())
}

/// `restore PATHS [--source REV]`: the files as the index (or REV) has
/// them, written through llm-transform (all or nothing, each guarded by
/// the checksum it has now, undoable); with `staged`, unstaged instead
/// (`git restore --staged`), the working tree untouched.
pub(crate) fn restore(
    repo: &Repo,
    root: &Root,
    paths: &[String],
    staged: bool,
    source: Option<&str>,
    ctx: &Context,
) -> Result<(RestoreOutput, Vec<Diagnostic>), AideError> {
    if paths.is_empty() {
        return Err(GitError::Empty { what: "the paths to restore" }.into());
    }
    if let Some(rev) = source {
        repo.commit(rev)?;
    }
    let files = tracked_files(repo, paths, source)?;
    if staged {
        let mut args: Vec<OsString> = vec!["restore".into(), "--staged".into()];
        if let Some(rev) = source {
            args.push(format!("--source={rev}").into());
        }
        args.push("--".into());
        args.extend(paths.iter().map(|p| literal(p)));
        repo.run(&args)?;
        let restored = files.into_iter().map(|path| RestoredFile { path, checksum_before: None, checksum_after: None });
        let mut diagnostics = Vec::new();
        Hooks::new(repo, ctx).not_run(&["post-index-change"], &mut diagnostics);
        return Ok((RestoreOutput { restored: restored.collect(), staged: true, undo: None }, diagnostics));
    }
    let specs: Vec<Vec<u8>> = files.iter().map(|p| object(source.unwrap_or(""), p)).collect();
    let wanted = repo.blobs(&specs)?;
    let mut operations = Vec::new();
    let mut restored = Vec::new();
    for (path, blob) in files.iter().zip(wanted) {
        let Some(bytes) = blob else { continue };
        let now = root.read(std::path::Path::new(&crate::repo::raw(path))).ok();
        if now.as_deref() == Some(&bytes[..]) {
            continue;
        }
        let content = String::from_utf8(bytes).map_err(|_| GitError::NotText { path: path.clone() })?;
        let checksum_before = now.as_deref().map(aide_core::checksum::sha256_hex);
        restored.push(RestoredFile {
            path: path.clone(),
            checksum_before: checksum_before.clone(),
            checksum_after: Some(aide_core::checksum::sha256_hex(content.as_bytes())),
        });
        operations.push(Operation::Write { path: path.clone(), content, create_dirs: true, checksum_before });
    }
    if operations.is_empty() {
        return Ok((RestoreOutput { restored, staged: false, undo: None }, Vec::new()));
    }
    let request = TransformRequest { root: Some(root.path().to_path_buf()), operations, ..TransformRequest::default() };
    let outcome = LlmTransform::run(request, &ctx.nested())?;
    let undo = match outcome.output {
        TransformOutput::Transform { undo, .. } => undo,
        _ => None,
    };
    Ok((RestoreOutput { restored, staged: false, undo }, outcome.diagnostics))
}

/// The files git knows under `paths`, in the index or at `rev`.
fn tracked_files(repo: &Repo, paths: &[String], rev: Option<&str>) -> Result<Vec<String>, GitError> {
    let mut args: Vec<OsString> = match rev {
        Some(rev) => {
            ["ls-tree", "-r", "-z", "--name-only", "--full-name", "--end-of-options", rev].map(OsString::from).into()
        }
        None => ["ls-files", "-z", "--full-name"].map(OsString::from).into(),
    };
    args.push("--".into());
    // ls-tree takes plain paths (no pathspec magic); ls-files, literal ones.
    args.extend(paths.iter().map(|p| if rev.is_some() { crate::repo::raw(p) } else { literal(p) }));
    let out = repo.run(&args)?;
    let files: Vec<String> = out.split(|&b| b == 0).filter(|p| !p.is_empty()).filter_map(|p| repo.local(p)).collect();
    if files.is_empty() {
        return Err(GitError::Unknown {
            what: "path",
            given: paths.join(" "),
            stderr: format!("not in {}", rev.unwrap_or("the index")),
        });
    }
    Ok(files)
}
