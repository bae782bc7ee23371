//! Where aide's settings live: the file's name, the user's file and a
//! root's (what a sandbox keeps read-only needs these, not the settings).

use std::path::{Path, PathBuf};

/// The file's name.
pub const FILE: &str = "aide.toml";

/// The user's file: `$XDG_CONFIG_HOME/aide/aide.toml`, else `~/.config/aide/aide.toml`.
pub fn user_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("aide").join(FILE))
}

/// The root's file: `aide.toml` in `dir` or the nearest folder above it.
pub fn root_file(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(FILE)).find(|f| f.is_file())
}
