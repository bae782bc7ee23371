//! The result of a search and its text form.

use aide_core::text::escape_controls;
use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};

use aide_harness::cli::Render;
use schemars::JsonSchema;
use serde::Serialize;

use crate::request::Mode;

/// One match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Match {
    /// Stable id of this span: the same on every run while the file is unchanged.
    pub match_id: String,
    pub path: String,
    /// SHA-256 of the file's bytes as searched: pass it to an edit of this
    /// span (`llm-transform --from-matches`, or `checksum_before`).
    pub checksum: std::sync::Arc<str>,
    #[serde(flatten)]
    pub span: aide_core::Span,
    /// The matched text.
    #[serde(rename = "match")]
    pub text: String,
    /// The line(s) the match is on, without the line terminator.
    pub line_text: String,
    pub context_before: Vec<String>,
    pub context_after: Vec<String>,
    /// Capture group spans, with `--captures`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captures: Option<Vec<Capture>>,
    /// Some text of this match was not valid UTF-8 and is shown lossily.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub lossy: bool,
    /// A shown line was cut at --max-line-len.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub line_truncated: bool,
}

/// The span of one capture group of a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Capture {
    /// Group number; 0 is the whole match.
    pub index: usize,
    pub name: Option<String>,
    /// None when the group did not participate in the match.
    pub byte_start: Option<usize>,
    pub byte_end: Option<usize>,
    #[serde(rename = "match")]
    pub text: Option<String>,
}

/// Counts for one file, in files and count modes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileCount {
    pub path: String,
    /// SHA-256 of the file's bytes as searched.
    pub checksum: std::sync::Arc<str>,
    /// Number of matches.
    pub matches: usize,
    /// Number of lines with a match.
    pub lines: usize,
}

/// The result of a search.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchOutput {
    pub mode: Mode,
    /// The matches (content mode), sorted by path, then byte_start.
    pub matches: Vec<Match>,
    /// Files with matches (files and count modes), sorted by path.
    pub files: Vec<FileCount>,
    /// Matches in all files, whatever --limit and --offset cut.
    pub total_matches: usize,
    pub total_lines: usize,
    pub files_searched: usize,
    pub files_with_matches: usize,
    /// More results remain past this page or a cap.
    pub truncated: bool,
    /// The --offset that continues after this page, when truncated.
    pub next_offset: Option<usize>,
    /// The totals count every file. False when --limit stopped the search
    /// once the page was full and one more match showed that more remain:
    /// the totals then count the files up to that match (a lower bound).
    pub totals_exact: bool,
    /// The matches were printed as they were found (text and JSONL on the
    /// command line); `matches` is then empty (the log's copy is
    /// `records_json`).
    #[serde(skip)]
    pub streamed: bool,
    /// How many matches were printed, when streamed.
    #[serde(skip)]
    pub printed: usize,
    /// Streamed, the page is over what the execution log keeps: about this
    /// many bytes of JSON (and `records_json` does not hold it).
    #[serde(skip)]
    pub log_overflow: Option<u64>,
    /// The page's matches as JSON, serialized where they were found
    /// (`matches` is then empty): what was printed, for the log, when
    /// streamed; the whole page of a compact JSON document otherwise
    /// ([`aide_core::tool::Render::records_json`]).
    #[serde(skip)]
    pub records_json: Option<Vec<String>>,
}

/// Appends `matches` to `out` as JSON records, comma-separated (a comma
/// first when `out` already holds some): the items of a records array.
pub(crate) fn append_json(out: &mut Vec<u8>, matches: &[Match]) {
    for m in matches {
        if !out.is_empty() {
            out.push(b',');
        }
        // A Match always serializes.
        let _ = serde_json::to_writer(&mut *out, m);
    }
}

/// Matches as text mode prints them: a line with several matches once, at
/// its first match's column, with every match on it marked, as rg prints
/// it (JSON lists every match).
pub(crate) fn write_matches(w: &mut TextOut<'_>, matches: &[Match]) -> io::Result<()> {
    let mut rest = matches;
    while let Some(first) = rest.first() {
        let same_line = rest
            .iter()
            .take_while(|m| (m.path.as_str(), m.span.line) == (first.path.as_str(), first.span.line))
            .count();
        let marks: Vec<(usize, usize)> = if w.colored() {
            rest[..same_line].iter().filter_map(|m| marks_on_line(first, m)).collect()
        } else {
            Vec::new()
        };
        write_match(w, first, &marks)?;
        rest = &rest[same_line..];
    }
    Ok(())
}

/// One match as text mode prints it: its context lines around
/// `path:line:column: text`, with `marks` (character ranges of the line
/// text, see [`marks_on_line`]) painted as matches.
pub(crate) fn write_match(w: &mut TextOut<'_>, m: &Match, marks: &[(usize, usize)]) -> io::Result<()> {
    let path = escape_controls(&m.path);
    let first_context_line = m.span.line - m.context_before.len();
    for (i, text) in m.context_before.iter().enumerate() {
        write_prefix(w, &path, first_context_line + i, None)?;
        writeln!(w, " {text}")?;
    }
    write_prefix(w, &path, m.span.line, Some(m.span.column))?;
    w.write_all(b" ")?;
    w.marked(&m.line_text, marks)?;
    w.write_all(b"\n")?;
    for (i, text) in m.context_after.iter().enumerate() {
        write_prefix(w, &path, m.span.end_line + 1 + i, None)?;
        writeln!(w, " {text}")?;
    }
    Ok(())
}

