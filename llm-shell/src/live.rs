//! A live bash that runs a session's commands one after another.
//!
//! bash starts once with an empty environment, sources the session's
//! `state.sh` and `options.sh`, and then loops: it reads a request (the
//! command, its stdin, and two FIFOs for its stdout and stderr) from
//! descriptor 3, `eval`s the command in the shell itself — so `cd`,
//! `export`, functions and options carry into the next one — and writes a
//! report to the session's `io/report` FIFO: the exit status, the options, the
//! working directory and the whole state (`declare -p`, `declare -f`,
//! `alias -p`, `set +o`, `shopt -p`: builtins only, about 0.1 ms). The
//! state is filtered and saved from the report before the command's answer
//! is given, so a shell that dies loses nothing but the command in flight.
//!
//! The FIFOs lie in the session's `io` folder, the one its sandbox lets the
//! shell write, so anything may stand there: each is opened without
//! following a link, without blocking, and refused unless it is a FIFO.
//!
//! `exit`, a failure under `set -e`, and the TERM of a timeout end the
//! shell; its EXIT trap still reports. A watcher in the shell's process
//! group reads descriptor 5, whose other end only this process holds: if
//! this process dies without saying "done" there (even by SIGKILL), the
//! watcher kills the group, and no command outlives what supervised it.

mod report;

use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::fsutil::replace;
use aide_gate::redact::Redactor;
use rustix::process::Signal;

use crate::capture::{Collected, collect, reader};
use crate::error::ShellError;
use crate::state::{Declared, restorable_options, restorable_state};
use report::{Report, report_reader};

/// The loop bash runs. `$1` is the session folder, `$2` the report marker,
/// `$3` the exit status the first command sees in `$?`, `$4` the folder of
/// its FIFOs. Each request names a fresh tag its report carries: a command
/// can see its own tag, never the next one's, so a report it forges can
/// only be about itself, and its real report, come late, is no other's.
const LOOP: &str = r#"__aide_dir=$1 __aide_nonce=$2 __aide_last=$3 __aide_io=$4 __aide_rc=0 __aide_t1=$EPOCHREALTIME __aide_tag=-
set --
{ IFS= read -r -u 5 __aide_w; [[ $__aide_w == done ]] || kill -KILL -- -$$; } 3<&- >/dev/null 2>&1 &
disown $! 2>/dev/null
exec 5<&-
__aide_ret() { return "$1"; }
__aide_report() {
  {
    printf '\036%s status %s %s %s %s %s\n%s\0\n' "$__aide_nonce" "$__aide_tag" "$__aide_rc" "$__aide_flags" "$__aide_t1" "$EPOCHREALTIME" "$PWD"
    declare -p; declare -f; alias -p
    printf '\036%s options\n' "$__aide_nonce"
    set +o; shopt -p
    printf '\036%s end\n' "$__aide_nonce"
  } >"$__aide_io/report" 2>/dev/null
}
__aide_exit() {
  __aide_rc=$? __aide_flags=$-
  set +euxv
  umask 077
  __aide_report
  # A command's own `trap … EXIT` runs after the state is reported, seeing
  # the command's exit status in $?.
  if [[ -n ${__aide_user_exit-} && ${__aide_user_exit} != - ]]; then
    __aide_ret "$__aide_rc"
    eval "$__aide_user_exit"
  fi
}
builtin trap __aide_exit EXIT
builtin trap 'exit 143' TERM
builtin trap 'exit 129' HUP
source "$__aide_dir/state.sh" >/dev/null 2>&1
shopt -s expand_aliases
# The session's set/shopt options come last, so none of them (set -e,
# set -u) applies to the lines above; e, u, x and v are put back around
# each command only.
if [[ -f "$__aide_dir/options.sh" ]]; then source "$__aide_dir/options.sh" >/dev/null 2>&1; fi
__aide_flags=$-
set +euxv
trap() {
  if [[ $# -ge 2 && ( $1 != -* || $1 == - ) ]]; then
    local __aide_action=$1 __aide_sig
    shift
    for __aide_sig in "$@"; do
      case "$__aide_sig" in
        EXIT|exit|SIGEXIT|0) __aide_user_exit=$__aide_action ;;
        *) builtin trap -- "$__aide_action" "$__aide_sig" ;;
      esac
    done
    return 0
  fi
  builtin trap "$@"
}
while IFS= read -r -d '' -u 3 __aide_cmd && IFS= read -r -d '' -u 3 __aide_in \
  && IFS= read -r -d '' -u 3 __aide_out && IFS= read -r -d '' -u 3 __aide_err \
  && IFS= read -r -d '' -u 3 __aide_tag && IFS= read -r -d '' -u 3 __aide_tp \
  && IFS= read -r -d '' -u 3 __aide_ts; do
  __aide_user_exit= __aide_on=${__aide_flags//[^euxv]/}
  __aide_t1=$EPOCHREALTIME
  # The trace of the run that sent this command, never an earlier one's.
  if [[ -n $__aide_tp ]]; then export TRACEPARENT=$__aide_tp; else unset TRACEPARENT; fi
  if [[ -n $__aide_ts ]]; then export TRACESTATE=$__aide_ts; else unset TRACESTATE; fi
  {
    if [[ -n $__aide_on ]]; then set "-$__aide_on"; fi
    # $? starts as the previous command's exit code (unless set -e would stop on it).
    if [[ $- == *e* ]]; then true; else __aide_ret "$__aide_last"; fi
    eval "$__aide_cmd"
    __aide_rc=$? __aide_flags=$-
    set +euxv
    if [[ -n $__aide_user_exit && $__aide_user_exit != - ]]; then
      __aide_ret "$__aide_rc"
      eval "$__aide_user_exit"
    fi
  } <"$__aide_in" >"$__aide_out" 2>"$__aide_err" 3<&-
  __aide_last=$__aide_rc
  umask 077
  __aide_report
done
builtin trap - EXIT
exit 0
"#;

/// After a timeout's TERM, how long before KILL.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long to keep reading output after the command ended (a background
/// child may hold the streams open for as long as it runs).
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// How often a wait looks at the clock, the shell and the caller.
const TICK: Duration = Duration::from_millis(10);

/// What one command asks of the shell.
#[derive(Debug, Clone)]
pub(crate) struct Order<'a> {
    pub command: &'a str,
    /// A file the command reads as its stdin (default: nothing).
    pub stdin: Option<&'a Path>,
    pub timeout: Option<Duration>,
    pub max_output: usize,
    pub redact: bool,
    /// The trace context the command is given (`TRACEPARENT`, `TRACESTATE`).
    pub trace: Option<&'a aide_gate::trace::Headers>,
}

