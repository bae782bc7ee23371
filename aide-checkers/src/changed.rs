//! The files git says changed: against a revision (HEAD by default),
//! staged or not, and the untracked ones git does not ignore.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use aide_core::AideError;

fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, AideError> {
    let out =
        Command::new("git").args(args).current_dir(root).stdin(std::process::Stdio::null()).output().map_err(|e| {
            AideError::new(aide_core::code::IO_ERROR, format!("git {}: {e}", args.join(" ")))
                .with_hint("--changed and --baseline need git on PATH")
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("git {}: {stderr}", args.join(" ")))
            .with_hint("--changed and --baseline need a git repository and a revision in it"));
    }
    Ok(out.stdout)
}

/// Paths relative to `root` (which may lie inside the repository) of files
/// that differ from `rev` or are untracked; deleted files left out.
pub fn changed_files(root: &Path, rev: &str) -> Result<BTreeSet<String>, AideError> {
    let mut out = BTreeSet::new();
    let diff = git(root, &["diff", "--name-only", "-z", "--relative", "--no-renames", rev, "--"])?;
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for name in diff.split(|&b| b == 0).chain(untracked.split(|&b| b == 0)) {
        let Ok(name) = std::str::from_utf8(name) else { continue };
        if !name.is_empty() && root.join(name).is_file() {
            out.insert(name.to_string());
        }
    }
    Ok(out)
}

/// The tree of `rev` beneath the root's place in the repository, written
/// into `into` (an empty directory).
pub fn export_revision(root: &Path, rev: &str, into: &Path) -> Result<(), AideError> {
    let prefix = String::from_utf8_lossy(&git(root, &["rev-parse", "--show-prefix"])?).trim().to_string();
    let prefix = prefix.trim_end_matches('/');
    let tree = if prefix.is_empty() { format!("{rev}^{{tree}}") } else { format!("{rev}:{prefix}") };
    let kind = git(root, &["cat-file", "-t", &tree])?;
    if String::from_utf8_lossy(&kind).trim() != "tree" {
        return Err(AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("{tree} is not a tree"))
            .with_hint("--baseline takes a revision (a commit, branch or tag)"));
    }
    // From the top: in a subdirectory, git archive keeps to that subdirectory of the tree.
    let top = String::from_utf8_lossy(&git(root, &["rev-parse", "--show-toplevel"])?).trim().to_string();
    let archive = git(Path::new(&top), &["archive", "--format=tar", &tree])?;
    let mut tar = Command::new("tar")
        .args(["-x", "-f", "-", "-C"])
        .arg(into)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| AideError::io("tar", &e))?;
    if let Some(mut stdin) = tar.stdin.take() {
        std::io::Write::write_all(&mut stdin, &archive).map_err(|e| AideError::io("tar", &e))?;
    }
    let status = tar.wait().map_err(|e| AideError::io("tar", &e))?;
    if !status.success() {
        return Err(AideError::new(aide_core::code::IO_ERROR, format!("tar could not unpack {tree}")));
    }
    Ok(())
}
