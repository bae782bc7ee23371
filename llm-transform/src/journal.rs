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

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use aide_core::checksum::sha256_hex;
use aide_core::{AideError, Root};
use rustix::fs::AtFlags;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::commit::{Target, read_at};

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
}

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
    pub fn begin(root: &Root, execution_id: &str, targets: &[Target<'_>]) -> Result<Journal, AideError> {
        let durable = targets.len() > 1;
        let dir = journal_dir();
        aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io("transform journal", &e))?;
        let record = JournalRecord {
            execution_id: execution_id.to_string(),
            root: root.path().to_path_buf(),
            files: targets
                .iter()
                .map(|t| JournalFile {
                    path: t.file.abs.strip_prefix(root.path()).unwrap_or(&t.file.abs).to_path_buf(),
                    temp: t.temp.clone().map(PathBuf::from),
                    checksum_before: t.file.original.as_deref().map(sha256_hex),
                    checksum_after: t.file.current.as_deref().map(sha256_hex),
                })
                .collect(),
        };
        let text = serde_json::to_vec(&record).map_err(|e| AideError::internal(e.to_string()))?;
        let path = dir.join(format!("{execution_id}.json"));
        // Locked before it has content: a recovery never takes a journal
        // that is still being written for one that died.
        let write = || -> std::io::Result<File> {
            let mut file = aide_core::fsutil::private_file().write(true).create_new(true).open(&path)?;
            file.lock()?;
            file.write_all(&text)?;
            if durable {
                file.sync_all()?;
                aide_core::fsutil::sync_dir(&path)?;
            }
            Ok(file)
        };
        let lock = write().map_err(|e| {
            let _ = std::fs::remove_file(&path);
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAction {
    /// Some files had been replaced: the rest were, from the staged temporaries.
    Completed,
    /// No file had been replaced: the temporaries were removed.
    RolledBack,
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
/// `exclusive` is false: to look, not to touch).
fn unheld(exclusive: bool) -> Vec<Unheld> {
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(journal_dir()) {
        Ok(rd) => rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect(),
        Err(_) => return Vec::new(),
    };
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let Ok(mut file) = File::open(&path) else { continue };
        // Held by a live commit: not ours to touch.
        let locked = if exclusive { file.try_lock() } else { file.try_lock_shared() };
        if locked.is_err() {
            continue;
        }
        let mut bytes = Vec::new();
        let record =
            std::io::Read::read_to_end(&mut file, &mut bytes).ok().and_then(|_| serde_json::from_slice(&bytes).ok());
        out.push(Unheld { path, record, _lock: file });
    }
    out
}

/// The interrupted transforms of `root` (journals nobody holds), without
/// touching them: what a dry run reports instead of recovering.
pub fn pending(root: &Root) -> Vec<String> {
    unheld(false)
        .into_iter()
        .filter_map(|j| j.record)
        .filter(|r| r.root == root.path())
        .map(|r| r.execution_id)
        .collect()
}

/// Every interrupted transform under any root, as (execution_id, root):
/// what `aide doctor` reports. A journal that cannot be read has no root
/// and is named by its file.
pub fn interrupted() -> Vec<(String, Option<PathBuf>)> {
    unheld(false)
        .into_iter()
        .map(|j| match j.record {
            Some(r) => (r.execution_id, Some(r.root)),
            None => (j.path.display().to_string(), None),
        })
        .collect()
}

/// Finishes or rolls back every interrupted transform of `root`.
pub fn recover(root: &Root) -> Result<Vec<Recovered>, AideError> {
    let mut out = Vec::new();
    for journal in unheld(true) {
        match &journal.record {
            Some(record) if record.root == root.path() => {
                out.push(recover_one(root, record)?);
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

/// The state of one journalled file now.
enum Now {
    Before,
    After,
    Other,
}

fn recover_one(root: &Root, record: &JournalRecord) -> Result<Recovered, AideError> {
    let abs: Vec<PathBuf> = record.files.iter().map(|f| root.path().join(&f.path)).collect();
    let _locks = crate::commit::lock_all(abs.iter().map(PathBuf::as_path))?;
    let mut states = Vec::new();
    for f in &record.files {
        let shown = aide_core::text::escape_path(f.path.as_os_str(), false).into_owned();
        let parent = f.path.parent().unwrap_or(Path::new(""));
        let dir = root.open_dir(parent, false).map_err(|e| e.into_error(&shown))?;
        let name = f.path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        let now = match read_at(&dir, &name) {
            Ok(Some((bytes, _))) => Some(sha256_hex(&bytes)),
            Ok(None) => None,
            Err(e) => return Err(e.into_error(&shown)),
        };
        let state = if now == f.checksum_after {
            Now::After
        } else if now == f.checksum_before {
            Now::Before
        } else {
            Now::Other
        };
        states.push((shown, dir, name, state));
    }
    let any_after = states.iter().any(|(_, _, _, s)| matches!(s, Now::After));
    let mut conflicts = Vec::new();
    let mut files = 0;
    for (f, (shown, dir, name, state)) in record.files.iter().zip(&states) {
        match (state, any_after) {
            (Now::Other, _) => conflicts.push(shown.clone()),
            (Now::Before, true) => {
                match &f.temp {
                    Some(temp) => {
                        // Only a temporary with the new content goes in.
                        let staged = read_at(dir, temp.as_os_str()).ok().flatten().map(|(b, _)| sha256_hex(&b));
                        if staged.is_some() && staged == f.checksum_after {
                            rustix::fs::renameat(dir, temp.as_os_str(), dir, name.as_os_str())
                                .map_err(|e| AideError::io(shown, &e.into()))?;
                            files += 1;
                        } else {
                            conflicts.push(shown.clone());
                        }
                    }
                    None => {
                        rustix::fs::unlinkat(dir, name.as_os_str(), AtFlags::empty())
                            .map_err(|e| AideError::io(shown, &e.into()))?;
                        files += 1;
                    }
                }
            }
            (Now::After, _) | (Now::Before, false) => files += 1,
        }
        if let Some(temp) = &f.temp {
            let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
        }
        let _ = rustix::fs::fsync(dir);
    }
    if !any_after {
        // The transform never happened: nothing to undo.
        let _ = std::fs::remove_dir_all(crate::undo::undo_dir().join(&record.execution_id));
    }
    Ok(Recovered {
        execution_id: record.execution_id.clone(),
        action: if any_after { RecoveryAction::Completed } else { RecoveryAction::RolledBack },
        files,
        conflicts,
    })
}

/// Recovery as diagnostics, for a run that recovered on its way.
pub fn diagnostics(recovered: &[Recovered]) -> Vec<aide_core::Diagnostic> {
    recovered
        .iter()
        .map(|r| {
            let what = match r.action {
                RecoveryAction::Completed => "completed",
                RecoveryAction::RolledBack => "rolled back (nothing of it had been written)",
            };
            let mut message = format!("an interrupted transform ({}) of this root was {what}", r.execution_id);
            if !r.conflicts.is_empty() {
                message.push_str(&format!(
                    "; changed by someone else since, left as they are: {}",
                    r.conflicts.join(", ")
                ));
            }
            aide_core::Diagnostic::new(aide_core::envelope::diag::TRANSFORM_RECOVERED, message)
        })
        .collect()
}
