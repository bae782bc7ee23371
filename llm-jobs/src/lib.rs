//! # llm-jobs: background jobs that outlive the caller
//!
//! `spawn` returns at once; a detached supervisor per job (see [`supervisor`])
//! runs the command and records how it ended, so nothing is lost when the
//! caller exits and no daemon needs minding. `list`, `status`, `wait`, `logs`,
//! `kill`, `pause`, `resume`, `send`, `rm`, `prune` and `group` read and
//! steer the job table under `$AIDE_HOME/jobs/`.
//!
//! Statuses: `Queued`, `Running`, `Paused` (running, its command stopped by
//! `pause` or a SIGSTOP/SIGTSTP from outside, see [`steer`]), `Done` (exit
//! 0), `Failed` (non-zero exit, or a failed dependency with `reason`),
//! `Killed` (with `signal`), `TimedOut`, `Lost` (the supervisor vanished
//! without recording an end). Liveness is judged by pid plus process start
//! time. Timestamps are UTC RFC 3339. A job's stdin is a pipe its
//! supervisor holds, which `send` writes to as given (see [`input`]).
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `spawn`: `{ "job_id": 3, "pid": 54321, "command": "cargo test", "status": "Running", "started_at": "…", … }`
//! * `list`: `{ "jobs": [ { "id", "pid", "command", "name", "status", "exit_code", "started_at", "finished_at",
//!   "duration_seconds", … } ], "active_count": 1, "total_count": 3 }`
//! * `wait`: `{ "jobs": [ { "job_id", "status", "exit_code", "duration_seconds", "stdout", "stderr", … } ],
//!   "timed_out": false }` — `stdout`/`stderr` are tails: the last `tail` lines, 2000 bytes in all unless
//!   `max_output_bytes` asks for more; `stdout_left_out`/`stderr_left_out` count the bytes before them.
//! * `pause`, `resume`: `{ "job_id", "status", "previous_status", "pid" }`; `send`: `{ "job_id",
//!   "bytes_sent", "stdin_closed", "status" }`.
//! * `logs`: `{ "job_id", "stream", "content", "start_offset", "next_offset", "total_bytes", … }` — the
//!   last 2000 bytes unless asked (`tail`, `since_offset`, `max_output_bytes`); `left_out_before` and
//!   `left_out_after` count the bytes of the stream the answer left out.
//!
//! Exit status: 0; for `wait`, 1 when a waited job did not end `Done` or the
//! wait timed out; 2 invalid input (unknown job: `not_found`; `kill --signal
//! STOP`: `invalid_arguments`, pause does that); 3 `conflict` (removing a
//! running job; pausing, resuming or sending to one that is not running);
//! 4 runtime failure.

mod commands;
mod error;
mod hints;
mod input;
mod operations;
mod output;
mod process;
mod request;
mod steer;
mod store;
mod supervisor;
mod tail;
mod view;

use aide_core::AideError;
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};

pub use commands::{execute, refresh, session_jobs, spawn, supervisor_exe};
pub use request::*;
pub use store::{JobRow, JobStore, database_path};
pub use tail::DEFAULT_MAX_OUTPUT_BYTES;
pub use view::*;

/// The `llm-jobs` tool.
#[derive(Debug)]
pub struct LlmJobs;

impl Tool for LlmJobs {
    const NAME: &'static str = "llm-jobs";
    const SUMMARY: &'static str = "Background jobs that outlive the caller, with status, wait, logs and kill.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Background jobs that outlive the caller: spawn, list, wait, logs, kill.";
    const REDACT_LOGGED_RESULT: bool = true;
    type Request = JobsRequest;
    type Output = JobsOutput;

    /// A job's supervisor runs from this same binary, out of sight of the CLI.
    fn outside_harness() -> Option<i32> {
        supervisor::run_internal_command()
    }

    fn run(request: JobsRequest, ctx: &Context) -> Result<Outcome<JobsOutput>, AideError> {
        execute(&request.command, ctx).map(Outcome::new)
    }

    fn prepare(request: &mut JobsRequest) -> Result<(), AideError> {
        match &mut request.command {
            JobsCommand::Spawn(args) => args.command.normalize(),
            _ => Ok(()),
        }
    }

    /// Waiting and following only read: Ctrl-C ends them with `cancelled`.
    fn cancel_on_interrupt(request: &JobsRequest) -> bool {
        matches!(request.command, JobsCommand::Wait(_) | JobsCommand::Logs(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_roundtrip() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
    }
}
