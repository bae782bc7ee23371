//! Writing a verified plan: per-file locks, pre-images kept for undo, atomic
//! writes, and rollback if a write fails midway.

use std::fs::File;
use std::path::{Path, PathBuf};

use aide_core::checksum::sha256_hex;
use aide_core::fsutil::{replace, write_atomic_with, write_temp_beside};
use aide_core::{AideError, code};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::plan::FileState;

/// Exclusive locks on a set of files, held until dropped.
#[derive(Debug)]
pub struct Locks {
    _files: Vec<File>,
}

/// The lock file of a path: `<dir>/<sha256 of the path>`.
fn lock_path(dir: &Path, abs: &Path) -> PathBuf {
    dir.join(sha256_hex(abs.as_os_str().as_encoded_bytes()))
}

/// Locks every path (in sorted order, so two transforms never deadlock);
/// one held by another transform is a `conflict`.
pub fn lock_all<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<Locks, AideError> {
    let mut paths: Vec<&Path> = paths.into_iter().collect();
    paths.sort();
    paths.dedup();
    // `$AIDE_HOME/transform/locks/`
    let dir = aide_core::log::aide_home().join("transform/locks");
    aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io(&dir.display().to_string(), &e))?;
    let mut files = Vec::new();
    for p in paths {
        let lp = lock_path(&dir, p);
        let f = aide_core::fsutil::private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lp)
            .map_err(|e| AideError::io(&lp.display().to_string(), &e))?;
        match f.try_lock() {
            Ok(()) => files.push(f),
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(AideError::new(
                    code::CONFLICT,
                    format!("{} is being changed by another transform", p.display()),
                )
                .with_hint("wait for it to finish, read the file again, and retry")
                .with_details(json!({ "path": p.display().to_string() })));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(AideError::io(&lp.display().to_string(), &e)),
        }
    }
    Ok(Locks { _files: files })
}

/// One file of a stored transform: enough to put it back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UndoFile {
    pub abs: PathBuf,
    pub rel: String,
    /// Where the file's content before the transform is in the archive;
    /// None if the transform created the file.
    pub pre_image: Option<PreImage>,
    pub checksum_before: Option<String>,
    /// None if the transform deleted (or renamed away) the file.
    pub checksum_after: Option<String>,
    #[serde(default)]
    pub mode: Option<u32>,
}

/// The record of an applied transform, in `$AIDE_HOME/transform/undo/<execution_id>/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UndoManifest {
    pub execution_id: String,
    pub created_ms: i64,
    pub files: Vec<UndoFile>,
    #[serde(default)]
    pub undone_by: Option<String>,
}

pub fn undo_dir() -> PathBuf {
    aide_core::log::aide_home().join("transform/undo")
}

/// Whether a file's content on disk matches what a plan expects it to be.
fn on_disk(abs: &Path) -> Result<Option<Vec<u8>>, AideError> {
    match std::fs::read(abs) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(AideError::io(&abs.display().to_string(), &e)),
    }
}

fn mode_of(p: &Option<std::fs::Permissions>) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    p.as_ref().map(PermissionsExt::mode)
}

