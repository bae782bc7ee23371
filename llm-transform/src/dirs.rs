//! Directory operations, planned as file changes: `mkdir`, `copy` of a file
//! or a whole tree, `rename` of a directory, `delete` of a tree. A tree's
//! files and links become the plan's file states (created, deleted), its
//! folders the plan's [`DirChanges`], so the one commit, journal, crash
//! recovery and undo of every transform serve them too.
//!
//! The last name of a path is not followed: a symbolic link named is the
//! link (as `mv` and `rm` see it); the folders above it are resolved inside
//! the root. Inside a tree nothing is followed: a link is copied, moved or
//! deleted as a link, so nothing outside the root is ever reached.

use std::path::{Path, PathBuf};

use aide_core::tree::{Depth, EntryKind, TreeEntry, TreeScan};
use aide_core::{AideError, Root};

use crate::disk::Stamp;
use crate::error::TransformError;
use crate::growth::Budget;
use crate::plan::{FileState, OpReport, OpStatus, Plan};
use crate::request::{OpName, Operation};

/// What stands at a path now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Missing,
    File,
    Link,
    Dir,
}

/// A path of a directory operation.
struct Place {
    /// Absolute, its folder resolved inside the root, its name as given.
    abs: PathBuf,
    /// Relative to the root.
    rel: PathBuf,
    /// As outputs show it.
    shown: String,
    what: What,
}

fn place(root: &Root, given: &str) -> Result<Place, AideError> {
    let named = root.unescaped(given).unwrap_or_else(|| PathBuf::from(given));
    let lexical = root.lexical(&named);
    let (Some(parent), Some(name)) =
        (lexical.as_deref().and_then(Path::parent), lexical.as_deref().and_then(Path::file_name))
    else {
        // The root itself, or a path whose letters leave it.
        return Err(match lexical {
            Some(_) => TransformError::NotAFilePath { path: given.to_string() }.into(),
            None => root
                .resolve(given)
                .err()
                .unwrap_or_else(|| TransformError::NotAFilePath { path: given.to_string() }.into()),
        });
    };
    let folder = if parent.as_os_str().is_empty() {
        root.path().to_path_buf()
    } else {
        root.resolve(&aide_core::root::to_slash(parent))?
    };
    let abs = folder.join(name);
    let rel = abs.strip_prefix(root.path()).map(Path::to_path_buf).unwrap_or_default();
    let what = match std::fs::symlink_metadata(&abs) {
        Ok(m) if m.file_type().is_symlink() => What::Link,
        Ok(m) if m.is_dir() => What::Dir,
        Ok(_) => What::File,
        Err(_) => What::Missing,
    };
    Ok(Place { shown: aide_core::root::to_slash(&rel), abs, rel, what })
}

/// The paths a directory operation will touch, for the transform's locks
/// (taken before planning): a tree's files and links, at the source and at
/// the destination. Empty for every other operation.
pub(crate) fn lock_paths(root: &Root, op: &Operation) -> Result<Vec<PathBuf>, AideError> {
    let (path, to) = match op {
        Operation::Delete { path, .. } => (path, None),
        Operation::Copy { path, to, .. } | Operation::Rename { path, to, .. } => (path, Some(to)),
        _ => return Ok(Vec::new()),
    };
    let from = place(root, path)?;
    if from.what == What::Link {
        let mut out = vec![from.abs.clone()];
        out.extend(to.map(|to| place(root, to)).transpose()?.map(|d| d.abs));
        return Ok(out);
    }
    if from.what != What::Dir {
        return Ok(Vec::new());
    }
    let tree = scan(root, &from, Depth::Names)?;
    let dest = to.map(|to| place(root, to)).transpose()?;
    let mut out = Vec::new();
    // A tree a copy replaces: its own files too.
    if let Some(dest) = dest.as_ref().filter(|d| d.what == What::Dir) {
        let replaced = scan(root, dest, Depth::Names)?;
        out.extend(
            replaced.entries.iter().filter(|e| !matches!(e.kind, EntryKind::Dir { .. })).map(|e| dest.abs.join(&e.rel)),
        );
    }
    for e in tree.entries.iter().filter(|e| !matches!(e.kind, EntryKind::Dir { .. })) {
        out.push(from.abs.join(&e.rel));
        if let Some(dest) = &dest {
            out.push(dest.abs.join(&e.rel));
        }
    }
    Ok(out)
}

