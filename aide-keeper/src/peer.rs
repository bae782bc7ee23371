//! Who is at the other end of a Unix socket: a process proven by a pidfd,
//! never by a number read from a file or a pid that may have been reused.
//!
//! The kernel hands out a pidfd of the socket's peer (`SO_PEERPIDFD`, Linux
//! 6.5): the process that connected, or, seen from a caller, the one that
//! listens. It names that process for good, even once it exited. What is
//! read of it by its pid (`/proc/PID/status`) is its own only if it still
//! has that pid after the read, which the pidfd's `fdinfo` says (`Pid: -1`
//! once it is gone): so a caller that exits before it is looked at, or whose
//! pid a new process took, is [`Unproven`], never taken for another.
//!
//! Kernels without `SO_PEERPIDFD` (before 6.5) open the pidfd by the pid
//! `SO_PEERCRED` recorded (`pidfd_open`, Linux 5.3): a caller that exited
//! first is still unproven, and only a process that took over its pid
//! between its connection and this look would be taken for it (a sandboxed
//! caller cannot pick which process that is: all it starts inherits its
//! `no_new_privs`). Before 5.3 there is no pidfd and no Landlock either,
//! so no aide sandbox: the status is read by pid alone.

use std::io::{self, BufRead};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;

/// A process proven to be a socket's peer, with what was read of it then.
#[derive(Debug)]
pub(crate) struct Process {
    pid: i32,
    /// None only on kernels without pidfds (before 5.3).
    pidfd: Option<OwnedFd>,
    /// The peer's user, as the kernel recorded it when it connected or listened.
    pub uid: u32,
    /// How confined it was when it was looked at.
    pub confinement: Confinement,
}

/// How confined a process is, as far as aide's sandboxes tell: each runs
/// its command in a user namespace of its own (so a process there is told
/// from one outside even where everything runs under another sandbox's
/// `no_new_privs`, as in a CI runner's or a harness's), under
/// `no_new_privs`, which nothing unsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Confinement {
    pub no_new_privs: bool,
    /// Its user namespace (the namespace's inode); None where it cannot
    /// be looked into (from inside a sandbox it is not in) or the kernel
    /// has no user namespaces (and so no aide sandbox).
    pub user_namespace: Option<u64>,
}

impl Confinement {
    /// This process's: unknown `no_new_privs` is taken for yes.
    pub(crate) fn own() -> Confinement {
        let status = status_of_path(Path::new("/proc/self/status"));
        Confinement {
            no_new_privs: status.is_none_or(|s| s.confinement.no_new_privs),
            user_namespace: user_namespace_of(Path::new("/proc/self")),
        }
    }

    /// Whether a process so confined gets nothing through one confined as
    /// `other`: it is in the same user namespace (a process in an aide
    /// sandbox is in one of its own), and under `no_new_privs` only if
    /// `other` is too.
    pub(crate) fn no_more_than(&self, other: &Confinement) -> bool {
        self.user_namespace == other.user_namespace && (!self.no_new_privs || other.no_new_privs)
    }

    /// Whether a caller so confined may trust a keeper confined as
    /// `keeper`: one started from a sandbox this caller is not in may say
    /// anything. A keeper this caller cannot look into is outside the
    /// caller's own sandbox, so no more confined than it.
    pub(crate) fn trusts(&self, keeper: &Confinement) -> bool {
        match keeper.user_namespace {
            Some(_) => keeper.no_more_than(self),
            None => !keeper.no_new_privs || self.no_new_privs,
        }
    }
}

/// Why a peer could not be proven: it is taken for no one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unproven(pub String);

impl Process {
    pub(crate) fn pid(&self) -> i32 {
        self.pid
    }

    /// Sends `signal` to this process, never to another that took its pid.
    pub(crate) fn signal(&self, signal: rustix::process::Signal) -> io::Result<()> {
        match &self.pidfd {
            Some(fd) => rustix::process::pidfd_send_signal(fd, signal).map_err(io::Error::from),
            None => {
                let pid = rustix::process::Pid::from_raw(self.pid).ok_or_else(|| io::Error::other("no pid"))?;
                rustix::process::kill_process(pid, signal).map_err(io::Error::from)
            }
        }
    }

