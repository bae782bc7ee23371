//! Every way llm-jobs refuses or fails a request, as one enum converted once
//! into the contract's [`AideError`]. A job that runs and fails is a result
//! (its status), not an error.

use aide_core::operation::{Operation, named};
use aide_core::voice::{Given, Voice, say};
use aide_core::{AideError, code};

/// The listing hints send the caller to.
const LIST: &Operation = named(crate::operations::OPERATIONS, "jobs_list");
const STATUS: &Operation = named(crate::operations::OPERATIONS, "jobs_status");
const PAUSE: &Operation = named(crate::operations::OPERATIONS, "jobs_pause");
const RESUME: &Operation = named(crate::operations::OPERATIONS, "jobs_resume");
const SEND: &Operation = named(crate::operations::OPERATIONS, "jobs_send");

/// The most bytes one `send` writes.
pub(crate) const MAX_SEND_BYTES: usize = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum JobsError {
    #[error("no job #{id}")]
    NoJob { id: i64 },
    #[error("job #{id} is still {status}")]
    StillActive { id: i64, status: &'static str },
    #[error("{cwd} is not a directory")]
    NotADirectory { cwd: String },
    #[error("{} must be a number of seconds", Voice::Cli.arg("timeout"))]
    BadWaitTimeout,
    #[error("{} must be at least 1", Voice::Cli.arg("parallel"))]
    ZeroParallel,
    #[error("unknown signal `{signal}`")]
    UnknownSignal { signal: String },
    #[error("the llm-jobs executable was not found")]
    ExecutableMissing,
    #[error("could not start its supervisor: {message}")]
    SupervisorFailed { message: String },
    #[error("job store: {message}")]
    Store { message: String },
    /// Pause, resume or send to a job that is not running (`doing`: "pause").
    #[error("cannot {doing} job #{id}: it is {}", .status.as_str())]
    NotRunning { id: i64, status: crate::Status, doing: &'static str },
    /// `kill --signal STOP|TSTP|TTIN|TTOU|CONT`: pausing is not killing.
    #[error("kill ends a job; {signal} would {}", if *.resume { "continue it" } else { "stop it without ending it" })]
    PauseByKill { id: i64, signal: String, resume: bool },
    /// The job did not stop (or go on) within the time allowed.
    #[error("job #{id} did not {doing} within {seconds} s")]
    NotSwitched { id: i64, doing: &'static str, seconds: u64 },
    #[error("job #{id} has no stdin to send to: {why}")]
    NoStdinPipe { id: i64, why: &'static str },
    #[error("nothing to send")]
    NothingToSend,
    #[error("{bytes} bytes is more than one send takes ({MAX_SEND_BYTES})")]
    SendTooLarge { bytes: usize },
    #[error("{}: this run's stdin is not the caller's data", Voice::Cli.arg("stdin"))]
    StdinNotTheCallers,
    #[error("job #{id}'s stdin is closed: {sent} of {total} bytes were written before it was")]
    StdinClosed { id: i64, sent: usize, total: usize },
    #[error("job #{id} is not reading its stdin: {sent} of {total} bytes were written in {seconds} s")]
    InputNotRead { id: i64, sent: usize, total: usize, seconds: u64 },
    #[error("job #{id}'s supervisor does not take input: {message}")]
    StdinUnavailable { id: i64, message: String },
}

impl From<JobsError> for AideError {
    fn from(e: JobsError) -> AideError {
        use JobsError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::NoJob { id } => error(code::NOT_FOUND)
                .with_hint(say(|v| format!("list jobs with `{}`", v.op(LIST))))
                .with_details(serde_json::json!({ "job_id": id })),
            E::StillActive { .. } => {
                error(code::CONFLICT).with_hint(say(|v| format!("kill it first, or pass {}", v.on("force"))))
            }
            E::NotADirectory { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint(say(|v| format!("{} must name a directory", v.arg("cwd"))))
            }
            E::BadWaitTimeout => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} must be a number of seconds", v.arg("timeout"))),
            )
            .with_hint(say(|v| format!("give {} to poll, or seconds to wait", v.arg_is("timeout", 0)))),
            E::ZeroParallel => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} must be at least 1", v.arg("parallel"))))
                    .with_hint(say(|v| format!("give {} or more", v.arg_is("parallel", 1))))
            }
            E::UnknownSignal { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("use TERM, INT, HUP, QUIT, KILL, USR1, USR2 or their numbers (pause and resume stop and continue a job)"),
            E::ExecutableMissing => error(code::NOT_FOUND).with_hint("install llm-jobs beside this tool or on PATH"),
            E::SupervisorFailed { .. } => {
                error(code::IO_ERROR).with_hint("check that llm-jobs is executable and $AIDE_HOME is writable")
            }
            E::Store { .. } => error(code::IO_ERROR).with_hint("check that $AIDE_HOME is writable"),
            _ => steering(e),
        }
    }
}

