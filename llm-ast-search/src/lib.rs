//! # llm-ast-search: code structure in one call
//!
//! Tree-sitter parses Rust, Python, TypeScript, TSX, JavaScript, C, C++,
//! Java and Go (detected by extension; `--language` overrides). One run does
//! one of six things, chosen by its flags:
//!
//! | flags | mode | result |
//! |---|---|---|
//! | `--language L --query Q` | `query` | every capture of a tree-sitter query |
//! | `[--symbols] [PATH…]` (the default) | `symbols` | the outline: every definition with a normalized kind |
//! | `--definitions NAME` | `definitions` | where a name is defined |
//! | `--references NAME` | `references` | where a name is used |
//! | `--validate PATH…` | `validate` | every syntax error (exit 3 if any) |
//! | `--dialect PROGRAM` | `dialect` | the value of a Dialect program ([`dialect`]) |
//!
//! ## Wire format (`--json`), inside the aide envelope
//!
//! ```json
//! { "mode": "query",
//!   "symbols": [ { "symbol": "foo", "kind": "Function", "capture": "name",
//!                  "node_kind": "identifier", "path": "src/main.rs",
//!                  "byte_start": 100, "byte_end": 103, "line": 5, "column": 4,
//!                  "end_line": 5, "end_column": 7 } ],
//!   "total": 1, "files_parsed": 3, "truncated": false, "next_offset": null }
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
//! { "mode": "references", "name": "run", "matching": "by_name",
//!   "references": [ { "path", "name", "kind": "call", "byte_start", …,
//!                     "enclosing": "main", "enclosing_kind": "Function",
//!                     "line_text": "    agent.run().await?;" } ], … }
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
//! * Definitions and references match by name, not by type resolution: every
//!   identifier spelled like the name (never in a comment or string) is a
//!   reference, typed by the tags queries where they say more.
//! * A file with syntax errors is still searched and gives a `parse_error`
//!   diagnostic; unreadable, binary and UTF-16 files give diagnostics too.
//!
//! Exit status: 0 with results, 1 without, 2 for invalid input
//! (`invalid_query`, `invalid_program`, `unknown_language`…), 3 when
//! `--validate` finds a syntax error, 4 for a runtime failure.

pub mod dialect;
pub mod files;
pub mod language;
pub mod query;
pub mod refs;
pub mod symbols;
pub mod validate;

use aide_core::text::escape_controls;
use std::io::{self, Write};
use std::path::PathBuf;

use aide_core::cli::{Render, RunContext, Tool};
use aide_core::walk::WalkArgs;
use aide_core::{AideError, Lang, Root, code};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::files::Scope;
use crate::refs::Reference;
use crate::symbols::{NameMatch, Symbol, SymbolKind};
use crate::validate::SyntaxIssue;

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
    /// Run a tree-sitter query (S-expression) and report every capture.
    #[arg(long, short = 'q', value_name = "TS_QUERY")]
    pub query: Option<String>,
    /// List symbols (the default when no other mode is given).
    #[arg(long)]
    pub symbols: bool,
    /// Find the definitions of NAME (a name, or the end of a name path such as
    /// `Agent/run` or `ns::K::m`).
    #[arg(long, value_name = "NAME")]
    pub definitions: Option<String>,
    /// Find the references to NAME (its uses; see --include-definition).
    #[arg(long, value_name = "NAME")]
    pub references: Option<String>,
    /// With --references: list the places that define NAME too, as
    /// references of kind `definition`.
    #[arg(long)]
    pub include_definition: bool,
    /// Report every syntax error of the files; exit 3 if there is any.
    #[arg(long)]
    pub validate: bool,
    /// Run a Dialect program, e.g. "findReferences(findDefinition(`validateToken`))".
    #[arg(long, value_name = "PROGRAM")]
    pub dialect: Option<String>,
    /// Symbols: only these kinds (Function, Method, Struct, …; repeatable).
    #[arg(long, value_name = "KIND")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub kind: Vec<String>,
    /// Symbols: only those named NAME (exact name or name path first, then
    /// the end of a name path, then a part of the name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Symbols: only this many levels of nesting (1: top level).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// At most this many results, counted after sorting.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip this many results first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Cut captured text longer than this many characters (0: never).
    #[arg(long, value_name = "CHARS", default_value_t = 200)]
    #[serde(default = "default_max_text")]
    pub max_text: usize,
    /// Worker threads (default: the number of CPUs). The output does not
    /// depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

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
    Validate,
    Dialect,
}

