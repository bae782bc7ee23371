//! Redaction of a stream as it arrives (a job's output, a command's output
//! before it is cut to its head and tail).
//!
//! Text is handed on a whole line at a time (a line ends at `\n` or `\r`),
//! redacted with the lines it came with, so a page, an offset or a cut into
//! what was handed on never shows part of a secret: what is held back is
//! the line still being written, and a private key still open. Limits, so
//! memory stays bounded whatever a program prints:
//! * a line held past [`MAX_HELD`] bytes is cut inside, at a space where it
//!   can be, never inside a secret found so far, keeping [`WINDOW`] bytes
//!   back (a secret longer than that could be cut; none of the shapes is);
//! * a private key held open past [`MAX_HELD_KEY`] bytes is handed on as
//!   one `[REDACTED]`, and every line after it is dropped until its END line.

use std::ops::Range;

use super::{MARK, Redactor, replace_spans};

/// How long a line may grow before it is cut inside.
pub const MAX_HELD: usize = 256 << 10;
/// What an in-line cut keeps back.
pub const WINDOW: usize = 8 << 10;
/// How much of an unclosed private key is held before it is given up as one secret.
pub const MAX_HELD_KEY: usize = 1 << 20;

/// A stream's redaction state.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    redactor: Redactor,
    pending: Vec<u8>,
    count: usize,
    /// Inside a private key too long to hold: its lines are dropped until END.
    in_key: bool,
}

impl StreamRedactor {
    pub fn new(redactor: Redactor) -> StreamRedactor {
        StreamRedactor { redactor, ..StreamRedactor::default() }
    }

    /// Takes `bytes` in and appends to `out` whatever is now safe to hand on.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        self.pending.extend_from_slice(bytes);
        self.drain(out);
    }

    /// The stream has ended: hands on the rest, redacted.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.in_key {
            self.pending.clear();
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let spans = self.redactor.spans(&pending);
        self.count += spans.len();
        out.extend_from_slice(&replace_spans(&pending, &spans));
    }

    /// Secrets replaced so far.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Bytes taken in and not handed on yet.
    pub fn held(&self) -> usize {
        self.pending.len()
    }

    fn drain(&mut self, out: &mut Vec<u8>) {
        if self.in_key && !self.skip_key() {
            return;
        }
        let last_end = memchr::memrchr2(b'\n', b'\r', &self.pending);
        if last_end.is_none() && self.pending.len() <= MAX_HELD {
            return;
        }
        let spans = self.redactor.spans(&self.pending);
        let mut limit = self.pending.len();
        if let Some(begin) = open_private_key(&self.pending) {
            if self.pending.len() > MAX_HELD_KEY {
                // Given up as one secret; the rest of the key is dropped as it comes.
                let cut = line_start(&self.pending, begin);
                let before: Vec<Range<usize>> = spans.iter().filter(|s| s.end <= cut).cloned().collect();
                out.extend_from_slice(&replace_spans(&self.pending[..cut], &before));
                out.extend_from_slice(MARK.as_bytes());
                out.push(b'\n');
                self.count += before.len() + 1;
                self.pending.clear();
                self.in_key = true;
                return;
            }
            limit = line_start(&self.pending, begin);
        }
        let mut cut = line_cut(&self.pending[..limit], &spans);
        if cut == 0 && limit == self.pending.len() && self.pending.len() > MAX_HELD {
            cut = inline_cut(&self.pending, &spans);
        }
        if cut == 0 {
            return;
        }
        let emitted: Vec<Range<usize>> = spans.iter().filter(|s| s.end <= cut).cloned().collect();
        self.count += emitted.len();
        out.extend_from_slice(&replace_spans(&self.pending[..cut], &emitted));
        self.pending.drain(..cut);
    }

    /// Drops the held lines of a key given up, through its END line;
    /// whether the key has ended.
    fn skip_key(&mut self) -> bool {
        while let Some(nl) = memchr::memchr(b'\n', &self.pending) {
            let line = &self.pending[..nl];
            let ends = memchr::memmem::find(line, b"-----END ").is_some();
            self.pending.drain(..=nl);
            if ends {
                self.in_key = false;
                return true;
            }
        }
        // A line still being written is kept only until it is known not to end the key.
        if self.pending.len() > 256 {
            self.pending.clear();
        }
        false
    }
}

/// Where the last private key that has no END line after it begins.
fn open_private_key(text: &[u8]) -> Option<usize> {
    let at = memchr::memmem::rfind(text, b"PRIVATE KEY-----")?;
    let start = line_start(text, at);
    // The label's own dashes: `-----BEGIN …` opens, `-----END …` closes.
    let dashes = memchr::memmem::rfind(&text[start..at], b"-----")?;
    text[start + dashes..].starts_with(b"-----BEGIN ").then_some(start)
}

/// The start of the line that holds `at`.
fn line_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr2(b'\n', b'\r', &text[..at]).map_or(0, |i| i + 1)
}

/// Whether no span holds `at` strictly inside.
fn free(at: usize, spans: &[Range<usize>]) -> bool {
    !spans.iter().any(|s| s.start < at && at < s.end)
}

/// The end of the last whole line of `text` that no secret runs past; 0: none.
fn line_cut(text: &[u8], spans: &[Range<usize>]) -> usize {
    let mut end = text.len();
    while let Some(i) = memchr::memrchr2(b'\n', b'\r', &text[..end]) {
        if free(i + 1, spans) {
            return i + 1;
        }
        end = i;
    }
    0
}

