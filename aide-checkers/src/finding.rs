//! What a checker says, in aide's terms: located diagnostics with exact
//! byte spans in the file as it is on disk, their related places, and the
//! fixes a checker marks machine-applicable as span edits guarded by the
//! file's checksum (the shape of llm-transform's `edits`).
//!
//! Each checker counts columns its own way (rustc and go vet in bytes,
//! ruff, mypy and shellcheck in characters, tsc, eslint and pyright in
//! UTF-16 code units, some from 0): the formats hand over a [`RawDiagnostic`]
//! that says which, and [`Sources`] turns it into spans.

use std::collections::BTreeMap;
use std::path::Path;

use aide_core::root::Root;
use aide_core::span::{LineIndex, Position};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How bad a diagnostic is, as the checker rated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    /// Notes, hints, style and information.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// The file, relative to the root.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub byte_start: usize,
    pub byte_end: usize,
    pub severity: Severity,
    /// The checker's own code (`E0308`, `F401`, `SC2086`, `TS2322`), when it gives one.
    pub code: Option<String>,
    pub message: String,
    /// The checker that said it (`cargo`, `ruff`, `syntax`, …).
    pub checker: String,
    /// SHA-256 of the file as the span was measured in it.
    pub checksum: String,
    /// Other places the diagnostic points at (a borrow's first use, a note).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Fixes the checker marks safe to apply without review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
}

/// A place a diagnostic points at besides its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Related {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub byte_start: usize,
    pub byte_end: usize,
    pub message: String,
}

/// A machine-applicable fix: span edits llm-transform applies as they are
/// (`llm-transform --edits`, or `llm-lint --fix`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fix {
    pub description: String,
    pub edits: Vec<FixEdit>,
}

/// One span edit of a fix, guarded by the file's checksum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FixEdit {
    pub path: String,
    pub byte_start: usize,
    pub byte_end: usize,
    pub replacement: String,
    pub checksum_before: String,
}

/// How a checker counts a line's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// 1-based bytes (rustc, go vet, pyflakes).
    Bytes,
    /// 1-based Unicode scalar values (ruff, shellcheck json1, mypy + 1).
    Chars,
    /// 1-based UTF-16 code units (tsc, eslint, pyright + 1).
    Utf16,
}

/// A point as a checker gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// A 1-based line and a 1-based column counted as the checker counts.
    LineColumn { line: usize, column: usize, columns: Columns },
    /// A byte offset into the file (rustc's `byte_start`).
    Byte(usize),
    /// A UTF-16 offset into the whole file (eslint's fix ranges).
    Utf16Offset(usize),
}

/// A diagnostic before it is located: the path as the checker printed it.
#[derive(Debug, Clone)]
pub struct RawDiagnostic {
    pub path: String,
    pub start: Point,
    /// None: the span ends where it starts (a point).
    pub end: Option<Point>,
    pub severity: Severity,
    pub code: Option<String>,
    pub message: String,
    pub related: Vec<RawRelated>,
    pub fixes: Vec<RawFix>,
}