impl AstRequest {
    fn mode(&self) -> Result<Mode, AideError> {
        let given: Vec<(Mode, &str)> = [
            (self.query.is_some(), Mode::Query, "--query"),
            (self.symbols, Mode::Symbols, "--symbols"),
            (self.definitions.is_some(), Mode::Definitions, "--definitions"),
            (self.references.is_some(), Mode::References, "--references"),
            (self.validate, Mode::Validate, "--validate"),
            (self.dialect.is_some(), Mode::Dialect, "--dialect"),
        ]
        .into_iter()
        .filter(|(on, ..)| *on)
        .map(|(_, m, flag)| (m, flag))
        .collect();
        match given.as_slice() {
            [] => Ok(Mode::Symbols),
            [(m, _)] => Ok(*m),
            several => {
                let flags: Vec<&str> = several.iter().map(|(_, f)| *f).collect();
                Err(AideError::new(code::INVALID_ARGUMENTS, format!("{} cannot be combined", flags.join(" and ")))
                    .with_hint("one run does one thing: query, symbols, definitions, references, validate or dialect"))
            }
        }
    }
}

/// The result of a run, by mode.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum AstOutput {
    Query {
        symbols: Vec<query::Capture>,
        #[serde(flatten)]
        page: Page,
    },
    Symbols {
        symbols: Vec<Symbol>,
        /// How --name matched (exact, path_suffix or substring), when given.
        name_match: Option<NameMatch>,
        #[serde(flatten)]
        page: Page,
        /// The text outline was printed file by file as it was found (text
        /// mode without --name); `symbols` is then empty and the counts stand.
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        streamed: bool,
    },
    Definitions {
        name: String,
        /// Always `by_name`: definitions are found by their name, not by type resolution.
        matching: String,
        name_match: Option<NameMatch>,
        definitions: Vec<Symbol>,
        #[serde(flatten)]
        page: Page,
    },
    References {
        name: String,
        /// Always `by_name`: every identifier spelled like the name, outside
        /// comments and strings, not resolved by type.
        matching: String,
        /// Whether the places that define the name are listed too (as
        /// references of kind `definition`; `--include-definition`).
        includes_definitions: bool,
        references: Vec<Reference>,
        #[serde(flatten)]
        page: Page,
    },
    Validate {
        valid: bool,
        invalid_files: usize,
        files: Vec<FileValidation>,
    },
    Dialect {
        program: String,
        value: Value,
    },
}

/// Counts and paging shared by the list modes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Page {
    /// Results before --limit/--offset.
    pub total: usize,
    pub files_parsed: usize,
    pub truncated: bool,
    /// Pass as --offset to get the next page.
    pub next_offset: Option<usize>,
}

/// The syntax errors of one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileValidation {
    pub path: String,
    pub language: Lang,
    pub valid: bool,
    pub errors: Vec<SyntaxIssue>,
}

/// Cuts `items` to the requested page.
fn page<T>(items: Vec<T>, req: &AstRequest, files_parsed: usize) -> (Vec<T>, Page) {
    let total = items.len();
    let rest: Vec<T> = items.into_iter().skip(req.offset).collect();
    let take = req.limit.unwrap_or(usize::MAX);
    let truncated = rest.len() > take;
    let shown: Vec<T> = rest.into_iter().take(take).collect();
    let next_offset = truncated.then_some(req.offset + shown.len());
    (shown, Page { total, files_parsed, truncated, next_offset })
}

