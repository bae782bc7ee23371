//! Writing a verified plan, all or nothing, even across a crash.
//!
//! 1. Each target's folder is opened beneath the root (`openat2`), once;
//!    every later step is an `*at` call on that descriptor, so a folder
//!    swapped for a symlink meanwhile cannot lead a write outside.
//! 2. A journal naming every file, its temporary, and its checksums before
//!    and after is written durably (and locked) before anything else.
//! 3. The pre-images are stored for undo.
//! 4. Every new version is written to its temporary beside the target and
//!    fsynced; owner, group and mode are the target's.
//! 5. Every target is read again and compared with what the plan read (its
//!    identity and its bytes): a file another program changed meanwhile
//!    aborts the whole transform with `conflict`, nothing written.
//! 6. With SIGINT/SIGTERM/SIGHUP/SIGQUIT deferred, the temporaries are
//!    renamed over their targets (each target's identity checked once more
//!    just before), each folder is fsynced, and the journal is removed.
//!
//! A failure in steps 1–5 removes the temporaries: nothing changed. A
//! failure in step 6 puts back the files already replaced. The journal of
//! an edit still to be verified (`--verify`) outlives the renames, until
//! the check is over ([`commit_unverified`]). A crash (kill -9,
//! power loss) leaves the journal: the next llm-transform run on the root
//! (or `llm-transform recover`) finishes the transform if any file was
//! already replaced, or rolls it back if none was (see [`crate::journal`]).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use aide_core::envelope::Diagnostic;
use aide_core::root::OpenFailure;
use aide_core::{AideError, Root};
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use crate::disk::{Stamp, folder_and_name, read_entry_at, remove_made_dirs, stamp_at, test_gate, test_hook_ms};
use crate::error::TransformError;
use crate::journal::Journal;
use crate::plan::{DirChanges, FileState};

/// One file to write: its folder (opened beneath the root), its name, and
/// its temporary.
pub(crate) struct Target<'a> {
    pub file: &'a FileState,
    pub dir: Arc<OwnedFd>,
    pub name: OsString,
    /// None: the file is to be deleted.
    pub temp: Option<OsString>,
}

/// The name of a temporary beside `name`, unique to this process and call.
pub(crate) fn temp_name(name: &OsStr) -> OsString {
    let mut t = OsString::from(".");
    t.push(name);
    t.push(format!(".{}.{}.tmp", std::process::id(), aide_core::ids::new_execution_id()));
    t
}

