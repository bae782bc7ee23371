//! The request: one subcommand and its options.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Status;

/// Output kept per stream by default (64 MiB); more is counted, not kept.
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;

/// `llm-jobs spawn` options. `Default` is what a JSON request leaves out.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SpawnArgs {
    #[arg(long, help = "A human-readable name")]
    pub name: Option<String>,
    #[arg(long, help = "The llm-shell session this job belongs to (for filtering)")]
    pub session: Option<String>,
    /// Default: the current directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// NAME=value to export. Repeatable.
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// Kill the job's process group after this many seconds. TERM first, KILL
    /// 5 s later.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Start once these jobs end Done (else fail). Repeatable.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub after: Vec<i64>,
    /// Its group (see jobs_group).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_GROUP)]
    pub group: String,
    /// Bytes kept per stream; the rest is dropped.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_OUTPUT)]
    pub max_output: u64,
    /// The sandbox the job runs in (writable, in `workspace-write`, beneath its --cwd).
    #[command(flatten)]
    #[serde(flatten)]
    pub sandbox: aide_gate::sandbox::SandboxArgs,
    /// A private file the job reads as its stdin, opened and removed by
    /// its supervisor (outside the job's sandbox, which may not remove
    /// it): what llm-shell read for `exec --background --stdin -`. For
    /// callers in the same program only: no flag or request field sets it.
    #[arg(skip)]
    #[serde(skip)]
    #[schemars(skip)]
    pub stdin_file: Option<PathBuf>,
    /// Give the job an empty stdin (end of file at once, as /dev/null)
    /// instead of the pipe `send` writes to (a command that reads its stdin
    /// otherwise waits for what is sent).
    #[arg(long)]
    pub no_stdin: bool,
    /// What to run, after `--`: one word is a shell command line (run with
    /// bash -c); several words are a program and its arguments, each passed
    /// literally.
    #[command(flatten)]
    #[serde(flatten)]
    pub command: aide_core::command::CommandArgs,
}

/// The group a job joins unless told otherwise.
pub const DEFAULT_GROUP: &str = "default";

impl Default for SpawnArgs {
    fn default() -> Self {
        SpawnArgs {
            name: None,
            session: None,
            cwd: None,
            env: Vec::new(),
            timeout: None,
            after: Vec::new(),
            group: DEFAULT_GROUP.into(),
            max_output: DEFAULT_MAX_OUTPUT,
            sandbox: Default::default(),
            stdin_file: None,
            no_stdin: false,
            command: Default::default(),
        }
    }
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
    /// The most bytes of output in the answer, both streams of every job
    /// together (default 2000).
    #[arg(long, value_name = "BYTES")]
    pub max_output_bytes: Option<usize>,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    pub no_redact: bool,
}

impl Default for WaitArgs {
    fn default() -> Self {
        WaitArgs {
            ids: Vec::new(),
            all: false,
            any: false,
            timeout: 300.0,
            tail: 50,
            max_output_bytes: None,
            no_redact: false,
        }
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
pub struct LogsArgs {
    /// The job's id.
    pub id: i64,
    #[arg(long, value_enum, default_value_t = Stream::Both)]
    #[serde(default)]
    pub stream: Stream,
    /// Only the last N lines.
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub tail: Option<usize>,
    /// Only what comes after this byte offset (a previous `next_offset`).
    #[arg(long, value_name = "BYTES")]
    #[serde(default)]
    pub since_offset: Option<u64>,
    /// The most bytes of output in the answer (default 2000: the end of the
    /// stream, or what follows since_offset).
    #[arg(long, value_name = "BYTES")]
    #[serde(default)]
    pub max_output_bytes: Option<usize>,
    /// Keep reading until the job ends (in text mode, printing as output arrives).
    #[arg(long)]
    #[serde(default)]
    pub follow: bool,
    /// With --follow, stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Show secrets in the output instead of [REDACTED].
    #[arg(long)]
    #[serde(default)]
    pub no_redact: bool,
}

/// `llm-jobs kill` options.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct KillArgs {
    #[arg(help = "The job's id")]
    pub id: i64,
    /// The signal (TERM, INT, KILL, HUP, … or a number).
    #[arg(long, default_value = "TERM")]
    #[serde(default = "default_signal")]
    pub signal: String,
    /// Seconds before KILL.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    #[serde(default = "default_grace")]
    pub grace: f64,
}

/// `kill`'s signal when a request leaves it out (the flag's default).
fn default_signal() -> String {
    "TERM".into()
}

/// `kill`'s grace when a request leaves it out (the flag's default).
fn default_grace() -> f64 {
    5.0
}

impl Default for KillArgs {
    fn default() -> Self {
        KillArgs { id: 0, signal: "TERM".into(), grace: 5.0 }
    }
}

/// `llm-jobs send` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct SendArgs {
    #[arg(help = "The job's id")]
    pub id: i64,
    /// Written to the job's stdin byte for byte, as given: no newline is
    /// added (a program reading a line waits for one: end the text with it).
    #[arg(long, conflicts_with = "stdin", allow_hyphen_values = true)]
    #[serde(default)]
    pub text: Option<String>,
    /// Send what this command reads from its own stdin (the command line only).
    #[arg(long)]
    #[serde(default)]
    #[schemars(extend("x-hidden" = true))]
    pub stdin: bool,
    /// Then close the job's stdin: the command reads end of file.
    #[arg(long)]
    #[serde(default)]
    pub eof: bool,
}

