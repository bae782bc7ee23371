//! Applying a request in memory: every check happens here, before any file
//! is touched.

use std::collections::BTreeMap;
use std::path::PathBuf;

use aide_core::checksum::sha256_hex;
use aide_core::{AideError, LineIndex, Root};

use crate::disk::entry_checksum;
use crate::error::TransformError;
use crate::growth::Budget;
use crate::request::{OpName, Operation, SpanEdit};

use crate::rename::RenameReport;
use crate::scan::Edit;
use crate::sites::Applied;
use crate::text::apply_span_edits_tracked;
use crate::tree::Prepared;
use aide_core::tool::Context;
use block::block;
use old_text::{TextPatch, patch};
use target::symbol_range;

mod block;
mod old_text;
mod server_edit;
mod target;

/// A file as the plan sees it: what is on disk now and what it will be.
#[derive(Debug, Clone)]
pub struct FileState {
    pub abs: PathBuf,
    pub rel: String,
    /// None: the file does not exist (yet).
    pub original: Option<Vec<u8>>,
    pub current: Option<Vec<u8>>,
    /// Permissions to give the file when it is written (a renamed file keeps its own).
    pub permissions: Option<std::fs::Permissions>,
    /// The file's identity when the plan read it (None: it did not exist).
    pub stamp: Option<crate::disk::Stamp>,
    pub rustfmt: bool,
    pub cargo_check: bool,
    pub renamed_from: Option<String>,
    /// Where the content changed, kept through every operation.
    pub regions: crate::sites::Regions,
    /// The content was replaced whole (`write`): its sites come from a line diff.
    pub replaced_whole: bool,
    /// What the first operation that changed the file found out for the
    /// syntax guard (the tree of `original`, or its verdict).
    pub known_syntax: Option<crate::tree::KnownSyntax>,
    /// `original` is a symbolic link's target, not a file's bytes (a link
    /// inside a directory deleted, renamed or copied).
    pub original_link: bool,
    /// `current` is a link's target: the path becomes a symbolic link.
    pub current_link: bool,
    /// The checksum of the content a copy or a move put here unchanged
    /// from elsewhere in the tree: it adds no syntax error of its own.
    pub carried: Option<String>,
}

impl FileState {
    /// A file as read (`original`, None if absent) with nothing planned
    /// for it yet: the plan's first look, or undo's (which plans to put
    /// back the content the transform replaced).
    pub fn new(abs: PathBuf, rel: String, original: Option<Vec<u8>>, stamp: Option<crate::disk::Stamp>) -> FileState {
        FileState {
            abs,
            rel,
            original,
            current: None,
            permissions: None,
            stamp,
            rustfmt: false,
            cargo_check: false,
            renamed_from: None,
            regions: Default::default(),
            replaced_whole: false,
            known_syntax: None,
            original_link: false,
            current_link: false,
            carried: None,
        }
    }

    /// A path as it is on disk with nothing planned for it yet: a file's
    /// bytes, or a link's target (`link`), with its stamp.
    pub fn found(abs: PathBuf, rel: String, bytes: Vec<u8>, stamp: crate::disk::Stamp, link: bool) -> FileState {
        let mut state = FileState::new(abs, rel, Some(bytes), Some(stamp));
        state.current = state.original.clone();
        state.original_link = link;
        state.current_link = link;
        state
    }

    /// Whether the syntax guard judges the file: changed, a file (not a
    /// link), and not the unchanged copy of another file of the tree.
    pub fn judged_for_syntax(&self) -> bool {
        self.is_changed()
            && !self.current_link
            && !(self.carried.is_some() && self.current.as_deref().map(sha256_hex) == self.carried)
    }

    /// Whether the plan changes the path: its content, or file to link.
    pub fn is_changed(&self) -> bool {
        self.current != self.original
            || (self.current.is_some() && self.current_link != self.original_link)
            || self.mode_changed()
    }