/// The folders that new files of `files` need, and those `dirs` makes,
/// that do not exist now: relative to the root, parents first, each with
/// the mode it is made with (None: 0777 less the umask).
pub(crate) fn folders_to_make(
    root: &Root,
    files: &[&FileState],
    dirs: &DirChanges,
) -> Result<Vec<(PathBuf, Option<u32>)>, AideError> {
    let mut wanted: std::collections::BTreeMap<PathBuf, Option<u32>> = std::collections::BTreeMap::new();
    for f in files.iter().filter(|f| f.current.is_some() && f.original.is_none()) {
        let (rel, _) = folder_and_name(root, &f.abs, &f.rel)?;
        wanted.entry(rel.to_path_buf()).or_insert(None);
    }
    for (dir, mode) in &dirs.make {
        wanted.insert(dir.clone(), *mode);
    }
    let mut out: Vec<(PathBuf, Option<u32>)> = Vec::new();
    let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for (rel, mode) in &wanted {
        let mut prefix = PathBuf::new();
        for part in rel.components() {
            prefix.push(part);
            let missing = |r| matches!(r, Err(OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound);
            if seen.insert(prefix.clone()) && missing(root.open_dir(&prefix, false)) {
                let own = if &prefix == rel { *mode } else { wanted.get(&prefix).copied().flatten() };
                out.push((prefix.clone(), own));
            }
        }
    }
    // Parents first: a path's components order it under its parent.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The folder and name of every file, each folder opened once beneath the
/// root (created for files that are to be created, when the plan allowed),
/// with the temporary names chosen for them (`temps`, in order).
pub(crate) fn targets<'a>(
    root: &Root,
    files: &[&'a FileState],
    temps: Vec<Option<OsString>>,
) -> Result<Vec<Target<'a>>, AideError> {
    let mut dirs: HashMap<&Path, Arc<OwnedFd>> = HashMap::new();
    let mut out = Vec::with_capacity(files.len());
    for (f, temp) in files.iter().zip(temps) {
        let (rel, name) = folder_and_name(root, &f.abs, &f.rel)?;
        let dir = match dirs.get(rel) {
            Some(d) => d.clone(),
            None => {
                let d = Arc::new(root.open_dir(rel, f.current.is_some()).map_err(|e| e.into_error(&f.rel))?);
                dirs.insert(rel, d.clone());
                d
            }
        };
        out.push(Target { file: f, dir, name: name.to_os_string(), temp });
    }
    Ok(out)
}

/// Stages what `f` will be at `temp` in `dir`: a symbolic link to its
/// target, or a file (see [`stage_at`]).
fn stage_entry(dir: &OwnedFd, temp: &OsStr, bytes: &[u8], link: bool, f: &FileState) -> std::io::Result<()> {
    if link {
        use std::os::unix::ffi::OsStrExt;
        return Ok(rustix::fs::symlinkat(OsStr::from_bytes(bytes), dir, temp)?);
    }
    stage_at(dir, temp, bytes, mode_of(f), f.stamp.filter(|_| !f.original_link))
}

/// Writes `bytes` to the new file `temp` in `dir` and fsyncs it, with the
/// owner, group and mode of the file it will replace (`like`), or the
/// default mode for a new file.
pub(crate) fn stage_at(
    dir: &OwnedFd,
    temp: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
    like: Option<Stamp>,
) -> std::io::Result<()> {
    let create = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // A new file gets 0666 less the umask, as any editor would make it.
    let fd = rustix::fs::openat(dir, temp, create, Mode::from_raw_mode(if mode.is_some() { 0o600 } else { 0o666 }))?;
    let mut file = File::from(fd);
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(old) = like {
            // Owner and group as before, when permitted (as root, or a group
            // the user is in); the mode after, since chown clears set-id bits.
            let mine = rustix::fs::fstat(&file)?;
            if (mine.st_uid, mine.st_gid) != (old.uid, old.gid)
                && rustix::fs::fchown(
                    &file,
                    Some(rustix::fs::Uid::from_raw(old.uid)),
                    Some(rustix::fs::Gid::from_raw(old.gid)),
                )
                .is_err()
            {
                let _ = rustix::fs::fchown(&file, None, Some(rustix::fs::Gid::from_raw(old.gid)));
            }
        }
        if let Some(mode) = mode {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))?;
        }
        file.sync_all()
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
    }
    result
}

fn mode_of(f: &FileState) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    f.permissions.as_ref().map(PermissionsExt::mode)
}