impl Render for AstOutput {
    fn render_text(&self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            AstOutput::Query { symbols, page } => {
                for c in symbols {
                    let first = c.symbol.lines().next().unwrap_or("");
                    writeln!(
                        w,
                        "{}:{}:{}: @{} {}: {first}",
                        escape_controls(&c.path),
                        c.span.line,
                        c.span.column,
                        c.capture,
                        c.node_kind
                    )?;
                }
                truncated_note(w, page)
            }
            AstOutput::Symbols { symbols, page, .. } => {
                let mut last_path: Option<&str> = None;
                for s in symbols {
                    if last_path != Some(&*s.path) {
                        writeln!(w, "{}", escape_controls(&s.path))?;
                        last_path = Some(&s.path);
                    }
                    write_outline_line(w, s)?;
                }
                truncated_note(w, page)
            }
            AstOutput::Definitions { definitions, page, .. } => {
                for s in definitions {
                    writeln!(
                        w,
                        "{}:{}:{}: {} {} [{}-{}]  {}",
                        escape_controls(&s.path),
                        s.span.line,
                        s.span.column,
                        s.kind,
                        s.name_path,
                        s.span.line,
                        s.span.end_line,
                        s.signature
                    )?;
                }
                truncated_note(w, page)
            }
            AstOutput::References { name, references, page, includes_definitions, .. } => {
                if !includes_definitions {
                    writeln!(w, "(uses of `{name}` only; --include-definition adds where it is defined)")?;
                }
                for r in references {
                    let inside = r.enclosing.as_deref().map(|e| format!(" in {e}")).unwrap_or_default();
                    writeln!(
                        w,
                        "{}:{}:{}: [{}]{inside}: {}",
                        escape_controls(&r.path),
                        r.span.line,
                        r.span.column,
                        r.kind,
                        r.line_text.trim()
                    )?;
                }
                truncated_note(w, page)
            }
            AstOutput::Validate { files, .. } => {
                for f in files {
                    if f.valid {
                        writeln!(w, "{}: ok", escape_controls(&f.path))?;
                    }
                    for e in &f.errors {
                        let path = escape_controls(&f.path);
                        writeln!(w, "{path}:{}:{}: error: {}", e.span.line, e.span.column, e.message)?;
                    }
                }
                Ok(())
            }
            AstOutput::Dialect { value, .. } => {
                // Compact, like every tool's JSON; --pretty indents the envelope.
                let text = serde_json::to_string(value).map_err(io::Error::other)?;
                writeln!(w, "{text}")
            }
        }
    }

    fn found(&self) -> bool {
        match self {
            AstOutput::Query { page, .. }
            | AstOutput::Symbols { page, .. }
            | AstOutput::Definitions { page, .. }
            | AstOutput::References { page, .. } => page.total > 0,
            AstOutput::Validate { files, .. } => !files.is_empty(),
            AstOutput::Dialect { value, .. } => {
                !matches!(value, Value::Null) && value.as_array().is_none_or(|a| !a.is_empty())
            }
        }
    }

    fn exit_status(&self) -> i32 {
        match self {
            AstOutput::Validate { valid: false, .. } => 3,
            _ if self.found() => 0,
            _ => 1,
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            AstOutput::Query { .. } => Some(("symbols", "capture")),
            AstOutput::Symbols { .. } => Some(("symbols", "symbol")),
            AstOutput::Definitions { .. } => Some(("definitions", "definition")),
            AstOutput::References { .. } => Some(("references", "reference")),
            AstOutput::Validate { .. } => Some(("files", "file")),
            AstOutput::Dialect { .. } => None,
        }
    }
}

