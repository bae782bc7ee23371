//! Every way `aide` refuses a request of its own, and `aide mcp` a call,
//! as enums converted once into the contract's [`AideError`]; the log's
//! storage errors are aide-core's.

use aide_core::operation::{Operation, named};
use aide_core::voice::say;
use std::time::Duration;

use aide_core::govern::Risk;
use aide_core::{AideError, code};
use aide_gate::sandbox::SandboxUsed;
use serde_json::json;

/// The listing hints send the caller to.
const LOG_LIST: &Operation = named(crate::operations::OPERATIONS, "log_list");

#[derive(Debug, thiserror::Error)]
pub enum AideToolError {
    #[error("run {execution_id} produced {bytes} bytes of JSON, more than the log keeps")]
    ResultCapped { execution_id: String, bytes: u64 },
    #[error("run {execution_id} has no result: it is still running, or was killed or crashed before it recorded one")]
    Unfinished { execution_id: String },
    #[error("--tools and --full-schemas choose tool definitions: they need --format")]
    DefinitionsWithoutFormat,
    #[error("invalid request field `{field}`: must be an integer of at least {min}, not {given}")]
    PagingArgument { field: &'static str, min: u64, given: String },
    #[error("`detail` is {given}: it takes \"full\" (the whole document) or \"compact\" (the default)")]
    DetailArgument { given: String },
    #[error("unknown toolset `{given}`")]
    UnknownToolset { given: String },
    #[error("no tool is named `{given}`")]
    UnknownTool { given: String, closest: Option<String> },
}

impl From<AideToolError> for AideError {
    fn from(e: AideToolError) -> AideError {
        match e {
            AideToolError::ResultCapped { .. } => {
                AideError::new(code::RESULT_CAPPED, e.to_string()).with_hint(say(|v| {
                    format!(
                        "re-run the tool with a narrower request or {}, or raise AIDE_LOG_MAX_RESULT_BYTES",
                        v.arg("limit")
                    )
                }))
            }
            AideToolError::Unfinished { .. } => AideError::new(code::NOT_FOUND, e.to_string()).with_hint(say(|v| {
                format!("`{}` shows its command line; look again once it ends, or run it again", v.op(LOG_LIST))
            })),
            AideToolError::DefinitionsWithoutFormat => AideError::new(code::INVALID_ARGUMENTS, e.to_string())
                .with_hint("add --format mcp, openai or anthropic"),
            AideToolError::PagingArgument { field, min, .. } => AideError::new(code::INVALID_REQUEST, e.to_string())
                .with_hint(format!("give `{field}` a whole number of {min} or more, or leave it out"))
                .with_details(serde_json::json!({ "field": field })),
            AideToolError::DetailArgument { .. } => AideError::new(code::INVALID_REQUEST, e.to_string())
                .with_hint("leave `detail` out for the compact document, or give \"full\"")
                .with_details(serde_json::json!({ "field": "detail" })),
            AideToolError::UnknownToolset { ref given } => {
                use clap::ValueEnum;
                let names: Vec<&str> =
                    aide_core::operation::Group::value_variants().iter().map(|g| g.name()).chain(["all"]).collect();
                let hint = match aide_core::suggest::closest(given, names.iter().copied()) {
                    Some(c) => format!("did you mean `{c}`? toolsets: {}", names.join(", ")),
                    None => format!("toolsets: {}", names.join(", ")),
                };
                AideError::new(code::INVALID_REQUEST, e.to_string()).with_hint(hint)
            }
            AideToolError::UnknownTool { ref closest, .. } => {
                let closest = closest.clone();
                AideError::new(code::INVALID_ARGUMENTS, e.to_string()).with_hint(say(move |v| {
                    let field = v.arg("tool");
                    match &closest {
                        Some(c) => format!(
                            "did you mean `{c}`? {field} takes a tool or its program's name (`aide tools` lists them)"
                        ),
                        None => format!("{field} takes a tool or its program's name (`aide tools` lists them)"),
                    }
                }))
            }
        }
    }
}

/// Every way `aide mcp` refuses a call, or its own configuration, before
/// (or instead of) running the tool.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// An aide.toml value the flag it stands for would refuse.
    #[error("aide.toml: {key} = {value:?}: {why}")]
    ConfigValue { key: &'static str, value: String, why: String },
    /// A tool with subcommands called without the argument that picks one.
    #[error("missing field `{field}`: which of {listed} to run")]
    MissingChoice { field: &'static str, listed: String },
    #[error("`{field}` is `{given}`: not one of {listed}")]
    UnknownChoice { field: &'static str, given: String, listed: String, closest: Option<String> },
    #[error("too many calls: this server takes {per_second} a second")]
    RateLimited { per_second: f64, retry_after_ms: u64 },
    /// The call chose a sandbox or network, which only the operator chooses.
    #[error("`{key}` is set by the server for every call ({sandbox})")]
    SandboxChosen { key: &'static str, sandbox: SandboxUsed },
    #[error(
        "`{tool}`'s `{field}` is rated {}, above this server's max_risk {}: nothing was run",
        .risk.as_str(),
        .max.as_str()
    )]
    RiskDenied { tool: String, field: String, risk: Risk, reasons: Vec<String>, max: Risk },
    /// Text or keys typed into a terminal under a cap below `critical`.
    #[error(
        "`{tool}` types into a program (a terminal's, a job's stdin) that may run anything typed (rated critical), above this server's max_risk {}: nothing was typed",
        .max.as_str()
    )]
    TypedRefused { tool: String, field: String, max: Risk },
    #[error("`{tool}` is not allowed: {why}")]
    NotAllowed { tool: String, why: String },
    /// The call ran past `--call-timeout` and was stopped.
    #[error("the call ran past the server's limit of {} s and was stopped", .limit.as_secs_f64())]
    TimedOut { limit: Duration },
}