    /// Whether the plan gives the file another mode (a patch's `new mode`),
    /// its content the same or not.
    pub fn mode_changed(&self) -> bool {
        use std::os::unix::fs::PermissionsExt;
        match (&self.permissions, self.stamp, &self.current) {
            (Some(p), Some(stamp), Some(_)) if !self.original_link => p.mode() & 0o7777 != stamp.mode & 0o7777,
            _ => false,
        }
    }

    /// The checksum of what is at the path before (a link's is its
    /// target's, `link:`-prefixed, as in a tree checksum).
    pub fn checksum_before(&self) -> Option<String> {
        self.original.as_deref().map(|b| entry_checksum(b, self.original_link))
    }

    /// The checksum of what the plan leaves at the path.
    pub fn checksum_after(&self) -> Option<String> {
        self.current.as_deref().map(|b| entry_checksum(b, self.current_link))
    }
}

/// Folders a plan makes and removes besides its files' own parents:
/// relative to the root, each with its mode (None: the default, 0777 less
/// the umask).
#[derive(Debug, Clone, Default)]
pub(crate) struct DirChanges {
    /// Made before any file is staged, parents first.
    pub make: BTreeMap<PathBuf, Option<u32>>,
    /// Removed after every file is in place, deepest first (each must be
    /// empty by then); the mode is kept for undo.
    pub remove: BTreeMap<PathBuf, u32>,
}

impl DirChanges {
    pub(crate) fn is_empty(&self) -> bool {
        self.make.is_empty() && self.remove.is_empty()
    }
}

/// What one operation did.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct OpReport {
    pub index: usize,
    pub op: OpName,
    pub path: String,
    pub status: OpStatus,
    /// Line of the target (1-based) where there is one.
    pub line: Option<usize>,
    /// How the target was found, when that is worth knowing (`fuzzy`, `replace_all: 3 matches`).
    pub note: Option<String>,
}

/// Whether an operation changed its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OpStatus {
    Applied,
    /// The file already had the result.
    NoOp,
}

impl OpStatus {
    fn of(unchanged: bool) -> OpStatus {
        if unchanged { OpStatus::NoOp } else { OpStatus::Applied }
    }
}

/// All files a request touches, keyed by absolute path.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub files: BTreeMap<PathBuf, FileState>,
    /// Folders made and removed (directory operations).
    pub dirs: DirChanges,
    pub reports: Vec<OpReport>,
    /// Per file with span edits: how many, and whether they changed nothing.
    pub edit_counts: Vec<(usize, bool)>,
    /// What planning noticed (a rename's language server absent or failing).
    pub diagnostics: Vec<aide_core::Diagnostic>,
    /// What each refactor applied.
    pub refactors: Vec<crate::refactor::RefactorReport>,
    /// Paths as given → resolved inside the root (resolving touches the disk).
    resolved: std::collections::HashMap<String, PathBuf>,
    /// The file the block operations outlined last.
    outlines: target::OutlineCache,
    /// What the operations may still add to the files ([`crate::growth`]).
    pub budget: Budget,
}

fn mismatch(rel: &str, expected: &str, actual: Option<&[u8]>) -> AideError {
    TransformError::ChecksumMismatch {
        path: rel.to_string(),
        expected: expected.to_string(),
        current: actual.map(sha256_hex),
    }
    .into()
}

impl Plan {
    /// The state of `rel`, read from disk the first time.
    /// `rel` resolved inside the root, once per distinct path.
    pub(crate) fn resolve(&mut self, root: &Root, rel: &str) -> Result<PathBuf, AideError> {
        if let Some(abs) = self.resolved.get(rel) {
            return Ok(abs.clone());
        }
        if rel.ends_with('/') {
            return Err(TransformError::TrailingSlash { path: rel.to_string() }.into());
        }
        let abs = root.resolve(rel)?;
        self.resolved.insert(rel.to_string(), abs.clone());
        Ok(abs)
    }

