//! A keeper: a detached process that holds something costly to start (a
//! session's live bash, a language server) between runs of a command-line
//! tool, found through a folder of aide's state.
//!
//! The folder holds `keeper.lock` (one keeper a folder, held while it
//! lives), `keeper.pid` and `keeper.sock` (0600 in the 0700 folder; a peer
//! of another uid is refused). A caller that finds no keeper listening
//! starts one through the tool's hidden launcher (`TOOL LAUNCH DIR` starts
//! `TOOL KEEP DIR` and exits at once, so the keeper is orphaned to init
//! and nobody has to reap it), then connects. What goes over the socket is
//! the tool's own; the keeper ends when [`serve`]'s `should_end` says so
//! (idle, what it holds ended) or on TERM, INT and HUP.

use std::net::Shutdown;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::AideError;

const SOCKET: &str = "keeper.sock";
const LOCK: &str = "keeper.lock";
const PID: &str = "keeper.pid";

/// The longest socket path the kernel takes (`sockaddr_un`), less its NUL.
const MAX_SOCKET_PATH: usize = 107;

/// How long a caller waits for a keeper it started to listen.
const START_WAIT: Duration = Duration::from_secs(5);

/// The words of a tool's hidden keeper commands.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// Starts the keeper detached and exits.
    pub launch: &'static str,
    /// Is the keeper.
    pub keep: &'static str,
}

/// The folder of one keeper.
#[derive(Debug, Clone)]
pub struct Place {
    pub dir: PathBuf,
}

impl Place {
    pub fn new(dir: impl Into<PathBuf>) -> Place {
        Place { dir: dir.into() }
    }

    /// Its socket; None when the folder's path is too long for a socket's name.
    pub fn socket(&self) -> Option<PathBuf> {
        let socket = self.dir.join(SOCKET);
        (socket.as_os_str().len() <= MAX_SOCKET_PATH).then_some(socket)
    }

    /// Whether a keeper holds the folder now.
    pub fn is_alive(&self) -> bool {
        crate::fsutil::lock_held(&self.dir.join(LOCK))
    }

    /// The keeper's process id, as it wrote it.
    pub fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.dir.join(PID)).ok().and_then(|s| s.trim().parse::<i32>().ok())
    }

    /// A connection to the keeper, or None when none listens.
    pub fn connect(&self) -> Option<UnixStream> {
        UnixStream::connect(self.socket()?).ok()
    }

    /// A connection to the keeper, started through `executable`'s launcher
    /// when none listens. `guard` is held while starting, so that of
    /// several callers one starts it and the others find it listening.
    pub fn connect_or_start<G>(
        &self,
        executable: &Path,
        words: Words,
        guard: impl FnOnce() -> Result<G, AideError>,
    ) -> Result<UnixStream, AideError> {
        let Some(socket) = self.socket() else {
            return Err(AideError::new(
                crate::code::INVALID_ARGUMENTS,
                "the keeper's folder path is too long for a socket",
            )
            .with_hint("set AIDE_HOME to a shorter path"));
        };
        if let Ok(s) = UnixStream::connect(&socket) {
            return Ok(s);
        }
        let _guard = guard()?;
        if let Ok(s) = UnixStream::connect(&socket) {
            return Ok(s);
        }
        launch(executable, words, &self.dir)?;
        let until = Instant::now() + START_WAIT;
        loop {
            match UnixStream::connect(&socket) {
                Ok(s) => return Ok(s),
                Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(1)),
                Err(e) => {
                    return Err(AideError::io("the keeper", &e)
                        .with_hint("the keeper did not start listening within 5 s; see `aide doctor`"));
                }
            }
        }
    }

    /// Asks the keeper to end (TERM) and waits for it to let go of its
    /// lock; KILL after 3 s.
    pub fn stop(&self) {
        if !self.is_alive() {
            return;
        }
        let Some(pid) = self.pid().and_then(rustix::process::Pid::from_raw) else { return };
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let until = Instant::now() + Duration::from_secs(3);
        while self.is_alive() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if self.is_alive() {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            while self.is_alive() && until.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// Starts the keeper of `dir` through `executable`'s detaching launcher.
fn launch(executable: &Path, words: Words, dir: &Path) -> Result<(), AideError> {
    let status = Command::new(executable)
        .arg(words.launch)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| AideError::io("starting the keeper", &e))?;
    if status.success() {
        Ok(())
    } else {
        Err(AideError::internal(format!("the keeper's launcher exited with {status}")))
    }
}

/// Runs a tool's hidden keeper commands: None for any other command line,
/// else the exit status. `keep` is the keeper's body for a folder.
pub fn run_internal_command(words: Words, keep: impl FnOnce(&Path) -> i32) -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    let which = args.next()?;
    let which = which.to_str()?;
    if which != words.keep && which != words.launch {
        return None;
    }
    let Some(dir) = args.next().map(PathBuf::from) else { return Some(2) };
    if which == words.keep {
        return Some(keep(&dir));
    }
    let Ok(exe) = std::env::current_exe() else { return Some(4) };
    let spawned = Command::new(exe)
        .arg(words.keep)
        .arg(&dir)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    Some(if spawned.is_ok() { 0 } else { 4 })
}

