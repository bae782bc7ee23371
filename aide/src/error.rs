//! Every way `aide` refuses a request of its own, as one enum converted once
//! into the contract's [`AideError`]; the log's storage errors are aide-core's.

use aide_core::operation::{Operation, named};
use aide_core::voice::say;
use aide_core::{AideError, code};

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
