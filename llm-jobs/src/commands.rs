//! The subcommands.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::tool::{Context, Progress};

use crate::error::JobsError;
use crate::output::{Source, marks};
use crate::request::*;
use crate::store::{self, JobRow, JobStore};
use crate::tail::{self, DEFAULT_MAX_OUTPUT_BYTES, head_bytes, tail_bytes, tail_lines};
use crate::view::*;
use crate::{process, supervisor};

/// Re-reads an active job's liveness: a job whose supervisor is gone
/// without recording an end becomes Lost, and a running one whose command
/// is stopped by a signal (`pause`, or SIGSTOP from outside) is Paused.
pub fn refresh(store: &JobStore, mut job: JobRow) -> Result<JobRow, AideError> {
    if !job.status.is_active() {
        return Ok(job);
    }
    let alive = match (job.supervisor_pid, job.supervisor_start) {
        (Some(pid), Some(start)) => process::is_alive(pid, start),
        // Not registered yet: give the launcher time before calling it lost.
        _ => aide_core::time::now_ms() - job.created_ms < 10_000,
    };
    if alive {
        if job.status == Status::Running
            && matches!((job.pid, job.pid_start), (Some(pid), Some(start)) if process::is_stopped(pid, start))
        {
            job.status = Status::Paused;
        }
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
    aide_gate::program::find_executable("llm-jobs").ok_or_else(|| JobsError::ExecutableMissing.into())
}

/// The job's working directory: `--cwd` (or the caller's), existing, a
/// directory, inside the roots of a confined run.
fn job_cwd(asked: Option<&Path>, ctx: &Context) -> Result<std::path::PathBuf, AideError> {
    let cwd = match asked {
        Some(d) => ctx.resolve(d),
        None => ctx.base_dir()?,
    };
    let cwd = cwd.canonicalize().map_err(|e| {
        AideError::io(&cwd.display().to_string(), &e).with_hint("--cwd must name an existing directory")
    })?;
    if !cwd.is_dir() {
        return Err(JobsError::NotADirectory { cwd: cwd.display().to_string() }.into());
    }
    ctx.check_confined("the job's working directory", &cwd)?;
    Ok(cwd)
}

/// The job once the supervisor has started its command (its pid known) or
/// says why it waits; never waited for longer than 5 s.
fn settled_job(store: &JobStore, id: i64) -> Result<store::JobRow, AideError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let job = store.require(id)?;
        let settled = match job.status {
            Status::Running => job.pid.is_some(),
            Status::Queued => job.reason.is_some(),
            _ => true,
        };
        if settled || Instant::now() >= deadline {
            return Ok(job);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Starts a job. `exe` is the llm-jobs executable that will supervise it.
/// A job's process continues the trace of the run that spawned it (when
/// that run exports a span): `TRACEPARENT` names the spawn's span, unless
/// the job's own `--env` sets it.
fn with_trace_context(env: &mut Vec<(String, String)>, execution_id: &str) {
    let Some((parent, state)) = aide_gate::trace::of_run(Some(execution_id)) else { return };
    if env.iter().any(|(k, _)| k == "TRACEPARENT") {
        return;
    }
    env.push(("TRACEPARENT".into(), parent));
    if let Some(state) = state.filter(|_| !env.iter().any(|(k, _)| k == "TRACESTATE")) {
        env.push(("TRACESTATE".into(), state));
    }
}

pub fn spawn(args: &SpawnArgs, exe: &Path, ctx: &Context) -> Result<SpawnOutput, AideError> {
    let mut what = args.command.clone();
    what.normalize()?;
    // The job runs `bash -c LINE`: an argv is quoted word by word.
    let command = what.shell_line();
    let cwd = job_cwd(args.cwd.as_deref(), ctx)?;
    aide_core::request::check_timeout("--timeout", args.timeout)?;
    let mut env = aide_core::request::parse_env_pairs(&args.env)?;
    with_trace_context(&mut env, &ctx.execution_id);
    // What the flags do not say, aide.toml does (the project's, then the user's).
    let config = aide_config::load(&cwd)?;
    let sandbox =
        aide_gate::sandbox::Sandbox::of(args.sandbox.or(config.sandbox_default()), &cwd, &config.writable_paths())
            .reading(config.readable_paths(), &cwd);
    // Refused before the job exists where this kernel cannot enforce it.
    sandbox.check()?;
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
        sandbox,
        stdin: args.stdin_file.as_ref().map(|p| p.display().to_string()),
        stdin_pipe: args.stdin_file.is_none() && !args.no_stdin,
    })?;
    if let Err(e) = supervisor::launch(exe, id) {
        let failure = JobsError::SupervisorFailed { message: e.to_string() };
        let reason = failure.to_string();
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
        return Err(failure.into());
    }
    let job = settled_job(&store, id)?;
    Ok(SpawnOutput {
        job_id: job.id,
        pid: job.pid,
        command: job.shown_command(),
        status: job.status,
        started_at: job.started_ms.map(time),
        name: job.name,
        group: job.group,
        reason: job.reason,
        sandbox: job.sandbox.used(),
    })
}

