//! What the searcher reports of one file, gathered into its matches: each
//! with its own context lines (rebuilt from every line reported, so
//! overlapping contexts stay each match's), captures and cut lines, and
//! where the file turned out binary; and the settings each file is
//! searched with.

use std::collections::BTreeMap;
use std::io;

use aide_core::checksum::cache::Cache as ChecksumCache;
use aide_core::text::{lossy, shorten, trim_terminator};
use aide_core::{LineIndex, Root};
use grep_matcher::{Match as Span, Matcher};
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use crate::output::{Capture, Match};
use crate::request::Mode;

/// How far past a multi-line match the regex may look (as ripgrep).
const MAX_LOOK_AHEAD: usize = 128;

/// How each file of a search is searched and its matches shown.
pub(crate) struct FileSettings<'a> {
    pub(crate) root: &'a Root,
    /// Builds a fresh searcher when a file may have grown the thread's one.
    pub(crate) searcher: &'a SearcherBuilder,
    pub(crate) matcher: &'a RegexMatcher,
    pub(crate) capture_regexes: &'a [regex::bytes::Regex],
    pub(crate) mode: Mode,
    pub(crate) context: (usize, usize),
    pub(crate) max_line_len: usize,
    pub(crate) max_filesize: Option<u64>,
    /// Serialize each file's matches where it was searched (the whole page
    /// of a compact JSON document: see `Context::prepared_records`).
    pub(crate) serialize: bool,
    /// Checksums of large files remembered between runs.
    pub(crate) cache: &'a ChecksumCache,
}

/// A match whose context is not complete yet (after-context lines arrive later).
pub(crate) struct Pending {
    index: usize,
    first_line: u64,
    last_line: u64,
}

pub(crate) struct FileSink<'a> {
    pub(crate) settings: &'a FileSettings<'a>,
    pub(crate) path: &'a str,
    pub(crate) matches: Vec<Match>,
    pub(crate) count: usize,
    pub(crate) lines: usize,
    /// Every line the searcher reported (matched or context), for rebuilding
    /// each match's own context. Only kept when context is asked for.
    pub(crate) seen_lines: BTreeMap<u64, Vec<u8>>,
    pub(crate) pending: Vec<Pending>,
    pub(crate) binary_offset: Option<u64>,
}

impl<'a> FileSink<'a> {
    /// An empty sink for the file at `path`.
    pub(crate) fn new(settings: &'a FileSettings<'a>, path: &'a str) -> FileSink<'a> {
        FileSink {
            settings,
            path,
            matches: Vec::new(),
            count: 0,
            lines: 0,
            seen_lines: BTreeMap::new(),
            pending: Vec::new(),
            binary_offset: None,
        }
    }

    /// The matches in the lines at `range` of `buf`: the bytes the regex
    /// may see (the matched lines, plus look-ahead in multi-line mode, minus
    /// the terminator in line mode, as ripgrep) and the spans in them.
    fn spans_in<'b>(
        &self,
        searcher: &Searcher,
        buf: &'b [u8],
        range: std::ops::Range<usize>,
    ) -> Result<(&'b [u8], Vec<Span>), io::Error> {
        let multi_line = searcher.multi_line_with_matcher(self.settings.matcher);
        let end = if multi_line {
            (range.end + MAX_LOOK_AHEAD).min(buf.len())
        } else {
            range.start + trim_terminator(&buf[range.clone()]).len()
        };
        let haystack = &buf[..end];
        let mut spans: Vec<Span> = Vec::new();
        self.settings
            .matcher
            .find_iter_at(haystack, range.start, |m| {
                if m.start() >= range.end {
                    return false;
                }
                spans.push(m);
                true
            })
            .map_err(io::Error::other)?;
        // Like ripgrep, no empty match at the very end of the bytes.
        if spans.last().is_some_and(|m| m.is_empty() && m.start() >= buf.len()) {
            spans.pop();
        }
        Ok((haystack, spans))
    }

    fn wants_context(&self) -> bool {
        self.settings.mode == Mode::Content && (self.settings.context.0 > 0 || self.settings.context.1 > 0)
    }

    fn remember_line(&mut self, number: u64, bytes: &[u8]) {
        self.seen_lines.entry(number).or_insert_with(|| bytes.to_vec());
    }

    fn line_text(&self, number: u64) -> Option<(String, bool, bool)> {
        let bytes = self.seen_lines.get(&number)?;
        let (text, lossy) = lossy(trim_terminator(bytes));
        let (text, cut) = shorten(text, self.settings.max_line_len);
        Some((text, lossy, cut))
    }

