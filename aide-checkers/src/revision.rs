//! A revision's tree, for a baseline (the files git says changed are
//! aide-core's `git::changed_files`, as every walking tool's `--changed`).

use std::path::Path;

use aide_core::AideError;

use crate::error::RevisionError;

/// The tree of `rev` beneath the root's place in the repository, written
/// into `into` (an empty directory).
pub fn export_revision(root: &Path, rev: &str, into: &Path) -> Result<(), AideError> {
    let git = aide_core::git::Git::open(root)?;
    let prefix = String::from_utf8_lossy(&git.place.prefix).into_owned();
    let prefix = prefix.trim_end_matches('/');
    let tree = if prefix.is_empty() { format!("{rev}^{{tree}}") } else { format!("{rev}:{prefix}") };
    let kind = git.stdout(&["cat-file", "-t", &tree])?;
    if String::from_utf8_lossy(&kind).trim() != "tree" {
        return Err(RevisionError::NotATree { tree }.into());
    }
    // From the top: in a subdirectory, git archive keeps to that subdirectory of the tree.
    let archive = git.at_top().stdout(&["archive", "--format=tar", &tree])?;
    let tar = aide_gate::Launch::new("unpacking a revision", "tar", into)
        .args(["-x", "-f", "-", "-C"])
        .arg(into)
        .input(archive)
        .timeout(Some(std::time::Duration::from_secs(600)))
        .run()?;
    if !tar.status.success() || tar.timed_out {
        return Err(RevisionError::Unpack { tree }.into());
    }
    Ok(())
}
