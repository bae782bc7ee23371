//! Where aide keeps its state (the log, sessions, jobs, undo data), and
//! where its settings live ([`settings`]).

pub mod sessions;
pub mod settings;

use std::path::{Path, PathBuf};

/// The directory where aide keeps its state: `$AIDE_HOME`, else
/// `$XDG_STATE_HOME/aide`, else `~/.local/state/aide`.
///
/// The first call in a process creates it readable by its owner only (0700)
/// and takes group and other access away from an existing one: it holds
/// command output, session variables and pre-images of edited files.
pub fn aide_home() -> PathBuf {
    let home = if let Some(h) = std::env::var_os("AIDE_HOME").filter(|v| !v.is_empty()) {
        PathBuf::from(h)
    } else if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        PathBuf::from(x).join("aide")
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        home.join(".local/state/aide")
    };
    static MADE_PRIVATE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    MADE_PRIVATE.get_or_init(|| make_private(&home));
    home
}

/// The folder of OpenTelemetry export's spool, locks and counts under
/// aide's state folder: hidden from every sandboxed command (a lock there
/// that a confined command could hold would stop every unconfined run's
/// export).
pub const TELEMETRY_DIR: &str = "otel";

/// Creates `home` with mode 0700, or narrows an existing one to it.
fn make_private(home: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if crate::fsutil::private_dir(home).is_err() {
        return; // reported by whoever then fails to write there
    }
    if let Ok(meta) = std::fs::metadata(home)
        && meta.permissions().mode() & 0o077 != 0
    {
        let _ = std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o700));
    }
}
