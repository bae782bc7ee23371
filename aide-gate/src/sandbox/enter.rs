//! Entering a sandbox, in the helper process before it executes the
//! program: away from an inherited controlling terminal, into a user
//! namespace (with a mount namespace for a file sandbox, a network
//! namespace for `--network off`), the mounts, then Landlock.
//!
//! The unsafe calls here are the system calls no safe wrapper covers in
//! the crates aide uses (`unshare`, `fork`, `prctl`, `ioctl`; `mount` is in `sys`);
//! the helper is single-threaded when it makes them (it runs first in
//! `main`).
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

use super::{Network, Sandbox, SandboxMode};

/// Puts this process (single-threaded) into `sandbox`; why it is
/// Landlock's rules alone, carved, where the mounts could not be made
/// ([`super::carve`]).
pub(super) fn enter(sandbox: &Sandbox) -> Result<Option<String>, String> {
    detach_terminal();
    let files = sandbox.mode != SandboxMode::Off;
    // Inside another aide sandbox, mounts are refused (Landlock): its
    // namespaces and mounts stay, and this one's rules are added to its.
    let nested = files && inside_a_sandbox(sandbox);
    let mut namespaces = 0;
    if files && !nested {
        namespaces |= libc::CLONE_NEWUSER | libc::CLONE_NEWNS;
    }
    if sandbox.network == Network::Off {
        namespaces |= libc::CLONE_NEWUSER | libc::CLONE_NEWNET;
    }
    if namespaces != 0 {
        user_namespace(namespaces)?;
    }
    if sandbox.network == Network::Off {
        loopback_up()?;
    }
    let refused = match files && !nested {
        true => match super::mounts::mount(sandbox) {
            super::mounts::Mounts::Made => None,
            super::mounts::Mounts::Refused(why) => Some(why),
        },
        false => None,
    };
    if refused.is_some() {
        super::rules::landlock_rules(&super::carve::carved(sandbox, &super::mounts::read_only_paths(sandbox)))?;
    } else if files {
        super::rules::landlock_rules(sandbox)?;
    }
    Ok(refused)
}

/// Gives up a controlling terminal this process inherited (the caller's),
/// so the command cannot type into it (`TIOCSTI` works on one's own
/// controlling terminal without privileges). A session leader keeps its
/// own: a terminal's program, whose pty was made its controlling terminal
/// for it.
fn detach_terminal() {
    let leader = rustix::process::getsid(None).ok() == Some(rustix::process::getpid());
    if leader {
        return;
    }
    let Ok(tty) = rustix::fs::open(
        "/dev/tty",
        rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) else {
        return; // no controlling terminal
    };
    // SAFETY: TIOCNOTTY takes no argument; `tty` is an open descriptor.
    unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) };
}

/// Whether this process already runs in an aide file sandbox: under
/// `no_new_privs`, with a file system of its own mounted at the private
/// temporary directory's place (outside a sandbox that is a plain folder).
fn inside_a_sandbox(sandbox: &Sandbox) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: PR_GET_NO_NEW_PRIVS reads a flag of this process.
    let no_new_privs = unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) } == 1;
    let Some(temp) = &sandbox.temp else { return false };
    let dev = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.dev()).ok();
    let mounted = match (dev(temp), temp.parent().and_then(dev)) {
        (Some(here), Some(above)) => here != above,
        _ => false,
    };
    no_new_privs && mounted
}

/// Unshares `namespaces` (a user namespace among them) and maps this
/// process's ids into it: root's every id to itself (written by a child
/// left in the outer namespace, since only a process there may map more
/// than its own id), so root keeps its rights over every owner's files but
/// holds no capability over the host; anyone else's own uid and gid.
fn user_namespace(namespaces: libc::c_int) -> Result<(), String> {
    let (uid, gid) = (rustix::process::getuid().as_raw(), rustix::process::getgid().as_raw());
    let mapper = if uid == 0 { Mapper::start().ok() } else { None };
    // SAFETY: unshare takes flags only; this process is single-threaded.
    if unsafe { libc::unshare(namespaces) } != 0 {
        return Err(format!("no user namespace: {}", std::io::Error::last_os_error()));
    }
    if let Some(mapper) = mapper {
        mapper.map_every_id();
    }
    // What the mapper wrote is read back, not taken from its exit status
    // (which a parent ignoring SIGCHLD never sees): a map it could not
    // write (a root without CAP_SETGID or CAP_SETFCAP) is this process's
    // own id alone, which needs no privilege.
    let written = |file: &str| std::fs::read_to_string(file).is_ok_and(|map| !map.trim().is_empty());
    let write = |file: &str, text: String| std::fs::write(file, text).map_err(|e| format!("{file}: {e}"));
    if !written("/proc/self/gid_map") {
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    }
    if !written("/proc/self/uid_map") {
        write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    }
    Ok(())
}

/// A child waiting, in the outer user namespace, to write its parent's
/// identity maps once the parent has a namespace of its own.
struct Mapper {
    pid: libc::pid_t,
    go: Option<std::io::PipeWriter>,
}

impl Mapper {
    fn start() -> std::io::Result<Mapper> {
        let (wait, go) = std::io::pipe()?;
        let parent = std::process::id();
        // SAFETY: the helper is single-threaded, so the child may do anything the parent could.
        match unsafe { libc::fork() } {
            -1 => Err(std::io::Error::last_os_error()),
            0 => {
                drop(go);
                let mut wait = wait;
                let mut byte = [0u8; 1];
                let told = std::io::Read::read(&mut wait, &mut byte).is_ok_and(|n| n == 1);
                let all = "0 0 4294967295";
                let mapped = told
                    && std::fs::write(format!("/proc/{parent}/uid_map"), all).is_ok()
                    && std::fs::write(format!("/proc/{parent}/gid_map"), all).is_ok();
                // SAFETY: the child ends here, without running the parent's exit handlers.
                unsafe { libc::_exit(if mapped { 0 } else { 1 }) }
            }
            pid => Ok(Mapper { pid, go: Some(go) }),
        }
    }

    /// Lets the child write the maps, and waits for it to end.
    fn map_every_id(mut self) {
        if let Some(mut go) = self.go.take() {
            let _ = std::io::Write::write_all(&mut go, b"1");
        }
        self.wait();
    }

    /// Waits for the child (once).
    fn wait(&mut self) {
        self.go = None;
        let mut status = 0;
        // SAFETY: waits for this process's own child, which ends once its pipe is written or closed.
        unsafe { libc::waitpid(self.pid, &mut status, 0) };
        self.pid = -1;
    }
}

impl Drop for Mapper {
    fn drop(&mut self) {
        // Not told to map (the namespace was not made): the child reads the pipe's end and exits.
        if self.pid > 0 {
            self.wait();
        }
    }
}

/// Brings `lo` up in this network namespace (it starts down).
fn loopback_up() -> Result<(), String> {
    // SAFETY: a plain socket and two ioctls on a zeroed, NUL-terminated ifreq.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(format!("no socket for the loopback: {}", std::io::Error::last_os_error()));
        }
        let fd = OwnedFd::from_raw_fd(fd);
        let mut request: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            request.ifr_name[i] = *b as libc::c_char;
        }
        let mut result = libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            result = libc::ioctl(fd.as_raw_fd(), libc::SIOCSIFFLAGS, &request);
        }
        if result != 0 {
            return Err(format!("the loopback interface did not come up: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}
