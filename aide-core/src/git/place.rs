//! Where a root stands in its repository, as git itself sees it: the top
//! of the work tree, the root's path from there, the git directory and the
//! folder git finds hooks in. A work tree set elsewhere than where its
//! `.git` is (`core.worktree`, `GIT_WORK_TREE`) is refused: git would list,
//! diff, stage and check out the files of that other folder.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::OpenError;

/// A root's place in its repository.
#[derive(Debug, Clone)]
pub struct Place {
    /// The top of the work tree (the root, or a folder above it).
    pub top: PathBuf,
    /// The root's path from the top with a trailing `/` (empty at the top),
    /// as git spells it: what git's top-relative paths start with.
    pub prefix: Vec<u8>,
    /// The git directory (absolute): `.git`, or a linked work tree's or a
    /// submodule's folder elsewhere.
    pub git_dir: PathBuf,
    /// The folder git would run hooks from (`core.hooksPath`, else the
    /// common git directory's `hooks`), absolute.
    pub hooks: PathBuf,
}

/// Asks git (`probe`: git in `dir`, before anything else runs) where `dir`
/// stands, and checks the work tree is the one its `.git` belongs to.
pub(super) fn locate(dir: &Path, mut probe: Command) -> Result<Place, OpenError> {
    let out = probe
        .args(["rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--git-path", "hooks"])
        .args(["--show-toplevel", "--show-prefix"])
        .output()
        .map_err(|e| OpenError::Missing { reason: e.to_string() })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // A bare repository (no work tree) or none at all.
        return Err(OpenError::NotARepository { why: stderr.trim().lines().last().unwrap_or("").to_string() });
    }
    let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
    let [inside, git_dir, hooks, top, prefix, ..] = lines.as_slice() else {
        return Err(OpenError::NotARepository { why: "git rev-parse said too little".into() });
    };
    let path = |bytes: &[u8]| PathBuf::from(OsStr::from_bytes(bytes));
    if *inside != b"true" {
        return Err(if top.is_empty() {
            OpenError::NotARepository { why: "not inside a work tree".into() }
        } else {
            OpenError::WorkTreeElsewhere { why: "the root is not inside the work tree git uses" }
        });
    }
    let (top, git_dir) = (path(top), path(git_dir));
    if !belongs(&top, &git_dir) {
        return Err(OpenError::WorkTreeElsewhere { why: "the work tree git uses is not the folder its .git is in" });
    }
    let mut root_from_top = top.clone();
    if !prefix.is_empty() {
        root_from_top.push(OsStr::from_bytes(prefix));
    }
    if !same(&root_from_top, dir) {
        return Err(OpenError::WorkTreeElsewhere { why: "the root is not where git places it in the work tree" });
    }
    Ok(Place { hooks: dir.join(path(hooks)), top, prefix: prefix.to_vec(), git_dir })
}

/// Whether `top/.git` is `git_dir`: the folder itself, or a `gitdir:` file
/// (a linked work tree, a submodule) naming it.
fn belongs(top: &Path, git_dir: &Path) -> bool {
    let dot_git = top.join(".git");
    let Ok(meta) = std::fs::metadata(&dot_git) else { return false };
    if meta.is_dir() {
        return same(&dot_git, git_dir);
    }
    // A `.git` file is one line; a large one is not git's.
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return false;
    }
    let Ok(text) = std::fs::read(&dot_git) else { return false };
    let Some(named) = text.strip_prefix(b"gitdir: ") else { return false };
    let named = named.strip_suffix(b"\n").unwrap_or(named);
    let named = named.strip_suffix(b"\r").unwrap_or(named);
    same(&top.join(OsStr::from_bytes(named)), git_dir)
}

/// Whether two paths name the same existing folder.
fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
