//! Where a program lives: bash's lookup of a name, and whether the folder
//! it resolves to is the system's or the toolchain's.

use std::path::{Path, PathBuf};

use crate::explain::surroundings::Surroundings;

/// Where bash would find `prog`: a path as given (relative to the working
/// directory), or the first executable of that name on `PATH`.
pub(super) fn resolve(prog: &str, env: &Surroundings) -> Option<PathBuf> {
    let executable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if prog.contains('/') {
        let p = env.cwd.join(prog);
        return executable(&p).then(|| p.canonicalize().unwrap_or(p));
    }
    let path = env.path.as_deref()?;
    for dir in path.split(':') {
        // An empty entry is the working directory, as `.` is.
        let dir = if dir.is_empty() { env.cwd.clone() } else { env.cwd.join(dir) };
        let candidate = dir.join(prog);
        if executable(&candidate) {
            return Some(candidate.canonicalize().unwrap_or(candidate));
        }
    }
    None
}

/// Folders whose programs are the system's or the toolchain's.
pub(super) fn trusted(path: &Path, env: &Surroundings) -> bool {
    const SYSTEM: &[&str] = &[
        "/usr/",
        "/bin/",
        "/sbin/",
        "/lib/",
        "/nix/store/",
        "/run/current-system/",
        "/opt/homebrew/",
        "/home/linuxbrew/",
        "/snap/bin/",
    ];
    let s = path.to_string_lossy();
    if SYSTEM.iter().any(|p| s.starts_with(p)) {
        return true;
    }
    env.home.as_deref().is_some_and(|home| {
        [".cargo/bin", ".rustup/toolchains"].iter().any(|sub| path.starts_with(Path::new(home).join(sub)))
    })
}
