//! Where applied transforms keep their way back: each one's pre-images (one
//! archive) and a manifest naming its root and files, under
//! `$AIDE_HOME/transform/undo/<execution_id>/`, for 30 days and the newest
//! 1,000 transforms. The commit stores them; [`crate::undo`] reads them.

use std::io::Write;
use std::path::{Path, PathBuf};

use aide_core::envelope::{Diagnostic, diag};
use aide_core::{AideError, Root};
use serde::{Deserialize, Serialize};

use crate::error::TransformError;
use crate::plan::FileState;

/// The largest pre-image kept for undo (per file), unless
/// `AIDE_UNDO_MAX_BYTES` sets another.
pub(crate) const UNDO_MAX_PRE_IMAGE_BYTES: u64 = 256 * 1024 * 1024;

/// The pre-image cap in force: `AIDE_UNDO_MAX_BYTES`, or the default.
pub(crate) fn undo_cap() -> u64 {
    std::env::var("AIDE_UNDO_MAX_BYTES").ok().and_then(|v| v.parse().ok()).unwrap_or(UNDO_MAX_PRE_IMAGE_BYTES)
}

/// How much undo history is kept: transforms older than this, or beyond
/// this many, are forgotten (oldest first).
pub(crate) const UNDO_MAX_AGE_MS: i64 = 30 * 24 * 3600 * 1000;
pub(crate) const UNDO_MAX_TRANSFORMS: usize = 1000;

/// One file of a stored transform: enough to put it back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct UndoFile {
    #[serde(with = "aide_core::text::path_serde")]
    pub abs: PathBuf,
    pub rel: String,
    /// Where the file's content before the transform is in the archive;
    /// None if the transform created the file (or it was not kept).
    pub pre_image: Option<PreImage>,
    pub checksum_before: Option<String>,
    /// None if the transform deleted (or renamed away) the file.
    pub checksum_after: Option<String>,
    #[serde(default)]
    pub mode: Option<u32>,
    /// The pre-image was over the size cap and was not kept.
    #[serde(default)]
    pub not_kept: bool,
    /// Before the transform the path was a symbolic link (its pre-image is
    /// the link's target). What it is after is read when undoing.
    #[serde(default)]
    pub link_before: bool,
}

/// A folder a directory operation removed, with its mode, for undo to make again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RemovedDir {
    pub rel: String,
    pub mode: u32,
}

/// The record of an applied transform, in `$AIDE_HOME/transform/undo/<execution_id>/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct UndoManifest {
    pub execution_id: String,
    /// The root the transform ran in (absent in records of older versions).
    #[serde(default, with = "aide_core::text::opt_path_serde")]
    pub root: Option<PathBuf>,
    pub created_ms: i64,
    pub files: Vec<UndoFile>,
    #[serde(default)]
    pub undone_by: Option<String>,
    /// The transform this one undid, when it is an undo: undoable by its
    /// id, but not counted by `undo --last` (a second `--last 1` would redo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// Folders the transform made (relative, parents first): undo removes
    /// those it leaves empty.
    #[serde(default)]
    pub made_dirs: Vec<String>,
    /// Folders it removed: undo makes them again first.
    #[serde(default)]
    pub removed_dirs: Vec<RemovedDir>,
}

impl UndoManifest {
    /// Whether the transform was made under `root`.
    pub(crate) fn belongs_to(&self, root: &Root) -> bool {
        match &self.root {
            Some(r) => r == root.path(),
            None => self.files.iter().all(|f| f.abs.starts_with(root.path())),
        }
    }
}

/// Where a file's pre-image lies in the transform's archive.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct PreImage {
    pub offset: u64,
    pub len: u64,
}

pub(crate) fn undo_dir() -> PathBuf {
    aide_core::home::aide_home().join("transform/undo")
}

pub(crate) const PRE_IMAGES: &str = "pre-images.bin";

