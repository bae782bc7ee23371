//! # llm-jobs: background jobs that outlive the caller
//!
//! `spawn` returns at once; a detached supervisor per job (see [`supervisor`])
//! runs the command and records how it ended, so nothing is lost when the
//! caller exits and no daemon needs minding. `list`, `status`, `wait`, `logs`,
//! `kill`, `rm`, `prune` and `group` read and steer the job table under
//! `$AIDE_HOME/jobs/`.
//!
//! Statuses: `Queued`, `Running`, `Done` (exit 0), `Failed` (non-zero exit, or
//! a failed dependency with `reason`), `Killed` (with `signal`), `TimedOut`,
//! `Lost` (the supervisor vanished without recording an end). Liveness is
//! judged by pid plus process start time. Timestamps are UTC RFC 3339.
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `spawn`: `{ "job_id": 3, "pid": 54321, "command": "cargo test", "status": "Running", "started_at": "…", … }`
//! * `list`: `{ "jobs": [ { "id", "pid", "command", "name", "status", "exit_code", "started_at", "finished_at",
//!   "duration_seconds", … } ], "active_count": 1, "total_count": 3 }`
//! * `wait`: `{ "jobs": [ { "job_id", "status", "exit_code", "duration_seconds", "stdout", "stderr", … } ],
//!   "timed_out": false }` — `stdout`/`stderr` are tails.
//! * `logs`: `{ "job_id", "stream", "content", "start_offset", "next_offset", … }`
//!
//! Exit status: 0; for `wait`, 1 when a waited job did not end `Done` or the
//! wait timed out; 2 invalid input (unknown job: `not_found`); 3 `conflict`
//! (removing a running job); 4 runtime failure.

mod process;
mod store;
pub mod supervisor;

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aide_core::cli::{Render, RunContext, Tool};
use aide_core::{AideError, code};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use store::{JobRow, JobStore};

/// A job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
pub enum Status {
    Queued,
    Running,
    Done,
    Failed,
    Killed,
    TimedOut,
    Lost,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "Queued",
            Status::Running => "Running",
            Status::Done => "Done",
            Status::Failed => "Failed",
            Status::Killed => "Killed",
            Status::TimedOut => "TimedOut",
            Status::Lost => "Lost",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        [Status::Queued, Status::Running, Status::Done, Status::Failed, Status::Killed, Status::TimedOut, Status::Lost]
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s))
    }

    pub fn is_active(self) -> bool {
        matches!(self, Status::Queued | Status::Running)
    }
}

/// Output kept per stream by default (64 MiB); more is counted, not kept.
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;

/// `llm-jobs spawn` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SpawnArgs {
    /// A human-readable name.
    #[arg(long)]
    pub name: Option<String>,
    /// The llm-shell session this job belongs to (for filtering).
    #[arg(long)]
    pub session: Option<String>,
    /// Working directory (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Environment variables for the job, K=V. Repeatable.
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// Kill the job's process group after this many seconds (TERM, then KILL 5 s later).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Start only after these jobs end Done; if one ends otherwise, this job fails. Repeatable.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub after: Vec<i64>,
    /// The group whose parallel limit applies (see `llm-jobs group set`).
    #[arg(long, value_name = "NAME", default_value = "default")]
    #[serde(default = "default_group")]
    pub group: String,
    /// Bytes of output kept per stream; the rest is counted as dropped.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_OUTPUT)]
    #[serde(default = "default_max_output")]
    pub max_output: u64,
    /// What to run, after `--`: one word is a shell command line (run with
    /// bash -c); several words are a program and its arguments, each passed
    /// literally.
    #[command(flatten)]
    #[serde(flatten)]
    pub command: aide_core::command::CommandArgs,
}

fn default_group() -> String {
    "default".into()
}

fn default_max_output() -> u64 {
    DEFAULT_MAX_OUTPUT
}

/// `llm-jobs list` filters.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ListArgs {
    #[arg(long, value_enum)]
    pub status: Option<Status>,
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub session: Option<String>,
    #[arg(long)]
    pub group: Option<String>,
}

