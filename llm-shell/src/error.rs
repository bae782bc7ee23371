//! Every way llm-shell refuses or fails a request, as one enum converted
//! once into the contract's [`AideError`]. A command that runs and fails is
//! not an error: its exit status is the result.

use aide_core::operation::{Operation, named};
use aide_core::tool::Tool;
use aide_core::voice::{Given, Phrase, Voice, say};
use aide_core::{AideError, code};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::explain::risk::Risk;

/// The operations hints send the caller to.
pub(crate) const SESSION_NEW: &Operation = named(crate::operations::OPERATIONS, "shell_session_new");
const SESSION_LIST: &Operation = named(crate::operations::OPERATIONS, "shell_session_list");
const CHECK: &Operation = named(crate::operations::OPERATIONS, "shell_check");
pub(crate) const TERM_START: &Operation = named(crate::operations::OPERATIONS, "term_start");
pub(crate) const JOBS_WAIT: &Operation = named(<llm_jobs::LlmJobs as Tool>::OPERATIONS, "jobs_wait");
pub(crate) const JOBS_LOGS: &Operation = named(<llm_jobs::LlmJobs as Tool>::OPERATIONS, "jobs_logs");
pub(crate) const JOBS_KILL: &Operation = named(<llm_jobs::LlmJobs as Tool>::OPERATIONS, "jobs_kill");

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("no session `{id}`")]
    NoSession { id: String },
    #[error("`{name}` is not a variable name")]
    NotAVariableName { name: String },
    #[error("nothing to change")]
    NothingToChange,
    #[error("updating the environment failed: {stderr}")]
    EnvUpdateFailed { stderr: String },
    #[error("{} must be at least 2", Voice::Cli.arg("iterations"))]
    TooFewIterations,
    #[error("the command does not parse: {message}")]
    Unparsable { message: String },
    #[error("the command's risk is {}, above {}", .risk.as_str(), Voice::Cli.arg_is("max_risk", .max.as_str()))]
    RiskDenied { risk: Risk, max: Risk, reasons: Vec<String> },
    /// `program` could not be started; `needed_by` names what needs it.
    #[error("could not start {program}: {message}")]
    Spawn { program: &'static str, needed_by: &'static str, message: String },
    /// The session's shell or keeper ended before the command answered.
    #[error("the session's shell ended before the command answered ({why})")]
    CommandLost { why: String },
    #[error("git {args}: {stderr}")]
    Git { args: String, stderr: String },
    #[error("{} and {} both given", Voice::Cli.arg("background"), Voice::Cli.arg("yield_ms"))]
    BackgroundAndYield,
    #[error("{} is too long", Voice::Cli.arg_is("yield_ms", .ms))]
    YieldTooLong { ms: u64 },
    /// A run asked for a sandbox other than its session's own.
    #[error("session {id} runs with {runs}, not {wanted}")]
    SessionSandboxDiffers { id: String, runs: String, wanted: String },
    #[error("the command holds a NUL byte, which bash cannot run")]
    NulInCommand,
    #[error("{}: this run's stdin is not the caller's data", Voice::Cli.arg_is("stdin", "-"))]
    StdinNotTheCallers,
    #[error("--stdin {given}: not a regular file")]
    StdinNotRegular { given: String },
}

