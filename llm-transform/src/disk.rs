//! The files of a root as they are on disk, and who holds them: each
//! file's stamp and bytes read beneath the root without following links,
//! the locks a transform takes, and the folders a commit made. Shared by
//! the plan (which reads), the commit and its journal (which write), and
//! undo.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use aide_core::checksum::sha256_hex;
use aide_core::fsutil::Stamp as FileVersion;
use aide_core::root::OpenFailure;
use aide_core::{AideError, Root};
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::error::TransformError;

/// Exclusive locks on a set of paths, held until dropped: a byte-range
/// lock (an open file description lock) per path on one file,
/// `$AIDE_HOME/transform/locks.table`, at an offset the path's SHA-256
/// gives. One descriptor holds any number of them — a transform of 100,000
/// files takes one, not 100,000 — and they go with it, when dropped or
/// when the process dies; nothing is left behind. Two descriptors of one
/// process (two transforms of `aide mcp`) exclude each other as two
/// processes do.
#[derive(Debug)]
pub struct Locks {
    _table: Option<File>,
}

/// `$AIDE_HOME/transform/locks/`, where versions that locked a file per path kept them.
fn locks_dir() -> PathBuf {
    aide_core::home::aide_home().join("transform/locks")
}

/// `$AIDE_HOME/transform/locks.table`.
fn lock_table() -> PathBuf {
    aide_core::home::aide_home().join("transform/locks.table")
}

/// The byte of the lock table that stands for `abs`: 62 bits of its SHA-256.
fn lock_offset(abs: &Path) -> i64 {
    let digest = sha256_hex(abs.as_os_str().as_encoded_bytes());
    (u64::from_str_radix(&digest[..16], 16).unwrap_or(0) >> 2) as i64
}

/// The lock files under `$AIDE_HOME/transform/locks/`, left by versions
/// that locked a file per path, and how many a running one holds now. A
/// lock dies with its process, so none blocks anything.
pub fn lock_files() -> (usize, usize) {
    let Ok(rd) = std::fs::read_dir(locks_dir()) else { return (0, 0) };
    let (mut total, mut held) = (0, 0);
    for entry in rd.flatten() {
        total += 1;
        held += usize::from(aide_core::fsutil::lock_held(&entry.path()));
    }
    (total, held)
}

/// Removes the lock files no running transform holds (`aide doctor --fix`),
/// each while holding it, as a transform lets go of its own; returns how
/// many. A transform that tries the same path in that instant is refused
/// as locked, as it would be by another transform.
pub fn remove_unheld_locks() -> usize {
    let Ok(rd) = std::fs::read_dir(locks_dir()) else { return 0 };
    let mut removed = 0;
    for entry in rd.flatten() {
        let path = entry.path();
        let f = match aide_core::fsutil::open_private_regular(&path) {
            Ok(f) => f,
            // A FIFO or a link where a lock file was: not a lock anyone holds.
            Err(e) if aide_core::fsutil::is_planted(&e) => {
                if std::fs::remove_file(&path).is_ok() {
                    removed += 1;
                }
                continue;
            }
            Err(_) => continue,
        };
        if f.try_lock().is_err() {
            continue;
        }
        let same = aide_core::fsutil::still_names(&path, &f).unwrap_or(false);
        if same && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Opens the lock table (made the first time). A FIFO, link or folder
/// planted where it goes is not a table anyone locks: it is removed, and
/// the table made anew.
fn open_lock_table() -> Result<File, AideError> {
    let path = lock_table();
    let io = |e: &std::io::Error| AideError::io(&path.display().to_string(), e);
    if let Some(dir) = path.parent() {
        aide_core::fsutil::private_dir(dir).map_err(|e| io(&e))?;
    }
    for _ in 0..10 {
        let opened = aide_core::fsutil::private_file()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .and_then(aide_core::fsutil::regular);
        match opened {
            Ok(table) => return Ok(table),
            Err(e) if aide_core::fsutil::is_planted(&e) => {
                let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir(&path));
            }
            Err(e) => return Err(io(&e)),
        }
    }
    Err(io(&std::io::Error::other("something is put back where the lock table goes as soon as it is removed")))
}

/// Locks every path; one held by another transform is a `conflict`.
pub fn lock_all<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<Locks, AideError> {
    use nix::fcntl::{FcntlArg, fcntl};
    let mut paths: Vec<&Path> = paths.into_iter().collect();
    if paths.is_empty() {
        return Ok(Locks { _table: None });
    }
    paths.sort();
    paths.dedup();
    let table = open_lock_table()?;
    for p in paths {
        let range = nix::libc::flock {
            l_type: nix::libc::F_WRLCK as i16,
            l_whence: nix::libc::SEEK_SET as i16,
            l_start: lock_offset(p),
            l_len: 1,
            l_pid: 0,
        };
        match fcntl(&table, FcntlArg::F_OFD_SETLK(&range)) {
            Ok(_) => {}
            Err(nix::errno::Errno::EAGAIN | nix::errno::Errno::EACCES) => {
                return Err(TransformError::Locked { path: p.display().to_string() }.into());
            }
            Err(e) => return Err(AideError::io(&lock_table().display().to_string(), &std::io::Error::from(e))),
        }
    }
    Ok(Locks { _table: Some(table) })
}

/// The soft limit of open files raised to the hard one while it lives (a
/// commit holds a descriptor for each folder it writes in, and a tree may
/// have thousands), then put back when the last such guard of the process
/// goes: programs started after the run get the limit they had.
pub(crate) struct OpenFilesRaised(());

/// How many guards live, and the soft limit to put back.
static OPEN_FILES_RAISED: std::sync::Mutex<(usize, Option<u64>)> = std::sync::Mutex::new((0, None));

impl OpenFilesRaised {
    pub(crate) fn new() -> OpenFilesRaised {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let mut raised = aide_core::sync::lock(&OPEN_FILES_RAISED);
        if raised.0 == 0 {
            let now = getrlimit(Resource::Nofile);
            if now.current != now.maximum
                && setrlimit(Resource::Nofile, Rlimit { current: now.maximum, maximum: now.maximum }).is_ok()
            {
                raised.1 = now.current;
            }
        }
        raised.0 += 1;
        OpenFilesRaised(())
    }
}

impl Drop for OpenFilesRaised {
    fn drop(&mut self) {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let mut raised = aide_core::sync::lock(&OPEN_FILES_RAISED);
        raised.0 = raised.0.saturating_sub(1);
        if raised.0 == 0
            && let Some(old) = raised.1.take()
        {
            let maximum = getrlimit(Resource::Nofile).maximum;
            let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(old), maximum });
        }
    }
}