/// The `TRACEPARENT` and `TRACESTATE` fields of a command's request
/// (empty: unset for it).
fn trace_fields(trace: Option<&aide_gate::trace::Headers>) -> Result<(&str, &str), AideError> {
    let (parent, state) = match trace {
        Some((parent, state)) => (parent.as_str(), state.as_deref().unwrap_or("")),
        None => ("", ""),
    };
    if parent.contains('\0') || state.contains('\0') {
        return Err(ShellError::NulInCommand.into());
    }
    Ok((parent, state))
}

/// What one command did.
#[derive(Debug)]
pub(crate) struct Done {
    pub exit_code: i32,
    pub stdout: Collected,
    pub stderr: Collected,
    pub background_output: bool,
    pub timed_out: bool,
    /// The working directory after the command, when the shell reported it.
    pub working_dir: Option<String>,
    /// Restoring the state (the shell's start), running the command, in µs.
    pub restore_us: f64,
    pub execute_us: f64,
}

/// One live bash of one session.
pub(crate) struct LiveShell {
    dir: PathBuf,
    /// The folder of its FIFOs (the one its sandbox may write).
    fifos: PathBuf,
    child: Child,
    pgid: u32,
    /// Requests to bash; dropped, bash's loop ends.
    control: Option<std::io::PipeWriter>,
    lifeline: Option<std::io::PipeWriter>,
    reports: mpsc::Receiver<Vec<u8>>,
    /// The report FIFO, held open for reading and writing so it never ends.
    report_fifo: File,
    nonce: String,
    sequence: u64,
    alive: bool,
    /// What the saved state declares, as of the last report.
    pub declared: Declared,
    started: Option<Instant>,
}

fn io(what: &str) -> impl Fn(std::io::Error) -> AideError + '_ {
    move |e| AideError::io(what, &e)
}

/// Makes a FIFO at `path` (only its owner may open it), replacing whatever stood there.
fn make_fifo(path: &Path) -> Result<(), AideError> {
    let _ = std::fs::remove_file(path);
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .map_err(|e| AideError::io(&path.display().to_string(), &e.into()))
}