    /// Whether it still runs (not yet reaped) under its pid.
    pub(crate) fn is_alive(&self) -> bool {
        match &self.pidfd {
            Some(fd) => pidfd_pid(fd).is_ok_and(|p| p == self.pid),
            None => Path::new(&format!("/proc/{}", self.pid)).exists(),
        }
    }
}

/// How the peer's pidfd is had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// From the socket (`SO_PEERPIDFD`), falling back to the pid where the kernel has no such option.
    Socket,
    /// By its pid (`pidfd_open`): the fallback, chosen by tests.
    #[cfg(test)]
    Pid,
}

/// The process at the other end of `stream`, proven.
pub(crate) fn of_peer(stream: &UnixStream) -> Result<Process, Unproven> {
    of_peer_from(stream, Source::Socket)
}

fn of_peer_from(stream: &UnixStream, source: Source) -> Result<Process, Unproven> {
    let cred = rustix::net::sockopt::socket_peercred(stream)
        .map_err(|e| Unproven(format!("the socket's peer credentials: {e}")))?;
    let pid = cred.pid.as_raw_nonzero().get();
    let uid = cred.uid.as_raw();
    let pidfd = match source {
        Source::Socket => match peer_pidfd(stream) {
            Ok(fd) => Some(fd),
            Err(e) if e.raw_os_error() == Some(libc::ENOPROTOOPT) => open_pidfd(pid)?,
            Err(e) => return Err(Unproven(format!("the socket's peer: {e}"))),
        },
        #[cfg(test)]
        Source::Pid => open_pidfd(pid)?,
    };
    let confinement = match &pidfd {
        Some(fd) => {
            // The pidfd must name the pid the credentials do before the
            // read, and still after it: then what was read was its own.
            expect_pid(fd, pid)?;
            let status = status_of(pid)?;
            expect_pid(fd, pid)?;
            status.confinement
        }
        None => status_of(pid)?.confinement,
    };
    Ok(Process { pid, pidfd, uid, confinement })
}

/// The process holding an exclusive `flock` on the file `path`, proven: the
/// pid `/proc/locks` names, held by a pidfd, with the file open (a process
/// that merely took over a dead holder's pid has not), and still that pid
/// after all was read. None when no process holds the lock.
pub(crate) fn holding_lock(path: &Path) -> Result<Option<Process>, Unproven> {
    use std::os::unix::fs::MetadataExt;
    let unreadable = |e: io::Error| Unproven(format!("{}: {e}", path.display()));
    let Some(pid) = lock_holder(path).map_err(unreadable)? else { return Ok(None) };
    let pidfd = open_pidfd(pid)?;
    let lock = std::fs::metadata(path).map_err(unreadable)?;
    let open = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map_err(|e| Unproven(format!("process {pid}'s files: {e}")))?
        .flatten()
        .filter_map(|fd| std::fs::metadata(fd.path()).ok())
        .any(|file| (file.dev(), file.ino()) == (lock.dev(), lock.ino()));
    if !open {
        return Err(Unproven(format!("process {pid} does not have {} open", path.display())));
    }
    let status = status_of(pid)?;
    if let Some(fd) = &pidfd {
        expect_pid(fd, pid)?;
    }
    Ok(Some(Process { pid, pidfd, uid: status.uid, confinement: status.confinement }))
}

/// The pid of the process `/proc/locks` names as holding an exclusive
/// `flock` on the file `path` (None when none holds one).
pub(crate) fn lock_holder(path: &Path) -> io::Result<Option<i32>> {
    let Some((file, _)) = lock_file_id(path)? else { return Ok(None) };
    let locks = std::fs::read_to_string("/proc/locks")?;
    Ok(locks.lines().find_map(|line| flock_writer(line, &file)))
}

