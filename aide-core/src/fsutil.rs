//! File-system helpers shared by the tools that write state.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// fsync, rename over the target, fsync of the folder. Readers see the old
/// content or the new, never a mix; a crash leaves one of the two. An
/// existing file keeps its permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    write_atomic_with(path, bytes, permissions)
}

/// [`write_atomic`], giving the new file `permissions` (None: the default
/// for a new file).
pub fn write_atomic_with(path: &Path, bytes: &[u8], permissions: Option<std::fs::Permissions>) -> std::io::Result<()> {
    let tmp = write_temp_beside(path, bytes, permissions)?;
    let result = std::fs::rename(&tmp, path).and_then(|()| sync_dir(path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to a new temporary file in `path`'s folder and fsyncs it,
/// ready to be renamed over `path`. The caller renames it (or removes it).
pub fn write_temp_beside(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<PathBuf> {
    let dir = parent_dir(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), crate::ids::new_execution_id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if let Some(p) = permissions {
            f.set_permissions(p)?;
        }
        f.sync_all()
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Creates `dir` (and missing parents) readable by the owner only (0700),
/// for state under `$AIDE_HOME`: session variables, job output and undo data
/// are nobody else's business.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A private (0700) folder under the system's temporary folder, removed
/// with all it holds when dropped: a throwaway session, a revision's tree.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new one named `{prefix}-{a fresh id}`.
    pub fn new(prefix: &str) -> std::io::Result<TempDir> {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}", crate::ids::new_execution_id()));
        private_dir(&dir)?;
        Ok(TempDir(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether a process holds a lock (`flock`) on the file at `path` now.
pub fn lock_held(path: &Path) -> bool {
    open_private_regular(path).is_ok_and(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)))
}

/// Whether `path` still names `file`: false once it was removed or replaced
/// since `file` was opened (a lock taken on it would lock nothing).
pub fn still_names(path: &Path, file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let mine = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) => Ok((now.dev(), now.ino()) == (mine.dev(), mine.ino())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Options that create a file readable by the owner only (0600). They never
/// follow a link at the last component and never block on a FIFO: a state
/// folder someone poisoned (a link to `/dev/zero`, a FIFO where a lock file
/// was) gives an error at once instead of a hang (pair with [`regular`]).
pub fn private_file() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    options
}

/// `file` if it is a regular file; an error (`InvalidInput`) for a FIFO, a
/// device, a socket or a folder that stands where state should be.
pub fn regular(file: std::fs::File) -> std::io::Result<std::fs::File> {
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"))
    }
}

/// Opens a state file under `$AIDE_HOME` to read: no link followed, no
/// FIFO waited on, a regular file only.
pub fn open_private_regular(path: &Path) -> std::io::Result<std::fs::File> {
    regular(private_file().read(true).open(path)?)
}

/// Whether opening or reading a state file failed because what stands
/// there is nothing aide wrote: a link (`ELOOP`), a FIFO without a reader
/// (`ENXIO`), a folder, device or socket ([`regular`]), or a file far over
/// its size ([`read_private`]). Such an entry is removed, not waited on.
pub fn is_planted(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::InvalidInput | std::io::ErrorKind::FileTooLarge)
        || matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENXIO))
}

/// Reads a state file under `$AIDE_HOME` whole, as [`open_private_regular`]
/// opens it; one over `max` bytes is an error (`FileTooLarge`), not read.
pub fn read_private(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_private_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{} bytes, over the {max} read", len),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, format!("over the {max} bytes read")));
    }
    Ok(bytes)
}

/// Permissions for a file only its owner may read (0600).
pub fn private_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o600)
}

/// fsyncs the folder holding `path`, so a rename in it survives a crash.
pub fn sync_dir(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(parent_dir(path))?.sync_all()
}

fn parent_dir(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Replaces `path` with `bytes` atomically for readers (temporary file and
/// rename) without waiting for the disk: for state that is cheap to lose in
/// a power cut but must never be seen half-written.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let write = |tmp: &Path| private_file().write(true).create(true).truncate(true).open(tmp)?.write_all(bytes);
    write(&tmp).and_then(|()| std::fs::rename(&tmp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// How long before a file's contents are trusted by a cache its last
/// change must lie: more than any file system's timestamp tick, so a later
/// write moves the stamp (git's "racily clean" rule).
pub const SETTLED: Duration = Duration::from_secs(2);

/// What identifies one version of a file without reading it: device,
/// inode, size, and modification and status-change times to the
/// nanosecond. Caches of what a file holds (checksums, parsed trees) key
/// their entries on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    pub(crate) ctime_ns: i64,
}

impl Stamp {
    pub fn of(md: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nsecs: i64| secs.saturating_mul(1_000_000_000).saturating_add(nsecs);
        Stamp {
            dev: md.dev(),
            ino: md.ino(),
            size: md.size(),
            mtime_ns: ns(md.mtime(), md.mtime_nsec()),
            ctime_ns: ns(md.ctime(), md.ctime_nsec()),
        }
    }

    /// The stamp of an `fstat` (as [`crate::root::Root::open_file_with_stat`] returns).
    pub fn from_stat(st: &rustix::fs::Stat) -> Stamp {
        // The fields' types differ between architectures; i128 holds them all.
        let ns = |secs: i128, nsecs: i128| i64::try_from(secs * 1_000_000_000 + nsecs).unwrap_or(i64::MAX);
        Stamp {
            dev: u64::try_from(i128::from(st.st_dev)).unwrap_or(0),
            ino: u64::try_from(i128::from(st.st_ino)).unwrap_or(0),
            size: u64::try_from(i128::from(st.st_size)).unwrap_or(0),
            mtime_ns: ns(i128::from(st.st_mtime), i128::from(st.st_mtime_nsec)),
            ctime_ns: ns(i128::from(st.st_ctime), i128::from(st.st_ctime_nsec)),
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the file last changed (contents or status) more than
    /// [`SETTLED`] before `now`; a time in the future never has.
    pub fn settled(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(UNIX_EPOCH) else { return false };
        let limit = i64::try_from(now.saturating_sub(SETTLED).as_nanos()).unwrap_or(i64::MAX);
        self.ctime_ns < limit && self.mtime_ns < limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temporary_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
        write_atomic(&p, b"two and a half").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o750);
        replace(&p, b"three").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"three");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