/// Writes the changed files of a plan, in three phases:
///
/// 1. every new version is written to a temporary file beside its target and
///    fsynced (in parallel); a failure here removes the temporaries and
///    nothing has changed;
/// 2. the temporaries are renamed over their targets (deletions happen
///    here); a failure puts back the files already replaced;
/// 3. each folder touched is fsynced once.
///
/// The pre-images are stored first, for undo.
pub fn commit(execution_id: &str, changed: &[&FileState]) -> Result<(), AideError> {
    // Re-check under the lock that nothing changed since the plan read the files.
    for f in changed {
        if on_disk(&f.abs)? != f.original {
            return Err(AideError::new(
                code::CONFLICT,
                format!("{} changed while the transform was being prepared", f.rel),
            )
            .with_hint("read the file again and retry")
            .with_details(json!({ "path": f.rel })));
        }
    }
    let dir = store_pre_images(execution_id, changed)?;
    let fail = |e: std::io::Error, rel: &str, restore_failures: Vec<String>| {
        let _ = std::fs::remove_dir_all(&dir);
        AideError::new(code::IO_ERROR, format!("writing {rel} failed: {e}; nothing was changed"))
            .with_details(json!({ "path": rel, "restore_failures": restore_failures }))
    };

    // 1. Stage.
    let staged: Vec<std::io::Result<Option<PathBuf>>> = parallel_map(changed, |f| match &f.current {
        Some(bytes) => {
            if let Some(parent) = f.abs.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_temp_beside(&f.abs, bytes, f.permissions.clone()).map(Some)
        }
        None => Ok(None),
    });
    if let Some(i) = staged.iter().position(Result::is_err) {
        for t in staged.iter().flatten().flatten() {
            let _ = std::fs::remove_file(t);
        }
        let e = match &staged[i] {
            Err(e) => std::io::Error::new(e.kind(), e.to_string()),
            Ok(_) => std::io::Error::other("staging failed"),
        };
        return Err(fail(e, &changed[i].rel, Vec::new()));
    }
    let temps: Vec<Option<PathBuf>> = staged.into_iter().map(|r| r.ok().flatten()).collect();

    // 2. Rename (fault injection for the rollback test: fail after N files).
    let fail_after: Option<usize> = std::env::var("AIDE_TEST_FAIL_AFTER_WRITES").ok().and_then(|v| v.parse().ok());
    for (i, (f, temp)) in changed.iter().zip(&temps).enumerate() {
        let result = match (fail_after, temp) {
            (Some(n), _) if i >= n => Err(std::io::Error::other("injected failure (AIDE_TEST_FAIL_AFTER_WRITES)")),
            (_, Some(t)) => std::fs::rename(t, &f.abs),
            (_, None) => std::fs::remove_file(&f.abs),
        };
        if let Err(e) = result {
            for t in temps[i..].iter().flatten() {
                let _ = std::fs::remove_file(t);
            }
            let restore_failures =
                changed[..i].iter().rev().filter_map(|w| restore(w).err().map(|r| format!("{}: {r}", w.rel))).collect();
            return Err(fail(e, &f.rel, restore_failures));
        }
    }

    // 3. Make the renames durable: each folder once.
    let mut folders: Vec<&Path> = changed.iter().filter_map(|f| f.abs.parent()).collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        // The files are in place; a folder that cannot be synced costs durability only.
        let _ = File::open(folder).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Maps `items` with `f` on a few threads (fsync-bound work), keeping order.
fn parallel_map<'a, T: Sync, R: Send>(items: &'a [T], f: impl Fn(&'a T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8).min(items.len().max(1));
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = items.chunks(chunk).map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
}

/// Stores the pre-images (one archive) and the manifest for undo. Undo data
/// is not fsynced: a power cut may lose the way back, never the files.
fn store_pre_images(execution_id: &str, changed: &[&FileState]) -> Result<PathBuf, AideError> {
    let dir = undo_dir().join(execution_id);
    aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io(&dir.display().to_string(), &e))?;
    let mut archive = Vec::new();
    let mut files = Vec::new();
    for f in changed {
        let pre_image = f.original.as_ref().map(|bytes| {
            let range = PreImage { offset: archive.len() as u64, len: bytes.len() as u64 };
            archive.extend_from_slice(bytes);
            range
        });
        files.push(UndoFile {
            abs: f.abs.clone(),
            rel: f.rel.clone(),
            pre_image,
            checksum_before: f.original.as_deref().map(sha256_hex),
            checksum_after: f.current.as_deref().map(sha256_hex),
            mode: mode_of(&f.permissions),
        });
    }
    replace(&dir.join(PRE_IMAGES), &archive).map_err(|e| AideError::io("undo pre-images", &e))?;
    let manifest = UndoManifest {
        execution_id: execution_id.into(),
        created_ms: aide_core::log::now_ms(),
        files,
        undone_by: None,
    };
    let text = serde_json::to_vec_pretty(&manifest).map_err(|e| AideError::internal(e.to_string()))?;
    replace(&dir.join("manifest.json"), &text).map_err(|e| AideError::io("undo manifest", &e))?;
    Ok(dir)
}

const PRE_IMAGES: &str = "pre-images.bin";

/// Where a file's pre-image lies in the transform's archive.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct PreImage {
    pub offset: u64,
    pub len: u64,
}

/// Puts one file back to its content before the plan.
fn restore(f: &FileState) -> std::io::Result<()> {
    match &f.original {
        Some(bytes) => write_atomic_with(&f.abs, bytes, f.permissions.clone()),
        None => std::fs::remove_file(&f.abs),
    }
}

/// What undo did to one file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Restored {
    pub path: String,
    /// `restored`, `recreated` (it had been deleted) or `removed` (the transform created it).
    pub action: String,
    pub checksum: Option<String>,
}

pub fn load_manifest(execution_id: &str) -> Result<(PathBuf, UndoManifest), AideError> {
    let root = undo_dir();
    let dir = if execution_id.len() >= 8 && execution_id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(&root).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        found.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(execution_id)));
        match found.len() {
            1 => found.remove(0),
            0 => {
                return Err(AideError::new(code::NOT_FOUND, format!("no applied transform {execution_id}"))
                    .with_hint("undo takes the execution_id an applied (not dry-run) llm-transform printed"));
            }
            n => {
                return Err(AideError::new(
                    code::INVALID_ARGUMENTS,
                    format!("{n} transforms start with {execution_id}"),
                )
                .with_hint("give more of the execution_id"));
            }
        }
    } else {
        return Err(AideError::new(code::INVALID_ARGUMENTS, format!("`{execution_id}` is not an execution id"))
            .with_hint("give the execution_id (at least 8 characters) of an applied transform"));
    };
    let text = std::fs::read(dir.join("manifest.json")).map_err(|e| AideError::io("undo manifest", &e))?;
    let manifest: UndoManifest =
        serde_json::from_slice(&text).map_err(|e| AideError::internal(format!("undo manifest is corrupt: {e}")))?;
    Ok((dir, manifest))
}

