//! The gate: the one way a tool starts a process from project or model
//! input (a checker, a verify command, a git hook, a language server, a
//! formatter, a compared command). It applies, in one place:
//!
//! * the sandbox: the one the caller asks for, made at least as strict as
//!   the process's ambient one ([`impose`]: `aide mcp` imposes its own on
//!   every tool it serves, so a model's `verify_command` or a project's
//!   `build.rs` run under it whatever tool started them);
//! * a process group of its own, and a timeout (or the run's cancellation)
//!   that takes the whole group down; when the program ends, what it left
//!   running in its group is killed too, and output is read for at most
//!   [`PIPE_GRACE`] more, so a grandchild that holds a pipe open never
//!   holds the caller;
//! * output caps (each stream keeps its first [`Launch::cap`] bytes and
//!   counts the rest);
//! * redaction of what is kept, when asked (output shown to a user);
//! * the execution log: every process started under a run's id is recorded
//!   with it ([`take_records`]).
//!
//! Nothing else in the tools constructs a `std::process::Command` for such
//! a program: clippy's `disallowed-methods` (clippy.toml) refuses
//! `Command::new` outside the few places that start aide's own executables
//! or a shell the user asked for through the sandbox.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::StartError;
use crate::sandbox::{Network, SandboxMode, SandboxUsed};
use aide_core::tool::Cancel;

/// How long output is still read after the program ended and its group was
/// taken down: a process that left the group and holds a pipe is not waited
/// for longer.
pub const PIPE_GRACE: Duration = Duration::from_millis(500);

/// How long a program gets between TERM and KILL at a timeout.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// What each stream keeps by default (the rest is counted, not kept).
pub const DEFAULT_CAP: usize = 64 << 20;

static AMBIENT: Mutex<SandboxUsed> = Mutex::new(SandboxUsed { mode: SandboxMode::Off, network: Network::On });

/// Makes every process this process starts through the gate from now on run
/// at least as confined as `sandbox` (the stricter of it and what was
/// imposed before: an ambient sandbox only tightens).
pub fn impose(sandbox: SandboxUsed) {
    let mut ambient = aide_core::sync::lock(&AMBIENT);
    *ambient = stricter(*ambient, sandbox);
}

/// The sandbox imposed on this process's gated processes (off unless
/// [`impose`]d).
pub fn ambient() -> SandboxUsed {
    *aide_core::sync::lock(&AMBIENT)
}

/// The stricter of two sandboxes, each part on its own: the stricter mode,
/// and the network off when either has it off.
pub fn stricter(a: SandboxUsed, b: SandboxUsed) -> SandboxUsed {
    let mode = if b.mode.strictness() > a.mode.strictness() { b.mode } else { a.mode };
    let network = if a.network == Network::Off || b.network == Network::Off { Network::Off } else { Network::On };
    SandboxUsed { mode, network }
}

/// One process to start: built like a `std::process::Command`, run to its
/// end with [`Launch::run`] or handed over running with [`Launch::spawn`].
#[derive(Debug, Clone)]
pub struct Launch {
    program: OsString,
    args: Vec<OsString>,
    dir: PathBuf,
    envs: Vec<(OsString, Option<OsString>)>,
    clear_env: bool,
    sandbox: SandboxUsed,
    writable: Vec<PathBuf>,
    timeout: Option<Duration>,
    input: Option<Vec<u8>>,
    cap: usize,
    redact: bool,
    cancel: Option<Cancel>,
    run_id: Option<String>,
    purpose: &'static str,
    name: Option<String>,
}

impl Launch {
    /// `program` started in `dir` (also the root a `workspace-write`
    /// sandbox lets it write), for `purpose` (what the log says started it:
    /// "checker", "verify command", "hook", …).
    pub fn new(purpose: &'static str, program: impl AsRef<OsStr>, dir: impl Into<PathBuf>) -> Launch {
        Launch {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            dir: dir.into(),
            envs: Vec::new(),
            clear_env: false,
            sandbox: SandboxUsed::default(),
            writable: Vec::new(),
            timeout: None,
            input: None,
            cap: DEFAULT_CAP,
            redact: false,
            cancel: None,
            run_id: None,
            purpose,
            name: None,
        }
    }