impl From<ShellError> for AideError {
    // Long because: one arm per variant, each its code, hint and details.
    fn from(e: ShellError) -> AideError {
        use ShellError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::NoSession { id } => error(code::NOT_FOUND)
                .with_hint(say(|v| {
                    format!("create one with `{}`, or list them with `{}`", v.op(SESSION_NEW), v.op(SESSION_LIST))
                }))
                .with_details(json!({ "session_id": id })),
            E::NotAVariableName { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint("names are letters, digits and _, not starting with a digit")
            }
            E::NothingToChange => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| format!("give {} or {}", v.arg_is("set", "K=V"), v.arg_is("unset", "K")))),
            E::EnvUpdateFailed { .. } => {
                error(code::IO_ERROR).with_hint("the session's bash refused the change: check the names and values")
            }
            E::TooFewIterations => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} must be at least 2", v.arg("iterations"))))
                    .with_hint("the statistics need two runs a side; 10 or more give useful p-values")
            }
            E::Unparsable { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint(say(|v| format!("see `{}` for where", v.op(CHECK))))
            }
            E::RiskDenied { risk, reasons, max } => AideError::new(
                code::RISK_DENIED,
                say(|v| {
                    format!("the command's risk is {}, above {}", risk.as_str(), v.arg_is("max_risk", max.as_str()))
                }),
            )
            .with_hint(say(|v| format!("nothing was run; raise {} if this is intended", v.arg("max_risk"))))
            .with_details(json!({ "overall_risk": risk, "risk_reasons": reasons })),
            E::Spawn { program, needed_by, .. } => {
                error(code::IO_ERROR).with_hint(format!("{needed_by} needs {program} on PATH"))
            }
            E::CommandLost { .. } => error(code::COMMAND_LOST).with_hint(
                "the session's saved state is as it was before this command, which may have run in part; run it again",
            ),
            E::Git { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("run compare inside a git repository, with a revision that exists"),
            E::BackgroundAndYield => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} and {} both given", v.arg("background"), v.arg("yield_ms"))),
            )
            .with_hint(say(|v| {
                format!("{} answers at once; {} answers after N ms: give one", v.arg("background"), v.arg_is("yield_ms", "N"))
            })),
            E::YieldTooLong { ms } => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} is too long", v.arg_is("yield_ms", ms))))
                    .with_hint(say(|v| {
                        format!(
                            "give at most a day; wait longer with `{}`",
                            v.call(JOBS_WAIT, &[Given::positional("ids", json!(["ID"]))])
                        )
                    }))
            }
            E::SessionSandboxDiffers { .. } => error(code::INVALID_ARGUMENTS).with_hint(say(|v| match v {
                Voice::Cli => "start a session with the sandbox wanted (`llm-shell session new --sandbox … --network …`), or run without --session".into(),
                Voice::Mcp => format!("the server's operator chooses the sandbox: run without {}", v.arg("session")),
            })),
            E::NulInCommand => error(code::INVALID_ARGUMENTS),
            E::StdinNotTheCallers => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{}: this run's stdin is not the caller's data", v.arg_is("stdin", "-"))),
            )
            .with_hint(say(|v| {
                format!("{}write the input to a file inside the root and give its path", v.pick("over MCP, or with --request -, ", ""))
            })),
            E::StdinNotRegular { .. } => error(code::NOT_A_REGULAR_FILE)
                .with_hint("--stdin takes a regular file, or - for what llm-shell itself reads"),
        }
    }
}

/// Why a terminal, or the session's keeper that holds terminals, refuses
/// a request.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// An id that is not of a terminal's form (no session in it).
    #[error("no terminal `{id}`")]
    NotATerminalId { id: String },
    /// A terminal its session's keeper does not hold.
    #[error("no terminal `{id}`")]
    NoTerminal { id: String },
    /// A terminal whose session has no keeper running.
    #[error("no terminal `{id}`")]
    Ended { id: String },
    #[error("nothing to send")]
    NothingToSend,
    /// A row or column count out of range; `bounds` are the most rows and columns.
    #[error("--{field} must be 1 to {max}, not {given}")]
    Size { field: &'static str, max: u16, given: u16, bounds: (u16, u16) },
    /// `known` lists the key names there are.
    #[error("no key named `{key}`")]
    NoKeyNamed { key: String, known: String },
    #[error("terminal {id} has exited")]
    Exited { id: String },
    #[error(
        "terminal {id} is not reading its input: {waiting} bytes wait, and {more} more would pass the {held_kib} KiB it holds"
    )]
    InputFull { id: String, waiting: usize, more: usize, held_kib: usize },
    #[error("--wait-for: {message}")]
    WaitForPattern { message: String },
    #[error("the session's folder path is too long for its keeper's socket")]
    KeeperSocketPathTooLong,
    /// A sandboxed caller asked the keeper of a session that is not sandboxed.
    #[error("a sandboxed command cannot use the shell of a session that is not sandboxed")]
    SandboxedCaller,
    #[error("not a keeper request: {message}")]
    NotAKeeperRequest { message: String },
}

