//! Every way llm-shell refuses or fails a request, as one enum converted
//! once into the contract's [`AideError`]. A command that runs and fails is
//! not an error: its exit status is the result.

use aide_core::operation::{Operation, named};
use aide_core::tool::Tool;
use aide_core::voice::{Voice, say};
use aide_core::{AideError, code};
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
}

impl From<ShellError> for AideError {
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
        }
    }
}
