//! Byte spans and line/column positions.
//!
//! * `byte_start`/`byte_end` are 0-based offsets into the file's bytes as
//!   stored on disk, end exclusive.
//! * `line` is 1-based; lines end at `\n` (a `\r` before it belongs to the
//!   line's text, so CRLF files count the same lines as LF files).
//! * `column` is 1-based and counts Unicode scalar values from the line start,
//!   which is what an editor shows. A maximal invalid UTF-8 sequence counts as
//!   one column (it is displayed as one U+FFFD). An offset inside a multi-byte
//!   character maps to that character's column.
//!
//! [`LineIndex`] converts both ways and never panics, whatever the bytes.

use serde::{Deserialize, Serialize};

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A byte span with the positions of both ends: the six fields every
/// located record carries (flatten it into the record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub column: usize,
    /// The position of `byte_end` (exclusive).
    pub end_line: usize,
    pub end_column: usize,
}

/// Where [`LineIndex::position_from`] last stood.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    line: usize,
    offset: usize,
    column: usize,
}

/// Line starts of a byte buffer, for exact offset ⇄ position conversion.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of the first byte of every line; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(bytes: &[u8]) -> Self {
        let mut line_starts = Vec::with_capacity(bytes.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        LineIndex { line_starts, len: bytes.len() }
    }

    /// Number of lines. A buffer ending in `\n` has an empty last line that is
    /// not counted, as editors and `wc -l` do; an empty buffer has 0 lines.
    pub fn line_count(&self) -> usize {
        let n = self.line_starts.len();
        if self.len == 0 {
            0
        } else if self.line_starts[n - 1] == self.len {
            n - 1
        } else {
            n
        }
    }

    /// The span `start..end` of `bytes` with its positions.
    pub fn span(&self, bytes: &[u8], start: usize, end: usize) -> Span {
        let from = self.position(bytes, start);
        let to = self.position(bytes, end);
        Span {
            byte_start: start,
            byte_end: end,
            line: from.line,
            column: from.column,
            end_line: to.line,
            end_column: to.column,
        }
    }

    /// Line `line` (1-based) of `bytes` as text: without its terminator,
    /// lossy where not UTF-8, cut at `max_chars` with a marker (0: never).
    pub fn line_text(&self, bytes: &[u8], line: usize, max_chars: usize) -> String {
        let range = self.line_content_range(bytes, line).unwrap_or(0..0);
        let (text, _) = crate::text::lossy(&bytes[range]);
        crate::text::shorten(text, max_chars).0
    }

    /// The length of the indexed buffer in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// 1-based line containing `offset` (offsets past the end are clamped).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        // partition_point gives the number of line starts <= offset.
        self.line_starts.partition_point(|&s| s <= offset)
    }

    /// Byte range of line `line` (1-based) including its terminator, or None.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        if line == 0 || line > self.line_starts.len() {
            return None;
        }
        let start = self.line_starts[line - 1];
        let end = self.line_starts.get(line).copied().unwrap_or(self.len);
        if start == self.len && line > 1 {
            // The empty "line" after a final newline does not exist.
            return None;
        }
        Some(start..end)
    }

    /// Byte range of line `line` without its `\n` or `\r\n` terminator.
    pub fn line_content_range(&self, bytes: &[u8], line: usize) -> Option<std::ops::Range<usize>> {
        let mut r = self.line_range(line)?;
        if r.end > r.start && bytes.get(r.end - 1) == Some(&b'\n') {
            r.end -= 1;
            if r.end > r.start && bytes.get(r.end - 1) == Some(&b'\r') {
                r.end -= 1;
            }
        }
        Some(r)
    }

    /// The position of byte `offset` in `bytes` (the buffer this index was
    /// built from). Offsets past the end are clamped to the end.
    pub fn position(&self, bytes: &[u8], offset: usize) -> Position {
        self.position_from(bytes, offset, &mut None)
    }

    /// [`position`](Self::position) of offsets met in increasing order: the
    /// column is counted on from the last offset on the same line, so a
    /// line with many matches costs its length once, not once per match.
    pub fn position_from(&self, bytes: &[u8], offset: usize, cursor: &mut Option<Cursor>) -> Position {
        let offset = offset.min(self.len).min(bytes.len());
        let line = self.line_of(offset);
        let start = self.line_starts[line - 1];
        // An offset inside a character maps to that character's column.
        let mut char_start = offset;
        while char_start > start && !is_char_boundary(bytes, char_start) {
            char_start -= 1;
        }
        let column = match *cursor {
            Some(c) if c.line == line && c.offset <= char_start => {
                c.column + count_columns(&bytes[c.offset..char_start])
            }
            _ => count_columns(&bytes[start..char_start]) + 1,
        };
        *cursor = Some(Cursor { line, offset: char_start, column });
        Position { line, column }
    }

    /// The byte offset of `pos`, or None when the line does not exist or the
    /// column lies past the end of the line's text (the column just after the
    /// last character, before the terminator, is valid).
    pub fn offset(&self, bytes: &[u8], pos: Position) -> Option<usize> {
        if pos.column == 0 {
            return None;
        }
        let range = match self.line_content_range(bytes, pos.line) {
            Some(r) => r,
            // The end of a buffer that ends in a newline (or is empty) is the
            // start of an empty last line: a cursor can stand there.
            None if pos.line == self.line_starts.len() && self.line_starts[pos.line - 1] == self.len => {
                self.len..self.len
            }
            None => return None,
        };
        let mut remaining = pos.column - 1;
        let mut offset = range.start;
        for chunk in bytes[range.clone()].utf8_chunks() {
            for (i, _) in chunk.valid().char_indices() {
                if remaining == 0 {
                    return Some(offset + i);
                }
                remaining -= 1;
            }
            offset += chunk.valid().len();
            if !chunk.invalid().is_empty() {
                if remaining == 0 {
                    return Some(offset);
                }
                remaining -= 1;
                offset += chunk.invalid().len();
            }
        }
        (remaining == 0).then_some(offset)
    }
}