fn scan(root: &Root, place: &Place, depth: Depth) -> Result<TreeScan, AideError> {
    aide_core::tree::scan(root, &place.rel, depth).map_err(|e| e.into_error(&place.shown))
}

/// Plans `op` if it is a directory operation (or a copy, which takes a file
/// too); false leaves it to the file planner.
pub(crate) fn operation(plan: &mut Plan, root: &Root, index: usize, op: &Operation) -> Result<bool, AideError> {
    match op {
        Operation::Mkdir { path } => mkdir(plan, root, index, path).map(|()| true),
        Operation::Delete { path, recursive, expected_tree_checksum, force, checksum_before } => {
            let at = place(root, path)?;
            if at.what == What::Link {
                return delete_link(plan, root, index, &at, checksum_before.as_deref()).map(|()| true);
            }
            if at.what != What::Dir {
                return Ok(false);
            }
            if !recursive {
                return Err(TransformError::DirectoryNotRecursive { path: at.shown }.into());
            }
            delete_tree(plan, root, index, &at, expected_tree_checksum.as_deref(), *force).map(|()| true)
        }
        Operation::Rename { path, to, .. } => {
            let from = place(root, path)?;
            let dest = place(root, to)?;
            match from.what {
                What::Dir => move_tree(plan, root, index, &from, &dest).map(|()| true),
                What::Link => move_link(plan, root, index, &from, &dest).map(|()| true),
                _ => Ok(false),
            }
        }
        Operation::Copy { path, to, overwrite, checksum_before, expected_tree_checksum } => {
            let from = place(root, path)?;
            let dest = place(root, to)?;
            match from.what {
                What::Dir if dest.what == What::Dir && *overwrite => {
                    // The tree there goes first, guarded by its tree
                    // checksum; the copy then takes its place.
                    let Some(replaced) = checksum_before.as_deref() else {
                        return Err(TransformError::OverwriteWithoutChecksum { path: dest.shown }.into());
                    };
                    if dest.rel.starts_with(&from.rel) || from.rel.starts_with(&dest.rel) {
                        return Err(TransformError::IntoItself { op: "copy", path: from.shown, to: dest.shown }.into());
                    }
                    delete_tree(plan, root, index, &dest, Some(replaced), false)?;
                    let gone = Place { what: What::Missing, ..dest };
                    copy_tree(plan, root, index, &from, &gone, expected_tree_checksum.as_deref())?;
                }
                What::Dir => copy_tree(plan, root, index, &from, &dest, expected_tree_checksum.as_deref())?,
                What::Missing => return Err(TransformError::Missing { path: from.shown }.into()),
                What::File | What::Link => {
                    copy_file(plan, root, index, (path, &from), (to, &dest), *overwrite, checksum_before.as_deref())?
                }
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// The plan's state of a tree entry (read by the scan), made the first time.
fn entry_state<'p>(plan: &'p mut Plan, abs: PathBuf, shown: String, entry: &TreeEntry) -> &'p mut FileState {
    plan.files.entry(abs.clone()).or_insert_with(|| {
        let bytes = entry.content.clone().unwrap_or_default();
        let mut state = FileState::found(abs, shown, bytes, Stamp::of(&entry.stat), entry.kind == EntryKind::Link);
        if let EntryKind::File { mode } = entry.kind {
            use std::os::unix::fs::PermissionsExt;
            state.permissions = Some(std::fs::Permissions::from_mode(mode));
        }
        state
    })
}

/// A new path of the plan: refused if something is planned there already.
fn new_state<'p>(
    plan: &'p mut Plan,
    abs: PathBuf,
    shown: String,
    op: &'static str,
    from: &str,
) -> Result<&'p mut FileState, AideError> {
    if plan.files.get(&abs).is_some_and(|f| f.current.is_some()) {
        return Err(TransformError::TargetExists { op, path: from.to_string(), to: shown }.into());
    }
    Ok(plan.files.entry(abs.clone()).or_insert_with(|| FileState::new(abs, shown, None, None)))
}

fn counted(tree: &TreeScan) -> String {
    let c = tree.counts();
    let n = |n: u64, noun: &str| format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
    format!("{}, {}, {}", n(c.files, "file"), n(c.links, "link"), n(c.dirs, "folder"))
}

