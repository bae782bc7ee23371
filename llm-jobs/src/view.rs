//! What the subcommands return, and its compact text form.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::request::Stream;
use crate::store::JobRow;
use crate::{hints, process};

/// A job's state. `Paused`: running, its command stopped by a signal (`pause`,
/// or SIGSTOP/SIGTSTP from outside), read from the process and never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
pub enum Status {
    Queued,
    Running,
    Paused,
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
            Status::Paused => "Paused",
            Status::Done => "Done",
            Status::Failed => "Failed",
            Status::Killed => "Killed",
            Status::TimedOut => "TimedOut",
            Status::Lost => "Lost",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str().eq_ignore_ascii_case(s))
    }

    /// Every status, in the order of a job's life.
    pub const ALL: [Status; 8] = [
        Status::Queued,
        Status::Running,
        Status::Paused,
        Status::Done,
        Status::Failed,
        Status::Killed,
        Status::TimedOut,
        Status::Lost,
    ];

    /// Not ended: queued, running or paused.
    pub fn is_active(self) -> bool {
        matches!(self, Status::Queued | Status::Running | Status::Paused)
    }

    /// Its colour in text mode.
    fn paint(self) -> Paint {
        match self {
            Status::Done => Paint::Good,
            Status::Queued | Status::Running | Status::Paused => Paint::Warn,
            Status::Failed | Status::Killed | Status::TimedOut | Status::Lost => Paint::Bad,
        }
    }
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

pub(crate) fn time(ms: i64) -> String {
    aide_core::time::rfc3339_ms(ms)
}