/// Number of columns in `bytes`: Unicode scalar values, plus one per
/// maximal invalid UTF-8 sequence.
fn count_columns(bytes: &[u8]) -> usize {
    bytes.utf8_chunks().map(|chunk| chunk.valid().chars().count() + usize::from(!chunk.invalid().is_empty())).sum()
}

/// Whether `offset` lies on a UTF-8 character boundary of `bytes` (invalid
/// bytes count as boundaries of their own). Used to refuse spans that would
/// cut a character in two.
pub fn is_char_boundary(bytes: &[u8], offset: usize) -> bool {
    if offset == 0 || offset >= bytes.len() {
        return offset <= bytes.len();
    }
    // Inside a character iff this is a continuation byte that belongs to a
    // valid sequence started within the previous three bytes.
    if !(0x80..=0xBF).contains(&bytes[offset]) {
        return true;
    }
    let from = offset.saturating_sub(3);
    for start in from..offset {
        let end = (start + 4).min(bytes.len());
        if let Some(chunk) = bytes[start..end].utf8_chunks().next()
            && let Some(c) = chunk.valid().chars().next()
            && start + c.len_utf8() > offset
        {
            return false;
        }
    }
    true
}

/// The byte offset of the `units`-th UTF-16 code unit of `text`.
pub fn utf16_to_byte(text: &[u8], units: usize) -> Option<usize> {
    let mut seen = 0;
    let mut offset = 0;
    for chunk in text.utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            if seen >= units {
                return (seen == units).then_some(offset + i);
            }
            seen += c.len_utf16();
        }
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            // A stray byte reads as one U+FFFD: one unit.
            if seen >= units {
                return (seen == units).then_some(offset);
            }
            seen += 1;
            offset += chunk.invalid().len();
        }
    }
    (seen == units).then_some(offset)
}