fn report(plan: &mut Plan, index: usize, op: OpName, path: &str, status: OpStatus, note: String) {
    plan.reports.push(OpReport { index, op, path: path.to_string(), status, line: None, note: Some(note) });
}

/// The report of a tree copied or moved to `dest`.
fn report_tree(plan: &mut Plan, index: usize, op: OpName, from: &Place, dest: &Place, tree: &TreeScan) {
    let note = format!("directory to {}: {}", dest.shown, counted(tree));
    report(plan, index, op, &from.shown, OpStatus::Applied, note);
}

/// The plan's state of the symbolic link `at` itself (not what it points to).
fn link_state<'p>(plan: &'p mut Plan, root: &Root, at: &Place) -> Result<&'p mut FileState, AideError> {
    if !plan.files.contains_key(&at.abs) {
        let entry = crate::disk::read_entry(root, &at.abs, &at.shown)?
            .ok_or_else(|| AideError::from(TransformError::Missing { path: at.shown.clone() }))?;
        let state = FileState::found(at.abs.clone(), at.shown.clone(), entry.bytes, entry.stamp, entry.link);
        plan.files.insert(at.abs.clone(), state);
    }
    plan.files.get_mut(&at.abs).ok_or_else(|| AideError::internal("link state vanished"))
}

/// `delete` of a path that is a symbolic link removes the link, as `rm`
/// does, never the file it points to.
fn delete_link(
    plan: &mut Plan,
    root: &Root,
    index: usize,
    at: &Place,
    checksum_before: Option<&str>,
) -> Result<(), AideError> {
    let state = link_state(plan, root, at)?;
    if let (Some(expected), Some(now)) = (checksum_before, state.checksum_before())
        && !aide_core::checksum::names(expected, &now)
        && !state
            .original
            .as_deref()
            .is_some_and(|o| aide_core::checksum::names(expected, &aide_core::checksum::sha256_hex(o)))
    {
        return Err(TransformError::ChecksumMismatch {
            path: at.shown.clone(),
            expected: expected.to_string(),
            current: Some(now),
        }
        .into());
    }
    state.current = None;
    report(plan, index, OpName::Delete, &at.shown, OpStatus::Applied, "symbolic link".into());
    Ok(())
}

/// `rename` of a symbolic link moves the link, as `mv` does.
fn move_link(plan: &mut Plan, root: &Root, index: usize, from: &Place, dest: &Place) -> Result<(), AideError> {
    if dest.what != What::Missing {
        return Err(TransformError::RenameTargetExists { path: from.shown.clone(), to: dest.shown.clone() }.into());
    }
    let source = link_state(plan, root, from)?;
    let Some(target) = source.current.take() else {
        return Err(TransformError::Missing { path: from.shown.clone() }.into());
    };
    let moved = new_state(plan, dest.abs.clone(), dest.shown.clone(), "rename", &from.shown)?;
    moved.current = Some(target);
    moved.current_link = true;
    moved.renamed_from = Some(from.shown.clone());
    report(plan, index, OpName::Rename, &from.shown, OpStatus::Applied, format!("symbolic link to {}", dest.shown));
    Ok(())
}

fn mkdir(plan: &mut Plan, root: &Root, index: usize, path: &str) -> Result<(), AideError> {
    let at = place(root, path)?;
    let planned_file = plan.files.get(&at.abs).is_some_and(|f| f.current.is_some());
    match at.what {
        What::Dir if !plan.dirs.remove.contains_key(&at.rel) => {
            report(plan, index, OpName::Mkdir, &at.shown, OpStatus::NoOp, "exists".into());
            return Ok(());
        }
        What::File | What::Link => return Err(TransformError::NotADirectory { path: at.shown }.into()),
        _ if planned_file => return Err(TransformError::NotADirectory { path: at.shown }.into()),
        _ => {}
    }
    // A folder a delete of this request empties stays, empty.
    if plan.dirs.remove.remove(&at.rel).is_none() {
        plan.dirs.make.insert(at.rel.clone(), None);
    }
    report(plan, index, OpName::Mkdir, &at.shown, OpStatus::Applied, "directory".into());
    Ok(())
}

