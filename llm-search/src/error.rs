//! Why a search could not run, mapped once to the contract's codes.

use aide_core::{AideError, code};

/// The most bytes of patterns one search takes (a 50 MB pattern once took
/// 4.8 GB to compile; a 300 MB one was killed for lack of memory).
pub const MAX_PATTERN_BYTES: usize = 1 << 20;

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("no pattern given")]
    NoPattern,
    #[error("invalid regex `{pattern}`: {message}")]
    InvalidRegex { pattern: String, index: usize, message: String, offset: Option<usize>, column: Option<usize> },
    #[error("--multiline-dotall needs --multiline")]
    DotallWithoutMultiline,
    #[error("the patterns are {total} bytes; at most {MAX_PATTERN_BYTES} are taken")]
    PatternTooLong { total: usize },
}

impl From<SearchError> for AideError {
    fn from(e: SearchError) -> AideError {
        let msg = e.to_string();
        match e {
            SearchError::NoPattern => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint("give a regular expression with --pattern (or -e, repeatable)"),
            SearchError::PatternTooLong { .. } => AideError::new(code::INVALID_PATTERN, msg)
                .with_hint("search for a distinctive part, or use several searches"),
            SearchError::DotallWithoutMultiline => {
                AideError::new(code::INVALID_ARGUMENTS, msg).with_hint("add --multiline (-U)")
            }
            SearchError::InvalidRegex { pattern, index, offset, column, message } => {
                let hint = if message.contains("literal") && message.contains("\\n") {
                    "to match across lines add --multiline (-U)"
                } else {
                    "escape regex metacharacters with \\, or pass --fixed-strings (-F) to search for the text literally"
                };
                AideError::new(code::INVALID_PATTERN, msg).with_hint(hint).with_details(serde_json::json!({
                    "pattern": pattern, "pattern_index": index, "offset": offset, "column": column,
                }))
            }
        }
    }
}
