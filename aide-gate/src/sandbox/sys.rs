//! The system calls a sandbox is made with, on paths opened without
//! following a symbolic link: `mount(2)`, `umount2(2)` and `O_PATH` opens.

#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

/// `mount(2)`; `source`, `target` and `data` as C strings.
pub(super) fn mount(
    source: Option<&str>,
    target: &str,
    kind: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> std::io::Result<()> {
    let c = |s: &str| CString::new(s).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput));
    let (source, target, kind, data) =
        (source.map(c).transpose()?, c(target)?, kind.map(c).transpose()?, data.map(c).transpose()?);
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: every pointer is NULL or a NUL-terminated string that outlives the call.
    let result = unsafe { libc::mount(ptr(&source), target.as_ptr(), ptr(&kind), flags, ptr(&data).cast()) };
    if result == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Detaches the mount at `path` (one this namespace made).
pub(super) fn unmount(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: a NUL-terminated path that outlives the call.
    let result = unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW) };
    if result == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// `path` opened as a place (`O_PATH`), never through a symbolic link
/// (the rules open the writable paths so too).
pub(super) fn open(path: &Path) -> std::io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    rustix::fs::openat2(rustix::fs::CWD, path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty(), ResolveFlags::NO_SYMLINKS)
        .map_err(std::io::Error::from)
}

/// The path that names what `fd` holds open.
pub(super) fn via(fd: &OwnedFd) -> String {
    format!("/proc/self/fd/{}", fd.as_raw_fd())
}
