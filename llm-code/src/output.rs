//! What each subcommand answers, and its text form.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

use crate::duplicates::Duplicate;
use crate::imports::FileImports;
use crate::metrics::{FileMetrics, FunctionMetrics};
use crate::request::ScopeArgs;

/// Counts and paging of a list of records.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Page {
    /// Records before --limit/--offset.
    pub total: usize,
    pub files_parsed: usize,
    pub truncated: bool,
    /// Pass as --offset to get the next page.
    pub next_offset: Option<usize>,
}

/// Cuts `items` to the page `scope` asks for.
pub(crate) fn page<T>(items: Vec<T>, scope: &ScopeArgs, files_parsed: usize) -> (Vec<T>, Page) {
    let total = items.len();
    let shown: Vec<T> = items.into_iter().skip(scope.offset).take(scope.limit.unwrap_or(usize::MAX)).collect();
    let truncated = total.saturating_sub(scope.offset) > shown.len();
    let next_offset = truncated.then_some(scope.offset + shown.len());
    (shown, Page { total, files_parsed, truncated, next_offset })
}

/// `metrics`: each function's measures (paged), and each file's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MetricsOutput {
    /// In path and place order, or by the measure asked for, highest first.
    pub functions: Vec<FunctionMetrics>,
    #[serde(flatten)]
    pub page: Page,
    /// Every file read, in path order (not paged).
    pub file_totals: Vec<FileMetrics>,
}

/// `duplicates`: each clone with all its places, in the order of their first places.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DuplicatesOutput {
    pub duplicates: Vec<Duplicate>,
    #[serde(flatten)]
    pub page: Page,
    /// Tokens read in every file (comments are not tokens).
    pub tokens: usize,
    /// The least a duplicate had to be: tokens and lines.
    pub min_tokens: usize,
    pub min_lines: usize,
}

/// `imports`: each file's imports and exports, in path order.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImportsOutput {
    pub files: Vec<FileImports>,
    #[serde(flatten)]
    pub page: Page,
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum CodeOutput {
    Metrics(MetricsOutput),
    Duplicates(DuplicatesOutput),
    Imports(ImportsOutput),
}

fn write_page(w: &mut TextOut<'_>, page: &Page, what: &str) -> io::Result<()> {
    let more = match page.next_offset {
        Some(next) => format!("; more with {}", w.voice().arg_is("offset", next)),
        None => String::new(),
    };
    w.paint(Paint::Dim, format!("{} {what} in {} files{more}", page.total, page.files_parsed))?;
    writeln!(w)
}

impl Render for CodeOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            CodeOutput::Metrics(m) => {
                for f in &m.functions {
                    w.paint(Paint::Path, &f.path)?;
                    write!(w, ":{}: ", f.span.line)?;
                    w.paint(Paint::Kind, f.kind.name())?;
                    writeln!(
                        w,
                        " {} [{}-{}] cyclomatic {} cognitive {} lines {} parameters {} nesting {}",
                        f.name_path,
                        f.span.line,
                        f.span.end_line,
                        f.cyclomatic,
                        f.cognitive,
                        f.lines,
                        f.parameters,
                        f.nesting
                    )?;
                }
                write_page(w, &m.page, "functions")
            }
            CodeOutput::Duplicates(d) => {
                for clone in &d.duplicates {
                    for (i, place) in clone.places.iter().enumerate() {
                        if i > 0 {
                            write!(w, " ")?;
                        }
                        w.paint(Paint::Path, &place.path)?;
                        write!(w, ":{}-{}", place.span.line, place.span.end_line)?;
                    }
                    writeln!(w, " ({} places, {} tokens, {} lines)", clone.places.len(), clone.tokens, clone.lines)?;
                }
                write_page(w, &d.page, "duplicates")
            }
            CodeOutput::Imports(i) => {
                for file in &i.files {
                    w.paint(Paint::Path, &file.path)?;
                    writeln!(w)?;
                    for import in &file.imports {
                        let names = if import.names.is_empty() {
                            String::new()
                        } else {
                            format!(" {{{}}}", import.names.join(", "))
                        };
                        let alias = import.alias.as_ref().map(|a| format!(" as {a}")).unwrap_or_default();
                        writeln!(
                            w,
                            "  {}: {} {}{names}{alias}",
                            import.span.line,
                            import.kind.as_str(),
                            import.module
                        )?;
                    }
                    for export in &file.exports {
                        writeln!(w, "  {}: export {} {}", export.span.line, export.kind, export.name)?;
                    }
                }
                let more = i
                    .page
                    .next_offset
                    .map(|n| format!("; more with {}", w.voice().arg_is("offset", n)))
                    .unwrap_or_default();
                w.paint(Paint::Dim, format!("{} files{more}", i.page.total))?;
                writeln!(w)
            }
        }
    }

    fn found(&self) -> bool {
        match self {
            CodeOutput::Metrics(m) => !m.functions.is_empty(),
            CodeOutput::Duplicates(d) => !d.duplicates.is_empty(),
            CodeOutput::Imports(i) => !i.files.is_empty(),
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            CodeOutput::Metrics(_) => Some(("functions", "function")),
            CodeOutput::Duplicates(_) => Some(("duplicates", "duplicate")),
            CodeOutput::Imports(_) => Some(("files", "file")),
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        use aide_core::tool::keep_range;
        match self {
            CodeOutput::Metrics(m) => keep_range(&mut m.functions, range),
            CodeOutput::Duplicates(d) => keep_range(&mut d.duplicates, range),
            CodeOutput::Imports(i) => keep_range(&mut i.files, range),
        }
    }
}
