//! The request: one subcommand of llm-shell and its options, and what of
//! it `aide mcp` governs (its sandboxes, risk caps and shell inputs).

use std::path::PathBuf;

use aide_core::command::CommandArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::explain::Risk;

/// Output kept per stream by default; the head and tail of anything longer.
pub const DEFAULT_MAX_OUTPUT: usize = 256 * 1024;

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionAction {
    /// Start a session.
    New {
        /// Default: the current directory.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// NAME=value to export. Repeatable.
        #[arg(long = "env", value_name = "K=V")]
        #[serde(default)]
        env: Vec<String>,
        /// Also list the session's environment.
        #[arg(long)]
        #[serde(default)]
        verbose: bool,
        /// Seconds its shell waits idle before it exits.
        #[arg(long, value_name = "SECONDS")]
        keeper_idle: Option<u64>,
        /// The sandbox every command of the session runs in.
        #[command(flatten)]
        #[serde(flatten)]
        sandbox: aide_gate::sandbox::SandboxArgs,
    },
    /// The sessions.
    List,
    /// A session's state: directory, environment, jobs, last exit code.
    Show {
        #[arg(help = "The session's id")]
        id: String,
        /// Show the values of secret-named variables instead of [REDACTED].
        #[arg(long)]
        #[serde(default)]
        no_redact: bool,
    },
    /// Delete a session.
    Rm {
        #[arg(help = "The session's id")]
        id: String,
    },
}

/// `llm-shell term` actions: interactive programs on a pseudo-terminal.
#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TermAction {
    /// Start a program on a terminal, in a session's directory and environment.
    Start {
        /// Default: a new one.
        #[arg(long)]
        session: Option<String>,
        /// Default 24.
        #[arg(long)]
        rows: Option<u16>,
        /// Default 80.
        #[arg(long)]
        cols: Option<u16>,
        /// Refuse the command (risk_denied, nothing run) above this risk.
        #[arg(long, value_enum)]
        max_risk: Option<Risk>,
        /// Show secrets on the screen instead of [REDACTED].
        #[arg(long)]
        #[serde(default)]
        no_redact: bool,
        /// In a session, its own (a session's sandbox is fixed when it starts).
        #[command(flatten)]
        #[serde(flatten)]
        sandbox: aide_gate::sandbox::SandboxArgs,
        /// What to run, after `--`: one word is a shell command line; several
        /// words are a program and its arguments.
        #[command(flatten)]
        #[serde(flatten)]
        command: CommandArgs,
    },
    /// Type text and press keys (the text first).
    Send {
        /// The terminal's id, as `term start` printed it.
        terminal_id: String,
        /// Text to type (no Enter added).
        #[arg(long)]
        text: Option<String>,
        /// Keys: Enter, Tab, Esc, Backspace, Up, Down, Ctrl-C, …. The others: Delete, Space, Left, Right, Home, End, PageUp, PageDown, Ctrl-A…Ctrl-Z. Repeatable.
        #[arg(long = "key", value_name = "KEY")]
        #[serde(default)]
        keys: Vec<String>,
        /// Then the screen, once the program is quiet (as `term read`).
        #[command(flatten)]
        #[serde(flatten)]
        then: SendWait,
    },
    /// The screen, the cursor, and the text printed since the last read.
    Read {
        /// The terminal's id, as `term start` printed it.
        terminal_id: String,
        /// Wait until this regex matches the screen or the new text.
        #[arg(long, value_name = "REGEX")]
        wait_for: Option<String>,
        /// Wait until nothing was printed for this long. Default 300 without --wait-for; with it, after the match.
        #[arg(long, value_name = "MS")]
        quiet_ms: Option<u64>,
        /// Wait at most this long (default 10).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Show secrets instead of [REDACTED].
        #[arg(long)]
        #[serde(default)]
        no_redact: bool,
    },
    /// Change a terminal's size (the program gets SIGWINCH).
    Resize {
        /// The terminal's id, as `term start` printed it.
        terminal_id: String,
        #[arg(long)]
        rows: u16,
        #[arg(long)]
        cols: u16,
    },
    /// The terminals of a session, or of every session.
    List {
        #[arg(long)]
        session: Option<String>,
    },
    /// End a terminal's program and everything it started.
    Close {
        /// The terminal's id, as `term start` printed it.
        terminal_id: String,
    },
}

