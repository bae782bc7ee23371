//! Every way llm-ast-search refuses a request, as one enum converted once
//! into the contract's [`AideError`].

use aide_core::voice::{Voice, say};
use aide_core::{AideError, Lang, code};
use serde_json::json;
use tree_sitter::QueryErrorKind;

#[derive(Debug, thiserror::Error)]
pub enum AstError {
    #[error("{}", combined(Voice::Cli, .fields))]
    ModesCombined { fields: Vec<&'static str> },
    #[error("{} needs {}", Voice::Cli.arg("query"), Voice::Cli.arg("language"))]
    QueryWithoutLanguage,
    #[error("{} needs the files to check", Voice::Cli.arg("validate"))]
    ValidateWithoutFiles,
    #[error("the name to look up is empty")]
    EmptyName { example: &'static str },
    #[error("unknown symbol kind `{given}`")]
    UnknownKind { given: String, known: Vec<&'static str> },
    #[error("{path}: {message}")]
    PathUnreadable { path: String, message: String },
    #[error("cannot tell the language of {path} from its extension")]
    UnknownLanguage { path: String },
    #[error("invalid {lang} query: {} at line {line}, column {column}{}", kind_name(.kind),
        if .message.is_empty() { String::new() } else { format!(": {}", .message.trim()) })]
    InvalidQuery { lang: Lang, kind: QueryErrorKind, line: usize, column: usize, offset: usize, message: String },
    #[error("{message} (at {line}:{column})")]
    InvalidProgram { message: String, line: usize, column: usize, offset: usize, snippet: String },
    #[error("{path} has {line_count} lines; line {start} does not exist")]
    NoSuchLine { path: String, line_count: usize, start: usize },
    #[error("no name at {place}")]
    NoNameAt { place: String },
    #[error("search()'s glob `{glob}` excludes: it names the files to search")]
    ExcludingGlob { glob: String },
}

/// The modes given together, as the caller names them.
fn combined(v: Voice, fields: &[&str]) -> String {
    let named: Vec<String> = fields.iter().map(|f| v.arg(f)).collect();
    format!("{} cannot be combined", named.join(" and "))
}

fn kind_name(kind: &QueryErrorKind) -> &'static str {
    match kind {
        QueryErrorKind::Syntax => "syntax error",
        QueryErrorKind::NodeType => "unknown node kind",
        QueryErrorKind::Field => "unknown field",
        QueryErrorKind::Capture => "unknown capture",
        QueryErrorKind::Predicate => "invalid predicate",
        QueryErrorKind::Structure => "impossible pattern structure",
        QueryErrorKind::Language => "language mismatch",
    }
}

impl From<AstError> for AideError {
    fn from(e: AstError) -> AideError {
        use AstError as E;
        let error = |c| AideError::new(c, e.to_string());
        match &e {
            E::ModesCombined { fields } => AideError::new(code::INVALID_ARGUMENTS, say(|v| combined(v, fields)))
                .with_hint("one run does one thing: query, symbols, definitions, references, callers, implementations, hover, validate or dialect"),
            E::QueryWithoutLanguage => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} needs {}", v.arg("query"), v.arg("language"))))
                    .with_hint(say(|v| {
                        format!("a query is written against one grammar, e.g. {}", v.arg_is("language", "rust"))
                    }))
            }
            E::ValidateWithoutFiles => {
                AideError::new(code::INVALID_ARGUMENTS, say(|v| format!("{} needs the files to check", v.arg("validate"))))
                    .with_hint(say(|v| match v {
                        Voice::Cli => "name files or folders: llm-ast-search --validate src/main.rs (or --root DIR for a whole tree)".into(),
                        Voice::Mcp => format!("name files or folders in {} (or a {} for a whole tree)", v.arg("paths"), v.arg("root")),
                    }))
            }
            E::EmptyName { example } => {
                error(code::INVALID_ARGUMENTS).with_hint(format!("give a name such as {example}"))
            }
            E::UnknownKind { given, known } => {
                let hint = match aide_core::suggest::closest(given, known.iter().copied()) {
                    Some(c) => format!("did you mean `{c}`? Kinds: {}", known.join(", ")),
                    None => format!("kinds: {}", known.join(", ")),
                };
                error(code::INVALID_ARGUMENTS).with_hint(hint)
            }
            E::PathUnreadable { .. } => error(code::NOT_FOUND)
                .with_hint(say(|v| format!("paths are relative to {}", v.arg("root")))),
            E::UnknownLanguage { .. } => {
                error(code::UNKNOWN_LANGUAGE).with_hint(say(|v| format!("name it with {}", v.arg("language"))))
            }
            E::InvalidQuery { lang, kind, line, column, offset, .. } => error(code::INVALID_QUERY)
                .with_hint(match kind {
                    QueryErrorKind::NodeType | QueryErrorKind::Field => format!(
                        "node kinds and fields are the {lang} grammar's; find them with a query like `(_) @n` on a sample"
                    ),
                    _ => "queries use tree-sitter's S-expression syntax, e.g. `(function_item name: (identifier) @name)`"
                        .into(),
                })
                .with_details(json!({ "line": line, "column": column, "offset": offset, "kind": kind_name(kind) })),
            E::InvalidProgram { line, column, offset, snippet, .. } => error(code::INVALID_PROGRAM)
                .with_hint(say(|v| {
                    let where_ = v.pick("`llm-ast-search --help`", "ide_operation's description");
                    format!("details.snippet marks the spot; {where_} describes the Dialect")
                }))
                .with_details(json!({ "line": line, "column": column, "offset": offset, "snippet": snippet })),
            E::NoNameAt { .. } => error(code::INVALID_ARGUMENTS).with_hint(
                "PATH:LINE:COLUMN names the identifier it stands in or just after (1-based, the column in characters, as records give them)",
            ),
            E::ExcludingGlob { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("give the files to include, e.g. search(`src`, `TODO`, `*.rs`)"),
            E::NoSuchLine { line_count, .. } => {
                error(code::INVALID_ARGUMENTS).with_hint(format!("ask for lines 1 to {line_count}"))
            }
        }
    }
}
