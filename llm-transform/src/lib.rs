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
//!     { "op": "replace_regex", "pattern": "old_(\\w+)", "replacement": "new_$1",
//!       "glob": "*.py", "type": "python", "max_replacements": 100 },
//!     { "op": "replace_matches", "matches": [ <llm-search / llm-ast-search records> ],
//!       "replacement": "${1}_x" },
//!     { "op": "rewrite", "language": "rust", "query": "(call_expression …) @call",
//!       "template": "new(${arg})", "replace": null },
//!     { "op": "rename_symbol", "name": "Agent/run", "new_name": "start",
//!       "path": null, "line_hint": null, "in_comments_and_strings": false,
//!       "include_unresolved": false } ] }
//! ```
//!
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
//!   "undo": "llm-transform undo <execution_id>", "cargo_check": null }
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
//!   `--rustfmt`/`run_rustfmt` formats edited Rust files; `--cargo-check`/
//!   `run_cargo_check` runs `cargo check` after writing and reports it.
//! * `--dry-run` shows the unified diffs and would-be checksums, writing
//!   nothing. An applied transform keeps its pre-images:
//!   `llm-transform undo <execution_id>` restores them if the files still
//!   have the checksums it left (`undo --last N` undoes the newest N of the
//!   root). Undo acts on `--root` only. Undo data lives in
//!   `$AIDE_HOME/transform/undo/` for 30 days, and for the newest 1,000
//!   transforms at most ([`undo`]).

pub mod commit;
pub mod disk;
pub mod error;
mod guards;
pub mod journal;
pub mod plan;
pub mod rename;
pub mod request;
pub mod scan;
pub mod sites;
pub mod template;
pub mod text;
pub mod tree;
pub mod undo;
pub mod undo_store;

use std::io::{self, Write};
use std::path::PathBuf;

use aide_core::checksum::sha256_hex;
use aide_core::color::{Paint, TextOut};
use aide_core::envelope::Diagnostic;
use aide_core::operation::{Effects, Group, Operation as Offered};
use aide_core::tool::{Context, Outcome, Render, Tool};
use aide_core::{AideError, Lang, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::TransformError;
pub use crate::guards::CargoCheck;
use crate::journal::Recovered;
use crate::plan::{FileState, OpReport, OpStatus, Plan};
use crate::request::{EditsDocument, Operation, SpanEdit};
use crate::undo::Restored;

/// A request: flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TransformRequest {
    #[command(subcommand)]
    #[serde(deserialize_with = "subcommand_or_word")]
    pub command: Option<Subcommand>,
    /// The file span edits without a `path` of their own apply to.
    #[arg(long = "path", alias = "file", value_name = "PATH")]
    pub path: Option<String>,
    /// A JSON file (`-` for stdin) with `{"edits": [...], "operations": [...]}`.
    #[arg(long = "edits", value_name = "JSON_FILE")]
    #[serde(skip)]
    pub edits_file: Option<String>,
    /// Span edits (request JSON only; on the command line, use --edits).
    #[arg(skip)]
    pub edits: Vec<SpanEdit>,
    /// Operations (request JSON only; on the command line, use --edits).
    #[arg(skip)]
    pub operations: Vec<Operation>,
    /// The JSON output of llm-search or llm-ast-search (a file, `-` for
    /// stdin): each match, capture, symbol or reference it lists is replaced
    /// by --replacement, guarded by the checksum it carries.
    #[arg(long, value_name = "FILE", requires = "replacement")]
    #[serde(skip)]
    pub from_matches: Option<String>,
    /// With --from-matches: the new text of each match; `$0` is the matched
    /// text, `$1` or `${name}` a capture group.
    #[arg(long, value_name = "TEMPLATE", requires = "from_matches")]
    #[serde(skip)]
    pub replacement: Option<String>,
    /// Directory the paths are relative to; nothing outside it is touched.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Show the diff and would-be checksums; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Apply even if the result has syntax errors the file did not have.
    #[arg(long)]
    pub allow_syntax_errors: bool,
    /// Format every edited Rust file with rustfmt.
    #[arg(long)]
    pub rustfmt: bool,
    /// Run `cargo check` after writing and report its diagnostics.
    #[arg(long)]
    pub cargo_check: bool,
    /// Include each file's unified diff in the output of an applied transform.
    #[arg(long)]
    pub diff: bool,
    /// Also write files without write permission (0444). They keep their
    /// mode; without this they are refused.
    #[arg(long)]
    pub allow_read_only: bool,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Subcommand {
    /// Restore the files a transform changed, if nothing changed them since.
    Undo {
        /// Execution ids of applied transforms (at least 8 characters), undone in the order given.
        #[arg(value_name = "EXECUTION_ID")]
        #[serde(default)]
        execution_ids: Vec<String>,
        /// Undo the newest N transforms not yet undone, newest first.
        #[arg(long, value_name = "N", conflicts_with = "execution_ids")]
        last: Option<usize>,
    },
    /// Finish or roll back transforms of this root that were interrupted
    /// mid-commit (kill -9, power loss). Every transform run does this
    /// first; this does it alone.
    Recover {
        /// Recover this one interrupted transform on this root, wherever its
        /// commit ran: for a root moved since (`aide doctor` lists the ids).
        #[arg(long, value_name = "EXECUTION_ID")]
        #[serde(default)]
        journal: Option<String>,
    },
}

/// The subcommand, also as the bare word `"recover"` (its form before it
/// took a field), so no request written for it breaks.
fn subcommand_or_word<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Subcommand>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(word)) if word == "recover" => Ok(Some(Subcommand::Recover { journal: None })),
        Some(other) => serde_json::from_value(other).map(Some).map_err(serde::de::Error::custom),
    }
}

