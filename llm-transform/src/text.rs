//! Byte-exact text work: span edits, line endings, near misses, diffs.

use aide_core::text::Eol;
use serde::Serialize;

/// `text` with its line breaks in the style of a file with endings `eol`
/// (CRLF only for an all-CRLF file; others get the text as written).
pub(crate) fn to_eol(text: &str, eol: Eol) -> String {
    match eol {
        Eol::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
        _ => text.to_string(),
    }
}

/// Why a batch of span edits cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpanEditError {
    #[error("edit {index}: byte_start {start} is after byte_end {end}")]
    Reversed { index: usize, start: usize, end: usize },
    #[error("edit {index}: span {start}..{end} is past the end of the file ({size} bytes)")]
    PastTheEnd { index: usize, start: usize, end: usize, size: usize },
    #[error("edit {index}: offset {offset} cuts a UTF-8 character")]
    SplitsCharacter { index: usize, offset: usize },
    #[error("edits {} ({}..{}) and {} ({}..{}) overlap", .first.0, .first.1, .first.2, .second.0, .second.1, .second.2)]
    Overlap { first: (usize, usize, usize), second: (usize, usize, usize) },
}

/// Applies non-overlapping byte-span replacements in one batch, from the
/// end backwards so no offset drifts. Refuses spans out of range, reversed,
/// cutting a UTF-8 character, or overlapping (two insertions at one offset
/// count as overlapping: their order would be a guess).
#[cfg(test)]
pub(crate) fn apply_span_edits(bytes: &[u8], edits: &[(usize, usize, &[u8])]) -> Result<Vec<u8>, SpanEditError> {
    apply_span_edits_tracked(bytes, edits).map(|(out, _)| out)
}

/// Whether two spans, `first` starting no later than `second`, cannot both
/// be replaced: they share bytes, or both insert at one offset (their order
/// would be a guess).
pub(crate) fn overlapping(first: (usize, usize), second: (usize, usize)) -> bool {
    let both_insert_at_one_point = first.0 == first.1 && second.0 == second.1 && first.0 == second.0;
    second.0 < first.1 || both_insert_at_one_point
}

/// [`apply_span_edits`], also returning each edit as `(start, end,
/// new_len)` in byte order (what [`crate::sites::Regions::apply`] takes).
/// The result is built in one forward pass: linear in the file and the
/// number of edits.
pub(crate) fn apply_span_edits_tracked(
    bytes: &[u8],
    edits: &[(usize, usize, &[u8])],
) -> Result<(Vec<u8>, crate::sites::Applied), SpanEditError> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].0, edits[i].1));
    for (n, &i) in order.iter().enumerate() {
        let (s, e, _) = edits[i];
        if s > e {
            return Err(SpanEditError::Reversed { index: i, start: s, end: e });
        }
        if e > bytes.len() {
            return Err(SpanEditError::PastTheEnd { index: i, start: s, end: e, size: bytes.len() });
        }
        for at in [s, e] {
            if !aide_core::span::is_char_boundary(bytes, at) {
                return Err(SpanEditError::SplitsCharacter { index: i, offset: at });
            }
        }
        if let Some(&j) = order.get(n + 1) {
            let (s2, e2, _) = edits[j];
            if overlapping((s, e), (s2, e2)) {
                return Err(SpanEditError::Overlap { first: (i, s, e), second: (j, s2, e2) });
            }
        }
    }
    let growth: usize = edits.iter().map(|(_, _, r)| r.len()).sum();
    let mut out = Vec::with_capacity(bytes.len() + growth);
    let mut at = 0;
    let mut tracked = Vec::with_capacity(edits.len());
    for &i in &order {
        let (s, e, r) = edits[i];
        out.extend_from_slice(&bytes[at..s]);
        out.extend_from_slice(r);
        at = e;
        tracked.push((s, e, r.len()));
    }
    out.extend_from_slice(&bytes[at..]);
    Ok((out, tracked))
}

/// The text nearest a patch's `old_text` that was not found.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    /// First line of the closest window, 1-based.
    pub line: usize,
    /// 0..1: the share of characters in common (`aide_diff::similarity`).
    pub similarity: f32,
    /// The two differ only in spaces, tabs or line endings.
    pub whitespace_only: bool,
    /// Unified diff from old_text (`-`) to the file's text (`+`).
    pub diff: String,
}

