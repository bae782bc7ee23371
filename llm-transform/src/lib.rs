//! # llm-transform: edits that never corrupt a file
//!
//! `llm-transform --file PATH --edits EDITS.json` (the seed's form), or any
//! request as `--request` JSON / an `--edits` document:
//!
//! ```json
//! { "edits": [ { "path": "src/a.rs", "byte_start": 120, "byte_end": 132,
//!                "replacement": "bar", "checksum_before": "<sha256>" } ],
//!   "operations": [
//!     { "op": "patch", "path": "src/a.rs", "old_text": "…", "new_text": "…" },
//!     { "op": "replace_block", "path": "src/agent.rs", "kind": "function", "name": "run",
//!       "module_path": "impl Agent", "new_block": "…", "expected_old_hash": "…" },
//!     { "op": "insert_after_block", … "snippet": "…" }, { "op": "insert_before_block", … },
//!     { "op": "write", "path": "…", "content": "…", "create_dirs": true },
//!     { "op": "delete", "path": "…" }, { "op": "rename", "path": "…", "to": "…" },
//!     { "op": "insert_lines", "path": "…", "at_line": 3, "text": "…", "checksum_before": "…" },
//!     { "op": "replace_lines", "path": "…", "lines": "4:6", "text": "…", "expected_old_text": "…" },
//!     { "op": "delete_lines", "path": "…", "lines": "7", "checksum_before": "…" },
//!     { "op": "apply_patch", "patch": "<a git diff, or *** Begin Patch … *** End Patch>" },
//!     { "op": "replace_regex", "pattern": "old_(\\w+)", "replacement": "new_$1",
//!       "glob": "*.py", "type": "python", "max_replacements": 100 },
//!     { "op": "replace_matches", "matches": [ <llm-search / llm-ast-search records> ],
//!       "replacement": "${1}_x" },
//!     { "op": "rewrite", "language": "rust", "query": "(call_expression …) @call",
//!       "template": "new(${arg})", "replace": null },
//!     { "op": "rename_symbol", "name": "Agent/run", "new_name": "start",
//!       "path": null, "line_hint": null, "in_comments_and_strings": false,
//!       "include_unresolved": false },
//!     { "op": "refactor", "path": "a.cpp", "action": "extract_function",
//!       "line": 5, "column": null, "end_line": 6, "end_column": null,
//!       "title": null, "checksum_before": null } ] }
//! ```
//!
//! `llm-transform refactor --path F --line N [--end-line M] --action A` is a
//! `refactor` ([`refactor`]): the language server's code action, its edit
//! committed as every transform's; without `--action`, the actions the
//! server offers there (`{"mode": "actions", "server", "actions": [{
//! "action", "title", "kind" }]}`), nothing changed.
//!
//! `--patch FILE|-` is an `apply_patch` of a file's patch ([`patch`]); line
//! edits become span edits of the original lines ([`lines`]).
//! `--from-matches FILE|- --replacement TEMPLATE` is a `replace_matches` of
//! the records of a search's output (`--json` or `--jsonl`). The tree
//! operations ([`tree`], [`rename`]) find their files in the tree first,
//! then lock and edit them with the rest of the request.
//!
//! The seed's `rust_replace_block` / `rust_insert_after_block` are accepted
//! as `op` names with their fields as written (`new_block`, `snippet`,
//! `module_path`, `line_hint`, `expected_old_hash`, `expected_old_block`,
//! `run_rustfmt`, `run_cargo_check`).
//!
//! Output, inside the aide envelope:
//!
//! ```json
//! { "mode": "transform", "applied": 2, "skipped": 0, "errors": [],
//!   "checksum_after": "<sha256, when one file changed>", "dry_run": false, "no_op": false,
//!   "files": [ { "path": "src/a.rs", "action": "modified", "checksum_before": "…",
//!                "checksum_after": "…", "lines_added": 1, "lines_removed": 1,
//!                "formatted": false, "diff": null,
//!                "sites": [ { "before": { "byte_start", "byte_end", "line", "end_line" },
//!                             "after": { … } } ] } ],
//!   "operations": [ { "index": 0, "op": "patch", "path": "src/a.rs", "status": "applied", "line": 12, "note": null } ],
//!   "renames": [ <rename_symbol's report: scope, name_path, sites with `matched` and `renamed`> ],
//!   "refactors": [ { "path", "action", "title", "kind", "server", "edits" } ],
//!   "undo": "llm-transform undo <execution_id>",
//!   "verified": { "checkers", "errors_before", "errors_after", "command" } | null }
//! ```
//!
//! `applied`/`skipped` count span edits, replacements of tree operations
//! and other operations; `operations` reports each operation, and span
//! edits and tree operations once per file (with their number in `note`).
//!
//! Rules:
//! * **All or nothing.** Every edit and operation is checked in memory
//!   first; any failure rejects the whole request (exit 3 for a stale
//!   checksum, no match, ambiguity, new syntax errors or a lock held by
//!   another transform; 2 for a malformed request) and nothing is written.
//!   Then the commit ([`commit`]): a durable journal, every new version
//!   staged beside its target and fsynced, every target re-verified
//!   (identity and bytes: a file another program changed meanwhile is a
//!   `conflict`, nothing written), then the renames with SIGINT/SIGTERM
//!   deferred. Files keep their mode, owner and group; a read-only file is
//!   refused unless `--allow-read-only`. A lock per file is held from
//!   reading to renaming. A commit killed midway is completed or rolled
//!   back by the next run on the root, or by `llm-transform recover`
//!   ([`journal`]). Every file is opened beneath the root, race-free.
//! * **Byte-faithful.** Everything outside the edited spans is kept exactly:
//!   BOM, line endings, final newline, tabs. Span edits and `write` content
//!   are literal bytes; text inserted by `patch` and block operations takes
//!   the file's line ending (CRLF files get CRLF).
//! * Span edits (all against the file as read, applied from the end) run
//!   before operations; operations run in order, each on the result of the
//!   previous.
//! * **Guards.** A file in a known language whose edit adds syntax errors is
//!   refused (`new_syntax_errors`) unless `--allow-syntax-errors`.
//!   `--rustfmt`/`run_rustfmt` formats edited Rust files. `--verify
//!   [CHECKER|all]` runs the project's checkers before and after the commit
//!   and `--verify-command CMD` a command after it; an edit after which a
//!   checker fails that did not, or says anything new (any severity), or
//!   after which the command fails, is undone at once
//!   (`verification_failed`, exit 3; [`verify`]); so is one after which a
//!   check wrote the project's files, what it wrote put back too. Until
//!   the check is over the journal stays: a run killed meanwhile leaves
//!   the edit to recovery, which undoes it. `--cargo-check` and
//!   `run_cargo_check` are the old names of `--verify cargo`.
//! * `--dry-run` shows the unified diffs and would-be checksums, writing
//!   nothing. An applied transform keeps its pre-images:
//!   `llm-transform undo <execution_id>` restores them if the files still
//!   have the checksums it left (`undo --last N` undoes the newest N of the
//!   root not yet undone; an undo is not counted, so `--last 1` again steps
//!   further back). Undo acts on `--root` only. Undo data lives in
//!   `$AIDE_HOME/transform/undo/` for 30 days, and for the newest 1,000
//!   transforms at most ([`undo`]).

