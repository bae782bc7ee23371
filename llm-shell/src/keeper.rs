//! A session's keeper: the process that holds its live bash between execs.
//!
//! The first exec on a session starts it in the session's folder, through
//! [`aide_keeper`] (`llm-shell __keeper_launch DIR` detaches
//! `llm-shell __keeper DIR`; one keeper a folder, its socket for this uid
//! only). Later execs connect, send
//! one JSON line — `{"exec": {…}}` — and read `{"accepted": null}` and then
//! `{"done": ExecOutput}` or `{"failed": {code, message, hint, details}}`.
//! Requests are served one at a time, as the session's lock did before.
//!
//! The keeper exits after an idle time (30 min unless the session says
//! otherwise), when its bash exits (`exit`, a `set -e` failure, a
//! timeout's TERM: the state was saved, and the next exec starts a new
//! keeper from it), and on TERM (`session rm`), taking its bash's process
//! group with it. A caller that goes away while its command runs (Ctrl-C,
//! a kill, an MCP cancellation) closes its connection: the keeper then
//! takes the command's group down, as a timeout does.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_keeper::Place;
use serde::{Deserialize, Serialize};

use crate::error::{ShellError, TerminalError, WireError};
use crate::exec::{ExecOrder, ExecOutput, run_on};
use crate::live::LiveShell;
use crate::session::Session;
use crate::terminal::{ReadWait, Size, TermListed, TermView, Terminal, Terminals};

/// The hidden commands of the llm-shell binary that launch and are a keeper.
const WORDS: aide_keeper::Words = aide_keeper::Words { launch: "__keeper_launch", keep: "__keeper" };

/// How long a keeper waits for a request before it exits, unless the session says.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30 * 60);

/// What a caller asks of a keeper.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Ask {
    Exec(ExecOrder),
    TermStart {
        command: String,
        size: Size,
        redact: bool,
        /// The trace context of the run that starts it, for its program.
        #[serde(default)]
        trace: Option<aide_gate::trace::Headers>,
    },
    TermSend {
        terminal_id: String,
        text: Option<String>,
        keys: Vec<String>,
        wait: ReadWait,
        redact: bool,
    },
    TermRead {
        terminal_id: String,
        wait: ReadWait,
        redact: bool,
    },
    TermResize {
        terminal_id: String,
        size: Size,
    },
    TermList,
    TermClose {
        terminal_id: String,
    },
}

/// What a keeper answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Answer {
    /// The request was taken: from here on, the command may run.
    Accepted,
    Done(Box<ExecOutput>),
    Failed(WireError),
    Term(Box<TermView>),
    Terms(Vec<TermListed>),
    TermClosed {
        terminal_id: String,
        exit_code: Option<i32>,
    },
}

/// Whether a keeper holds the session folder `dir` now.
pub fn is_alive(dir: &Path) -> bool {
    Place::new(dir).is_alive()
}

/// Runs `order` through the keeper of `session`, starting one if none
/// runs; None when no keeper can listen there (the folder's path is too
/// long for a socket's name).
pub(crate) fn exec(
    session: &mut Session,
    order: &ExecOrder,
    stop: &dyn Fn() -> bool,
) -> Option<Result<ExecOutput, AideError>> {
    let place = Place::new(&session.dir);
    place.socket()?;
    Some(ask_exec(session, &place, order, stop))
}

fn ask_exec(
    session: &Session,
    place: &Place,
    order: &ExecOrder,
    stop: &dyn Fn() -> bool,
) -> Result<ExecOutput, AideError> {
    let Some((answer, stopped)) = exchange(session, place, &Ask::Exec(order.clone()), true, stop)? else {
        return Err(AideError::internal("no keeper was started for the command"));
    };
    match answer {
        Some(Answer::Done(out)) if !stopped => Ok(*out),
        Some(Answer::Done(_)) => Err(AideError::cancelled()),
        Some(Answer::Failed(e)) => Err(e.into()),
        Some(other) => Err(AideError::internal(format!("the keeper answered {other:?} to a command"))),
        None if stopped => Err(AideError::cancelled()),
        None => Err(ShellError::CommandLost { why: "the session's keeper ended".into() }.into()),
    }
}