/// `llm-jobs wait` options.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WaitArgs {
    /// The jobs to wait for (none: every job that is queued or running now).
    #[arg(value_name = "ID")]
    pub ids: Vec<i64>,
    /// Return when every job has ended (the default).
    #[arg(long, conflicts_with = "any")]
    pub all: bool,
    /// Return when any one job has ended.
    #[arg(long)]
    pub any: bool,
    /// Give up after this many seconds, leaving the jobs running.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub timeout: f64,
    /// Lines of stdout and stderr to include from the end.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub tail: usize,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
}

impl Default for WaitArgs {
    fn default() -> Self {
        WaitArgs { ids: Vec::new(), all: false, any: false, timeout: 300.0, tail: 50, no_redact: false }
    }
}

/// Which output of a job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    Stdout,
    Stderr,
    /// Both, merged in order of arrival.
    #[default]
    Both,
}

/// `llm-jobs logs` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LogsArgs {
    pub id: i64,
    #[arg(long, value_enum, default_value_t = Stream::Both)]
    pub stream: Stream,
    /// Only the last N lines.
    #[arg(long, value_name = "N")]
    pub tail: Option<usize>,
    /// Only what comes after this byte offset (a previous `next_offset`).
    #[arg(long, value_name = "BYTES")]
    pub since_offset: Option<u64>,
    /// Keep reading until the job ends (in text mode, printing as output arrives).
    #[arg(long)]
    pub follow: bool,
    /// With --follow, stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
}

/// `llm-jobs kill` options.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KillArgs {
    pub id: i64,
    /// The signal (TERM, INT, KILL, HUP, … or a number).
    #[arg(long, default_value = "TERM")]
    pub signal: String,
    /// Seconds to wait after the signal before KILL.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub grace: f64,
}

impl Default for KillArgs {
    fn default() -> Self {
        KillArgs { id: 0, signal: "TERM".into(), grace: 5.0 }
    }
}

/// `llm-jobs prune` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PruneArgs {
    /// Remove finished jobs (the default, and the only jobs prune removes).
    #[arg(long)]
    pub finished: bool,
    /// Only jobs that finished longer ago than this (e.g. 1h, 7d).
    #[arg(long, value_name = "DURATION")]
    pub older_than: Option<String>,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GroupAction {
    /// Set a group's parallel limit.
    Set {
        name: String,
        #[arg(long)]
        parallel: u32,
    },
    /// The groups with their limits and counts.
    List,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobsCommand {
    /// Start a command in the background and return at once. After `--`, one
    /// word is a shell command line; several words are an argv, each word
    /// passed literally.
    Spawn(SpawnArgs),
    /// The jobs, oldest first.
    List(ListArgs),
    /// One job.
    Status { id: i64 },
    /// Wait for jobs to end; exits 1 if one did not end Done.
    Wait(WaitArgs),
    /// A job's output.
    Logs(LogsArgs),
    /// Signal a job's whole process group (TERM, then KILL after --grace).
    Kill(KillArgs),
    /// Remove a finished job and its output.
    Rm {
        id: i64,
        /// Kill it first if it is still active.
        #[arg(long)]
        force: bool,
    },
    /// Remove finished jobs.
    Prune(PruneArgs),
    /// Groups and their parallel limits.
    Group {
        #[command(subcommand)]
        action: GroupAction,
    },
}

/// The request: one subcommand.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct JobsRequest {
    #[command(subcommand)]
    pub command: JobsCommand,
}

/// A job as `list` and `status` show it: flat fields.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JobView {
    pub id: i64,
    /// The command's pid, which leads its process group.
    pub pid: Option<u32>,
    /// The pid of the job's supervisor.
    pub supervisor_pid: Option<u32>,
    pub command: String,
    pub name: Option<String>,
    pub status: Status,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Why a job failed, was lost, or is still queued.
    pub reason: Option<String>,
    pub group: String,
    pub session: Option<String>,
    pub after: Vec<i64>,
    pub cwd: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub duration_seconds: Option<f64>,
    pub stdout_bytes: i64,
    pub stderr_bytes: i64,
    /// Output over the cap, counted but not kept.
    pub dropped_bytes: i64,
    /// For a Lost job: whether processes of its command's group still run
    /// (`llm-jobs kill` stops them); null for other jobs.
    pub processes_alive: Option<bool>,
}

fn time(ms: i64) -> String {
    aide_core::log::rfc3339_ms(ms)
}