/// Removes the temporaries of `targets` (those that exist).
fn remove_temps(targets: &[Target<'_>]) {
    for t in targets {
        if let Some(temp) = &t.temp {
            let _ = rustix::fs::unlinkat(&*t.dir, temp.as_os_str(), AtFlags::empty());
        }
    }
}

/// The error for a file another program changed after the plan read it.
fn changed_meanwhile(rel: &str) -> AideError {
    TransformError::ChangedMeanwhile { path: rel.to_string() }.into()
}

/// Writes the changed files of a plan (see the module doc). Returns the
/// diagnostics of the write (pre-images too large to keep for undo).
pub(crate) fn commit(
    root: &Root,
    execution_id: &str,
    changed: &[&FileState],
    dirs: &DirChanges,
) -> Result<Vec<Diagnostic>, AideError> {
    commit_journalled(root, execution_id, changed, dirs, false).map(|(diagnostics, _)| diagnostics)
}

/// [`commit`] of an edit still to be verified: its journal says so, and is
/// kept (and held) past the renames, so that a run killed while checking
/// leaves it to recovery, which undoes the edit. The caller finishes the
/// journal once the edit is verified, or undone.
pub(crate) fn commit_unverified(
    root: &Root,
    execution_id: &str,
    changed: &[&FileState],
    dirs: &DirChanges,
) -> Result<(Vec<Diagnostic>, Journal), AideError> {
    let (diagnostics, journal) = commit_journalled(root, execution_id, changed, dirs, true)?;
    let journal = journal.ok_or_else(|| AideError::internal("the journal of an unverified commit is gone"))?;
    Ok((diagnostics, journal))
}

/// The commit, its journal kept past the renames when `verifying`: the
/// module's steps in order.
fn commit_journalled(
    root: &Root,
    execution_id: &str,
    changed: &[&FileState],
    dirs: &DirChanges,
    verifying: bool,
) -> Result<(Vec<Diagnostic>, Option<Journal>), AideError> {
    // A descriptor a folder, held to the end: up to the hard limit of them.
    let _descriptors = crate::disk::OpenFilesRaised::new();
    let Begun { journal, targets, made, undo_dir, diagnostics } = begin(root, execution_id, changed, dirs, verifying)?;
    let abandon = |journal: Journal, targets: &[Target<'_>]| {
        remove_temps(targets);
        remove_made_dirs(root, &made);
        let _ = std::fs::remove_dir_all(&undo_dir);
        journal.finish();
    };
    if let Err(e) = stage_all(&targets) {
        abandon(journal, &targets);
        return Err(e);
    }
    if let Some(ms) = test_hook_ms("AIDE_TEST_PAUSE_BEFORE_VERIFY_MS") {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    // The tests of kills with everything staged and nothing renamed hold it here.
    test_gate("AIDE_TEST_STAGED_GATE");
    if let Some(t) = first_changed_meanwhile(&targets) {
        let rel = t.file.rel.clone();
        abandon(journal, &targets);
        return Err(changed_meanwhile(&rel));
    }
    // 6. Rename, with termination signals held until the tree is whole.
    let deferred = aide_gate::process::DeferSignals::new();
    let journal = rename_all(root, &targets, &made, &undo_dir, journal)?;
    let journal = remove_emptied_dirs(root, dirs, &targets, &made, &undo_dir, journal)?;
    sync_folders(root, &targets);
    let kept = match verifying {
        true => Some(journal),
        false => {
            journal.finish();
            None
        }
    };
    drop(deferred);
    Ok((diagnostics, kept))
}

/// A commit begun: its journal written, its folders made, its targets'
/// folders opened and its pre-images stored for undo.
struct Begun<'a> {
    journal: Journal,
    targets: Vec<Target<'a>>,
    made: Vec<PathBuf>,
    undo_dir: PathBuf,
    diagnostics: Vec<Diagnostic>,
}

/// Steps 1 to 3. The folders new files need are journalled before they are
/// made, so a commit that dies any time after leaves none behind once
/// rolled back; a failure here removes what was made and the journal.
fn begin<'a>(
    root: &Root,
    execution_id: &str,
    changed: &[&'a FileState],
    dirs: &DirChanges,
    verifying: bool,
) -> Result<Begun<'a>, AideError> {
    let made_with_modes = folders_to_make(root, changed, dirs)?;
    let made: Vec<PathBuf> = made_with_modes.iter().map(|(d, _)| d.clone()).collect();
    let removed: Vec<PathBuf> = dirs.remove.keys().cloned().collect();
    let temps: Vec<Option<OsString>> =
        changed.iter().map(|f| f.current.as_ref().map(|_| temp_name(f.abs.file_name().unwrap_or_default()))).collect();
    let journal = Journal::begin(root, execution_id, changed, &temps, &made, &removed, verifying)?;
    let begun = crate::disk::make_dirs(root, &made_with_modes).and_then(|()| {
        let targets = targets(root, changed, temps)?;
        let stored = crate::undo_store::store_pre_images(root, execution_id, changed, &made, dirs)?;
        Ok((targets, stored))
    });
    match begun {
        Ok((targets, (undo_dir, diagnostics))) => Ok(Begun { journal, targets, made, undo_dir, diagnostics }),
        Err(e) => {
            remove_made_dirs(root, &made);
            journal.finish();
            Err(e)
        }
    }
}

