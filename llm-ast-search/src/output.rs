//! What a run returns, by mode, and its compact text form.

use std::io::{self, Write};
use std::sync::Arc;

use aide_core::color::{Paint, TextOut};
use aide_core::text::escape_controls;
use aide_core::tool::Render;
use aide_core::{ExitStatus, Lang, Span};
use schemars::JsonSchema;
use serde::Serialize;

use crate::dialect::DialectValue;
use crate::outline_text::{OutlineView, counted_left_out, write_outline, write_surface_note};
use crate::query;
use crate::refs::{Reference, Resolution};
use crate::request::AstRequest;
use crate::symbols::{NameMatch, Symbol};
use crate::validate::SyntaxIssue;

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
        /// How the text form shows the symbols: every one (`--compact`:
        /// dense), or a folder's exported surface.
        #[serde(skip)]
        view: OutlineView,
        /// Streamed: the symbols printed that the surface view did not list.
        #[serde(skip)]
        streamed_left_out: usize,
    },
    Definitions {
        name: String,
        /// How definitions are found: `by_name`, or `definition` (the
        /// language's server said where the name used at a place is defined).
        matching: Matching,
        /// Which engine answered: `syntax`, or `lsp` (of a place only).
        engine: crate::lsp::CodeEngine,
        name_match: Option<NameMatch>,
        definitions: Vec<Symbol>,
        #[serde(flatten)]
        page: Page,
        /// Text or JSONL printed the definitions as they were found (exact
        /// ones, in path order); `definitions` holds them for the log.
        #[serde(skip)]
        printed: bool,
    },
    References {
        name: String,
        /// Which engine answered: `syntax`, or `lsp` (the language's server).
        engine: crate::lsp::CodeEngine,
        /// How references are found: `definition` when the name names one
        /// definition (its uses, judged), else `by_name` (every identifier
        /// spelled like it, outside comments and strings).
        matching: Matching,
        /// Whether the places that define the name are listed too (as
        /// references of kind `definition`; `--include-definition`).
        includes_definitions: bool,
        references: Vec<Reference>,
        #[serde(flatten)]
        page: Page,
    },
    /// What implements the name: impl blocks, types, methods.
    Implementations {
        name: String,
        /// Which engine answered: `syntax`, or `lsp` (the language's server).
        engine: crate::lsp::CodeEngine,
        definitions: Vec<Symbol>,
        #[serde(flatten)]
        page: Page,
    },
    /// Who calls the name: each call, with its caller.
    Callers {
        name: String,
        /// Which engine decided which sites are calls of it: `syntax`, or
        /// `lsp` (the language's server's call hierarchy).
        engine: crate::lsp::CodeEngine,
        /// `definition` when the name names one definition (its calls,
        /// judged), else `by_name` (every call spelled like it).
        matching: Matching,
        calls: Vec<CallSite>,
        #[serde(flatten)]
        page: Page,
    },
    /// The name's definitions, and what hovering each shows (`hover[i]` is
    /// of `definitions[i]`).
    Hover {
        name: String,
        engine: crate::lsp::CodeEngine,
        definitions: Vec<Symbol>,
        hover: Vec<String>,
    },
    Validate {
        valid: bool,
        invalid_files: usize,
        files: Vec<FileValidation>,
    },
    Dialect {
        program: String,
        value: DialectValue,
    },
}

/// How names are matched to definitions and references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Matching {
    /// By the name alone, not by type resolution.
    ByName,
    /// The name names one definition: its uses, each judged by scope,
    /// receiver and qualifier (see each reference's `matched`); uses that
    /// mean something else are left out.
    Definition,
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
    /// `total` and `files_parsed` count every file. False when --limit
    /// stopped the parsing once its page was certain and more remained
    /// (definitions): they then count the files up to there.
    pub totals_exact: bool,
}

/// A call of the symbol asked about, and who makes it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CallSite {
    pub path: String,
    /// The name called, as written at the call.
    pub name: String,
    /// The call: the span of the name called.
    #[serde(flatten)]
    pub span: Span,
    /// The caller: the innermost function, method or other body (a class)
    /// holding the call; an initializer's is what holds the constant or
    /// field. Null at module level.
    pub caller: Option<Symbol>,
    /// The line of the call, without its line terminator.
    pub line_text: String,
    /// SHA-256 of the file's bytes as parsed.
    pub checksum: Arc<str>,
    /// How the call was tied to the symbol, as a reference's `matched`.
    pub matched: Resolution,
    /// Which engine found it: `syntax` or `lsp`.
    pub engine: crate::lsp::CodeEngine,
}

