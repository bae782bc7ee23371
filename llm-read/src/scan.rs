//! One streaming pass over a file: its checksum, line count, line endings
//! and encoding, and the bytes of the requested line range only. Memory is
//! bounded by the range asked for, not by the file (a 2 GB file costs a
//! chunk and the range).

use std::io::Read;

use aide_core::checksum::Hasher;
use aide_core::text::{Eol, NonText};

/// The bytes the binary check looks at, as git and ripgrep do.
const HEAD: usize = 8192;

/// What one pass over a file learns.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    pub size: u64,
    pub line_count: usize,
    pub checksum: String,
    pub eol: Eol,
    pub bom: bool,
    pub utf8: bool,
    pub final_newline: bool,
    /// Offsets of the range's first byte and one past its last.
    pub range_start: u64,
    pub range_end: u64,
    /// The bytes of the range.
    pub range: Vec<u8>,
}

#[derive(Debug)]
pub(crate) enum ScanError {
    NonText(NonText),
    Io(std::io::Error),
}

// Long because: one pass over the file, chunk by chunk, keeping its hash, line count, line endings and the asked range in step; carry_utf8 and eol_of are its separable steps.
/// Reads `reader` to its end in chunks of `chunk` bytes, keeping lines
/// `first ..= first + take - 1` (1-based). Stops early, before hashing the
/// rest, when the head shows binary or UTF-16 content.
pub(crate) fn scan(mut reader: impl Read, first: usize, take: usize, chunk: usize) -> Result<Scan, ScanError> {
    let mut hasher = Hasher::default();
    let mut buf = vec![0u8; chunk.max(1) + 3];
    // Bytes of an incomplete UTF-8 sequence at the end of the last chunk.
    let mut carry = 0usize;
    let mut head: Vec<u8> = Vec::new();
    let mut pos: u64 = 0;
    let (mut newlines, mut crlf) = (0usize, 0usize);
    let mut last_byte: Option<u8> = None;
    let mut utf8 = true;
    // Line `first` starts after newline number `first - 1`; the range ends
    // after newline number `first - 1 + take`.
    let start_after = first.saturating_sub(1);
    let end_after = start_after.saturating_add(take);
    let mut range_start: Option<u64> = (start_after == 0).then_some(0);
    let mut range_end: Option<u64> = (take == 0).then_some(0).and(range_start);
    let mut range = Vec::new();
    loop {
        let n = match reader.read(&mut buf[carry..carry + chunk.max(1)]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ScanError::Io(e)),
        };
        let new = &buf[carry..carry + n];
        if head.len() < HEAD {
            let take_head = (HEAD - head.len()).min(new.len());
            head.extend_from_slice(&new[..take_head]);
            if let Some(kind) = aide_core::text::non_text(&head) {
                return Err(ScanError::NonText(kind));
            }
        }
        hasher.update(new);
        if last_byte == Some(b'\r') && new.first() == Some(&b'\n') {
            crlf += 1;
        }
        crlf += memchr::memmem::find_iter(new, b"\r\n").count();
        let mut copy_from = range_start.filter(|s| *s >= pos).map(|s| (s - pos) as usize);
        let mut copy_to: Option<usize> = None;
        for i in memchr::memchr_iter(b'\n', new) {
            newlines += 1;
            if newlines == start_after {
                range_start = Some(pos + i as u64 + 1);
                copy_from = Some(i + 1);
                if take == 0 {
                    range_end = range_start;
                }
            }
            if take > 0 && newlines == end_after && range_end.is_none() {
                range_end = Some(pos + i as u64 + 1);
                copy_to = Some(i + 1);
            }
        }
        // This chunk's share of the range: from where it starts (or the
        // chunk's start, if it started earlier) to where it ends (or the
        // chunk's end, if it goes on).
        let started_before = range_start.is_some_and(|s| s < pos);
        let ended_before = range_end.is_some_and(|e| e <= pos);
        if take > 0 && !ended_before {
            let from = if started_before { Some(0) } else { copy_from };
            if let Some(from) = from {
                let to = copy_to.unwrap_or(new.len());
                if from < to {
                    range.extend_from_slice(&new[from..to]);
                }
            }
        }
        last_byte = new.last().copied().or(last_byte);
        pos += n as u64;
        carry = carry_utf8(&mut buf, carry + n, &mut utf8);
    }
    let size = pos;
    let line_count = match last_byte {
        None => 0,
        Some(b'\n') => newlines,
        Some(_) => newlines + 1,
    };
    let range_start = range_start.unwrap_or(size).min(size);
    let range_end = range_end.unwrap_or(size).max(range_start);
    let eol = eol_of(newlines, crlf);
    Ok(Scan {
        size,
        line_count,
        checksum: hasher.finish(),
        eol,
        bom: head.starts_with(&[0xEF, 0xBB, 0xBF]),
        utf8: utf8 && carry == 0,
        final_newline: last_byte == Some(b'\n'),
        range_start,
        range_end,
        range,
    })
}

