//! # llm-shell: persistent shell sessions for agents
//!
//! State carries forward across separate invocations without a daemon:
//! each `exec` runs bash afresh, restores the session's saved state, runs the
//! command in the shell itself and saves the state again (see [`exec`]).
//!
//! * `session new|list|show|rm`, `env --session ID --set K=V --unset K`
//! * `exec [--session ID] [--timeout S] [--max-output BYTES] [--max-risk L]
//!   [--no-redact] [--background] -- COMMAND`
//! * `check -- COMMAND` (parse only: brush-parser, with `bash -n` as a second opinion)
//! * `explain -- COMMAND` (steps, when each runs, risk and its reasons, ShellCheck)
//! * `perf [--session ID] [--last N]` (aggregate, recent, anomalies)
//! * `compare --baseline REV [--command CMD] [--iterations N] [--warmup N]`
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `exec`: `{ "exit_code", "stdout", "stderr", "stdout_bytes", "stdout_truncated", …,
//!   "execution_time_ms", "timed_out", "working_dir", "redactions",
//!   "performance": { "parse_us", "restore_us", "execute_us", "capture_us", "total_us" } }`
//! * `session show`: `{ "session_id", "working_dir", "environment", "active_jobs",
//!   "last_exit_code", "uptime_seconds" }`
//! * `env`: `{ "updated": [...], "session_id" }`
//! * `check`: `{ "valid", "ast" | "error", "line", "column", "suggestion", "bash_n", "disagreement" }`
//! * `explain`: `{ "steps": [ { "step", "command", "description", "will_execute_if",
//!   "estimated_risk", "risk_reasons" } ], "overall_risk", "warnings", "shellcheck" }`
//!
//! Exit status: `exec` exits with the command's own status (0–255), 124 when
//! it timed out (as `timeout`); every other subcommand exits 0, or 1 when
//! `check` finds the command invalid. The tool's own failures keep the
//! contract's codes — 2 invalid input, 3 `risk_denied` (nothing was run), 4
//! runtime failure — and since a command may exit 2, 3 or 4 too, the JSON
//! tells them apart: `"ok": true` with the command's `exit_code`, or
//! `"ok": false` with the tool's `error`.