impl From<&JobRow> for JobView {
    fn from(j: &JobRow) -> Self {
        let end = j.finished_ms.unwrap_or_else(aide_core::log::now_ms);
        JobView {
            id: j.id,
            pid: j.pid,
            supervisor_pid: j.supervisor_pid,
            command: j.command.clone(),
            name: j.name.clone(),
            status: j.status,
            exit_code: j.exit_code,
            signal: j.signal,
            reason: j.reason.clone(),
            group: j.group.clone(),
            session: j.session.clone(),
            after: j.after.clone(),
            cwd: j.cwd.clone(),
            created_at: time(j.created_ms),
            started_at: j.started_ms.map(time),
            finished_at: j.finished_ms.map(time),
            duration_seconds: j.started_ms.map(|s| ((end - s).max(0) as f64 / 1000.0 * 1000.0).round() / 1000.0),
            stdout_bytes: j.stdout_bytes,
            stderr_bytes: j.stderr_bytes,
            dropped_bytes: j.dropped_bytes,
            processes_alive: (j.status == Status::Lost).then(|| lost_processes_alive(j)),
        }
    }
}

/// Whether a Lost job's command group still has processes of its own.
fn lost_processes_alive(j: &JobRow) -> bool {
    matches!((j.pid, j.pid_start), (Some(pid), Some(start)) if process::job_group_alive(pid, start))
}

/// What `spawn` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpawnOutput {
    pub job_id: i64,
    pub pid: Option<u32>,
    pub command: String,
    pub status: Status,
    pub started_at: Option<String>,
    pub name: Option<String>,
    pub group: String,
    pub reason: Option<String>,
}

/// One job as `wait` reports it (the seed's `wait_for_job`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WaitedJob {
    pub job_id: i64,
    pub status: Status,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub reason: Option<String>,
    pub duration_seconds: Option<f64>,
    /// The last lines of stdout.
    pub stdout: String,
    /// The last lines of stderr.
    pub stderr: String,
    /// Secrets replaced by [REDACTED] in stdout and stderr.
    pub redactions: usize,
}

/// A piece of a job's output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LogsOutput {
    pub job_id: i64,
    pub stream: Stream,
    pub content: String,
    /// Byte offset of `content` in the stream's file.
    pub start_offset: u64,
    /// Pass as --since-offset to read only what comes next.
    pub next_offset: u64,
    /// Some bytes were not valid UTF-8 and are shown lossily.
    pub lossy: bool,
    /// Secrets replaced by [REDACTED] in `content` (offsets stay those of
    /// the stored output).
    pub redactions: usize,
    pub status: Status,
    /// With --follow in text mode, the content was printed as it arrived.
    #[serde(skip)]
    pub streamed: bool,
}

/// A group and its load.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GroupView {
    pub name: String,
    pub parallel: Option<i64>,
    pub running: usize,
    pub queued: usize,
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum JobsOutput {
    Spawned(SpawnOutput),
    Jobs {
        jobs: Vec<JobView>,
        active_count: usize,
        total_count: usize,
    },
    Job {
        job: JobView,
    },
    Waited {
        jobs: Vec<WaitedJob>,
        timed_out: bool,
    },
    Logs(LogsOutput),
    Killed {
        job_id: i64,
        status: Status,
        signal: Option<i32>,
        already_finished: bool,
        /// A Lost job whose processes still ran: they were signalled (after
        /// checking by start time that the group is still the job's).
        #[serde(default)]
        lost_processes_signalled: bool,
    },
    Removed {
        removed: Vec<i64>,
    },
    Groups {
        groups: Vec<GroupView>,
    },
}