/// UTF-8 over chunk borders: the first `whole` bytes of `buf` (carried
/// bytes and the new chunk) validated, an incomplete sequence at their end
/// moved to the front to be completed by the next chunk. Returns how many
/// bytes are carried; `utf8` turns false at the first invalid byte.
fn carry_utf8(buf: &mut [u8], whole: usize, utf8: &mut bool) -> usize {
    if !*utf8 {
        return 0;
    }
    match std::str::from_utf8(&buf[..whole]) {
        Ok(_) => 0,
        Err(e) if e.error_len().is_none() => {
            let valid = e.valid_up_to();
            buf.copy_within(valid..whole, 0);
            whole - valid
        }
        Err(_) => {
            *utf8 = false;
            0
        }
    }
}

/// The file's line endings from its count of newlines and of CRLFs among them.
fn eol_of(newlines: usize, crlf: usize) -> Eol {
    match (newlines - crlf, crlf) {
        (0, 0) => Eol::None,
        (_, 0) => Eol::Lf,
        (0, _) => Eol::Crlf,
        _ => Eol::Mixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::LineIndex;

    /// The same facts, from the whole file in memory.
    fn in_memory(bytes: &[u8], first: usize, take: usize) -> Scan {
        let index = LineIndex::new(bytes);
        let at = |line: usize| index.line_range(line).map_or(bytes.len(), |r| r.start);
        let start = at(first).min(bytes.len());
        let end = if take == 0 {
            start
        } else {
            let last = first.saturating_add(take).saturating_sub(1).min(index.line_count());
            if last < first { start } else { index.line_range(last).map_or(bytes.len(), |r| r.end) }
        };
        Scan {
            size: bytes.len() as u64,
            line_count: index.line_count(),
            checksum: aide_core::checksum::sha256_hex(bytes),
            eol: Eol::of(bytes),
            bom: bytes.starts_with(&[0xEF, 0xBB, 0xBF]),
            utf8: std::str::from_utf8(bytes).is_ok(),
            final_newline: bytes.ends_with(b"\n"),
            range_start: start as u64,
            range_end: end as u64,
            range: bytes[start..end].to_vec(),
        }
    }

    proptest::proptest! {
        #[test]
        fn streaming_agrees_with_the_whole_file(
            bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b'\n', b'\r', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF]), 0..200),
            first in 1usize..12, take in 0usize..6, chunk in 1usize..9,
        ) {
            let want = in_memory(&bytes, first, take);
            let got = scan(&bytes[..], first, take, chunk).unwrap();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn binary_and_utf16_stop_the_scan() {
        assert!(matches!(scan(&b"ab\0cd"[..], 1, 5, 2), Err(ScanError::NonText(NonText::Binary))));
        assert!(matches!(scan(&b"\xFF\xFEa\0"[..], 1, 5, 1), Err(ScanError::NonText(NonText::Utf16))));
        // A NUL past the head is text, as before.
        let mut late = vec![b'a'; HEAD];
        late.push(0);
        assert_eq!(scan(&late[..], 1, 1, 1000).unwrap().size, HEAD as u64 + 1);
        // Endless zeros (a sparse file) are refused after the first chunk.
        assert!(matches!(scan(std::io::repeat(0), 1, 1, 4096), Err(ScanError::NonText(NonText::Binary))));
    }
}
