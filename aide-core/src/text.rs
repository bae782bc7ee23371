//! Showing file bytes as text: lossy UTF-8 with a flag, long lines cut with a
//! visible marker, line terminators trimmed.

/// UTF-8 text of `bytes`, replacing invalid sequences; true if any were.
pub fn lossy(bytes: &[u8]) -> (String, bool) {
    match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(s) => (s.to_string(), false),
        std::borrow::Cow::Owned(s) => (s, true),
    }
}

/// Cuts `text` to `max` characters with a `…[+N chars]` marker; `max == 0`
/// never cuts. Returns whether it cut.
pub fn shorten(text: String, max: usize) -> (String, bool) {
    if max == 0 {
        return (text, false);
    }
    match text.char_indices().nth(max) {
        None => (text, false),
        Some((cut, _)) => {
            let rest = text[cut..].chars().count();
            let mut out = text[..cut].to_string();
            out.push_str(&format!("…[+{rest} chars]"));
            (out, true)
        }
    }
}

/// `line` without its `\n` or `\r\n`.
pub fn trim_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A file's line endings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Eol {
    Lf,
    Crlf,
    Mixed,
    /// No line ending at all (a single line without newline, or empty).
    None,
}

impl Eol {
    /// The line endings `bytes` use.
    pub fn of(bytes: &[u8]) -> Eol {
        let all = memchr::memchr_iter(b'\n', bytes).count();
        let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
        match (all - crlf, crlf) {
            (0, 0) => Eol::None,
            (_, 0) => Eol::Lf,
            (0, _) => Eol::Crlf,
            _ => Eol::Mixed,
        }
    }

    /// The line break to write into a file with these endings: CRLF only for
    /// a file whose every break is CRLF.
    pub fn line_break(self) -> &'static str {
        if self == Eol::Crlf { "\r\n" } else { "\n" }
    }
}

/// Why bytes are not text the tools read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonText {
    /// A UTF-16 byte-order mark.
    Utf16,
    /// A NUL byte in the first 8 KiB.
    Binary,
}

/// Whether `bytes` are not UTF-8-ish text: UTF-16 (by its BOM) or binary
/// (a NUL in the first 8 KiB, as ripgrep and git decide).
pub fn non_text(bytes: &[u8]) -> Option<NonText> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        Some(NonText::Utf16)
    } else if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        Some(NonText::Binary)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escape_losslessly() {
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"a\xff\\b\xc3.txt");
        let shown = escape_path(odd, false);
        assert_eq!(shown, "a\\xff\\\\b\\xc3.txt");
        assert_eq!(unescape_path(&shown).unwrap(), odd);
        // A backslash in a valid name is escaped too: no two names share a form.
        assert_eq!(escape_path(std::ffi::OsStr::new("plain\\name"), false), "plain\\\\name");
        let literal = std::ffi::OsStr::new("x\\xff.rs");
        let stray = std::ffi::OsStr::from_bytes(b"x\xff.rs");
        assert_ne!(escape_path(literal, false), escape_path(stray, false));
        assert_eq!(unescape_path(&escape_path(literal, false)).unwrap(), literal);
        assert_eq!(unescape_path(&escape_path(stray, false)).unwrap(), stray);
        let always = escape_path(std::ffi::OsStr::new("plain\\name"), true);
        assert_eq!(unescape_path(&always).unwrap(), "plain\\name");
        assert_eq!(unescape_path("no-escapes"), None);
        assert_eq!(unescape_path("bad\\q"), None);
    }

    #[test]
    fn line_endings_and_non_text() {
        assert_eq!(Eol::of(b"a\r\nb\r\n"), Eol::Crlf);
        assert_eq!(Eol::of(b"a\r\nb\n"), Eol::Mixed);
        assert_eq!(Eol::of(b"a\nb"), Eol::Lf);
        assert_eq!(Eol::of(b"ab"), Eol::None);
        assert_eq!((Eol::Crlf.line_break(), Eol::Mixed.line_break()), ("\r\n", "\n"));
        assert_eq!(non_text(b"\xFF\xFEa\x00"), Some(NonText::Utf16));
        assert_eq!(non_text(b"ab\x00"), Some(NonText::Binary));
        assert_eq!(non_text("héllo".as_bytes()), None);
    }

    #[test]
    fn shorten_marks_cuts() {
        assert_eq!(shorten("abcdef".into(), 3), ("abc…[+3 chars]".into(), true));
        assert_eq!(shorten("abc".into(), 3), ("abc".into(), false));
        assert_eq!(shorten("日本語です".into(), 2), ("日本…[+3 chars]".into(), true));
        assert_eq!(shorten("abc".into(), 0), ("abc".into(), false));
    }

    #[test]
    fn terminators_trimmed() {
        assert_eq!(trim_terminator(b"a\r\n"), b"a");
        assert_eq!(trim_terminator(b"a\n"), b"a");
        assert_eq!(trim_terminator(b"a"), b"a");
    }

    #[test]
    fn lossy_flags_invalid_utf8() {
        assert_eq!(lossy(b"ok"), ("ok".into(), false));
        assert_eq!(lossy(b"a\xffb"), ("a\u{FFFD}b".into(), true));
    }
}