/// One outline line: `Kind name/path [start-end]`, indented by nesting.
fn write_outline_line(w: &mut dyn Write, s: &Symbol) -> io::Result<()> {
    writeln!(w, "{:indent$}{} {} [{}-{}]", "", s.kind, s.name_path, s.span.line, s.span.end_line, indent = 2 * s.depth)
}

fn truncated_note(w: &mut dyn Write, page: &Page) -> io::Result<()> {
    match page.next_offset {
        Some(next) => writeln!(w, "… {} more (--offset {next})", page.total - next),
        None => Ok(()),
    }
}

/// Results, how a name matched, the number of files parsed, diagnostics.
pub type Found<T> = (Vec<T>, Option<NameMatch>, usize, Vec<aide_core::Diagnostic>);

/// Everything a run needs to read the tree.
pub struct Engine<'a> {
    pub root: &'a Root,
    pub request: &'a AstRequest,
    pub language: Option<Lang>,
    pub threads: usize,
}

impl Engine<'_> {
    fn scope(&self) -> Scope<'_> {
        Scope {
            root: self.root,
            paths: &self.request.paths,
            walk: &self.request.walk,
            language: self.language,
            threads: self.threads,
        }
    }

    /// The outline of every file, filtered by kind, name and depth.
    pub fn symbols(&self) -> Result<Found<Symbol>, AideError> {
        let kinds = self.kinds()?;
        let (per_file, diagnostics) = self.scope().map_files(None, |file, diags| {
            diags.extend(file.parse_diagnostic());
            self.outline_of(file, true, &kinds)
        })?;
        let files = per_file.len();
        let mut all: Vec<Symbol> = per_file.into_iter().flatten().collect();
        let mut how = None;
        if let Some(name) = &self.request.name {
            (all, how) = symbols::filter_by_name(all, name);
        }
        Ok((all, how, files, diagnostics))
    }

    /// The --kind filter, parsed.
    fn kinds(&self) -> Result<Vec<SymbolKind>, AideError> {
        self.request.kind.iter().map(|k| k.parse()).collect()
    }

    /// A file's symbols down to --depth (the walk stops there) of the kinds
    /// asked for (all when none).
    fn outline_of(&self, file: &files::SourceFile, signatures: bool, kinds: &[SymbolKind]) -> Vec<Symbol> {
        let options = symbols::OutlineOptions { max_depth: self.request.depth, signatures };
        let mut all =
            symbols::outline_with_options(file.lang, &file.path, &file.source, &file.tree, &file.index, options);
        if !kinds.is_empty() {
            all.retain(|s| kinds.contains(&s.kind));
        }
        all
    }

    /// The text outline, written to `w` file by file in path order as files
    /// are parsed, with --kind, --depth, --offset and --limit applied on the
    /// way. A write error (a closed pipe) stops the printing, not the count.
    pub fn stream_symbols(&self, w: &mut dyn Write) -> Result<(Page, Vec<aide_core::Diagnostic>), AideError> {
        let kinds = self.kinds()?;
        let (offset, limit) = (self.request.offset, self.request.limit.unwrap_or(usize::MAX));
        let (mut total, mut files, mut printed) = (0usize, 0usize, 0usize);
        let mut writing = true;
        // Stdout is line-buffered: one write per line would cost a system call each.
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        let diagnostics = self.scope().for_each_file(
            None,
            |file, diags| {
                diags.extend(file.parse_diagnostic());
                // The text outline shows no signatures: do not compute them.
                self.outline_of(file, false, &kinds)
            },
            |symbols| {
                files += 1;
                let mut header_done = false;
                for s in symbols {
                    total += 1;
                    if total <= offset || printed >= limit || !writing {
                        continue;
                    }
                    printed += 1;
                    let result = (|| {
                        if !header_done {
                            writeln!(w, "{}", escape_controls(&s.path))?;
                        }
                        write_outline_line(&mut w, &s)
                    })();
                    header_done = true;
                    writing &= result.is_ok();
                }
            },
        )?;
        if writing {
            let _ = w.flush();
        }
        drop(w);
        let truncated = total > offset.saturating_add(printed) && printed >= limit;
        let next_offset = truncated.then_some(offset + printed);
        Ok((Page { total, files_parsed: files, truncated, next_offset }, diagnostics))
    }

    /// The definitions of `name` across the scope, at the best name-match tier.
    pub fn definitions(&self, name: &str) -> Result<Found<Symbol>, AideError> {
        let needle = refs::last_identifier(name);
        if needle.is_empty() {
            return Err(AideError::new(code::INVALID_ARGUMENTS, "the name to look up is empty")
                .with_hint("give a name such as `MyClass` or `Agent/run`"));
        }
        let (per_file, diagnostics) = self.scope().map_files(Some(needle.as_bytes()), |file, diags| {
            diags.extend(file.parse_diagnostic());
            refs::definitions_in(file, name)
        })?;
        let files = per_file.len();
        let all: Vec<(NameMatch, Symbol)> = per_file.into_iter().flatten().collect();
        let best = all.iter().map(|(m, _)| *m).min();
        let defs = all.into_iter().filter(|(m, _)| Some(*m) == best).map(|(_, s)| s).collect();
        Ok((defs, best, files, diagnostics))
    }

    /// The references to the identifiers `names` across the scope.
    pub fn references(
        &self,
        names: &[String],
        include_definitions: bool,
    ) -> Result<(Vec<Reference>, usize, Vec<aide_core::Diagnostic>), AideError> {
        let mut all = Vec::new();
        let mut files = 0;
        let mut diagnostics = Vec::new();
        for name in names {
            let ident = refs::last_identifier(name).to_string();
            if ident.is_empty() {
                return Err(AideError::new(code::INVALID_ARGUMENTS, "the name to look up is empty")
                    .with_hint("give a name such as `validateToken`"));
            }
            let (per_file, d) = self.scope().map_files(Some(ident.as_bytes()), |file, diags| {
                diags.extend(file.parse_diagnostic());
                refs::references_in(file, &ident, include_definitions)
            })?;
            files += per_file.len();
            all.extend(per_file.into_iter().flatten());
            diagnostics.extend(d);
        }
        all.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start));
        all.dedup_by(|a, b| (&a.path, a.span.byte_start) == (&b.path, b.span.byte_start));
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        diagnostics.dedup_by(|a, b| a == b);
        Ok((all, files, diagnostics))
    }
}