/// Opens the FIFO at `path` for reading (and writing, with `write`), not
/// blocking: never through a link, and refused unless a FIFO of this user
/// stands there.
fn open_fifo(path: &Path, write: bool) -> Result<File, AideError> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
    let what = path.display().to_string();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| AideError::io(&what, &e))?;
    let meta = file.metadata().map_err(|e| AideError::io(&what, &e))?;
    if !meta.file_type().is_fifo() || meta.uid() != rustix::process::getuid().as_raw() {
        let planted = std::io::Error::new(std::io::ErrorKind::InvalidData, "not the session's FIFO");
        return Err(AideError::io(&what, &planted));
    }
    Ok(file)
}

/// Opens a FIFO for reading and writing: never ends while held; blocking.
fn open_both(path: &Path) -> Result<File, AideError> {
    let fifo = open_fifo(path, true)?;
    rustix::fs::fcntl_setfl(&fifo, rustix::fs::OFlags::empty())
        .map_err(|e| AideError::io("session FIFO", &e.into()))?;
    Ok(fifo)
}

impl LiveShell {
    /// Starts the live bash of `session`, on its saved state (refused when
    /// that state is not a sane regular file), in its working directory.
    pub(crate) fn for_session(session: &crate::session::Session) -> Result<LiveShell, AideError> {
        session.check_state()?;
        let mut shell = LiveShell::start(
            &session.dir,
            &session.io_dir(),
            &session.meta.working_dir,
            session.meta.last_exit_code.unwrap_or(0),
            &session.sandbox(),
        )?;
        shell.declared = session.declared();
        Ok(shell)
    }

    /// Starts bash in `working_dir` on the state saved in the session folder
    /// `dir`, with its FIFOs in `fifos`, inside `sandbox` (refused, nothing
    /// started, where this kernel cannot enforce it).
    fn start(
        dir: &Path,
        fifos: &Path,
        working_dir: &str,
        last_exit: i32,
        sandbox: &aide_gate::sandbox::Sandbox,
    ) -> Result<LiveShell, AideError> {
        let started = Instant::now();
        let nonce = report::marker();
        aide_core::fsutil::private_dir(fifos).map_err(io("the session's io folder"))?;
        let report_path = fifos.join("report");
        make_fifo(&report_path)?;
        let report_fifo = open_both(&report_path)?;
        let reports = report_reader(report_fifo.try_clone().map_err(io("report FIFO"))?, &nonce);
        let (control_r, control) = std::io::pipe().map_err(io("control pipe"))?;
        let (lifeline_r, lifeline) = std::io::pipe().map_err(io("lifeline pipe"))?;
        // From a file, so `ps` shows the session's folder rather than the loop's text.
        let script = dir.join("shell.sh");
        if aide_core::fsutil::read_private(&script, 1 << 20).ok().as_deref() != Some(LOOP.as_bytes()) {
            replace(&script, LOOP.as_bytes()).map_err(io("the shell's loop"))?;
        }
        let mut cmd = sandbox.command("bash")?;
        cmd.args(["--noprofile", "--norc"])
            .arg(&script)
            .arg(dir)
            .arg(&nonce)
            .arg(last_exit.to_string())
            .arg(fifos)
            .env_clear()
            // bash needs a PATH before state.sh sets the session's.
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .current_dir(if Path::new(working_dir).is_dir() { working_dir } else { "/" })
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        aide_gate::process::hand_descriptors(
            &mut cmd,
            vec![(OwnedFd::from(control_r), 3), (OwnedFd::from(lifeline_r), 5)],
        );
        let child = cmd.spawn().map_err(|e| ShellError::Spawn {
            program: "bash",
            needed_by: "llm-shell",
            message: e.to_string(),
        })?;
        let pgid = child.id();
        Ok(LiveShell {
            dir: dir.to_path_buf(),
            fifos: fifos.to_path_buf(),
            child,
            pgid,
            control: Some(control),
            lifeline: Some(lifeline),
            reports,
            report_fifo,
            nonce,
            sequence: 0,
            alive: true,
            declared: Declared::default(),
            started: Some(started),
        })
    }

    /// Whether the shell still runs (it ends on `exit`, `set -e`, a timeout).
    pub(crate) fn is_alive(&mut self) -> bool {
        self.alive && matches!(self.child.try_wait(), Ok(None))
    }