/// The syntax errors of one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileValidation {
    pub path: String,
    pub language: Lang,
    pub valid: bool,
    pub errors: Vec<SyntaxIssue>,
}

/// One definition as text mode prints it.
pub(crate) fn write_definition(w: &mut TextOut<'_>, s: &Symbol) -> io::Result<()> {
    write_position(w, &s.path, s.span.line, s.span.column)?;
    write!(w, " ")?;
    w.paint(Paint::Kind, s.kind)?;
    writeln!(w, " {} [{}-{}]  {}", s.name_path, s.span.line, s.span.end_line, s.signature)
}

/// Cuts `items` to the requested page.
pub(crate) fn page<T>(items: Vec<T>, req: &AstRequest, files_parsed: usize) -> (Vec<T>, Page) {
    let total = items.len();
    let shown: Vec<T> = items.into_iter().skip(req.offset).take(req.limit.unwrap_or(usize::MAX)).collect();
    let page = Page::of(total, shown.len(), req, files_parsed);
    (shown, page)
}

impl Page {
    /// The page of `shown` results the request asks for, of `total`.
    pub(crate) fn of(total: usize, shown: usize, req: &AstRequest, files_parsed: usize) -> Page {
        let truncated = total.saturating_sub(req.offset) > req.limit.unwrap_or(usize::MAX);
        let next_offset = truncated.then_some(req.offset + shown);
        Page { total, files_parsed, truncated, next_offset, totals_exact: true }
    }
}