/// A definition as the Dialect shows it.
fn dialect_definition(s: &Symbol) -> Value {
    json!({
        "name": s.name,
        "kind": s.kind.snake_name(),
        "namePath": s.name_path,
        "definedAt": {
            "path": s.path,
            "start": { "line": s.span.line, "column": s.span.column },
            "end": { "line": s.span.end_line, "column": s.span.end_column },
        },
    })
}

struct DialectBackend<'a> {
    engine: &'a Engine<'a>,
    diagnostics: std::cell::RefCell<Vec<aide_core::Diagnostic>>,
}

impl dialect::Backend for DialectBackend<'_> {
    fn definitions(&self, name: &str) -> Result<Vec<Value>, AideError> {
        let (defs, _, _, d) = self.engine.definitions(name)?;
        self.diagnostics.borrow_mut().extend(d);
        Ok(defs.iter().map(dialect_definition).collect())
    }

    fn references(&self, names: &[String]) -> Result<Vec<Value>, AideError> {
        let (refs, _, d) = self.engine.references(names, false)?;
        self.diagnostics.borrow_mut().extend(d);
        Ok(refs
            .iter()
            .map(|r| {
                json!({
                    "path": r.path,
                    "start": { "line": r.span.line, "column": r.span.column },
                    "end": { "line": r.span.end_line, "column": r.span.end_column },
                    "name": r.name,
                    "kind": r.kind,
                    "enclosing": r.enclosing,
                    "text": r.line_text,
                })
            })
            .collect())
    }

    fn search(&self, path: &str, pattern: &str, extension: Option<&str>) -> Result<Vec<Value>, AideError> {
        let root = self.engine.root;
        let abs = root.resolve(path)?;
        let meta = std::fs::metadata(&abs).map_err(|e| {
            AideError::new(code::NOT_FOUND, format!("{path}: {e}")).with_hint("paths are relative to --root")
        })?;
        let rel = root.relative(&abs).unwrap_or_else(|| path.to_string());
        let at_root = rel == "." || rel.is_empty();
        let ext = extension.map(|e| escape_glob(e.trim_start_matches('.')));
        // One glob (whitelist globs are alternatives, so they cannot be combined).
        let glob = match (meta.is_dir(), at_root, ext) {
            (false, _, _) => Some(format!("/{}", escape_glob(&rel))),
            (true, true, None) => None,
            (true, true, Some(ext)) => Some(format!("*.{ext}")),
            (true, false, None) => Some(format!("/{}/**", escape_glob(&rel))),
            (true, false, Some(ext)) => Some(format!("/{}/**/*.{ext}", escape_glob(&rel))),
        };
        let mut request = llm_search::SearchRequest { pattern: vec![pattern.to_string()], ..Default::default() };
        request.walk = self.engine.request.walk.clone();
        request.walk.glob = glob.into_iter().collect();
        request.threads = Some(self.engine.threads);
        let (out, d) = llm_search::search(root, &request)?;
        self.diagnostics.borrow_mut().extend(d);
        Ok(out
            .matches
            .iter()
            .map(|m| {
                json!({
                    "path": m.path,
                    "start": { "line": m.span.line, "column": m.span.column },
                    "end": { "line": m.span.end_line, "column": m.span.end_column },
                    "match": m.text,
                    "text": m.line_text,
                })
            })
            .collect())
    }

    fn lines(&self, path: &str, start: usize, end: usize) -> Result<Value, AideError> {
        let content = llm_read::read_file(self.engine.root, path, start - 1, end - start + 1, 0)?;
        if content.start_line == 0 {
            return Err(AideError::new(
                code::INVALID_ARGUMENTS,
                format!("{path} has {} lines; line {start} does not exist", content.line_count),
            )
            .with_hint(format!("ask for lines 1 to {}", content.line_count)));
        }
        let last = content.content.lines().last().unwrap_or("");
        Ok(json!({
            "path": path,
            "start": { "line": content.start_line, "column": 1 },
            "end": { "line": content.end_line, "column": last.chars().count() + 1 },
            "content": content.content,
        }))
    }
}