    pub(crate) fn file(&mut self, root: &Root, rel: &str) -> Result<&mut FileState, AideError> {
        let abs = self.resolve(root, rel)?;
        if !self.files.contains_key(&abs) {
            // Read beneath the root, never through a symlink swapped in
            // since the path was resolved, never a FIFO or device.
            let (original, permissions, stamp) = match crate::disk::read_state(root, &abs, rel)? {
                Some((bytes, stamp)) => {
                    use std::os::unix::fs::PermissionsExt;
                    (Some(bytes), Some(std::fs::Permissions::from_mode(stamp.mode & 0o7777)), Some(stamp))
                }
                None => (None, None, None),
            };
            let shown = root.relative(&abs).unwrap_or_else(|| rel.to_string());
            self.budget.read(original.as_ref().map_or(0, Vec::len));
            let mut state = FileState::new(abs.clone(), shown, original.clone(), stamp);
            state.current = original;
            state.permissions = permissions;
            self.files.insert(abs.clone(), state);
        }
        self.files.get_mut(&abs).ok_or_else(|| AideError::internal("file state vanished"))
    }

    /// Applies the span edits: all against the files' content before any
    /// operation, each file's batch in reverse byte order.
    pub(crate) fn span_edits(
        &mut self,
        root: &Root,
        edits: &[SpanEdit],
        default_file: Option<&str>,
    ) -> Result<(), AideError> {
        let mut by_file: BTreeMap<String, Vec<(usize, &SpanEdit)>> = BTreeMap::new();
        for (i, e) in edits.iter().enumerate() {
            let Some(path) = e.path.as_deref().or(default_file) else {
                return Err(TransformError::EditWithoutPath { index: i }.into());
            };
            by_file.entry(path.to_string()).or_default().push((i, e));
        }
        for (path, edits) in by_file {
            let file = self.file(root, &path)?;
            let rel = file.rel.clone();
            let Some(bytes) = file.current.clone() else {
                return Err(TransformError::SpanTargetMissing { path: rel }.into());
            };
            // Hashed once per file, not once per edit: 100,000 edits of one
            // file must not hash it 100,000 times.
            let actual = sha256_hex(&bytes);
            for (i, e) in &edits {
                let Some(expected) = e.checksum_before.as_deref() else {
                    return Err(TransformError::EditWithoutChecksum { index: *i }.into());
                };
                if !aide_core::checksum::names(expected, &actual) {
                    return Err(mismatch(&rel, expected, Some(&bytes)));
                }
            }
            let spans: Vec<(usize, usize, &[u8])> =
                edits.iter().map(|(_, e)| (e.byte_start, e.byte_end, e.replacement.as_bytes())).collect();
            self.budget.take(&rel, added_by(&spans))?;
            let (new, tracked) = apply_span_edits_tracked(&bytes, &spans).map_err(|reason| {
                TransformError::InvalidSpan { path: rel.clone(), reason, current: actual.clone(), size: bytes.len() }
            })?;
            let unchanged = new == bytes;
            let file = self.file(root, &path)?;
            file.current = Some(new);
            file.regions.apply(&tracked);
            // One report per file: a request of 10,000 span edits need not echo them.
            let first = edits.iter().map(|(i, _)| *i).min().unwrap_or(0);
            let lowest = edits.iter().map(|(_, e)| e.byte_start).min().unwrap_or(0);
            self.edit_counts.push((edits.len(), unchanged));
            self.reports.push(OpReport {
                index: first,
                op: OpName::Edits,
                path: rel.clone(),
                status: OpStatus::of(unchanged),
                line: Some(LineIndex::new(&bytes).line_of(lowest.min(bytes.len()))),
                note: Some(format!("{} span edit{}", edits.len(), if edits.len() == 1 { "" } else { "s" })),
            });
        }
        Ok(())
    }

