//! What a search asks: the pattern, how it matches, where, and how much comes back.

use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What to report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every match with its span and context.
    #[default]
    Content,
    /// The files with matches, with their match counts.
    Files,
    /// Match and line counts per file and in total.
    Count,
}

/// A search request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct SearchRequest {
    /// A regex (Rust syntax). Repeat `-e` to search for
    /// several; a line matching any of them matches.
    #[arg(long = "pattern", short = 'e', value_name = "REGEX")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub pattern: Vec<String>,
    /// Directory to search; every path in the output is relative to it.
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    /// Files or folders to search, relative to the root (default: all of
    /// it); as in ripgrep, one named is searched though an ignore file, a
    /// glob or a type would leave it out, and they apply beneath it.
    #[arg(value_name = "PATH")]
    #[serde(default, deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// Patterns are literal text.
    #[arg(long, short = 'F')]
    #[serde(default)]
    pub fixed_strings: bool,
    #[arg(long, short = 'i', help = "Match case-insensitively")]
    #[serde(default)]
    pub ignore_case: bool,
    /// Case-insensitive unless a pattern has an uppercase letter.
    #[arg(long, short = 'S')]
    #[serde(default)]
    pub smart_case: bool,
    /// Only match whole words.
    #[arg(long, short = 'w')]
    #[serde(default)]
    pub word: bool,
    /// Matches may span lines. `\n` can be matched explicitly.
    #[arg(long, short = 'U')]
    #[serde(default)]
    pub multiline: bool,
    /// With --multiline, `.` matches newlines too.
    #[arg(long)]
    #[serde(default)]
    pub multiline_dotall: bool,
    #[arg(long, short = 'B', value_name = "N", help = "Lines of context before each match")]
    #[serde(default)]
    pub before_context: Option<usize>,
    #[arg(long, short = 'A', value_name = "N", help = "Lines of context after each match")]
    #[serde(default)]
    pub after_context: Option<usize>,
    /// Context lines before and after.
    #[arg(long, short = 'C', value_name = "N")]
    #[serde(default)]
    pub context: Option<usize>,
    /// Cut shown lines longer than this many characters (0: never).
    #[arg(long, value_name = "CHARS", default_value_t = 500)]
    #[serde(default = "default_max_line_len")]
    pub max_line_len: usize,
    #[arg(long, value_enum, default_value_t = Mode::Content, help = "What to report: content (matches), files, or count")]
    #[serde(default)]
    pub mode: Mode,
    /// Each capture group's span.
    #[arg(long)]
    #[serde(default)]
    pub captures: bool,
    /// At most this many results (matches, or files in files/count mode),
    /// counted after sorting.
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skip this many results first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default)]
    pub offset: usize,
    /// Cut the result list, at a whole result, before its JSON exceeds this
    /// many bytes.
    #[arg(long, value_name = "BYTES")]
    #[serde(default)]
    pub max_output_bytes: Option<usize>,
    /// Worker threads (default: the number of CPUs). The output does not
    /// depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    #[serde(default)]
    pub threads: Option<usize>,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for SearchRequest {}

/// `max_line_len` when a request leaves it out (the flag's default).
fn default_max_line_len() -> usize {
    500
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            pattern: Vec::new(),
            root: None,
            paths: Vec::new(),
            walk: WalkArgs::default(),
            fixed_strings: false,
            ignore_case: false,
            smart_case: false,
            word: false,
            multiline: false,
            multiline_dotall: false,
            before_context: None,
            after_context: None,
            context: None,
            max_line_len: 500,
            mode: Mode::Content,
            captures: false,
            limit: None,
            offset: 0,
            max_output_bytes: None,
            threads: None,
        }
    }
}

impl SearchRequest {
    /// Lines of context before and after each match.
    pub fn context_lines(&self) -> (usize, usize) {
        let both = self.context.unwrap_or(0);
        (self.before_context.unwrap_or(both), self.after_context.unwrap_or(both))
    }
}
