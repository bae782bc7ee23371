//! A file sandbox where no mount can be made: inside another sandbox that
//! refuses mounts (Landlock, as Codex's and many CI runners' are; a
//! seccomp or LSM policy), the same guarantees from Landlock rules alone.
//!
//! * What stays read-only is left out of the writable rules instead of
//!   mounted read-only: a writable path that holds one is carved into its
//!   entries, each writable, down to the protected path, which is not. The
//!   folders on the way keep their entries: nothing is created, removed or
//!   renamed directly in them (a root with a `.git` gets no new top-level
//!   file), which is the price of keeping `.git` out of reach.
//! * The temporary directory is the folder the mount point is,
//!   `$AIDE_HOME/sandbox/tmp` (0700), shared by the sandboxed commands of
//!   this state folder and used by nothing unconfined, rather than a file
//!   system of each command's own.

use std::path::{Path, PathBuf};

use super::Sandbox;

/// `sandbox` as Landlock alone enforces it: its writable paths carved
/// around `read_only` (its own folders and temporary directory stay
/// writable, as Landlock grants each path on its own).
pub(super) fn carved(sandbox: &Sandbox, read_only: &[PathBuf]) -> Sandbox {
    let mut carved = sandbox.clone();
    carved.writable = Vec::new();
    for path in &sandbox.writable {
        carve(path, read_only, &mut carved.writable);
    }
    carved
}

/// The writable paths that `dir` comes to once the paths `out` are taken
/// out of it: `dir` itself when none lies beneath it, none when it is one
/// of them, else each of its entries carved in turn (in name order).
fn carve(dir: &Path, out: &[PathBuf], into: &mut Vec<PathBuf>) {
    if out.iter().any(|o| o == dir) {
        return;
    }
    if !out.iter().any(|o| o.starts_with(dir)) {
        into.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        carve(&entry, out, into);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writable_root_holding_git_is_carved_into_its_other_entries_and_a_plain_one_stays_whole() {
        let dir = aide_core::fsutil::TempDir::new("aide-carve").unwrap();
        let root = dir.path().join("root");
        let other = dir.path().join("other");
        for d in [root.join(".git/hooks"), root.join("src/deep"), root.join("state/shell"), other.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("aide.toml"), "").unwrap();
        std::fs::write(root.join("README"), "").unwrap();
        let out = [root.join(".git"), root.join("aide.toml"), root.join("state/shell")];
        let mut into = Vec::new();
        carve(&root, &out, &mut into);
        carve(&other, &out, &mut into);
        let shown: Vec<String> =
            into.iter().map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string()).collect();
        assert_eq!(
            shown,
            ["root/README", "root/src", "other"],
            "state holds a protected path: its entries but that one"
        );
    }
}
