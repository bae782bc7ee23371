//! What git says of a tree, read through git itself: the files changed
//! against a revision (`--changed`), for every tool that walks or checks.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{AideError, code};

/// Runs git in `dir`; its stdout, or an error naming git's complaint.
pub fn run(dir: &Path, args: &[&str]) -> Result<Vec<u8>, AideError> {
    let out = Command::new("git").args(args).current_dir(dir).stdin(Stdio::null()).output().map_err(|e| {
        AideError::new(code::IO_ERROR, format!("git {}: {e}", args.join(" ")))
            .with_hint("--changed and --baseline need git on PATH")
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(AideError::new(code::INVALID_ARGUMENTS, format!("git {}: {stderr}", args.join(" ")))
            .with_hint("--changed and --baseline need a git repository and a revision in it"));
    }
    Ok(out.stdout)
}

/// Paths relative to `root` (which may lie inside the repository) of the
/// files that differ from `rev` in the working tree or the index, and the
/// untracked ones git does not ignore; deleted files left out.
pub fn changed_files(root: &Path, rev: &str) -> Result<BTreeSet<String>, AideError> {
    let mut out = BTreeSet::new();
    let diff = run(root, &["diff", "--name-only", "-z", "--relative", "--no-renames", rev, "--"])?;
    let untracked = run(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for name in diff.split(|&b| b == 0).chain(untracked.split(|&b| b == 0)) {
        let Ok(name) = std::str::from_utf8(name) else { continue };
        if !name.is_empty() && root.join(name).is_file() {
            out.insert(name.to_string());
        }
    }
    Ok(out)
}