impl Render for JobsOutput {
    fn render_text(&self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            JobsOutput::Spawned(s) => {
                let pid = s.pid.map(|p| format!(" pid {p}")).unwrap_or_default();
                let why = s.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
                writeln!(w, "job {} {}{pid}{why}: {}", s.job_id, s.status.as_str(), s.command)?;
            }
            JobsOutput::Jobs { jobs, active_count, total_count } => {
                for j in jobs {
                    write_job_line(w, j)?;
                }
                writeln!(w, "{active_count} active, {total_count} in all")?;
            }
            JobsOutput::Job { job } => {
                write_job_line(w, job)?;
                if let Some(r) = &job.reason {
                    writeln!(w, "  reason: {r}")?;
                }
            }
            JobsOutput::Waited { jobs, timed_out } => {
                for j in jobs {
                    let code = j.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
                    let sig = j.signal.map(|s| format!(" signal {s}")).unwrap_or_default();
                    writeln!(w, "job {} {}{code}{sig}", j.job_id, j.status.as_str())?;
                    for (label, text) in [("stdout", &j.stdout), ("stderr", &j.stderr)] {
                        if !text.is_empty() {
                            writeln!(w, "--- {label} (tail) ---")?;
                            w.write_all(text.as_bytes())?;
                            if !text.ends_with('\n') {
                                writeln!(w)?;
                            }
                        }
                    }
                }
                if *timed_out {
                    writeln!(w, "[wait timed out; the jobs keep running]")?;
                }
            }
            JobsOutput::Logs(l) => {
                if !l.streamed {
                    w.write_all(l.content.as_bytes())?;
                }
            }
            JobsOutput::Killed { job_id, status, already_finished, lost_processes_signalled, .. } => {
                let note = match (already_finished, lost_processes_signalled) {
                    (_, true) => " (its supervisor was gone; its processes were stopped)",
                    (true, false) => " (it had already ended)",
                    _ => "",
                };
                writeln!(w, "job {job_id} {}{note}", status.as_str())?;
            }
            JobsOutput::Removed { removed } => {
                let ids: Vec<String> = removed.iter().map(i64::to_string).collect();
                writeln!(w, "removed {} job(s): {}", removed.len(), ids.join(" "))?;
            }
            JobsOutput::Groups { groups } => {
                for g in groups {
                    let limit = g.parallel.map_or("unlimited".to_string(), |p| p.to_string());
                    writeln!(w, "{} parallel={limit} running={} queued={}", g.name, g.running, g.queued)?;
                }
            }
        }
        Ok(())
    }

    fn found(&self) -> bool {
        match self {
            JobsOutput::Waited { jobs, timed_out } => !timed_out && jobs.iter().all(|j| j.status == Status::Done),
            _ => true,
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            JobsOutput::Jobs { .. } | JobsOutput::Waited { .. } => Some(("jobs", "job")),
            JobsOutput::Groups { .. } => Some(("groups", "group")),
            _ => None,
        }
    }
}

fn write_job_line(w: &mut dyn Write, j: &JobView) -> io::Result<()> {
    let code = j.exit_code.map(|c| format!(" exit={c}")).unwrap_or_default();
    let dur = j.duration_seconds.map(|d| format!(" {d:.1}s")).unwrap_or_default();
    let name = j.name.as_deref().map(|n| format!(" [{n}]")).unwrap_or_default();
    writeln!(w, "{:>4} {:<8}{code}{dur}{name} {}", j.id, j.status.as_str(), j.command)
}

/// Re-reads an active job's liveness: a job whose supervisor is gone
/// without recording an end becomes Lost.
pub fn refresh(store: &JobStore, job: JobRow) -> Result<JobRow, AideError> {
    if !job.status.is_active() {
        return Ok(job);
    }
    let alive = match (job.supervisor_pid, job.supervisor_start) {
        (Some(pid), Some(start)) => process::is_alive(pid, start),
        // Not registered yet: give the launcher time before calling it lost.
        _ => aide_core::log::now_ms() - job.created_ms < 10_000,
    };
    if alive {
        return Ok(job);
    }
    // Reopen for writing: the caller's handle may be shared read-only.
    let mut writer = JobStore::open()?;
    let ending = store::Ending {
        status: Status::Lost,
        reason: Some("its supervisor vanished without recording an end".into()),
        exit_code: None,
        signal: None,
        stdout_bytes: job.stdout_bytes,
        stderr_bytes: job.stderr_bytes,
        dropped_bytes: job.dropped_bytes,
    };
    writer.finish(job.id, &ending)?;
    store.require(job.id)
}

/// The `llm-jobs` executable that supervises jobs: this one, or the one
/// beside it, or on PATH.
pub fn supervisor_exe() -> Result<PathBuf, AideError> {
    let current = std::env::current_exe().ok().filter(|c| c.file_stem().is_some_and(|n| n == "llm-jobs"));
    current.or_else(|| aide_core::cli::find_executable("llm-jobs")).ok_or_else(|| {
        AideError::new(code::NOT_FOUND, "the llm-jobs executable was not found")
            .with_hint("install llm-jobs beside this tool or on PATH")
    })
}

