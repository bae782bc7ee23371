//! The per-job supervisor.
//!
//! `spawn` starts `llm-jobs __detach ID`, which starts `llm-jobs __supervise
//! ID` and exits at once: the supervisor is orphaned to init, so no caller
//! ever has to reap it and no zombie is left. The supervisor makes itself a
//! session leader (`setsid`: no terminal, no SIGHUP when one closes), waits
//! for its dependencies and a slot in its group, runs the command with bash
//! in a process group of its own, copies its output to files (capped), kills
//! the group on timeout, and records the end in one transaction.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::sync::lock;
use aide_gate::redact::stream::StreamRedactor;

use crate::Status;
use crate::process;
use crate::store::{Ending, JobRow, JobStore};

/// The suffix of a stream's redacted copy: `stdout.redacted`.
pub(crate) const REDACTED_SUFFIX: &str = "redacted";
/// How often a queued job looks again at its dependencies and group.
const QUEUE_POLL: Duration = Duration::from_millis(50);
/// After a timeout's TERM, how long before KILL.
const TIMEOUT_GRACE: Duration = Duration::from_secs(5);
/// How long to keep reading output after the command exits (a background
/// grandchild may hold the pipes open forever).
const DRAIN_LIMIT: Duration = Duration::from_secs(1);

/// The supervisor's hidden commands: the launcher, and the supervisor.
const WORDS: aide_keeper::Words = aide_keeper::Words { launch: "__detach", keep: "__supervise" };

/// Runs the hidden supervisor commands; None for any other command line.
pub(crate) fn run_internal_command() -> Option<i32> {
    aide_keeper::detach::run(WORDS, |id| id.to_str().and_then(|s| s.parse::<i64>().ok()).map_or(2, supervise))
}

/// Starts the supervisor of job `id` through the detaching launcher and
/// waits only for the launcher, which exits at once.
pub(crate) fn launch(exe: &Path, id: i64) -> std::io::Result<()> {
    aide_keeper::detach::start(exe, WORDS, std::ffi::OsStr::new(&id.to_string()))
}

fn supervise(id: i64) -> i32 {
    // A fresh session: the job outlives the caller's terminal.
    let _ = rustix::process::setsid();
    let outcome = supervise_job(id);
    // A stdin the job never took (it ended queued, or failed to start) goes too.
    if let Ok(Some(JobRow { stdin: Some(path), .. })) = JobStore::open().and_then(|s| s.get(id)) {
        let _ = std::fs::remove_file(path);
    }
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            if let Ok(mut store) = JobStore::open() {
                let _ = store.finish(id, &failed(format!("supervisor error: {}", e.message)));
            }
            4
        }
    }
}

fn failed(reason: String) -> Ending {
    Ending {
        status: Status::Failed,
        reason: Some(reason),
        exit_code: None,
        signal: None,
        stdout_bytes: 0,
        stderr_bytes: 0,
        dropped_bytes: 0,
    }
}

enum Deps {
    Ready,
    Waiting(String),
    Failed(String),
}

fn dependencies(store: &JobStore, job: &JobRow) -> Result<Deps, AideError> {
    for dep in &job.after {
        let Some(d) = store.get(*dep)? else {
            return Ok(Deps::Failed(format!("dependency #{dep} no longer exists")));
        };
        let d = crate::refresh(store, d)?;
        match d.status {
            Status::Done => {}
            Status::Queued | Status::Running | Status::Paused => {
                return Ok(Deps::Waiting(format!("waiting for job #{dep}")));
            }
            other => return Ok(Deps::Failed(format!("dependency #{dep} ended {}", other.as_str()))),
        }
    }
    Ok(Deps::Ready)
}

fn supervise_job(id: i64) -> Result<(), AideError> {
    let mut store = JobStore::open()?;
    let me = std::process::id();
    store.set_supervisor(id, me, process::start_time(me).unwrap_or(0))?;

    let mut last_reason: Option<String> = None;
    let job = loop {
        let job = store.require(id)?;
        if job.status != Status::Queued {
            return Ok(()); // killed or removed while queued
        }
        let waiting = match dependencies(&store, &job)? {
            Deps::Failed(reason) => {
                store.finish(id, &failed(reason))?;
                return Ok(());
            }
            Deps::Waiting(reason) => Some(reason),
            Deps::Ready if store.try_start(id, &job.group)? => break job,
            Deps::Ready => Some(format!("waiting for a free slot in group `{}`", job.group)),
        };
        if waiting != last_reason {
            store.set_reason(id, waiting.as_deref())?;
            last_reason = waiting;
        }
        std::thread::sleep(QUEUE_POLL);
    };
    if last_reason.is_some() {
        store.set_reason(id, None)?;
    }
    run_job(&mut store, &job)
}