mod commit;
mod dirs;
pub mod disk;
mod engine;
mod error;
mod growth;
mod guards;
pub mod journal;
mod lines;
mod operations;
mod output;
mod parallel;
mod patch;
mod plan;
mod refactor;
mod rename;
pub mod request;
mod scan;
mod sites;
mod template;
mod text;
mod tree;
mod undo;
mod undo_store;
mod verify;
mod watch;

use aide_core::AideError;
use aide_core::operation::Operation as Offered;
use aide_core::tool::{Context, Outcome, Tool};

use crate::engine::recover_first;
use crate::error::TransformError;

pub use crate::engine::transform;
pub use crate::output::{FileAction, FileChange, TransformOutput};
pub use crate::verify::Verified;

pub use operations::UNDO;
pub use request::{Subcommand, TransformRequest};

/// The `llm-transform` tool.
#[derive(Debug)]
pub struct LlmTransform;

impl Tool for LlmTransform {
    const NAME: &'static str = "llm-transform";
    const SUMMARY: &'static str = "Checksum-guarded, all-or-nothing file edits with undo.";
    const OPERATIONS: &'static [Offered] = operations::OPERATIONS;
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[("file", "path")];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Checksum-guarded, all-or-nothing edits: span edits, patches, AST blocks, regex and \
                                 structural rewrites, symbol renames across a tree; undo.";
    const TUNE_ALLOCATOR: bool = true;
    const AFTER_HELP: Option<&'static str> = Some(crate::request::OPERATIONS_HELP);
    const OUTPUT_FLAGS: &'static [&'static str] = &["dry_run", "diff", "verify", "verify_command", "cargo_check"];
    type Request = TransformRequest;
    type Output = TransformOutput;

    fn run(request: TransformRequest, ctx: &Context) -> Result<Outcome<TransformOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        match &request.command {
            Some(Subcommand::Recover { journal: None }) => {
                Ok(Outcome::new(TransformOutput::Recover { recovered: journal::recover(&root, &undo::roll_back)? }))
            }
            Some(Subcommand::Recover { journal: Some(id) }) => Ok(Outcome::new(TransformOutput::Recover {
                recovered: vec![journal::recover_journal(&root, id, &undo::roll_back)?],
            })),
            Some(Subcommand::Undo { execution_ids, last }) => {
                let mut diagnostics = recover_first(&root)?;
                let ids = match last {
                    Some(n) => undo::recent(&root, *n),
                    None => execution_ids.clone(),
                };
                if ids.is_empty() {
                    return Err(TransformError::NothingToUndo.into());
                }
                let mut files = Vec::new();
                let mut undone = Vec::new();
                for id in &ids {
                    // Each undo is itself a transform, stored under its own id.
                    let by =
                        if undone.is_empty() { ctx.execution_id.clone() } else { aide_core::ids::new_execution_id() };
                    let (restored, undo_diagnostics) = undo::undo(&root, id, &by)?;
                    files.extend(restored);
                    diagnostics.extend(undo_diagnostics);
                    undone.push(id.clone());
                }
                Ok(Outcome::with_diagnostics(TransformOutput::Undo { undone, files }, diagnostics))
            }
            Some(Subcommand::Refactor(args)) => match &args.action {
                None => Ok(Outcome::new(TransformOutput::Actions(refactor::list(&root, args)?))),
                Some(action) => transform(&root, &args.transform(action, request.root.clone()), ctx),
            },
            None => transform(&root, &request, ctx),
        }
    }
}
