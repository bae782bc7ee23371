//! aide.toml's errors: a file that does not parse, or a value out of range,
//! named by its file and line.

use std::path::Path;

use aide_core::{AideError, code};

/// `path` (at `line`, where known) does not hold what aide.toml takes.
pub(crate) fn invalid(path: &Path, line: Option<usize>, message: &str) -> AideError {
    let at = line.map(|l| format!(":{l}")).unwrap_or_default();
    AideError::new(code::INVALID_REQUEST, format!("{}{at}: {message}", path.display()))
        .with_hint("see docs/CONTRACT.md, \"Configuration\", for the keys aide.toml takes")
        .with_details(serde_json::json!({ "path": path.display().to_string(), "line": line }))
}