/// The refusals and failures of pause, resume and send.
// Long because: one arm per variant, each its code, hint and details.
fn steering(e: JobsError) -> AideError {
    use JobsError as E;
    let error = |c| AideError::new(c, e.to_string());
    match &e {
        E::NotRunning { id, status, .. } => {
            let id = *id;
            let hint = if *status == crate::Status::Queued {
                say(move |v| format!("it has not started yet; {} shows when it runs", v.call(STATUS, &[id_arg(id)])))
            } else {
                say(move |v| format!("it has ended; {} shows how", v.call(STATUS, &[id_arg(id)])))
            };
            error(code::CONFLICT).with_hint(hint).with_details(serde_json::json!({ "job_id": id, "status": status }))
        }
        E::PauseByKill { id, resume, .. } => {
            let (id, op) = (*id, if *resume { RESUME } else { PAUSE });
            error(code::INVALID_ARGUMENTS)
                .with_hint(say(move |v| {
                    format!(
                        "{} stops the job's whole process group and {} continues it",
                        v.call(PAUSE, &[id_arg(id)]),
                        v.call(RESUME, &[id_arg(id)])
                    )
                }))
                .with_details(serde_json::json!({ "job_id": id, "use": op.name }))
        }
        E::NotSwitched { id, .. } => error(code::TIMEOUT)
            .with_hint("its processes may be in uninterruptible sleep (state D); look again with its status")
            .with_details(serde_json::json!({ "job_id": id })),
        E::NoStdinPipe { id, .. } => error(code::INVALID_ARGUMENTS)
            .with_hint(say(|v| format!("spawn the job without {} to send it input", v.on("no_stdin"))))
            .with_details(serde_json::json!({ "job_id": id })),
        E::NothingToSend => error(code::INVALID_ARGUMENTS).with_hint(say(|v| {
            format!("give {} (sent as given), or {} to close its stdin", v.arg("text"), v.on("eof"))
        })),
        E::SendTooLarge { bytes } => error(code::INVALID_ARGUMENTS)
            .with_hint("send it in parts, or write it to a file the job reads")
            .with_details(serde_json::json!({ "bytes": bytes, "max_bytes": MAX_SEND_BYTES })),
        E::StdinNotTheCallers => AideError::new(
            code::INVALID_ARGUMENTS,
            say(|v| format!("{}: this run's stdin is not the caller's data", v.arg("stdin"))),
        )
        .with_hint(say(|v| format!("give the input as {}", v.arg("text")))),
        E::StdinClosed { id, sent, total } => error(code::CONFLICT)
            .with_hint(say(|v| {
                format!("the command closed its stdin, or a send with {} did; nothing more can be sent", v.on("eof"))
            }))
            .with_details(serde_json::json!({ "job_id": id, "bytes_sent": sent, "bytes_total": total })),
        E::InputNotRead { id, sent, total, .. } => error(code::TIMEOUT)
            .with_hint(say(|v| format!("what was written waits in its pipe; {} the rest once it reads", v.op(SEND))))
            .with_details(serde_json::json!({ "job_id": id, "bytes_sent": sent, "bytes_total": total })),
        E::StdinUnavailable { id, .. } => error(code::IO_ERROR)
            .with_hint(
                "a job spawned before llm-jobs had send, or whose supervisor was signalled or is gone, takes no input",
            )
            .with_details(serde_json::json!({ "job_id": id })),
        _ => AideError::internal(e.to_string()),
    }
}

/// A job's id as a call names it.
fn id_arg(id: i64) -> Given<'static> {
    Given::positional("id", id)
}