/// Output files of one job, with the byte cap.
struct Outputs {
    merged: Mutex<File>,
    merged_redacted: Arc<Mutex<RedactedCopy>>,
    cap: i64,
    dropped: AtomicI64,
    merged_written: AtomicI64,
}

/// A stream's redacted copy (`stdout.redacted`, …), written as the stream
/// is redacted: whole lines, so no page or offset into it shows part of a
/// secret. What the redactor holds back is written when the job ends.
struct RedactedCopy {
    file: File,
    redactor: StreamRedactor,
}

impl RedactedCopy {
    fn push(&mut self, chunk: &[u8]) {
        let mut safe = Vec::new();
        self.redactor.push(chunk, &mut safe);
        let _ = self.file.write_all(&safe);
    }

    fn finish(&mut self) {
        let mut rest = Vec::new();
        self.redactor.finish(&mut rest);
        let _ = self.file.write_all(&rest);
    }
}

fn copy_stream(mut from: impl Read, mut to: File, redacted: &Mutex<RedactedCopy>, out: &Outputs, written: &AtomicI64) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let kept = (out.cap - written.load(Ordering::Relaxed)).clamp(0, n as i64) as usize;
        if kept > 0 && to.write_all(&chunk[..kept]).is_ok() {
            written.fetch_add(kept as i64, Ordering::Relaxed);
            lock(redacted).push(&chunk[..kept]);
        }
        out.dropped.fetch_add((n - kept) as i64, Ordering::Relaxed);
        // The merged view keeps both streams in order of arrival, capped at twice the per-stream cap.
        let merged_room = (2 * out.cap - out.merged_written.load(Ordering::Relaxed)).clamp(0, n as i64) as usize;
        if merged_room > 0 {
            let mut merged = lock(&out.merged);
            if merged.write_all(&chunk[..merged_room]).is_ok() {
                out.merged_written.fetch_add(merged_room as i64, Ordering::Relaxed);
                lock(&out.merged_redacted).push(&chunk[..merged_room]);
            }
        }
    }
    lock(redacted).finish();
}

/// The private file at `path` opened for the job's stdin and removed: the
/// job reads it through the descriptor, nobody by its name.
fn take_stdin(path: &str) -> std::io::Result<File> {
    let file = aide_core::fsutil::open_private_regular(Path::new(path))?;
    rustix::fs::fcntl_setfl(&file, rustix::fs::OFlags::empty())?;
    std::fs::remove_file(path)?;
    Ok(file)
}

/// `bash -c COMMAND` for the job, in its sandbox, folder and environment,
/// in a process group of its own, its outputs piped; `Err` says why it
/// cannot start (the job then fails with that reason).
fn bash_command(job: &JobRow) -> Result<std::process::Command, String> {
    let mut cmd = job.sandbox.command("bash").map_err(|e| String::from(e.message))?;
    let stdin = match job.stdin.as_deref().map(take_stdin).transpose() {
        Ok(Some(file)) => Stdio::from(file),
        // A pipe the supervisor holds and `send` feeds (see `input`).
        Ok(None) if job.stdin_pipe => Stdio::piped(),
        Ok(None) => Stdio::null(),
        Err(e) => return Err(format!("its stdin could not be read: {e}")),
    };
    cmd.arg("-c")
        .arg(&job.command)
        .current_dir(&job.cwd)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .env("LLM_JOB_ID", job.id.to_string())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    Ok(cmd)
}

/// Waits for the output readers to finish copying, at most [`DRAIN_LIMIT`].
fn await_readers(drained: &mpsc::Receiver<()>, readers: usize) {
    let drain_until = Instant::now() + DRAIN_LIMIT;
    for _ in 0..readers {
        if drained.recv_timeout(drain_until.saturating_duration_since(Instant::now())).is_err() {
            break;
        }
    }
}

/// The job's status, exit code, signal and reason from how waiting for it ended.
fn how_it_ended(
    waited: std::io::Result<std::process::ExitStatus>,
    timed_out: bool,
) -> (Status, Option<i32>, Option<i32>, Option<String>) {
    use std::os::unix::process::ExitStatusExt;
    match waited {
        Ok(s) if timed_out => (Status::TimedOut, s.code(), s.signal(), Some("timed out".to_string())),
        Ok(s) => match (s.code(), s.signal()) {
            (Some(0), _) => (Status::Done, Some(0), None, None),
            (Some(c), _) => (Status::Failed, Some(c), None, None),
            (None, sig) => (Status::Killed, None, sig, None),
        },
        Err(e) => (Status::Lost, None, None, Some(format!("waiting for the command failed: {e}"))),
    }
}

/// A job's output files in its folder: each stream as written, and its
/// redacted copy.
struct JobFiles {
    stdout: File,
    stderr: File,
    merged: File,
    stdout_redacted: Arc<Mutex<RedactedCopy>>,
    stderr_redacted: Arc<Mutex<RedactedCopy>>,
    merged_redacted: Arc<Mutex<RedactedCopy>>,
}

