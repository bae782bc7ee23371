//! The commands that change the repository: `add`, `commit` (never an
//! empty one), `branch` (list, create, switch — refusing uncommitted
//! changes unless asked) and `restore`, which puts files back through
//! llm-transform's commit (checksum-guarded, journaled, undoable) and
//! unstages with `--staged`.

use aide_core::envelope::Diagnostic;
use aide_core::tool::{Context, Tool};
use aide_core::{AideError, Root};
use llm_transform::request::Operation;
use llm_transform::{LlmTransform, TransformOutput, TransformRequest};

use crate::error::GitError;
use crate::history::one_commit;
use crate::output::{AddOutput, BranchInfo, BranchOutput, CommitOutput, RestoreOutput, RestoredFile};
use crate::repo::{Repo, literal};
use crate::status::status;

/// `add PATHS`: stages them; answers the files now staged among them.
pub fn add(repo: &Repo, paths: &[String]) -> Result<AddOutput, GitError> {
    if paths.is_empty() {
        return Err(GitError::Empty { what: "the paths to add" });
    }
    let mut args: Vec<String> = vec!["add".into(), "--".into()];
    args.extend(paths.iter().map(|p| literal(p)));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = repo.ran(&refs)?;
    if ran.status != 0 {
        if ran.stderr.contains("did not match any files") {
            return Err(GitError::Unknown { what: "path", given: paths.join(" "), stderr: ran.stderr });
        }
        return Err(GitError::Failed { command: refs.join(" "), status: ran.status, stderr: ran.stderr });
    }
    let now = status(repo, paths)?;
    Ok(AddOutput { added: now.files.into_iter().filter(|f| f.staged).collect() })
}

/// `commit -m MESSAGE`: what is staged, as git commits it (hooks run).
/// Refused when nothing is staged, and when something staged lies outside
/// the root (a commit takes the whole index).
pub fn commit(repo: &Repo, message: &str) -> Result<CommitOutput, GitError> {
    if message.trim().is_empty() {
        return Err(GitError::Empty { what: "the commit message" });
    }
    let staged = repo.run(&["diff", "--cached", "--name-only", "-z", "--no-renames"])?;
    let staged: Vec<String> =
        staged.split(|&b| b == 0).filter(|p| !p.is_empty()).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
    if staged.is_empty() {
        return Err(GitError::NothingToCommit);
    }
    if let Some(outside) = staged.iter().find(|p| repo.local(p).is_none()) {
        return Err(GitError::StagedOutside { path: outside.clone() });
    }
    repo.run(&["commit", "--quiet", "-m", message])?;
    let committed = one_commit(repo, "HEAD")?;
    let numstat = repo.run(&["diff-tree", "--numstat", "-r", "--root", "--no-commit-id", "HEAD"])?;
    let (mut files, mut insertions, mut deletions) = (0, 0, 0);
    for line in String::from_utf8_lossy(&numstat).lines() {
        let mut f = line.split('\t');
        files += 1;
        insertions += f.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
        deletions += f.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
    }
    let branch = current_branch(repo)?;
    Ok(CommitOutput { committed, branch, files, insertions, deletions })
}

fn current_branch(repo: &Repo) -> Result<Option<String>, GitError> {
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
pub struct BranchAsk<'a> {
    pub name: Option<&'a str>,
    pub create: bool,
    pub switch: bool,
    pub start: Option<&'a str>,
    pub allow_dirty: bool,
}

/// `branch`: lists; with a name, creates (`create`) and/or switches to it.
pub fn branch(repo: &Repo, ask: &BranchAsk<'_>) -> Result<BranchOutput, GitError> {
    let (mut created, mut switched) = (None, None);
    if let Some(name) = ask.name {
        check_name(repo, name)?;
        if !ask.create && !ask.switch {
            return Err(GitError::BadName { given: name.to_string(), why: "say --create, --switch or both" });
        }
        let start = ask.start.map(|s| repo.commit(s)).transpose()?;
        if ask.switch {
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
            let ran = repo.ran(&args)?;
            if ran.status != 0 {
                if !ask.create && ran.stderr.contains("invalid reference") {
                    return Err(GitError::Unknown { what: "branch", given: name.to_string(), stderr: ran.stderr });
                }
                return Err(GitError::Failed { command: args.join(" "), status: ran.status, stderr: ran.stderr });
            }
            switched = Some(name.to_string());
        } else {
            let mut args = vec!["branch", "--no-track", name];
            if let Some(start) = &start {
                args.push(start);
            }
            repo.run(&args)?;
        }
        if ask.create {
            created = Some(name.to_string());
        }
    }
    Ok(BranchOutput { branches: branches(repo)?, current: current_branch(repo)?, created, switched })
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
pub fn restore(
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
        let mut args: Vec<String> = vec!["restore".into(), "--staged".into()];
        if let Some(rev) = source {
            args.push(format!("--source={rev}"));
        }
        args.push("--".into());
        args.extend(paths.iter().map(|p| literal(p)));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        repo.run(&refs)?;
        let restored = files.into_iter().map(|path| RestoredFile { path, checksum_before: None, checksum_after: None });
        return Ok((RestoreOutput { restored: restored.collect(), staged: true, undo: None }, Vec::new()));
    }
    let specs: Vec<String> = files.iter().map(|p| format!("{}:./{p}", source.unwrap_or(""))).collect();
    let wanted = repo.blobs(&specs)?;
    let mut operations = Vec::new();
    let mut restored = Vec::new();
    for (path, blob) in files.iter().zip(wanted) {
        let Some(bytes) = blob else { continue };
        let now = root.read(std::path::Path::new(path)).ok();
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
    let mut args: Vec<String> = match rev {
        Some(rev) => {
            vec!["ls-tree".into(), "-r".into(), "-z".into(), "--name-only".into(), "--full-name".into(), rev.into()]
        }
        None => vec!["ls-files".into(), "-z".into(), "--full-name".into()],
    };
    args.push("--".into());
    // ls-tree takes plain paths (no pathspec magic); ls-files, literal ones.
    args.extend(paths.iter().map(|p| if rev.is_some() { p.clone() } else { literal(p) }));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = repo.run(&refs)?;
    let files: Vec<String> = out
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| repo.local(&String::from_utf8_lossy(p)))
        .collect();
    if files.is_empty() {
        return Err(GitError::Unknown {
            what: "path",
            given: paths.join(" "),
            stderr: format!("not in {}", rev.unwrap_or("the index")),
        });
    }
    Ok(files)
}
