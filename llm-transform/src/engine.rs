//! A transform run: interrupted transforms of the root finished or rolled
//! back first, the plan made and checked (every edit, guard and syntax
//! check in memory), the files locked, read again and committed, the
//! report built.

use std::path::PathBuf;

use aide_core::checksum::sha256_hex;
use aide_core::envelope::Diagnostic;
use aide_core::tool::{Context, Outcome};
use aide_core::voice::Given;
use aide_core::{AideError, Lang, Root};

use crate::error::TransformError;
use crate::output::{FileAction, FileChange, TransformOutput};
use crate::plan::{FileState, OpStatus, Plan};
use crate::request::TransformRequest;
use crate::request::{EditsDocument, Operation};
use crate::{commit, dirs, disk, guards, journal, lines, parallel, patch, request, sites, tree, undo, verify};

/// Makes whole, before a run writes anything, the transforms of `root` that
/// were killed mid-commit; the diagnostics say so.
pub(crate) fn recover_first(root: &Root) -> Result<Vec<Diagnostic>, AideError> {
    Ok(journal::diagnostics(&journal::recover(root, &undo::roll_back)?))
}

/// Runs a transform request on `root`: plans every edit (stopping at the
/// context's cancellation flag between operations; never once the commit
/// has begun), checks the guards, and commits all or nothing. Its stages,
/// in order: recover, assemble, lock, plan, guard, commit (and verify),
/// report.
pub fn transform(
    root: &Root,
    request: &TransformRequest,
    ctx: &Context,
) -> Result<Outcome<TransformOutput>, AideError> {
    let mut diagnostics = recover(root, request.dry_run)?;
    let mut work = assemble(request)?;
    let mut plan = Plan::default();
    let (locks, prepared) = lock(&mut plan, root, request, &work, ctx, &mut diagnostics)?;
    let renames = plan_all(&mut plan, root, &mut work, prepared, ctx)?;
    let formatted = guard(&mut plan, request, &mut diagnostics)?;
    let changed: Vec<&FileState> = plan.files.values().filter(|f| f.is_changed()).collect();
    if !request.allow_read_only
        && let Some(f) = changed.iter().find(|f| f.stamp.is_some_and(|s| s.mode & 0o222 == 0))
    {
        return Err(TransformError::ReadOnly { path: f.rel.clone() }.into());
    }
    let files = file_changes(&plan, &formatted, request.dry_run || request.diff);
    let no_op = changed.is_empty() && plan.dirs.is_empty();
    let wrote = !request.dry_run && !no_op;
    let verified = match wrote {
        true => commit_and_verify(root, request, &changed, &plan, locks, ctx, &mut diagnostics)?,
        false => None,
    };
    let checksum_after = match changed.as_slice() {
        [one] => one.current.as_deref().map(sha256_hex),
        _ => None,
    };
    let output = report(&mut plan, request, ctx, Reported { files, renames, no_op, wrote, checksum_after, verified });
    diagnostics.extend(std::mem::take(&mut plan.diagnostics));
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

/// An earlier transform of this root killed mid-commit is made whole first;
/// a dry run writes nothing, so it only says so.
fn recover(root: &Root, dry_run: bool) -> Result<Vec<Diagnostic>, AideError> {
    if !dry_run {
        return recover_first(root);
    }
    Ok(journal::pending(root)
        .into_iter()
        .map(|id| {
            Diagnostic::new(
                aide_core::envelope::diag::TRANSFORM_PENDING,
                format!("an interrupted transform ({id}) of this root awaits recovery: the next transform, or `llm-transform recover`, completes or rolls it back"),
            )
        })
        .collect())
}

/// What a request asks, gathered from its fields, files and patches.
struct Work {
    doc: EditsDocument,
    patches: Vec<patch::FilePatch>,
    /// Line edits, with their index among the operations: made span edits
    /// of the files as they are once locked, so all count the same lines.
    line_ops: Vec<Indexed>,
}

/// An operation and its index in the request.
type Indexed = (usize, Operation);

/// The request's edits and operations in one document: `--from-matches`,
/// `--edits` file, each rename's engine, and every patch read whole.
fn assemble(request: &TransformRequest) -> Result<Work, AideError> {
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
    // A rename that does not name its engine takes the request's.
    for op in &mut doc.operations {
        if let Operation::RenameSymbol(rename) = op
            && rename.engine.is_none()
        {
            rename.engine = request.engine;
        }
    }
    // Patches: the `--patch` file's and each apply_patch's.
    let mut patches: Vec<patch::FilePatch> = Vec::new();
    if let Some(source) = &request.patch_file {
        patches.extend(patch::parse(&aide_core::request::read_request_source(source)?)?);
    }
    for op in &doc.operations {
        if let Operation::ApplyPatch { patch: text } = op {
            patches.extend(patch::parse(text)?);
        }
    }
    doc.operations.retain(|op| !matches!(op, Operation::ApplyPatch { .. }));
    if doc.edits.is_empty() && doc.operations.is_empty() && patches.is_empty() {
        return Err(TransformError::NothingToDo.into());
    }
    let (line_ops, others): (Vec<Indexed>, Vec<Indexed>) =
        std::mem::take(&mut doc.operations).into_iter().enumerate().partition(|(_, op)| op.is_line_edit());
    doc.operations = others.into_iter().map(|(_, op)| op).collect();
    Ok(Work { doc, patches, line_ops })
}

/// A tree operation compiled, with the files it may change.
type Prepared = Option<(tree::Prepared, Vec<String>)>;

/// Every file the request may touch, found (tree operations search the
/// root, unlocked) and then locked at once: the lock is held from the
/// checks to the rename.
fn lock(
    plan: &mut Plan,
    root: &Root,
    request: &TransformRequest,
    work: &Work,
    ctx: &Context,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(disk::Locks, Vec<Prepared>), AideError> {
    let doc = &work.doc;
    // Each distinct path once: a request of 10,000 edits names far fewer files.
    let mut paths: std::collections::BTreeSet<&str> =
        doc.edits.iter().filter_map(|e| e.path.as_deref().or(doc.path.as_deref())).collect();
    let mut prepared: Vec<Prepared> = Vec::with_capacity(doc.operations.len());
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
    for p in &work.patches {
        paths.extend(p.paths());
    }
    for op in doc.operations.iter().chain(work.line_ops.iter().map(|(_, op)| op)) {
        paths.extend(op.path());
        if let Operation::Rename { to, .. } | Operation::Copy { to, .. } = op {
            paths.insert(to);
        }
    }
    // A directory operation's files and links, where they are and where they go.
    let mut tree_paths: Vec<PathBuf> = Vec::new();
    for op in &doc.operations {
        tree_paths.extend(dirs::lock_paths(root, op)?);
    }
    for (_, files) in prepared.iter().flatten() {
        paths.extend(files.iter().map(String::as_str));
    }
    let mut abs: Vec<PathBuf> = paths.into_iter().map(|p| plan.resolve(root, p)).collect::<Result<_, _>>()?;
    abs.extend(tree_paths);
    Ok((disk::lock_all(abs.iter().map(PathBuf::as_path))?, prepared))
}

/// Every edit made in memory: line edits as spans, a patch's files as
/// write, delete and rename operations after the others, the span edits,
/// each operation in order (cancellable between them), then the modes a
/// patch sets. The renames of symbols are reported.
fn plan_all(
    plan: &mut Plan,
    root: &Root,
    work: &mut Work,
    mut prepared: Vec<Prepared>,
    ctx: &Context,
) -> Result<Vec<crate::rename::RenameReport>, AideError> {
    let doc = &mut work.doc;
    let progress = ctx.progress.counter(Some(doc.operations.len() as u64 + 1));
    for (index, op) in &work.line_ops {
        let path = op.path().unwrap_or_default();
        let file = plan.file(root, path)?;
        let Some(bytes) = file.current.as_deref() else {
            return Err(TransformError::SpanTargetMissing { path: file.rel.clone() }.into());
        };
        doc.edits.push(lines::span_edit(*index, op, &file.rel.clone(), bytes)?);
    }
    for p in &work.patches {
        for op in patch_operations(plan, root, p)? {
            doc.operations.push(op);
            prepared.push(None);
        }
    }
    plan.span_edits(root, &doc.edits, doc.path.as_deref())?;
    progress.tick();
    let mut renames = Vec::new();
    for (i, op) in doc.operations.iter().enumerate() {
        ctx.check_cancel()?;
        plan.budget.begin(i, op.name());
        match &prepared[i] {
            Some((p, files)) => renames.extend(plan.tree_operation(root, i, op, p, files, ctx)?),
            None => {
                if !dirs::operation(plan, root, i, op)? {
                    plan.operation(root, i, op)?;
                }
            }
        }
        progress.tick();
    }
    set_modes(plan, root, &work.patches)?;
    Ok(renames)
}

/// Modes a patch sets: a new file git marks 100755, an existing file's
/// `new mode` (executable where readable, as git does, or not at all).
fn set_modes(plan: &mut Plan, root: &Root, patches: &[patch::FilePatch]) -> Result<(), AideError> {
    use std::os::unix::fs::PermissionsExt;
    for p in patches {
        let (path, executable) = match p {
            patch::FilePatch::Add { path, executable: true, .. } => (path.as_str(), true),
            patch::FilePatch::Update { path, move_to, executable: Some(x), .. } => {
                (move_to.as_deref().unwrap_or(path), *x)
            }
            _ => continue,
        };
        let file = plan.file(root, path)?;
        let mode = match (&file.permissions, executable) {
            (None, true) => 0o755,
            (None, false) => 0o644,
            (Some(p), true) => p.mode() | ((p.mode() & 0o444) >> 2),
            (Some(p), false) => p.mode() & !0o111,
        };
        file.permissions = Some(std::fs::Permissions::from_mode(mode & 0o7777));
    }
    Ok(())
}

/// The guards on what the plan made: no new syntax errors (nor a Python
/// file that no longer compiles), unless allowed; then rustfmt where asked.
/// The files rustfmt changed.
fn guard(
    plan: &mut Plan,
    request: &TransformRequest,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<std::collections::BTreeSet<String>, AideError> {
    let fresh_issues = match request.allow_syntax_errors {
        true => Default::default(),
        false => new_syntax_issues(plan),
    };
    let mut formatted = std::collections::BTreeSet::new();
    for f in plan.files.values_mut() {
        let Some(after) = f.current.clone() else { continue };
        let Some(lang) = Lang::from_path_and_content(&f.abs, &after) else { continue };
        if !f.judged_for_syntax() {
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
            && let Some(pretty) = guards::rustfmt(&f.abs, &f.rel, &after, diagnostics)
        {
            if pretty != after {
                formatted.insert(f.rel.clone());
            }
            f.current = Some(pretty);
        }
    }
    Ok(formatted)
}

/// The syntax errors each changed file of a known language has that it did
/// not have before: every file at once, on every core (a rewrite across a
/// tree changes hundreds), reusing what the operations already parsed.
fn new_syntax_issues(plan: &mut Plan) -> std::collections::BTreeMap<PathBuf, Vec<llm_ast_search::SyntaxIssue>> {
    // What the operations found out goes to the workers, which free the
    // trees too: freeing hundreds costs as much as parsing their edits again.
    let mut known: Vec<Option<tree::KnownSyntax>> =
        plan.files.values_mut().filter(|f| f.judged_for_syntax()).map(|f| f.known_syntax.take()).collect();
    let checked: Vec<(&FileState, Option<tree::KnownSyntax>)> =
        plan.files.values().filter(|f| f.judged_for_syntax()).zip(known.drain(..)).collect();
    let found = parallel::parallel_map_owned(checked, |(f, known)| {
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
}

/// Each file's change as reported: one line diff a file gives its counts,
/// its text (`show_diff`) and its sites; with two checksums, on every core
/// (a rewrite across a tree changes hundreds of files).
fn file_changes(plan: &Plan, formatted: &std::collections::BTreeSet<String>, show_diff: bool) -> Vec<FileChange> {
    let all: Vec<&FileState> = plan.files.values().collect();
    parallel::parallel_map(&all, |f| {
        let (before, after) = (f.original.as_deref().unwrap_or_default(), f.current.as_deref().unwrap_or_default());
        let lines = (f.original != f.current).then(|| aide_diff::LineDiff::new(before, after));
        let (added, removed) = lines.as_ref().map_or((0, 0), |l| (l.added(), l.removed()));
        let diff = lines.as_ref().filter(|_| show_diff).map(|l| {
            let from = if f.original.is_some() { format!("a/{}", f.rel) } else { "/dev/null".into() };
            let to = if f.current.is_some() { format!("b/{}", f.rel) } else { "/dev/null".into() };
            l.unified(&from, &to, 3)
        });
        let sites = match &lines {
            _ if f.current.is_none() => Vec::new(),
            None => Vec::new(),
            Some(l) if f.replaced_whole || formatted.contains(&f.rel) || f.original.is_none() => {
                sites::Regions::from_line_diff(l, before, after).sites(before, after)
            }
            Some(_) => f.regions.sites(before, after),
        };
        FileChange {
            path: f.rel.clone(),
            action: match (&f.original, &f.current) {
                (None, Some(_)) => FileAction::Created,
                (Some(_), None) => FileAction::Deleted,
                (a, b) if a == b => FileAction::Unchanged,
                _ => FileAction::Modified,
            },
            checksum_before: f.checksum_before(),
            checksum_after: f.checksum_after(),
            lines_added: added,
            lines_removed: removed,
            formatted: formatted.contains(&f.rel),
            renamed_from: f.renamed_from.clone(),
            diff,
            sites,
        }
    })
}

/// The commit, all or nothing; with `--verify`, journalled as unverified
/// until the checks after it are over, and undone at once when they fail.
fn commit_and_verify(
    root: &Root,
    request: &TransformRequest,
    changed: &[&FileState],
    plan: &Plan,
    locks: disk::Locks,
    ctx: &Context,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Option<verify::Verified>, AideError> {
    let verify = crate::verify::Verify::of(request, changed.iter().any(|f| f.cargo_check));
    // The tree as it is, for the checks to compare with after.
    let before = verify::before(root, &verify, changed, ctx)?;
    // The last moment a cancellation stops the run: from here the commit
    // goes to its end.
    ctx.check_cancel()?;
    let mut verified = None;
    match before {
        None => diagnostics.extend(commit::commit(root, &ctx.execution_id, changed, &plan.dirs)?),
        Some(before) => {
            // A run killed meanwhile leaves the edit to recovery to undo.
            let (written, journal) = commit::commit_unverified(root, &ctx.execution_id, changed, &plan.dirs)?;
            diagnostics.extend(written);
            match verify::after(root, &verify, before, changed, ctx) {
                Ok(v) => verified = Some(v),
                Err(failed) => {
                    // Undone at once, under an id of its own (which takes
                    // the files' locks again); the run's error says why.
                    drop(locks);
                    let undone = undo::roll_back(root, &ctx.execution_id);
                    journal.finish();
                    return Err(match undone {
                        Ok(()) => failed.0,
                        Err(why) => failed.not_undone(why),
                    });
                }
            }
            journal.finish();
        }
    }
    undo::prune_undo(aide_core::time::now_ms());
    Ok(verified)
}

/// What the report takes besides the plan's own counts.
struct Reported {
    files: Vec<FileChange>,
    renames: Vec<crate::rename::RenameReport>,
    no_op: bool,
    wrote: bool,
    checksum_after: Option<String>,
    verified: Option<verify::Verified>,
}

/// The output: edits and operations applied and skipped (span edits and
/// tree operations count their replacements; others, themselves), the
/// files, the operations' reports, and how to undo it.
fn report(plan: &mut Plan, request: &TransformRequest, ctx: &Context, r: Reported) -> TransformOutput {
    let edits_applied: usize = plan.edit_counts.iter().filter(|(_, same)| !same).map(|(n, _)| n).sum();
    let edits_skipped: usize = plan.edit_counts.iter().filter(|(_, same)| *same).map(|(n, _)| n).sum();
    let ops = plan.reports.iter().filter(|r| !r.op.counts_replacements());
    let applied = edits_applied + ops.clone().filter(|r| r.status == OpStatus::Applied).count();
    let skipped = edits_skipped + ops.filter(|r| r.status != OpStatus::Applied).count();
    TransformOutput::Transform {
        applied,
        skipped,
        errors: Vec::new(),
        checksum_after: r.checksum_after,
        dry_run: request.dry_run,
        no_op: r.no_op,
        files: r.files,
        operations: std::mem::take(&mut plan.reports),
        renames: r.renames,
        refactors: std::mem::take(&mut plan.refactors),
        undo: r.wrote.then(|| {
            ctx.voice.call(
                crate::operations::UNDO,
                &[Given::positional("execution_ids", serde_json::json!([ctx.execution_id]))],
            )
        }),
        verified: r.verified,
    }
}

/// The operations that make one file's patch: its new content written
/// (guarded by the checksum of what it was made from), its move a rename,
/// an added file a write where none is, a deletion a delete of the content
/// the patch removes.
fn patch_operations(plan: &mut Plan, root: &Root, p: &patch::FilePatch) -> Result<Vec<Operation>, AideError> {
    let hunk_miss = |path: &str, m: patch::HunkMiss| -> AideError {
        TransformError::PatchHunk {
            path: path.to_string(),
            hunk: m.hunk,
            header: m.header,
            candidates: m.candidates,
            nearest: m.nearest,
        }
        .into()
    };
    match p {
        patch::FilePatch::Add { path, content, .. } => {
            if plan.file(root, path)?.current.is_some() {
                return Err(TransformError::PatchAddsExisting { path: path.clone() }.into());
            }
            Ok(vec![Operation::Write {
                path: path.clone(),
                content: content.clone(),
                create_dirs: true,
                checksum_before: None,
            }])
        }
        patch::FilePatch::Delete { path, hunks } => {
            let Some(bytes) = plan.file(root, path)?.current.clone() else {
                return Err(TransformError::PatchMissingFile { path: path.clone() }.into());
            };
            if !hunks.is_empty() && !patch::apply(&bytes, hunks).map_err(|m| hunk_miss(path, m))?.is_empty() {
                return Err(TransformError::PatchDeleteDiffers { path: path.clone() }.into());
            }
            Ok(vec![Operation::Delete {
                path: path.clone(),
                checksum_before: Some(sha256_hex(&bytes)),
                recursive: false,
                expected_tree_checksum: None,
                force: false,
            }])
        }
        patch::FilePatch::Update { path, move_to, hunks, .. } => {
            let Some(bytes) = plan.file(root, path)?.current.clone() else {
                return Err(TransformError::PatchMissingFile { path: path.clone() }.into());
            };
            if std::str::from_utf8(&bytes).is_err() {
                return Err(TransformError::PatchNotText { path: path.clone() }.into());
            }
            let sum = sha256_hex(&bytes);
            let new = patch::apply(&bytes, hunks).map_err(|m| hunk_miss(path, m))?;
            let mut ops = Vec::new();
            let target = match move_to {
                Some(to) => {
                    ops.push(Operation::Rename {
                        path: path.clone(),
                        to: to.clone(),
                        create_dirs: true,
                        checksum_before: Some(sum.clone()),
                    });
                    to
                }
                None => path,
            };
            if new != bytes {
                let content =
                    String::from_utf8(new).map_err(|_| TransformError::PatchNotText { path: path.clone() })?;
                ops.push(Operation::Write {
                    path: target.clone(),
                    content,
                    create_dirs: true,
                    checksum_before: Some(sum),
                });
            }
            Ok(ops)
        }
    }
}