/// A name's bytes (as git or a patch writes them) in [`escape_path`]'s
/// spelling, without escaping a name that needs none.
pub fn path_name(bytes: &[u8]) -> String {
    use std::os::unix::ffi::OsStrExt;
    escape_path(std::ffi::OsStr::from_bytes(bytes), false).into_owned()
}

/// A file name (or path) as text, losslessly and unambiguously: valid UTF-8
/// without a backslash is itself; any other name has each backslash as
/// `\\` and each byte that is not UTF-8 as `\xHH` (`always` escapes every
/// name so). So `x\xff.rs` (a literal backslash) shows as `x\\xff.rs` and
/// `x` + byte 0xFF + `.rs` as `x\xff.rs`: two names never share a form.
/// [`unescape_path`] turns it back.
pub fn escape_path(name: &std::ffi::OsStr, always: bool) -> std::borrow::Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    if !always
        && !bytes.contains(&b'\\')
        && let Ok(s) = std::str::from_utf8(bytes)
    {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether a path shown as text is the escaped form of a name that is not
/// valid UTF-8 (or was escaped with `always`).
pub fn unescape_path(text: &str) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStringExt;
    if !text.contains('\\') {
        return None;
    }
    let mut out = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'\\', Some(b'\\')) => {
                out.push(b'\\');
                i += 2;
            }
            (b'\\', Some(b'x')) => {
                let hex = text.get(i + 2..i + 4)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 4;
            }
            (b'\\', _) => return None,
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(std::ffi::OsString::from_vec(out))
}

/// Serde for paths in stored records (journals, undo manifests): the
/// `always` escaped form, so any name (not valid UTF-8 too) round-trips.
pub mod path_serde {
    use std::path::PathBuf;

    pub fn serialize<S: serde::Serializer>(path: &std::path::Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::escape_path(path.as_os_str(), true))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        Ok(super::unescape_path(&text).map_or_else(|| PathBuf::from(&text), PathBuf::from))
    }
}

/// [`path_serde`] for an optional path.
pub mod opt_path_serde {
    use std::path::PathBuf;

