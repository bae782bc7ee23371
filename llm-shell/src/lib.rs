//! # llm-shell: persistent shell sessions for agents
//!
//! State carries forward across separate invocations: a session's first
//! `exec` starts its keeper (see [`keeper`]), a detached process holding a
//! live bash that runs each command in the shell itself and saves the state
//! before answering; a keeper that dies is replaced from the saved state.
//! Nothing for the user to start or stop.
//!
//! * `session new|list|show|rm`, `env --session ID --set K=V --unset K`
//! * `exec [--session ID] [--timeout S] [--max-output BYTES] [--max-risk L]
//!   [--no-redact] [--background | --yield-ms MS] [--stdin FILE|-] -- COMMAND`
//! * `term start|send|read|resize|list|close` (programs on a pseudo-terminal,
//!   held by the session's keeper; see [`terminal`])
//! * `check -- COMMAND` (parse only: brush-parser, with `bash -n` as a second opinion)
//! * `explain -- COMMAND` (steps, when each runs, risk and its reasons,
//!   ShellCheck, and the time it took before: see [`explain::Estimate`])
//! * `perf [--session ID] [--last N]` (aggregate, recent, anomalies)
//! * `compare --baseline REV [--command CMD] [--iterations N] [--warmup N]`
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `exec`: `{ "exit_code", "stdout", "stderr", "stdout_bytes", "stdout_truncated", …,
//!   "execution_time_ms", "timed_out", "timeout_ms", "working_dir", "redactions",
//!   "performance": { "parse_us", "restore_us", "execute_us", "capture_us", "total_us" } }`
//! * `exec --yield-ms`: `{ "job_id", "running", "status", "exit_code", "signal", "timed_out",
//!   "stdout", "stderr", "stdout_bytes", "stderr_bytes", … }` (see [`handoff`])
//! * `term start`/`read`: `{ "terminal_id", "session_id", "screen": [lines], "cursor": { "row", "col" },
//!   "output", "output_dropped", "alternate_screen", "matched", "exited", "exit_code", … }`
//! * `session show`: `{ "session_id", "working_dir", "environment", "active_jobs",
//!   "last_exit_code", "uptime_seconds" }`
//! * `env`: `{ "updated": [...], "session_id" }`
//! * `check`: `{ "valid", "ast" | "error", "line", "column", "suggestion", "bash_n", "disagreement" }`
//! * `explain`: `{ "steps": [ { "step", "command", "description", "will_execute_if",
//!   "estimated_risk", "risk_reasons" } ], "overall_risk", "warnings", "shellcheck",
//!   "estimate": { "runs", "median_ms", "p90_ms", "min_ms", "max_ms", "last_ms", "last_at",
//!   "last_execution_id" } | null, "no_estimate" }`
//!
//! A foreground `exec` is ended after `--timeout` seconds, else aide.toml's
//! `exec_timeout`, else [`aide_config::DEFAULT_EXEC_TIMEOUT`] (120):
//! its process group gets TERM, then KILL, and the answer says `timed_out`
//! with the `timeout_ms` it ran under.
//!
//! Exit status: `exec` exits with the command's own status (0–255), 124 when
//! it timed out (as `timeout`); every other subcommand exits 0, or 1 when
//! `check` finds the command invalid. The tool's own failures keep the
//! contract's codes — 2 invalid input, 3 `risk_denied` (nothing was run), 4
//! runtime failure — and since a command may exit 2, 3 or 4 too, the JSON
//! tells them apart: `"ok": true` with the command's `exit_code`, or
//! `"ok": false` with the tool's `error`.

mod capture;
mod compare;
mod engine;
mod error;
mod estimate;
mod exec;
pub mod explain;
mod handoff;
pub mod keeper;
mod live;
mod operations;
mod output;
mod perf;
mod request;
pub mod session;
mod state;
mod stdin;
mod syntax;
mod terminal;

use aide_core::AideError;
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};

pub use engine::execute;
pub use output::{SessionState, ShellOutput, TIMEOUT_EXIT, UNREADABLE_EXIT, exec_exit_status};
pub use request::{DEFAULT_MAX_OUTPUT, ExecArgs, SendWait, SessionAction, ShellCommand, ShellRequest, TermAction};

/// The `llm-shell` tool.
#[derive(Debug)]
pub struct LlmShell;

impl Tool for LlmShell {
    const NAME: &'static str = "llm-shell";
    const SUMMARY: &'static str = "Persistent shell sessions, syntax check, explain and risk, performance history.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Persistent shell sessions for agents: exec, check, explain, perf, compare.";
    const REDACT_LOGGED_RESULT: bool = true;
    type Request = ShellRequest;
    type Output = ShellOutput;

    /// A session's keeper runs from this same binary, out of sight of the CLI.
    fn outside_harness() -> Option<i32> {
        keeper::run_internal_command()
    }

    fn run(request: ShellRequest, ctx: &Context) -> Result<Outcome<ShellOutput>, AideError> {
        execute(&request.command, ctx).map(Outcome::new)
    }

    fn prepare(request: &mut ShellRequest) -> Result<(), AideError> {
        match &mut request.command {
            ShellCommand::Exec(args) => args.command.normalize(),
            ShellCommand::Check { command } | ShellCommand::Explain { command } => command.normalize(),
            ShellCommand::Term { action: TermAction::Start { command, .. } } => command.normalize(),
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