/// Who a file is and when it last changed (aide-core's [`FileVersion`]:
/// device, inode, size, times), and who may write it (mode, owner, group):
/// two stamps that differ mean another program replaced, wrote, chmod-ed
/// or chowned the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub version: FileVersion,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Stamp {
    pub fn of(stat: &rustix::fs::Stat) -> Stamp {
        Stamp { version: FileVersion::from_stat(stat), mode: stat.st_mode, uid: stat.st_uid, gid: stat.st_gid }
    }
}

/// A file as it is on disk now: its bytes and stamp, or None if absent.
pub type OnDisk = Option<(Vec<u8>, Stamp)>;

/// Reads `name` in the folder `dir`, never following a symlink (on a path
/// already resolved, a symlink is a swap) and never opening a FIFO or device.
pub fn read_at(dir: &OwnedFd, name: &OsStr) -> Result<OnDisk, OpenFailure> {
    let fd = match rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::LOOP) => return Err(OpenFailure::SWAPPED),
        Err(e) => return Err(e.into()),
    };
    let stat = rustix::fs::fstat(&fd)?;
    OpenFailure::check_regular(stat.st_mode)?;
    let mut bytes = Vec::with_capacity(stat.st_size as usize);
    File::from(fd).read_to_end(&mut bytes).map_err(OpenFailure::Io)?;
    Ok(Some((bytes, Stamp::of(&stat))))
}

/// What stands at a path of a directory operation: a file's bytes, or a
/// symbolic link's target (`link`), with its stamp.
#[derive(Debug, Clone)]
pub struct Entry {
    pub bytes: Vec<u8>,
    pub stamp: Stamp,
    pub link: bool,
}

impl Entry {
    /// Its checksum: a file's, or `link:` and its target's.
    pub fn checksum(&self) -> String {
        entry_checksum(&self.bytes, self.link)
    }
}

/// A file's checksum, or a link's (`link:` and its target's).
pub fn entry_checksum(bytes: &[u8], link: bool) -> String {
    if link { aide_core::tree::link_checksum(bytes) } else { sha256_hex(bytes) }
}

/// Reads `name` in `dir` as [`read_at`] does, but a symbolic link is read
/// as a link (its target), not refused: the entries of a tree that a
/// directory operation moves, copies or deletes.
pub fn read_entry_at(dir: &OwnedFd, name: &OsStr) -> Result<Option<Entry>, OpenFailure> {
    match read_at(dir, name) {
        Ok(found) => Ok(found.map(|(bytes, stamp)| Entry { bytes, stamp, link: false })),
        Err(OpenFailure::Outside(_)) => {
            let stat = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => stat,
                Err(Errno::NOENT) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::Symlink {
                return Err(OpenFailure::SWAPPED);
            }
            let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
            Ok(Some(Entry { bytes: target.into_bytes(), stamp: Stamp::of(&stat), link: true }))
        }
        Err(e) => Err(e),
    }
}