/// The window of the file's lines most similar to `old`, if any is at least
/// half similar. Bounded: files over 20,000 lines are not scanned.
pub(crate) fn near_miss(bytes: &[u8], old: &str) -> Option<NearMiss> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let want = old.split_inclusive('\n').count().max(1);
    if lines.len() > 20_000 || lines.is_empty() {
        return None;
    }
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let old_squashed = squash(old);
    let mut best: Option<(f32, usize)> = None;
    for start in 0..lines.len() {
        let end = (start + want).min(lines.len());
        let window: String = lines[start..end].concat();
        if squash(&window) == old_squashed {
            best = Some((1.0, start));
            break;
        }
        let ratio = aide_diff::similarity(old, window.as_str());
        if best.is_none_or(|(r, _)| ratio > r) {
            best = Some((ratio, start));
        }
    }
    let (ratio, start) = best?;
    if ratio < 0.5 {
        return None;
    }
    let end = (start + want).min(lines.len());
    let window: String = lines[start..end].concat();
    let diff = aide_diff::LineDiff::new(old.as_bytes(), window.as_bytes()).unified("old_text", "file", 1);
    Some(NearMiss {
        line: start + 1,
        similarity: (ratio * 1000.0).round() / 1000.0,
        whitespace_only: squash(&window) == old_squashed,
        diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spans_are_checked() {
        let text = "héllo wörld".as_bytes();
        assert_eq!(apply_span_edits(text, &[(0, 1, b"H")]).unwrap(), "Héllo wörld".as_bytes());
        use SpanEditError as E;
        assert_eq!(apply_span_edits(text, &[(2, 3, b"e")]), Err(E::SplitsCharacter { index: 0, offset: 2 }));
        assert_eq!(
            apply_span_edits(text, &[(0, 99, b"")]),
            Err(E::PastTheEnd { index: 0, start: 0, end: 99, size: 13 })
        );
        assert_eq!(apply_span_edits(text, &[(3, 1, b"")]), Err(E::Reversed { index: 0, start: 3, end: 1 }));
        let overlap = apply_span_edits(text, &[(0, 4, b""), (3, 5, b"")]).unwrap_err();
        assert_eq!(overlap.to_string(), "edits 0 (0..4) and 1 (3..5) overlap");
        assert!(matches!(apply_span_edits(text, &[(0, 0, b"a"), (0, 0, b"b")]), Err(E::Overlap { .. })));
        // Touching spans are fine.
        assert_eq!(apply_span_edits(b"abcd", &[(0, 2, b"X"), (2, 4, b"Y")]).unwrap(), b"XY");
    }

    #[test]
    fn line_endings_follow_the_file() {
        assert_eq!(to_eol("a\nb\r\nc", Eol::of(b"a\r\nb\r\n")), "a\r\nb\r\nc");
        assert_eq!(to_eol("a\nb", Eol::of(b"a\r\nb\n")), "a\nb");
    }

    #[test]
    fn near_misses_spot_whitespace_differences() {
        let file = b"fn main() {\n\tlet x = 1;\n}\n";
        let miss = near_miss(file, "    let x = 1;\n").unwrap();
        assert_eq!((miss.line, miss.whitespace_only), (2, true));
        assert!(near_miss(file, "completely different text that is long\n").is_none());
    }

    proptest! {
        /// A batch of non-overlapping edits equals the same edits applied one
        /// at a time from the end.
        #[test]
        fn batch_equals_one_at_a_time_from_the_end(
            text in "[a-zé\n ]{0,60}",
            raw in proptest::collection::vec((0usize..80, 0usize..6, "[x-zä]{0,4}"), 0..8),
        ) {
            let bytes = text.as_bytes();
            // Make the spans valid and non-overlapping: sort, clamp to char
            // boundaries, drop overlaps.
            let mut spans: Vec<(usize, usize, String)> = Vec::new();
            let mut sorted = raw.clone();
            sorted.sort();
            let mut last_end = 0usize;
            for (s, len, r) in sorted {
                let mut s = s.min(bytes.len());
                while !aide_core::span::is_char_boundary(bytes, s) { s -= 1; }
                let mut e = (s + len).min(bytes.len());
                while !aide_core::span::is_char_boundary(bytes, e) { e += 1; }
                if s < last_end || (s == e && spans.iter().any(|p| p.0 == s && p.1 == s)) {
                    continue;
                }
                last_end = e;
                spans.push((s, e, r));
            }
            let edits: Vec<(usize, usize, &[u8])> = spans.iter().map(|(s, e, r)| (*s, *e, r.as_bytes())).collect();
            let batch = apply_span_edits(bytes, &edits).unwrap();
            let mut one_by_one = bytes.to_vec();
            for (s, e, r) in spans.iter().rev() {
                one_by_one = apply_span_edits(&one_by_one, &[(*s, *e, r.as_bytes())]).unwrap();
            }
            prop_assert_eq!(batch, one_by_one);
        }
    }
}

/// How a file indents: with tabs, or with spaces in steps of `unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Indent {
    Tabs,
    Spaces(usize),
}

