//! # llm-ast-search: code structure in one call
//!
//! Tree-sitter parses Rust, Python, TypeScript, TSX, JavaScript, C, C++,
//! Java and Go (detected by extension; `--language` overrides). One run does
//! one of nine things, chosen by its flags:
//!
//! | flags | mode | result |
//! |---|---|---|
//! | `--language L --query Q` | `query` | every capture of a tree-sitter query |
//! | `[--symbols] [PATH…]` (the default) | `symbols` | the outline: every definition with a normalized kind |
//! | `--definitions NAME` | `definitions` | where a name is defined |
//! | `--references NAME` | `references` | where a name is used |
//! | `--implementations NAME` | `implementations` | what implements a trait, interface, class or method |
//! | `--hover NAME` | `hover` | type, signature and docs of a name's definitions |
//! | `--callers NAME` | `callers` | who calls a function or method: each call with its caller |
//! | `--validate PATH…` | `validate` | every syntax error (exit 3 if any) |
//! | `--dialect PROGRAM` | `dialect` | the value of a Dialect program ([`dialect`]) |
//!
//! ## Wire format (`--json`), inside the aide envelope
//!
//! ```json
//! { "mode": "query",
//!   "symbols": [ { "symbol": "foo", "kind": "Function", "capture": "name",
//!                  "node_kind": "identifier", "path": "src/main.rs",
//!                  "checksum": "<sha256 of the file>", "byte_start": 100, "byte_end": 103, "line": 5, "column": 4,
//!                  "end_line": 5, "end_column": 7 } ],
//!   "total": 1, "files_parsed": 3, "truncated": false, "next_offset": null, "totals_exact": true }
//!
//! { "mode": "symbols",
//!   "symbols": [ { "path": "src/agent.rs", "name": "run", "kind": "Method",
//!                  "node_kind": "function_item", "name_path": "impl Agent/run",
//!                  "parent": "impl Agent", "depth": 2, "byte_start": 120,
//!                  "byte_end": 410, "line": 9, "column": 5, "end_line": 20,
//!                  "end_column": 6, "signature": "pub async fn run(mut self) -> Result<()>" } ],
//!   "name_match": null, "total": 1, "files_parsed": 1, … }
//!
//! { "mode": "definitions", "name": "run", "matching": "by_name",
//!   "definitions": [ <symbol> ], … }
//!
//! { "mode": "references", "name": "Agent/run", "matching": "definition",
//!   "references": [ { "path", "name", "kind": "call", "byte_start", …,
//!                     "enclosing": "main", "enclosing_kind": "Function",
//!                     "line_text": "    agent.run().await?;", "checksum": "…",
//!                     "matched": "name_only" } ], … }
//!
//! { "mode": "implementations", "name": "Shape/area", "engine": "lsp",
//!   "definitions": [ <symbol>, … ], … }
//!
//! { "mode": "hover", "name": "Flask/add_rule", "engine": "lsp",
//!   "definitions": [ <symbol> ], "hover": [ "(method) def add_rule(self) -> None" ] }
//!
//! { "mode": "callers", "name": "Agent/run", "engine": "syntax", "matching": "definition",
//!   "calls": [ { "path", "name": "run", "byte_start", …, "line_text", "checksum",
//!                "matched": "resolved", "engine": "syntax",
//!                "caller": <symbol, or null at module level> } ], … }
//!
//! { "mode": "validate", "valid": false, "invalid_files": 1,
//!   "files": [ { "path": "src/a.rs", "language": "rust", "valid": false,
//!                "errors": [ { "kind": "missing", "message": "missing `;`",
//!                              "byte_start": 30, "byte_end": 30, "line": 2, … } ] } ] }
//!
//! { "mode": "dialect", "program": "findDefinitions(`Agent`)", "value": [ … ] }
//! ```
//!
//! * Results are sorted by (path, byte_start); spans are byte offsets into
//!   the file, lines and columns 1-based (see docs/CONTRACT.md).
//! * Symbol kinds: Function, Method (a function inside a class, impl, trait,
//!   interface or type), Struct, Enum, Union, TypeAlias, Trait, Interface,
//!   Impl, Class, Module, Namespace, Constant, Static, Macro, Field, Variant,
//!   Declaration (a C/C++ prototype). A symbol's span is its grammar node:
//!   attributes and decorators outside it (Rust `#[…]`, Python `@…`, `export`)
//!   are not included.
//! * Every symbol, capture and reference carries `checksum`, the SHA-256 of
//!   its file as parsed: what llm-transform takes to edit the span.
//! * Definitions match by name or name path. References of a name that
//!   names one definition (`matching: "definition"`) are its uses, judged by
//!   scope, receiver and qualifier ([`resolve`]), each `matched`
//!   `resolved`, `name_only` or `unresolved`; uses that mean another symbol
//!   (a local of that name, another type's member) are left out. Otherwise
//!   (`by_name`) every identifier spelled like the name is a reference
//!   (`unresolved` when the name has several definitions). Never in a
//!   comment or string; typed by the tags queries where they say more.
//! * NAME may be a place instead, `PATH:LINE:COLUMN` (1-based, the column in
//!   characters, as records give them): the symbol whose name is written
//!   there, a use or a definition. Its language server is asked about the
//!   place itself; the syntax engine goes by the name written there.
//! * `--callers` lists each call of the symbol (in path and byte order)
//!   with its caller, the innermost function, method or other body holding
//!   it, `null` at module level; which sites are its calls, the syntax
//!   engine decides (its references that are calls, judged as references
//!   are) or its server's call hierarchy (see [`callers`]).
//! * `engine` says who answered references, callers, implementations and hover:
//!   `syntax`, or `lsp` (the language's server, see [`lsp`]); `--engine`
//!   chooses (`syntax` by default); a server `lsp` asked for but absent,
//!   or one failing, is a diagnostic (`lsp_unavailable`, `lsp_failed`).
//! * A file with syntax errors is still searched and gives a `parse_error`
//!   diagnostic; unreadable, binary and UTF-16 files give diagnostics too.
//! * `--limit` stops the parsing once its page is certain and one more
//!   result shows that more remain — for definitions (once more exact
//!   definitions than the page needs are in: no tier beats exact) and the
//!   text outline. `total` and `files_parsed` then count the files up to
//!   there and `totals_exact` is false (text says "at least").
//! * Text and JSONL print exact definitions as their files come in path
//!   order (lower name-match tiers, only shown when no exact one exists,
//!   at the end): the same records and order as `--json`.
//!
//! Exit status: 0 with results, 1 without, 2 for invalid input
//! (`invalid_query`, `invalid_program`, `unknown_language`…), 3 when
//! `--validate` finds a syntax error, 4 for a runtime failure.