/// Step 4, staging: each file fsynced, on many threads at once, whose
/// fsyncs the filesystem's journal commits together.
fn stage_all(targets: &[Target<'_>]) -> Result<(), AideError> {
    let staged: Vec<std::io::Result<()>> = crate::parallel::io_map(targets, |t| match (&t.temp, &t.file.current) {
        (Some(temp), Some(bytes)) => stage_entry(&t.dir, temp, bytes, t.file.current_link, t.file),
        _ => Ok(()),
    });
    match staged.into_iter().zip(targets).find_map(|(r, t)| r.err().map(|e| (e, t))) {
        Some((e, t)) => {
            Err(TransformError::WriteFailed { path: t.file.rel.clone(), reason: e.to_string(), restore_failures: None }
                .into())
        }
        None => Ok(()),
    }
}

/// Step 5: the first target that is no longer what the plan read.
fn first_changed_meanwhile<'t, 'a>(targets: &'t [Target<'a>]) -> Option<&'t Target<'a>> {
    let unchanged: Vec<bool> = crate::parallel::parallel_map(targets, |t| match read_entry_at(&t.dir, &t.name) {
        Ok(Some(now)) => {
            t.file.original.as_deref() == Some(&now.bytes[..])
                && now.link == t.file.original_link
                && t.file.stamp.is_none_or(|s| same_file(s, now.stamp))
        }
        Ok(None) => t.file.original.is_none(),
        Err(_) => false,
    });
    unchanged.iter().position(|ok| !ok).map(|i| &targets[i])
}