/// Whether process `pid` holds an exclusive `flock` on the file `path`
/// through a file it has open, as that open file's `fdinfo` says (its
/// `lock:` lines are `/proc/locks`' lines of the locks it took). Unlike
/// `/proc/locks`, whose every read first waits out an RCU grace period
/// (the kernel takes the file-lock rwsem for writing to list them: 5 to
/// 12 ms, most of what a keeper's answer cost), it reads only `pid`'s own
/// files. The caller proves `pid` is still the process it means after.
pub(crate) fn holds_lock(pid: i32, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let Some((file, (dev, ino))) = lock_file_id(path)? else { return Ok(false) };
    for fd in std::fs::read_dir(format!("/proc/{pid}/fd"))?.flatten() {
        let opened = std::fs::metadata(fd.path()).is_ok_and(|m| (m.dev(), m.ino()) == (dev, ino));
        if !opened {
            continue;
        }
        let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy()));
        let holds = info.is_ok_and(|info| {
            info.lines().filter_map(|l| l.strip_prefix("lock:")).any(|lock| flock_writer(lock, &file) == Some(pid))
        });
        if holds {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The file `path` as lock lines name it (`MAJ:MIN:INODE`), with its device
/// and inode; None when there is no such file.
fn lock_file_id(path: &Path) -> io::Result<Option<(String, (u64, u64))>> {
    use std::os::unix::fs::MetadataExt;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let dev = meta.dev();
    let file = format!("{:02x}:{:02x}:{}", rustix::fs::major(dev), rustix::fs::minor(dev), meta.ino());
    Ok(Some((file, (dev, meta.ino()))))
}

/// The pid of a granted exclusive `flock` line of `/proc/locks` on `file`
/// (`MAJ:MIN:INODE`): `1: FLOCK  ADVISORY  WRITE 1234 00:2f:5678 0 EOF`.
fn flock_writer(line: &str, file: &str) -> Option<i32> {
    let mut fields = line.split_whitespace().skip(1);
    let (kind, _, access, pid, on) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?, fields.next()?);
    // A waiter's line reads `1: -> FLOCK …`: its kind is `->`.
    (kind == "FLOCK" && access == "WRITE" && on == file).then(|| pid.parse().ok()).flatten()
}

/// What is read of a process.
struct Status {
    confinement: Confinement,
    /// Its effective user.
    uid: u32,
}

/// What is read of process `pid`: its status, and its user namespace
/// where it can be looked into (not from inside a sandbox it is not in).
fn status_of(pid: i32) -> Result<Status, Unproven> {
    let dir = format!("/proc/{pid}");
    let status = status_of_path(&Path::new(&dir).join("status"))
        .ok_or_else(|| Unproven(format!("process {pid} is gone or cannot be read")))?;
    let user_namespace = user_namespace_of(Path::new(&dir));
    Ok(Status { confinement: Confinement { user_namespace, ..status.confinement }, ..status })
}

/// A status file's `no_new_privs` and effective user (the user namespace
/// is the caller's to read).
fn status_of_path(path: &Path) -> Option<Status> {
    let status = std::fs::read_to_string(path).ok()?;
    let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
    // `Uid:` gives the real, effective, saved and filesystem ids.
    let uid = field("Uid:")?.split_whitespace().nth(1)?.parse().ok()?;
    let no_new_privs = field("NoNewPrivs:")? == "1";
    Some(Status { confinement: Confinement { no_new_privs, user_namespace: None }, uid })
}

/// The user namespace of the process whose `/proc` folder is `dir`.
fn user_namespace_of(dir: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir.join("ns/user")).ok().map(|m| m.ino())
}

fn expect_pid(fd: &OwnedFd, pid: i32) -> Result<(), Unproven> {
    match pidfd_pid(fd) {
        Ok(p) if p == pid => Ok(()),
        Ok(-1) => Err(Unproven(format!("process {pid} exited"))),
        Ok(p) => Err(Unproven(format!("process {pid} is not the socket's peer (its pidfd names {p})"))),
        Err(e) => Err(Unproven(format!("process {pid}'s pidfd: {e}"))),
    }
}

/// The pid a pidfd names now, as its `fdinfo` says: -1 once the process
/// was reaped, 0 when it lives in another pid namespace.
fn pidfd_pid(fd: &OwnedFd) -> io::Result<i32> {
    let info = std::fs::File::open(format!("/proc/self/fdinfo/{}", fd.as_raw_fd()))?;
    for line in io::BufReader::new(info).lines() {
        if let Some(pid) = line?.strip_prefix("Pid:") {
            return pid.trim().parse().map_err(|_| io::Error::other("an unreadable Pid line"));
        }
    }
    Err(io::Error::other("no Pid line (not a pidfd?)"))
}

