//! The contract's own refusals (a request, a root, a walk, a time, a
//! language, a command, a tool's confinement, nested text), each a typed
//! enum converted once into [`AideError`] with its code, hint and details.

use serde_json::json;

use super::{AideError, code};
use crate::voice::{Phrase, Voice, say};

/// Where the request's fields are described: `--schema`, or the MCP tool's
/// input schema.
fn see_schema(what: &'static str) -> Phrase {
    say(|v| format!("{} lists {what}", v.pick("--schema", "the tool's input schema")))
}

/// Why a request document (from `--request`, or an MCP call's arguments)
/// or one of its common fields is refused.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("reading the request from stdin: {0}")]
    ReadStdin(#[source] std::io::Error),
    #[error("reading the request file {path}: {source}")]
    ReadFile { path: String, source: std::io::Error },
    #[error("the request is over {} MiB", crate::request::MAX_REQUEST_BYTES >> 20)]
    TooLarge,
    #[error("the request is not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("the request must be a JSON object")]
    NotAnObject,
    #[error("the request gives both `{alias}` and `{canonical}`")]
    AliasAndCanonical { alias: String, canonical: String },
    /// The document as a whole does not deserialize.
    #[error("invalid request: {message}")]
    Invalid { message: String },
    #[error("invalid request field `{field}`: {message}")]
    InvalidField { field: String, message: String },
    #[error("unknown field `{key}` in the request")]
    UnknownField { key: String, closest: Option<String>, known: Vec<String> },
    #[error("{} must be at least 1", Voice::Cli.arg("limit"))]
    ZeroLimit,
    #[error("{} must be a positive number of seconds", Voice::Cli.arg(.field))]
    NotPositiveSeconds { field: String },
    #[error("{} must be a number of seconds from 0 to {:.0}", Voice::Cli.arg(.field), crate::request::MAX_SECONDS)]
    SecondsOutOfRange { field: String },
    #[error("`{pair}` is not NAME=value")]
    NotAnEnvPair { pair: String },
}

impl From<RequestError> for AideError {
    fn from(e: RequestError) -> AideError {
        use crate::request::MAX_SECONDS;
        use RequestError as E;
        let msg = e.to_string();
        let invalid = |hint: Phrase| AideError::new(code::INVALID_REQUEST, msg.clone()).with_hint(hint);
        match e {
            E::ReadStdin(_) => invalid("pipe one JSON object into --request -".into()),
            E::ReadFile { .. } => invalid("--request takes a path to a JSON file, or - for stdin".into()),
            E::TooLarge => invalid("split the work into several requests".into()),
            E::NotJson(json_error) => {
                invalid("the request must be one JSON object whose fields mirror the flags".into())
                    .with_details(json!({ "line": json_error.line(), "column": json_error.column() }))
            }
            E::NotAnObject => invalid(see_schema("the fields")),
            E::AliasAndCanonical { alias, canonical } => {
                invalid(format!("`{alias}` is another name for `{canonical}`; give one").into())
            }
            E::Invalid { .. } => invalid(see_schema("the fields and their types")),
            E::InvalidField { field, .. } => {
                invalid(see_schema("the fields and their types")).with_details(json!({ "field": field }))
            }
            E::UnknownField { key, closest, known } => {
                let mut hint = match &closest {
                    Some(c) => format!("did you mean `{c}`? "),
                    None => String::new(),
                };
                hint.push_str(&format!("known fields: {}", known.join(", ")));
                invalid(hint.into()).with_details(json!({ "field": key, "closest": closest }))
            }
            E::ZeroLimit => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} must be at least 1", v.arg("limit"))))
                    .with_hint(say(|v| {
                        format!("leave {} out for every result, or give a page size of 1 or more", v.arg("limit"))
                    }))
                    .with_details(json!({ "field": "limit" }))
            }
            E::NotPositiveSeconds { field } => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} must be a positive number of seconds", v.arg(&field))),
            )
            .with_hint(say(|v| {
                format!("give {} or 0.5 (at most {MAX_SECONDS:.0}), or leave it out for no limit", v.arg_is(&field, 30))
            }))
            .with_details(json!({ "field": field })),
            E::SecondsOutOfRange { field } => AideError::new(
                code::INVALID_ARGUMENTS,
                say(|v| format!("{} must be a number of seconds from 0 to {MAX_SECONDS:.0}", v.arg(&field))),
            )
            .with_hint(say(|v| format!("give {} or 0.5", v.arg_is(&field, 30))))
            .with_details(json!({ "field": field })),
            E::NotAnEnvPair { .. } => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint("names are letters, digits and _, not starting with a digit"),
        }
    }
}

/// Why a command (a shell line or an argv) is refused.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("the command is given twice")]
    GivenTwice,
    #[error("the command line is not valid UTF-8")]
    NotUtf8,
    #[error("the request gives both `command` and `argv`")]
    LineAndArgv,
    #[error("no command given")]
    Missing,
    #[error("the command is over {} KiB", crate::command::MAX_COMMAND_BYTES >> 10)]
    TooLong,
}