/// [`read_state`] for a path that may be a symbolic link (read as one).
pub fn read_entry(root: &Root, abs: &Path, shown: &str) -> Result<Option<Entry>, AideError> {
    let Some((dir, name)) = folder_of(root, abs, shown)? else { return Ok(None) };
    read_entry_at(&dir, name).map_err(|e| e.into_error(shown))
}

/// The folder of a resolved absolute path, opened beneath the root, and
/// the path's name in it; None if the folder does not exist.
fn folder_of<'p>(root: &Root, abs: &'p Path, shown: &str) -> Result<Option<(OwnedFd, &'p OsStr)>, AideError> {
    let (rel, name) = folder_and_name(root, abs, shown)?;
    match root.open_dir(rel, false) {
        Ok(d) => Ok(Some((d, name))),
        Err(OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into_error(shown)),
    }
}

/// Makes the folders `made` (relative, parents first) that do not exist,
/// each with its mode when one is given (a copied folder keeps its own).
pub fn make_dirs(root: &Root, made: &[(PathBuf, Option<u32>)]) -> Result<(), AideError> {
    for (dir, mode) in made {
        let shown = aide_core::root::to_slash(dir);
        let fd = root.open_dir(dir, true).map_err(|e| e.into_error(&shown))?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode & 0o7777))
                .map_err(|e| AideError::io(&shown, &e.into()))?;
        }
    }
    Ok(())
}

/// Removes the folders `removed` (relative), deepest first; each must be
/// empty. Returns those removed before a failure, and the failure.
pub fn remove_dirs<'a>(
    root: &Root,
    removed: impl DoubleEndedIterator<Item = &'a PathBuf>,
) -> (Vec<&'a PathBuf>, Option<(String, std::io::Error)>) {
    let mut done = Vec::new();
    for dir in removed.rev() {
        let shown = aide_core::root::to_slash(dir);
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { continue };
        let result = match root.open_dir(parent, false) {
            Ok(fd) => rustix::fs::unlinkat(&fd, name, AtFlags::REMOVEDIR).map_err(std::io::Error::from),
            Err(OpenFailure::Io(e)) => Err(e),
            Err(e) => Err(std::io::Error::other(String::from(e.into_error(&shown).message))),
        };
        match result {
            Ok(()) => done.push(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return (done, Some((shown, e))),
        }
    }
    (done, None)
}

/// A resolved absolute path as its folder (relative to the root) and name.
pub(crate) fn folder_and_name<'p>(root: &Root, abs: &'p Path, shown: &str) -> Result<(&'p Path, &'p OsStr), AideError> {
    let (Some(parent), Some(name)) = (abs.parent(), abs.file_name()) else {
        return Err(TransformError::NotAFilePath { path: shown.to_string() }.into());
    };
    let rel = parent
        .strip_prefix(root.path())
        .map_err(|_| OpenFailure::Outside("the path leads outside the root").into_error(shown))?;
    Ok((rel, name))
}

/// A file of the root as it is now, by its resolved absolute path: its
/// content and stamp (None if absent), read beneath the root.
pub fn read_state(root: &Root, abs: &Path, shown: &str) -> Result<OnDisk, AideError> {
    let Some((dir, name)) = folder_of(root, abs, shown)? else { return Ok(None) };
    read_at(&dir, name).map_err(|e| e.into_error(shown))
}

/// The stamp of `name` in `dir` now, or None if it is absent.
pub(crate) fn stamp_at(dir: &OwnedFd, name: &OsStr) -> Result<Option<Stamp>, Errno> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(Stamp::of(&stat))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes the folders a commit made (`made`, parents first) that are empty
/// again, deepest first: what a rollback leaves is the tree as it was.
pub fn remove_made_dirs(root: &Root, made: &[PathBuf]) {
    for dir in made.iter().rev() {
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { continue };
        if let Ok(fd) = root.open_dir(parent, false) {
            let _ = rustix::fs::unlinkat(&fd, name, AtFlags::REMOVEDIR);
        }
    }
}

/// A number from a test hook's environment variable (the crash and race
/// tests widen the windows they aim at with these).
pub(crate) fn test_hook_ms(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// A test hook that holds the run at a known point: with the variable
/// `name` set to a path, makes `<path>.reached` and waits until a file
/// exists at the path (for at most ten minutes). A test signals or kills
/// the run meanwhile, then opens the gate: no timing decides whether the
/// signal landed in time.
pub(crate) fn test_gate(name: &str) {
    let Some(gate) = std::env::var_os(name) else { return };
    let mut reached = gate.clone();
    reached.push(".reached");
    let _ = std::fs::write(reached, b"");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    while !Path::new(&gate).exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