fn delete_tree(
    plan: &mut Plan,
    root: &Root,
    index: usize,
    at: &Place,
    expected: Option<&str>,
    force: bool,
) -> Result<(), AideError> {
    let tree = scan(root, at, Depth::Bytes)?;
    let current = checked_tree(at, &tree, expected)?;
    if expected.is_none() && !force {
        return Err(TransformError::TreeUnguarded { path: at.shown.clone(), current }.into());
    }
    for e in &tree.entries {
        let rel = at.rel.join(&e.rel);
        match e.kind {
            EntryKind::Dir { mode } => {
                plan.dirs.remove.insert(rel, mode);
            }
            _ => {
                entry_state(plan, at.abs.join(&e.rel), aide_core::root::to_slash(&rel), e).current = None;
            }
        }
    }
    plan.dirs.remove.insert(at.rel.clone(), tree.mode);
    report(plan, index, OpName::Delete, &at.shown, OpStatus::Applied, format!("directory: {}", counted(&tree)));
    Ok(())
}

/// The tree checksum of `tree` (the folder `at`), refused when it is not
/// the `expected` one given.
fn checked_tree(at: &Place, tree: &TreeScan, expected: Option<&str>) -> Result<String, AideError> {
    let current = tree.checksum();
    match expected {
        Some(e) if !aide_core::checksum::names(e, &current) => {
            Err(TransformError::TreeChecksumMismatch { path: at.shown.clone(), expected: e.to_string(), current }
                .into())
        }
        _ => Ok(current),
    }
}

/// Refuses a destination that exists, or lies inside the source.
fn check_destination(op: &'static str, from: &Place, dest: &Place) -> Result<(), AideError> {
    if dest.what != What::Missing {
        return Err(TransformError::TargetExists { op, path: from.shown.clone(), to: dest.shown.clone() }.into());
    }
    if dest.rel.starts_with(&from.rel) {
        return Err(TransformError::IntoItself { op, path: from.shown.clone(), to: dest.shown.clone() }.into());
    }
    Ok(())
}

fn move_tree(plan: &mut Plan, root: &Root, index: usize, from: &Place, dest: &Place) -> Result<(), AideError> {
    check_destination("rename", from, dest)?;
    let tree = scan(root, from, Depth::Bytes)?;
    plan.dirs.make.insert(dest.rel.clone(), Some(tree.mode));
    for e in &tree.entries {
        let (old, new) = (from.rel.join(&e.rel), dest.rel.join(&e.rel));
        if let EntryKind::Dir { mode } = e.kind {
            plan.dirs.remove.insert(old, mode);
            plan.dirs.make.insert(new, Some(mode));
            continue;
        }
        let source = entry_state(plan, from.abs.join(&e.rel), aide_core::root::to_slash(&old), e);
        // Deleted by an earlier operation of the request: nothing to move.
        let Some(bytes) = source.current.take() else { continue };
        let (link, permissions, shown) = (source.current_link, source.permissions.clone(), source.rel.clone());
        let target = new_state(plan, dest.abs.join(&e.rel), aide_core::root::to_slash(&new), "rename", &from.shown)?;
        target.carried = Some(aide_core::checksum::sha256_hex(&bytes));
        target.current = Some(bytes);
        target.current_link = link;
        target.permissions = permissions;
        target.renamed_from = Some(shown);
    }
    plan.dirs.remove.insert(from.rel.clone(), tree.mode);
    report_tree(plan, index, OpName::Rename, from, dest, &tree);
    Ok(())
}

