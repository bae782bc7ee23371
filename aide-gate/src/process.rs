//! Child processes run in a process group of their own: signalling the whole
//! group, and waiting with a timeout that takes the group down (TERM, then
//! KILL after a grace period, then KILL for whatever it left behind).

use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

fn to_pid(raw: u32) -> Option<Pid> {
    i32::try_from(raw).ok().and_then(Pid::from_raw)
}

/// Sends `signal` to the process group `pgid` (never to group 0 or -1: a pid
/// that does not convert is refused).
pub fn signal_group(pgid: u32, signal: Signal) -> std::io::Result<()> {
    let pid = to_pid(pgid).ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    rustix::process::kill_process_group(pid, signal).map_err(std::io::Error::from)
}

/// Whether any process of the group `pgid` is still there.
pub fn group_alive(pgid: u32) -> bool {
    to_pid(pgid).is_some_and(|p| rustix::process::test_kill_process_group(p).is_ok())
}

/// How a wait ended.
#[derive(Debug)]
pub struct Waited {
    pub status: std::io::Result<ExitStatus>,
    /// The timeout passed and the group was signalled.
    pub timed_out: bool,
    /// The cancel flag was raised and the group was taken down.
    pub cancelled: bool,
}

/// Waits for `child`, the leader of its own process group. Past `timeout`
/// the group gets TERM, and KILL `grace` later; after a timed-out child ends,
/// what is left of its group gets KILL. The end is seen the moment it
/// happens: the wait runs in a thread while this one keeps the clock.
pub fn wait_with_timeout(child: Child, timeout: Option<Duration>, grace: Duration) -> Waited {
    wait_with_timeout_or_cancel(child, timeout, grace, None)
}

/// [`wait_with_timeout`], also taking the group down (TERM, KILL `grace`
/// later) as soon as `cancelled()` says so — a flag a signal handler set, so
/// that a killed tool does not leave its command running, or the run's
/// cancellation flag (an MCP `notifications/cancelled`). Polled every 20 ms.
pub fn wait_with_timeout_or_cancel(
    mut child: Child,
    timeout: Option<Duration>,
    grace: Duration,
    cancel: Option<&dyn Fn() -> bool>,
) -> Waited {
    let pgid = child.id();
    let mut cancelled = false;
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut timed_out = false;
    let mut kill_at: Option<Instant> = None;
    let status = loop {
        let wait_for = match (kill_at, deadline, timed_out) {
            (Some(k), _, _) => k.saturating_duration_since(Instant::now()),
            (None, Some(d), false) => d.saturating_duration_since(Instant::now()),
            _ => Duration::from_secs(3600),
        };
        // A cancel flag is polled: a signal handler can only set it.
        let wait_for = if cancel.is_some() { wait_for.min(Duration::from_millis(20)) } else { wait_for };
        if !cancelled && !timed_out && cancel.is_some_and(|c| c()) {
            cancelled = true;
            timed_out = true; // from here on, the same path as a timeout
            let _ = signal_group(pgid, Signal::TERM);
            kill_at = Some(Instant::now() + grace);
            continue;
        }
        match done_rx.recv_timeout(wait_for) {
            Ok(status) => break status,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(std::io::Error::other("lost track of the command")),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !timed_out && deadline.is_some_and(|d| Instant::now() >= d) {
                    timed_out = true;
                    let _ = signal_group(pgid, Signal::TERM);
                    kill_at = Some(Instant::now() + grace);
                } else if kill_at.is_some_and(|k| Instant::now() >= k) {
                    let _ = signal_group(pgid, Signal::KILL);
                    kill_at = None;
                }
            }
        }
    };
    if timed_out {
        let _ = signal_group(pgid, Signal::KILL);
    }
    Waited { status, timed_out: timed_out && !cancelled, cancelled }
}

/// Defers SIGINT, SIGTERM, SIGHUP and SIGQUIT while it lives (the rename
/// phase of a commit): they stay pending and act, with their usual effect,
/// when it is dropped. Blocks them on the calling thread only, so the
/// caller must be the process's only thread meanwhile.
#[must_use = "signals are deferred only while the guard lives"]
pub struct DeferSignals {
    old: libc::sigset_t,
}

// Unsafe, as one of the two places of the tools that are: no safe wrapper
// of pthread_sigmask exists in rustix, and signal-hook cannot give a signal
// its default action back once handled.
#[allow(unsafe_code)]
impl DeferSignals {
    pub fn new() -> DeferSignals {
        // SAFETY: sigset_t is plain data, filled by sigemptyset/sigaddset
        // before use; pthread_sigmask only reads `set` and writes `old`.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                libc::sigaddset(&mut set, sig);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            DeferSignals { old }
        }
    }
}