    /// Runs one command; `stop` is asked every few milliseconds whether to
    /// give up (the command's group is then taken down and `cancelled` returned).
    pub(crate) fn run(&mut self, order: &Order<'_>, stop: &dyn Fn() -> bool) -> Result<Done, AideError> {
        if order.command.contains('\0') {
            return Err(ShellError::NulInCommand.into());
        }
        let restore_from = self.started.take();
        self.sequence += 1;
        let out_path = self.fifos.join(format!("out.{}", self.sequence));
        let err_path = self.fifos.join(format!("err.{}", self.sequence));
        let redactor = order.redact.then(|| Redactor::with_values(self.declared.secret_values()));
        let streams = self.open_output_fifos([&out_path, &err_path], order.max_output, redactor.as_ref())?;
        let stdin = order.stdin.map_or_else(|| PathBuf::from("/dev/null"), Path::to_path_buf);
        let tag = report::marker();
        let (traceparent, tracestate) = trace_fields(order.trace)?;
        let request = request_fields(&[
            order.command.as_bytes(),
            stdin.as_os_str().as_encoded_bytes(),
            out_path.as_os_str().as_encoded_bytes(),
            err_path.as_os_str().as_encoded_bytes(),
            tag.as_bytes(),
            traceparent.as_bytes(),
            tracestate.as_bytes(),
        ]);
        let exec_start = Instant::now();
        let sent = match &mut self.control {
            Some(control) => control.write_all(&request),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        let deadline = order.timeout.map(|t| exec_start + t);
        let Awaited { parsed, timed_out, stopped } = match sent {
            Ok(()) => self.await_report(&tag, deadline, stop),
            Err(_) => Awaited { parsed: None, timed_out: false, stopped: false },
        };
        let execute_us = exec_start.elapsed().as_secs_f64() * 1e6;
        let mut collected = drain_outputs(streams, [&out_path, &err_path]);
        let mut status = None;
        if timed_out || stopped || !matches!(self.child.try_wait(), Ok(None)) {
            // The shell ended: what remains of its group goes too.
            self.alive = false;
            let _ = aide_gate::process::signal_group(self.pgid, Signal::KILL);
            status = self.child.wait().ok();
        }
        if stopped {
            // The command is gone; a caller stopped by a signal dies of it itself.
            return Err(AideError::cancelled());
        }
        let (stderr, err_ended) = collected.pop().unwrap_or_else(empty);
        let (stdout, out_ended) = collected.pop().unwrap_or_else(empty);
        let mut working_dir = None;
        let mut restore_us = 0.0;
        let exit_code = match &parsed {
            Some(r) => {
                self.save(r)?;
                working_dir = Some(r.working_dir.clone());
                restore_us = restore_from.map_or(0.0, |t| (r.started_us - epoch_us_at(t)).max(0.0));
                r.exit_code
            }
            None => {
                use std::os::unix::process::ExitStatusExt;
                match status {
                    Some(s) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
                    None => -1,
                }
            }
        };
        if sent.is_err() && parsed.is_none() {
            return Err(ShellError::CommandLost { why: "its requests could not be written".into() }.into());
        }
        Ok(Done {
            exit_code,
            stdout,
            stderr,
            background_output: !(out_ended && err_ended),
            timed_out,
            working_dir,
            restore_us,
            execute_us,
        })
    }

    /// The FIFOs a command's stdout and stderr go to, each with its reader
    /// and a write end of our own, held until the command has ended.
    fn open_output_fifos(
        &self,
        paths: [&Path; 2],
        max_output: usize,
        redactor: Option<&Redactor>,
    ) -> Result<Vec<(crate::capture::Reading, File)>, AideError> {
        let mut streams = Vec::new();
        for path in paths {
            make_fifo(path)?;
            // Read end first (it does not wait for a writer), then a write end of our own, held
            // until the command has ended, so the reader never sees an end before bash opens it:
            // the same FIFO, through the descriptor, whatever stands at the path by now.
            let read = open_fifo(path, false)?;
            let hold = std::fs::OpenOptions::new()
                .write(true)
                .open(format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&read)))
                .map_err(io("output FIFO"))?;
            rustix::fs::fcntl_setfl(&read, rustix::fs::OFlags::empty())
                .map_err(|e| AideError::io("output FIFO", &e.into()))?;
            streams.push((reader(read, max_output, redactor.cloned()), hold));
        }
        Ok(streams)
    }

    /// Waits for the report tagged `tag`, taking the command's group down
    /// (TERM, then KILL after a grace) when `stop` says so or the deadline
    /// passes, until the report comes or the shell is gone.
    fn await_report(&mut self, tag: &str, deadline: Option<Instant>, stop: &dyn Fn() -> bool) -> Awaited {
        let mut timed_out = false;
        let mut kill_at: Option<Instant> = None;
        let mut stopped = false;
        let mut parsed = None;
        // A report of another tag (an earlier command's, come late, or one
        // forged) is not this command's.
        let nonce = &self.nonce;
        let mine = |r: Vec<u8>| Report::parse(&r, nonce).filter(|r| r.tag == tag);
        loop {
            match self.reports.recv_timeout(TICK) {
                Ok(r) => {
                    parsed = mine(r);
                    if parsed.is_some() {
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if !matches!(self.child.try_wait(), Ok(None)) {
                // Gone without a word: exec'd over, or killed. A report may have come meanwhile.
                parsed = std::iter::from_fn(|| self.reports.recv_timeout(TICK).ok()).find_map(mine);
                break;
            }
            let now = Instant::now();
            if !stopped && stop() {
                stopped = true;
                let _ = aide_gate::process::signal_group(self.pgid, Signal::TERM);
                kill_at = Some(now + KILL_GRACE);
            } else if !timed_out && !stopped && deadline.is_some_and(|d| now >= d) {
                timed_out = true;
                let _ = aide_gate::process::signal_group(self.pgid, Signal::TERM);
                kill_at = Some(now + KILL_GRACE);
            } else if kill_at.is_some_and(|k| now >= k) {
                let _ = aide_gate::process::signal_group(self.pgid, Signal::KILL);
                kill_at = None;
            }
        }
        Awaited { parsed, timed_out, stopped }
    }

    /// Saves the reported state as the session's `state.sh` and `options.sh`.
    fn save(&mut self, report: &Report) -> Result<(), AideError> {
        let state = restorable_state(&report.state, &report.working_dir);
        replace(&self.dir.join("state.sh"), state.as_bytes()).map_err(io("session state"))?;
        replace(&self.dir.join("options.sh"), restorable_options(&report.options, &report.flags).as_bytes())
            .map_err(io("session options"))?;
        self.declared = crate::state::parse(&state);
        Ok(())
    }

    /// Ends the shell and every process of its group now.
    pub(crate) fn kill(&mut self) {
        self.lifeline = None;
        let _ = aide_gate::process::signal_group(self.pgid, Signal::KILL);
        let _ = self.child.wait();
        self.alive = false;
    }
}

impl Drop for LiveShell {
    fn drop(&mut self) {
        if self.alive {
            // An orderly end: the watcher lets the commands' background children be.
            if let Some(mut lifeline) = self.lifeline.take() {
                let _ = lifeline.write_all(b"done\n");
            }
            // bash reads the end of its requests and exits; reaped here, not
            // left a zombie in a long-lived process.
            self.control = None;
            let until = Instant::now() + Duration::from_secs(2);
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            if matches!(self.child.try_wait(), Ok(None)) {
                self.kill();
            }
        }
        // The report reader ends on its own marker.
        let _ = writeln!(self.report_fifo, "\x1e{} quit", self.nonce);
        let _ = std::fs::remove_file(self.fifos.join("report"));
    }
}

fn empty() -> (Collected, bool) {
    (Collected { text: String::new(), written: 0, truncated: false, redactions: 0 }, true)
}

/// Microseconds since the epoch at `instant` (bash's `$EPOCHREALTIME` clock).
fn epoch_us_at(instant: Instant) -> f64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    now.as_secs_f64() * 1e6 - instant.elapsed().as_secs_f64() * 1e6
}

/// What the command wrote, each stream read until bash and its children
/// let go of it (at most [`DRAIN_LIMIT`]); the FIFOs are removed.
fn drain_outputs(streams: Vec<(crate::capture::Reading, File)>, paths: [&Path; 2]) -> Vec<(Collected, bool)> {
    // Our own write ends go: the streams end once bash and its children let go of theirs.
    let drain_until = Instant::now() + DRAIN_LIMIT;
    let mut collected = Vec::new();
    for (reading, hold) in streams {
        drop(hold);
        collected.push(collect(Some(reading), drain_until));
    }
    for path in paths {
        let _ = std::fs::remove_file(path);
    }
    collected
}

/// What waiting for a command's report came to.
struct Awaited {
    parsed: Option<Report>,
    /// The deadline passed (the group was taken down).
    timed_out: bool,
    /// `stop` said to give up (the group was taken down).
    stopped: bool,
}

/// A request to the shell's loop: each field followed by a NUL.
fn request_fields(fields: &[&[u8]]) -> Vec<u8> {
    let mut request = Vec::new();
    for field in fields {
        request.extend_from_slice(field);
        request.push(0);
    }
    request
}