fn list(args: &ListArgs, ctx: &Context) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    let mut jobs = Vec::new();
    for j in store.all()? {
        let j = refresh(&store, j)?;
        let keep = visible(&j, ctx)
            && args.status.is_none_or(|s| s == j.status)
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
pub fn session_jobs(session: &str, ctx: &Context) -> Result<Vec<JobView>, AideError> {
    match list(&ListArgs { session: Some(session.to_string()), ..Default::default() }, ctx)? {
        JobsOutput::Jobs { jobs, .. } => Ok(jobs.into_iter().filter(|j| j.status.is_active()).collect()),
        _ => Ok(Vec::new()),
    }
}

/// Waits for jobs; stops at the context's cancellation flag, and reports
/// the jobs ended of those waited for.
fn wait(args: &WaitArgs, ctx: &Context) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    for id in &args.ids {
        store.require(*id)?;
    }
    let mut args = args.clone();
    if args.ids.is_empty() {
        // Every active job; none is an empty, successful wait.
        for j in store.all()? {
            let j = refresh(&store, j)?;
            if j.status.is_active() && visible(&j, ctx) {
                args.ids.push(j.id);
            }
        }
    }
    let args = &args;
    if !(0.0..=aide_core::request::MAX_SECONDS).contains(&args.timeout) {
        return Err(JobsError::BadWaitTimeout.into());
    }
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    let mut reported = None;
    let (jobs, timed_out) = loop {
        let jobs: Vec<JobRow> =
            args.ids.iter().map(|id| store.require(*id).and_then(|j| refresh(&store, j))).collect::<Result<_, _>>()?;
        let ended = jobs.iter().filter(|j| !j.status.is_active()).count();
        // Polled every 5 ms: reported when the count changes, not each time.
        if reported != Some(ended) {
            reported = Some(ended);
            ctx.progress.report(Progress { done: ended as u64, total: Some(jobs.len() as u64) });
        }
        let done = if args.any { ended > 0 } else { ended == jobs.len() };
        if done {
            break (jobs, false);
        }
        if Instant::now() >= deadline {
            break (jobs, true);
        }
        ctx.check_cancel()?;
        std::thread::sleep(Duration::from_millis(5));
    };
    // Each stream's last lines, then the byte budget shared among them all.
    let streams: Vec<[(Vec<u8>, u64); 2]> = jobs
        .iter()
        .map(|j| {
            [Stream::Stdout, Stream::Stderr].map(|s| {
                let (bytes, _, end) = Source::of(&store, j, s, !args.no_redact).read_from(0, 64 * 1024);
                (tail_lines(&bytes, args.tail).to_vec(), end)
            })
        })
        .collect();
    let sizes: Vec<usize> = streams.iter().flat_map(|pair| pair.iter().map(|(b, _)| b.len())).collect();
    let mut shares = tail::shares(&sizes, args.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES)).into_iter();
    let waited = jobs
        .iter()
        .zip(streams)
        .map(|(j, pair)| {
            let [(stdout, stdout_left_out), (stderr, stderr_left_out)] = pair.map(|(bytes, end)| {
                let kept = tail_bytes(&bytes, shares.next().unwrap_or(0));
                (String::from_utf8_lossy(kept).into_owned(), end - kept.len() as u64)
            });
            let redactions = marks(&stdout, !args.no_redact) + marks(&stderr, !args.no_redact);
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
                stdout_left_out,
                stderr_left_out,
                redactions,
            }
        })
        .collect();
    Ok(JobsOutput::Waited { jobs: waited, timed_out })
}