/// Step 6: each temporary renamed over its target; on a failure the files
/// already replaced are put back and the journal is finished.
fn rename_all(
    root: &Root,
    targets: &[Target<'_>],
    made: &[PathBuf],
    undo_dir: &Path,
    journal: Journal,
) -> Result<Journal, AideError> {
    let fail_after = test_hook_ms("AIDE_TEST_FAIL_AFTER_WRITES").map(|n| n as usize);
    let delay = test_hook_ms("AIDE_TEST_RENAME_DELAY_US").map(std::time::Duration::from_micros);
    for (i, t) in targets.iter().enumerate() {
        if let Some(d) = delay {
            std::thread::sleep(d);
        }
        let result = if fail_after.is_some_and(|n| i >= n) {
            Err(ReplaceFailure::Io(std::io::Error::other("injected failure (AIDE_TEST_FAIL_AFTER_WRITES)")))
        } else {
            replace_one(t)
        };
        if i == 0 && result.is_ok() {
            // The tests of signals and kills among the renames hold it here.
            test_gate("AIDE_TEST_RENAME_GATE");
        }
        if let Err(failure) = result {
            remove_temps(&targets[i..]);
            let restore_failures = put_back(root, &targets[..i], made, undo_dir, journal);
            let e = match failure {
                ReplaceFailure::Changed => return Err(changed_meanwhile(&t.file.rel)),
                ReplaceFailure::Io(e) => e,
            };
            return Err(TransformError::WriteFailed {
                path: t.file.rel.clone(),
                reason: e.to_string(),
                restore_failures: Some(restore_failures),
            }
            .into());
        }
    }
    Ok(journal)
}

/// The folders a directory operation empties go last, deepest first; one
/// that is not empty (a file created in it meanwhile) undoes the whole.
fn remove_emptied_dirs(
    root: &Root,
    dirs: &DirChanges,
    targets: &[Target<'_>],
    made: &[PathBuf],
    undo_dir: &Path,
    journal: Journal,
) -> Result<Journal, AideError> {
    let (gone, failed) = crate::disk::remove_dirs(root, dirs.remove.keys());
    let Some((shown, e)) = failed else { return Ok(journal) };
    let remade: Vec<(PathBuf, Option<u32>)> =
        gone.iter().rev().map(|d| ((*d).clone(), dirs.remove.get(*d).copied())).collect();
    let mut restore_failures: Vec<String> = Vec::new();
    if let Err(e) = crate::disk::make_dirs(root, &remade) {
        restore_failures.push(e.message.into());
    }
    restore_failures.extend(put_back(root, targets, made, undo_dir, journal));
    Err(TransformError::WriteFailed { path: shown, reason: e.to_string(), restore_failures: Some(restore_failures) }
        .into())
}

/// Each folder written in fsynced once: the files are in place, so a folder
/// that cannot be synced costs durability only.
fn sync_folders(root: &Root, targets: &[Target<'_>]) {
    let mut folders: Vec<&Arc<OwnedFd>> = Vec::new();
    let mut seen: Vec<&Path> = Vec::new();
    for t in targets {
        let folder = t.file.abs.parent().unwrap_or(root.path());
        if !seen.contains(&folder) {
            seen.push(folder);
            folders.push(&t.dir);
        }
    }
    crate::parallel::io_map(&folders, |dir| {
        let _ = rustix::fs::fsync(dir.as_fd());
    });
}

/// Undoes a commit that failed while putting its files in place: the
/// files already `replaced` get their old content back (newest first), the
/// folders it made go, its undo data and journal too. Returns what could
/// not be put back.
fn put_back(root: &Root, replaced: &[Target<'_>], made: &[PathBuf], undo_dir: &Path, journal: Journal) -> Vec<String> {
    let failures =
        replaced.iter().rev().filter_map(|w| restore(w).err().map(|r| format!("{}: {r}", w.file.rel))).collect();
    remove_made_dirs(root, made);
    let _ = std::fs::remove_dir_all(undo_dir);
    journal.finish();
    failures
}

/// Whether two stamps are the same file, unchanged.
fn same_file(a: Stamp, b: Stamp) -> bool {
    a.version == b.version
}

/// Why one file could not be put in place.
enum ReplaceFailure {
    /// Another program changed (or created) the target since it was verified.
    Changed,
    Io(std::io::Error),
}

impl From<Errno> for ReplaceFailure {
    fn from(e: Errno) -> Self {
        ReplaceFailure::Io(e.into())
    }
}

/// Puts one staged file in place (or deletes one), after checking once more
/// that nobody changed the target since it was verified.
fn replace_one(t: &Target<'_>) -> Result<(), ReplaceFailure> {
    let now = stamp_at(&t.dir, &t.name)?;
    let unchanged = match (now, t.file.stamp) {
        (Some(now), Some(then)) => same_file(now, then),
        (None, None) => true,
        _ => false,
    };
    if !unchanged {
        return Err(ReplaceFailure::Changed);
    }
    match &t.temp {
        // A file the plan creates must not replace one created meanwhile.
        Some(temp) if t.file.original.is_none() => {
            match rustix::fs::renameat_with(
                &*t.dir,
                temp.as_os_str(),
                &*t.dir,
                t.name.as_os_str(),
                RenameFlags::NOREPLACE,
            ) {
                Err(Errno::EXIST) => return Err(ReplaceFailure::Changed),
                other => other?,
            }
        }
        Some(temp) => rustix::fs::renameat(&*t.dir, temp.as_os_str(), &*t.dir, t.name.as_os_str())?,
        None => rustix::fs::unlinkat(&*t.dir, t.name.as_os_str(), AtFlags::empty())?,
    }
    Ok(())
}

/// Puts one replaced file back to its content before the plan.
fn restore(t: &Target<'_>) -> std::io::Result<()> {
    match &t.file.original {
        Some(bytes) => {
            let temp = temp_name(&t.name);
            stage_entry(&t.dir, &temp, bytes, t.file.original_link, t.file)?;
            rustix::fs::renameat(&*t.dir, temp.as_os_str(), &*t.dir, t.name.as_os_str())?;
            Ok(())
        }
        None => Ok(rustix::fs::unlinkat(&*t.dir, t.name.as_os_str(), AtFlags::empty())?),
    }
}
