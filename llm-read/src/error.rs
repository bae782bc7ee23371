//! Every way llm-read refuses a request, as one enum converted once into the
//! contract's [`AideError`].

use aide_core::voice::say;
use aide_core::{AideError, code};
use serde_json::json;

/// llm-read's one operation, as hints name it.
const READ: &aide_core::operation::Operation = aide_core::operation::named(crate::operations::OPERATIONS, "read");

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("--lines {spec}: {why}")]
    BadLines { spec: String, why: &'static str },
    #[error("{path} is a directory")]
    Directory { path: String },
    #[error("{path} is UTF-16; only UTF-8 text is read")]
    Utf16 { path: String },
    #[error("{path} is a binary file (it has NUL bytes)")]
    Binary { path: String },
    /// A range that starts after the file's last line: the caller's idea of
    /// the file is stale (or off by some lines), which is worth an error,
    /// not an empty success.
    #[error("{path} has {line_count} line{}; the range starts at line {start_line}", if *.line_count == 1 { "" } else { "s" })]
    PastTheEnd { path: String, line_count: usize, start_line: usize },
    #[error("no session `{id}`")]
    NoSession { id: String },
    #[error("session {id} is in {working_dir}, outside the root {root}")]
    SessionOutside { id: String, working_dir: String, root: String },
}

impl From<ReadError> for AideError {
    fn from(e: ReadError) -> AideError {
        use ReadError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::BadLines { spec, why } => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} {spec}: {why}", v.arg("lines")))).with_hint(
                    say(|v| format!("write {} (1-based, inclusive), 10: or :20", v.arg_is("lines", "10:20"))),
                )
            }
            E::Directory { path } => error(code::NOT_A_REGULAR_FILE)
                .with_hint(say(|v| {
                    format!("list it with {}, or read a file inside it", v.pick("llm-discover", "discover"))
                }))
                .with_details(json!({ "path": path, "kind": "directory" })),
            E::Utf16 { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint("convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)")
            }
            E::Binary { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint(say(|v| format!("{} shows text files only", v.op(READ))))
            }
            E::PastTheEnd { path, line_count, start_line } => error(code::INVALID_SPAN)
                .with_hint(match line_count {
                    0 => "the file is empty".into(),
                    n => say(|v| {
                        format!(
                            "read {} (or {}); {} starts at the last line",
                            v.arg_is("lines", format!("1:{n}")),
                            v.arg_is("offset", 0),
                            v.arg_is("offset", n - 1)
                        )
                    }),
                })
                .with_details(json!({ "path": path, "line_count": line_count, "start_line": start_line })),
            E::NoSession { id } => error(code::NOT_FOUND)
                .with_hint(say(|v| {
                    format!(
                        "list the sessions with {}, or leave out {}",
                        v.pick("`llm-shell session list`", "shell_session_list"),
                        v.arg("session")
                    )
                }))
                .with_details(json!({ "session_id": id })),
            E::SessionOutside { id, working_dir, root } => error(code::PATH_OUTSIDE_ROOT)
                .with_hint(say(|v| {
                    format!("pass a {} that holds it, or cd the session back inside the root", v.arg("root"))
                }))
                .with_details(json!({ "session_id": id, "path": working_dir, "root": root })),
        }
    }
}