/// What a transform does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    Modified,
    Created,
    Deleted,
    Unchanged,
}

impl FileAction {
    pub fn as_str(self) -> &'static str {
        match self {
            FileAction::Modified => "modified",
            FileAction::Created => "created",
            FileAction::Deleted => "deleted",
            FileAction::Unchanged => "unchanged",
        }
    }
}

/// One file of the result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileChange {
    pub path: String,
    pub action: FileAction,
    pub checksum_before: Option<String>,
    pub checksum_after: Option<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// rustfmt formatted the result.
    pub formatted: bool,
    pub renamed_from: Option<String>,
    /// Unified diff (with --dry-run or --diff).
    pub diff: Option<String>,
    /// Each changed place: its bytes and lines before, and after (valid
    /// against `checksum_after`, to chain the next edit without a read).
    pub sites: Vec<sites::Site>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum TransformOutput {
    Transform {
        applied: usize,
        skipped: usize,
        /// Always empty: a failing request is an error, and nothing is written.
        errors: Vec<String>,
        /// The new checksum, when exactly one file changed.
        checksum_after: Option<String>,
        dry_run: bool,
        /// Every edit was already in place: nothing to write.
        no_op: bool,
        files: Vec<FileChange>,
        operations: Vec<OpReport>,
        /// What each rename_symbol found: its definition and every site judged.
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        renames: Vec<rename::RenameReport>,
        /// How to undo this transform, when it wrote something.
        undo: Option<String>,
        cargo_check: Option<CargoCheck>,
    },
    Undo {
        undone: Vec<String>,
        files: Vec<Restored>,
    },
    Recover {
        /// The interrupted transforms of this root, and what was done with each.
        recovered: Vec<Recovered>,
    },
}