/// Escapes glob metacharacters so a path matches only itself.
fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Runs a request.
pub fn run(request: &AstRequest, ctx: &mut RunContext) -> Result<AstOutput, AideError> {
    let mode = request.mode()?;
    aide_core::request::check_limit(request.limit)?;
    let root = Root::from_option(request.root.as_deref())?;
    let language = request.language.as_deref().map(str::parse::<Lang>).transpose()?;
    let threads = aide_core::walk::worker_threads(request.threads, &mut ctx.diagnostics);
    let engine = Engine { root: &root, request, language, threads };
    match mode {
        Mode::Query => {
            let text = request.query.as_deref().unwrap_or_default();
            let Some(lang) = language else {
                return Err(AideError::new(code::INVALID_ARGUMENTS, "--query needs --language")
                    .with_hint("a query is written against one grammar, e.g. --language rust"));
            };
            let compiled = query::compile(lang, text)?;
            let needle = query::required_literal(&compiled);
            let (per_file, diagnostics) =
                engine.scope().map_files(needle.as_deref().map(str::as_bytes), |file, diags| {
                    diags.extend(file.parse_diagnostic());
                    query::run(&compiled, file, request.max_text)
                })?;
            ctx.diagnostics.extend(diagnostics);
            let files = per_file.len();
            let (symbols, page) = page(per_file.into_iter().flatten().collect(), request, files);
            Ok(AstOutput::Query { symbols, page })
        }
        Mode::Symbols => {
            if request.name.is_none()
                && let Some(live) = ctx.live.as_mut()
            {
                // Text outline: print file by file, holding nothing.
                let (page, diagnostics) = engine.stream_symbols(live)?;
                ctx.diagnostics.extend(diagnostics);
                return Ok(AstOutput::Symbols { symbols: Vec::new(), name_match: None, page, streamed: true });
            }
            let (all, name_match, files, diagnostics) = engine.symbols()?;
            ctx.diagnostics.extend(diagnostics);
            let (symbols, page) = page(all, request, files);
            Ok(AstOutput::Symbols { symbols, name_match, page, streamed: false })
        }
        Mode::Definitions => {
            let name = request.definitions.clone().unwrap_or_default();
            let (defs, name_match, files, diagnostics) = engine.definitions(&name)?;
            ctx.diagnostics.extend(diagnostics);
            let (definitions, page) = page(defs, request, files);
            Ok(AstOutput::Definitions { name, matching: "by_name".into(), name_match, definitions, page })
        }
        Mode::References => {
            let name = request.references.clone().unwrap_or_default();
            let (all, files, diagnostics) =
                engine.references(std::slice::from_ref(&name), request.include_definition)?;
            ctx.diagnostics.extend(diagnostics);
            let (references, page) = page(all, request, files);
            Ok(AstOutput::References {
                name,
                matching: "by_name".into(),
                includes_definitions: request.include_definition,
                references,
                page,
            })
        }
        Mode::Validate => {
            if request.paths.is_empty() && request.walk.glob.is_empty() && request.root.is_none() {
                return Err(AideError::new(code::INVALID_ARGUMENTS, "--validate needs the files to check").with_hint(
                    "name files or folders: llm-ast-search --validate src/main.rs (or --root DIR for a whole tree)",
                ));
            }
            let (files, diagnostics) = engine.scope().map_files(None, |file, _| {
                let errors = file.syntax_issues();
                FileValidation { path: file.path.clone(), language: file.lang, valid: errors.is_empty(), errors }
            })?;
            ctx.diagnostics.extend(diagnostics);
            let invalid_files = files.iter().filter(|f| !f.valid).count();
            Ok(AstOutput::Validate { valid: invalid_files == 0, invalid_files, files })
        }
        Mode::Dialect => {
            let program = request.dialect.clone().unwrap_or_default();
            let backend = DialectBackend { engine: &engine, diagnostics: Default::default() };
            let value = dialect::run(&program, &backend)?;
            let mut diagnostics = backend.diagnostics.into_inner();
            aide_core::envelope::sort_diagnostics(&mut diagnostics);
            diagnostics.dedup_by(|a, b| a == b);
            ctx.diagnostics.extend(diagnostics);
            Ok(AstOutput::Dialect { program, value })
        }
    }
}

/// The `llm-ast-search` tool.
#[derive(Debug)]
pub struct LlmAstSearch;

impl Tool for LlmAstSearch {
    const NAME: &'static str = "llm-ast-search";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str =
        "Structural code search with tree-sitter: queries, symbols, definitions, references, validation, Dialect.";
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] =
        &[("file_glob", "glob"), ("path", "paths"), ("program", "dialect"), ("lang", "language")];
    type Request = AstRequest;
    type Output = AstOutput;

    fn run(request: AstRequest, ctx: &mut RunContext) -> Result<AstOutput, AideError> {
        run(&request, ctx)
    }

    fn root(request: &AstRequest) -> Option<PathBuf> {
        request.root.clone().or_else(|| std::env::current_dir().ok())
    }
}
