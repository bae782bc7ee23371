//! What each subcommand answers, and its text form and exit status.

use std::collections::BTreeMap;
use std::io::{self, Write};

use aide_core::ExitStatus;
use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use aide_core::voice::{Given, Voice};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::{compare, exec, explain, perf, session, syntax};

/// A session as `session show` gives it (the seed's `query_session_state`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SessionState {
    pub session_id: String,
    pub working_dir: String,
    /// The exported variables (secret-named values masked). Left out of
    /// `session new` unless `--verbose`: `environment_count` says how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<BTreeMap<String, String>>,
    pub environment_count: usize,
    pub active_jobs: Vec<llm_jobs::JobView>,
    pub last_exit_code: Option<i32>,
    pub uptime_seconds: f64,
    pub exec_count: u64,
    /// Whether the session's keeper (its live shell) runs now; the next exec starts one if not.
    pub keeper_alive: bool,
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ShellOutput {
    Session(Box<SessionState>),
    Sessions {
        sessions: Vec<session::Listed>,
    },
    Removed {
        removed: String,
    },
    Env {
        updated: Vec<String>,
        session_id: String,
    },
    Exec(Box<exec::ExecOutput>),
    Terminal(Box<crate::terminal::TermView>),
    Terminals {
        terminals: Vec<crate::terminal::TermListed>,
    },
    /// `term close`: the terminal closed, and its program's exit status (none: killed).
    TermClosed {
        closed: String,
        exit_code: Option<i32>,
    },
    Background {
        session_id: Option<String>,
        job: llm_jobs::SpawnOutput,
    },
    Yielded(Box<crate::handoff::YieldedOutput>),
    Check(Box<syntax::CheckOutput>),
    Explain(Box<explain::ExplainOutput>),
    Perf(perf::PerfOutput),
    Compare(Box<compare::CompareOutput>),
}