impl RawDiagnostic {
    pub fn at(path: impl Into<String>, start: Point, severity: Severity, message: impl Into<String>) -> RawDiagnostic {
        RawDiagnostic {
            path: path.into(),
            start,
            end: None,
            severity,
            code: None,
            message: message.into(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn ending(mut self, end: Point) -> Self {
        self.end = Some(end);
        self
    }

    pub fn with_code(mut self, code: Option<String>) -> Self {
        self.code = code.filter(|c| !c.is_empty());
        self
    }
}

#[derive(Debug, Clone)]
pub struct RawRelated {
    pub path: String,
    pub start: Point,
    pub end: Option<Point>,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct RawFix {
    pub description: String,
    pub edits: Vec<RawEdit>,
}

#[derive(Debug, Clone)]
pub struct RawEdit {
    pub path: String,
    pub start: Point,
    pub end: Point,
    pub replacement: String,
}

/// One file's bytes, read once for every diagnostic in it.
struct Source {
    rel: String,
    bytes: Vec<u8>,
    index: LineIndex,
    checksum: String,
}

/// The files diagnostics point into, read beneath the root.
///
/// Checkers run in the root: a relative path they print starts there
/// (or, for cargo, at the workspace's root above it).
pub(crate) struct Sources<'r> {
    root: &'r Root,
    files: BTreeMap<String, Option<Source>>,
}

impl<'r> Sources<'r> {
    pub(crate) fn new(root: &'r Root) -> Sources<'r> {
        Sources { root, files: BTreeMap::new() }
    }

    /// The file a checker named, if it lies in the root: read and indexed once.
    fn source(&mut self, printed: &str) -> Option<&Source> {
        if !self.files.contains_key(printed) {
            let loaded = self.load(printed);
            self.files.insert(printed.to_string(), loaded);
        }
        self.files.get(printed).and_then(Option::as_ref)
    }

    fn load(&self, printed: &str) -> Option<Source> {
        let printed_path = Path::new(printed);
        let candidates: Vec<std::path::PathBuf> = if printed_path.is_absolute() {
            vec![printed_path.to_path_buf()]
        } else {
            // The root first; cargo prints paths from the workspace's root, which may lie above it.
            self.root.path().ancestors().map(|a| a.join(printed_path)).collect()
        };
        // Opened beneath the root by its letters (a symlink out of it is
        // refused), with no walk of every path's links.
        let (rel, mut file) = candidates.iter().find_map(|c| {
            let rel = self.root.lexical(c)?;
            self.root.open_file(&rel).ok().map(|f| (rel, f))
        })?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        let index = LineIndex::new(&bytes);
        let checksum = aide_core::checksum::sha256_hex(&bytes);
        Some(Source { rel: aide_core::root::to_slash(&rel), bytes, index, checksum })
    }

    /// The diagnostic located in its file; None when the file is not in
    /// the root (a dependency's source, a generated file elsewhere).
    pub(crate) fn locate(&mut self, raw: &RawDiagnostic, checker: &str) -> Option<Finding> {
        let source = self.source(&raw.path)?;
        let (start, end) = span_of(source, raw.start, raw.end);
        let (rel, checksum) = (source.rel.clone(), source.checksum.clone());
        let from = source.index.position(&source.bytes, start);
        let to = source.index.position(&source.bytes, end);
        let related = raw
            .related
            .iter()
            .filter_map(|r| {
                let s = self.source(&r.path)?;
                let (a, b) = span_of(s, r.start, r.end);
                let at = s.index.position(&s.bytes, a);
                Some(Related {
                    path: s.rel.clone(),
                    line: at.line,
                    column: at.column,
                    byte_start: a,
                    byte_end: b,
                    message: r.message.clone(),
                })
            })
            .collect();
        let fixes = raw.fixes.iter().filter_map(|f| self.fix(f)).collect();
        Some(Finding {
            path: rel,
            line: from.line,
            column: from.column,
            end_line: to.line,
            end_column: to.column,
            byte_start: start,
            byte_end: end,
            severity: raw.severity,
            code: raw.code.clone(),
            message: raw.message.trim_end().to_string(),
            checker: checker.to_string(),
            checksum,
            related,
            fixes,
        })
    }

    /// A fix whose every edit lands in the root, on character boundaries.
    fn fix(&mut self, fix: &RawFix) -> Option<Fix> {
        let mut edits = Vec::new();
        for e in &fix.edits {
            let s = self.source(&e.path)?;
            let start = offset_of(s, e.start)?;
            let end = offset_of(s, e.end)?;
            if end < start
                || !aide_core::span::is_char_boundary(&s.bytes, start)
                || !aide_core::span::is_char_boundary(&s.bytes, end)
            {
                return None;
            }
            edits.push(FixEdit {
                path: s.rel.clone(),
                byte_start: start,
                byte_end: end,
                replacement: e.replacement.clone(),
                checksum_before: s.checksum.clone(),
            });
        }
        edits.sort_by(|a, b| {
            aide_core::ordering::cmp_location(&a.path, a.byte_start, &b.path, b.byte_start)
                .then(a.byte_end.cmp(&b.byte_end))
        });
        (!edits.is_empty()).then(|| Fix { description: fix.description.clone(), edits })
    }
}

/// A span's two offsets; a point that cannot be placed falls back to the
/// nearest place that can (the line's end, the file's end).
fn span_of(source: &Source, start: Point, end: Option<Point>) -> (usize, usize) {
    let a = offset_of(source, start).unwrap_or_else(|| nearest(source, start));
    let b = end.map_or(a, |e| offset_of(source, e).unwrap_or_else(|| nearest(source, e)));
    (a, b.max(a))
}

fn nearest(source: &Source, p: Point) -> usize {
    match p {
        Point::LineColumn { line, .. } => match source.index.line_content_range(&source.bytes, line.max(1)) {
            Some(r) => r.end,
            None => source.bytes.len(),
        },
        Point::Byte(b) => b.min(source.bytes.len()),
        Point::Utf16Offset(_) => source.bytes.len(),
    }
}

/// The byte offset of `p` in `source`, if it lies in it.
fn offset_of(source: &Source, p: Point) -> Option<usize> {
    let bytes = &source.bytes;
    match p {
        Point::Byte(b) => (b <= bytes.len()).then_some(b),
        Point::LineColumn { line, column, columns } => {
            let line = line.max(1);
            let column = column.max(1);
            match columns {
                Columns::Chars => source.index.offset(bytes, Position { line, column }),
                Columns::Bytes => {
                    let range = line_range(source, line)?;
                    let at = range.start + column - 1;
                    (at <= range.end).then_some(at)
                }
                Columns::Utf16 => {
                    let range = line_range(source, line)?;
                    aide_core::span::utf16_to_byte(&bytes[range.clone()], column - 1).map(|o| range.start + o)
                }
            }
        }
        Point::Utf16Offset(units) => aide_core::span::utf16_to_byte(bytes, units),
    }
}

/// A line's text without its terminator; the empty last line of a file
/// that ends in a newline too.
fn line_range(source: &Source, line: usize) -> Option<std::ops::Range<usize>> {
    match source.index.line_content_range(&source.bytes, line) {
        Some(r) => Some(r),
        None if line == source.index.line_count() + 1 || line == source.index.line_count() => {
            Some(source.bytes.len()..source.bytes.len())
        }
        None => None,
    }
}

/// The order every answer lists diagnostics in: by file, place, then what.
pub(crate) fn sort(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (&a.path, a.byte_start, a.byte_end, &a.checker, &a.code, &a.message, a.severity).cmp(&(
            &b.path,
            b.byte_start,
            b.byte_end,
            &b.checker,
            &b.code,
            &b.message,
            b.severity,
        ))
    });
    // A checker that reports one thing twice (cargo, for a lib and its tests) says it once.
    findings.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        let bytes = text.as_bytes().to_vec();
        Source {
            rel: "f".into(),
            index: LineIndex::new(&bytes),
            checksum: aide_core::checksum::sha256_hex(&bytes),
            bytes,
        }
    }

    #[test]
    fn each_column_unit_lands_on_the_same_byte() {
        // "é" is 2 bytes, 1 char, 1 UTF-16 unit; "😀" 4 bytes, 1 char, 2 units.
        let s = source("ab\nxé😀yz\n");
        let y = "ab\nxé😀".len();
        let at = |column, columns| offset_of(&s, Point::LineColumn { line: 2, column, columns });
        assert_eq!(at(4, Columns::Chars), Some(y));
        assert_eq!(at(1 + "xé😀".len(), Columns::Bytes), Some(y));
        assert_eq!(at(5, Columns::Utf16), Some(y));
        assert_eq!(offset_of(&s, Point::Utf16Offset(3 + 4)), Some(y));
        // Inside the surrogate pair: no place.
        assert_eq!(at(4, Columns::Utf16), None);
        // The column just past the line's end is its end; further is nowhere.
        assert_eq!(at(6, Columns::Chars), Some("ab\nxé😀yz".len()));
        assert_eq!(at(7, Columns::Chars), None);
    }

    #[test]
    fn a_point_past_the_end_falls_back_to_the_line_end() {
        let s = source("one\ntwo\n");
        assert_eq!(span_of(&s, Point::LineColumn { line: 2, column: 40, columns: Columns::Chars }, None), (7, 7));
        assert_eq!(span_of(&s, Point::LineColumn { line: 9, column: 1, columns: Columns::Chars }, None), (8, 8));
    }
}