/// A job's output; with `--follow`, printed live as it grows (in text mode)
/// until the job ends, the timeout passes or the run is cancelled.
fn logs(args: &LogsArgs, ctx: &Context) -> Result<JobsOutput, AideError> {
    let store = JobStore::open()?;
    let mut job = refresh(&store, store.require(args.id)?)?;
    let redact = !args.no_redact;
    let (mut content, start, mut next) =
        Source::of(&store, &job, args.stream, redact).read_from(args.since_offset.unwrap_or(0), u64::MAX);
    let max = args.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES);
    if !args.follow {
        let total = next;
        let (kept, start) = match (args.tail, args.since_offset) {
            // The last lines asked for, within max_output_bytes only when that is asked too.
            (Some(n), None) => {
                let kept = tail_lines(&content, n);
                let kept = tail_bytes(kept, args.max_output_bytes.unwrap_or(usize::MAX));
                (kept, start + (content.len() - kept.len()) as u64)
            }
            // The end of the stream.
            (None, None) => {
                let kept = tail_bytes(&content, max);
                (kept, start + (content.len() - kept.len()) as u64)
            }
            // What follows the offset, as much as fits.
            (_, Some(_)) => (head_bytes(&content, max), start),
        };
        let left_out = LeftOut {
            before: if args.since_offset.is_some() { 0 } else { start },
            after: total - start - kept.len() as u64,
        };
        let next = start + kept.len() as u64;
        return Ok(logs_output(args, job.status, kept.to_vec(), (start, next, total), left_out, false));
    }
    if let Some(t) = args.timeout {
        aide_core::request::check_seconds("--timeout", t)?;
    }
    let mut streamed = false;
    if args.follow {
        let deadline = args.timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)));
        // Printed a whole line at a time (the redacted copy holds whole lines already).
        let mut printed = 0;
        let mut print_lines = |content: &[u8], all: bool| {
            let Some(mut live) = ctx.live() else { return };
            let upto = if all { content.len() } else { content.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) };
            if upto > printed {
                let text = String::from_utf8_lossy(&content[printed..upto]).into_owned();
                let _ = live.text(|w| w.write_all(text.as_bytes()));
                printed = upto;
            }
        };
        streamed = ctx.has_live();
        print_lines(&content, false);
        loop {
            ctx.check_cancel()?;
            let finished = !job.status.is_active();
            let (more, _, end) = Source::of(&store, &job, args.stream, redact).read_from(next, u64::MAX);
            if !more.is_empty() {
                content.extend_from_slice(&more);
                print_lines(&content, false);
                next = end;
            } else if finished || deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            job = refresh(&store, store.require(args.id)?)?;
        }
        print_lines(&content, true);
    }
    // What was followed answers its end, as much as fits.
    let kept = tail_bytes(&content, max);
    let cut = (content.len() - kept.len()) as u64;
    let left_out = LeftOut { before: cut, after: 0 };
    Ok(logs_output(args, job.status, kept.to_vec(), (start + cut, next, next), left_out, streamed))
}

fn logs_output(
    args: &LogsArgs,
    status: Status,
    content: Vec<u8>,
    (start, next, total): (u64, u64, u64),
    left_out: LeftOut,
    streamed: bool,
) -> JobsOutput {
    let (content, lossy) = match String::from_utf8(content) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    let redactions = marks(&content, !args.no_redact);
    JobsOutput::Logs(LogsOutput {
        job_id: args.id,
        stream: args.stream,
        content,
        start_offset: start,
        next_offset: next,
        total_bytes: total,
        left_out_before: left_out.before,
        left_out_after: left_out.after,
        lossy,
        redactions,
        status,
        streamed,
    })
}