/// Asks the keeper of `session` about its terminals (starting one for a
/// new terminal only): the answer, or the keeper's error.
pub(crate) fn ask(session: &Session, question: &Ask) -> Result<Answer, AideError> {
    let place = Place::new(&session.dir);
    if place.socket().is_none() {
        return Err(TerminalError::KeeperSocketPathTooLong.into());
    }
    let start = matches!(question, Ask::TermStart { .. });
    match exchange(session, &place, question, start, &|| false)? {
        // No keeper: none of its terminals lives.
        None => Ok(Answer::Terms(Vec::new())),
        Some((Some(Answer::Failed(e)), _)) => Err(e.into()),
        Some((Some(answer), _)) => Ok(answer),
        Some((None, _)) => Err(ShellError::CommandLost { why: "the session's keeper ended".into() }.into()),
    }
}

/// Sends `question` to the keeper listening on `socket` (started first
/// when none does and `start`) and reads its answer: None when no keeper
/// listens; else the answer (None when the keeper closed before giving
/// one) and whether `stop` said yes meanwhile. Once it does, this side of
/// the connection is shut, which the keeper takes for the caller going
/// away (it takes the command down); its answer is still read.
fn exchange(
    session: &Session,
    place: &Place,
    question: &Ask,
    start: bool,
    stop: &dyn Fn() -> bool,
) -> Result<Option<(Option<Answer>, bool)>, AideError> {
    let line = aide_keeper::json_line(question);
    // A keeper that was leaving as we connected drops the request unread: once more, with a new one.
    for _ in 0..3 {
        let stream = if start {
            // One caller starts it, under the session's lock, from a sound state.
            place.connect_or_start(&shell_executable()?, WORDS, || {
                let lock = session.lock()?;
                session.check_state()?;
                Ok(lock)
            })?
        } else {
            match place.connect()? {
                Some(s) => s,
                None => return Ok(None),
            }
        };
        let mut writer = stream.try_clone().map_err(|e| AideError::io("keeper socket", &e))?;
        if writer.write_all(&line).is_err() {
            continue;
        }
        let mut reader = BufReader::new(stream);
        match read_answer(&mut reader, &|| false)? {
            Some(Answer::Accepted) => {}
            None => continue,
            Some(Answer::Failed(e)) => return Err(e.into()),
            Some(other) => return Err(AideError::internal(format!("the keeper answered {other:?} first"))),
        }
        let stopped = std::cell::Cell::new(false);
        let watch = || {
            if !stopped.get() && stop() {
                stopped.set(true);
                let _ = writer.shutdown(std::net::Shutdown::Write);
            }
            stopped.get()
        };
        let answer = read_answer(&mut reader, &watch)?;
        return Ok(Some((answer, stopped.get() || stop())));
    }
    Err(ShellError::CommandLost { why: "the session's keeper kept closing before it took the request".into() }.into())
}

/// Reads one answer; None when the keeper closed first. `stop` is asked
/// between waits; once it said yes, the read goes on (for the answer).
fn read_answer(reader: &mut BufReader<UnixStream>, stop: &dyn Fn() -> bool) -> Result<Option<Answer>, AideError> {
    let _ = reader.get_ref().set_read_timeout(Some(Duration::from_millis(20)));
    let mut line = Vec::new();
    let mut asked_to_stop_at: Option<Instant> = None;
    loop {
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return Ok(None),
            Ok(_) if line.ends_with(b"\n") => break,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if asked_to_stop_at.is_none() && stop() {
                    asked_to_stop_at = Some(Instant::now());
                }
                // A keeper that does not answer a caller that left is not waited for long.
                if asked_to_stop_at.is_some_and(|t| t.elapsed() > Duration::from_secs(5)) {
                    return Ok(None);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(None),
        }
    }
    serde_json::from_slice(&line).map(Some).map_err(|e| AideError::internal(format!("the keeper's answer: {e}")))
}

/// The llm-shell binary: this one, or the one beside it (`aide mcp`).
fn shell_executable() -> Result<PathBuf, AideError> {
    aide_gate::program::find_executable("llm-shell").ok_or_else(|| {
        ShellError::Spawn { program: "llm-shell", needed_by: "a session's keeper", message: "not found".into() }.into()
    })
}

/// Runs the hidden keeper commands; None for any other command line.
pub fn run_internal_command() -> Option<i32> {
    aide_keeper::run_internal_command(WORDS, keep)
}

/// Asks the keeper of `dir` to end (TERM), and waits for it to let go of
/// its lock; KILL after 3 s (its shell's watcher then takes the group down).
pub fn stop(dir: &Path) {
    Place::new(dir).stop();
}