mod backend;
mod callers;
pub mod dialect;
mod engine;
mod error;
mod files;
mod language;
pub mod lsp;
mod output;
mod query;
mod receiver;
mod refs;
mod resolve;
mod scopes;
mod source;
mod symbols;
mod tree;
mod typed;
mod validate;
mod warm;

use std::path::PathBuf;

use aide_core::AideError;
use aide_core::operation::{Group, Operation, READS};
use aide_core::tool::{Context, Outcome, Tool};
use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use engine::{Engine, Found, run};
pub use output::{AstOutput, FileValidation, Page};

// The surface other crates build on (llm-transform's block edits, rewrites
// and renames; the MCP server's warm cache): parsing, outlines, queries,
// references and what they resolve to.
pub use error::AstError;
pub use files::{Scope, is_token_at, open_source, read_source};
pub use language::{parse as parse_source, reparse as reparse_source};
pub use query::{CompiledQuery, compile as compile_query, required_literal, too_deep_for};
pub use refs::{LINE_TEXT_CHARS, RefKind};
pub use resolve::{
    FileFacts, NotOne, Resolution, Resolver, SymbolQuery, SymbolScope, Target, facts as file_facts, member_owner,
};
pub use scopes::{Locals, in_comment_or_string};
pub use source::SourceFile;
pub use symbols::{NameMatch, Symbol, SymbolKind, body_start, leading_start, outline, with_symbol_node};
pub use validate::{SyntaxIssue, syntax_issues};
pub use warm::keep_parsed_files;

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
struct DialectArguments {
    /// The Dialect program, e.g. "findReferences(findDefinition(`f`))". Several
    /// expressions may be separated by `;`.
    program: String,
    /// The tree to run it in, relative to the server's root (default: the root).
    root: Option<String>,
}

fn dialect_arguments() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(DialectArguments)).unwrap_or_default()
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for AstRequest {}

fn default_max_text() -> usize {
    200
}

/// The mode a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
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
    fn mode(&self) -> Result<Mode, AideError> {
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

/// The `llm-ast-search` tool.
#[derive(Debug)]
pub struct LlmAstSearch;

impl Tool for LlmAstSearch {
    const NAME: &'static str = "llm-ast-search";
    const SUMMARY: &'static str =
        "Tree-sitter structural search, symbols, definitions and references, syntax validation.";
    const OPERATIONS: &'static [Operation] = &[
        Operation {
            name: "ast_search",
            tool: Self::NAME,
            command: &[],
            group: Group::Search,
            description: "Code structure by tree-sitter: outline; definitions, references, callers, implementations or hover of a name, name path (Type/method) or place (path:line:col); queries; syntax errors.",
            effects: READS,
            output: &["symbols", "definitions", "references", "calls", "-calls", "valid"],
            mcp_defaults: &[("compact", true)],
            mcp: aide_core::operation::Mcp { leaves_out: &["dialect"], ..aide_core::operation::Mcp::DERIVED },
        },
        Operation {
            name: "ide_operation",
            tool: Self::NAME,
            command: &["--dialect"],
            group: Group::Search,
            description: "Chains lookups in one call: findDefinitions(`Name`), findReferences(`n`), findCallers(`f`), search(`path`, `regex`, `glob`), lines(`path`, start, end), nested: findReferences(findDefinition(`f`)). One lookup: ast_search.",
            effects: READS,
            output: &["program"],
            mcp_defaults: &[],
            mcp: aide_core::operation::Mcp {
                arguments: Some(aide_core::operation::OwnArguments {
                    schema: dialect_arguments,
                    fills: &[("program", "dialect")],
                }),
                ..aide_core::operation::Mcp::DERIVED
            },
        },
    ];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str =
        "Structural code search with tree-sitter: queries, symbols, definitions, references, validation, Dialect.";
    const TUNE_ALLOCATOR: bool = true;
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] =
        &[("file_glob", "glob"), ("path", "paths"), ("program", "dialect"), ("lang", "language")];
    type Request = AstRequest;
    type Output = AstOutput;

    fn run(request: AstRequest, ctx: &Context) -> Result<Outcome<AstOutput>, AideError> {
        run(&request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &AstRequest) -> bool {
        true
    }
}
