//! What each subcommand answers, and its text form.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

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

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum CodeOutput {
    Metrics(MetricsOutput),
}

fn write_page(w: &mut TextOut<'_>, page: &Page, what: &str) -> io::Result<()> {
    let more = match page.next_offset {
        Some(next) => format!("; more with --offset {next}"),
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
        }
    }

    fn found(&self) -> bool {
        match self {
            CodeOutput::Metrics(m) => !m.functions.is_empty(),
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            CodeOutput::Metrics(_) => Some(("functions", "function")),
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        use aide_core::tool::keep_range;
        match self {
            CodeOutput::Metrics(m) => keep_range(&mut m.functions, range),
        }
    }
}