    /// Fills in the context of every pending match.
    pub(crate) fn finish_context(&mut self) {
        let (before, after) = self.settings.context;
        for p in std::mem::take(&mut self.pending) {
            let mut lossy_any = false;
            let mut cut_any = false;
            // The lines kept, not every number in the range: `-C 1000000000`
            // costs what the file has, not a billion lookups per match.
            let mut collect = |range: std::ops::RangeInclusive<u64>| -> Vec<String> {
                // An empty range (no context on that side) reads nothing:
                // `BTreeMap::range` panics on a start past the end.
                if range.is_empty() {
                    return Vec::new();
                }
                let numbers: Vec<u64> = self.seen_lines.range(range).map(|(n, _)| *n).collect();
                numbers
                    .into_iter()
                    .filter_map(|n| self.line_text(n))
                    .map(|(t, l, c)| {
                        lossy_any |= l;
                        cut_any |= c;
                        t
                    })
                    .collect()
            };
            let from = p.first_line.saturating_sub(before as u64).max(1);
            let context_before = collect(from..=p.first_line.saturating_sub(1));
            let context_after = collect(p.last_line + 1..=p.last_line.saturating_add(after as u64));
            let m = &mut self.matches[p.index];
            m.context_before = context_before;
            m.context_after = context_after;
            m.lossy |= lossy_any;
            m.line_truncated |= cut_any;
        }
        self.seen_lines.clear();
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let buf = mat.buffer();
        let range = mat.bytes_range_in_buffer();
        let first_line = mat.line_number().unwrap_or(1);
        self.lines += mat.lines().count();
        if self.wants_context() {
            for (i, line) in mat.lines().enumerate() {
                self.remember_line(first_line + i as u64, line);
            }
        }
        let (haystack, spans) = self.spans_in(searcher, buf, range.clone())?;
        self.count += spans.len();
        if self.settings.mode != Mode::Content || spans.is_empty() {
            return Ok(true);
        }

        let base = mat.absolute_byte_offset() as usize;
        let local = &haystack[range.start..];
        let index = LineIndex::new(local);
        // Many matches on one long line: its text and columns are worked out
        // once for the line, not once per match (linear in the line).
        let mut cursor = None;
        let mut shown_line: Option<((usize, usize), ShownLine)> = None;
        for m in spans {
            let (rs, re) = (m.start() - range.start, m.end() - range.start);
            let start = index.position_from(local, rs, &mut cursor);
            let end_pos = index.position_from(local, re, &mut cursor);
            let last_rel_line = if re > rs { index.line_of(re - 1) } else { start.line };
            let text_start = index.line_range(start.line).map_or(rs, |r| r.start);
            let text_end = index.line_content_range(local, last_rel_line).map_or(re, |r| r.end).max(rs);
            let matched = &local[rs..re];
            let (text, lossy_text) = lossy(matched);
            let (text, cut_text) = shorten(text, self.settings.max_line_len);
            let (line_text, lossy_line, cut_line) = match &shown_line {
                Some((at, shown)) if *at == (text_start, text_end) => shown.clone(),
                _ => {
                    let (line_text, lossy_line) = lossy(&local[text_start..text_end]);
                    let (line_text, cut_line) = shorten(line_text, self.settings.max_line_len);
                    let shown = (line_text, lossy_line, cut_line);
                    shown_line = Some(((text_start, text_end), shown.clone()));
                    shown
                }
            };
            let byte_start = base + rs;
            let byte_end = base + re;
            let captures =
                (!self.settings.capture_regexes.is_empty()).then(|| captures_of(self.settings, local, rs, re, base));
            let line = first_line as usize + start.line - 1;
            let end_line = first_line as usize + end_pos.line - 1;
            self.matches.push(Match {
                match_id: aide_core::ids::span_id(self.path, byte_start, byte_end, matched),
                path: self.path.to_string(),
                checksum: "".into(),
                span: aide_core::Span {
                    byte_start,
                    byte_end,
                    line,
                    column: start.column,
                    end_line,
                    end_column: end_pos.column,
                },
                text,
                line_text,
                context_before: Vec::new(),
                context_after: Vec::new(),
                captures,
                lossy: lossy_text || lossy_line,
                line_truncated: cut_text || cut_line,
            });
            if self.wants_context() {
                self.pending.push(Pending {
                    index: self.matches.len() - 1,
                    first_line: line as u64,
                    last_line: first_line + last_rel_line as u64 - 1,
                });
            }
        }
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.wants_context()
            && let Some(n) = ctx.line_number()
        {
            self.remember_line(n, ctx.bytes());
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, binary_byte_offset: u64) -> Result<bool, io::Error> {
        self.binary_offset = Some(binary_byte_offset);
        Ok(true)
    }
}

/// A line as a match record shows it: its text (cut at `--max-line-len`),
/// whether it was shown lossily, and whether it was cut.
type ShownLine = (String, bool, bool);

/// The capture groups of the match at `rs..re` of `local`.
fn captures_of(s: &FileSettings<'_>, local: &[u8], rs: usize, re: usize, base: usize) -> Vec<Capture> {
    for regex in s.capture_regexes {
        let Some(caps) = regex.captures_at(local, rs) else {
            continue;
        };
        let Some(whole) = caps.get(0) else { continue };
        if whole.start() != rs || whole.end() != re {
            continue;
        }
        return regex
            .capture_names()
            .enumerate()
            .map(|(index, name)| {
                let g = caps.get(index);
                Capture {
                    index,
                    name: name.map(str::to_string),
                    byte_start: g.map(|g| base + g.start()),
                    byte_end: g.map(|g| base + g.end()),
                    text: g.map(|g| lossy(g.as_bytes()).0),
                }
            })
            .collect();
    }
    // No single pattern reproduces the span (e.g. --word edge cases): report
    // the whole match only.
    vec![Capture {
        index: 0,
        name: None,
        byte_start: Some(base + rs),
        byte_end: Some(base + re),
        text: Some(lossy(&local[rs..re]).0),
    }]
}
