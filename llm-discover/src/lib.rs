//! # llm-discover: the file an agent means, first
//!
//! Three modes over one walk (ripgrep's ignore semantics, `--glob`,
//! `--type`, `--hidden`, `--no-ignore`, `--max-depth`):
//!
//! * `--query Q` — fuzzy path matching with nucleo (fzf's algorithm and its
//!   extended syntax: several space-separated terms must all match; `'exact`,
//!   `^prefix`, `suffix$`, `!negation`), smart case, and path-aware tiers on
//!   top: an exact path, then an exact file name (or name without extension),
//!   a name prefix, a name substring, a path substring, a fuzzy name, a fuzzy
//!   path. Within a tier, fzf's score, then shorter and shallower paths.
//! * no query — a listing of the files that match `--glob`/`--type`, by path.
//! * `--tree` — the structure as an ASCII tree, with file, directory and byte
//!   counts; `--tree-checksum` adds the root's `tree_checksum` (every file
//!   and link beneath it, ignored ones too; docs/CONTRACT.md).
//!
//! `--type` takes `file`/`f` and `dir`/`d` as well as languages.
//!
//! ## Wire format (`--json`)
//!
//! ```json
//! { "mode": "query", "query": "vector",
//!   "results": [ { "path": "src/vector.rs", "kind": "file", "score": 0.9712,
//!                  "reason": "exact_basename", "reason_text": "the file name is the query",
//!                  "matched": [4, 5, 6, 7, 8, 9] } ],
//!   "total": 3, "truncated": false, "next_offset": null,
//!   "tree": null, "files": null, "directories": null, "total_size": null }
//! ```
//!
//! `score` is in 0..1 (1: the path is the query); `matched` holds the
//! 0-based character positions of the match in `path`. Results are ordered
//! by score descending, then path ascending, identically on every run.

mod discover;
mod error;
mod folders;
mod output;
mod rank;
mod request;
mod tree;

use aide_core::operation::{Group, Operation, READS};

use aide_core::AideError;
use aide_core::tool::{Context, Outcome, Tool};

pub use discover::discover;
pub use output::Reason;
pub use output::{DiscoverOutput, Found, Kind, Mode};
pub use rank::Ranker;
pub use request::{DEFAULT_LIMIT, DEFAULT_TREE_LIMIT, DiscoverRequest};

/// The `llm-discover` tool.
#[derive(Debug)]
pub struct LlmDiscover;

impl Tool for LlmDiscover {
    const NAME: &'static str = "llm-discover";
    const SUMMARY: &'static str = "Fuzzy file finding, listing and workspace structure.";
    const OPERATIONS: &'static [Operation] = &[Operation {
        name: "discover",
        tool: Self::NAME,
        command: &[],
        group: Group::Search,
        description: "Finds files by fuzzy name, fzf-ranked (`appRouter` finds app_router.py); lists files by glob and depth; or shows the tree.",
        effects: READS,
        output: &[],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    }];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Find files by fuzzy path, list them by glob, or show the tree; deterministic ranking.";
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[("pattern", "glob")];
    type Request = DiscoverRequest;
    type Output = DiscoverOutput;

    fn run(request: DiscoverRequest, ctx: &Context) -> Result<Outcome<DiscoverOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        discover(&root, &request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &DiscoverRequest) -> bool {
        true
    }
}