/// Stores the pre-images (one archive) and the manifest for undo. Undo data
/// is not fsynced: a power cut may lose the way back, never the files.
pub(crate) fn store_pre_images(
    root: &Root,
    execution_id: &str,
    changed: &[&FileState],
    made_dirs: &[PathBuf],
    dirs: &crate::plan::DirChanges,
) -> Result<(PathBuf, Vec<Diagnostic>), AideError> {
    let dir = undo_dir().join(execution_id);
    aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io(&dir.display().to_string(), &e))?;
    let mut diagnostics = Vec::new();
    let mut archive = aide_core::fsutil::private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join(PRE_IMAGES))
        .map_err(|e| AideError::io("undo pre-images", &e))?;
    let mut offset = 0u64;
    let mut files = Vec::new();
    let cap = undo_cap();
    for f in changed {
        let mut not_kept = false;
        let pre_image = match &f.original {
            Some(bytes) if bytes.len() as u64 > cap => {
                not_kept = true;
                diagnostics.push(
                    Diagnostic::new(
                        diag::UNDO_NOT_KEPT,
                        format!(
                            "{} bytes is over the undo cap of {cap} bytes (AIDE_UNDO_MAX_BYTES): its old content was not kept, so this transform cannot be undone",
                            bytes.len()
                        ),
                    )
                    .with_path(&f.rel),
                );
                None
            }
            Some(bytes) => {
                archive.write_all(bytes).map_err(|e| AideError::io("undo pre-images", &e))?;
                let range = PreImage { offset, len: bytes.len() as u64 };
                offset += bytes.len() as u64;
                Some(range)
            }
            None => None,
        };
        use std::os::unix::fs::PermissionsExt;
        files.push(UndoFile {
            abs: f.abs.clone(),
            rel: f.rel.clone(),
            pre_image,
            checksum_before: f.checksum_before(),
            checksum_after: f.checksum_after(),
            // The mode undo gives back: the file's own before the
            // transform (a patch may have changed it), else the planned one.
            mode: f
                .stamp
                .filter(|_| f.original.is_some())
                .map(|s| s.mode & 0o7777)
                .or_else(|| f.permissions.as_ref().map(PermissionsExt::mode)),
            not_kept,
            link_before: f.original_link,
        });
    }
    let manifest = UndoManifest {
        execution_id: execution_id.into(),
        root: Some(root.path().to_path_buf()),
        created_ms: aide_core::time::now_ms(),
        files,
        undone_by: None,
        undoes: None,
        made_dirs: made_dirs.iter().map(|d| aide_core::root::to_slash(d)).collect(),
        removed_dirs: dirs
            .remove
            .iter()
            .map(|(d, mode)| RemovedDir { rel: aide_core::root::to_slash(d), mode: *mode })
            .collect(),
    };
    write_manifest(&dir, &manifest)?;
    Ok((dir, diagnostics))
}

pub(crate) fn write_manifest(dir: &Path, manifest: &UndoManifest) -> Result<(), AideError> {
    let text = serde_json::to_vec_pretty(manifest).map_err(|e| AideError::internal(e.to_string()))?;
    aide_core::fsutil::replace(&dir.join("manifest.json"), &text).map_err(|e| AideError::io("undo manifest", &e))
}

pub(crate) fn load_manifest(execution_id: &str) -> Result<(PathBuf, UndoManifest), AideError> {
    let root = undo_dir();
    let dir = if execution_id.len() >= 8 && execution_id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(&root).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        found.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(execution_id)));
        match found.len() {
            1 => found.remove(0),
            0 => {
                return Err(TransformError::NoSuchTransform { id: execution_id.to_string() }.into());
            }
            n => {
                return Err(TransformError::AmbiguousExecutionId { id: execution_id.to_string(), count: n }.into());
            }
        }
    } else {
        return Err(TransformError::NotAnExecutionId { id: execution_id.to_string() }.into());
    };
    let text = aide_core::fsutil::read_private(&dir.join("manifest.json"), 256 << 20)
        .map_err(|e| AideError::io("undo manifest", &e))?;
    let manifest: UndoManifest =
        serde_json::from_slice(&text).map_err(|e| AideError::internal(format!("undo manifest is corrupt: {e}")))?;
    Ok((dir, manifest))
}

/// The most recent applied transforms of `root` not yet undone, newest
/// first; undos are not counted (see [`UndoManifest::undoes`]).
pub(crate) fn recent(root: &Root, count: usize) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(undo_dir())
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    // UUIDv7 ids sort by time.
    ids.sort();
    ids.into_iter()
        .rev()
        .filter(|id| {
            load_manifest(id).is_ok_and(|(_, m)| m.undone_by.is_none() && m.undoes.is_none() && m.belongs_to(root))
        })
        .take(count)
        .collect()
}

/// Forgets undo data past the retention limits. Transform ids are UUIDv7,
/// so their names sort by time and carry their creation time.
pub(crate) fn prune_undo(now_ms: i64) -> usize {
    let mut ids: Vec<String> = std::fs::read_dir(undo_dir())
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    ids.sort();
    let excess = ids.len().saturating_sub(UNDO_MAX_TRANSFORMS);
    let mut removed = 0;
    for (i, id) in ids.iter().enumerate() {
        let created = uuid_v7_ms(id);
        let too_old = created.is_some_and(|c| now_ms - c > UNDO_MAX_AGE_MS);
        if (i < excess || too_old) && std::fs::remove_dir_all(undo_dir().join(id)).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The creation time (ms since the epoch) a UUIDv7 carries in its first 48 bits.
fn uuid_v7_ms(id: &str) -> Option<i64> {
    let hex: String = id.chars().filter(|c| *c != '-').take(12).collect();
    (hex.len() == 12).then(|| i64::from_str_radix(&hex, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_v7_ids_carry_their_time() {
        let id = aide_core::ids::new_execution_id();
        let ms = uuid_v7_ms(&id).unwrap();
        assert!((aide_core::time::now_ms() - ms).abs() < 60_000, "{id} → {ms}");
        assert_eq!(uuid_v7_ms("not-an-id"), None);
    }
}
