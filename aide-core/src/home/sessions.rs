//! Where llm-shell keeps its sessions, and the one fact of a session other
//! tools read: the working directory its shell is in (`llm-read
//! --session`). llm-shell owns the rest of a session's folder.

use std::path::PathBuf;

/// `$AIDE_HOME/shell/sessions`.
pub fn dir() -> PathBuf {
    super::aide_home().join("shell/sessions")
}

/// The folder of the session `id`, if `id` can name one (letters, digits, `-`).
pub fn dir_of(id: &str) -> Option<PathBuf> {
    let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    valid.then(|| dir().join(id))
}

/// Why a session's working directory could not be read.
#[derive(Debug)]
pub enum Lookup {
    /// No session has this id.
    Unknown,
    /// Its `meta.json` is not a regular file of a sane size, or says no directory.
    Damaged(std::io::Error),
}

/// The working directory of the session `id`, as its record says after its
/// last command (a `cd` moves it).
pub fn working_dir(id: &str) -> Result<PathBuf, Lookup> {
    let dir = dir_of(id).ok_or(Lookup::Unknown)?;
    let bytes = match crate::fsutil::read_private(&dir.join("meta.json"), 1 << 20) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Lookup::Unknown),
        Err(e) => return Err(Lookup::Damaged(e)),
    };
    let meta: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Lookup::Damaged(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    match meta.get("working_dir").and_then(serde_json::Value::as_str) {
        Some(cwd) if !cwd.is_empty() => Ok(PathBuf::from(cwd)),
        _ => Err(Lookup::Damaged(std::io::Error::new(std::io::ErrorKind::InvalidData, "no working_dir"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_folders_only_of_safe_letters() {
        assert!(dir_of("s-01ab").is_some());
        for bad in ["", "../x", "a/b", "a b", "."] {
            assert!(dir_of(bad).is_none(), "{bad}");
        }
        assert!(matches!(working_dir("../etc"), Err(Lookup::Unknown)));
    }
}
