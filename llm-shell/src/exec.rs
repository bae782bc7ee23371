//! Running one command in a session.
//!
//! A persistent session's commands go to its keeper (see [`crate::keeper`]),
//! which holds a live bash; a throwaway session's command, or one in a
//! session whose folder is too deep for a socket's name, runs in a live
//! shell of its own started for it (the `live` module); the engine
//! chooses. Here: what a command asks, what it answers, and the shared
//! middle of both ways (`run_on`). Either way the
//! command is `eval`ed in the shell itself, so `cd`, `export`, functions
//! and options carry into the next, and the state is saved before the
//! answer is given.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_gate::redact::Redactor;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::live::{Done, LiveShell, Order};
use crate::session::Session;

/// One command to run, as a caller asks it (and as it travels to a keeper).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ExecOrder {
    pub command: String,
    /// A file the command reads as its stdin; none: nothing.
    pub stdin: Option<PathBuf>,
    pub timeout_ms: Option<u64>,
    pub max_output: usize,
    /// Replace secrets in the output with `[REDACTED]`.
    pub redact: bool,
    /// Kept out of the session's timing history (the tool's own commands: `env`).
    #[serde(default)]
    pub unrecorded: bool,
    /// The `TRACEPARENT` (and `TRACESTATE`) the command is given: the span
    /// of the run that asked for it. None: both unset for it. Never the
    /// session's: a kept session outlives the trace it was made under.
    #[serde(default)]
    pub trace: Option<aide_gate::trace::Headers>,
}

impl ExecOrder {
    fn order(&self) -> Order<'_> {
        Order {
            command: &self.command,
            stdin: self.stdin.as_deref(),
            timeout: self.timeout_ms.map(Duration::from_millis),
            max_output: self.max_output,
            redact: self.redact,
            trace: self.trace.as_ref(),
        }
    }
}

/// Per-phase timings of one exec, in microseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
pub struct Phases {
    /// Parsing the command (brush-parser).
    pub parse_us: f64,
    /// Restoring the session state in bash.
    pub restore_us: f64,
    /// Running the command.
    pub execute_us: f64,
    /// Saving state, collecting and redacting output.
    pub capture_us: f64,
    pub total_us: f64,
}

/// The result of `llm-shell exec`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ExecOutput {
    pub session_id: Option<String>,
    pub command: String,
    pub exit_code: i32,
    /// The sandbox it ran in.
    pub sandbox: aide_gate::sandbox::SandboxUsed,
    pub stdout: String,
    pub stderr: String,
    /// Bytes the command wrote, whatever was kept.
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// Output over --max-output: head and tail kept, the middle cut.
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub execution_time_ms: f64,
    pub timed_out: bool,
    /// The limit it ran under: --timeout, else aide.toml's exec_timeout, else 120 s.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The working directory after the command.
    pub working_dir: String,
    /// Secrets replaced by `[REDACTED]`.
    pub redactions: usize,
    /// A background process the command started still held its output
    /// open when it returned: `stdout`/`stderr` are what arrived until then.
    pub background_output: bool,
    pub performance: Phases,
}

/// Runs `order` on `shell`, the live bash of `session`: the answer, with
/// secrets the command itself set redacted too, and the session's record
/// (working directory, last exit status, count; with `persistent`, its
/// timing history) brought up to date.
pub(crate) fn run_on(
    shell: &mut LiveShell,
    session: &mut Session,
    order: &ExecOrder,
    persistent: bool,
    stop: &dyn Fn() -> bool,
) -> Result<ExecOutput, AideError> {
    let clock = Instant::now();
    let parse_start = Instant::now();
    let _ = crate::syntax::parse(&order.command);
    let parse_us = parse_start.elapsed().as_secs_f64() * 1e6;
    let done = shell.run(&order.order(), stop)?;
    let capture_start = Instant::now();
    let Done { exit_code, stdout, stderr, background_output, timed_out, working_dir, restore_us, execute_us } = done;
    let mut redactions = stdout.redactions + stderr.redactions;
    let (mut stdout_text, mut stderr_text) = (stdout.text, stderr.text);
    if order.redact {
        // Secret values the command itself set (`export API_TOKEN=…; echo $API_TOKEN`).
        let set_now = Redactor::with_values(shell.declared.secret_values());
        if set_now.has_values() {
            let (o, n) = set_now.redact(&stdout_text);
            let (e, m) = set_now.redact(&stderr_text);
            (stdout_text, stderr_text) = (o, e);
            redactions += n + m;
        }
    }
    if let Some(cwd) = working_dir {
        session.meta.working_dir = cwd;
    }
    session.meta.last_exit_code = Some(exit_code);
    session.meta.exec_count += 1;
    let capture_us = capture_start.elapsed().as_secs_f64() * 1e6;
    let total_us = clock.elapsed().as_secs_f64() * 1e6;
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let out = ExecOutput {
        session_id: persistent.then(|| session.meta.session_id.clone()),
        command: order.command.clone(),
        exit_code,
        sandbox: session.meta.sandbox,
        stdout: stdout_text,
        stderr: stderr_text,
        stdout_bytes: stdout.written,
        stderr_bytes: stderr.written,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        execution_time_ms: (total_us / 1000.0 * 1000.0).round() / 1000.0,
        timed_out,
        timeout_ms: order.timeout_ms,
        working_dir: session.meta.working_dir.clone(),
        redactions,
        background_output,
        performance: Phases {
            parse_us: round(parse_us),
            restore_us: round(restore_us),
            execute_us: round(execute_us),
            capture_us: round(capture_us),
            total_us: round(total_us),
        },
    };
    if persistent {
        session.save_meta()?;
    }
    if persistent && !order.unrecorded {
        record_timing(session, order, &out)?;
    }
    Ok(out)
}

/// Appends the command's phases to the session's timing history.
fn record_timing(session: &Session, order: &ExecOrder, out: &ExecOutput) -> Result<(), AideError> {
    let p = &out.performance;
    crate::perf::append(
        session,
        &crate::perf::PerfRecord {
            session_id: session.meta.session_id.clone(),
            // The history keeps the command redacted (`export TOKEN=…`).
            command: aide_gate::redact::redact(&order.command).0,
            at: aide_core::time::rfc3339(std::time::SystemTime::now()),
            exit_code: out.exit_code,
            timed_out: out.timed_out,
            parse_us: p.parse_us,
            restore_us: p.restore_us,
            execute_us: p.execute_us,
            capture_us: p.capture_us,
            total_us: p.total_us,
        },
    )
}
