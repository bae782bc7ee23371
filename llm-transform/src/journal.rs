//! The commit journal: what makes a multi-file transform atomic across a
//! crash.
//!
//! Before a commit writes anything it records, durably, in
//! `$AIDE_HOME/transform/journal/<execution_id>.json`: the root, and for each
//! file its path, its temporary's name and its checksums before and after.
//! The committing process holds a lock on the journal until it removes it,
//! after the last rename. A journal nobody holds is a commit that died
//! (kill -9, power loss, a crash). Recovery, which every llm-transform run on
//! the root does first (and `llm-transform recover` does alone):
//!
//! * if no file has its new content yet, the commit died before its first
//!   rename: the temporaries are removed and the transform never happened
//!   (its undo data goes too);
//! * otherwise every temporary had been written and fsynced (renames start
//!   only after all are): the remaining ones are renamed into place, so the
//!   transform happened whole and `undo` works as for any other.
//!
//! A file that has neither its old nor its new content was changed by
//! someone else after the crash: it is left as it is and named in the
//! report.
//!
//! The journal of an edit still to be verified (`--verify`) says so and
//! lives on past the renames until the check is over. One found unheld is
//! an edit that landed unverified (the run died while checking): recovery
//! completes it as above, then undoes it whole, as a failed check would
//! have (the undo is handed in by the caller, which sits above the undo;
//! these journals are recovered last, after any rollback of theirs that
//! died midway). If it cannot be undone (a file changed since), the edit
//! stands and the report says why.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use aide_core::{AideError, Root};
use rustix::fs::AtFlags;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::disk::read_entry_at;
use crate::error::TransformError;
use crate::plan::FileState;

/// One file of a commit in flight.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalFile {
    /// Relative to the root.
    #[serde(with = "aide_core::text::path_serde")]
    path: PathBuf,
    /// The temporary's name in the file's folder; None for a deletion.
    #[serde(with = "aide_core::text::opt_path_serde")]
    temp: Option<PathBuf>,
    checksum_before: Option<String>,
    checksum_after: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalRecord {
    execution_id: String,
    #[serde(with = "aide_core::text::path_serde")]
    root: PathBuf,
    files: Vec<JournalFile>,
    /// Folders the commit creates for new files, parents first, relative to
    /// the root: a rollback removes those it finds empty.
    #[serde(default)]
    made_dirs: Vec<String>,
    /// Folders the commit removes once every file is in place (a directory
    /// deleted or renamed), relative to the root: one found gone means the
    /// files were all in place, and recovery removes the rest.
    #[serde(default)]
    removed_dirs: Vec<String>,
    /// The edit awaits its verification: until the journal goes, recovery
    /// undoes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    verifying: bool,
}

/// The suffix of a journal being written: it becomes `<id>.json` only once
/// it is whole and locked, so no recovery ever reads one half-written.
const WRITING: &str = "json.writing";

/// The largest journal read: one of a commit of 100,000 files is far smaller.
const MAX_JOURNAL_BYTES: u64 = 64 << 20;

fn journal_dir() -> PathBuf {
    aide_core::home::aide_home().join("transform/journal")
}

/// A commit's journal, locked while the commit runs.
pub struct Journal {
    path: PathBuf,
    _lock: File,
}