impl Render for TransformOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            TransformOutput::Transform {
                applied, skipped, dry_run, no_op, files, undo, cargo_check, renames, ..
            } => {
                let verb = if *dry_run { "would apply" } else { "applied" };
                writeln!(w, "{verb} {applied}, skipped {skipped}{}", if *no_op { " (no change)" } else { "" })?;
                for r in renames {
                    writeln!(
                        w,
                        "rename {} `{}` -> `{}`: {} site{} ({} unresolved, left alone)",
                        match r.scope {
                            rename::SymbolScope::Local => "local",
                            rename::SymbolScope::Member => "member",
                            rename::SymbolScope::Free => "symbol",
                        },
                        r.name_path,
                        r.new_name,
                        r.renamed,
                        if r.renamed == 1 { "" } else { "s" },
                        r.unresolved
                    )?;
                    for site in r.sites.iter().filter(|s| !s.renamed) {
                        w.paint(Paint::Warn, "  unresolved ")?;
                        w.paint(Paint::Path, aide_core::text::escape_controls(&site.path))?;
                        write!(w, ":")?;
                        w.paint(Paint::LineNumber, site.line)?;
                        writeln!(w, ":{}: {}", site.column, site.line_text.trim())?;
                    }
                }
                for f in files {
                    write!(w, "{} ", f.action.as_str())?;
                    w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                    write!(w, " (")?;
                    w.paint(Paint::Good, format_args!("+{}", f.lines_added))?;
                    write!(w, " ")?;
                    w.paint(Paint::Bad, format_args!("-{}", f.lines_removed))?;
                    writeln!(
                        w,
                        "){}",
                        f.checksum_after.as_deref().map(|c| format!(" sha256 {c}")).unwrap_or_default()
                    )?;
                    if let Some(d) = &f.diff {
                        w.diff(d)?;
                    }
                }
                if let Some(c) = cargo_check {
                    write!(w, "cargo check: ")?;
                    if c.ok {
                        w.paint(Paint::Good, "ok")?
                    } else {
                        w.paint(Paint::Bad, "failed")?
                    }
                    writeln!(w)?;
                    for e in &c.errors {
                        writeln!(w, "  {e}")?;
                    }
                }
                if let Some(u) = undo {
                    w.paint(Paint::Dim, format_args!("undo: {u}"))?;
                    writeln!(w)?;
                }
                Ok(())
            }
            TransformOutput::Undo { files, .. } => {
                for f in files {
                    write!(w, "{} ", f.action.as_str())?;
                    w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                    writeln!(w)?;
                }
                Ok(())
            }
            TransformOutput::Recover { recovered } => {
                if recovered.is_empty() {
                    writeln!(w, "nothing to recover")?;
                }
                for r in recovered {
                    let action = match r.action {
                        journal::RecoveryAction::Completed => "completed",
                        journal::RecoveryAction::RolledBack => "rolled back",
                    };
                    writeln!(w, "{action} {} ({} files)", r.execution_id, r.files)?;
                    for c in &r.conflicts {
                        writeln!(w, "  changed since, left as is: {}", aide_core::text::escape_controls(c))?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Makes whole, before a run writes anything, the transforms of `root` that
/// were killed mid-commit; the diagnostics say so.
fn recover_first(root: &Root) -> Result<Vec<Diagnostic>, AideError> {
    Ok(journal::diagnostics(&journal::recover(root)?))
}

/// Runs a transform request on `root`: plans every edit (stopping at the
/// context's cancellation flag between operations; never once the commit
/// has begun), checks the guards, and commits all or nothing.
pub fn transform(
    root: &Root,
    request: &TransformRequest,
    ctx: &Context,
) -> Result<Outcome<TransformOutput>, AideError> {
    let mut diagnostics = Vec::new();
    // An earlier transform of this root killed mid-commit is made whole
    // first; a dry run writes nothing, so it only says so.
    if request.dry_run {
        for id in journal::pending(root) {
            diagnostics.push(Diagnostic::new(
                aide_core::envelope::diag::TRANSFORM_PENDING,
                format!("an interrupted transform ({id}) of this root awaits recovery: the next transform, or `llm-transform recover`, completes or rolls it back"),
            ));
        }
    } else {
        diagnostics.extend(recover_first(root)?);
    }
    let mut doc = EditsDocument {
        path: request.path.clone(),
        edits: request.edits.clone(),
        operations: request.operations.clone(),
    };
    if let Some(source) = &request.from_matches {
        let Some(replacement) = request.replacement.clone() else {
            return Err(TransformError::MatchesWithoutReplacement.into());
        };
        let text = aide_core::request::read_request_source(source)?;
        let matches = tree::records_from_document(&text)?;
        doc.operations.push(Operation::ReplaceMatches(request::ReplaceMatchesOp { matches, replacement }));
    }
    if let Some(source) = &request.edits_file {
        let text = aide_core::request::read_request_source(source)?;
        let from_file: EditsDocument = serde_json::from_str(&text)
            .map_err(|e| TransformError::EditsFile { source_name: source.clone(), message: e.to_string() })?;
        doc.path = doc.path.or(from_file.path);
        doc.edits.extend(from_file.edits);
        doc.operations.extend(from_file.operations);
    }
    if doc.edits.is_empty() && doc.operations.is_empty() {
        return Err(TransformError::NothingToDo.into());
    }

    let mut plan = Plan::default();
    // Read every file once, then lock them all before any check: the lock is
    // held from verification to rename.
    // Each distinct path once: a request of 10,000 edits names far fewer files.
    let mut paths: std::collections::BTreeSet<&str> =
        doc.edits.iter().filter_map(|e| e.path.as_deref().or(doc.path.as_deref())).collect();
    // Tree operations: compiled, then their files found (reading, unlocked).
    let mut prepared: Vec<Option<(tree::Prepared, Vec<String>)>> = Vec::with_capacity(doc.operations.len());
    for (i, op) in doc.operations.iter().enumerate() {
        let found = match tree::Prepared::new(i, op, !request.allow_syntax_errors)? {
            Some(p) => {
                let (files, found_diagnostics) = p.candidates(root, ctx)?;
                diagnostics.extend(found_diagnostics);
                Some((p, files))
            }
            None => None,
        };
        prepared.push(found);
    }
    for op in &doc.operations {
        paths.extend(op.path());
        if let Operation::Rename { to, .. } = op {
            paths.insert(to);
        }
    }
    for (_, files) in prepared.iter().flatten() {
        paths.extend(files.iter().map(String::as_str));
    }
    let abs: Vec<PathBuf> = paths.into_iter().map(|p| plan.resolve(root, p)).collect::<Result<_, _>>()?;
    let _locks = disk::lock_all(abs.iter().map(PathBuf::as_path))?;

    let progress = ctx.progress.counter(Some(doc.operations.len() as u64 + 1));
    plan.span_edits(root, &doc.edits, doc.path.as_deref())?;
    progress.tick();
    let mut renames = Vec::new();
    for (i, op) in doc.operations.iter().enumerate() {
        ctx.check_cancel()?;
        match &prepared[i] {
            Some((p, files)) => renames.extend(plan.tree_operation(root, i, op, p, files, ctx)?),
            None => plan.operation(root, i, op)?,
        }
        progress.tick();
    }

    // The syntax guard, on every changed file of a known language at once
    // (a rewrite across a tree changes hundreds), in path order.
    let fresh_issues: std::collections::BTreeMap<PathBuf, Vec<llm_ast_search::validate::SyntaxIssue>> =
        if request.allow_syntax_errors {
            Default::default()
        } else {
            // What the operations found out goes to the workers, which free
            // the trees too: freeing hundreds costs as much as parsing their
            // edits again.
            let mut known: Vec<Option<tree::KnownSyntax>> =
                plan.files.values_mut().filter(|f| f.current != f.original).map(|f| f.known_syntax.take()).collect();
            let checked: Vec<(&FileState, Option<tree::KnownSyntax>)> =
                plan.files.values().filter(|f| f.current != f.original).zip(known.drain(..)).collect();
            let found = commit::parallel_map_owned(checked, |(f, known)| {
                let after = f.current.as_deref()?;
                let lang = Lang::from_path_and_content(&f.abs, after)?;
                let issues = match known {
                    // The scan's verdict, on this very content.
                    Some(tree::KnownSyntax::Checked { lang: checked_as, after: checked, issues })
                        if checked_as == lang && checked == after =>
                    {
                        issues
                    }
                    Some(tree::KnownSyntax::Tree((parsed_as, tree))) if parsed_as == lang && !f.replaced_whole => {
                        let earlier = guards::Earlier { tree: &tree, regions: &f.regions };
                        guards::new_issues_from(lang, f.original.as_deref(), after, Some(&earlier))
                    }
                    _ => guards::new_issues_from(lang, f.original.as_deref(), after, None),
                };
                Some((f.abs.clone(), issues))
            });
            found.into_iter().flatten().collect()
        };
    // Then the rest of the guards and formatting, file by file.
    let mut formatted = std::collections::BTreeSet::new();
    for f in plan.files.values_mut() {
        let Some(after) = f.current.clone() else { continue };
        let Some(lang) = Lang::from_path_and_content(&f.abs, &after) else { continue };
        if f.current == f.original {
            continue;
        }
        if !request.allow_syntax_errors {
            if let Some(fresh) = fresh_issues.get(&f.abs).filter(|issues| !issues.is_empty()) {
                return Err(TransformError::NewSyntaxErrors { path: f.rel.clone(), errors: fresh.clone() }.into());
            }
            if lang == Lang::Python
                && let Some((line, message)) = guards::python_compile_error(&after)
                && f.original.as_deref().is_none_or(|before| guards::python_compile_error(before).is_none())
            {
                return Err(TransformError::PythonCompile { path: f.rel.clone(), line, message }.into());
            }
        }
        if lang == Lang::Rust
            && (request.rustfmt || f.rustfmt)
            && let Some(pretty) = guards::rustfmt(&f.abs, &f.rel, &after, &mut diagnostics)
        {
            if pretty != after {
                formatted.insert(f.rel.clone());
            }
            f.current = Some(pretty);
        }
    }

    let changed: Vec<&FileState> = plan.files.values().filter(|f| f.current != f.original).collect();
    if !request.allow_read_only
        && let Some(f) = changed.iter().find(|f| f.stamp.is_some_and(|s| s.mode & 0o222 == 0))
    {
        return Err(TransformError::ReadOnly { path: f.rel.clone() }.into());
    }
    let show_diff = request.dry_run || request.diff;
    // A line diff and two checksums a file: on every core (a rewrite across
    // a tree changes hundreds of files).
    let all: Vec<&FileState> = plan.files.values().collect();
    let files: Vec<FileChange> = commit::parallel_map(&all, |f| {
        let (added, removed, diff) = text::diff(&f.rel, f.original.as_deref(), f.current.as_deref(), show_diff);
        let (before, after) = (f.original.as_deref().unwrap_or_default(), f.current.as_deref().unwrap_or_default());
        let sites = if f.current.is_none() || f.current == f.original {
            Vec::new()
        } else if f.replaced_whole || formatted.contains(&f.rel) || f.original.is_none() {
            sites::Regions::from_line_diff(before, after).sites(before, after)
        } else {
            f.regions.sites(before, after)
        };
        FileChange {
            path: f.rel.clone(),
            action: match (&f.original, &f.current) {
                (None, Some(_)) => FileAction::Created,
                (Some(_), None) => FileAction::Deleted,
                (a, b) if a == b => FileAction::Unchanged,
                _ => FileAction::Modified,
            },
            checksum_before: f.original.as_deref().map(sha256_hex),
            checksum_after: f.current.as_deref().map(sha256_hex),
            lines_added: added,
            lines_removed: removed,
            formatted: formatted.contains(&f.rel),
            renamed_from: f.renamed_from.clone(),
            diff,
            sites,
        }
    });
    let no_op = changed.is_empty();
    let wrote = !request.dry_run && !no_op;
    if wrote {
        // The last moment a cancellation stops the run: from here the
        // commit goes to its end.
        ctx.check_cancel()?;
        diagnostics.extend(commit::commit(root, &ctx.execution_id, &changed)?);
        undo::prune_undo(aide_core::time::now_ms());
    }
    let check = if wrote && (request.cargo_check || changed.iter().any(|f| f.cargo_check)) {
        changed.iter().find(|f| f.abs.extension().is_some_and(|e| e == "rs")).map(|f| guards::cargo_check(&f.abs, root))
    } else {
        None
    };
    // Counted per edit and per operation (span edits are reported per file).
    let edits_applied: usize = plan.edit_counts.iter().filter(|(_, same)| !same).map(|(n, _)| n).sum();
    let edits_skipped: usize = plan.edit_counts.iter().filter(|(_, same)| *same).map(|(n, _)| n).sum();
    // Span edits and tree operations count their replacements; others, themselves.
    let ops = plan.reports.iter().filter(|r| !r.op.counts_replacements());
    let applied = edits_applied + ops.clone().filter(|r| r.status == OpStatus::Applied).count();
    let skipped = edits_skipped + ops.filter(|r| r.status != OpStatus::Applied).count();
    let checksum_after = match changed.as_slice() {
        [one] => one.current.as_deref().map(sha256_hex),
        _ => None,
    };
    let output = TransformOutput::Transform {
        applied,
        skipped,
        errors: Vec::new(),
        checksum_after,
        dry_run: request.dry_run,
        no_op,
        files,
        operations: plan.reports,
        renames,
        undo: wrote.then(|| format!("llm-transform undo {}", ctx.execution_id)),
        cargo_check: check,
    };
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

/// The `llm-transform` tool.
#[derive(Debug)]
pub struct LlmTransform;

impl Tool for LlmTransform {
    const NAME: &'static str = "llm-transform";
    const SUMMARY: &'static str = "Checksum-guarded, all-or-nothing file edits with undo.";
    const OPERATIONS: &'static [Offered] = &[
        Offered {
            name: "transform",
            tool: Self::NAME,
            command: &[],
            group: Group::Edit,
            description: "Edits files all or nothing, each edit guarded by the file's checksum: byte spans, exact-text patches, blocks by symbol name, write/delete/rename files; across a tree: replace_matches (search/ast_search records), replace_regex, rewrite (tree-sitter query + template), rename_symbol. Refuses edits that add syntax errors; dry_run returns diffs. Undo with transform_undo.",
            effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
            output: &["applied"],
            mcp_defaults: &[],
        },
        Offered {
            name: "transform_undo",
            tool: Self::NAME,
            command: &["undo"],
            group: Group::Edit,
            description: "Restores the files an applied transform changed, by its execution_id or the last N transforms of this root, if nothing changed them since (otherwise refuses and names the files). Each transform can be undone once.",
            effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
            output: &["undone"],
            mcp_defaults: &[],
        },
        Offered {
            name: "transform_recover",
            tool: Self::NAME,
            command: &["recover"],
            group: Group::Edit,
            description: "Finishes or rolls back transforms of this root interrupted mid-commit (process killed, power lost). Every transform does this first; call it alone only to repair a tree before reading it.",
            effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
            output: &["recovered"],
            mcp_defaults: &[],
        },
    ];
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[("file", "path")];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Checksum-guarded, all-or-nothing edits: span edits, patches, AST blocks, regex and \
                                 structural rewrites, symbol renames across a tree; undo.";
    const TUNE_ALLOCATOR: bool = true;
    const AFTER_HELP: Option<&'static str> = Some(crate::request::OPERATIONS_HELP);
    const OUTPUT_FLAGS: &'static [&'static str] = &["dry_run", "diff", "cargo_check"];
    type Request = TransformRequest;
    type Output = TransformOutput;

    fn run(request: TransformRequest, ctx: &Context) -> Result<Outcome<TransformOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        match &request.command {
            Some(Subcommand::Recover { journal: None }) => {
                Ok(Outcome::new(TransformOutput::Recover { recovered: journal::recover(&root)? }))
            }
            Some(Subcommand::Recover { journal: Some(id) }) => {
                Ok(Outcome::new(TransformOutput::Recover { recovered: vec![journal::recover_journal(&root, id)?] }))
            }
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
            None => transform(&root, &request, ctx),
        }
    }
}
