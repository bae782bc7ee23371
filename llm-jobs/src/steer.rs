//! Steering a running job without ending it: `pause` and `resume` stop and
//! continue its whole process group (SIGSTOP, SIGCONT, as pueue does), and
//! `send` writes to its stdin (see [`crate::input`]).
//!
//! `Paused` is never stored: a running job whose command (the leader of its
//! process group) is stopped by a signal is paused, whoever stopped it, so
//! a `kill -STOP` from outside shows as paused too (see
//! [`crate::refresh`]). A paused job keeps its place in its group.

use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::tool::Context;
use rustix::process::Signal;

use crate::error::{JobsError, MAX_SEND_BYTES};
use crate::input::{self, Outcome};
use crate::request::SendArgs;
use crate::store::JobStore;
use crate::view::{JobsOutput, Status};

/// How long a pause or resume waits to see the job's command stop or go on.
const SWITCH_WAIT: Duration = Duration::from_secs(5);

/// How long `send` waits for a job that is starting to serve its stdin.
const SERVED_WAIT: Duration = Duration::from_secs(5);

/// Pauses job `id` (`pause`) or resumes it.
pub(crate) fn switch(id: i64, pause: bool) -> Result<JobsOutput, AideError> {
    let (doing, want, from, signal) = match pause {
        true => ("pause", Status::Paused, Status::Running, Signal::STOP),
        false => ("resume", Status::Running, Status::Paused, Signal::CONT),
    };
    let store = JobStore::open()?;
    let job = crate::refresh(&store, store.require(id)?)?;
    let not_running = |status| -> AideError { JobsError::NotRunning { id, status, doing }.into() };
    let Some(pid) = job.pid.filter(|_| matches!(job.status, Status::Running | Status::Paused)) else {
        return Err(not_running(job.status));
    };
    let switched = |status, previous_status| JobsOutput::Switched { job_id: id, status, previous_status, pid };
    if job.status == want {
        return Ok(switched(want, want));
    }
    if job.status != from {
        return Err(not_running(job.status));
    }
    // The whole group: the command and every process it started there.
    let _ = aide_gate::process::signal_group(pid, signal);
    let deadline = Instant::now() + SWITCH_WAIT;
    loop {
        let now = crate::refresh(&store, store.require(id)?)?;
        if now.status == want {
            return Ok(switched(want, from));
        }
        if !now.status.is_active() {
            // Resumed, it may end before it is seen running: it went on.
            return if pause { Err(not_running(now.status)) } else { Ok(switched(now.status, from)) };
        }
        if Instant::now() >= deadline {
            return Err(JobsError::NotSwitched { id, doing, seconds: SWITCH_WAIT.as_secs() }.into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// What `send` writes: the text as given, or this command's own stdin.
fn input_bytes(args: &SendArgs, ctx: &Context) -> Result<Vec<u8>, AideError> {
    let bytes = match (&args.text, args.stdin) {
        (Some(text), _) => text.clone().into_bytes(),
        (None, true) => {
            if !ctx.reads_stdin {
                return Err(JobsError::StdinNotTheCallers.into());
            }
            let mut bytes = Vec::new();
            let limit = MAX_SEND_BYTES as u64 + 1;
            std::io::Read::read_to_end(&mut std::io::Read::take(std::io::stdin().lock(), limit), &mut bytes)
                .map_err(|e| AideError::io("stdin", &e))?;
            bytes
        }
        (None, false) => Vec::new(),
    };
    if bytes.is_empty() && !args.eof {
        return Err(JobsError::NothingToSend.into());
    }
    if bytes.len() > MAX_SEND_BYTES {
        return Err(JobsError::SendTooLarge { bytes: bytes.len() }.into());
    }
    Ok(bytes)
}

/// Sends through the job's supervisor, which serves its stdin before its
/// pid is known; a job whose command is still starting is given a moment.
fn send_when_served(store: &JobStore, id: i64, bytes: &[u8], eof: bool) -> Result<Option<input::Reply>, AideError> {
    let deadline = Instant::now() + SERVED_WAIT;
    loop {
        let sent = input::send(id, &store.job_dir(id), bytes, eof)?;
        if sent.is_some() || Instant::now() >= deadline || store.require(id)?.pid.is_some() {
            return Ok(sent);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Writes to a running (or paused) job's stdin, then closes it with `eof`.
pub(crate) fn send(args: &SendArgs, ctx: &Context) -> Result<JobsOutput, AideError> {
    let id = args.id;
    let bytes = input_bytes(args, ctx)?;
    let store = JobStore::open()?;
    let job = crate::refresh(&store, store.require(id)?)?;
    let doing = "send to";
    if !matches!(job.status, Status::Running | Status::Paused) {
        return Err(JobsError::NotRunning { id, status: job.status, doing }.into());
    }
    if !job.stdin_pipe {
        let why = match job.stdin {
            Some(_) => "its stdin is the input it was started with",
            None => "it was spawned with no stdin pipe (it reads end of file)",
        };
        return Err(JobsError::NoStdinPipe { id, why }.into());
    }
    let total = bytes.len();
    let Some(reply) = send_when_served(&store, id, &bytes, args.eof)? else {
        // Nobody listens: the job ended meanwhile, or its supervisor is gone.
        let now = crate::refresh(&store, store.require(id)?)?;
        if !now.status.is_active() {
            return Err(JobsError::NotRunning { id, status: now.status, doing }.into());
        }
        let message = "its supervisor is not listening".to_string();
        return Err(JobsError::StdinUnavailable { id, message }.into());
    };
    match reply.outcome {
        Outcome::Sent => Ok(JobsOutput::Sent {
            job_id: id,
            bytes_sent: reply.written,
            stdin_closed: args.eof,
            status: job.status,
            partial_line: bytes.last().is_some_and(|&b| b != b'\n'),
        }),
        Outcome::Closed => Err(JobsError::StdinClosed { id, sent: reply.written, total }.into()),
        Outcome::Full => {
            let seconds = input::WRITE_WAIT.as_secs();
            Err(JobsError::InputNotRead { id, sent: reply.written, total, seconds }.into())
        }
        Outcome::Refused => {
            let message = "it serves no caller more confined than itself".to_string();
            Err(JobsError::StdinUnavailable { id, message }.into())
        }
    }
}