pub mod compare;
pub mod error;
pub mod exec;
pub mod explain;
pub mod perf;
pub mod session;
pub mod state;
pub mod syntax;

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use aide_core::color::{Paint, TextOut};
use aide_core::command::CommandArgs;
use aide_core::operation::{ADDS, Effects, Group, Operation, READS, REMOVES, RUNS_COMMANDS};
use aide_core::tool::{Context, Outcome, Render, Tool};
use aide_core::{AideError, ExitStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use explain::Risk;

use crate::error::ShellError;

/// Output kept per stream by default; the head and tail of anything longer.
pub const DEFAULT_MAX_OUTPUT: usize = 256 * 1024;

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionAction {
    /// Start a session.
    New {
        /// Working directory (default: the current one).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Variables to export, NAME=value. Repeatable.
        #[arg(long = "env", value_name = "K=V")]
        #[serde(default)]
        env: Vec<String>,
        /// Also list the session's environment (`session show` always does).
        #[arg(long)]
        #[serde(default)]
        verbose: bool,
    },
    /// The sessions.
    List,
    /// A session's state: directory, environment, jobs, last exit code.
    Show {
        /// The session's id, as `session new` and `session list` print it.
        id: String,
        /// Show the values of secret-named variables instead of [REDACTED].
        #[arg(long)]
        #[serde(default)]
        no_redact: bool,
    },
    /// Delete a session.
    Rm {
        /// The session's id, as `session new` and `session list` print it.
        id: String,
    },
}

/// `llm-shell exec` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ExecArgs {
    /// The session to run in; without it the command runs in a fresh, throwaway one.
    #[arg(long)]
    pub session: Option<String>,
    /// Kill the command after this many seconds (TERM to its process group, KILL 2 s later).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Bytes kept per stream; longer output keeps its head and tail.
    #[arg(long, value_name = "BYTES")]
    pub max_output: Option<usize>,
    /// Refuse the command (risk_denied, nothing run) above this risk; `low` runs only read-only commands.
    #[arg(long, value_enum)]
    pub max_risk: Option<Risk>,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
    /// Hand the command to llm-jobs and return the job.
    #[arg(long)]
    pub background: bool,
    /// What to run, after `--`: one word is a shell command line; several
    /// words are a program and its arguments, each passed literally.
    #[command(flatten)]
    #[serde(flatten)]
    pub command: CommandArgs,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShellCommand {
    /// Sessions: new, list, show, rm.
    Session {
        #[command(subcommand)]
        action: SessionAction,
    },
    /// Set or unset a session's environment variables.
    Env {
        #[arg(long)]
        session: String,
        /// NAME=value to export. Repeatable.
        #[arg(long, value_name = "K=V")]
        #[serde(default)]
        set: Vec<String>,
        /// NAME to remove. Repeatable.
        #[arg(long, value_name = "K")]
        #[serde(default)]
        unset: Vec<String>,
    },
    /// Run a command in a session; exits with the command's own status.
    ///
    /// After `--`, one word is a shell command line (`-- 'cd src && make'`);
    /// several words are a program and its arguments, each passed literally
    /// (`-- printf '%s\n' 'a b'`). The exit status is the command's (0–255),
    /// or 124 when it timed out. The tool's own failures exit 2 (invalid
    /// input), 3 (risk_denied: nothing was run) or 4 (runtime); a command can
    /// exit with those numbers too, so tell them apart by the JSON: `"ok":
    /// true` and `exit_code` for the command, `"ok": false` and `error` for
    /// the tool.
    Exec(ExecArgs),
    /// Parse a command without running it.
    Check {
        #[command(flatten)]
        #[serde(flatten)]
        command: CommandArgs,
    },
    /// Explain a command step by step, with its risk.
    Explain {
        #[command(flatten)]
        #[serde(flatten)]
        command: CommandArgs,
    },
    /// Timing history and anomalies.
    Perf {
        /// One session (default: all).
        #[arg(long)]
        session: Option<String>,
        /// How many recent commands to show and check for anomalies.
        #[arg(long, default_value_t = 10)]
        #[serde(default = "ten")]
        last: usize,
    },
    /// Time a command on a baseline revision against the current tree.
    Compare {
        /// The baseline git revision.
        #[arg(long)]
        baseline: String,
        #[arg(long, default_value = "cargo test")]
        #[serde(default = "cargo_test")]
        command: String,
        #[arg(long, default_value_t = 5)]
        #[serde(default = "five")]
        iterations: usize,
        #[arg(long, default_value_t = 1)]
        #[serde(default = "one")]
        warmup: usize,
    },
}

fn ten() -> usize {
    10
}
fn five() -> usize {
    5
}
fn one() -> usize {
    1
}
fn cargo_test() -> String {
    "cargo test".into()
}

/// The request: one subcommand.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct ShellRequest {
    #[command(subcommand)]
    pub command: ShellCommand,
}

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
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ShellOutput {
    Session(Box<SessionState>),
    Sessions { sessions: Vec<session::Meta> },
    Removed { removed: String },
    Env { updated: Vec<String>, session_id: String },
    Exec(Box<exec::ExecOutput>),
    Background { session_id: Option<String>, job: llm_jobs::SpawnOutput },
    Check(Box<syntax::CheckOutput>),
    Explain(Box<explain::ExplainOutput>),
    Perf(perf::PerfOutput),
    Compare(Box<compare::CompareOutput>),
}