    /// Applies one operation to the current contents.
    pub(crate) fn operation(&mut self, root: &Root, index: usize, op: &Operation) -> Result<(), AideError> {
        let Some(path) = op.path().map(str::to_string) else {
            return Err(AideError::internal("a tree operation reached the one-file planner"));
        };
        let mut tracked: Option<Applied> = None;
        let (line, note, before, after) = match op {
            Operation::Patch { old_text, new_text, replace_all, fuzzy, checksum_before, within, .. } => {
                let file = self.file(root, &path)?;
                let rel = file.rel.clone();
                let bytes = existing(file)?;
                check_sum(&rel, checksum_before.as_deref(), &bytes)?;
                let inside = match within.as_deref() {
                    Some(name_path) => Some(symbol_range(&rel, &bytes, name_path, &mut self.outlines)?),
                    None => None,
                };
                let wanted = TextPatch { old_text, new_text, replace_all: *replace_all, fuzzy: *fuzzy };
                let (new, edits, line, note) = patch(&rel, &bytes, &wanted, inside.as_ref(), &self.budget)?;
                tracked = Some(edits);
                (Some(line), note, Some(bytes), Some(new))
            }
            Operation::ReplaceBlock(target)
            | Operation::InsertAfterBlock(target)
            | Operation::InsertBeforeBlock(target)
            | Operation::ReplaceSignature(target) => {
                let (bytes, new, edits, line) = self.block_operation(root, index, op, target, &path)?;
                tracked = Some(edits);
                (Some(line), None, Some(bytes), Some(new))
            }
            Operation::Write { content, create_dirs, checksum_before, .. } => {
                let file = self.file(root, &path)?;
                let rel = file.rel.clone();
                let before = file.current.clone();
                if let (Some(expected), Some(now)) = (checksum_before.as_deref(), before.as_deref()) {
                    check_sum(&rel, Some(expected), now)?;
                }
                if before.is_some() && checksum_before.is_none() {
                    return Err(TransformError::OverwriteWithoutChecksum { path: rel }.into());
                }
                ensure_parent(&file.abs, &rel, *create_dirs)?;
                file.replaced_whole = true;
                (None, None, before, Some(content.clone().into_bytes()))
            }
            Operation::Delete { checksum_before, .. } => {
                let file = self.file(root, &path)?;
                let rel = file.rel.clone();
                let bytes = existing(file)?;
                check_sum(&rel, checksum_before.as_deref(), &bytes)?;
                (None, None, Some(bytes), None)
            }
            Operation::ReplaceRegex(_)
            | Operation::ReplaceMatches(_)
            | Operation::Rewrite(_)
            | Operation::RenameSymbol(_)
            | Operation::Refactor(_) => {
                return Err(AideError::internal("a tree operation reached the one-file planner"));
            }
            Operation::Mkdir { .. } | Operation::Copy { .. } => {
                return Err(AideError::internal("a directory operation reached the file planner"));
            }
            Operation::InsertLines { .. } | Operation::ReplaceLines { .. } | Operation::ApplyPatch { .. } => {
                return Err(AideError::internal("a line edit reached the operation planner: it is a span edit"));
            }
            Operation::Rename { to, create_dirs, checksum_before, .. } => {
                return self.rename_file(root, index, op, (&path, to), *create_dirs, checksum_before.as_deref());
            }
        };
        let unchanged = before == after;
        let size = |content: &Option<Vec<u8>>| content.as_ref().map_or(0, Vec::len);
        self.budget.take(&path, Budget::change(size(&before), size(&after)))?;
        let file = self.file(root, &path)?;
        file.current = after;
        if let Some(edits) = tracked {
            file.regions.apply(&edits);
        }
        let rel = file.rel.clone();
        self.reports.push(OpReport { index, op: op.name(), path: rel, status: OpStatus::of(unchanged), line, note });
        Ok(())
    }