/// Starts a job. `exe` is the llm-jobs executable that will supervise it.
pub fn spawn(args: &SpawnArgs, exe: &Path) -> Result<SpawnOutput, AideError> {
    let mut what = args.command.clone();
    what.normalize()?;
    // The job runs `bash -c LINE`: an argv is quoted word by word.
    let command = what.shell_line();
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| AideError::io(".", &e))?,
    };
    let cwd = cwd.canonicalize().map_err(|e| {
        AideError::io(&cwd.display().to_string(), &e).with_hint("--cwd must name an existing directory")
    })?;
    if !cwd.is_dir() {
        return Err(AideError::new(code::INVALID_ARGUMENTS, format!("{} is not a directory", cwd.display())));
    }
    if let Some(t) = args.timeout
        && !(t > 0.0 && t.is_finite())
    {
        return Err(AideError::new(code::INVALID_ARGUMENTS, "--timeout must be a positive number of seconds"));
    }
    let env = aide_core::request::parse_env_pairs(&args.env)?;
    let mut store = JobStore::open()?;
    for dep in &args.after {
        store.require(*dep)?;
    }
    let id = store.insert(&store::NewJob {
        name: args.name.clone(),
        command: command.clone(),
        cwd: cwd.display().to_string(),
        env,
        session: args.session.clone(),
        group: args.group.clone(),
        after: args.after.clone(),
        timeout_ms: args.timeout.map(|t| (t * 1000.0) as i64),
        max_output: i64::try_from(args.max_output).unwrap_or(i64::MAX),
    })?;
    if let Err(e) = supervisor::launch(exe, id) {
        let reason = format!("could not start its supervisor: {e}");
        store.finish(
            id,
            &store::Ending {
                status: Status::Failed,
                reason: Some(reason.clone()),
                exit_code: None,
                signal: None,
                stdout_bytes: 0,
                stderr_bytes: 0,
                dropped_bytes: 0,
            },
        )?;
        return Err(AideError::new(code::IO_ERROR, reason));
    }
    // Report the pid once the supervisor has started the command, or the
    // reason it waits; never block for long.
    let deadline = Instant::now() + Duration::from_secs(5);
    let job = loop {
        let job = store.require(id)?;
        let settled = match job.status {
            Status::Running => job.pid.is_some(),
            Status::Queued => job.reason.is_some(),
            _ => true,
        };
        if settled || Instant::now() >= deadline {
            break job;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Ok(SpawnOutput {
        job_id: job.id,
        pid: job.pid,
        command: job.command,
        status: job.status,
        started_at: job.started_ms.map(time),
        name: job.name,
        group: job.group,
        reason: job.reason,
    })
}

fn list(args: &ListArgs) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    let mut jobs = Vec::new();
    for j in store.all()? {
        let j = refresh(&store, j)?;
        let keep = args.status.is_none_or(|s| s == j.status)
            && args.name.as_ref().is_none_or(|n| j.name.as_ref() == Some(n))
            && args.session.as_ref().is_none_or(|s| j.session.as_ref() == Some(s))
            && args.group.as_ref().is_none_or(|g| &j.group == g);
        if keep {
            jobs.push(JobView::from(&j));
        }
    }
    let active_count = jobs.iter().filter(|j| j.status.is_active()).count();
    Ok(JobsOutput::Jobs { total_count: jobs.len(), active_count, jobs })
}

/// The active jobs of an llm-shell session.
pub fn session_jobs(session: &str) -> Result<Vec<JobView>, AideError> {
    match list(&ListArgs { session: Some(session.to_string()), ..Default::default() })? {
        JobsOutput::Jobs { jobs, .. } => Ok(jobs.into_iter().filter(|j| j.status.is_active()).collect()),
        _ => Ok(Vec::new()),
    }
}

fn output_path(store: &JobStore, id: i64, stream: Stream) -> PathBuf {
    let file = match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
        Stream::Both => "merged",
    };
    store.job_dir(id).join(file)
}

