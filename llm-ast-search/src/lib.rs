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
//!   Impl, Class, Module, Namespace, Constant, Static (a global variable:
//!   Rust `static`, Go package-level `var`, C/C++ file- and namespace-scope
//!   variables, one symbol per declarator), Macro, Field, Variant,
//!   Declaration (a C/C++ prototype or `extern` variable). A symbol's span is its grammar node:
//!   attributes and decorators outside it (Rust `#[…]`, Python `@…`, `export`)
//!   are not included.
//! * Every symbol, capture and reference carries `checksum`, the SHA-256 of
//!   its file as parsed: what llm-transform takes to edit the span.
//! * A top-level symbol says whether its file exports it (`exported`, by
//!   the language's rule: [`exports`]). The text outline of a folder or of
//!   several files lists only those, each file's names by kind with their
//!   start lines, and says how many it left out; one file, `--all`,
//!   `--kind`, `--name` and `--depth` list every symbol, as JSON always does.
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
mod dialect;
mod engine;
mod error;
pub mod exports;
mod files;
mod language;
pub mod lsp;
mod outline_text;
mod output;
mod query;
mod receiver;
mod refs;
mod request;
mod resolve;
mod scopes;
mod source;
mod symbols;
mod tree;
mod typed;
mod validate;
mod warm;

use aide_core::AideError;
use aide_core::operation::{Group, Operation, READS};
use aide_core::tool::{Context, Outcome, Tool};

pub use engine::{Engine, Found, run};
pub use outline_text::OutlineView;
pub use output::{AstOutput, FileValidation, Page};

// The surface other crates build on (llm-transform's block edits, rewrites
// and renames; the MCP server's warm cache): parsing, outlines, queries,
// references and what they resolve to.
pub use error::AstError;
pub use files::{Scope, is_token_at, open_source, read_source};
pub use language::{parse as parse_source, parse_with_mimalloc, reparse as reparse_source};
pub use query::{CompiledQuery, compile as compile_query, required_literal, too_deep_for};
pub use refs::{LINE_TEXT_CHARS, RefKind};
pub use request::AstRequest;
use request::dialect_arguments;
pub use resolve::{
    FileFacts, NotOne, Resolution, Resolver, SymbolQuery, SymbolScope, Target, facts as file_facts, member_owner,
};
pub use scopes::{Locals, in_comment_or_string};
pub use source::SourceFile;
pub use symbols::{NameMatch, Symbol, SymbolKind, body_of, body_start, leading_start, outline, with_symbol_node};
pub use validate::{SyntaxIssue, syntax_issues};
pub use warm::keep_parsed_files;

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

    /// A language server's keeper runs from this same binary, out of sight of the CLI.
    fn outside_harness() -> Option<i32> {
        lsp::keeper::run_internal_command()
    }

    fn run(request: AstRequest, ctx: &Context) -> Result<Outcome<AstOutput>, AideError> {
        run(&request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &AstRequest) -> bool {
        true
    }
}