    /// A block operation on `path`: the file's bytes before and after, the
    /// edit's span, and the block's line.
    fn block_operation(
        &mut self,
        root: &Root,
        index: usize,
        op: &Operation,
        target: &crate::request::BlockOp,
        path: &str,
    ) -> Result<(Vec<u8>, Vec<u8>, Applied, usize), AideError> {
        let (field, text) = match op {
            Operation::ReplaceBlock(_) | Operation::ReplaceSignature(_) => ("new_block", target.new_block.as_deref()),
            _ => ("snippet", target.snippet.as_deref()),
        };
        let Some(text) = text else {
            return Err(TransformError::OperationField { index, op: op.name(), field }.into());
        };
        let file = self.file(root, path)?;
        file.rustfmt |= target.run_rustfmt;
        file.cargo_check |= target.run_cargo_check;
        let rel = file.rel.clone();
        let bytes = existing(file)?;
        let (new, edits, line) = block(&rel, &bytes, op, target, text, &mut self.outlines)?;
        Ok((bytes, new, edits, line))
    }

    /// A file moved from `from` to `to` (which must not exist), its content
    /// and mode carried.
    fn rename_file(
        &mut self,
        root: &Root,
        index: usize,
        op: &Operation,
        (from, to): (&str, &str),
        create_dirs: bool,
        checksum_before: Option<&str>,
    ) -> Result<(), AideError> {
        let file = self.file(root, from)?;
        let rel = file.rel.clone();
        let bytes = existing(file)?;
        check_sum(&rel, checksum_before, &bytes)?;
        let permissions = file.permissions.clone();
        file.current = None;
        let dest = self.file(root, to)?;
        if dest.current.is_some() {
            return Err(TransformError::RenameTargetExists { path: rel, to: dest.rel.clone() }.into());
        }
        ensure_parent(&dest.abs, &dest.rel, create_dirs)?;
        dest.carried = Some(sha256_hex(&bytes));
        dest.current = Some(bytes);
        dest.permissions = permissions;
        dest.renamed_from = Some(rel.clone());
        self.reports.push(OpReport {
            index,
            op: op.name(),
            path: rel,
            status: OpStatus::Applied,
            line: None,
            note: Some(format!("to {to}")),
        });
        Ok(())
    }

    /// Applies a tree operation to the files its candidates step found:
    /// one report per file changed, the replacements counted as span edits.
    /// A rename returns its report.
    pub(crate) fn tree_operation(
        &mut self,
        root: &Root,
        index: usize,
        op: &Operation,
        prepared: &Prepared,
        files: &[String],
        ctx: &Context,
    ) -> Result<Option<RenameReport>, AideError> {
        if let Prepared::Refactor(refactor) = prepared {
            return self.refactor(root, index, op, refactor).map(|()| None);
        }
        if let Prepared::Rename(rename) = prepared {
            let mut contents = Vec::with_capacity(files.len());
            for rel in files {
                ctx.check_cancel()?;
                if let Some(bytes) = self.file(root, rel)?.current.clone() {
                    contents.push((rel.clone(), bytes));
                }
            }
            let planned = rename.plan(root, &contents)?;
            self.diagnostics.extend(planned.diagnostics);
            for (rel, edits) in planned.edits {
                self.apply_edits(root, index, op.name(), &rel, edits)?;
            }
            self.forget_untouched(root, files)?;
            return Ok(Some(planned.report));
        }
        let mut total = 0usize;
        for rel in files {
            ctx.check_cancel()?;
            let file = self.file(root, rel)?;
            let Some(bytes) = file.current.clone() else { continue };
            let shown = file.rel.clone();
            let (edits, tree) = prepared.edits_in(rel, &bytes, &self.budget).map_err(|e| with_path(e, &shown))?;
            if edits.is_empty() {
                continue;
            }
            let file = self.file(root, rel)?;
            if file.current == file.original && file.known_syntax.is_none() {
                file.known_syntax = tree;
            }
            total += edits.len();
            self.apply_edits(root, index, op.name(), rel, edits)?;
        }
        if let Some(max) = prepared.max_replacements()
            && total > max
        {
            return Err(TransformError::TooManyReplacements { index, op: op.name(), count: total, max }.into());
        }
        self.forget_untouched(root, files)?;
        Ok(None)
    }