/// Bytes of `path` from `offset` to the end (at most `max` from the end).
fn read_from(path: &Path, offset: u64, max: u64) -> (Vec<u8>, u64, u64) {
    let Ok(mut f) = std::fs::File::open(path) else { return (Vec::new(), offset, offset) };
    let len = f.metadata().map_or(0, |m| m.len());
    let start = offset.min(len).max(len.saturating_sub(max));
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_ok() {
        let _ = f.take(len - start).read_to_end(&mut buf);
    }
    let end = start + buf.len() as u64;
    (buf, start, end)
}

/// The last `lines` lines of `bytes` (at most 64 KiB).
fn tail_lines(bytes: &[u8], lines: usize) -> &[u8] {
    let bytes = &bytes[bytes.len().saturating_sub(64 * 1024)..];
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut seen = 0;
    for (i, &b) in body.iter().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == lines {
                return &bytes[i + 1..];
            }
        }
    }
    if lines == 0 { &bytes[bytes.len()..] } else { bytes }
}

fn wait(args: &WaitArgs) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    for id in &args.ids {
        store.require(*id)?;
    }
    let mut args = args.clone();
    if args.ids.is_empty() {
        // Every active job; none is an empty, successful wait.
        for j in store.all()? {
            let j = refresh(&store, j)?;
            if j.status.is_active() {
                args.ids.push(j.id);
            }
        }
    }
    let args = &args;
    if !(args.timeout >= 0.0 && args.timeout.is_finite()) {
        return Err(AideError::new(code::INVALID_ARGUMENTS, "--timeout must be a number of seconds"));
    }
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    let (jobs, timed_out) = loop {
        let jobs: Vec<JobRow> =
            args.ids.iter().map(|id| store.require(*id).and_then(|j| refresh(&store, j))).collect::<Result<_, _>>()?;
        let ended = jobs.iter().filter(|j| !j.status.is_active()).count();
        let done = if args.any { ended > 0 } else { ended == jobs.len() };
        if done {
            break (jobs, false);
        }
        if Instant::now() >= deadline {
            break (jobs, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let waited = jobs
        .iter()
        .map(|j| {
            let mut redactions = 0;
            let mut tail = |s: Stream| {
                let (bytes, _, _) = read_from(&output_path(&store, j.id, s), 0, 64 * 1024);
                let text = String::from_utf8_lossy(tail_lines(&bytes, args.tail)).into_owned();
                redacted(text, !args.no_redact, &mut redactions)
            };
            let (stdout, stderr) = (tail(Stream::Stdout), tail(Stream::Stderr));
            let view = JobView::from(j);
            WaitedJob {
                job_id: j.id,
                status: j.status,
                exit_code: j.exit_code,
                signal: j.signal,
                reason: j.reason.clone(),
                duration_seconds: view.duration_seconds,
                stdout,
                stderr,
                redactions,
            }
        })
        .collect();
    Ok(JobsOutput::Waited { jobs: waited, timed_out })
}

fn logs(args: &LogsArgs, ctx: &mut RunContext) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    let job = refresh(&store, store.require(args.id)?)?;
    let path = output_path(&store, args.id, args.stream);
    let (mut content, start, mut next) = read_from(&path, args.since_offset.unwrap_or(0), u64::MAX);
    if let (Some(n), None) = (args.tail, args.since_offset) {
        let kept = tail_lines(&content, n);
        let skipped = (content.len() - kept.len()) as u64;
        content = kept.to_vec();
        return Ok(logs_output(args, job.status, content, start + skipped, next, false));
    }
    let mut status = job.status;
    let mut streamed = false;
    if args.follow {
        let deadline = args.timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)));
        // Printed a whole line at a time, so a secret is redacted before any of it shows.
        let mut printed = 0;
        let mut print_lines = |content: &[u8], all: bool, live: &mut Option<Box<dyn Write>>| {
            let Some(live) = live.as_mut() else { return };
            let upto = if all { content.len() } else { content.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) };
            if upto > printed {
                let text = String::from_utf8_lossy(&content[printed..upto]).into_owned();
                let text = redacted(text, !args.no_redact, &mut 0);
                let _ = live.write_all(text.as_bytes()).and_then(|()| live.flush());
                printed = upto;
            }
        };
        streamed = ctx.live.is_some();
        print_lines(&content, false, &mut ctx.live);
        loop {
            let finished = !status.is_active();
            let (more, _, end) = read_from(&path, next, u64::MAX);
            if !more.is_empty() {
                content.extend_from_slice(&more);
                print_lines(&content, false, &mut ctx.live);
                next = end;
            } else if finished || deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            status = refresh(&store, store.require(args.id)?)?.status;
        }
        print_lines(&content, true, &mut ctx.live);
    }
    Ok(logs_output(args, status, content, start, next, streamed))
}