impl Indent {
    /// The style most of the file's indented lines use (None for a file with
    /// no indented line). The space step is the most common increase from
    /// one line's indentation to the next.
    pub(crate) fn of(bytes: &[u8]) -> Option<Indent> {
        let (mut tabs, mut spaces) = (0usize, 0usize);
        let mut steps = std::collections::BTreeMap::<usize, usize>::new();
        let mut prev = 0;
        for line in bytes.split(|&b| b == b'\n') {
            let body = line.iter().position(|b| !matches!(b, b' ' | b'\t'));
            let Some(width) = body else { continue }; // blank
            if line[width] == b'*' {
                continue; // ` * ` continuation of a block comment
            }
            match line.first() {
                Some(b'\t') => tabs += 1,
                Some(b' ') => spaces += 1,
                _ => {}
            }
            if !line[..width].contains(&b'\t') {
                if width > prev {
                    *steps.entry(width - prev).or_default() += 1;
                }
                prev = width;
            }
        }
        if tabs == 0 && spaces == 0 {
            return None;
        }
        if tabs > spaces {
            return Some(Indent::Tabs);
        }
        let unit = steps.iter().max_by_key(|(step, n)| (**n, std::cmp::Reverse(**step))).map_or(4, |(s, _)| *s);
        Some(Indent::Spaces(unit.clamp(1, 8)))
    }
}

/// `block` re-indented to sit at `target` (the whitespace that starts the
/// target's line), whatever indentation the caller gave it:
///
/// * a first line indented by `I` makes `I` the block's own base, and every
///   line keeps its indentation relative to it;
/// * a bare first line (as a symbol's span starts) with the other lines
///   already at `target` depth (copied from the file: each deeper or a
///   closing line, or the last one closing the block at that depth) keeps
///   them there; otherwise the other lines are relative to the first.
///
/// With `first_in_place` the first line gets no indentation (it replaces
/// text that starts after the target's own indentation). Blank lines stay
/// empty; indentation is converted to the file's tabs or spaces.
pub(crate) fn reindent(block: &str, target: &str, first_in_place: bool, file: Option<Indent>) -> String {
    let lines: Vec<&str> = block.split_inclusive('\n').collect();
    let is_blank = |l: &str| l.trim().is_empty();
    // The first line with text sets the base (a snippet often starts with a blank line).
    let head = lines.iter().position(|l| !is_blank(l)).unwrap_or(0);
    let first_indent = lines.get(head).map_or("", |l| leading(l));
    let rest: Vec<&str> = lines.iter().skip(head + 1).copied().filter(|l| !is_blank(l)).collect();
    let base = if !first_indent.is_empty() {
        first_indent
    } else {
        let closing = |l: &str| l.starts_with(['}', ')', ']']) || l.starts_with("end") || l.starts_with("</");
        // Copied: every other line at least at the target's depth, and
        // either each deeper or closing, or the last one closing the block
        // at exactly that depth (rustfmt's `where` and `{` lines sit there).
        let inner: Vec<&str> = rest.iter().filter_map(|l| l.strip_prefix(target)).collect();
        let copied_from_file = !target.is_empty()
            && !rest.is_empty()
            && inner.len() == rest.len()
            && (inner.iter().all(|l| !leading(l).is_empty() || closing(l)) || inner.last().is_some_and(|l| closing(l)));
        if copied_from_file { target } else { "" }
    };
    // The block's own style, to convert to the file's.
    let relative: Vec<&str> = rest.iter().map(|l| strip_prefix_width(leading(l), base)).collect();
    let block_uses_tabs = relative.iter().any(|w| w.starts_with('\t'));
    let block_unit = relative.iter().map(|w| w.len()).filter(|&n| n > 0).min().unwrap_or(4);
    let convert = |ws: &str| -> String {
        match (file, block_uses_tabs) {
            (Some(Indent::Tabs), false) if !ws.is_empty() => {
                let n =
                    ws.chars().filter(|&c| c == ' ').count() + ws.chars().filter(|&c| c == '\t').count() * block_unit;
                format!("{}{}", "\t".repeat(n / block_unit), " ".repeat(n % block_unit))
            }
            (Some(Indent::Spaces(unit)), true) => ws.replace('\t', &" ".repeat(unit)),
            _ => ws.to_string(),
        }
    };
    let mut out = String::with_capacity(block.len() + lines.len() * target.len());
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start_matches([' ', '\t']);
        if is_blank(line) {
            out.push_str(&line[line.trim_end_matches(['\r', '\n']).len()..]);
            continue;
        }
        if !(i == 0 && first_in_place) {
            out.push_str(target);
        }
        if i > head || !first_indent.is_empty() {
            out.push_str(&convert(strip_prefix_width(leading(line), base)));
        }
        out.push_str(body);
    }
    out
}