fn kill(args: &KillArgs) -> Result<JobsOutput, AideError> {
    let signal =
        process::parse_signal(&args.signal).ok_or_else(|| JobsError::UnknownSignal { signal: args.signal.clone() })?;
    if let Some(resume) = process::pauses(signal) {
        return Err(JobsError::PauseByKill { id: args.id, signal: args.signal.clone(), resume }.into());
    }
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

/// Signals process group `pgid`, and KILLs what is left after `grace`
/// seconds. CONT follows the signal: a paused job's processes act on it.
fn stop_group(pgid: u32, signal: rustix::process::Signal, grace: f64) {
    let _ = aide_gate::process::signal_group(pgid, signal);
    let _ = aide_gate::process::signal_group(pgid, rustix::process::Signal::CONT);
    let grace_end = Instant::now() + Duration::from_secs_f64(grace.max(0.0));
    while aide_gate::process::group_alive(pgid) && Instant::now() < grace_end {
        std::thread::sleep(Duration::from_millis(10));
    }
    if aide_gate::process::group_alive(pgid) {
        let _ = aide_gate::process::signal_group(pgid, rustix::process::Signal::KILL);
    }
}

fn remove(id: i64, force: bool) -> Result<JobsOutput, AideError> {
    let mut store = JobStore::open()?;
    let job = refresh(&store, store.require(id)?)?;
    if job.status.is_active() {
        if !force {
            return Err(JobsError::StillActive { id, status: job.status.as_str() }.into());
        }
        kill(&KillArgs { id, signal: "KILL".into(), grace: 0.0 })?;
    }
    store.remove(id)?;
    Ok(JobsOutput::Removed { removed: vec![id] })
}

fn prune(args: &PruneArgs, ctx: &Context) -> Result<JobsOutput, AideError> {
    let older = args.older_than.as_deref().map(aide_core::time::parse_duration).transpose()?;
    let cutoff =
        older.map_or(i64::MAX, |d| aide_core::time::now_ms() - i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut store = JobStore::open()?;
    let mut removed = Vec::new();
    for j in store.all()? {
        let j = refresh(&store, j)?;
        if !j.status.is_active() && j.finished_ms.is_some_and(|f| f <= cutoff) && visible(&j, ctx) {
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
            return Err(JobsError::ZeroParallel.into());
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
/// Whether a confined run (`aide mcp` with roots) may see `job`: its
/// working directory lies under the roots. Every other job is, to it, no job.
fn visible(job: &JobRow, ctx: &Context) -> bool {
    ctx.confined(Path::new(&job.cwd))
}

/// The job `id`, if this run may see it (else `not_found`, as for no job).
fn require_visible(store: &JobStore, id: i64, ctx: &Context) -> Result<JobRow, AideError> {
    let job = store.require(id)?;
    if visible(&job, ctx) { Ok(job) } else { Err(JobsError::NoJob { id }.into()) }
}

pub fn execute(command: &JobsCommand, ctx: &Context) -> Result<JobsOutput, AideError> {
    // Arguments are checked before any job is looked up.
    if let JobsCommand::Kill(args) = command {
        aide_core::request::check_seconds("--grace", args.grace)?;
    }
    // The jobs a command names by id must be ones this run may see.
    let named: Vec<i64> = match command {
        JobsCommand::Status { id }
        | JobsCommand::Rm { id, .. }
        | JobsCommand::Pause { id }
        | JobsCommand::Resume { id } => vec![*id],
        JobsCommand::Send(args) => vec![args.id],
        JobsCommand::Logs(args) => vec![args.id],
        JobsCommand::Kill(args) => vec![args.id],
        JobsCommand::Wait(args) => args.ids.clone(),
        JobsCommand::Spawn(args) => args.after.clone(),
        _ => Vec::new(),
    };
    if !named.is_empty() {
        let store = JobStore::open()?;
        for id in named {
            require_visible(&store, id, ctx)?;
        }
    }
    match command {
        JobsCommand::Spawn(args) => Ok(JobsOutput::Spawned(spawn(args, &supervisor_exe()?, ctx)?)),
        JobsCommand::List(args) => list(args, ctx),
        JobsCommand::Status { id } => {
            let store = JobStore::open()?;
            let job = refresh(&store, store.require(*id)?)?;
            Ok(JobsOutput::Job { job: JobView::from(&job) })
        }
        JobsCommand::Wait(args) => wait(args, ctx),
        JobsCommand::Logs(args) => logs(args, ctx),
        JobsCommand::Kill(args) => kill(args),
        JobsCommand::Pause { id } => crate::steer::switch(*id, true),
        JobsCommand::Resume { id } => crate::steer::switch(*id, false),
        JobsCommand::Send(args) => crate::steer::send(args, ctx),
        JobsCommand::Rm { id, force } => remove(*id, *force),
        JobsCommand::Prune(args) => prune(args, ctx),
        JobsCommand::Group { action } => groups(action),
    }
}