fn copy_tree(
    plan: &mut Plan,
    root: &Root,
    index: usize,
    from: &Place,
    dest: &Place,
    expected: Option<&str>,
) -> Result<(), AideError> {
    check_destination("copy", from, dest)?;
    let tree = scan(root, from, Depth::Bytes)?;
    checked_tree(from, &tree, expected)?;
    // What the copy reads and adds, before any of it is made.
    let copied: usize = tree
        .entries
        .iter()
        .filter(|e| !matches!(e.kind, EntryKind::Dir { .. }))
        .map(|e| match plan.files.get(&from.abs.join(&e.rel)) {
            Some(earlier) => earlier.current.as_ref().map_or(0, Vec::len),
            None => e.content.as_ref().map_or(0, Vec::len),
        })
        .sum();
    plan.budget.read(copied);
    plan.budget.take(&dest.shown, Budget::change(0, copied))?;
    plan.dirs.make.insert(dest.rel.clone(), Some(tree.mode));
    // A folder a delete of this request removes and this copy makes stays.
    plan.dirs.remove.remove(&dest.rel);
    for e in &tree.entries {
        let new = dest.rel.join(&e.rel);
        if let EntryKind::Dir { mode } = e.kind {
            plan.dirs.remove.remove(&new);
            plan.dirs.make.insert(new, Some(mode));
            continue;
        }
        // What an earlier operation of the request left, else what is on disk.
        let (bytes, link, permissions) = match plan.files.get(&from.abs.join(&e.rel)) {
            Some(earlier) => match &earlier.current {
                Some(bytes) => (bytes.clone(), earlier.current_link, earlier.permissions.clone()),
                None => continue,
            },
            None => {
                use std::os::unix::fs::PermissionsExt;
                let mode = match e.kind {
                    EntryKind::File { mode } => Some(std::fs::Permissions::from_mode(mode)),
                    _ => None,
                };
                (e.content.clone().unwrap_or_default(), e.kind == EntryKind::Link, mode)
            }
        };
        let target = new_state(plan, dest.abs.join(&e.rel), aide_core::root::to_slash(&new), "copy", &from.shown)?;
        target.carried = Some(aide_core::checksum::sha256_hex(&bytes));
        target.current = Some(bytes);
        target.current_link = link;
        target.permissions = permissions;
    }
    report_tree(plan, index, OpName::Copy, from, dest, &tree);
    Ok(())
}

/// A file (or a link, as a link) copied to `to`: a new file, or with
/// `overwrite` the file there, guarded by its checksum.
fn copy_file(
    plan: &mut Plan,
    root: &Root,
    index: usize,
    (path, from): (&str, &Place),
    (to, dest): (&str, &Place),
    overwrite: bool,
    checksum_before: Option<&str>,
) -> Result<(), AideError> {
    let (bytes, link, permissions) = if from.what == What::Link {
        let entry = crate::disk::read_entry(root, &from.abs, &from.shown)?
            .ok_or_else(|| AideError::from(TransformError::Missing { path: from.shown.clone() }))?;
        (entry.bytes, true, None)
    } else {
        let source = plan.file(root, path)?;
        let Some(len) = source.current.as_ref().map(Vec::len) else {
            return Err(TransformError::Missing { path: source.rel.clone() }.into());
        };
        // Read and added, before the copy is made.
        plan.budget.read(len);
        plan.budget.take(&dest.shown, Budget::change(0, len))?;
        let source = plan.file(root, path)?;
        (source.current.clone().unwrap_or_default(), false, source.permissions.clone())
    };
    if matches!(dest.what, What::Dir | What::Link) {
        return Err(
            TransformError::TargetExists { op: "copy", path: from.shown.clone(), to: dest.shown.clone() }.into()
        );
    }
    let target = if dest.what == What::Missing {
        new_state(plan, dest.abs.clone(), dest.shown.clone(), "copy", &from.shown)?
    } else {
        plan.file(root, to)?
    };
    if let Some(now) = target.current.as_deref() {
        if !overwrite {
            return Err(
                TransformError::TargetExists { op: "copy", path: from.shown.clone(), to: target.rel.clone() }.into()
            );
        }
        if checksum_before.is_none() {
            return Err(TransformError::OverwriteWithoutChecksum { path: target.rel.clone() }.into());
        }
        crate::plan::check_sum(&target.rel, checksum_before, now)?;
    }
    let unchanged = target.current.as_deref() == Some(&bytes[..]) && target.current_link == link;
    target.carried = Some(aide_core::checksum::sha256_hex(&bytes));
    target.current = Some(bytes);
    target.current_link = link;
    target.replaced_whole = true;
    // A new file has the source's mode; one overwritten keeps its own, as with cp.
    if dest.what == What::Missing {
        target.permissions = permissions;
    }
    let shown = target.rel.clone();
    report(
        plan,
        index,
        OpName::Copy,
        &from.shown,
        if unchanged { OpStatus::NoOp } else { OpStatus::Applied },
        format!("to {shown}"),
    );
    Ok(())
}