impl Render for AstOutput {
    // Long because: one arm per output variant, each written in its order.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            AstOutput::Query { symbols, page } => {
                for c in symbols {
                    let first = c.symbol.lines().next().unwrap_or("");
                    write_position(w, &c.path, c.span.line, c.span.column)?;
                    write!(w, " ")?;
                    w.paint(Paint::Kind, format_args!("@{}", c.capture))?;
                    writeln!(w, " {}: {first}", c.node_kind)?;
                }
                truncated_note(w, page)
            }
            AstOutput::Symbols { symbols, page, view, streamed, streamed_left_out, .. } => {
                for file in symbols.chunk_by(|a, b| a.path == b.path) {
                    write_outline(w, file, *view)?;
                }
                if *view == OutlineView::Surface && page.total > 0 {
                    let left_out = if *streamed {
                        *streamed_left_out
                    } else {
                        symbols.iter().filter(|s| counted_left_out(s)).count()
                    };
                    write_surface_note(w, left_out)?;
                }
                truncated_note(w, page)
            }
            AstOutput::Definitions { definitions, page, printed, .. } => {
                if !printed {
                    for s in definitions {
                        write_definition(w, s)?;
                    }
                }
                truncated_note(w, page)
            }
            AstOutput::References { name, references, page, includes_definitions, .. } => {
                if !includes_definitions {
                    w.paint(
                        Paint::Dim,
                        format_args!(
                            "(uses of `{name}` only; {} adds where it is defined)",
                            w.voice().on("include_definition")
                        ),
                    )?;
                    writeln!(w)?;
                }
                for r in references {
                    let inside = r.enclosing.as_deref().map(|e| format!(" in {e}")).unwrap_or_default();
                    // Only a doubtful site says how it matched.
                    let doubt = if r.matched == crate::resolve::Resolution::Unresolved { " (unresolved)" } else { "" };
                    write_position(w, &r.path, r.span.line, r.span.column)?;
                    write!(w, " ")?;
                    w.paint(Paint::Kind, format_args!("[{}]", r.kind))?;
                    write!(w, "{inside}")?;
                    if !doubt.is_empty() {
                        w.paint(Paint::Warn, doubt)?;
                    }
                    writeln!(w, ": {}", r.line_text.trim())?;
                }
                truncated_note(w, page)
            }
            AstOutput::Implementations { definitions, page, .. } => {
                for s in definitions {
                    write_definition(w, s)?;
                }
                truncated_note(w, page)
            }
            AstOutput::Callers { calls, page, .. } => {
                for c in calls {
                    write_position(w, &c.path, c.span.line, c.span.column)?;
                    write!(w, " ")?;
                    match &c.caller {
                        Some(s) => {
                            w.paint(Paint::Kind, s.kind)?;
                            write!(w, " {} [{}-{}]", s.name_path, s.span.line, s.span.end_line)?;
                        }
                        None => w.paint(Paint::Dim, "(module level)")?,
                    }
                    if c.matched == Resolution::Unresolved {
                        w.paint(Paint::Warn, " (unresolved)")?;
                    }
                    writeln!(w, ": {}", c.line_text.trim())?;
                }
                truncated_note(w, page)
            }
            AstOutput::Hover { definitions, hover, .. } => {
                for (s, text) in definitions.iter().zip(hover) {
                    write_definition(w, s)?;
                    for line in text.lines() {
                        writeln!(w, "  {}", escape_controls(line))?;
                    }
                }
                Ok(())
            }
            AstOutput::Validate { files, .. } => {
                for f in files {
                    if f.valid {
                        w.paint(Paint::Path, escape_controls(&f.path))?;
                        write!(w, ": ")?;
                        w.paint(Paint::Good, "ok")?;
                        writeln!(w)?;
                    }
                    for e in &f.errors {
                        write_position(w, &f.path, e.span.line, e.span.column)?;
                        write!(w, " ")?;
                        w.paint(Paint::Bad, "error")?;
                        writeln!(w, ": {}", e.message)?;
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
            | AstOutput::References { page, .. }
            | AstOutput::Callers { page, .. }
            | AstOutput::Implementations { page, .. } => page.total > 0,
            AstOutput::Hover { definitions, .. } => !definitions.is_empty(),
            AstOutput::Validate { files, .. } => !files.is_empty(),
            AstOutput::Dialect { value, .. } => value.is_found(),
        }
    }

    /// A validation that found syntax errors ran, but its check failed.
    fn exit_status(&self) -> ExitStatus {
        match self {
            AstOutput::Validate { valid: false, .. } => ExitStatus::Conflict,
            _ => ExitStatus::found(self.found()),
        }
    }

    fn streamed(&self) -> bool {
        matches!(self, AstOutput::Definitions { printed: true, .. })
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            AstOutput::Query { .. } => Some(("symbols", "capture")),
            AstOutput::Symbols { .. } => Some(("symbols", "symbol")),
            AstOutput::Definitions { .. } => Some(("definitions", "definition")),
            AstOutput::References { .. } => Some(("references", "reference")),
            AstOutput::Callers { .. } => Some(("calls", "call")),
            AstOutput::Implementations { .. } => Some(("definitions", "implementation")),
            AstOutput::Validate { .. } => Some(("files", "file")),
            AstOutput::Hover { .. } | AstOutput::Dialect { .. } => None,
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        use aide_core::tool::keep_range;
        match self {
            AstOutput::Query { symbols, .. } => keep_range(symbols, range),
            AstOutput::Symbols { symbols, .. } => keep_range(symbols, range),
            AstOutput::Definitions { definitions, .. } => keep_range(definitions, range),
            AstOutput::References { references, .. } => keep_range(references, range),
            AstOutput::Callers { calls, .. } => keep_range(calls, range),
            AstOutput::Implementations { definitions, .. } => keep_range(definitions, range),
            AstOutput::Validate { files, .. } => keep_range(files, range),
            AstOutput::Hover { .. } | AstOutput::Dialect { .. } => {}
        }
    }
}

/// `path:line:column:`, coloured as ripgrep colours it.
fn write_position(w: &mut TextOut<'_>, path: &str, line: usize, column: usize) -> io::Result<()> {
    w.paint(Paint::Path, escape_controls(path))?;
    write!(w, ":")?;
    w.paint(Paint::LineNumber, line)?;
    write!(w, ":{column}:")
}

fn truncated_note(w: &mut TextOut<'_>, page: &Page) -> io::Result<()> {
    match page.next_offset {
        Some(next) => {
            let at_least = if page.totals_exact { "" } else { "at least " };
            w.paint(
                Paint::Dim,
                format_args!(
                    "… {at_least}{} more ({})",
                    page.total.saturating_sub(next),
                    w.voice().arg_is("offset", next)
                ),
            )?;
            writeln!(w)
        }
        None => Ok(()),
    }
}