    /// What it runs as, beside its purpose (a checker's name): its span says it.
    pub fn named(mut self, name: impl Into<String>) -> Launch {
        self.name = Some(name.into());
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Launch {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Launch {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Launch {
        self.envs.push((key.as_ref().to_os_string(), Some(value.as_ref().to_os_string())));
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Launch {
        self.envs.push((key.as_ref().to_os_string(), None));
        self
    }

    /// Starts from an empty environment (then [`Launch::env`]).
    pub fn env_clear(mut self) -> Launch {
        self.clear_env = true;
        self.envs.clear();
        self
    }

    /// The sandbox asked for; the ambient one still applies when stricter.
    pub fn sandbox(mut self, sandbox: SandboxUsed) -> Launch {
        self.sandbox = sandbox;
        self
    }

    /// More paths a sandbox lets it write (aide.toml's `writable`).
    pub fn writable(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Launch {
        self.writable.extend(paths);
        self
    }

    /// Past this the whole group is taken down (TERM, then KILL).
    pub fn timeout(mut self, timeout: Option<Duration>) -> Launch {
        self.timeout = timeout;
        self
    }

    /// Fed on stdin (else stdin is the null device).
    pub fn input(mut self, input: Vec<u8>) -> Launch {
        self.input = Some(input);
        self
    }

    /// The bytes each stream keeps.
    pub fn cap(mut self, bytes: usize) -> Launch {
        self.cap = bytes;
        self
    }

    /// Redacts secrets in what is kept (output shown to a user, not parsed).
    pub fn redacted(mut self) -> Launch {
        self.redact = true;
        self
    }

    /// Taken down when this flag is raised (the run's cancellation).
    pub fn cancel(mut self, cancel: &Cancel) -> Launch {
        self.cancel = Some(cancel.clone());
        self
    }

    /// Recorded in the execution log under this run's id.
    pub fn logged_under(mut self, execution_id: &str) -> Launch {
        self.run_id = Some(execution_id.to_string());
        self
    }

    /// The sandbox it runs in: the one asked, tightened by the ambient one.
    pub fn effective_sandbox(&self) -> SandboxUsed {
        stricter(self.sandbox, ambient())
    }

    /// The arguments given so far.
    pub fn arguments(&self) -> &[OsString] {
        &self.args
    }

    /// The command line as a person would type it.
    pub fn shown(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| aide_core::command::quote_word(w.as_encoded_bytes()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn program_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    /// The `std::process::Command` inside its sandbox, in its own process
    /// group, with its environment and directory; and the span id its
    /// `TRACEPARENT` names, when the run exports a span.
    fn command(&self) -> Result<(std::process::Command, SandboxUsed, Option<String>), StartError> {
        let used = self.effective_sandbox();
        let sandbox = crate::sandbox::Sandbox::of(used, &self.dir, &self.writable);
        let mut command = sandbox.command(&self.program).map_err(StartError::Sandbox)?;
        command.args(&self.args).current_dir(&self.dir).process_group(0);
        aide_core::child::inherit_only_stdio(&mut command);
        if self.clear_env {
            command.env_clear();
        }
        // Before the launch's own variables: a caller that sets TRACEPARENT wins.
        // A process recorded under its run is a span of its own; any other
        // continues the run's (the sandbox's command gave it that).
        let span_id = self.run_id.as_deref().and_then(|id| crate::trace::apply_child(&mut command, Some(id)));
        for (key, value) in &self.envs {
            match value {
                Some(v) => command.env(key, v),
                None => command.env_remove(key),
            };
        }
        Ok((command, used, span_id))
    }

    fn start_error(&self, e: std::io::Error) -> StartError {
        if e.kind() == std::io::ErrorKind::NotFound {
            StartError::NotFound { program: self.program_name() }
        } else {
            StartError::Io { program: self.program_name(), source: e }
        }
    }

    /// Starts it with the given stdio and hands it over running (a language
    /// server, a long-lived helper): the caller waits for it, or drops it to
    /// [`Started`]'s kill of its whole group.
    pub fn spawn(self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Result<Started, StartError> {
        let (mut command, used, span_id) = self.command()?;
        command.stdin(stdin).stdout(stdout).stderr(stderr);
        let child = command.spawn().map_err(|e| self.start_error(e))?;
        record(&self, used, span_id, None, Duration::ZERO, false);
        Ok(Started { child: Some(child), sandbox: used })
    }

    /// Runs it to its end (or its timeout, or the run's cancellation) and
    /// collects both streams.
    pub fn run(self) -> Result<Ran, StartError> {
        let (mut command, used, span_id) = self.command()?;
        let stdin = if self.input.is_some() { Stdio::piped() } else { Stdio::null() };
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = command.spawn().map_err(|e| self.start_error(e))?;
        let feeder = match (child.stdin.take(), self.input.clone()) {
            (Some(mut pipe), Some(input)) => Some(std::thread::spawn(move || {
                use std::io::Write;
                let _ = pipe.write_all(&input);
            })),
            _ => None,
        };
        let stdout = child.stdout.take().map(|p| read_capped(p, self.cap));
        let stderr = child.stderr.take().map(|p| read_capped(p, self.cap));
        let pgid = child.id();
        // Polled only when there is a flag to look at.
        let cancelled = self.cancel.clone().map(|c| move || c.is_cancelled());
        let cancel = cancelled.as_ref().map(|c| c as &dyn Fn() -> bool);
        let waited = crate::process::wait_with_timeout_or_cancel(child, self.timeout, KILL_GRACE, cancel);
        // Whatever it left running in its group goes with it.
        let _ = crate::process::signal_group(pgid, rustix::process::Signal::KILL);
        let until = Instant::now() + PIPE_GRACE;
        let (stdout, stdout_dropped) = collect(stdout, until);
        let (stderr, stderr_dropped) = collect(stderr, until);
        drop(feeder); // a program that never read its input does not hold us
        let duration = started.elapsed();
        let status = waited.status.map_err(|e| self.start_error(e))?;
        let (stdout, stderr) = if self.redact { (redacted(stdout), redacted(stderr)) } else { (stdout, stderr) };
        let ran = Ran {
            status,
            stdout,
            stderr,
            stdout_dropped,
            stderr_dropped,
            timed_out: waited.timed_out,
            cancelled: waited.cancelled,
            duration,
            sandbox: used,
            shown: self.shown(),
        };
        record(&self, used, span_id, ran.exit_code(), duration, ran.timed_out);
        Ok(ran)
    }
}

/// A process handed over running; dropping it takes its group down.
#[derive(Debug)]
pub struct Started {
    child: Option<Child>,
    pub sandbox: SandboxUsed,
}

impl Started {
    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("a Started holds its child until dropped")
    }

    /// The process, no longer killed on drop (the caller owns its end).
    pub fn into_child(mut self) -> Child {
        self.child.take().expect("a Started holds its child until dropped")
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = crate::process::signal_group(child.id(), rustix::process::Signal::KILL);
            let _ = child.wait();
        }
    }
}

/// What a program run to its end did.
#[derive(Debug)]
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes of each stream past the cap, read and not kept.
    pub stdout_dropped: u64,
    pub stderr_dropped: u64,
    /// Its timeout passed and its group was taken down.
    pub timed_out: bool,
    /// The run was cancelled and its group taken down.
    pub cancelled: bool,
    pub duration: Duration,
    /// The sandbox it ran in.
    pub sandbox: SandboxUsed,
    /// Its command line, quoted.
    pub shown: String,
}

impl Ran {
    /// Its exit code; None when a signal ended it.
    pub fn exit_code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

fn redacted(bytes: Vec<u8>) -> Vec<u8> {
    crate::redact::redact(&String::from_utf8_lossy(&bytes)).0.into_bytes()
}

/// A stream being read on a thread of its own: what it kept and dropped so
/// far, and a signal at its end.
struct Reading {
    read: std::sync::Arc<Mutex<(Vec<u8>, u64)>>,
    ended: mpsc::Receiver<()>,
}

/// Reads `pipe` to its end on a thread of its own, keeping `cap` bytes.
fn read_capped(mut pipe: impl Read + Send + 'static, cap: usize) -> Reading {
    let (tx, ended) = mpsc::channel();
    let read = std::sync::Arc::new(Mutex::new((Vec::new(), 0u64)));
    let shared = read.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut read = aide_core::sync::lock(&shared);
                    let room = cap.saturating_sub(read.0.len()).min(n);
                    read.0.extend_from_slice(&buf[..room]);
                    read.1 += (n - room) as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(());
    });
    Reading { read, ended }
}

/// What a reader got by `until`: all of it at the stream's end, or what it
/// had then when a process outside the group still holds the pipe (the
/// reader thread ends when that process lets go).
fn collect(reading: Option<Reading>, until: Instant) -> (Vec<u8>, u64) {
    let Some(reading) = reading else { return Default::default() };
    let _ = reading.ended.recv_timeout(until.saturating_duration_since(Instant::now()));
    std::mem::take(&mut *aide_core::sync::lock(&reading.read))
}

/// One process a run started, as the execution log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessRecord {
    /// What started it: "checker", "verify command", "hook", …
    pub purpose: String,
    /// Its command line, quoted and redacted.
    pub command: String,
    pub working_dir: String,
    pub sandbox: SandboxUsed,
    /// null while running (a handed-over process) or when a signal ended it.
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub timed_out: bool,
    /// When it started: the start of its span (not kept in the log, whose
    /// run has its own start).
    #[serde(skip)]
    #[schemars(skip)]
    pub started: Option<std::time::SystemTime>,
    /// The span id its `TRACEPARENT` named (its span, under the run's),
    /// when the run exports one; not kept in the log.
    #[serde(skip)]
    #[schemars(skip)]
    pub span_id: Option<String>,
    /// What it ran as, beside its purpose (a checker's name); not kept in the log.
    #[serde(skip)]
    #[schemars(skip)]
    pub name: Option<String>,
}

fn records() -> &'static Mutex<HashMap<String, Vec<ProcessRecord>>> {
    static RECORDS: OnceLock<Mutex<HashMap<String, Vec<ProcessRecord>>>> = OnceLock::new();
    RECORDS.get_or_init(Default::default)
}

fn record(
    launch: &Launch,
    sandbox: SandboxUsed,
    span_id: Option<String>,
    exit_code: Option<i32>,
    duration: Duration,
    timed_out: bool,
) {
    let Some(id) = &launch.run_id else { return };
    let entry = ProcessRecord {
        purpose: launch.purpose.to_string(),
        command: crate::redact::redact(&launch.shown()).0,
        working_dir: launch.dir.display().to_string(),
        sandbox,
        exit_code,
        duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        timed_out,
        started: std::time::SystemTime::now().checked_sub(duration),
        span_id,
        name: launch.name.clone(),
    };
    aide_core::sync::lock(records()).entry(id.clone()).or_default().push(entry);
}

/// The processes started under the run `execution_id`, in the order they
/// were started, taken out (the run's record keeps them).
pub fn take_records(execution_id: &str) -> Vec<ProcessRecord> {
    aide_core::sync::lock(records()).remove(execution_id).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(script: &str) -> Launch {
        Launch::new("test", "bash", std::env::temp_dir()).args(["-c", script])
    }

    #[test]
    fn collects_both_streams_and_the_exit_code() {
        let ran = bash("echo out; echo err >&2; exit 3").run().unwrap();
        assert_eq!((ran.stdout_text(), ran.stderr_text(), ran.exit_code()), ("out\n".into(), "err\n".into(), Some(3)));
    }

    #[test]
    fn a_grandchild_holding_the_pipe_does_not_hold_the_caller() {
        // The program ends at once; its background child keeps stdout open
        // for 60 s. Its group is taken down when it ends.
        let started = Instant::now();
        let ran = bash("sleep 60 & echo done").timeout(Some(Duration::from_secs(60))).run().unwrap();
        assert_eq!(ran.stdout_text(), "done\n");
        assert!(started.elapsed() < Duration::from_secs(30), "waited {:?}", started.elapsed());
    }

    #[test]
    fn a_process_that_left_the_group_is_not_waited_for() {
        // setsid takes it out of the group: it cannot be killed with it, but
        // its pipe is read for PIPE_GRACE only.
        // It writes `out` once it is out of the group and keeps the pipe;
        // the program ends after (a FIFO says when).
        let ran = bash(
            "f=$(mktemp -u); mkfifo $f; setsid bash -c \"echo out; echo ready > $f; exec sleep 60\" & read < $f; rm $f; echo done",
        )
        .run()
        .unwrap();
        assert_eq!(ran.stdout_text(), "out\ndone\n");
        assert!(ran.duration < Duration::from_secs(30));
    }

    #[test]
    fn a_program_inherits_no_descriptor_but_its_streams() {
        // A descriptor left open across exec (as a caller's caller may leave one).
        let (reader, writer) = std::io::pipe().unwrap();
        let raw = std::os::fd::AsRawFd::as_raw_fd(&writer);
        rustix::io::fcntl_setfd(&writer, rustix::io::FdFlags::empty()).unwrap();
        let ran = bash(&format!("test -e /proc/self/fd/{raw} && echo inherited || echo closed")).run().unwrap();
        assert_eq!(ran.stdout_text(), "closed\n");
        drop((reader, writer));
    }

    #[test]
    fn output_past_the_cap_is_counted_not_kept() {
        let ran = bash("head -c 1000 /dev/zero").cap(100).run().unwrap();
        assert_eq!((ran.stdout.len(), ran.stdout_dropped), (100, 900));
    }

    #[test]
    fn input_is_fed_and_a_missing_program_is_not_found() {
        let ran = Launch::new("test", "cat", std::env::temp_dir()).input(b"fed".to_vec()).run().unwrap();
        assert_eq!(ran.stdout, b"fed");
        let missing = Launch::new("test", "aide-no-such-program", std::env::temp_dir()).run();
        assert!(matches!(missing, Err(StartError::NotFound { .. })));
    }

    #[test]
    fn the_stricter_sandbox_wins_part_by_part() {
        let ww = SandboxUsed { mode: SandboxMode::WorkspaceWrite, network: Network::On };
        let off_net = SandboxUsed { mode: SandboxMode::Off, network: Network::Off };
        assert_eq!(stricter(ww, off_net), SandboxUsed { mode: SandboxMode::WorkspaceWrite, network: Network::Off });
        let ro = SandboxUsed { mode: SandboxMode::ReadOnly, network: Network::On };
        assert_eq!(stricter(ro, ww).mode, SandboxMode::ReadOnly);
        assert_eq!(stricter(SandboxUsed::default(), SandboxUsed::default()), SandboxUsed::default());
    }

    #[test]
    fn a_run_records_its_processes_under_its_id() {
        let id = aide_core::ids::new_execution_id();
        bash("exit 0").logged_under(&id).run().unwrap();
        let taken = take_records(&id);
        assert_eq!(taken.len(), 1);
        assert_eq!((taken[0].purpose.as_str(), taken[0].exit_code), ("test", Some(0)));
        assert!(take_records(&id).is_empty());
        // While the run exports a span, the process is given one of its own, and it is recorded.
        crate::trace::set_for_run(&id, ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(), None));
        let ran = bash("printf %s \"$TRACEPARENT\"").named("shellcheck").logged_under(&id).run().unwrap();
        crate::trace::clear_run(&id);
        let taken = take_records(&id);
        let span = taken[0].span_id.clone().expect("a span id");
        assert_eq!(ran.stdout_text(), format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{span}-01"));
        assert_eq!(taken[0].name.as_deref(), Some("shellcheck"));
    }
}