impl Journal {
    /// Writes the journal of a commit about to start, and locks it. It is
    /// fsynced when the commit renames more than one file: a single rename
    /// is atomic by itself, so after a power loss its journal could only
    /// have named a stray temporary (a kill -9 keeps the page cache, and the
    /// journal with it). That saves a one-file edit two fsyncs.
    pub fn begin(
        root: &Root,
        execution_id: &str,
        changed: &[&FileState],
        temps: &[Option<std::ffi::OsString>],
        made_dirs: &[PathBuf],
        removed_dirs: &[PathBuf],
        verifying: bool,
    ) -> Result<Journal, AideError> {
        // An unverified edit must be undone after a power loss too.
        let durable = changed.len() > 1 || !made_dirs.is_empty() || !removed_dirs.is_empty() || verifying;
        let dir = journal_dir();
        aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io("transform journal", &e))?;
        let record = JournalRecord {
            execution_id: execution_id.to_string(),
            root: root.path().to_path_buf(),
            files: changed
                .iter()
                .zip(temps)
                .map(|(f, temp)| JournalFile {
                    path: f.abs.strip_prefix(root.path()).unwrap_or(&f.abs).to_path_buf(),
                    temp: temp.clone().map(PathBuf::from),
                    checksum_before: f.checksum_before(),
                    checksum_after: f.checksum_after(),
                })
                .collect(),
            made_dirs: made_dirs.iter().map(|d| aide_core::root::to_slash(d)).collect(),
            removed_dirs: removed_dirs.iter().map(|d| aide_core::root::to_slash(d)).collect(),
            verifying,
        };
        let text = serde_json::to_vec(&record).map_err(|e| AideError::internal(e.to_string()))?;
        let path = dir.join(format!("{execution_id}.json"));
        // The writer's pid in the name: a recovery removes a half-written
        // journal only once its writer is gone.
        let writing = dir.join(format!("{execution_id}.{}.{WRITING}", std::process::id()));
        // Written and locked under another name, then renamed into place: a
        // journal that recovery can see is always whole and locked from
        // birth, so a recovery (of this root or another) never takes one
        // that is still being written for one that died.
        let write = || -> std::io::Result<File> {
            let mut file = aide_core::fsutil::private_file().write(true).create_new(true).open(&writing)?;
            if let Some(us) = crate::disk::test_hook_ms("AIDE_TEST_JOURNAL_LOCK_DELAY_US") {
                // Widens the window between creating and locking, which the cross-root race aims at.
                std::thread::sleep(std::time::Duration::from_micros(us));
            }
            file.lock()?;
            file.write_all(&text)?;
            if durable {
                file.sync_all()?;
            }
            std::fs::rename(&writing, &path)?;
            if durable {
                aide_core::fsutil::sync_dir(&path)?;
            }
            Ok(file)
        };
        let lock = write().map_err(|e| {
            let _ = std::fs::remove_file(&writing);
            AideError::io("transform journal", &e)
        })?;
        Ok(Journal { path, _lock: lock })
    }

    /// The commit ended (done, or undone in-process): the journal goes.
    pub fn finish(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What recovery did with one interrupted transform.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Recovered {
    pub execution_id: String,
    pub action: RecoveryAction,
    /// Files put into their new state (completed) or left in their old one (rolled back).
    pub files: usize,
    /// Files that have neither their old nor their new content: changed by
    /// someone else since the crash, left as they are.
    pub conflicts: Vec<String>,
    /// Files recovery could not look at or put in place (their folder was
    /// removed, a FIFO or a link stands there now): left as they are, and
    /// the journal cleared all the same.
    pub unrestored: Vec<Unrestored>,
    /// An edit that landed unverified (its run died while checking) and
    /// could not be undone: why. It stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified_kept: Option<String>,
}

/// A file recovery could not restore, and why.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Unrestored {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAction {
    /// Some files had been replaced: the rest were, from the staged temporaries.
    Completed,
    /// No file had been replaced: the temporaries were removed.
    RolledBack,
    /// The edit had landed, but its run died while checking it
    /// (`--verify`): it was completed, then undone.
    UndoneUnverified,
}

/// Undoes the transform of an execution id on a root: what recovery does
/// with an edit that landed unverified (given by the caller: the undo sits
/// above the journal).
pub type UndoUnverified<'a> = &'a dyn Fn(&Root, &str) -> Result<(), AideError>;

/// An interrupted transform, as `aide doctor` lists it.
#[derive(Debug, Clone)]
pub struct Interrupted {
    pub execution_id: String,
    /// None: the journal cannot be read (it is named by its file).
    pub root: Option<PathBuf>,
    /// Its edit had landed, or was landing, unverified (its run died while checking it).
    pub unverified: bool,
}

/// A journal no live commit holds, locked now by this process.
struct Unheld {
    path: PathBuf,
    /// None: empty or cut short (the commit died while writing its journal,
    /// before it wrote anything else).
    record: Option<JournalRecord>,
    _lock: File,
}