impl From<&JobRow> for JobView {
    fn from(j: &JobRow) -> Self {
        let end = j.finished_ms.unwrap_or_else(aide_core::time::now_ms);
        JobView {
            id: j.id,
            pid: j.pid,
            supervisor_pid: j.supervisor_pid,
            command: j.shown_command(),
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
pub(crate) fn lost_processes_alive(j: &JobRow) -> bool {
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
    /// The sandbox it runs in.
    pub sandbox: aide_gate::sandbox::SandboxUsed,
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
    /// The last lines of stdout (within the answer's byte budget).
    pub stdout: String,
    /// The last lines of stderr (within the answer's byte budget).
    pub stderr: String,
    /// Bytes of stdout before `stdout`, left out (`logs` reads them).
    pub stdout_left_out: u64,
    /// Bytes of stderr before `stderr`, left out.
    pub stderr_left_out: u64,
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
    /// Pass as since_offset to read only what comes next.
    pub next_offset: u64,
    /// The stream's length when it was read.
    pub total_bytes: u64,
    /// Bytes before `content` that this answer cut (the end of the stream
    /// was asked for): read them with since_offset and max_output_bytes.
    pub left_out_before: u64,
    /// Bytes after `content` that did not fit: continue from `next_offset`.
    pub left_out_after: u64,
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

/// What an answer of logs left out around its content, in bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LeftOut {
    pub before: u64,
    pub after: u64,
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
    /// `pause` and `resume`: the job's status now, and before the call
    /// (the same when it was already paused, or already running; a resumed
    /// job may have ended already: `Done`, say).
    Switched {
        job_id: i64,
        status: Status,
        previous_status: Status,
        /// The command's pid, which leads the process group signalled.
        pid: u32,
    },
    /// `send`: what reached the job's stdin.
    Sent {
        job_id: i64,
        /// Bytes written to the job's stdin, as given (no newline added).
        bytes_sent: usize,
        /// The job's stdin is closed now (`eof`): the command reads end of file.
        stdin_closed: bool,
        status: Status,
        /// What was sent ended mid-line (the text form says a line waits for its newline).
        #[serde(skip)]
        partial_line: bool,
    },
    Removed {
        removed: Vec<i64>,
    },
    Groups {
        groups: Vec<GroupView>,
    },
}

impl Render for JobsOutput {
    // Long because: one arm per output variant, each written in its order.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            JobsOutput::Spawned(s) => {
                let pid = s.pid.map(|p| format!(" pid {p}")).unwrap_or_default();
                let why = s.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
                write!(w, "job {} ", s.job_id)?;
                w.paint(s.status.paint(), s.status.as_str())?;
                writeln!(w, "{pid}{why}: {}", s.command)?;
            }
            JobsOutput::Jobs { jobs, active_count, total_count } => {
                for j in jobs {
                    write_job_line(w, j)?;
                }
                w.paint(Paint::Dim, format_args!("{active_count} active, {total_count} in all"))?;
                writeln!(w)?;
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
                    write!(w, "job {} ", j.job_id)?;
                    w.paint(j.status.paint(), j.status.as_str())?;
                    writeln!(w, "{code}{sig}")?;
                    let streams = [
                        (Stream::Stdout, "stdout", &j.stdout, j.stdout_left_out),
                        (Stream::Stderr, "stderr", &j.stderr, j.stderr_left_out),
                    ];
                    for (stream, label, text, left_out) in streams {
                        if !text.is_empty() || left_out > 0 {
                            let total = left_out + text.len() as u64;
                            let what = match left_out {
                                0 => "tail".to_string(),
                                _ => hints::wait_tail(w.voice(), j.job_id, stream, text.len(), total),
                            };
                            w.paint(Paint::Dim, format_args!("--- {label} ({what}) ---"))?;
                            writeln!(w)?;
                            w.write_all(text.as_bytes())?;
                            if !text.ends_with('\n') {
                                writeln!(w)?;
                            }
                        }
                    }
                }
                if *timed_out {
                    let paused: Vec<i64> =
                        jobs.iter().filter(|j| j.status == Status::Paused).map(|j| j.job_id).collect();
                    let note = match paused.is_empty() {
                        true => "[wait timed out; the jobs keep running]".to_string(),
                        false => hints::paused_waited(w.voice(), &paused),
                    };
                    w.paint(Paint::Warn, note)?;
                    writeln!(w)?;
                }
            }
            JobsOutput::Logs(l) => {
                let noted = l.left_out_after > 0 || (l.left_out_before > 0 && !l.streamed);
                if !l.streamed {
                    w.write_all(l.content.as_bytes())?;
                }
                // A note is a line of its own; the output alone is printed as it is.
                if noted && !l.streamed && !l.content.is_empty() && !l.content.ends_with('\n') {
                    writeln!(w)?;
                }
                if !l.streamed && l.left_out_before > 0 {
                    let hint = hints::logs_before(w.voice(), l.job_id, l.stream, l.left_out_before, l.start_offset);
                    w.paint(Paint::Dim, hint)?;
                    writeln!(w)?;
                }
                if l.left_out_after > 0 {
                    w.paint(
                        Paint::Dim,
                        hints::logs_after(w.voice(), l.job_id, l.stream, l.left_out_after, l.next_offset),
                    )?;
                    writeln!(w)?;
                }
            }
            JobsOutput::Killed { job_id, status, already_finished, lost_processes_signalled, .. } => {
                let note = match (already_finished, lost_processes_signalled) {
                    (_, true) => " (its supervisor was gone; its processes were stopped)",
                    (true, false) => " (it had already ended)",
                    _ => "",
                };
                write!(w, "job {job_id} ")?;
                w.paint(status.paint(), status.as_str())?;
                writeln!(w, "{note}")?;
            }
            JobsOutput::Switched { job_id, status, previous_status, .. } => {
                write!(w, "job {job_id} ")?;
                w.paint(status.paint(), status.as_str())?;
                writeln!(w, "{}", if status == previous_status { " (it already was)" } else { "" })?;
            }
            JobsOutput::Sent { job_id, bytes_sent, stdin_closed, partial_line, .. } => {
                let closed = if *stdin_closed { "; its stdin is closed" } else { "" };
                writeln!(w, "sent {bytes_sent} byte(s) to job {job_id}{closed}")?;
                if *partial_line && !*stdin_closed {
                    w.paint(Paint::Dim, "[no newline at the end: a program reading a line waits for one]")?;
                    writeln!(w)?;
                }
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

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        use aide_core::tool::keep_range;
        match self {
            JobsOutput::Jobs { jobs, .. } => keep_range(jobs, range),
            JobsOutput::Waited { jobs, .. } => keep_range(jobs, range),
            JobsOutput::Groups { groups, .. } => keep_range(groups, range),
            _ => {}
        }
    }
}

fn write_job_line(w: &mut TextOut<'_>, j: &JobView) -> io::Result<()> {
    let code = j.exit_code.map(|c| format!(" exit={c}")).unwrap_or_default();
    let dur = j.duration_seconds.map(|d| format!(" {d:.1}s")).unwrap_or_default();
    let name = j.name.as_deref().map(|n| format!(" [{n}]")).unwrap_or_default();
    write!(w, "{:>4} ", j.id)?;
    w.paint(j.status.paint(), format_args!("{:<8}", j.status.as_str()))?;
    writeln!(w, "{code}{dur}{name} {}", j.command)
}