/// A cut inside an over-long line: [`WINDOW`] back from its end, at a space
/// where there is one, on a character boundary, outside every secret.
fn inline_cut(text: &[u8], spans: &[Range<usize>]) -> usize {
    let upto = text.len().saturating_sub(WINDOW);
    let boundary = |i: usize| i == text.len() || (text[i] & 0xC0) != 0x80;
    let space = memchr::memrchr2(b' ', b'\t', &text[..upto]).map(|i| i + 1);
    if let Some(at) = space.filter(|&at| free(at, spans) && at > upto.saturating_sub(WINDOW)) {
        return at;
    }
    let mut at = upto;
    while at > 0 && !(boundary(at) && free(at, spans)) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in pieces of `size` bytes; the whole output and what
    /// was handed on after each piece.
    fn feed(text: &[u8], size: usize) -> (Vec<u8>, Vec<usize>, usize) {
        let mut r = StreamRedactor::new(Redactor::default());
        let mut out = Vec::new();
        let mut handed = Vec::new();
        for piece in text.chunks(size.max(1)) {
            r.push(piece, &mut out);
            handed.push(out.len());
        }
        r.finish(&mut out);
        (out, handed, r.count())
    }

    #[test]
    fn every_split_gives_the_one_shot_redaction() {
        let text = "start\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nkey AKIAIOSFODNN7EXAMPLE\n\
                    token=abcdef123456 more\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n\
                    -----END PRIVATE KEY-----\ntail without newline password=hunter22";
        let (whole, n) = super::super::redact(text);
        for size in 1..40 {
            let (out, _, count) = feed(text.as_bytes(), size);
            assert_eq!(String::from_utf8(out).unwrap(), whole, "pieces of {size}");
            assert_eq!(count, n, "pieces of {size}");
        }
    }

    #[test]
    fn no_prefix_handed_on_shows_part_of_a_secret() {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let text = format!("line one\nexport AWS_SECRET_ACCESS_KEY={secret}\nline three\n");
        for size in 1..12 {
            let mut r = StreamRedactor::new(Redactor::default());
            let mut out = Vec::new();
            for piece in text.as_bytes().chunks(size) {
                r.push(piece, &mut out);
                let shown = String::from_utf8_lossy(&out);
                // Not even the first 4 characters of the secret, at any moment.
                assert!(!shown.contains(&secret[..4]), "{size}: {shown}");
            }
        }
    }

    #[test]
    fn a_half_printed_token_is_held_until_its_line_ends() {
        let mut r = StreamRedactor::new(Redactor::default());
        let mut out = Vec::new();
        r.push(b"ready\nghp_0123456789abcdef", &mut out);
        assert_eq!(out, b"ready\n");
        r.push(b"ghijklmnopqrstuvwxyzAB\n", &mut out);
        assert_eq!(String::from_utf8_lossy(&out), "ready\n[REDACTED]\n");
    }

    #[test]
    fn an_open_private_key_is_held_and_a_huge_one_given_up_whole() {
        let mut r = StreamRedactor::new(Redactor::default());
        let mut out = Vec::new();
        r.push(b"before\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEow\n", &mut out);
        assert_eq!(out, b"before\n", "nothing of the open key is handed on");
        r.push(b"-----END RSA PRIVATE KEY-----\nafter\n", &mut out);
        assert_eq!(String::from_utf8_lossy(&out), "before\n[REDACTED]\nafter\n");

        let mut r = StreamRedactor::new(Redactor::default());
        let mut out = Vec::new();
        r.push(b"-----BEGIN PRIVATE KEY-----\n", &mut out);
        let body = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n".repeat(40_000);
        r.push(body.as_bytes(), &mut out);
        r.push(b"MIIsecretline\n-----END PRIVATE KEY-----\nvisible\n", &mut out);
        r.finish(&mut out);
        let shown = String::from_utf8_lossy(&out);
        assert_eq!(shown, "[REDACTED]\nvisible\n");
        assert!(r.held() == 0);
    }

    #[test]
    fn a_line_without_end_is_cut_inside_and_memory_stays_bounded() {
        let mut r = StreamRedactor::new(Redactor::default());
        let mut out = Vec::new();
        let words = "lorem ipsum dolor sit amet ".repeat(100_000);
        for piece in words.as_bytes().chunks(64 << 10) {
            r.push(piece, &mut out);
            assert!(r.held() <= MAX_HELD + (64 << 10), "{}", r.held());
        }
        r.finish(&mut out);
        assert_eq!(out, words.as_bytes());
        // A secret where the in-line cut would fall is never split.
        let mut text = "x".repeat(MAX_HELD - 1);
        text.push_str(" password=hunter22hunter22 ");
        text.push_str(&"y".repeat(WINDOW - 10));
        let (out, _, n) = feed(text.as_bytes(), text.len());
        assert_eq!(n, 1);
        assert!(!String::from_utf8_lossy(&out).contains("hunter"));
    }

    #[test]
    fn a_key_on_one_line_is_not_taken_for_an_open_one() {
        let line = b"{\"key\": \"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\"}\nnext\n";
        assert_eq!(open_private_key(line), None);
        let (out, _, n) = feed(line, 7);
        assert_eq!((String::from_utf8_lossy(&out).into_owned(), n), ("{\"key\": \"[REDACTED]\"}\nnext\n".into(), 1));
    }

    #[test]
    fn known_values_are_held_to_their_line_too() {
        let mut r = StreamRedactor::new(Redactor::with_values(["zq-secret-42"]));
        let mut out = Vec::new();
        for piece in [&b"echo zq-se"[..], b"cret-42 done\n"] {
            r.push(piece, &mut out);
        }
        r.finish(&mut out);
        assert_eq!(String::from_utf8_lossy(&out), "echo [REDACTED] done\n");
        assert_eq!(r.count(), 1);
    }
}