/// How many UTF-16 code units the first `byte` bytes of `text` are (a
/// language server's column); a stray byte counts one (U+FFFD).
pub fn byte_to_utf16(text: &[u8], byte: usize) -> usize {
    text[..byte.min(text.len())]
        .utf8_chunks()
        .map(|chunk| {
            chunk.valid().chars().map(char::len_utf16).sum::<usize>() + usize::from(!chunk.invalid().is_empty())
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_and_bytes_convert_both_ways() {
        let text = "aé😀b".as_bytes();
        // a(1 byte, 1 unit) é(2, 1) 😀(4, 2) b
        assert_eq!(byte_to_utf16(text, 7), 4);
        assert_eq!(utf16_to_byte(text, 4), Some(7));
        assert_eq!(utf16_to_byte(text, 3), None, "inside a surrogate pair");
    }

    #[test]
    fn positions_counted_on_agree_with_positions_counted_afresh() {
        let mut text = "héllo wörld\nabc 日本語 def\n".as_bytes().to_vec();
        text.extend_from_slice(b"\xffx y\n");
        let index = LineIndex::new(&text);
        let mut cursor = None;
        for offset in 0..=text.len() {
            assert_eq!(index.position_from(&text, offset, &mut cursor), index.position(&text, offset), "{offset}");
        }
        // Going back starts afresh.
        let mut cursor = None;
        index.position_from(&text, 9, &mut cursor);
        assert_eq!(index.position_from(&text, 2, &mut cursor), index.position(&text, 2));
    }
    use proptest::prelude::*;

    fn pos(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn lf_crlf_and_no_final_newline() {
        let text = b"ab\r\ncd\nef";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.position(text, 0), pos(1, 1));
        assert_eq!(idx.position(text, 2), pos(1, 3)); // the \r
        assert_eq!(idx.position(text, 4), pos(2, 1));
        assert_eq!(idx.position(text, 9), pos(3, 3)); // end of buffer
        assert_eq!(idx.line_content_range(text, 1), Some(0..2));
        assert_eq!(idx.line_content_range(text, 3), Some(7..9));
        assert_eq!(idx.offset(text, pos(2, 2)), Some(5));
        assert_eq!(idx.offset(text, pos(1, 3)), Some(2));
        assert_eq!(idx.offset(text, pos(1, 4)), None);
        assert_eq!(idx.offset(text, pos(4, 1)), None);
    }

    #[test]
    fn final_newline_has_no_extra_line() {
        let text = b"a\nb\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 2);
        assert_eq!(idx.line_range(3), None);
        assert_eq!(LineIndex::new(b"").line_count(), 0);
    }

    #[test]
    fn columns_count_scalar_values() {
        let text = "é日🦀x".as_bytes();
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 2), pos(1, 2));
        assert_eq!(idx.position(text, 5), pos(1, 3));
        assert_eq!(idx.position(text, 9), pos(1, 4));
        // Inside 日 (bytes 2..5) maps to 日's column.
        assert_eq!(idx.position(text, 3), pos(1, 2));
        assert_eq!(idx.offset(text, pos(1, 4)), Some(9));
    }

    #[test]
    fn invalid_utf8_counts_one_column_per_sequence() {
        let text = b"a\xff\xfeb";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 3), pos(1, 4));
        assert_eq!(idx.offset(text, pos(1, 4)), Some(3));
    }

    #[test]
    fn char_boundaries() {
        let text = "aé日".as_bytes();
        assert!(is_char_boundary(text, 0));
        assert!(is_char_boundary(text, 1));
        assert!(!is_char_boundary(text, 2));
        assert!(is_char_boundary(text, 3));
        assert!(!is_char_boundary(text, 4));
        assert!(is_char_boundary(text, 6));
        assert!(!is_char_boundary(text, 7));
        assert!(is_char_boundary(b"\x80\x80", 1));
    }

    proptest! {
        #[test]
        fn never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), off in 0usize..300, line in 0usize..20, col in 0usize..50) {
            let idx = LineIndex::new(&bytes);
            let p = idx.position(&bytes, off);
            prop_assert!(p.line >= 1 && p.column >= 1);
            let _ = idx.offset(&bytes, pos(line, col));
            let _ = is_char_boundary(&bytes, off);
        }

        #[test]
        fn roundtrip_at_char_boundaries(s in "(\\PC|\r\n|\n|\r){0,60}") {
            let bytes = s.as_bytes();
            let idx = LineIndex::new(bytes);
            for (off, _) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
                let p = idx.position(bytes, off);
                // The offset just after a \n maps to the next line's column 1; every
                // other boundary round-trips unless it sits between \r and \n
                // (inside the terminator), which has no column of its own.
                let inside_crlf = off > 0 && bytes[off - 1] == b'\r' && bytes.get(off) == Some(&b'\n');
                if !inside_crlf {
                    prop_assert_eq!(idx.offset(bytes, p), Some(off), "offset {} pos {:?}", off, p);
                }
            }
        }

        #[test]
        fn roundtrip_on_invalid_utf8(bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\n'), Just(0xC3u8), Just(0xA9u8), Just(0xFFu8)], 0..80)) {
            let idx = LineIndex::new(&bytes);
            for off in 0..=bytes.len() {
                if is_char_boundary(&bytes, off) {
                    let p = idx.position(&bytes, off);
                    prop_assert_eq!(idx.offset(&bytes, p), Some(off));
                }
            }
        }

        #[test]
        fn line_of_agrees_with_counting_newlines(bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\n')], 0..100)) {
            let idx = LineIndex::new(&bytes);
            for off in 0..=bytes.len() {
                let expected = bytes[..off].iter().filter(|&&b| b == b'\n').count() + 1;
                prop_assert_eq!(idx.line_of(off), expected);
            }
        }
    }
}