/// What a keeper holds: the session with its live shell (one command at
/// a time), and its terminals (each request on its own thread, none
/// waiting on a command: what a terminal needs of the session is read from
/// its folder).
struct Kept {
    dir: PathBuf,
    session_id: String,
    exec: std::sync::Mutex<(Session, Option<LiveShell>)>,
    terminals: std::sync::Mutex<Terminals>,
}

/// The keeper itself: serves the session folder `dir` until idle, its
/// shell's end (with no terminal left), or TERM.
fn keep(dir: &Path) -> i32 {
    // None: another keeper holds the session.
    let Some(held) = aide_keeper::hold(dir) else { return 0 };
    let Ok(session) = crate::session::open_at(dir) else { return 4 };
    let idle = session.meta.keeper_idle_seconds.map_or(DEFAULT_IDLE, Duration::from_secs);
    let kept = Arc::new(Kept {
        dir: dir.to_path_buf(),
        session_id: session.meta.session_id.clone(),
        exec: std::sync::Mutex::new((session, None)),
        terminals: std::sync::Mutex::new(Terminals::default()),
    });
    let serving = kept.clone();
    // A sandboxed caller is told why, in the keeper's own protocol.
    let refused: AideError = TerminalError::SandboxedCaller.into();
    let refusal = aide_keeper::json_line(&Answer::Failed(refused.into()));
    let ended = aide_keeper::serve(
        held,
        refusal,
        move |stream, signalled| serve(stream, &serving, signalled),
        |quiet| {
            if quiet.busy {
                return false;
            }
            let shell_ended = aide_core::sync::lock(&kept.exec).1.as_mut().is_some_and(|s| !s.is_alive());
            let no_terminals = aide_core::sync::lock(&kept.terminals).by_id.is_empty();
            quiet.idle >= idle || (shell_ended && no_terminals)
        },
    );
    aide_core::sync::lock(&kept.terminals).close_all();
    let shell = aide_core::sync::lock(&kept.exec).1.take();
    if let Some(mut shell) = shell
        && ended.signalled
    {
        // Closed: the shell and every process it started go.
        shell.kill();
    }
    0
}

/// Serves one connection: one request, one answer.
fn serve(stream: UnixStream, kept: &Kept, signalled: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    if reader.read_until(b'\n', &mut line).is_err() {
        return;
    }
    let question = match serde_json::from_slice::<Ask>(&line) {
        Ok(q) => q,
        Err(e) => {
            let e: AideError = TerminalError::NotAKeeperRequest { message: e.to_string() }.into();
            let _ = send(&mut writer, &Answer::Failed(e.into()));
            return;
        }
    };
    if send(&mut writer, &Answer::Accepted).is_err() {
        return;
    }
    // The caller sends nothing more: an end of its stream means it went away.
    let gone = Arc::new(AtomicBool::new(false));
    let seen = gone.clone();
    let _ = reader.get_ref().set_read_timeout(None);
    let mut watch = reader;
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = watch.read_until(b'\n', &mut rest);
        seen.store(true, Ordering::Relaxed);
    });
    let stop = || gone.load(Ordering::Relaxed) || signalled.load(Ordering::Relaxed);
    let answer = match answer(question, kept, &stop) {
        Ok(a) => a,
        Err(e) => Answer::Failed(e.into()),
    };
    let _ = send(&mut writer, &answer);
    let _ = writer.shutdown(std::net::Shutdown::Both);
}