/// A keeper's hold on its folder: its lock and its listening socket.
pub struct Held {
    _lock: std::fs::File,
    listener: UnixListener,
    socket: PathBuf,
}

/// Takes the folder `dir` for this process (a session of its own, the
/// lock, the pid, a fresh socket): None when another keeper holds it or
/// the folder cannot be used.
pub fn hold(dir: &Path) -> Option<Held> {
    // A session of its own: the caller's terminal closing does not end it.
    let _ = rustix::process::setsid();
    let lock = crate::fsutil::private_file().create(true).truncate(false).write(true).open(dir.join(LOCK)).ok()?;
    lock.try_lock().ok()?;
    let _ = crate::fsutil::replace(&dir.join(PID), format!("{}\n", std::process::id()).as_bytes());
    let socket = dir.join(SOCKET);
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).ok()?;
    let _ = std::fs::set_permissions(&socket, crate::fsutil::private_permissions());
    Some(Held { _lock: lock, listener, socket })
}

/// What [`serve`] tells `should_end`: how long no request has been served
/// (zero while one is), and whether a signal asked the keeper to end.
#[derive(Debug, Clone, Copy)]
pub struct Quiet {
    pub idle: Duration,
    pub busy: bool,
}

/// Serves connections of this uid, each on its own thread through
/// `handle`, until a signal or `should_end` (asked every 50 ms); then the
/// socket goes first (no caller connects to a keeper that is going) and
/// the lock last, when the returned [`Ended`] is dropped. A caller more
/// confined than the keeper is answered `refusal` (one line of the tool's
/// protocol) after its request, and nothing else.
pub fn serve(
    held: Held,
    refusal: Vec<u8>,
    handle: impl Fn(UnixStream, &AtomicBool) + Send + Sync + 'static,
    should_end: impl Fn(Quiet) -> bool,
) -> Ended {
    let Held { _lock, listener, socket } = held;
    let signalled = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP] {
        let _ = signal_hook::flag::register(sig, signalled.clone());
    }
    let (tx, connections) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if tx.send(stream).is_err() {
                return;
            }
        }
    });
    let handle = Arc::new(handle);
    let busy = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(std::sync::Mutex::new(Instant::now()));
    let uid = rustix::process::getuid();
    let own_confinement = no_new_privs("/proc/self/status").unwrap_or(false);
    loop {
        match connections.recv_timeout(Duration::from_millis(50)) {
            Ok(stream) => {
                let peer = rustix::net::sockopt::socket_peercred(&stream);
                if peer.as_ref().is_ok_and(|p| p.uid == uid && confined_beyond(p.pid, own_confinement)) {
                    let refusal = refusal.clone();
                    std::thread::spawn(move || refuse(stream, &refusal));
                    continue;
                }
                if peer.is_ok_and(|p| p.uid == uid) {
                    busy.fetch_add(1, Ordering::SeqCst);
                    let (handle, busy, last, signalled) =
                        (handle.clone(), busy.clone(), last.clone(), signalled.clone());
                    std::thread::spawn(move || {
                        handle(stream, &signalled);
                        *crate::sync::lock(&last) = Instant::now();
                        busy.fetch_sub(1, Ordering::SeqCst);
                    });
                } else {
                    let _ = stream.shutdown(Shutdown::Both);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if signalled.load(Ordering::Relaxed) {
            break;
        }
        let is_busy = busy.load(Ordering::SeqCst) > 0;
        let idle = if is_busy { Duration::ZERO } else { crate::sync::lock(&last).elapsed() };
        if should_end(Quiet { idle, busy: is_busy }) {
            break;
        }
    }
    let _ = std::fs::remove_file(&socket);
    Ended { _lock, signalled: signalled.load(Ordering::Relaxed) }
}

/// `value` as one line of a keeper's protocol: its JSON and a newline.
pub fn json_line(value: &impl serde::Serialize) -> Vec<u8> {
    let mut line = serde_json::to_vec(value).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Reads the confined caller's request (a line), answers `refusal`, closes.
fn refuse(stream: UnixStream, refusal: &[u8]) {
    use std::io::{BufRead, Write};
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut line = Vec::new();
    let _ = std::io::BufReader::new(&stream).read_until(b'\n', &mut line);
    let _ = (&stream).write_all(refusal);
    let _ = stream.shutdown(Shutdown::Both);
}

/// Whether the peer `pid` runs under `no_new_privs` when this keeper does
/// not: a sandboxed command (aide's sandbox sets it with its Landlock
/// rules) asking an unconfined keeper to run or read something for it, out
/// of its sandbox. A peer as confined as the keeper is served.
fn confined_beyond(pid: rustix::process::Pid, own: bool) -> bool {
    !own && no_new_privs(&format!("/proc/{}/status", pid.as_raw_nonzero())).unwrap_or(false)
}

/// `NoNewPrivs` of the process whose `/proc/…/status` is `status`.
fn no_new_privs(status: &str) -> Option<bool> {
    let status = std::fs::read_to_string(status).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("NoNewPrivs:"))?;
    Some(line.trim() == "1")
}

/// A keeper that stopped serving; it still holds its lock until dropped.
pub struct Ended {
    _lock: std::fs::File,
    /// Whether a signal ended it (rather than idleness).
    pub signalled: bool,
}
