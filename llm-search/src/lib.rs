//! # llm-search: ripgrep's matches as span-exact, deterministic JSON
//!
//! Searches a tree in parallel with ripgrep's own engine (`grep-searcher`,
//! `grep-regex`, the `ignore` walker); every match comes in (path
//! byte-wise, byte_start) order, so the output is identical on every run
//! whatever the thread count. `--limit`/`--offset` page through that list.
//!
//! Two strategies, one output. A whole `--json` document walks in parallel
//! and sorts at the end (the fastest way to the last byte). Text and
//! `--jsonl` walk in path order ([`aide_core::walk::Walker::visit_ordered`])
//! and print each file's matches as soon as every earlier file is done: the
//! first record comes within milliseconds and memory holds the page, not
//! every match. With `--limit` the ordered walk stops once the page is full
//! and one more match shows that more remain; the totals then count the
//! files up to there and `totals_exact` is false (text says "at least").
//!
//! ## Wire format (`--json`)
//!
//! Inside the aide envelope (`tool`, `version`, `execution_id`, `ok`, …,
//! `diagnostics`, `stats`):
//!
//! ```json
//! { "mode": "content",
//!   "matches": [ { "match_id": "9f2c…", "path": "src/main.rs",
//!                  "checksum": "<sha256 of the file>", "byte_start": 120, "byte_end": 123,
//!                  "line": 10, "column": 4, "end_line": 10, "end_column": 7,
//!                  "match": "foo", "line_text": "let foo = 1;",
//!                  "context_before": ["…"], "context_after": ["…"] } ],
//!   "files": [],
//!   "total_matches": 1, "files_searched": 12, "files_with_matches": 1,
//!   "truncated": false, "next_offset": null, "totals_exact": true }
//! ```
//!
//! * Offsets are into the file's bytes as stored (no BOM transcoding); `line`
//!   and `column` are 1-based, columns count Unicode scalar values; the end
//!   position is that of `byte_end` (exclusive).
//! * `match_id` is stable: derived from path, span and matched bytes.
//! * `checksum` is the SHA-256 of the file's bytes exactly as searched (in
//!   `files`/`count` mode too): `llm-transform --from-matches` takes the
//!   output as it is and refuses a file changed since.
//! * Text that is not valid UTF-8 is shown lossily and the match carries
//!   `"lossy": true`; a line longer than `--max-line-len` characters is cut
//!   with a `…[+N chars]` marker and `"line_truncated": true`.
//! * `--captures` adds `captures`: every capture group's span of each match.
//! * `--mode files` and `--mode count` fill `files` (`path`, `matches`,
//!   `lines`) instead of `matches`.
//! * Binary files (a NUL byte), UTF-16 files, files over `--max-filesize`,
//!   unreadable files and symlinks not followed each produce a diagnostic.
//!   As ripgrep does, matches found before a NUL byte's buffer are kept.
//!
//! Exit status: 0 with matches, 1 without, 2 for an invalid pattern or
//! request, 4 for a runtime failure.

mod engine;
mod error;
mod output;
mod page;
mod sink;

use std::path::PathBuf;

use aide_core::AideError;
use aide_core::operation::{Group, Operation, READS};
use aide_core::tool::{Context, Outcome, Tool};
use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use engine::search;
pub use error::SearchError;
pub use output::{Capture, FileCount, Match, SearchOutput};

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

/// The `llm-search` tool.
#[derive(Debug)]
pub struct LlmSearch;

impl Tool for LlmSearch {
    const NAME: &'static str = "llm-search";
    const SUMMARY: &'static str =
        "Regex search of a tree with ripgrep's engine; span-exact, sorted, deterministic JSON.";
    const OPERATIONS: &'static [Operation] = &[Operation {
        name: "search",
        tool: Self::NAME,
        command: &[],
        group: Group::Search,
        description: "Regex search of file contents (ripgrep's engine; skips ignored, hidden and binary files): each match's path, line, column, byte span, text. For definitions and references: ast_search.",
        effects: READS,
        output: &[],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    }];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Search a tree with ripgrep's engine; span-exact, sorted, deterministic output.";
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[("file_glob", "glob"), ("patterns", "pattern")];
    const OUTPUT_FLAGS: &'static [&'static str] = &["max_output_bytes", "max_line_len"];
    type Request = SearchRequest;
    type Output = SearchOutput;

    fn run(request: SearchRequest, ctx: &Context) -> Result<Outcome<SearchOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        search(&root, &request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &SearchRequest) -> bool {
        true
    }
}