/// `llm-jobs prune` options.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PruneArgs {
    #[arg(long, help = "Remove finished jobs (the default, and the only jobs prune removes)")]
    pub finished: bool,
    /// Only jobs that finished longer ago than this (e.g. 1h, 7d).
    #[arg(long, value_name = "DURATION")]
    pub older_than: Option<String>,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GroupAction {
    #[command(about = "Set a group's parallel limit")]
    Set {
        #[arg(help = "The group's name (`spawn --group NAME` puts a job in it)")]
        name: String,
        #[arg(long)]
        parallel: u32,
    },
    #[command(about = "The groups with their limits and counts")]
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
    Status {
        #[arg(help = "The job's id")]
        id: i64,
    },
    /// Wait for jobs to end; exits 1 if one did not end Done.
    Wait(WaitArgs),
    /// A job's output.
    Logs(LogsArgs),
    /// Signal a job's whole process group (TERM, then KILL after --grace).
    /// STOP, TSTP and CONT are refused: `pause` and `resume` do that.
    Kill(KillArgs),
    /// Pause a running job: SIGSTOP to its whole process group.
    Pause {
        #[arg(help = "The job's id")]
        id: i64,
    },
    /// Resume a paused job: SIGCONT to its whole process group.
    Resume {
        #[arg(help = "The job's id")]
        id: i64,
    },
    /// Write to a running job's stdin (as given: no newline added).
    Send(SendArgs),
    /// Remove a finished job and its output.
    Rm {
        #[arg(help = "The job's id")]
        id: i64,
        /// Kill it first if active.
        #[arg(long)]
        #[serde(default)]
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

/// What `aide mcp` governs in a jobs request: a spawned job's sandbox, its
/// command and the variables it exports, which llm-jobs does not rate.
impl aide_core::govern::Governed for JobsRequest {
    fn sandbox(&mut self) -> Option<&mut aide_gate::sandbox::SandboxArgs> {
        match &mut self.command {
            JobsCommand::Spawn(args) => Some(&mut args.sandbox),
            _ => None,
        }
    }

    fn working_dir(&self) -> Option<&std::path::Path> {
        match &self.command {
            JobsCommand::Spawn(args) => args.cwd.as_deref(),
            _ => None,
        }
    }

    fn shell_inputs(&self) -> Vec<aide_core::govern::Reach> {
        match &self.command {
            JobsCommand::Spawn(args) => aide_core::govern::command_input(&args.command)
                .into_iter()
                .chain(aide_core::govern::assignments("env", &args.env))
                .collect(),
            // What a job reads may be a shell's commands: typed, as into a terminal.
            JobsCommand::Send(args) => [("text", args.text.is_some()), ("stdin", args.stdin)]
                .into_iter()
                .filter(|(_, given)| *given)
                .map(|(field, _)| aide_core::govern::Reach::new(field, aide_core::govern::ShellInput::Typed))
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_spawn_is_what_a_request_leaves_out() {
        let parsed: SpawnArgs = serde_json::from_str("{}").unwrap();
        let default = SpawnArgs::default();
        assert_eq!((parsed.group.as_str(), parsed.max_output), (DEFAULT_GROUP, DEFAULT_MAX_OUTPUT));
        assert_eq!((default.group, default.max_output), (parsed.group, parsed.max_output));
    }
}
