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

mod capture;
pub mod compare;
mod engine;
pub mod error;
pub mod exec;
pub mod explain;
pub mod keeper;
mod live;
mod output;
pub mod perf;
pub mod session;
pub mod state;
pub mod syntax;

use std::path::PathBuf;

use aide_core::AideError;
use aide_core::command::CommandArgs;
use aide_core::operation::{ADDS, Effects, Group, Operation, READS, REMOVES, RUNS_COMMANDS};
use aide_core::tool::{Context, Outcome, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use explain::Risk;

pub use engine::execute;
pub use output::{SessionState, ShellOutput, TIMEOUT_EXIT, UNREADABLE_EXIT, exec_exit_status};

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
        /// Seconds the session's keeper (its live shell) waits for a command before it exits.
        #[arg(long, value_name = "SECONDS")]
        keeper_idle: Option<u64>,
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
    /// A file the command reads as its stdin, or `-` for what llm-shell reads (default: nothing).
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
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
