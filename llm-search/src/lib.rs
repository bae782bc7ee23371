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
mod file;
pub mod indexed;
pub mod keeper;
mod listed;
mod output;
mod page;
mod request;
mod sink;

use aide_core::AideError;
use aide_core::operation::{Group, Operation, READS};
use aide_core::tool::{Context, Outcome, Tool};

pub use engine::search;
pub use error::SearchError;
pub use output::{Capture, FileCount, Match, SearchOutput};
pub use request::{Mode, SearchRequest};

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

    /// A root's index keeper runs from this same binary, out of sight of the CLI.
    fn outside_harness() -> Option<i32> {
        keeper::run_internal_command()
    }

    fn run(request: SearchRequest, ctx: &Context) -> Result<Outcome<SearchOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        search(&root, &request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &SearchRequest) -> bool {
        true
    }
}
