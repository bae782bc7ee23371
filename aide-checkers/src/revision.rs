//! A revision's tree, for a baseline (the files git says changed are
//! aide-core's `git::changed_files`, as every walking tool's `--changed`).

use std::path::Path;

use aide_core::AideError;

/// The tree of `rev` beneath the root's place in the repository, written
/// into `into` (an empty directory).
pub fn export_revision(root: &Path, rev: &str, into: &Path) -> Result<(), AideError> {
    let prefix =
        String::from_utf8_lossy(&aide_core::git::run(root, &["rev-parse", "--show-prefix"])?).trim().to_string();
    let prefix = prefix.trim_end_matches('/');
    let tree = if prefix.is_empty() { format!("{rev}^{{tree}}") } else { format!("{rev}:{prefix}") };
    let kind = aide_core::git::run(root, &["cat-file", "-t", &tree])?;
    if String::from_utf8_lossy(&kind).trim() != "tree" {
        return Err(AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("{tree} is not a tree"))
            .with_hint("--baseline takes a revision (a commit, branch or tag)"));
    }
    // From the top: in a subdirectory, git archive keeps to that subdirectory of the tree.
    let top =
        String::from_utf8_lossy(&aide_core::git::run(root, &["rev-parse", "--show-toplevel"])?).trim().to_string();
    let archive = aide_core::git::run(Path::new(&top), &["archive", "--format=tar", &tree])?;
    let tar = aide_gate::Launch::new("unpacking a revision", "tar", into)
        .args(["-x", "-f", "-", "-C"])
        .arg(into)
        .input(archive)
        .timeout(Some(std::time::Duration::from_secs(600)))
        .run()?;
    if !tar.status.success() || tar.timed_out {
        return Err(AideError::new(aide_core::code::IO_ERROR, format!("tar could not unpack {tree}")));
    }
    Ok(())
}