/// A pidfd of `pid`, None on a kernel without pidfds (before 5.3).
fn open_pidfd(pid: i32) -> Result<Option<OwnedFd>, Unproven> {
    let gone = || Unproven(format!("process {pid} is gone"));
    let process = rustix::process::Pid::from_raw(pid).ok_or_else(gone)?;
    match rustix::process::pidfd_open(process, rustix::process::PidfdFlags::empty()) {
        Ok(fd) => Ok(Some(fd)),
        Err(rustix::io::Errno::NOSYS) => Ok(None),
        Err(_) => Err(gone()),
    }
}

/// `SO_PEERPIDFD`'s number (Linux's generic one; SPARC numbers its own).
#[cfg(not(any(target_arch = "sparc", target_arch = "sparc64")))]
const SO_PEERPIDFD: libc::c_int = 77;
#[cfg(any(target_arch = "sparc", target_arch = "sparc64"))]
const SO_PEERPIDFD: libc::c_int = 0x56;

/// The socket's peer's pidfd. Unsafe, as no wrapper of this option exists
/// in rustix or libc yet.
#[allow(unsafe_code)]
fn peer_pidfd(stream: &UnixStream) -> io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    let mut fd: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes, the size of `fd`, into it.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            SO_PEERPIDFD,
            (&mut fd as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    if fd < 0 {
        return Err(io::Error::other("no pidfd given"));
    }
    // SAFETY: the kernel made `fd` for this call; nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the test binary itself, as a caller
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn a_live_peer_is_proven_with_its_pid_and_confinement() {
        let (a, _b) = UnixStream::pair().unwrap();
        for source in [Source::Socket, Source::Pid] {
            let me = of_peer_from(&a, source).unwrap();
            assert_eq!(me.pid(), std::process::id() as i32);
            assert_eq!(me.uid, rustix::process::geteuid().as_raw());
            assert_eq!(me.confinement, Confinement::own());
            assert!(me.is_alive());
        }
    }

    /// Not a test by itself: run by the next one as a child process that
    /// connects to the socket `AIDE_PEER_TEST_SOCKET` names, writes a line and exits.
    #[test]
    fn connect_write_and_exit() {
        if let Some(path) = std::env::var_os("AIDE_PEER_TEST_SOCKET") {
            use std::io::Write;
            UnixStream::connect(path).unwrap().write_all(b"x\n").unwrap();
        }
    }

    /// A child connects and is reaped before the connection is looked at:
    /// its credentials name a pid no process has now, where reading its
    /// status by pid read nothing (and was taken for an unconfined caller).
    #[test]
    fn a_peer_that_exited_before_it_was_looked_at_is_unproven() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let listener = UnixListener::bind(&path).unwrap();
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "peer::tests::connect_write_and_exit", "--quiet"])
            .env("AIDE_PEER_TEST_SOCKET", &path)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let (stream, _) = listener.accept().unwrap();
        let err = of_peer_from(&stream, Source::Socket).unwrap_err();
        assert!(err.0.contains("exited"), "{err}");
    }

    #[test]
    fn locks_lines_name_the_exclusive_holder_only() {
        let file = "00:2f:5678";
        assert_eq!(flock_writer("1: FLOCK  ADVISORY  WRITE 1234 00:2f:5678 0 EOF", file), Some(1234));
        assert_eq!(flock_writer("1: -> FLOCK  ADVISORY  WRITE 99 00:2f:5678 0 EOF", file), None);
        assert_eq!(flock_writer("2: FLOCK  ADVISORY  READ 1234 00:2f:5678 0 EOF", file), None);
        assert_eq!(flock_writer("3: POSIX  ADVISORY  WRITE 1234 00:2f:5678 0 EOF", file), None);
        assert_eq!(flock_writer("4: FLOCK  ADVISORY  WRITE 1234 00:2f:56789 0 EOF", file), None);
    }

    #[test]
    fn the_holder_of_a_files_lock_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keeper.lock");
        let file = std::fs::File::create(&path).unwrap();
        assert_eq!(lock_holder(&path).unwrap(), None);
        assert!(holding_lock(&path).unwrap().is_none());
        assert!(!holds_lock(std::process::id() as i32, &path).unwrap());
        file.lock().unwrap();
        assert_eq!(lock_holder(&path).unwrap(), Some(std::process::id() as i32));
        let holder = holding_lock(&path).unwrap().unwrap();
        assert!(holds_lock(std::process::id() as i32, &path).unwrap());
        assert_eq!((holder.pid(), holder.uid), (std::process::id() as i32, rustix::process::geteuid().as_raw()));
    }
}
