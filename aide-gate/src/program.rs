//! Where a program is: a sibling of the running binary, or the first on
//! `PATH` (what a process the gate starts would run).

use std::path::PathBuf;

/// The executable of the aide tool `name`: the running one when it is that
/// tool, else the one beside it (an install puts the tools together, and
/// `aide mcp` finds llm-shell's keeper there), else the first on PATH.
pub fn find_executable(name: &str) -> Option<PathBuf> {
    let current = std::env::current_exe().ok();
    let itself = current.clone().filter(|c| c.file_name().is_some_and(|n| n == name));
    let beside = current.and_then(|p| p.parent().map(|d| d.join(name))).filter(|p| p.is_file());
    itself.or(beside).or_else(|| on_path(name))
}

/// The first executable file `name` in the directories of `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}