/// The most recent applied transforms not yet undone, newest first.
pub fn recent(count: usize) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(undo_dir())
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    // UUIDv7 ids sort by time.
    ids.sort();
    ids.into_iter().rev().filter(|id| load_manifest(id).is_ok_and(|(_, m)| m.undone_by.is_none())).take(count).collect()
}

/// Restores the files of transform `execution_id`, if every one still has
/// the checksum the transform left.
pub fn undo(execution_id: &str, by: &str) -> Result<Vec<Restored>, AideError> {
    let (dir, mut manifest) = load_manifest(execution_id)?;
    if let Some(other) = &manifest.undone_by {
        return Err(AideError::new(
            code::CONFLICT,
            format!("transform {} was already undone (by {other})", manifest.execution_id),
        )
        .with_hint("each transform can be undone once"));
    }
    let _locks = lock_all(manifest.files.iter().map(|f| f.abs.as_path()))?;
    // Each file as it is now: checked against what the transform left, then
    // the "before" of the undo itself.
    let current: Vec<Option<Vec<u8>>> = manifest.files.iter().map(|f| on_disk(&f.abs)).collect::<Result<_, _>>()?;
    let mut changed = Vec::new();
    for (f, bytes) in manifest.files.iter().zip(&current) {
        let now = bytes.as_deref().map(sha256_hex);
        if now != f.checksum_after {
            changed.push(json!({ "path": f.rel, "expected": f.checksum_after, "current": now }));
        }
    }
    if !changed.is_empty() {
        let names: Vec<String> = changed.iter().filter_map(|c| c["path"].as_str().map(str::to_string)).collect();
        return Err(AideError::new(
            code::CONFLICT,
            format!("cannot undo {}: changed since: {}", manifest.execution_id, names.join(", ")),
        )
        .with_hint("undo the later transforms first (newest first), or restore the files by hand")
        .with_details(json!({ "changed": changed })));
    }
    let archive = std::fs::read(dir.join(PRE_IMAGES)).map_err(|e| AideError::io("undo pre-images", &e))?;
    let mut states = Vec::new();
    for (f, now) in manifest.files.iter().zip(current) {
        use std::os::unix::fs::PermissionsExt;
        let original = match f.pre_image {
            Some(PreImage { offset, len }) => {
                let range = offset as usize..(offset + len) as usize;
                let Some(bytes) = archive.get(range) else {
                    return Err(AideError::internal(format!("the undo data of {} is truncated", f.rel)));
                };
                Some(bytes.to_vec())
            }
            None => None,
        };
        states.push(FileState {
            abs: f.abs.clone(),
            rel: f.rel.clone(),
            original: now,
            current: original,
            permissions: f.mode.map(std::fs::Permissions::from_mode),
            rustfmt: false,
            cargo_check: false,
            renamed_from: None,
        });
    }
    let refs: Vec<&FileState> = states.iter().collect();
    commit(by, &refs)?;
    manifest.undone_by = Some(by.to_string());
    let text = serde_json::to_vec_pretty(&manifest).map_err(|e| AideError::internal(e.to_string()))?;
    write_atomic_with(&dir.join("manifest.json"), &text, Some(aide_core::fsutil::private_permissions()))
        .map_err(|e| AideError::io("undo manifest", &e))?;
    Ok(states
        .iter()
        .map(|s| Restored {
            path: s.rel.clone(),
            action: match (&s.original, &s.current) {
                (None, Some(_)) => "recreated".into(),
                (Some(_), None) => "removed".into(),
                _ => "restored".into(),
            },
            checksum: s.current.as_deref().map(sha256_hex),
        })
        .collect())
}

/// How much undo history is kept: transforms older than this, or beyond
/// this many, are forgotten (oldest first).
pub const UNDO_MAX_AGE_MS: i64 = 30 * 24 * 3600 * 1000;
pub const UNDO_MAX_TRANSFORMS: usize = 1000;

/// Forgets undo data past the retention limits. Transform ids are UUIDv7,
/// so their names sort by time and carry their creation time.
pub fn prune_undo(now_ms: i64) -> usize {
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
        assert!((aide_core::log::now_ms() - ms).abs() < 60_000, "{id} → {ms}");
        assert_eq!(uuid_v7_ms("not-an-id"), None);
    }
}