/// Every journal nobody holds, in name order, each locked (shared when
/// `exclusive` is false: to look, not to touch); with `of_root`, only that
/// root's. A journal is read before it is locked — it is whole from the
/// moment it has its name — so a recovery never locks another root's
/// journals, and a lock taken only for a look is waited out briefly: a
/// journal still locked after that is held by a live commit. Only regular
/// files are opened (never through a link, never blocking on a FIFO), none
/// larger than [`MAX_JOURNAL_BYTES`]. With `exclusive`, a journal left
/// half-written by a commit that died before renaming it is removed.
fn unheld(exclusive: bool, of_root: Option<&Path>) -> Vec<Unheld> {
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(journal_dir()) {
        Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
        Err(_) => return Vec::new(),
    };
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.ends_with(WRITING) {
            if exclusive && !writer_alive(&name) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        if !name.ends_with(".json") {
            continue;
        }
        let Ok(file) = aide_core::fsutil::open_private_regular(&path) else { continue };
        let record: Option<JournalRecord> = aide_core::fsutil::read_private(&path, MAX_JOURNAL_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        if let (Some(root), Some(r)) = (of_root, &record)
            && r.root != root
        {
            continue;
        }
        if !lock_unless_live(&file, exclusive) {
            continue;
        }
        out.push(Unheld { path, record, _lock: file });
    }
    out
}

/// Locks a journal, unless a live commit holds it: a lock held by someone
/// only looking (another recovery, `aide doctor`) is let go within
/// milliseconds, so it is tried again for up to 100 ms.
fn lock_unless_live(file: &File, exclusive: bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(100);
    loop {
        let locked = if exclusive { file.try_lock() } else { file.try_lock_shared() };
        match locked {
            Ok(()) => return true,
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(_) => return false,
        }
    }
}

/// Whether the process that is writing the journal `<id>.<pid>.json.writing` still runs.
fn writer_alive(name: &str) -> bool {
    let pid = name.strip_suffix(&format!(".{WRITING}")).and_then(|rest| rest.rsplit('.').next());
    match pid.and_then(|p| p.parse::<i32>().ok()).and_then(rustix::process::Pid::from_raw) {
        // Signal 0 only asks: ESRCH is gone, anything else (EPERM too) is alive.
        Some(pid) => !matches!(rustix::process::test_kill_process(pid), Err(rustix::io::Errno::SRCH)),
        None => false,
    }
}

/// The interrupted transforms of `root` (journals nobody holds), without
/// touching them: what a dry run reports instead of recovering.
pub fn pending(root: &Root) -> Vec<String> {
    unheld(false, Some(root.path()))
        .into_iter()
        .filter_map(|j| j.record)
        .filter(|r| r.root == root.path())
        .map(|r| r.execution_id)
        .collect()
}

/// Every interrupted transform under any root: what `aide doctor`
/// reports. A journal that cannot be read has no root and is named by its
/// file.
pub fn interrupted() -> Vec<Interrupted> {
    unheld(false, None)
        .into_iter()
        .map(|j| match j.record {
            Some(r) => Interrupted { execution_id: r.execution_id, root: Some(r.root), unverified: r.verifying },
            None => Interrupted { execution_id: j.path.display().to_string(), root: None, unverified: false },
        })
        .collect()
}

/// Finishes or rolls back every interrupted transform of `root`, and undoes
/// (by `undo_unverified`) those whose edit landed unverified. A journal
/// that cannot be read is cleared: no live commit holds it, and with
/// journals renamed into place whole, none can be one being written.
pub fn recover(root: &Root, undo_unverified: UndoUnverified<'_>) -> Result<Vec<Recovered>, AideError> {
    let mut out = Vec::new();
    let mut journals = unheld(true, Some(root.path()));
    // An unverified edit after the rollbacks: one whose in-process rollback
    // died midway has that rollback's journal too, completed first.
    journals.sort_by_key(|j| j.record.as_ref().is_some_and(|r| r.verifying));
    for journal in journals {
        match &journal.record {
            Some(record) if record.root == root.path() => {
                out.push(recover_record(root, record, undo_unverified)?);
                let _ = std::fs::remove_file(&journal.path);
            }
            Some(_) => {}
            None => {
                let _ = std::fs::remove_file(&journal.path);
            }
        }
    }
    Ok(out)
}

/// Recovers the one journal `execution_id` on `root`, wherever its commit
/// ran: for a root that was moved (or reached by another path) since.
pub fn recover_journal(
    root: &Root,
    execution_id: &str,
    undo_unverified: UndoUnverified<'_>,
) -> Result<Recovered, AideError> {
    let held = || TransformError::NoJournal { id: execution_id.to_string() }.into();
    if !execution_id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') || execution_id.is_empty() {
        return Err(held());
    }
    let journal = unheld(true, None)
        .into_iter()
        .find(|j| j.path.file_stem().is_some_and(|s| s == execution_id))
        .ok_or_else(held)?;
    let record = journal.record.as_ref().ok_or_else(held)?;
    let recovered = recover_record(root, record, undo_unverified)?;
    let _ = std::fs::remove_file(&journal.path);
    Ok(recovered)
}

