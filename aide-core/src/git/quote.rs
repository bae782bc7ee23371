//! Paths as git writes them outside `-z` formats: in a diff's headers and
//! blame's `filename` lines, C-quoted (`"a\tb"`, octal bytes) when they
//! hold unusual bytes. Read back to the name's exact bytes; the `&str`
//! forms are for callers that want text (lossy for a name that is not UTF-8).

/// The bytes of a path git may have quoted (`"…"` with C escapes and octal
/// bytes); an unquoted path is itself.
pub fn unquote_path_bytes(path: &[u8]) -> Vec<u8> {
    let Some(inner) = path.strip_prefix(b"\"").and_then(|p| p.strip_suffix(b"\"")) else { return path.to_vec() };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.iter().copied().peekable();
    while let Some(b) = rest.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match rest.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'a') => bytes.push(0x07),
            Some(b'b') => bytes.push(0x08),
            Some(b'f') => bytes.push(0x0c),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'v') => bytes.push(0x0b),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = rest.peek() {
                        value = value * 8 + u32::from(n - b'0');
                        rest.next();
                    }
                }
                bytes.push(u8::try_from(value).unwrap_or(b'?'));
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    bytes
}

/// [`unquote_path_bytes`] as text, in the contract's spelling (a byte that
/// is not UTF-8 as `\xHH`, a backslash as `\\`), which every path
/// argument takes back: never a lossy U+FFFD.
pub fn unquote_path(path: &str) -> String {
    spelled(&unquote_path_bytes(path.as_bytes()))
}

use crate::text::path_name as spelled;

/// The two paths of a `diff --git a/X b/Y` header (after `diff --git `),
/// each maybe quoted, without their `a/` and `b/`, as bytes. Unquoted
/// names with spaces are split where both halves name the same path (no
/// rename); a rename's names come from its `rename from/to` lines anyway.
pub fn diff_header_paths_bytes(rest: &[u8]) -> (Vec<u8>, Vec<u8>) {
    if rest.starts_with(b"\"")
        && let Some(end) = closing_quote(rest)
    {
        // "a/x" "b/y" or "a/x" b/y
        let old = unquote_path_bytes(&rest[..=end]);
        let new = unquote_path_bytes(rest[end + 1..].trim_ascii_start());
        return (strip(&old, b"a/"), strip(&new, b"b/"));
    }
    if rest.ends_with(b"\"")
        && let Some(start) = rest.windows(2).rposition(|w| w == b" \"")
    {
        let new = unquote_path_bytes(&rest[start + 1..]);
        return (strip(&rest[..start], b"a/"), strip(&new, b"b/"));
    }
    // `a/P b/P`: the same path twice.
    let n = rest.len().saturating_sub(3) / 2;
    if rest.len() >= 3 && rest.len() % 2 == 1 && rest.get(2..2 + n) == rest.get(n + 5..) {
        let p = rest[2..2 + n].to_vec();
        return (p.clone(), p);
    }
    match rest.windows(3).position(|w| w == b" b/") {
        Some(at) => (strip(&rest[..at], b"a/"), rest[at + 3..].to_vec()),
        None => (rest.to_vec(), rest.to_vec()),
    }
}

/// [`diff_header_paths_bytes`] as text (lossy for a name that is not UTF-8).
pub fn diff_header_paths(rest: &str) -> (String, String) {
    let (old, new) = diff_header_paths_bytes(rest.as_bytes());
    (spelled(&old), spelled(&new))
}

fn strip(path: &[u8], prefix: &[u8]) -> Vec<u8> {
    path.strip_prefix(prefix).unwrap_or(path).to_vec()
}

fn closing_quote(s: &[u8]) -> Option<usize> {
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_header_names_both_sides_spaces_and_quotes_included() {
        assert_eq!(diff_header_paths("a/x y.txt b/x y.txt"), ("x y.txt".into(), "x y.txt".into()));
        assert_eq!(diff_header_paths("a/old b/new"), ("old".into(), "new".into()));
        assert_eq!(diff_header_paths("\"a/t\\tab\" \"b/t\\tab\""), ("t\tab".into(), "t\tab".into()));
        assert_eq!(diff_header_paths("a/plain \"b/t\\tab\""), ("plain".into(), "t\tab".into()));
    }

    #[test]
    fn quoted_paths_read_back_as_git_wrote_them() {
        assert_eq!(unquote_path("plain.txt"), "plain.txt");
        // A backslash in the name is doubled, as the contract spells it.
        assert_eq!(unquote_path("\"a\\tb\\\\c\\\"d\""), "a\tb\\\\c\"d");
        assert_eq!(unquote_path("\"caf\\303\\251.txt\""), "café.txt");
        assert_eq!(unquote_path("\"caf\\351.txt\""), "caf\\xe9.txt");
        assert_eq!(diff_header_paths("\"a/x\\377\" \"b/y\\376\""), ("x\\xff".into(), "y\\xfe".into()));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_kept_exactly() {
        assert_eq!(unquote_path_bytes(b"\"x\\377.rs\""), b"x\xff.rs");
        assert_eq!(unquote_path_bytes(b"x\xff.rs"), b"x\xff.rs");
        let (old, new) = diff_header_paths_bytes(b"a/x\xff.rs b/x\xff.rs");
        assert_eq!((old.as_slice(), new.as_slice()), (&b"x\xff.rs"[..], &b"x\xff.rs"[..]));
    }
}
