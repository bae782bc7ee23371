//! Where a program is: a sibling of the running binary, or the first on
//! `PATH` (what a process the gate starts would run).

use std::path::PathBuf;

/// Finds the executable `name` of another aide tool: beside the running
/// executable first (an install puts the tools together), then on PATH.
pub fn find_executable(name: &str) -> Option<PathBuf> {
    let beside = std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join(name)));
    beside.filter(|p| p.is_file()).or_else(|| on_path(name))
}

/// The first executable file `name` in the directories of `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}
