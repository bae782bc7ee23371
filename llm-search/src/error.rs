//! Why a search could not run, mapped once to the contract's codes.

use aide_core::voice::{Voice, say};
use aide_core::{AideError, code};

/// The most bytes of patterns one search takes (a 50 MB pattern once took
/// 4.8 GB to compile; a 300 MB one was killed for lack of memory).
pub(crate) const MAX_PATTERN_BYTES: usize = 1 << 20;

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("no pattern given")]
    NoPattern,
    #[error("invalid regex `{pattern}`: {message}")]
    InvalidRegex { pattern: String, index: usize, message: String, offset: Option<usize>, column: Option<usize> },
    #[error("{} needs {}", Voice::Cli.arg("multiline_dotall"), Voice::Cli.arg("multiline"))]
    DotallWithoutMultiline,
    #[error("the patterns are {total} bytes; at most {MAX_PATTERN_BYTES} are taken")]
    PatternTooLong { total: usize },
}

impl From<SearchError> for AideError {
    fn from(e: SearchError) -> AideError {
        let msg = e.to_string();
        match e {
            SearchError::NoPattern => AideError::new(code::INVALID_ARGUMENTS, msg).with_hint(say(|v| {
                format!("give a regular expression with {}", v.pick("--pattern (or -e, repeatable)", "pattern"))
            })),
            SearchError::PatternTooLong { .. } => AideError::new(code::INVALID_PATTERN, msg)
                .with_hint("search for a distinctive part, or use several searches"),
            SearchError::DotallWithoutMultiline => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} needs {}", v.arg("multiline_dotall"), v.arg("multiline"))),
            )
            .with_hint(say(|v| format!("add {}", v.pick("--multiline (-U)", "multiline: true")))),
            SearchError::InvalidRegex { pattern, index, offset, column, message } => {
                let across = message.contains("literal") && message.contains("\\n");
                let hint = say(|v| match across {
                    true => format!("to match across lines add {}", v.pick("--multiline (-U)", "multiline: true")),
                    false => format!(
                        "escape regex metacharacters with \\, or pass {} to search for the text literally",
                        v.pick("--fixed-strings (-F)", "fixed_strings: true")
                    ),
                });
                AideError::new(code::INVALID_PATTERN, msg).with_hint(hint).with_details(serde_json::json!({
                    "pattern": pattern, "pattern_index": index, "offset": offset, "column": column,
                }))
            }
        }
    }
}