/// Creates the job's private folder and its output files, empty.
fn job_files(dir: &Path, job: &JobRow) -> Result<JobFiles, AideError> {
    let io = |e: std::io::Error| AideError::io(&dir.display().to_string(), &e);
    aide_core::fsutil::private_dir(dir).map_err(io)?;
    let create =
        |name: &str| aide_core::fsutil::private_file().write(true).create(true).truncate(true).open(dir.join(name));
    let (stdout, stderr, merged) =
        (create("stdout").map_err(io)?, create("stderr").map_err(io)?, create("merged").map_err(io)?);
    let redactor = job.redactor();
    let copy = |name: &str| -> Result<Arc<Mutex<RedactedCopy>>, AideError> {
        let file = create(&format!("{name}.{REDACTED_SUFFIX}")).map_err(io)?;
        Ok(Arc::new(Mutex::new(RedactedCopy { file, redactor: StreamRedactor::new(redactor.clone()) })))
    };
    let (stdout_redacted, stderr_redacted, merged_redacted) = (copy("stdout")?, copy("stderr")?, copy("merged")?);
    Ok(JobFiles { stdout, stderr, merged, stdout_redacted, stderr_redacted, merged_redacted })
}

/// Starts the job's command; None (the job recorded as failed, with why)
/// when it cannot start.
fn start(store: &mut JobStore, job: &JobRow) -> Result<Option<std::process::Child>, AideError> {
    let why = match bash_command(job) {
        Ok(mut cmd) => match cmd.spawn() {
            Ok(child) => return Ok(Some(child)),
            Err(e) => format!("could not start bash in {}: {e}", job.cwd),
        },
        Err(why) => why,
    };
    store.finish(job.id, &failed(why))?;
    Ok(None)
}

fn run_job(store: &mut JobStore, job: &JobRow) -> Result<(), AideError> {
    let dir = store.job_dir(job.id);
    let files = job_files(&dir, job)?;
    let Some(mut child) = start(store, job)? else { return Ok(()) };
    let pid = child.id();
    // Listening before the pid is known: whoever sees the job started can send to it.
    let feed = child.stdin.take().and_then(|pipe| crate::input::serve(&dir, pipe));
    store.set_pid(job.id, pid, process::start_time(pid).unwrap_or(0))?;

    let outputs = Arc::new(Outputs {
        merged: Mutex::new(files.merged),
        merged_redacted: files.merged_redacted.clone(),
        cap: job.max_output,
        dropped: AtomicI64::new(0),
        merged_written: AtomicI64::new(0),
    });
    let stdout_written = Arc::new(AtomicI64::new(0));
    let stderr_written = Arc::new(AtomicI64::new(0));
    let (drained_tx, drained_rx) = mpsc::channel::<()>();
    let mut readers = 0;
    let mut start_reader = |pipe: Option<Box<dyn Read + Send>>,
                            file: File,
                            redacted: &Arc<Mutex<RedactedCopy>>,
                            written: &Arc<AtomicI64>| {
        if let Some(pipe) = pipe {
            let (o, r, w, tx) = (outputs.clone(), redacted.clone(), written.clone(), drained_tx.clone());
            std::thread::spawn(move || {
                copy_stream(pipe, file, &r, &o, &w);
                let _ = tx.send(());
            });
            readers += 1;
        }
    };
    let stdout_pipe = child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>);
    start_reader(stdout_pipe, files.stdout, &files.stdout_redacted, &stdout_written);
    let stderr_pipe = child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>);
    start_reader(stderr_pipe, files.stderr, &files.stderr_redacted, &stderr_written);
    drop(drained_tx);

    let timeout = job.timeout_ms.map(|ms| Duration::from_millis(ms.max(0) as u64));
    let aide_gate::process::Waited { status, timed_out, .. } =
        aide_gate::process::wait_with_timeout(child, timeout, TIMEOUT_GRACE);
    if let Some(feed) = &feed {
        feed.end();
    }
    await_readers(&drained_rx, readers);

    // The redacted copies get what their redactors hold back (a stream that
    // a background child still holds open may be mid-line: it is redacted
    // as it stands), before the job is seen to end.
    for copy in [&files.stdout_redacted, &files.stderr_redacted, &files.merged_redacted] {
        lock(copy).finish();
    }

    let (status, exit_code, signal, reason) = how_it_ended(status, timed_out);
    store.finish(
        job.id,
        &Ending {
            status,
            reason,
            exit_code,
            signal,
            stdout_bytes: stdout_written.load(Ordering::Relaxed),
            stderr_bytes: stderr_written.load(Ordering::Relaxed),
            dropped_bytes: outputs.dropped.load(Ordering::Relaxed),
        },
    )?;
    Ok(())
}