/// Recovers one commit ([`recover_one`]); one whose edit landed unverified
/// is then undone, its files' locks let go first (the undo takes them).
fn recover_record(
    root: &Root,
    record: &JournalRecord,
    undo_unverified: UndoUnverified<'_>,
) -> Result<Recovered, AideError> {
    let mut recovered = recover_one(root, record)?;
    if record.verifying && recovered.action == RecoveryAction::Completed {
        match undo_unverified(root, &record.execution_id) {
            Ok(()) => recovered.action = RecoveryAction::UndoneUnverified,
            Err(e) => recovered.unverified_kept = Some(e.message.into()),
        }
    }
    Ok(recovered)
}

/// The state of one journalled file now.
enum Now {
    Before,
    After,
    Other,
}

/// One journalled file as recovery finds it.
struct Found {
    shown: String,
    dir: rustix::fd::OwnedFd,
    name: std::ffi::OsString,
    state: Now,
}

// Long because: the recovery's cases (nothing replaced, some, all, folders removed) decided from one pass over the files, in order.
/// Recovers one commit. It always finishes: a file it cannot look at or
/// put in place is named in `unrestored`, and the rest are recovered.
fn recover_one(root: &Root, record: &JournalRecord) -> Result<Recovered, AideError> {
    let abs: Vec<PathBuf> = record.files.iter().map(|f| root.path().join(&f.path)).collect();
    let _locks = crate::disk::lock_all(abs.iter().map(PathBuf::as_path))?;
    let mut unrestored = Vec::new();
    let mut found: Vec<Option<Found>> = Vec::new();
    for f in &record.files {
        let shown = aide_core::text::escape_path(f.path.as_os_str(), false).into_owned();
        let look = || -> Result<Found, AideError> {
            let parent = f.path.parent().unwrap_or(Path::new(""));
            let dir = root.open_dir(parent, false).map_err(|e| e.into_error(&shown))?;
            let name = f.path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
            let now = read_entry_at(&dir, &name).map_err(|e| e.into_error(&shown))?.map(|e| e.checksum());
            let state = if now == f.checksum_after {
                Now::After
            } else if now == f.checksum_before {
                Now::Before
            } else {
                Now::Other
            };
            Ok(Found { shown: shown.clone(), dir, name, state })
        };
        match look() {
            Ok(found_one) => found.push(Some(found_one)),
            Err(e) => {
                unrestored.push(Unrestored { path: shown, reason: e.message.into() });
                found.push(None);
            }
        }
    }
    // A removed folder gone: every file had been put in place before it.
    let removed: Vec<PathBuf> = record.removed_dirs.iter().map(PathBuf::from).collect();
    let folder_gone = removed.iter().any(|d| matches!(root.open_dir(d, false), Err(aide_core::root::OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound));
    // A file whose content the commit keeps (a mode change) says nothing
    // of how far the commit got: its old and new checksums are one.
    let any_after = folder_gone
        || record.files.iter().zip(&found).any(|(f, found)| {
            f.checksum_before != f.checksum_after && matches!(found, Some(Found { state: Now::After, .. }))
        });
    let mut conflicts = Vec::new();
    let mut files = 0;
    for (f, found) in record.files.iter().zip(&found) {
        let Some(Found { shown, dir, name, state }) = found else { continue };
        match (state, any_after) {
            (Now::Other, _) => conflicts.push(shown.clone()),
            (Now::Before, true) => {
                let put = match &f.temp {
                    // Only a temporary with the new content goes in.
                    Some(temp) if staged_whole(dir, temp, f) => {
                        rustix::fs::renameat(dir, temp.as_os_str(), dir, name.as_os_str()).map(|()| true)
                    }
                    Some(_) => Ok(false),
                    None => rustix::fs::unlinkat(dir, name.as_os_str(), AtFlags::empty()).map(|()| true),
                };
                match put {
                    Ok(true) => files += 1,
                    Ok(false) => conflicts.push(shown.clone()),
                    Err(e) => unrestored.push(Unrestored { path: shown.clone(), reason: e.to_string() }),
                }
            }
            // A mode change of a commit that went on: its staged file (same
            // bytes, the new mode) goes in.
            (Now::After, true) if f.checksum_before == f.checksum_after => {
                if let Some(temp) = f.temp.as_ref().filter(|t| staged_whole(dir, t, f))
                    && let Err(e) = rustix::fs::renameat(dir, temp.as_os_str(), dir, name.as_os_str())
                {
                    unrestored.push(Unrestored { path: shown.clone(), reason: e.to_string() });
                }
                files += 1;
            }
            (Now::After, _) | (Now::Before, false) => files += 1,
        }
        if let Some(temp) = &f.temp {
            let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
        }
        let _ = rustix::fs::fsync(dir);
    }
    if any_after {
        if let (_, Some((dir, e))) = crate::disk::remove_dirs(root, removed.iter()) {
            unrestored.push(Unrestored { path: dir, reason: e.to_string() });
        }
    } else {
        // The transform never happened: nothing to undo, and the folders it made go.
        let _ = std::fs::remove_dir_all(crate::undo_store::undo_dir().join(&record.execution_id));
        let made: Vec<PathBuf> = record.made_dirs.iter().map(PathBuf::from).collect();
        crate::disk::remove_made_dirs(root, &made);
    }
    Ok(Recovered {
        execution_id: record.execution_id.clone(),
        action: if any_after { RecoveryAction::Completed } else { RecoveryAction::RolledBack },
        files,
        conflicts,
        unrestored,
        unverified_kept: None,
    })
}

/// Whether the temporary `temp` in `dir` holds the new content of `f`
/// whole (staged and fsynced before the commit died).
fn staged_whole(dir: &rustix::fd::OwnedFd, temp: &Path, f: &JournalFile) -> bool {
    let staged = read_entry_at(dir, temp.as_os_str()).ok().flatten().map(|e| e.checksum());
    staged.is_some() && staged == f.checksum_after
}

/// Recovery as diagnostics, for a run that recovered on its way.
pub fn diagnostics(recovered: &[Recovered]) -> Vec<aide_core::Diagnostic> {
    recovered
        .iter()
        .map(|r| {
            let what = match r.action {
                RecoveryAction::Completed => "completed",
                RecoveryAction::RolledBack => "rolled back (nothing of it had been written)",
                RecoveryAction::UndoneUnverified => {
                    "undone: its edit had landed, but its run died while checking it (--verify)"
                }
            };
            let mut message = format!("an interrupted transform ({}) of this root was {what}", r.execution_id);
            if let Some(why) = &r.unverified_kept {
                message.push_str(&format!(
                    "; its run died while checking it (--verify), and undoing it failed ({why}): the edit stands, unverified"
                ));
            }
            if !r.conflicts.is_empty() {
                message.push_str(&format!(
                    "; changed by someone else since, left as they are: {}",
                    r.conflicts.join(", ")
                ));
            }
            if !r.unrestored.is_empty() {
                let named: Vec<String> = r.unrestored.iter().map(|u| format!("{} ({})", u.path, u.reason)).collect();
                message.push_str(&format!("; could not be restored, left as they are: {}", named.join(", ")));
            }
            aide_core::Diagnostic::new(aide_core::envelope::diag::TRANSFORM_RECOVERED, message)
        })
        .collect()
}