fn answer(question: Ask, kept: &Kept, stop: &dyn Fn() -> bool) -> Result<Answer, AideError> {
    let session_now = || crate::session::open_at(&kept.dir);
    let redactor = |redact: bool| -> Option<aide_gate::redact::Redactor> {
        redact.then(|| {
            let declared = session_now().map(|s| s.declared()).unwrap_or_default();
            aide_gate::redact::Redactor::with_values(declared.secret_values())
        })
    };
    // A terminal is taken from the list for the request and shared, never held by it.
    let terminal = |id: &str| -> Result<Arc<Terminal>, AideError> {
        aide_core::sync::lock(&kept.terminals).by_id.get(id).cloned().ok_or_else(|| no_terminal(id))
    };
    match question {
        Ask::Exec(order) => {
            let mut exec = aide_core::sync::lock(&kept.exec);
            let (session, shell) = &mut *exec;
            run(session, shell, &order, stop).map(|out| Answer::Done(Box::new(out)))
        }
        Ask::TermStart { command, size, redact, trace } => {
            let session = session_now()?;
            let id = {
                let mut terminals = aide_core::sync::lock(&kept.terminals);
                terminals.next += 1;
                format!("{}.t{}", kept.session_id, terminals.next)
            };
            let sandbox = session.sandbox();
            let place = (kept.dir.as_path(), session.meta.working_dir.as_str());
            let started = Terminal::start(id.clone(), &command, place, size, &sandbox, trace.as_ref())?;
            let terminal = Arc::new(started);
            aide_core::sync::lock(&kept.terminals).by_id.insert(id, terminal.clone());
            let first = ReadWait { wait_for: None, quiet_ms: Some(200), timeout_ms: Some(2000), ..Default::default() };
            let view = terminal.read(&first, &kept.session_id, redactor(redact).as_ref());
            view.map(|v| Answer::Term(Box::new(v)))
        }
        Ask::TermSend { terminal_id, text, keys, wait, redact } => {
            let t = terminal(&terminal_id)?;
            t.send(text.as_deref(), &keys)?;
            let view = t.read(&wait, &kept.session_id, redactor(redact).as_ref());
            view.map(|v| Answer::Term(Box::new(v)))
        }
        Ask::TermRead { terminal_id, wait, redact } => {
            let t = terminal(&terminal_id)?;
            let view = t.read(&wait, &kept.session_id, redactor(redact).as_ref());
            view.map(|v| Answer::Term(Box::new(v)))
        }
        Ask::TermResize { terminal_id, size } => {
            let t = terminal(&terminal_id)?;
            t.resize(size)?;
            Ok(Answer::Terms(vec![t.listed()]))
        }
        Ask::TermList => {
            let all: Vec<Arc<Terminal>> = aide_core::sync::lock(&kept.terminals).by_id.values().cloned().collect();
            Ok(Answer::Terms(all.iter().map(|t| t.listed()).collect()))
        }
        Ask::TermClose { terminal_id } => {
            let t = aide_core::sync::lock(&kept.terminals)
                .by_id
                .remove(&terminal_id)
                .ok_or_else(|| no_terminal(&terminal_id))?;
            Ok(Answer::TermClosed { terminal_id, exit_code: t.close() })
        }
    }
}

fn no_terminal(id: &str) -> AideError {
    TerminalError::NoTerminal { id: id.to_string() }.into()
}

fn run(
    session: &mut Session,
    shell: &mut Option<LiveShell>,
    order: &ExecOrder,
    stop: &dyn Fn() -> bool,
) -> Result<ExecOutput, AideError> {
    if shell.as_mut().is_none_or(|s| !s.is_alive()) {
        // The old shell goes first: its end removes the report FIFO the new one makes.
        *shell = None;
        *shell = Some(LiveShell::for_session(session)?);
    }
    let Some(live) = shell.as_mut() else { return Err(AideError::internal("no shell")) };
    run_on(live, session, order, true, stop)
}

fn send(writer: &mut UnixStream, answer: &Answer) -> std::io::Result<()> {
    writer.write_all(&aide_keeper::json_line(answer))
}

/// The sessions whose keeper runs now, each with its number of terminals.
pub fn running() -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for meta in crate::session::list().unwrap_or_default() {
        let Ok(session) = crate::session::open(&meta.session_id) else { continue };
        if is_alive(&session.dir) {
            let terminals = match ask(&session, &Ask::TermList) {
                Ok(Answer::Terms(t)) => t.len(),
                _ => 0,
            };
            out.push((meta.session_id, terminals));
        }
    }
    out
}

/// Live shells of sessions no keeper holds (nor a command of a keeper-less
/// session): left behind by something the watcher did not see. Their pids.
pub fn orphan_shells() -> Vec<u32> {
    let sessions = crate::session::sessions_dir();
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return out };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let Some(script) =
            raw.split(|&b| b == 0).map(|a| Path::new(std::ffi::OsStr::from_bytes(a))).find(|a| a.ends_with("shell.sh"))
        else {
            continue;
        };
        let Some(dir) = script.parent() else { continue };
        if dir.parent() == Some(sessions.as_path())
            && !is_alive(dir)
            && !aide_core::fsutil::lock_held(&dir.join("lock"))
        {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}