impl From<CommandError> for AideError {
    fn from(e: CommandError) -> AideError {
        let msg = e.to_string();
        match e {
            CommandError::GivenTwice => AideError::new(code::INVALID_ARGUMENTS, msg),
            CommandError::NotUtf8 => AideError::new(code::INVALID_ARGUMENTS, msg).with_hint(
                "pass the program and its arguments as separate words after --; they are quoted for bash byte for byte",
            ),
            CommandError::LineAndArgv => AideError::new(code::INVALID_REQUEST, msg)
                .with_hint("`command` is a shell line, `argv` a list of literal words: give one"),
            CommandError::Missing => AideError::new(code::INVALID_ARGUMENTS, msg).with_hint(say(|v| match v {
                Voice::Cli => {
                    "after --, give one shell line ('make && make test') or a program and its arguments".into()
                }
                Voice::Mcp => {
                    "give command, one shell line ('make && make test'), or argv, a program and its arguments".into()
                }
            })),
            CommandError::TooLong => {
                AideError::new(code::INVALID_ARGUMENTS, msg).with_hint("put a long script in a file and run the file")
            }
        }
    }
}

/// Why a path (or the root itself) is refused.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error("{path}: {why}")]
    Outside { path: String, why: String },
    #[error("{path} is a directory")]
    Directory { path: String },
    #[error("{path} is a {kind}, not a regular file")]
    NotRegular { path: String, kind: &'static str },
    #[error("root {shown} is not a directory")]
    RootNotADirectory { shown: String },
    #[error("empty path")]
    EmptyPath,
}

impl From<RootError> for AideError {
    fn from(e: RootError) -> AideError {
        let msg = e.to_string();
        match e {
            RootError::Outside { path, .. } => AideError::new(code::PATH_OUTSIDE_ROOT, msg)
                .with_hint(say(|v| {
                    format!("give a path inside {root}, or pass a {root} that contains it", root = v.arg("root"))
                }))
                .with_details(json!({ "path": path })),
            RootError::Directory { path } => AideError::new(code::NOT_A_REGULAR_FILE, msg)
                .with_hint(say(|v| {
                    format!("name a file; list a directory with {}", v.pick("llm-discover", "discover"))
                }))
                .with_details(json!({ "path": path, "kind": "directory" })),
            RootError::NotRegular { path, kind } => AideError::new(code::NOT_A_REGULAR_FILE, msg)
                .with_hint("the tools read and write regular files only")
                .with_details(json!({ "path": path, "kind": kind })),
            RootError::RootNotADirectory { .. } => {
                AideError::new(code::INVALID_ARGUMENTS, msg).with_hint("--root must name a directory")
            }
            RootError::EmptyPath => AideError::new(code::INVALID_ARGUMENTS, msg)
                .with_hint(say(|v| format!("give a path relative to {}", v.arg("root")))),
        }
    }
}

/// Why a walk's filters are refused.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("invalid glob `{glob}`: {message}")]
    InvalidGlob { glob: String, message: String },
    /// The globs, each valid, do not build into one matcher.
    #[error("{message}")]
    GlobSet { message: String },
}

impl From<WalkError> for AideError {
    fn from(e: WalkError) -> AideError {
        let msg = e.to_string();
        match e {
            WalkError::InvalidGlob { glob, .. } => AideError::new(code::INVALID_GLOB, msg)
                .with_hint("globs use gitignore syntax, e.g. `*.rs`, `src/**/*.py`, `!tests/`")
                .with_details(json!({ "glob": glob })),
            WalkError::GlobSet { .. } => AideError::new(code::INVALID_GLOB, msg),
        }
    }
}

/// Why a time or a duration does not parse.
#[derive(Debug, thiserror::Error)]
pub enum TimeError {
    #[error("`{given}` is neither a time nor a duration")]
    NotATime { given: String },
    #[error("`{given}` is not a duration: {message}")]
    NotADuration { given: String, message: String },
}

impl From<TimeError> for AideError {
    fn from(e: TimeError) -> AideError {
        let hint = match e {
            TimeError::NotATime { .. } => "use RFC 3339 like 2026-01-20T18:30:00Z, or a duration ago like 2h or 7d",
            TimeError::NotADuration { .. } => "use a duration like 30s, 10min, 12h or 7d",
        };
        AideError::new(code::INVALID_ARGUMENTS, e.to_string()).with_hint(hint)
    }
}

/// A `--type` or `--language` that names no known language.
#[derive(Debug, thiserror::Error)]
#[error("unknown language `{given}`")]
pub struct LangError {
    pub given: String,
}

impl From<LangError> for AideError {
    fn from(e: LangError) -> AideError {
        let known: Vec<_> = crate::Lang::ALL.iter().map(|l| l.name()).collect();
        AideError::new(code::UNKNOWN_LANGUAGE, e.to_string()).with_hint(format!("use one of: {}", known.join(", ")))
    }
}

/// Why a tool's context refuses a path.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// `what` at `path` is outside the roots a server confines its calls to.
    #[error("{what} is outside the roots this server may use")]
    OutsideRoots { what: String, path: String, roots: Vec<String> },
}

impl From<ToolError> for AideError {
    fn from(e: ToolError) -> AideError {
        let msg = e.to_string();
        match e {
            ToolError::OutsideRoots { path, roots, .. } => AideError::new(code::PATH_OUTSIDE_ROOT, msg)
                .with_hint(format!("only what lies under {} is reachable here", roots.join(" or ")))
                .with_details(json!({ "path": path, "roots": roots })),
        }
    }
}

/// Why a text is refused before it is analysed.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error("{what} nests {depth} levels deep; at most {} are analysed", crate::text::MAX_NESTING)]
    TooDeep { what: String, depth: usize },
}

impl From<TextError> for AideError {
    fn from(e: TextError) -> AideError {
        AideError::new(code::INPUT_TOO_DEEP, e.to_string()).with_hint("flatten it, or split it into several parts")
    }
}