impl Render for ShellOutput {
    // Long because: one arm per output variant, each written in its order.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            ShellOutput::Session(s) => {
                writeln!(w, "session {} in {}", s.session_id, s.working_dir)?;
                let code = s.last_exit_code.map_or("none".to_string(), |c| c.to_string());
                writeln!(w, "last exit code {code}, {} commands, up {:.0}s", s.exec_count, s.uptime_seconds)?;
                writeln!(w, "{} exported variables, {} active jobs", s.environment_count, s.active_jobs.len())?;
            }
            ShellOutput::Sessions { sessions } => {
                for listed in sessions {
                    let s = &listed.meta;
                    let keeper = if listed.keeper_alive { ", live" } else { "" };
                    writeln!(w, "{} {} ({} commands{keeper})", s.session_id, s.working_dir, s.exec_count)?;
                }
            }
            ShellOutput::Removed { removed } => writeln!(w, "removed session {removed}")?,
            ShellOutput::Terminal(t) => {
                write_scrolled_off(w, t)?;
                for line in &t.screen {
                    writeln!(w, "{line}")?;
                }
                if t.matched == Some(false) {
                    let note = format!(
                        "[{} did not match before the timeout: this is the screen then]",
                        w.voice().arg("wait_for")
                    );
                    w.paint(Paint::Warn, note)?;
                    writeln!(w)?;
                }
                let state = match (t.exited, t.exit_code) {
                    (true, Some(code)) => format!("exited {code}"),
                    (true, None) => "exited".to_string(),
                    (false, _) => "running".to_string(),
                };
                writeln!(w, "[terminal {}: {state}, cursor {},{}]", t.terminal_id, t.cursor.row, t.cursor.col)?;
            }
            ShellOutput::Terminals { terminals } => {
                for t in terminals {
                    let state =
                        if t.exited { format!("exited {}", t.exit_code.unwrap_or(-1)) } else { "running".into() };
                    writeln!(w, "{} {state} {}", t.terminal_id, t.command)?;
                }
            }
            ShellOutput::TermClosed { closed, exit_code } => {
                let code = exit_code.map_or("killed".to_string(), |c| format!("exit {c}"));
                writeln!(w, "closed terminal {closed} ({code})")?;
            }
            ShellOutput::Env { updated, session_id } => writeln!(w, "{session_id}: {}", updated.join(" "))?,
            ShellOutput::Exec(e) => {
                // A failure says so first: a reader (a model's context) that
                // stops early, or skims a long output, still sees it.
                let failed = e.exit_code != 0 || e.timed_out;
                if failed && !(e.stdout.is_empty() && e.stderr.is_empty()) {
                    let how = if e.timed_out { ", timed out" } else { "" };
                    w.paint(Paint::Bad, format_args!("[exit {}{how}]", e.exit_code))?;
                    writeln!(w)?;
                }
                w.write_all(e.stdout.as_bytes())?;
                if !e.stderr.is_empty() {
                    w.write_all(e.stderr.as_bytes())?;
                }
                let extra = match (e.timed_out, e.background_output) {
                    (true, _) => match e.timeout_ms {
                        Some(ms) => format!(" (timed out after {} s)", ms as f64 / 1000.0),
                        None => " (timed out)".to_string(),
                    },
                    (false, true) => {
                        " (a background process still holds the output open; shown: what came until the command returned)"
                            .to_string()
                    }
                    _ => String::new(),
                };
                let paint = if failed { Paint::Bad } else { Paint::Dim };
                w.paint(
                    paint,
                    format_args!("[exit {}{extra}, {:.1} ms, in {}]", e.exit_code, e.execution_time_ms, e.working_dir),
                )?;
                writeln!(w)?;
            }
            ShellOutput::Background { job, .. } => {
                write!(w, "job {} ", job.job_id)?;
                w.paint(Paint::Warn, job.status.as_str())?;
                writeln!(w, ": {}", job.command)?;
            }
            ShellOutput::Yielded(y) => {
                w.write_all(y.stdout.as_bytes())?;
                w.write_all(y.stderr.as_bytes())?;
                let last = if y.stderr.is_empty() { &y.stdout } else { &y.stderr };
                if !last.is_empty() && !last.ends_with('\n') {
                    writeln!(w)?;
                }
                if y.running {
                    w.paint(
                        Paint::Warn,
                        format_args!(
                            "[still running as job {}: {}]",
                            y.job_id,
                            still_running(w.voice(), y.job_id, y.stdout_bytes)
                        ),
                    )?;
                } else {
                    let paint = if y.status == llm_jobs::Status::Done && y.exit_code == Some(0) {
                        Paint::Dim
                    } else {
                        Paint::Bad
                    };
                    let code = y.exit_code.map_or_else(|| "none".to_string(), |c| c.to_string());
                    w.paint(paint, format_args!("[job {} {}, exit {code}]", y.job_id, y.status.as_str()))?;
                }
                writeln!(w)?;
            }
            ShellOutput::Check(c) => {
                if c.valid {
                    w.paint(Paint::Good, "valid")?;
                    writeln!(w)?;
                } else {
                    let at = match (c.line, c.column) {
                        (Some(l), Some(col)) => format!(" at {l}:{col}"),
                        _ => String::new(),
                    };
                    w.paint(Paint::Bad, "invalid")?;
                    writeln!(w, "{at}: {}", c.error.as_deref().unwrap_or(""))?;
                    if let Some(s) = &c.suggestion {
                        writeln!(w, "suggestion: {s}")?;
                    }
                }
                if c.disagreement {
                    writeln!(w, "note: bash -n disagrees")?;
                }
            }
            ShellOutput::Explain(e) => {
                writeln!(w, "{}", e.explanation)?;
                for s in &e.steps {
                    write!(w, "{}. {} — {} [{}; ", s.step, s.command, s.description, s.will_execute_if)?;
                    w.paint(risk_paint(s.estimated_risk), format_args!("risk {}", s.estimated_risk.as_str()))?;
                    writeln!(w, "]")?;
                    for r in &s.risk_reasons {
                        w.paint(risk_paint(s.estimated_risk), "   !")?;
                        writeln!(w, " {r}")?;
                    }
                }
                for warning in &e.warnings {
                    w.paint(Paint::Warn, "warning")?;
                    writeln!(w, ": {warning}")?;
                }
                match (&e.estimate, &e.no_estimate) {
                    (Some(t), _) => writeln!(
                        w,
                        "estimated time: {} (median of the last {} successful run{}; p90 {}, max {}); last {} at {}",
                        duration(t.median_ms),
                        t.runs,
                        if t.runs == 1 { "" } else { "s" },
                        duration(t.p90_ms),
                        duration(t.max_ms),
                        duration(t.last_ms),
                        t.last_at
                    )?,
                    (None, Some(why)) => writeln!(w, "estimated time: none: {why}")?,
                    (None, None) => {}
                }
                write!(w, "overall risk: ")?;
                w.paint(risk_paint(e.overall_risk), e.overall_risk.as_str())?;
                writeln!(w)?;
            }
            ShellOutput::Perf(p) => {
                let a = &p.aggregate;
                writeln!(
                    w,
                    "{} commands; avg execute {:.0} µs, total {:.0} µs",
                    a.total_commands, a.avg_execute_us, a.avg_total_us
                )?;
                for r in &p.recent {
                    writeln!(w, "{:>10.0} µs  exit {}  {}", r.execute_us, r.exit_code, r.command)?;
                }
                for an in &p.anomalies {
                    writeln!(
                        w,
                        "anomaly ({}): {} took {:.0} µs, {:+.0}% over its median {:.0} µs",
                        an.severity, an.command, an.actual_us, an.deviation_percent, an.baseline_us
                    )?;
                }
            }
            ShellOutput::Compare(c) => {
                writeln!(
                    w,
                    "baseline {}: {:.2} ms ± {:.2}",
                    short(&c.baseline.commit),
                    c.baseline.avg_time_ms,
                    c.baseline.std_dev_ms
                )?;
                writeln!(
                    w,
                    "current  {}: {:.2} ms ± {:.2}",
                    short(&c.current.commit),
                    c.current.avg_time_ms,
                    c.current.std_dev_ms
                )?;
                let verdict = if c.significant { "significant" } else { "not significant" };
                writeln!(
                    w,
                    "improvement {:+.2}% ({verdict}; Welch p={:.4}, Mann–Whitney p={:.4})",
                    c.improvement_percent, c.welch_p_value, c.mann_whitney_p_value
                )?;
            }
        }
        Ok(())
    }

    /// `check` of an invalid command exits 1, so `check && run` works in scripts.
    fn found(&self) -> bool {
        !matches!(self, ShellOutput::Check(c) if !c.valid)
    }

    /// `exec` exits with the command's own status, as `timeout`, `env` and
    /// `ssh` do, so `llm-shell exec -- cargo test && deploy` is safe.
    fn exit_status(&self) -> ExitStatus {
        match self {
            ShellOutput::Exec(e) => exec_exit_status(e),
            ShellOutput::Yielded(y) => yielded_exit_status(y),
            _ => ExitStatus::found(self.found()),
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            ShellOutput::Sessions { .. } => Some(("sessions", "session")),
            _ => None,
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        if let ShellOutput::Sessions { sessions } = self {
            aide_core::tool::keep_range(sessions, range);
        }
    }
}