impl Render for ShellOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            ShellOutput::Session(s) => {
                writeln!(w, "session {} in {}", s.session_id, s.working_dir)?;
                let code = s.last_exit_code.map_or("none".to_string(), |c| c.to_string());
                writeln!(w, "last exit code {code}, {} commands, up {:.0}s", s.exec_count, s.uptime_seconds)?;
                writeln!(w, "{} exported variables, {} active jobs", s.environment_count, s.active_jobs.len())?;
            }
            ShellOutput::Sessions { sessions } => {
                for s in sessions {
                    writeln!(w, "{} {} ({} commands)", s.session_id, s.working_dir, s.exec_count)?;
                }
            }
            ShellOutput::Removed { removed } => writeln!(w, "removed session {removed}")?,
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
                    (true, _) => " (timed out)",
                    (false, true) => {
                        " (a background process still holds the output open; shown: what came until the command returned)"
                    }
                    _ => "",
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

/// The exit status of an `exec` whose command timed out (as `timeout`).
pub const TIMEOUT_EXIT: ExitStatus = ExitStatus::Command(124);
/// The exit status of an `exec` whose command's status could not be read.
pub const UNREADABLE_EXIT: ExitStatus = ExitStatus::Command(125);

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// Replaces the values of secret-named variables (`DB_PASSWORD`, `API_TOKEN`):
/// a session's state is where they would be echoed back whole.
fn mask_secret_variables(state: &mut SessionState) {
    for (name, value) in state.environment.iter_mut().flatten() {
        if aide_core::redact::is_secret_name(name) && !value.is_empty() {
            *value = aide_core::redact::MARK.to_string();
        }
    }
}

/// The session `id`, if this run may reach it: a run confined to roots
/// (`aide mcp`) sees only sessions whose directory lies under them; any
/// other is, to it, no session.
fn open_session(id: &str, ctx: &Context) -> Result<session::Session, AideError> {
    let s = session::open(id)?;
    if ctx.confined(std::path::Path::new(&s.meta.working_dir)) {
        Ok(s)
    } else {
        Err(ShellError::NoSession { id: id.to_string() }.into())
    }
}

fn session_state(s: &session::Session, ctx: &Context) -> Result<SessionState, AideError> {
    let environment = s.environment();
    Ok(SessionState {
        session_id: s.meta.session_id.clone(),
        working_dir: s.meta.working_dir.clone(),
        environment_count: environment.len(),
        environment: Some(environment),
        active_jobs: llm_jobs::session_jobs(&s.meta.session_id, ctx)?,
        last_exit_code: s.meta.last_exit_code,
        uptime_seconds: ((aide_core::time::now_ms() - s.meta.created_ms).max(0) as f64 / 1000.0).round(),
        exec_count: s.meta.exec_count,
    })
}

fn env_update(id: &str, set: &[String], unset: &[String], ctx: &Context) -> Result<ShellOutput, AideError> {
    let pairs = aide_core::request::parse_env_pairs(set)?;
    if let Some(bad) = unset.iter().find(|n| !aide_core::request::is_identifier(n)) {
        return Err(ShellError::NotAVariableName { name: bad.clone() }.into());
    }
    if pairs.is_empty() && unset.is_empty() {
        return Err(ShellError::NothingToChange.into());
    }
    let mut script = String::new();
    for (k, v) in &pairs {
        script.push_str(&format!("export {k}={}\n", session::shell_quote(v)));
    }
    for k in unset {
        script.push_str(&format!("unset {k}\n"));
    }
    let mut s = open_session(id, ctx)?;
    let _lock = s.lock()?;
    let out = exec::run(&mut s, &script, Some(Duration::from_secs(30)), 4096, None, &ctx.cancel)?;
    if out.exit_code != 0 {
        return Err(ShellError::EnvUpdateFailed { stderr: out.stderr.trim().to_string() }.into());
    }
    s.save_meta()?;
    let mut updated: Vec<String> = pairs.into_iter().map(|(k, _)| k).collect();
    updated.extend(unset.iter().cloned());
    Ok(ShellOutput::Env { updated, session_id: s.meta.session_id })
}

