//! Undo: every applied transform keeps its files' pre-images
//! ([`crate::undo_store`]), for 30 days and the newest 1,000 transforms. Undo acts
//! only on the root it is run in: `--last N` counts that root's transforms
//! (not the undos, each a transform of its own: `--last 1` again steps
//! further back),
//! and a transform of another root needs that root. A pre-image over
//! [`UNDO_MAX_PRE_IMAGE_BYTES`] (or `AIDE_UNDO_MAX_BYTES`) is not kept (an `undo_not_kept`
//! diagnostic says so at the transform); undoing such a transform is
//! refused rather than half done.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use aide_core::envelope::Diagnostic;
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::Serialize;

use crate::commit::commit;
use crate::disk::{Entry, lock_all, read_entry};
use crate::error::{ChangedFile, TransformError};
use crate::plan::{DirChanges, FileState};
use crate::undo_store::{PRE_IMAGES, write_manifest};
pub(crate) use crate::undo_store::{PreImage, load_manifest, prune_undo, recent};

/// What undo did to one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Restored {
    pub path: String,
    pub action: RestoreAction,
    pub checksum: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestoreAction {
    /// The file has its content from before the transform again.
    Restored,
    /// The transform had deleted it: it is back.
    Recreated,
    /// The transform had created it: it is gone.
    Removed,
}

impl RestoreAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RestoreAction::Restored => "restored",
            RestoreAction::Recreated => "recreated",
            RestoreAction::Removed => "removed",
        }
    }
}

/// Records that `by` undid the transform of `manifest` (in `dir`), and in
/// `by`'s own record (none when it wrote nothing) which transform it undid.
fn mark_undone(
    dir: &std::path::Path,
    manifest: &mut crate::undo_store::UndoManifest,
    by: &str,
) -> Result<(), AideError> {
    manifest.undone_by = Some(by.to_string());
    write_manifest(dir, manifest)?;
    if let Ok((undo_dir, mut record)) = load_manifest(by) {
        record.undoes = Some(manifest.execution_id.clone());
        write_manifest(&undo_dir, &record)?;
    }
    Ok(())
}

/// Undoes transform `execution_id`, whose check failed or never finished,
/// under an id of its own. The rollback is not kept as a transform to undo:
/// that would put back the edit that failed.
pub(crate) fn roll_back(root: &Root, execution_id: &str) -> Result<(), AideError> {
    let rollback = aide_core::ids::new_execution_id();
    undo(root, execution_id, &rollback)?;
    if let Ok((dir, _)) = load_manifest(&rollback) {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// Restores the files of transform `execution_id`, if it was made under
/// `root` and every file still has the checksum the transform left.
pub(crate) fn undo(root: &Root, execution_id: &str, by: &str) -> Result<(Vec<Restored>, Vec<Diagnostic>), AideError> {
    let (dir, mut manifest) = load_manifest(execution_id)?;
    if !manifest.belongs_to(root) {
        let theirs = manifest.root.as_ref().map_or_else(|| "another root".to_string(), |r| r.display().to_string());
        return Err(TransformError::OtherRoot { id: manifest.execution_id, root: theirs }.into());
    }
    if let Some(other) = &manifest.undone_by {
        return Err(TransformError::AlreadyUndone { id: manifest.execution_id.clone(), by: other.clone() }.into());
    }
    if let Some(big) = manifest.files.iter().find(|f| f.not_kept) {
        return Err(TransformError::PreImageNotKept { id: manifest.execution_id.clone(), path: big.rel.clone() }.into());
    }
    let _locks = lock_all(manifest.files.iter().map(|f| f.abs.as_path()))?;
    // Each file as it is now: checked against what the transform left, then
    // the "before" of the undo itself.
    let current: Vec<_> = manifest.files.iter().map(|f| read_entry(root, &f.abs, &f.rel)).collect::<Result<_, _>>()?;
    let mut changed = Vec::new();
    for (f, now) in manifest.files.iter().zip(&current) {
        let now = now.as_ref().map(Entry::checksum);
        if now != f.checksum_after {
            changed.push(ChangedFile { path: f.rel.clone(), expected: f.checksum_after.clone(), current: now });
        }
    }
    if !changed.is_empty() {
        return Err(TransformError::ChangedSinceTransform { id: manifest.execution_id, changed }.into());
    }
    let archive = aide_core::fsutil::open_private_regular(&dir.join(PRE_IMAGES))
        .map_err(|e| AideError::io("undo pre-images", &e))?;
    let mut states = Vec::new();
    for (f, now) in manifest.files.iter().zip(current) {
        use std::os::unix::fs::PermissionsExt;
        let original = match f.pre_image {
            Some(PreImage { offset, len }) => {
                let mut bytes = vec![0; len as usize];
                archive
                    .read_exact_at(&mut bytes, offset)
                    .map_err(|_| AideError::internal(format!("the undo data of {} is truncated", f.rel)))?;
                Some(bytes)
            }
            None => None,
        };
        let (now_bytes, stamp, link) = match now {
            Some(e) => (Some(e.bytes), Some(e.stamp), e.link),
            None => (None, None, false),
        };
        let mut state = FileState::new(f.abs.clone(), f.rel.clone(), now_bytes, stamp);
        state.current = original;
        state.original_link = link;
        state.current_link = f.link_before;
        state.permissions = f.mode.map(std::fs::Permissions::from_mode);
        states.push(state);
    }
    // The folders the transform removed come back first, with their modes;
    // those it made go once empty again, after.
    let mut dirs = DirChanges::default();
    for d in &manifest.removed_dirs {
        dirs.make.insert(PathBuf::from(&d.rel), Some(d.mode));
    }
    let refs: Vec<&FileState> = states.iter().collect();
    let diagnostics = commit(root, by, &refs, &dirs)?;
    let made: Vec<PathBuf> = manifest.made_dirs.iter().map(PathBuf::from).collect();
    crate::disk::remove_made_dirs(root, &made);
    mark_undone(&dir, &mut manifest, by)?;
    let restored = states
        .iter()
        .map(|s| Restored {
            path: s.rel.clone(),
            action: match (&s.original, &s.current) {
                (None, Some(_)) => RestoreAction::Recreated,
                (Some(_), None) => RestoreAction::Removed,
                _ => RestoreAction::Restored,
            },
            checksum: s.checksum_after(),
        })
        .collect();
    Ok((restored, diagnostics))
}
