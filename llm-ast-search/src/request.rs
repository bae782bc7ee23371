//! What an ast-search asks: the query or pattern, the mode, the scope, and how much comes back.

use crate::error::AstError;
use crate::lsp;
use aide_core::AideError;
use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AstRequest {
    /// Files or folders to look in, relative to --root (default: all of it).
    #[arg(value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    /// Directory to work in; every path in the output is relative to it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The language: only its files are read, and files named as PATH are
    /// parsed as it whatever their extension. Required with --query.
    #[arg(long, short = 'l', value_name = "LANG")]
    pub language: Option<String>,
    /// A tree-sitter query: its captures.
    #[arg(long, short = 'q', value_name = "TS_QUERY")]
    pub query: Option<String>,
    /// The outline (the default).
    #[arg(long)]
    pub symbols: bool,
    /// Definitions of NAME. A name path
    /// such as `Agent/run` or `ns::K::m` matches by its end too. A place,
    /// `PATH:LINE:COLUMN`, asks where the name used there is defined (its
    /// language server answers where --engine allows one).
    #[arg(long, value_name = "NAME")]
    pub definitions: Option<String>,
    /// References to NAME.
    /// NAME may be a place, `PATH:LINE:COLUMN`, as for the other lookups.
    #[arg(long, value_name = "NAME")]
    pub references: Option<String>,
    /// What implements NAME. Its
    /// language server answers where --engine allows one; else declaration
    /// heads do (`impl T for X`, `class X(T)`, `implements T`), one level.
    #[arg(long, value_name = "NAME")]
    pub implementations: Option<String>,
    /// Type, signature, docs of NAME. From its language
    /// server where --engine allows one; else the declaration head.
    #[arg(long, value_name = "NAME")]
    pub hover: Option<String>,
    /// Calls of NAME, each with its caller. NAME may be a name path
    /// or a place; the caller is the function or method holding the call
    /// (null at module level). By its language server's call hierarchy
    /// where --engine allows one; else the calls among NAME's references.
    #[arg(long, value_name = "NAME")]
    pub callers: Option<String>,
    /// References: the definitions too. They are
    /// references of kind `definition`.
    #[arg(long)]
    pub include_definition: bool,
    /// Syntax errors. Exit 3 if there is any.
    #[arg(long)]
    pub validate: bool,
    /// Run a Dialect program, e.g. "findReferences(findDefinition(`validateToken`))".
    #[arg(long, value_name = "PROGRAM")]
    pub dialect: Option<String>,
    /// Symbols: only these kinds (function, method, struct, …). Repeatable.
    #[arg(long, value_name = "KIND")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub kind: Vec<String>,
    /// Symbols: only those named NAME (`Class/*`: its members). An exact
    /// name or name path first, then the end of a name path, then a part of
    /// the name.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Symbols: levels of nesting (1: top level).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Symbols: dense text (`impl A:2-6 {new:3}`).
    /// A container's members go on its line with their start lines; JSON
    /// keeps every full range. The MCP text block of an outline uses it
    /// unless `compact: false`.
    #[arg(long)]
    pub compact: bool,
    /// Symbols: every symbol in the text outline of a folder or of several
    /// files, which otherwise lists only their exported top-level symbols
    /// (Rust `pub…`, `export`, Python's public names or `__all__`, Go's
    /// capitalised, Java's `public`, C/C++ not `static`) by kind, each with
    /// its start line. A single file, `--kind`, `--name` and `--depth` show
    /// every symbol anyway; JSON always holds them all.
    #[arg(long)]
    pub all: bool,
    /// Who answers --references, --callers, --implementations and --hover: `syntax`
    /// (default), `lsp` (the language's server, kept warm per root; without
    /// one, the syntax engine with an `lsp_unavailable` diagnostic) or
    /// `auto` (a server where one is installed).
    #[arg(long, value_enum, default_value_t)]
    pub engine: lsp::CodeEngine,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// At most this many results, counted after sorting.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip this many results first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Cut captures past this many characters (0: never).
    #[arg(long, value_name = "CHARS", default_value_t = 200)]
    #[serde(default = "default_max_text")]
    pub max_text: usize,
    /// Worker threads (default: the number of CPUs). The output does not
    /// depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// The arguments of `ide_operation` (seed 001), llm-ast-search's Dialect
/// mode: the program fills the request's `dialect`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // Only its schema is used: the call becomes the request.
pub(crate) struct DialectArguments {
    /// The Dialect program, e.g. "findReferences(findDefinition(`f`))". Several
    /// expressions may be separated by `;`.
    program: String,
    /// The tree to run it in, relative to the server's root (default: the root).
    root: Option<String>,
}

pub(crate) fn dialect_arguments() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(DialectArguments)).unwrap_or_default()
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for AstRequest {}

pub(crate) fn default_max_text() -> usize {
    200
}

/// The mode a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Query,
    Symbols,
    Definitions,
    References,
    Implementations,
    Hover,
    Callers,
    Validate,
    Dialect,
}

impl AstRequest {
    pub(crate) fn mode(&self) -> Result<Mode, AideError> {
        let given: Vec<(Mode, &'static str)> = [
            (self.query.is_some(), Mode::Query, "query"),
            (self.symbols, Mode::Symbols, "symbols"),
            (self.definitions.is_some(), Mode::Definitions, "definitions"),
            (self.references.is_some(), Mode::References, "references"),
            (self.implementations.is_some(), Mode::Implementations, "implementations"),
            (self.hover.is_some(), Mode::Hover, "hover"),
            (self.callers.is_some(), Mode::Callers, "callers"),
            (self.validate, Mode::Validate, "validate"),
            (self.dialect.is_some(), Mode::Dialect, "dialect"),
        ]
        .into_iter()
        .filter(|(on, ..)| *on)
        .map(|(_, m, field)| (m, field))
        .collect();
        match given.as_slice() {
            [] => Ok(Mode::Symbols),
            [(m, _)] => Ok(*m),
            several => Err(AstError::ModesCombined { fields: several.iter().map(|(_, f)| *f).collect() }.into()),
        }
    }
}