impl Default for DeferSignals {
    fn default() -> Self {
        DeferSignals::new()
    }
}

#[allow(unsafe_code)]
impl Drop for DeferSignals {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by `new`; a pending signal is
        // delivered now.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

/// Ends the process when a run asked to stop (its cancel flag raised by
/// SIGINT or SIGTERM) has not ended within `grace`: a tool blocked in a
/// system call, or in a loop that does not look at the flag, still goes
/// within a second. Its thread never takes those signals itself, so a
/// commit that holds them off (see [`DeferSignals`]) holds them off here too.
#[derive(Debug)]
pub struct Watchdog {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    pub fn start(
        cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
        grace: Duration,
        tool: &'static str,
    ) -> Watchdog {
        use std::sync::atomic::Ordering::Relaxed;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let finished = done.clone();
        let thread = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || {
                let _not_here = DeferSignals::new();
                let mut asked: Option<Instant> = None;
                while !finished.load(Relaxed) {
                    if cancel.load(Relaxed) {
                        let at = *asked.get_or_insert_with(Instant::now);
                        if at.elapsed() >= grace {
                            use std::io::Write as _;
                            let _ = writeln!(
                                std::io::stderr(),
                                "{tool}: error[cancelled]: stopped {:.1} s after the signal, before the run could end",
                                grace.as_secs_f64()
                            );
                            std::process::exit(130);
                        }
                    }
                    std::thread::park_timeout(Duration::from_millis(25));
                }
            })
            .ok();
        Watchdog { done, thread }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// Hands `fds` to the program `command` starts, each at the descriptor
/// number it is paired with (3, 4, …), open across its `exec`: how a
/// supervisor gives a shell its channels beyond stdin, stdout and stderr.
/// The descriptors stay owned by `command` until it is dropped.
#[allow(unsafe_code)]
pub fn hand_descriptors(command: &mut std::process::Command, fds: Vec<(std::os::fd::OwnedFd, i32)>) {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and calls
    // only dup2 and fcntl, which are async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for (fd, target) in &fds {
                let raw = fd.as_raw_fd();
                if raw == *target {
                    // dup2 onto itself keeps close-on-exec: clear it instead.
                    if libc::fcntl(raw, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                } else if libc::dup2(raw, *target) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// Makes the program `command` starts the leader of a new session whose
/// controlling terminal is its stdin (a pseudo-terminal's slave side): job
/// control, Ctrl-C and Ctrl-Z reach it as they would at a real terminal.
#[allow(unsafe_code)]
pub fn with_controlling_terminal(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid and ioctl(TIOCSCTTY) are async-signal-safe system calls
    // made in the forked child before exec; nothing is allocated.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Sets glibc's allocator for a short process that parses and reads a lot
/// on several threads: heaps grown 64 MiB at a time and not trimmed below
/// 256 MiB, and buffers up to 256 MiB kept on the heap rather than mapped
/// and unmapped each time. A structural search spent an eighth of its time
/// in the `mprotect`, `mmap` and page faults of the defaults (see
/// docs/BENCHMARKS.md). Pages are still only touched when used. The other
/// of the two unsafe places: glibc's tunables have no safe wrapper.
#[allow(unsafe_code)]
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters, by value.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests start their oracles themselves
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn spawn(script: &str) -> Child {
        let mut cmd = std::process::Command::new("bash");
        cmd.args(["-c", script]).process_group(0);
        cmd.spawn().unwrap()
    }

    #[test]
    fn waits_for_a_quick_child() {
        let w = wait_with_timeout(spawn("exit 3"), Some(Duration::from_secs(30)), Duration::from_secs(1));
        assert_eq!((w.status.unwrap().code(), w.timed_out), (Some(3), false));
    }

    #[test]
    fn a_timeout_takes_down_the_group_even_when_term_is_ignored() {
        let child = spawn("trap '' TERM; sleep 30 & sleep 30");
        let pgid = child.id();
        let started = Instant::now();
        let w = wait_with_timeout(child, Some(Duration::from_millis(200)), Duration::from_millis(300));
        assert!(w.timed_out);
        assert!(started.elapsed() < Duration::from_secs(10));
        let gone = Instant::now() + Duration::from_secs(5);
        while group_alive(pgid) && Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!group_alive(pgid));
    }

    #[test]
    fn pid_zero_is_refused() {
        assert!(signal_group(0, Signal::TERM).is_err());
        assert!(!group_alive(0));
    }
}