fn run_exec(args: &ExecArgs, ctx: &Context) -> Result<ShellOutput, AideError> {
    let mut what = args.command.clone();
    what.normalize()?;
    // The session's bash evals this line: an argv is quoted word by word.
    let command = what.shell_line();
    aide_core::request::check_timeout("--timeout", args.timeout)?;
    // A session, or a throwaway one in a temporary folder.
    let temp;
    let mut session = match &args.session {
        Some(id) => open_session(id, ctx)?,
        None => {
            temp = std::env::temp_dir().join(format!("aide-shell-{}", aide_core::ids::new_execution_id()));
            session::create_in(&temp, "once", &ctx.base_dir()?, &session::starting_env(&[]))?
        }
    };
    let cleanup = TempDir(args.session.is_none().then(|| session.dir.parent().map(PathBuf::from)).flatten());
    let _lock = session.lock()?;

    let declared = session.declared();
    if let Some(max) = args.max_risk {
        // Judged among the session's own PATH, functions and aliases.
        let mut env = explain::Surroundings::of_this_process(std::path::Path::new(&session.meta.working_dir));
        if let Some(path) = declared.variables.get("PATH") {
            env.path = Some(path.clone());
        }
        if let Some(home) = declared.variables.get("HOME") {
            env.home = Some(home.clone());
        }
        env.defined = declared.defined_names();
        let e = explain::explain_in(&command, &env)?;
        if e.overall_risk > max {
            return Err(ShellError::RiskDenied { risk: e.overall_risk, max, reasons: e.risk_reasons }.into());
        }
    }

    if args.background {
        let job_command = format!(
            "source {} >/dev/null 2>&1\n{command}",
            session::shell_quote(&session.state_path().display().to_string())
        );
        // Through llm-jobs' own entry point, as any caller of it would.
        let mut request = llm_jobs::JobsRequest {
            command: llm_jobs::JobsCommand::Spawn(llm_jobs::SpawnArgs {
                session: args.session.clone(),
                cwd: Some(PathBuf::from(&session.meta.working_dir)),
                timeout: args.timeout,
                // The job's redactor knows the session's secret values (they are exported by
                // the state the command sources anyway).
                env: declared.secret_variables().map(|(k, v)| format!("{k}={v}")).collect(),
                command: CommandArgs::line(job_command),
                ..llm_jobs::SpawnArgs::default()
            }),
        };
        llm_jobs::LlmJobs::prepare(&mut request)?;
        let job = match llm_jobs::LlmJobs::run(request, &ctx.nested())?.output {
            llm_jobs::JobsOutput::Spawned(job) => job,
            other => return Err(AideError::internal(format!("llm-jobs spawn answered {other:?}"))),
        };
        drop(cleanup);
        return Ok(ShellOutput::Background { session_id: args.session.clone(), job });
    }

    let timeout = args.timeout.map(Duration::from_secs_f64);
    let mut out = exec::run(
        &mut session,
        &command,
        timeout,
        args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
        // The session's own secret values, besides every shape the rules know.
        (!args.no_redact).then(|| aide_core::redact::Redactor::with_values(declared.secret_values())),
        &ctx.cancel,
    )?;
    if args.session.is_some() {
        session.save_meta()?;
        out.session_id = Some(session.meta.session_id.clone());
        let p = &out.performance;
        perf::append(
            &session,
            &perf::PerfRecord {
                session_id: session.meta.session_id.clone(),
                // The history keeps the command redacted (`export TOKEN=…`).
                command: aide_core::redact::redact(&command).0,
                at: aide_core::time::rfc3339(std::time::SystemTime::now()),
                exit_code: out.exit_code,
                timed_out: out.timed_out,
                parse_us: p.parse_us,
                restore_us: p.restore_us,
                execute_us: p.execute_us,
                capture_us: p.capture_us,
                total_us: p.total_us,
            },
        )?;
    }
    drop(cleanup);
    Ok(ShellOutput::Exec(Box::new(out)))
}