// How long `term send` waits before it answers the screen: until the
// program is quiet (default 300 ms without output), a pattern shows, or the
// timeout (default 5 seconds), so one call is one interaction. (No doc
// comment: flattened into `send`, it would replace the variant's.)
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SendWait {
    /// Wait until this regex matches the screen or the new text.
    #[arg(long, value_name = "REGEX")]
    pub wait_for: Option<String>,
    /// Wait until nothing was printed for this long (default 300).
    #[arg(long, value_name = "MS")]
    pub quiet_ms: Option<u64>,
    /// Wait at most this long (default 5).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Show secrets instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
}

/// `llm-shell exec` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ExecArgs {
    /// Default: a throwaway one.
    #[arg(long)]
    pub session: Option<String>,
    /// Seconds before it is ended (default 120). TERM to its
    /// process group, KILL 2 s later; the answer says `timed_out` and exec
    /// exits 124. The default is aide.toml's `exec_timeout` where set (a
    /// project's may only shorten it). With --background or --yield-ms: no
    /// limit unless given.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Bytes kept per stream (head and tail).
    #[arg(long, value_name = "BYTES")]
    pub max_output: Option<usize>,
    /// Refuse the command (risk_denied, nothing run) above this risk; `low` runs only read-only commands.
    #[arg(long, value_enum)]
    pub max_risk: Option<Risk>,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
    /// Run it as a job; answer at once.
    #[arg(long, conflicts_with = "yield_ms")]
    pub background: bool,
    /// Answer after this many ms with the output so far. A command still running goes on as a job.
    /// The answer's `running` and `job_id` say so.
    #[arg(long, value_name = "MS")]
    pub yield_ms: Option<u64>,
    /// A file fed to stdin.
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// In a session, its own (a session's sandbox is fixed when it starts).
    #[command(flatten)]
    #[serde(flatten)]
    pub sandbox: aide_gate::sandbox::SandboxArgs,
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
    /// Interactive programs on a terminal: start, send, read, resize, list, close.
    Term {
        #[command(subcommand)]
        action: TermAction,
    },
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
        /// Default: all.
        #[arg(long)]
        session: Option<String>,
        /// How many recent commands.
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

/// What `aide mcp` governs in a shell request: the sandbox of every command
/// that runs (exec, a session, a terminal), the risk cap of the commands
/// llm-shell rates itself (exec's and a terminal's), and the rest that
/// reaches a shell: a session's variables, a comparison's command, and
/// anything typed into a terminal.
impl aide_core::govern::Governed for ShellRequest {
    fn sandbox(&mut self) -> Option<&mut aide_gate::sandbox::SandboxArgs> {
        match &mut self.command {
            ShellCommand::Exec(args) => Some(&mut args.sandbox),
            ShellCommand::Session { action: SessionAction::New { sandbox, .. } }
            | ShellCommand::Term { action: TermAction::Start { sandbox, .. } } => Some(sandbox),
            _ => None,
        }
    }

    fn max_risk(&mut self) -> Option<&mut Option<Risk>> {
        match &mut self.command {
            ShellCommand::Exec(args) => Some(&mut args.max_risk),
            ShellCommand::Term { action: TermAction::Start { max_risk, .. } } => Some(max_risk),
            _ => None,
        }
    }

    fn working_dir(&self) -> Option<&std::path::Path> {
        match &self.command {
            ShellCommand::Session { action: SessionAction::New { cwd, .. } } => cwd.as_deref(),
            _ => None,
        }
    }

    fn shell_inputs(&self) -> Vec<aide_core::govern::Reach> {
        use aide_core::govern::{Reach, ShellInput, assignments};
        match &self.command {
            ShellCommand::Session { action: SessionAction::New { env, .. } } => assignments("env", env).collect(),
            ShellCommand::Env { set, unset, .. } => assignments("set", set)
                .chain(unset.iter().map(|name| Reach::new("unset", ShellInput::Unset(name.clone()))))
                .collect(),
            ShellCommand::Compare { command, .. } => vec![Reach::new("command", ShellInput::Line(command.clone()))],
            ShellCommand::Term { action: TermAction::Send { text, keys, .. } } => {
                let text = text.is_some().then(|| Reach::new("text", ShellInput::Typed));
                let keys = (!keys.is_empty()).then(|| Reach::new("keys", ShellInput::Typed));
                text.into_iter().chain(keys).collect()
            }
            _ => Vec::new(),
        }
    }
}