/// The colour of a risk level in text mode.
/// Milliseconds as a person reads them: `850.0 ms`, `12.35 s`.
fn duration(ms: f64) -> String {
    if ms < 1000.0 { format!("{ms:.1} ms") } else { format!("{:.2} s", ms / 1000.0) }
}

fn risk_paint(risk: explain::Risk) -> Paint {
    match risk {
        explain::Risk::Low => Paint::Good,
        explain::Risk::Medium => Paint::Warn,
        explain::Risk::High | explain::Risk::Critical => Paint::Bad,
    }
}

/// Exit status of `exec`: the command's own (0–255), 124 when it timed out
/// (as `timeout`), 125 when its status could not be read.
pub fn exec_exit_status(e: &exec::ExecOutput) -> ExitStatus {
    match u8::try_from(e.exit_code) {
        _ if e.timed_out => TIMEOUT_EXIT,
        Ok(code) => ExitStatus::Command(code),
        Err(_) => UNREADABLE_EXIT,
    }
}

/// Exit status of `exec --yield-ms`: 0 while the command runs on; once it
/// ended, as `exec`'s (128 + the signal that ended it, as a shell says).
fn yielded_exit_status(y: &crate::handoff::YieldedOutput) -> ExitStatus {
    match (y.exit_code.map(u8::try_from), y.signal) {
        _ if y.running => ExitStatus::Command(0),
        _ if y.timed_out => TIMEOUT_EXIT,
        (Some(Ok(code)), _) => ExitStatus::Command(code),
        (None, Some(sig)) => u8::try_from(128 + sig).map_or(UNREADABLE_EXIT, ExitStatus::Command),
        _ => UNREADABLE_EXIT,
    }
}

/// The exit status of an `exec` whose command timed out (as `timeout`).
pub const TIMEOUT_EXIT: ExitStatus = ExitStatus::Command(124);
/// The exit status of an `exec` whose command's status could not be read.
pub const UNREADABLE_EXIT: ExitStatus = ExitStatus::Command(125);

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// How to follow a command handed to a job: wait for it, read what it
/// printed since, or kill it.
fn still_running(v: Voice, id: i64, stdout_bytes: u64) -> String {
    use crate::error::{JOBS_KILL, JOBS_LOGS, JOBS_WAIT};
    let wait = v.call(JOBS_WAIT, &[Given::positional("ids", json!([id]))]);
    let logs = v.call(
        JOBS_LOGS,
        &[Given::positional("id", id), Given::flag("stream", "stdout"), Given::flag("since_offset", stdout_bytes)],
    );
    let kill = v.call(JOBS_KILL, &[Given::positional("id", id)]);
    format!("{wait} | {logs} | {kill}")
}

/// The most lines that scrolled off a terminal's screen its text shows.
const MAX_SCROLLED_SHOWN: usize = 100;

/// The lines printed since the last read that are no longer on the screen
/// (the text shows the screen, and a reader of the text sees nothing else):
/// how many, and the last of them.
fn write_scrolled_off(w: &mut TextOut<'_>, t: &crate::terminal::TermView) -> io::Result<()> {
    if t.alternate_screen {
        return Ok(());
    }
    let printed: Vec<&str> = t.output.lines().collect();
    let off = printed.len().saturating_sub(usize::from(t.rows));
    if off == 0 {
        return Ok(());
    }
    let shown = off.min(MAX_SCROLLED_SHOWN);
    let note = match off - shown {
        0 => format!("[{off} lines scrolled off the screen since the last read:]"),
        _ => format!("[{off} lines scrolled off the screen since the last read; the last {shown} of them:]"),
    };
    w.paint(Paint::Dim, note)?;
    writeln!(w)?;
    for line in &printed[off - shown..off] {
        writeln!(w, "{line}")?;
    }
    w.paint(Paint::Dim, "[the screen:]")?;
    writeln!(w)
}
