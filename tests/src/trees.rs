//! Real code found on the machine, copied into test trees: the sources in
//! Cargo's registry (every dependency of the workspace is there once it has
//! been built).

use std::path::{Path, PathBuf};

/// The newest crate in Cargo's registry whose folder starts with `prefix`
/// (`globset-`).
pub fn registry_crate(prefix: &str) -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| std::fs::read_dir(index.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)))
        .collect();
    found.sort();
    found.pop()
}

/// Copies the regular files below `from` to `to` (links, `__pycache__` and
/// other kinds of file left out).
pub fn copy_tree(from: &Path, to: &Path) {
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()));
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        let target = to.join(entry.file_name());
        if kind.is_dir() && entry.file_name() != "__pycache__" {
            std::fs::create_dir_all(&target).expect("create folder");
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}
