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

pub mod error;
mod folders;
mod rank;
mod tree;

use aide_core::color::{Paint, TextOut};
use aide_core::operation::{Group, Operation, READS};
use aide_core::text::escape_controls;
use std::io::{self, Write};
use std::path::PathBuf;

use aide_core::tool::{Context, Outcome, Render, Tool};
use aide_core::walk::{WalkArgs, Walker, default_threads};
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::DiscoverError;

pub use rank::{Ranker, Reason};

/// Results shown when `--limit` is not given (query and list modes).
pub const DEFAULT_LIMIT: usize = 100;
/// Entries shown in a tree when `--limit` is not given.
pub const DEFAULT_TREE_LIMIT: usize = 2000;

/// A discovery request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DiscoverRequest {
    /// fzf syntax (`'exact`, `^prefix`, `suffix$`, `!not`; all
    /// space-separated terms match). Without it, files are listed.
    #[arg(long, short = 'q', value_name = "STRING")]
    pub query: Option<String>,
    /// Directory to search; every path in the output is relative to it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    #[arg(long, help = "Show the structure as a tree instead (with --max-depth to bound it)")]
    pub tree: bool,
    /// With --tree: the root's tree checksum too (every file and link
    /// beneath it, hidden and ignored ones too: what a recursive delete removes).
    #[arg(long, requires = "tree")]
    pub tree_checksum: bool,
    /// At most this many results (default 100; 2000 tree entries).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip this many results first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Worker threads (default: the number of CPUs). The output does not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for DiscoverRequest {}

/// What kind of entry a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    File,
    Dir,
}

/// One found path.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Found {
    pub path: String,
    pub kind: Kind,
    /// 0..1; 1 is the best possible match for the query.
    pub score: f64,
    /// Stable machine-readable reason: exact_path, exact_basename,
    /// basename_prefix, basename_substring, path_substring, basename_fuzzy,
    /// path_fuzzy, or listed.
    pub reason: Reason,
    /// The reason in words.
    pub reason_text: &'static str,
    /// 0-based character positions of the matched characters in `path`.
    pub matched: Vec<u32>,
}

/// The mode the request ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Query,
    List,
    Tree,
}

/// The result of a discovery.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiscoverOutput {
    pub mode: Mode,
    pub query: Option<String>,
    pub results: Vec<Found>,
    /// Matching entries before --limit and --offset.
    pub total: usize,
    pub truncated: bool,
    pub next_offset: Option<usize>,
    /// The ASCII tree (tree mode).
    pub tree: Option<String>,
    /// Files in the tree (tree mode).
    pub files: Option<usize>,
    /// Directories in the tree, the root excluded (tree mode).
    pub directories: Option<usize>,
    /// Bytes of all files in the tree (tree mode).
    pub total_size: Option<u64>,
    /// The root's tree checksum (tree mode, with --tree-checksum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_checksum: Option<String>,
}

impl Render for DiscoverOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self.mode {
            Mode::Tree => {
                if let Some(tree) = &self.tree {
                    w.write_all(tree.as_bytes())?;
                }
                w.paint(
                    Paint::Dim,
                    format_args!(
                        "{} directories, {} files, {} bytes",
                        self.directories.unwrap_or(0),
                        self.files.unwrap_or(0),
                        self.total_size.unwrap_or(0)
                    ),
                )?;
                if let Some(checksum) = &self.tree_checksum {
                    w.paint(Paint::Dim, format_args!(", tree sha256 {checksum}"))?;
                }
                writeln!(w)?;
            }
            Mode::Query => {
                for f in &self.results {
                    write_entry(w, f)?;
                    w.paint(Paint::Dim, format_args!("  {:.4} {}", f.score, f.reason.as_str()))?;
                    writeln!(w)?;
                }
            }
            Mode::List => {
                for f in &self.results {
                    write_entry(w, f)?;
                    writeln!(w)?;
                }
            }
        }
        let note = match self.next_offset {
            Some(next) => {
                Some(format!("[truncated: {} in all; continue with {}]", self.total, w.voice().arg_is("offset", next)))
            }
            None => self.truncated.then(|| format!("[truncated: raise {} to see more]", w.voice().arg("limit"))),
        };
        if let Some(note) = note {
            w.paint(Paint::Dim, note)?;
            writeln!(w)?;
        }
        Ok(())
    }

    fn found(&self) -> bool {
        self.total > 0
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        Some(("results", "result"))
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        aide_core::tool::keep_range(&mut self.results, range);
    }
}

