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

#[cfg(test)]
mod tests {
    use super::*;

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