/// The spaces and tabs that start `line`.
fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `ws` without the leading part that `base` accounts for: all of `base`
/// when `ws` starts with it, else as many characters as `base` has.
fn strip_prefix_width<'a>(ws: &'a str, base: &str) -> &'a str {
    ws.strip_prefix(base).unwrap_or_else(|| &ws[base.len().min(ws.len())..])
}

#[cfg(test)]
mod reindent_tests {
    use super::*;

    const FOUR: Option<Indent> = Some(Indent::Spaces(4));

    #[test]
    fn a_bare_python_method_takes_the_class_indentation() {
        let block = "def open_session(self, app, request):\n    return None";
        assert_eq!(reindent(block, "    ", true, FOUR), "def open_session(self, app, request):\n        return None");
        assert_eq!(
            reindent(block, "    ", false, FOUR),
            "    def open_session(self, app, request):\n        return None"
        );
    }

    #[test]
    fn a_pre_indented_block_is_not_indented_twice() {
        let block = "    def f(self):\n        if x:\n            return 1\n";
        assert_eq!(reindent(block, "    ", true, FOUR), "def f(self):\n        if x:\n            return 1\n");
        let deeper = "        def f(self):\n            return 1";
        assert_eq!(reindent(deeper, "  ", false, Some(Indent::Spaces(2))), "  def f(self):\n      return 1");
    }

    #[test]
    fn a_span_copied_from_the_file_keeps_its_depth() {
        // As llm-read shows a symbol's byte range: first line bare, the rest at file depth.
        let copied = "fn run(&self) {\n        self.go();\n    }";
        assert_eq!(reindent(copied, "    ", true, FOUR), copied);
        let py = "def f(self):\n        x = 1\n        return x";
        assert_eq!(reindent(py, "    ", true, FOUR), py);
        // Dedented nested Python stays relative to its first line.
        let dedented = "def f(self):\n    if x:\n        return 1";
        assert_eq!(reindent(dedented, "    ", true, FOUR), "def f(self):\n        if x:\n            return 1");
        let rust = "fn run(&self) {\n    self.go();\n}";
        assert_eq!(reindent(rust, "    ", true, FOUR), "fn run(&self) {\n        self.go();\n    }");
    }

    #[test]
    fn a_copied_span_whose_lines_start_at_its_depth_keeps_them() {
        // rustfmt's `where` and `{` at the item's own depth (regex-syntax's
        // ClassUnicode::new): replacing a block by its own text changes nothing.
        let copied = "pub fn new<I>(ranges: I) -> ClassUnicode\n    where\n        I: IntoIterator,\n    {\n        ClassUnicode {}\n    }";
        assert_eq!(reindent(copied, "    ", true, FOUR), copied);
        let relative =
            "pub fn new<I>(ranges: I) -> ClassUnicode\nwhere\n    I: IntoIterator,\n{\n    ClassUnicode {}\n}";
        assert_eq!(reindent(relative, "    ", true, FOUR), copied);
    }

    #[test]
    fn tabs_and_spaces_follow_the_file() {
        assert_eq!(
            reindent("func (c *C) F() {\n    return\n}", "", true, Some(Indent::Tabs)),
            "func (c *C) F() {\n\treturn\n}"
        );
        assert_eq!(reindent("def f():\n\treturn 1", "    ", false, FOUR), "    def f():\n        return 1");
        assert_eq!(reindent("a\n\n  b\n", "\t", false, Some(Indent::Tabs)), "\ta\n\n\t\tb\n");
    }

    #[test]
    fn a_leading_blank_line_does_not_hide_the_base() {
        let snippet = "\n    fn helper() -> bool {\n        true\n    }\n";
        assert_eq!(reindent(snippet, "    ", false, FOUR), snippet);
        assert_eq!(
            reindent("\ndef g(self):\n    return 2\n", "    ", false, FOUR),
            "\n    def g(self):\n        return 2\n"
        );
    }

    #[test]
    fn file_indentation_is_detected() {
        assert_eq!(Indent::of(b"class A:\n    def f(self):\n        pass\n"), Some(Indent::Spaces(4)));
        assert_eq!(Indent::of(b"a:\n  b:\n    c\n  d\n"), Some(Indent::Spaces(2)));
        assert_eq!(Indent::of(b"func f() {\n\tx()\n}\n"), Some(Indent::Tabs));
        assert_eq!(Indent::of(b"flat\nfile\n"), None);
        assert_eq!(Indent::of(b"/*\n * doc\n */\nint x;\n"), None);
    }
}
