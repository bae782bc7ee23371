//! A revision's tree, for a baseline (the files git says changed are
//! aide-core's `git::changed_files`, as every walking tool's `--changed`).

use std::path::Path;
use std::process::Command;

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
