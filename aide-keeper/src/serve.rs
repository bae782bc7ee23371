//! A keeper's own side: holding its folder's lock, serving the callers it
//! admits (none more confined than itself), and ending when idle.

use std::net::Shutdown;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::place::{LOCK, PID, SOCKET};

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
    let lock = aide_core::fsutil::private_file().create(true).truncate(false).write(true).open(dir.join(LOCK)).ok()?;
    lock.try_lock().ok()?;
    let _ = aide_core::fsutil::replace(&dir.join(PID), format!("{}\n", std::process::id()).as_bytes());
    let socket = dir.join(SOCKET);
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).ok()?;
    let _ = std::fs::set_permissions(&socket, aide_core::fsutil::private_permissions());
    Some(Held { _lock: lock, listener, socket })
}

/// What [`serve`] tells `should_end`: how long no request has been served
/// (zero while one is), and whether a signal asked the keeper to end.
#[derive(Debug, Clone, Copy)]
pub struct Quiet {
    pub idle: Duration,
    pub busy: bool,
}

/// Serves connections of this uid, each on a thread of its own at the
/// time (kept between connections) through `handle`, until a signal or `should_end` (asked every 50 ms); then the
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
    let busy = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(std::sync::Mutex::new(Instant::now()));
    let ended = Arc::new(AtomicBool::new(false));
    let own = crate::peer::Confinement::own();
    {
        let (busy, last, signalled) = (busy.clone(), last.clone(), signalled.clone());
        workers::serve_on_threads(listener, ended.clone(), move |stream| {
            busy.fetch_add(1, Ordering::SeqCst);
            match admit(&stream, &own) {
                Admission::Refuse => refuse(stream, &refusal),
                // A request the handler panics on ends its own connection
                // (the caller sees it closed, never a wait), and the keeper
                // goes on serving and idling.
                Admission::Serve => {
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(stream, &signalled)));
                }
                Admission::Close => {
                    let _ = stream.shutdown(Shutdown::Both);
                }
            }
            *aide_core::sync::lock(&last) = Instant::now();
            busy.fetch_sub(1, Ordering::SeqCst);
        });
    }
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if signalled.load(Ordering::Relaxed) {
            break;
        }
        let is_busy = busy.load(Ordering::SeqCst) > 0;
        let idle = if is_busy { Duration::ZERO } else { aide_core::sync::lock(&last).elapsed() };
        if should_end(Quiet { idle, busy: is_busy }) {
            break;
        }
    }
    ended.store(true, Ordering::SeqCst);
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
mod tests;
mod workers;