/// Removes a throwaway session's folder when dropped.
struct TempDir(Option<PathBuf>);

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(d) = &self.0 {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

fn run_perf(session: Option<&str>, last: usize, ctx: &Context) -> Result<ShellOutput, AideError> {
    let mut records = Vec::new();
    match session {
        Some(id) => records = perf::load(&open_session(id, ctx)?),
        None => {
            for meta in visible_sessions(ctx)? {
                records.extend(perf::load(&session::open(&meta.session_id)?));
            }
            records.sort_by(|a, b| a.at.cmp(&b.at));
        }
    }
    Ok(ShellOutput::Perf(perf::analyse(&records, last)))
}

/// The sessions this run may reach (see [`open_session`]).
fn visible_sessions(ctx: &Context) -> Result<Vec<session::Meta>, AideError> {
    Ok(session::list()?.into_iter().filter(|m| ctx.confined(std::path::Path::new(&m.working_dir))).collect())
}

/// Runs one subcommand.
pub fn execute(command: &ShellCommand, ctx: &Context) -> Result<ShellOutput, AideError> {
    match command {
        ShellCommand::Session { action } => match action {
            SessionAction::New { cwd, env, verbose } => {
                let cwd = match cwd {
                    Some(dir) => ctx.resolve(dir),
                    None => ctx.base_dir()?,
                };
                ctx.check_confined("the session's directory", &cwd)?;
                let s = session::create(&cwd, &aide_core::request::parse_env_pairs(env)?)?;
                let mut state = session_state(&s, ctx)?;
                mask_secret_variables(&mut state);
                if !verbose {
                    state.environment = None;
                }
                Ok(ShellOutput::Session(Box::new(state)))
            }
            SessionAction::List => Ok(ShellOutput::Sessions { sessions: visible_sessions(ctx)? }),
            SessionAction::Show { id, no_redact } => {
                let mut state = session_state(&open_session(id, ctx)?, ctx)?;
                if !no_redact {
                    mask_secret_variables(&mut state);
                }
                Ok(ShellOutput::Session(Box::new(state)))
            }
            SessionAction::Rm { id } => {
                if let Ok(s) = session::open(id)
                    && !ctx.confined(std::path::Path::new(&s.meta.working_dir))
                {
                    return Err(ShellError::NoSession { id: id.clone() }.into());
                }
                session::remove(id)?;
                Ok(ShellOutput::Removed { removed: id.clone() })
            }
        },
        ShellCommand::Env { session, set, unset } => env_update(session, set, unset, ctx),
        ShellCommand::Exec(args) => run_exec(args, ctx),
        ShellCommand::Check { command } => {
            let text = command.shell_line();
            aide_core::text::check_depth("the command", syntax::nesting_depth(&text))?;
            Ok(ShellOutput::Check(Box::new(syntax::check(&text))))
        }
        ShellCommand::Explain { command } => {
            let cwd = ctx.base_dir().unwrap_or_else(|_| PathBuf::from("."));
            let text = command.shell_line();
            explain::explain(&text, &cwd).map(|e| ShellOutput::Explain(Box::new(e)))
        }
        ShellCommand::Perf { session, last } => run_perf(session.as_deref(), *last, ctx),
        ShellCommand::Compare { baseline, command, iterations, warmup } => {
            let cwd = std::env::current_dir().map_err(|e| AideError::io(".", &e))?;
            Ok(ShellOutput::Compare(Box::new(compare::compare(&cwd, baseline, command, *iterations, *warmup, ctx)?)))
        }
    }
}

/// The `llm-shell` tool.
#[derive(Debug)]
pub struct LlmShell;

impl Tool for LlmShell {
    const NAME: &'static str = "llm-shell";
    const SUMMARY: &'static str = "Persistent shell sessions, syntax check, explain and risk, performance history.";
    const OPERATIONS: &'static [Operation] = &[
        Operation {
            name: "shell_exec",
            tool: Self::NAME,
            command: &["exec"],
            group: Group::Shell,
            description: "Runs a bash command in a persistent session (working directory and environment survive between calls) or in a throwaway one, with a timeout; returns stdout, stderr and the exit code separately, each cut to a head and tail when long. background hands the command to jobs and returns at once. The command can do anything: check unfamiliar ones with shell_explain first.",
            effects: RUNS_COMMANDS,
            output: &["stdout", "job"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_session_new",
            tool: Self::NAME,
            command: &["session", "new"],
            group: Group::Shell,
            description: "Starts a persistent shell session in a directory and returns its id for shell_exec. Sessions survive restarts until closed.",
            effects: ADDS,
            output: &["uptime_seconds"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_session_list",
            tool: Self::NAME,
            command: &["session", "list"],
            group: Group::Shell,
            description: "Lists the shell sessions with their working directories, command counts and last exit codes.",
            effects: READS,
            output: &["sessions"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_session_show",
            tool: Self::NAME,
            command: &["session", "show"],
            group: Group::Shell,
            description: "Shows one session's state: working directory, environment variables set in it, its background jobs and the last exit code.",
            effects: READS,
            output: &["uptime_seconds"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_session_close",
            tool: Self::NAME,
            command: &["session", "rm"],
            group: Group::Shell,
            description: "Closes a shell session and deletes its saved state.",
            effects: REMOVES,
            output: &["removed"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_env",
            tool: Self::NAME,
            command: &["env"],
            group: Group::Shell,
            description: "Sets or unsets environment variables of a session for its later commands.",
            effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
            output: &["updated"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_check",
            tool: Self::NAME,
            command: &["check"],
            group: Group::Shell,
            description: "Parses a bash command without running it and reports syntax errors with positions. Use it to validate a command you wrote before shell_exec.",
            effects: READS,
            output: &["bash_n"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_explain",
            tool: Self::NAME,
            command: &["explain"],
            group: Group::Shell,
            description: "Explains a bash command step by step without running it: each command, what it reads and writes, and a risk level (low to critical) with reasons (deletes files, pipes the network into a shell, …). Use it before running anything unfamiliar or destructive.",
            effects: READS,
            output: &["overall_risk"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_perf",
            tool: Self::NAME,
            command: &["perf"],
            group: Group::Shell,
            description: "The timing history of commands run in a session through shell_exec, with anomalies (a command much slower than its usual).",
            effects: READS,
            output: &["anomalies"],
            mcp_defaults: &[],
        },
        Operation {
            name: "shell_compare",
            tool: Self::NAME,
            command: &["compare"],
            group: Group::Shell,
            description: "Times a command on a baseline git revision (checked out in a temporary worktree) against the current tree, several runs a side, and says whether the difference is significant. Runs the command many times: slow, and it can do anything the command does.",
            effects: RUNS_COMMANDS,
            output: &["significant"],
            mcp_defaults: &[],
        },
    ];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Persistent shell sessions for agents: exec, check, explain, perf, compare.";
    const REDACT_LOGGED_RESULT: bool = true;
    type Request = ShellRequest;
    type Output = ShellOutput;

    fn run(request: ShellRequest, ctx: &Context) -> Result<Outcome<ShellOutput>, AideError> {
        execute(&request.command, ctx).map(Outcome::new)
    }

    fn prepare(request: &mut ShellRequest) -> Result<(), AideError> {
        match &mut request.command {
            ShellCommand::Exec(args) => args.command.normalize(),
            ShellCommand::Check { command } | ShellCommand::Explain { command } => command.normalize(),
            _ => Ok(()),
        }
    }

    /// A comparison only times commands in a throwaway worktree: Ctrl-C
    /// ends it with `cancelled` and the worktree removed. `exec` takes its
    /// command's process group down itself.
    fn cancel_on_interrupt(request: &ShellRequest) -> bool {
        matches!(request.command, ShellCommand::Compare { .. })
    }
}