fn logs_output(args: &LogsArgs, status: Status, content: Vec<u8>, start: u64, next: u64, streamed: bool) -> JobsOutput {
    let (content, lossy) = match String::from_utf8(content) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    let mut redactions = 0;
    let content = redacted(content, !args.no_redact, &mut redactions);
    JobsOutput::Logs(LogsOutput {
        job_id: args.id,
        stream: args.stream,
        content,
        start_offset: start,
        next_offset: next,
        lossy,
        redactions,
        status,
        streamed,
    })
}

/// `text` with its secrets replaced when `redact`, counting them.
fn redacted(text: String, redact: bool, count: &mut usize) -> String {
    if !redact {
        return text;
    }
    let (text, n) = aide_core::redact::redact(&text);
    *count += n;
    text
}

fn kill(args: &KillArgs) -> Result<JobsOutput, AideError> {
    let signal = process::parse_signal(&args.signal).ok_or_else(|| {
        AideError::new(code::INVALID_ARGUMENTS, format!("unknown signal `{}`", args.signal))
            .with_hint("use TERM, INT, HUP, QUIT, KILL, USR1, USR2, STOP, CONT or their numbers")
    })?;
    let mut store = JobStore::open()?;
    let job = refresh(&store, store.require(args.id)?)?;
    if !job.status.is_active() {
        // A Lost job's command may outlive its supervisor: stop it, if the
        // group is verifiably still the job's.
        let lost_processes_signalled = job.status == Status::Lost && lost_processes_alive(&job) && {
            if let Some(pid) = job.pid {
                stop_group(pid, signal, args.grace);
            }
            true
        };
        return Ok(JobsOutput::Killed {
            job_id: job.id,
            status: job.status,
            signal: if lost_processes_signalled { Some(signal.as_raw()) } else { job.signal },
            already_finished: !lost_processes_signalled,
            lost_processes_signalled,
        });
    }
    let killed = |store: &mut JobStore, sig: i32, reason: &str| {
        store.finish(
            job.id,
            &store::Ending {
                status: Status::Killed,
                reason: Some(reason.to_string()),
                exit_code: None,
                signal: Some(sig),
                stdout_bytes: job.stdout_bytes,
                stderr_bytes: job.stderr_bytes,
                dropped_bytes: job.dropped_bytes,
            },
        )
    };
    match job.pid {
        None => {
            killed(&mut store, signal.as_raw(), "killed before it started")?;
        }
        Some(pid) => {
            stop_group(pid, signal, args.grace);
            // The supervisor records the end; wait for it briefly, then record it ourselves.
            let settle = Instant::now() + Duration::from_secs(3);
            loop {
                let j = refresh(&store, store.require(job.id)?)?;
                if !j.status.is_active() {
                    break;
                }
                if Instant::now() >= settle {
                    killed(&mut store, signal.as_raw(), "killed; its supervisor did not record the end")?;
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    let j = store.require(job.id)?;
    Ok(JobsOutput::Killed {
        job_id: j.id,
        status: j.status,
        signal: j.signal,
        already_finished: false,
        lost_processes_signalled: false,
    })
}

/// Signals process group `pgid`, and KILLs what is left after `grace` seconds.
fn stop_group(pgid: u32, signal: rustix::process::Signal, grace: f64) {
    let _ = aide_core::process::signal_group(pgid, signal);
    let grace_end = Instant::now() + Duration::from_secs_f64(grace.max(0.0));
    while aide_core::process::group_alive(pgid) && Instant::now() < grace_end {
        std::thread::sleep(Duration::from_millis(10));
    }
    if aide_core::process::group_alive(pgid) {
        let _ = aide_core::process::signal_group(pgid, rustix::process::Signal::KILL);
    }
}

fn remove(id: i64, force: bool) -> Result<JobsOutput, AideError> {
    let mut store = JobStore::open()?;
    let job = refresh(&store, store.require(id)?)?;
    if job.status.is_active() {
        if !force {
            return Err(AideError::new(code::CONFLICT, format!("job #{id} is still {}", job.status.as_str()))
                .with_hint("kill it first, or pass --force"));
        }
        kill(&KillArgs { id, signal: "KILL".into(), grace: 0.0 })?;
    }
    store.remove(id)?;
    Ok(JobsOutput::Removed { removed: vec![id] })
}

fn prune(args: &PruneArgs) -> Result<JobsOutput, AideError> {
    let older = args.older_than.as_deref().map(aide_core::log::parse_duration).transpose()?;
    let cutoff =
        older.map_or(i64::MAX, |d| aide_core::log::now_ms() - i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut store = JobStore::open()?;
    let mut removed = Vec::new();
    for j in store.all()? {
        let j = refresh(&store, j)?;
        if !j.status.is_active() && j.finished_ms.is_some_and(|f| f <= cutoff) {
            store.remove(j.id)?;
            removed.push(j.id);
        }
    }
    Ok(JobsOutput::Removed { removed })
}

fn groups(action: &GroupAction) -> Result<JobsOutput, AideError> {
    let mut store = JobStore::open()?;
    if let GroupAction::Set { name, parallel } = action {
        if *parallel == 0 {
            return Err(AideError::new(code::INVALID_ARGUMENTS, "--parallel must be at least 1"));
        }
        store.set_group(name, i64::from(*parallel))?;
    }
    let limits = store.groups()?;
    let jobs = store.all()?;
    let mut names: Vec<String> = limits.iter().map(|(n, _)| n.clone()).collect();
    names.extend(jobs.iter().map(|j| j.group.clone()));
    names.sort();
    names.dedup();
    let groups = names
        .into_iter()
        .map(|name| GroupView {
            parallel: limits.iter().find(|(n, _)| *n == name).map(|(_, p)| *p),
            running: jobs.iter().filter(|j| j.group == name && j.status == Status::Running).count(),
            queued: jobs.iter().filter(|j| j.group == name && j.status == Status::Queued).count(),
            name,
        })
        .collect();
    Ok(JobsOutput::Groups { groups })
}

/// Runs one subcommand.
pub fn execute(command: &JobsCommand, ctx: &mut RunContext) -> Result<JobsOutput, AideError> {
    match command {
        JobsCommand::Spawn(args) => Ok(JobsOutput::Spawned(spawn(args, &supervisor_exe()?)?)),
        JobsCommand::List(args) => list(args),
        JobsCommand::Status { id } => {
            let store = JobStore::open()?;
            let job = refresh(&store, store.require(*id)?)?;
            Ok(JobsOutput::Job { job: JobView::from(&job) })
        }
        JobsCommand::Wait(args) => wait(args),
        JobsCommand::Logs(args) => logs(args, ctx),
        JobsCommand::Kill(args) => kill(args),
        JobsCommand::Rm { id, force } => remove(*id, *force),
        JobsCommand::Prune(args) => prune(args),
        JobsCommand::Group { action } => groups(action),
    }
}

/// The `llm-jobs` tool.
#[derive(Debug)]
pub struct LlmJobs;

impl Tool for LlmJobs {
    const NAME: &'static str = "llm-jobs";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Background jobs that outlive the caller: spawn, list, wait, logs, kill.";
    const REDACT_LOGGED_RESULT: bool = true;
    type Request = JobsRequest;
    type Output = JobsOutput;

    fn run(request: JobsRequest, ctx: &mut RunContext) -> Result<JobsOutput, AideError> {
        execute(&request.command, ctx)
    }

    fn prepare(request: &mut JobsRequest) -> Result<(), AideError> {
        match &mut request.command {
            JobsCommand::Spawn(args) => args.command.normalize(),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_lines() {
        assert_eq!(tail_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(tail_lines(b"a\nb\nc", 2), b"b\nc");
        assert_eq!(tail_lines(b"a\nb\n", 5), b"a\nb\n");
        assert_eq!(tail_lines(b"a\nb\n", 0), b"");
    }

    #[test]
    fn statuses_roundtrip() {
        for s in [
            Status::Queued,
            Status::Running,
            Status::Done,
            Status::Failed,
            Status::Killed,
            Status::TimedOut,
            Status::Lost,
        ] {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
    }
}