impl From<McpError> for AideError {
    fn from(e: McpError) -> AideError {
        let msg = e.to_string();
        match e {
            McpError::ConfigValue { .. } => AideError::new(code::INVALID_REQUEST, msg),
            McpError::MissingChoice { field, listed } => AideError::new(code::INVALID_REQUEST, msg)
                .with_hint(format!("add \"{field}\": one of {listed}"))
                .with_details(json!({ "field": field })),
            McpError::UnknownChoice { field, listed, closest, .. } => {
                let hint = match &closest {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => format!("one of {listed}"),
                };
                AideError::new(code::INVALID_REQUEST, msg)
                    .with_hint(hint)
                    .with_details(json!({ "field": field, "closest": closest }))
            }
            McpError::RateLimited { retry_after_ms, .. } => AideError::new(code::RATE_LIMITED, msg)
                .with_hint(format!("call again in {retry_after_ms} ms"))
                .with_details(json!({ "retry_after_ms": retry_after_ms })),
            McpError::SandboxChosen { .. } => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint("leave it out; the server's operator chooses it with `aide mcp --sandbox … --network …`"),
            McpError::RiskDenied { tool, field, risk, reasons, max } => AideError::new(code::RISK_DENIED, msg)
                .with_hint(format!(
                    "nothing was run; give a command rated {} or lower (shell_explain rates one), or ask the server's operator to raise --max-risk",
                    max.as_str()
                ))
                .with_details(json!({ "tool": tool, "field": field, "overall_risk": risk, "risk_reasons": reasons, "max_risk": max })),
            McpError::TypedRefused { tool, field, max } => AideError::new(code::RISK_DENIED, msg)
                .with_hint("run commands with shell_exec, which rates each; a terminal still starts (its command rated), is read and closed; or ask the server's operator for --max-risk critical")
                .with_details(json!({ "tool": tool, "field": field, "overall_risk": Risk::Critical, "max_risk": max })),
            McpError::NotAllowed { tool, .. } => AideError::new(code::NOT_ALLOWED, msg)
                .with_hint("use a read-only tool, or ask the server's operator (aide mcp --allow gated, or --confirm gated)")
                .with_details(json!({ "tool": tool })),
            McpError::TimedOut { .. } => AideError::new(code::TIMEOUT, msg).with_hint(
                "narrow the call, or run a long command as a job (jobs_spawn, or shell_exec with background)",
            ),
        }
    }
}