    pub fn serialize<S: serde::Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        match path {
            Some(p) => s.serialize_some(&super::escape_path(p.as_os_str(), true)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        let text: Option<String> = serde::Deserialize::deserialize(d)?;
        Ok(text.map(|t| super::unescape_path(&t).map_or_else(|| PathBuf::from(&t), PathBuf::from)))
    }
}

/// `s` with every control character escaped (`\n`, `\t`, `\r`, `\x1b`,
/// `\u{9b}`…), for names printed in text mode: a file name holding a newline
/// or an escape sequence must not forge output lines or drive the terminal.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    let bidi = |c: char| matches!(c as u32, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f | 0x061c);
    if !s.chars().any(|c| c.is_control() || bidi(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() || bidi(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A writer for text mode that passes line breaks and tabs through and
/// escapes every other control character (ESC, CR, BEL, C1 controls such as
/// U+009B CSI) and the bidirectional controls (U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C), so nothing a file or a command prints can
/// rewrite the terminal or make a name read as another.
#[derive(Debug)]
pub struct TerminalSafe<W: std::io::Write> {
    inner: W,
    /// The first bytes of a character that may need escaping, seen at the
    /// end of the last write.
    pending: Vec<u8>,
}

/// The code point of a character `TerminalSafe` escapes, given its UTF-8.
fn escaped_code_point(ch: &[u8]) -> Option<u32> {
    let c = std::str::from_utf8(ch).ok()?.chars().next()?;
    let cp = c as u32;
    let c1 = (0x80..0xa0).contains(&cp);
    let bidi = matches!(cp, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f | 0x061c);
    (c1 || bidi).then_some(cp)
}

impl<W: std::io::Write> TerminalSafe<W> {
    pub fn new(inner: W) -> TerminalSafe<W> {
        TerminalSafe { inner, pending: Vec::new() }
    }

    /// Writes `bytes` unescaped: aide's own escape sequences (colour).
    pub fn write_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.write_all(bytes)
    }
}

impl<W: std::io::Write> std::io::Write for TerminalSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Almost all output has nothing to escape: pass it through as is.
        // 0xC2 starts a C1 control, 0xD8 U+061C, 0xE2 the other bidi controls.
        let needs_escape = |b: &u8| matches!(b, 0x00..=0x08 | 0x0b..=0x1f | 0x7f | 0xc2 | 0xd8 | 0xe2);
        if self.pending.is_empty() && !buf.iter().any(needs_escape) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(buf);
        let mut out = Vec::with_capacity(data.len() + 16);
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            match b {
                b'\n' | b'\t' => out.push(b),
                b'\r' => out.extend_from_slice(b"\\r"),
                0x00..=0x1f | 0x7f => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
                0xc2 | 0xd8 | 0xe2 => {
                    let len = if b == 0xe2 { 3 } else { 2 };
                    if i + len > data.len() {
                        // The rest of the character comes with the next write.
                        self.pending = data[i..].to_vec();
                        break;
                    }
                    if let Some(cp) = escaped_code_point(&data[i..i + len]) {
                        out.extend_from_slice(format!("\\u{{{cp:x}}}").as_bytes());
                        i += len;
                        continue;
                    }
                    out.push(b);
                }
                b => out.push(b),
            }
            i += 1;
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod terminal_tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn names_with_controls_are_escaped() {
        assert_eq!(escape_controls("plain/path.rs"), "plain/path.rs");
        assert_eq!(escape_controls("evil\nsrc/fake.rs:1:1: x"), "evil\\nsrc/fake.rs:1:1: x");
        assert_eq!(escape_controls("a\x1b[2Jb\u{9b}c\td"), "a\\x1b[2Jb\\u{9b}c\\td");
    }

    #[test]
    fn the_writer_passes_text_and_escapes_controls_even_across_writes() {
        let mut w = TerminalSafe::new(Vec::new());
        w.write_all(b"ok\tline\n\x1b[31mred\r\x07 caf\xc3\xa9 \xc2").unwrap();
        w.write_all(b"\x9b2J end\n").unwrap();
        w.flush().unwrap();
        assert_eq!(String::from_utf8(w.inner).unwrap(), "ok\tline\n\\x1b[31mred\\r\\x07 café \\u{9b}2J end\n");
    }

    #[test]
    fn bidi_controls_are_escaped_even_across_writes_and_other_text_passes() {
        // Issue 31: a name holding U+202E printed raw read as another name.
        let text = "src/evil\u{202e}sr.txt – “quoted” \u{2066}x\u{2069} \u{61c} é 日本";
        for split in 0..text.len() {
            let mut w = TerminalSafe::new(Vec::new());
            w.write_all(&text.as_bytes()[..split]).unwrap();
            w.write_all(&text.as_bytes()[split..]).unwrap();
            w.flush().unwrap();
            assert_eq!(
                String::from_utf8(w.inner).unwrap(),
                "src/evil\\u{202e}sr.txt – “quoted” \\u{2066}x\\u{2069} \\u{61c} é 日本",
                "split at {split}"
            );
        }
    }
}

/// How deep any input a parser recurses over may nest (brackets, `$(…)`,
/// shell blocks, Dialect calls): deeper input is refused with
/// `input_too_deep` before a parser can overflow the stack on it.
pub const MAX_NESTING: usize = 256;

/// The deepest nesting of `(`, `[` and `{` in `text`, counted without
/// regard to quotes (a conservative bound for every parser that recurses).
pub fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Refuses `text` when it nests deeper than [`MAX_NESTING`] (`depth` as the
/// caller measured it): `input_too_deep`, exit 2.
pub fn check_depth(what: &str, depth: usize) -> Result<(), crate::AideError> {
    if depth <= MAX_NESTING {
        return Ok(());
    }
    Err(crate::error::TextError::TooDeep { what: what.to_string(), depth }.into())
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn bracket_depth_counts_the_deepest_nesting() {
        assert_eq!(bracket_depth("a(b[c]{d})"), 2);
        assert_eq!(bracket_depth("f(g(h[0]))"), 3);
        assert_eq!(bracket_depth(")))((("), 3);
        assert_eq!(bracket_depth(""), 0);
        assert!(check_depth("x", MAX_NESTING).is_ok());
        assert_eq!(check_depth("x", MAX_NESTING + 1).unwrap_err().code, crate::code::INPUT_TOO_DEEP);
    }
}
