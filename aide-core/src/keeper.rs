//! A keeper: a detached process that holds something costly to start (a
//! session's live bash, a language server) between runs of a command-line
//! tool, found through a folder of aide's state.
//!
//! The folder holds `keeper.lock` (one keeper a folder, held while it
//! lives), `keeper.pid` (for people: nothing trusts it) and `keeper.sock`
//! (0600 in the 0700 folder; a peer of another uid is refused). A caller that finds no keeper listening
//! starts one through the tool's hidden launcher (`TOOL LAUNCH DIR` starts
//! `TOOL KEEP DIR` and exits at once, so the keeper is orphaned to init
//! and nobody has to reap it), then connects. What goes over the socket is
//! the tool's own; the keeper ends when [`serve`]'s `should_end` says so
//! (idle, what it holds ended) or on TERM, INT and HUP.
//!
//! Both ends know each other by identity, not by path ([`crate::peer`]:
//! a process held by its pidfd). The keeper serves a caller only once it
//! proved the caller is not more confined than itself (a sandboxed command,
//! or one that exited before it could be looked at, is refused). A caller
//! trusts the socket only when the process listening on it is of its uid,
//! holds the folder's lock, and, for a caller that is not sandboxed, is
//! not sandboxed either (a keeper started from a sandbox, or whatever a
//! sandbox left listening there, answers nobody outside it). [`Place::stop`]
//! signals that proven process, never whatever pid a file names.

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

    /// The process id of the keeper: the process holding the folder's lock
    /// (as `/proc/locks` says; `keeper.pid` is only for people to read).
    pub fn pid(&self) -> Option<i32> {
        crate::peer::lock_holder(&self.dir.join(LOCK)).ok().flatten()
    }

    /// A connection to the keeper, or None when none listens; an error when
    /// what listens is not a keeper this caller may trust.
    pub fn connect(&self) -> Result<Option<UnixStream>, AideError> {
        let Some(socket) = self.socket() else { return Ok(None) };
        match UnixStream::connect(socket) {
            Ok(stream) => self.trusted(stream).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// As [`Place::connect`], but a stranger listening where no keeper
    /// lives is as good as none: the keeper started next takes the
    /// socket's place.
    fn connect_unless_stranger(&self) -> Result<Option<UnixStream>, AideError> {
        match self.connect() {
            Err(_) if !self.is_alive() => Ok(None),
            other => other,
        }
    }

    /// `stream`, when the process listening on it is this folder's keeper
    /// as this caller may trust it.
    fn trusted(&self, stream: UnixStream) -> Result<UnixStream, AideError> {
        let keeper = self.keeper_of(&stream).map_err(|why| self.untrusted(&why))?;
        if !crate::peer::Confinement::own().trusts(&keeper.confinement) {
            let why = format!("its keeper (process {}) was started from a sandbox this caller is not in", keeper.pid());
            return Err(self.untrusted(&why));
        }
        Ok(stream)
    }

    /// The process listening on `stream`, proven to be of this uid and to
    /// hold the folder's lock.
    fn keeper_of(&self, stream: &UnixStream) -> Result<crate::peer::Process, String> {
        let keeper = crate::peer::of_peer(stream).map_err(|e| format!("its listener cannot be proven: {e}"))?;
        if keeper.uid != rustix::process::geteuid().as_raw() {
            return Err(format!("its listener (process {}) is of another user", keeper.pid()));
        }
        // `/proc/locks` is read in pieces, and a line can slip between two
        // of them while other locks come and go: a keeper is looked for
        // again before it is taken for a stranger.
        let mut holder = None;
        for attempt in 0..3 {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
            holder = crate::peer::lock_holder(&self.dir.join(LOCK)).map_err(|e| format!("its lock: {e}"))?;
            if holder == Some(keeper.pid()) {
                break;
            }
        }
        // Alive after the lock was read: the pid the lock names was its own then.
        if holder != Some(keeper.pid()) || !keeper.is_alive() {
            return Err(format!(
                "its listener (process {}) is not the process holding the keeper's lock",
                keeper.pid()
            ));
        }
        Ok(keeper)
    }

    fn untrusted(&self, why: &str) -> AideError {
        AideError::new(crate::code::CONFLICT, format!("the keeper's socket in {} is not trusted: {why}", self.dir.display()))
            .with_hint("a keeper is started by the tool itself, as confined as its caller; end what holds the folder (`aide doctor` lists keepers) and run the command again")
            .with_details(serde_json::json!({ "keeper_dir": self.dir }))
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
        if let Some(s) = self.connect_unless_stranger()? {
            return Ok(s);
        }
        let _guard = guard()?;
        if let Some(s) = self.connect_unless_stranger()? {
            return Ok(s);
        }
        launch(executable, words, &self.dir)?;
        let until = Instant::now() + START_WAIT;
        loop {
            // A stranger may listen until the new keeper takes the socket's place.
            let failed = match UnixStream::connect(&socket) {
                Ok(s) => match self.trusted(s) {
                    Ok(s) => return Ok(s),
                    Err(untrusted) => untrusted,
                },
                Err(e) => AideError::io("the keeper", &e)
                    .with_hint("the keeper did not start listening within 5 s; see `aide doctor`"),
            };
            if Instant::now() >= until {
                return Err(failed);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Asks the keeper to end (TERM) and waits for it to let go of its
    /// lock; KILL after 3 s. The keeper is the process proven to hold the
    /// lock (see [`crate::peer::holding_lock`]), of this uid; when none can be
    /// proven, nothing is signalled and its end is waited for.
    pub fn stop(&self) {
        if !self.is_alive() {
            return;
        }
        let uid = rustix::process::geteuid().as_raw();
        let keeper = crate::peer::holding_lock(&self.dir.join(LOCK)).ok().flatten().filter(|k| k.uid == uid);
        if let Some(k) = &keeper {
            let _ = k.signal(rustix::process::Signal::TERM);
        }
        let until = Instant::now() + Duration::from_secs(3);
        while self.is_alive() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(k) = keeper.filter(|_| self.is_alive()) {
            let _ = k.signal(rustix::process::Signal::KILL);
            while self.is_alive() && until.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// Starts the keeper of `dir` through `executable`'s detaching launcher.
#[allow(clippy::disallowed_methods)] // aide's own executable, unsandboxed for an unsandboxed caller
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
#[allow(clippy::disallowed_methods)] // this executable, detached as the keeper
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
/// the lock last, when the returned [`Ended`] is dropped. A caller that is
/// not proven to be as confined as the keeper or less is answered
/// `refusal` (one line of the tool's protocol) after its request, and
/// nothing else.
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
    let own = crate::peer::Confinement::own();
    loop {
        match connections.recv_timeout(Duration::from_millis(50)) {
            Ok(stream) => match admit(&stream, &own) {
                Admission::Refuse => {
                    let refusal = refusal.clone();
                    std::thread::spawn(move || refuse(stream, &refusal));
                    continue;
                }
                Admission::Serve => {
                    busy.fetch_add(1, Ordering::SeqCst);
                    let (handle, busy, last, signalled) =
                        (handle.clone(), busy.clone(), last.clone(), signalled.clone());
                    std::thread::spawn(move || {
                        // A request the handler panics on ends its own
                        // connection (the caller sees it closed, never a
                        // wait), and the keeper goes on serving and idling.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(stream, &signalled)));
                        *crate::sync::lock(&last) = Instant::now();
                        busy.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                Admission::Close => {
                    let _ = stream.shutdown(Shutdown::Both);
                }
            },
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

/// What a keeper does with a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admission {
    Serve,
    /// Answered the refusal: a caller of this uid more confined than the keeper, or not proven.
    Refuse,
    /// Another user's: closed unanswered.
    Close,
}

/// Whether a keeper confined as `own` serves the caller on `stream`: only
/// one proven no more confined than itself. A sandboxed command (in a user
/// namespace of its sandbox's, under `no_new_privs`) asking a keeper
/// outside its sandbox to run or read something for it is refused, even
/// where everything runs inside another sandbox; so is one in another
/// sandbox, and a caller whose confinement cannot be proven (it exited,
/// its pid is another process's now, it cannot be looked into: see
/// [`crate::peer`]).
fn admit(stream: &UnixStream, own: &crate::peer::Confinement) -> Admission {
    let Ok(cred) = rustix::net::sockopt::socket_peercred(stream) else { return Admission::Close };
    if cred.uid != rustix::process::geteuid() {
        return Admission::Close;
    }
    match crate::peer::of_peer(stream) {
        Ok(caller) if caller.confinement.no_more_than(own) => Admission::Serve,
        _ => Admission::Refuse,
    }
}

/// A keeper that stopped serving; it still holds its lock until dropped.
pub struct Ended {
    _lock: std::fs::File,
    /// Whether a signal ended it (rather than idleness).
    pub signalled: bool,
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the test's own callers, not programs of aide's
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// Not a test by itself: the caller the next test runs as a child. It
    /// connects to `AIDE_KEEPER_TEST_SOCKET`, writes a line, and waits for
    /// the keeper to close unless `AIDE_KEEPER_TEST_EXIT` says to exit at once.
    #[test]
    fn caller() {
        let Some(path) = std::env::var_os("AIDE_KEEPER_TEST_SOCKET") else { return };
        let mut stream = UnixStream::connect(path).unwrap();
        // The keeper may have looked and closed already: written or not, the same.
        let _ = stream.write_all(b"{}\n");
        if std::env::var_os("AIDE_KEEPER_TEST_EXIT").is_none() {
            let _ = stream.read_to_end(&mut Vec::new());
        }
    }

    /// What an unconfined keeper does with the caller this test binary
    /// starts under `wrapper` (none, `setpriv --no-new-privs`, `unshare
    /// --user`); `exit_first`: the caller is gone, and reaped, before it
    /// is looked at.
    fn admission(wrapper: &[&str], exit_first: bool) -> Admission {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SOCKET);
        let listener = UnixListener::bind(&path).unwrap();
        let exe = std::env::current_exe().unwrap();
        let mut command = match wrapper {
            [program, args @ ..] => {
                let mut c = Command::new(program);
                c.args(args).arg(exe);
                c
            }
            [] => Command::new(exe),
        };
        command.args(["--exact", "keeper::tests::caller", "--quiet"]).env("AIDE_KEEPER_TEST_SOCKET", &path);
        if exit_first {
            command.env("AIDE_KEEPER_TEST_EXIT", "1");
        }
        let mut child = command.stdout(Stdio::null()).spawn().unwrap();
        if exit_first {
            assert!(child.wait().unwrap().success());
        }
        let (stream, _) = listener.accept().unwrap();
        let admitted =
            admit(&stream, &crate::peer::Confinement { no_new_privs: false, ..crate::peer::Confinement::own() });
        drop(stream);
        let status = child.wait().unwrap();
        assert!(exit_first || status.success(), "the caller ({wrapper:?}): {status}");
        admitted
    }

    #[test]
    fn an_unconfined_keeper_serves_only_callers_proven_unconfined() {
        if crate::peer::Confinement::own().no_new_privs {
            return; // These tests run confined themselves: every caller is.
        }
        assert_eq!(admission(&[], false), Admission::Serve);
        assert_eq!(admission(&[], true), Admission::Refuse, "a caller gone before it was looked at");
        let runs = |program: &str| {
            Command::new(program).arg("--help").stdout(Stdio::null()).status().is_ok_and(|s| s.success())
        };
        if runs("setpriv") {
            let confined = ["setpriv", "--no-new-privs"];
            assert_eq!(admission(&confined, false), Admission::Refuse, "a confined caller");
            assert_eq!(admission(&confined, true), Admission::Refuse, "a confined caller gone first");
        }
        // Where everything runs under another sandbox's no_new_privs, an
        // aide sandbox is told by its user namespace.
        if runs("unshare") && Command::new("unshare").args(["--user", "true"]).status().is_ok_and(|s| s.success()) {
            assert_eq!(
                admission(&["unshare", "--user"], false),
                Admission::Refuse,
                "a caller in a user namespace of its own"
            );
        }
    }

    #[test]
    fn a_request_the_handler_panics_on_closes_its_connection_and_the_keeper_goes_on() {
        if crate::peer::Confinement::own().no_new_privs {
            return; // Run confined, the test's own connections are refused.
        }
        let dir = tempfile::tempdir().unwrap();
        let lock = std::fs::File::create(dir.path().join(LOCK)).unwrap();
        let socket = dir.path().join(SOCKET);
        let held = Held { _lock: lock, listener: UnixListener::bind(&socket).unwrap(), socket: socket.clone() };
        let handle = |stream: UnixStream, _: &AtomicBool| {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(&stream), &mut line);
            assert!(line != "boom\n", "the handler panics on this request");
            let _ = (&stream).write_all(b"ok\n");
        };
        let ended = Arc::new(AtomicBool::new(false));
        let (end, gave_up) = (ended.clone(), Arc::new(AtomicBool::new(false)));
        let gave_up_here = gave_up.clone();
        let started = Instant::now();
        let server = std::thread::spawn(move || {
            serve(held, Vec::new(), handle, move |quiet| {
                // Ends once asked and idle; a keeper forever busy would
                // never end, so give up (and say so) after a long while.
                let give_up = started.elapsed() > Duration::from_secs(60);
                gave_up_here.store(give_up, Ordering::SeqCst);
                (end.load(Ordering::SeqCst) && !quiet.busy) || give_up
            })
        });
        let ask = |request: &[u8]| {
            let mut stream = UnixStream::connect(&socket).unwrap();
            stream.write_all(request).unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            answer
        };
        assert_eq!(ask(b"boom\n"), "", "closed, not left waiting");
        assert_eq!(ask(b"hello\n"), "ok\n", "still serving");
        ended.store(true, Ordering::SeqCst);
        drop(server.join().unwrap());
        assert!(!gave_up.load(Ordering::SeqCst), "the panicked request left the keeper busy");
    }

    #[test]
    fn a_keeper_is_trusted_by_identity_and_a_stranger_on_its_socket_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place::new(dir.path());
        // A listener that holds no lock: not the keeper.
        let listener = UnixListener::bind(dir.path().join(SOCKET)).unwrap();
        let e = place.connect().unwrap_err();
        assert_eq!(e.code.name, "conflict");
        assert!(e.message.contains("not the process holding the keeper's lock"), "{}", e.message);
        // The same process holding the lock: the keeper.
        let lock = std::fs::File::create(dir.path().join(LOCK)).unwrap();
        lock.lock().unwrap();
        assert!(place.connect().unwrap().is_some());
        assert_eq!(place.pid(), Some(std::process::id() as i32));
        drop(listener);
        std::fs::remove_file(dir.path().join(SOCKET)).unwrap();
        assert!(place.connect().unwrap().is_none(), "none listens");
    }
}