    /// Applies `edits` to `rel`'s current content and reports them as one
    /// entry of operation `index`.
    fn apply_edits(
        &mut self,
        root: &Root,
        index: usize,
        op: OpName,
        rel: &str,
        edits: Vec<Edit>,
    ) -> Result<(), AideError> {
        let file = self.file(root, rel)?;
        let rel = file.rel.clone();
        let bytes = existing(file)?;
        let spans: Vec<(usize, usize, &[u8])> = edits.iter().map(|e| (e.start, e.end, e.text.as_slice())).collect();
        self.budget.take(&rel, added_by(&spans))?;
        let (new, tracked) = apply_span_edits_tracked(&bytes, &spans).map_err(|reason| {
            TransformError::InvalidSpan { path: rel.clone(), reason, current: sha256_hex(&bytes), size: bytes.len() }
        })?;
        let unchanged = new == bytes;
        let first = edits.iter().map(|e| e.start).min().unwrap_or(0).min(bytes.len());
        let line = 1 + memchr::memchr_iter(b'\n', &bytes[..first]).count();
        let file = self.file(root, &rel)?;
        file.current = Some(new);
        file.regions.apply(&tracked);
        let n = edits.len();
        self.edit_counts.push((n, unchanged));
        self.reports.push(OpReport {
            index,
            op,
            path: rel,
            status: OpStatus::of(unchanged),
            line: Some(line),
            note: Some(format!("{n} replacement{}", if n == 1 { "" } else { "s" })),
        });
        Ok(())
    }

    /// Drops the files a tree operation read but did not change, unless
    /// something else of the request changed them: the result lists the
    /// files a request touched, not every file it looked at.
    fn forget_untouched(&mut self, root: &Root, files: &[String]) -> Result<(), AideError> {
        let resolved: Vec<PathBuf> = files.iter().map(|rel| self.resolve(root, rel)).collect::<Result<_, _>>()?;
        let reported: std::collections::HashSet<&str> = self.reports.iter().map(|r| r.path.as_str()).collect();
        let forget: Vec<PathBuf> = resolved
            .into_iter()
            .filter(|abs| {
                self.files.get(abs).is_some_and(|f| {
                    f.current == f.original && f.renamed_from.is_none() && !reported.contains(f.rel.as_str())
                })
            })
            .collect();
        for abs in forget {
            self.files.remove(&abs);
        }
        Ok(())
    }
}

/// An error about a file whose details lack its path gets it.
fn with_path(mut e: AideError, path: &str) -> AideError {
    if let Some(details) = e.details.as_deref_mut()
        && let Some(map) = details.as_object_mut()
    {
        map.entry("path").or_insert_with(|| serde_json::Value::String(path.to_string()));
    }
    e
}

/// What replacing each span by its text adds to a file (spans as given,
/// checked when they are applied).
fn added_by(spans: &[(usize, usize, &[u8])]) -> i128 {
    spans.iter().map(|(s, e, text)| Budget::change(e.saturating_sub(*s), text.len())).sum()
}

fn existing(file: &FileState) -> Result<Vec<u8>, AideError> {
    file.current.clone().ok_or_else(|| TransformError::Missing { path: file.rel.clone() }.into())
}

pub(crate) fn check_sum(rel: &str, expected: Option<&str>, bytes: &[u8]) -> Result<(), AideError> {
    match expected {
        Some(e) if !aide_core::checksum::names(e, &sha256_hex(bytes)) => Err(mismatch(rel, e, Some(bytes))),
        _ => Ok(()),
    }
}

fn ensure_parent(abs: &std::path::Path, rel: &str, create_dirs: bool) -> Result<(), AideError> {
    match abs.parent() {
        Some(p) if !p.is_dir() && !create_dirs => Err(TransformError::FolderMissing { path: rel.to_string() }.into()),
        _ => Ok(()),
    }
}
