//! `--session ID`: relative paths start from an llm-shell session's working
//! directory, which must lie inside the root (and, over MCP, beneath the
//! server's roots); the paths are then read as any other, confined to it.

use std::path::Path;

use aide_core::home::sessions::{Lookup, working_dir};
use aide_core::tool::Context;
use aide_core::{AideError, Root};

use crate::error::ReadError;

/// The session's working directory as a path relative to the root (`.` for
/// the root itself).
pub(crate) fn start(root: &Root, id: &str, ctx: &Context) -> Result<String, AideError> {
    let cwd = match working_dir(id) {
        Ok(cwd) => cwd,
        Err(Lookup::Unknown) => return Err(ReadError::NoSession { id: id.to_string() }.into()),
        Err(Lookup::Damaged(e)) => return Err(AideError::io(&format!("session {id}: meta.json"), &e)),
    };
    // A session beyond the confining roots is not this caller's to name (as llm-shell says of it).
    if !ctx.confined(&cwd) {
        return Err(ReadError::NoSession { id: id.to_string() }.into());
    }
    let outside = || ReadError::SessionOutside {
        id: id.to_string(),
        working_dir: cwd.display().to_string(),
        root: root.path().display().to_string(),
    };
    let inside = root.resolve(&cwd.to_string_lossy()).map_err(|_| outside())?;
    root.relative(&inside).ok_or_else(|| outside().into())
}

/// `given` as the root sees it: a relative path joined to the session's
/// directory `from`; an absolute one as it is.
pub(crate) fn from(from: &str, given: &str) -> String {
    if given.is_empty() || Path::new(given).is_absolute() || from == "." {
        return given.to_string();
    }
    format!("{from}/{given}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_start_from_the_sessions_directory() {
        assert_eq!(from("sub", "file.txt"), "sub/file.txt");
        assert_eq!(from("sub/deeper", "../x"), "sub/deeper/../x");
        assert_eq!(from(".", "file.txt"), "file.txt");
        assert_eq!(from("sub", "/abs/file.txt"), "/abs/file.txt");
    }
}