/// A path as fd shows it: a directory with a slash, in the colour `ls` gives it.
fn write_entry(w: &mut TextOut<'_>, f: &Found) -> io::Result<()> {
    let path = escape_controls(&f.path);
    if f.kind == Kind::Dir { w.paint(Paint::Dir, format_args!("{path}/")) } else { write!(w, "{path}") }
}

/// Splits `--type` values into entry kinds and languages.
fn split_types(types: &[String]) -> (bool, bool, Vec<String>) {
    let mut files = false;
    let mut dirs = false;
    let mut langs = Vec::new();
    for t in types {
        match t.to_ascii_lowercase().as_str() {
            "f" | "file" => files = true,
            "d" | "dir" | "directory" => dirs = true,
            _ => langs.push(t.clone()),
        }
    }
    if !files && !dirs {
        files = true;
    }
    (files, dirs, langs)
}

/// Runs a discovery request; stops at the context's cancellation flag.
pub fn discover(root: &Root, req: &DiscoverRequest, ctx: &Context) -> Result<Outcome<DiscoverOutput>, AideError> {
    aide_core::request::check_limit(req.limit)?;
    let threads = req.threads.unwrap_or_else(default_threads).max(1);
    let (want_files, want_dirs, langs) = split_types(&req.walk.r#type);
    let mut walk = req.walk.clone();
    walk.r#type = langs;

    if req.tree {
        if req.query.is_some() {
            return Err(DiscoverError::TreeWithQuery.into());
        }
        let walker = Walker::new(root, &walk)?.include_dirs(true).watched(ctx);
        let mut built = tree::build(&walker, threads, req.limit.unwrap_or(DEFAULT_TREE_LIMIT), ctx.voice)?;
        if req.tree_checksum {
            let scanned = aide_core::tree::scan(root, std::path::Path::new(""), aide_core::tree::Depth::Checksums)
                .map_err(|e| e.into_error("."))?;
            built.output.tree_checksum = Some(scanned.checksum());
        }
        return Ok(built);
    }

    let walker = Walker::new(root, &walk)?.include_dirs(want_dirs).watched(ctx);
    let keep = |is_dir: bool| if is_dir { want_dirs } else { want_files };
    let (mut found, diagnostics, mode) = match req.query.as_deref() {
        Some(q) => {
            let ranker = Ranker::new(q)?;
            let (found, diagnostics) = walker.filter_map_parallel(threads, || {
                let mut scratch = rank::Scratch::new();
                let ranker = &ranker;
                move |f: aide_core::walk::WalkedFile| {
                    if !keep(f.is_dir) {
                        return None;
                    }
                    let kind = if f.is_dir { Kind::Dir } else { Kind::File };
                    ranker.rank(&f.rel, kind, &mut scratch)
                }
            })?;
            // Asked for folders, a folder is ranked itself.
            let found = if want_dirs { found } else { folders::stand_for_files(found, &ranker) };
            (found, diagnostics, Mode::Query)
        }
        None => {
            let (found, diagnostics) = walker.filter_map_parallel(threads, || {
                move |f: aide_core::walk::WalkedFile| {
                    keep(f.is_dir).then(|| Found {
                        kind: if f.is_dir { Kind::Dir } else { Kind::File },
                        path: f.rel,
                        score: 1.0,
                        reason: Reason::Listed,
                        reason_text: Reason::Listed.text(),
                        matched: Vec::new(),
                    })
                }
            })?;
            (found, diagnostics, Mode::List)
        }
    };
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.as_bytes().cmp(b.path.as_bytes())));
    let total = found.len();
    let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
    let results: Vec<Found> = found.into_iter().skip(req.offset).take(limit).collect();
    let next = req.offset.saturating_add(results.len());
    let more = next < total;
    let output = DiscoverOutput {
        mode,
        query: req.query.clone(),
        results,
        total,
        truncated: more,
        next_offset: more.then_some(next),
        tree: None,
        files: None,
        directories: None,
        total_size: None,
        tree_checksum: None,
    };
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

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
