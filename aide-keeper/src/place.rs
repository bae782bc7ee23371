//! A keeper's folder, from the caller's side: whether a trusted keeper
//! listens there, connecting to it, starting one detached, and stopping it.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aide_core::AideError;

use crate::detach::{self, Words};
use crate::error::KeeperError;

pub(crate) const SOCKET: &str = "keeper.sock";
pub(crate) const LOCK: &str = "keeper.lock";
pub(crate) const PID: &str = "keeper.pid";

/// The longest socket path the kernel takes (`sockaddr_un`), less its NUL.
const MAX_SOCKET_PATH: usize = 107;

/// How long a caller waits for a keeper it started to listen.
const START_WAIT: Duration = Duration::from_secs(5);

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
        aide_core::fsutil::lock_held(&self.dir.join(LOCK))
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
        let lock = self.dir.join(LOCK);
        // Its own open files say so at once; where they cannot be read
        // (from inside a sandbox, whose user namespace it is not in: the
        // keeper then refuses such a caller in its own words), `/proc/locks`.
        let holds = crate::peer::holds_lock(keeper.pid(), &lock).unwrap_or(false)
            || listed_holder(&lock)?.is_some_and(|pid| pid == keeper.pid());
        // Alive after the lock was read: the pid the lock names was its own then.
        if !holds || !keeper.is_alive() {
            return Err(format!(
                "its listener (process {}) is not the process holding the keeper's lock",
                keeper.pid()
            ));
        }
        Ok(keeper)
    }

    fn untrusted(&self, why: &str) -> AideError {
        KeeperError::Untrusted { dir: self.dir.clone(), why: why.to_string() }.into()
    }

    /// [`Place::connect_or_start`], guarded by the folder's `start.lock`:
    /// while it is held, `described` is written to the folder's `file`, what
    /// the keeper started reads to know what it keeps. `what` names the
    /// keeper in errors (`the LSP keeper`).
    pub fn connect_or_start_described(
        &self,
        executable: &Path,
        words: Words,
        (file, described): (&str, &[u8]),
        what: &str,
    ) -> Result<UnixStream, AideError> {
        let guard = || -> Result<std::fs::File, AideError> {
            aide_core::fsutil::private_dir(&self.dir).map_err(|e| AideError::io(&format!("{what}'s folder"), &e))?;
            let start_lock = format!("{what}'s start lock");
            let lock = aide_core::fsutil::private_file()
                .create(true)
                .truncate(false)
                .write(true)
                .open(self.dir.join("start.lock"))
                .and_then(aide_core::fsutil::regular)
                .map_err(|e| AideError::io(&start_lock, &e))?;
            lock.lock().map_err(|e| AideError::io(&start_lock, &e))?;
            aide_core::fsutil::replace(&self.dir.join(file), described)
                .map_err(|e| AideError::io(&format!("{what}'s {file}"), &e))?;
            Ok(lock)
        };
        self.connect_or_start(executable, words, guard)
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
            return Err(KeeperError::SocketPathTooLong.into());
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

/// The holder of `lock` as `/proc/locks` names it. That file is read in
/// pieces, and a line can slip between two of them while other locks come
/// and go: a holder is looked for again before none is taken for an answer.
fn listed_holder(lock: &Path) -> Result<Option<i32>, String> {
    let mut holder = None;
    for attempt in 0..3 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
        holder = crate::peer::lock_holder(lock).map_err(|e| format!("its lock: {e}"))?;
        if holder.is_some() {
            break;
        }
    }
    Ok(holder)
}

/// Starts the keeper of `dir` through `executable`'s detaching launcher.
fn launch(executable: &Path, words: Words, dir: &Path) -> Result<(), AideError> {
    detach::start(executable, words, dir.as_os_str()).map_err(|e| AideError::io("starting the keeper", &e))
}

/// Runs a tool's hidden keeper commands: None for any other command line,
/// else the exit status. `keep` is the keeper's body for a folder.
pub fn run_internal_command(words: Words, keep: impl FnOnce(&Path) -> i32) -> Option<i32> {
    detach::run(words, |dir| keep(Path::new(dir)))
}