/// `path:line:column:` of a match, or `path-line-` of a context line.
fn write_prefix(w: &mut TextOut<'_>, path: &str, line: usize, column: Option<usize>) -> io::Result<()> {
    w.paint(Paint::Path, path)?;
    let sep = if column.is_some() { ':' } else { '-' };
    write!(w, "{sep}")?;
    w.paint(Paint::LineNumber, line)?;
    match column {
        Some(c) => write!(w, ":{c}:"),
        None => write!(w, "-"),
    }
}

/// Where `m` lies in `line_text` of the line it starts on (`on`, printed):
/// a character range, as columns count characters (an invalid UTF-8
/// sequence is one column and one U+FFFD). A match running past the line
/// text (cut at --max-line-len) stops at its end.
pub(crate) fn marks_on_line(on: &Match, m: &Match) -> Option<(usize, usize)> {
    if (m.path.as_str(), m.span.line) != (on.path.as_str(), on.span.line) {
        return None;
    }
    let start = m.span.column - 1;
    let end = if m.span.end_line == m.span.line {
        m.span.end_column - 1
    } else {
        // A multiline match: its line text holds every line it spans.
        let last_line_start = on
            .line_text
            .chars()
            .enumerate()
            .filter(|(_, c)| *c == '\n')
            .nth(m.span.end_line - m.span.line - 1)
            .map(|(i, _)| i + 1);
        match last_line_start {
            Some(s) => s + m.span.end_column - 1,
            None => on.line_text.chars().count(),
        }
    };
    (end > start).then_some((start, end))
}

/// One file as text mode prints it in files or count mode.
pub(crate) fn write_file(w: &mut TextOut<'_>, f: &FileCount, mode: Mode) -> io::Result<()> {
    w.paint(Paint::Path, escape_controls(&f.path))?;
    match mode {
        Mode::Count => writeln!(w, ":{}", f.matches),
        _ => writeln!(w),
    }
}

impl Render for SearchOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self.mode {
            Mode::Content if self.streamed => {}
            Mode::Content => write_matches(w, &self.matches)?,
            Mode::Files | Mode::Count => {
                for f in &self.files {
                    write_file(w, f, self.mode)?;
                }
            }
        }
        if self.mode == Mode::Count {
            writeln!(
                w,
                "total: {} matches on {} lines in {} of {} files",
                self.total_matches, self.total_lines, self.files_with_matches, self.files_searched
            )?;
        }
        if let Some(next) = self.next_offset {
            let at_least = if self.totals_exact { "" } else { "at least " };
            let (shown, total, what) = match self.mode {
                Mode::Content if self.streamed => (self.printed, self.total_matches, "matches"),
                Mode::Content => (self.matches.len(), self.total_matches, "matches"),
                Mode::Files | Mode::Count => (self.files.len(), self.files_with_matches, "files"),
            };
            w.paint(
                Paint::Dim,
                format_args!(
                    "[truncated: {shown} of {at_least}{total} {what} shown; continue with {}]",
                    w.voice().arg_is("offset", next)
                ),
            )?;
            writeln!(w)?;
        }
        Ok(())
    }

    fn found(&self) -> bool {
        self.total_matches > 0
    }

    fn streamed(&self) -> bool {
        self.streamed
    }

    fn log_overflow(&self) -> Option<u64> {
        self.log_overflow
    }

    fn records_json(&self) -> Option<&[String]> {
        self.records_json.as_deref()
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self.mode {
            Mode::Content => Some(("matches", "match")),
            Mode::Files | Mode::Count => Some(("files", "file")),
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        match self.mode {
            Mode::Content => aide_core::tool::keep_range(&mut self.matches, range),
            Mode::Files | Mode::Count => aide_core::tool::keep_range(&mut self.files, range),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize, end_line: usize, end_column: usize, line_text: &str) -> Match {
        Match {
            match_id: String::new(),
            path: "a.rs".into(),
            checksum: "".into(),
            span: aide_core::Span { byte_start: 0, byte_end: 0, line, column, end_line, end_column },
            text: String::new(),
            line_text: line_text.into(),
            context_before: Vec::new(),
            context_after: Vec::new(),
            captures: None,
            lossy: false,
            line_truncated: false,
        }
    }

    #[test]
    fn marks_are_character_ranges_of_the_printed_line() {
        let first = at(3, 3, 3, 6, "é foo foo");
        assert_eq!(marks_on_line(&first, &first), Some((2, 5)));
        assert_eq!(marks_on_line(&first, &at(3, 7, 3, 10, "é foo foo")), Some((6, 9)));
        // Another line, or an empty match: nothing to mark.
        assert_eq!(marks_on_line(&first, &at(4, 1, 4, 4, "foo")), None);
        assert_eq!(marks_on_line(&first, &at(3, 2, 3, 2, "é foo foo")), None);
        // A multiline match ends in its last line, counted from that line's start.
        let multi = at(1, 5, 2, 4, "abc foo\nbar baz");
        assert_eq!(marks_on_line(&multi, &multi), Some((4, 11)));
    }
}