impl From<TerminalError> for AideError {
    fn from(e: TerminalError) -> AideError {
        use TerminalError as E;
        let msg = e.to_string();
        match e {
            E::NotATerminalId { .. } => AideError::new(code::NOT_FOUND, msg)
                .with_hint("terminal ids look like s-….t1, as `term start` printed them"),
            E::NoTerminal { id } => AideError::new(code::NOT_FOUND, msg)
                .with_hint(say(|v| match v {
                    Voice::Cli => "list them with `llm-shell term list`".into(),
                    Voice::Mcp => format!("give the terminal_id {} answered", v.op(TERM_START)),
                }))
                .with_details(json!({ "terminal_id": id })),
            E::Ended { .. } => AideError::new(code::NOT_FOUND, msg)
                .with_hint("its session's keeper is not running: the terminal ended with it"),
            E::NothingToSend => AideError::new(code::INVALID_ARGUMENTS, msg).with_hint(say(|v| {
                format!("give {} and/or {}", v.arg_is("text", "TEXT"), v.pick("--key KEY", "keys"))
            })),
            E::Size { field, max, bounds: (max_rows, max_cols), .. } => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint(format!("a terminal has 1 to {max_rows} rows and 1 to {max_cols} columns"))
                .with_details(json!({ "field": field, "min": 1, "max": max })),
            E::NoKeyNamed { known, .. } => {
                AideError::new(code::INVALID_ARGUMENTS, msg).with_hint(format!("keys: {known}"))
            }
            E::Exited { .. } => {
                AideError::new(code::CONFLICT, msg).with_hint("read it for its last screen and exit code, or close it")
            }
            E::InputFull { id, waiting, .. } => AideError::new(code::CONFLICT, msg)
                .with_hint("read the terminal to see what its program is doing; send again once it reads, or close it")
                .with_details(json!({ "terminal_id": id, "waiting_bytes": waiting })),
            E::WaitForPattern { .. } => {
                AideError::new(code::INVALID_PATTERN, msg).with_details(json!({ "field": "wait_for" }))
            }
            E::KeeperSocketPathTooLong => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint("set AIDE_HOME to a shorter path to use terminals"),
            E::SandboxedCaller => AideError::new(code::NOT_ALLOWED, msg).with_hint(say(|v| {
                format!(
                    "start a session with the same sandbox from inside it, or run the command without {}",
                    v.arg("session")
                )
            })),
            E::NotAKeeperRequest { .. } => AideError::new(code::INVALID_REQUEST, msg),
        }
    }
}

/// An [`AideError`] on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireError {
    code: String,
    message: String,
    hint: Option<String>,
    details: Option<serde_json::Value>,
    /// Message and hint in MCP's words, where they differ (see
    /// [`aide_core::voice::Phrase`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message_mcp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hint_mcp: Option<String>,
}

impl From<AideError> for WireError {
    fn from(e: AideError) -> WireError {
        let (message, message_mcp) = e.message.into_parts();
        let (hint, hint_mcp) = e.hint.map(Phrase::into_parts).unzip();
        WireError {
            code: e.code.name.to_string(),
            message,
            hint,
            details: e.details.map(|d| *d),
            message_mcp,
            hint_mcp: hint_mcp.flatten(),
        }
    }
}

impl From<WireError> for AideError {
    fn from(w: WireError) -> AideError {
        let code = code::ALL.iter().find(|c| c.name == w.code).copied().unwrap_or(code::INTERNAL);
        let mut e = AideError::new(code, Phrase::from_parts(w.message, w.message_mcp));
        e.hint = w.hint.map(|hint| Phrase::from_parts(hint, w.hint_mcp));
        e.details = w.details.map(Box::new);
        e
    }
}
