//! What llm-lint answers, its text form and its exit status.

use std::io::{self, Write};

use aide_checkers::{CheckerRun, Finding, RunStatus, Severity};
use aide_core::ExitStatus;
use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

/// The result of a lint.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LintOutput {
    /// Every finding (after `--fix`: what remains), sorted by file and place.
    pub findings: Vec<Finding>,
    /// Findings by severity (of the whole result, when a page shows part).
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Each checker: ran, unavailable (how to install it), no files to
    /// check, or failed (why, and its stderr's tail).
    pub checkers: Vec<CheckerRun>,
    /// Every checker that ran gave its whole list: false when one failed
    /// (its findings are missing; the run exits 4).
    pub complete: bool,
    /// The earlier tree the findings were compared with.
    pub baseline: Option<BaselineUsed>,
    /// What `--fix` applied.
    pub fixed: Option<Fixed>,
}

/// `--baseline`: what the findings were compared with.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BaselineUsed {
    /// The revision or file given.
    pub against: String,
    /// Findings the earlier tree had (left out of `findings` where still there).
    pub before: usize,
}

/// `--fix`: the fixes applied, as one llm-transform commit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Fixed {
    /// Fixes applied (one finding's fix each).
    pub fixes: usize,
    /// Fixes left out because they overlap one applied before them (the next run applies them).
    pub overlapping: usize,
    /// Files changed, relative to the root.
    pub files: Vec<String>,
    /// How to undo them, when something was written.
    pub undo: Option<String>,
}

impl LintOutput {
    pub fn new(findings: Vec<Finding>, checkers: Vec<CheckerRun>) -> LintOutput {
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        LintOutput {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            findings,
            complete: !checkers.iter().any(|c| c.status == RunStatus::Failed),
            checkers,
            baseline: None,
            fixed: None,
        }
    }
}

impl Render for LintOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        for f in &self.findings {
            w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
            write!(w, ":{}:{}: ", f.line, f.column)?;
            let paint = match f.severity {
                Severity::Error => Paint::Bad,
                Severity::Warning => Paint::Warn,
                Severity::Info => Paint::Dim,
            };
            match &f.code {
                Some(code) => w.paint(paint, format_args!("{}[{code}]", f.severity.as_str()))?,
                None => w.paint(paint, f.severity.as_str())?,
            }
            let fixable = if f.fixes.is_empty() { "" } else { " [fixable]" };
            write!(w, " {}", f.message.replace('\n', " "))?;
            w.paint(Paint::Dim, format_args!(" ({}){fixable}", f.checker))?;
            writeln!(w)?;
        }
        if let Some(fixed) = &self.fixed {
            let undo = fixed.undo.as_deref().map(|u| format!("; undo: {u}")).unwrap_or_default();
            w.paint(
                Paint::Good,
                format_args!("fixed {} finding(s) in {} file(s){undo}", fixed.fixes, fixed.files.len()),
            )?;
            writeln!(w)?;
        }
        let ran: Vec<String> = self
            .checkers
            .iter()
            .filter(|c| c.status == RunStatus::Ran)
            .map(|c| match c.chosen.as_deref().filter(|why| *why != "named" && c.checker != "syntax") {
                // Chosen by the project's files: say which, so a reader knows why this one.
                Some(why) => format!("{} ({why}) {:.0} ms", c.checker, c.duration_ms),
                None => format!("{} {:.0} ms", c.checker, c.duration_ms),
            })
            .collect();
        let summary = format!("{} error(s), {} warning(s), {} info", self.errors, self.warnings, self.infos);
        w.paint(if self.errors > 0 { Paint::Bad } else { Paint::Dim }, summary)?;
        w.paint(
            Paint::Dim,
            format_args!(" (ran: {})", if ran.is_empty() { "nothing".into() } else { ran.join(", ") }),
        )?;
        writeln!(w)?;
        for c in self.checkers.iter().filter(|c| c.status == RunStatus::Unavailable) {
            w.paint(Paint::Warn, format_args!("{} not run: {}", c.checker, c.reason.as_deref().unwrap_or("")))?;
            writeln!(w)?;
        }
        for c in self.checkers.iter().filter(|c| c.status == RunStatus::Failed) {
            let why = aide_core::text::escape_controls(c.reason.as_deref().unwrap_or(""));
            w.paint(Paint::Bad, format_args!("{} failed, its findings missing: {why}", c.checker))?;
            writeln!(w)?;
            for line in c.stderr_tail.iter().flat_map(|t| t.lines()) {
                w.paint(Paint::Dim, format_args!("  {}", aide_core::text::escape_controls(line)))?;
                writeln!(w)?;
            }
        }
        Ok(())
    }

    /// Exits 1 when a finding is an error, as linters do; 4 when a checker
    /// failed, so an incomplete list never passes for a clean one.
    fn exit_status(&self) -> ExitStatus {
        if !self.complete {
            return ExitStatus::Runtime;
        }
        ExitStatus::found(self.errors == 0)
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        Some(("findings", "finding"))
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        aide_core::tool::keep_range(&mut self.findings, range);
    }
}
