//! Byte-exact text work: span edits, line endings, near misses, diffs.

use aide_core::text::Eol;
use serde::Serialize;

/// `text` with its line breaks in the style of a file with endings `eol`
/// (CRLF only for an all-CRLF file; others get the text as written).
pub fn to_eol(text: &str, eol: Eol) -> String {
    match eol {
        Eol::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
        _ => text.to_string(),
    }
}

/// Applies non-overlapping byte-span replacements in one batch, from the
/// end backwards so no offset drifts. Refuses spans out of range, reversed,
/// cutting a UTF-8 character, or overlapping (two insertions at one offset
/// count as overlapping: their order would be a guess).
pub fn apply_span_edits(bytes: &[u8], edits: &[(usize, usize, &[u8])]) -> Result<Vec<u8>, String> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].0, edits[i].1));
    for (n, &i) in order.iter().enumerate() {
        let (s, e, _) = edits[i];
        if s > e {
            return Err(format!("edit {i}: byte_start {s} is after byte_end {e}"));
        }
        if e > bytes.len() {
            return Err(format!("edit {i}: span {s}..{e} is past the end of the file ({} bytes)", bytes.len()));
        }
        for at in [s, e] {
            if !aide_core::span::is_char_boundary(bytes, at) {
                return Err(format!("edit {i}: offset {at} cuts a UTF-8 character"));
            }
        }
        if let Some(&j) = order.get(n + 1) {
            let (s2, e2, _) = edits[j];
            if s2 < e || (s2 == s && e2 == s2 && e == s) {
                return Err(format!("edits {i} ({s}..{e}) and {j} ({s2}..{e2}) overlap"));
            }
        }
    }
    let mut out = bytes.to_vec();
    for &i in order.iter().rev() {
        let (s, e, r) = edits[i];
        out.splice(s..e, r.iter().copied());
    }
    Ok(out)
}

/// The text nearest a patch's `old_text` that was not found.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    /// First line of the closest window, 1-based.
    pub line: usize,
    /// 0..1, by similar's ratio.
    pub similarity: f32,
    /// The two differ only in spaces, tabs or line endings.
    pub whitespace_only: bool,
    /// Unified diff from old_text (`-`) to the file's text (`+`).
    pub diff: String,
}

/// The window of the file's lines most similar to `old`, if any is at least
/// half similar. Bounded: files over 20,000 lines are not scanned.
pub fn near_miss(bytes: &[u8], old: &str) -> Option<NearMiss> {
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
        let ratio = similar::TextDiff::from_chars(old, window.as_str()).ratio();
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
    let diff = similar::TextDiff::from_lines(old, window.as_str())
        .unified_diff()
        .context_radius(1)
        .header("old_text", "file")
        .to_string();
    Some(NearMiss {
        line: start + 1,
        similarity: (ratio * 1000.0).round() / 1000.0,
        whitespace_only: squash(&window) == old_squashed,
        diff,
    })
}

/// Lines added and removed between two versions of a file, and with
/// `unified` the unified diff (`a/` and `b/` prefixed as git does): one diff
/// computed once, none for identical versions.
pub fn diff(rel: &str, before: Option<&[u8]>, after: Option<&[u8]>, unified: bool) -> (usize, usize, Option<String>) {
    if before == after {
        return (0, 0, None);
    }
    let a = before.map(String::from_utf8_lossy).unwrap_or_default();
    let b = after.map(String::from_utf8_lossy).unwrap_or_default();
    let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let text = unified.then(|| {
        let from = if before.is_some() { format!("a/{rel}") } else { "/dev/null".into() };
        let to = if after.is_some() { format!("b/{rel}") } else { "/dev/null".into() };
        diff.unified_diff().context_radius(3).header(&from, &to).to_string()
    });
    (added, removed, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spans_are_checked() {
        let text = "héllo wörld".as_bytes();
        assert_eq!(apply_span_edits(text, &[(0, 1, b"H")]).unwrap(), "Héllo wörld".as_bytes());
        assert!(apply_span_edits(text, &[(2, 3, b"e")]).unwrap_err().contains("cuts a UTF-8 character"));
        assert!(apply_span_edits(text, &[(0, 99, b"")]).unwrap_err().contains("past the end"));
        assert!(apply_span_edits(text, &[(3, 1, b"")]).unwrap_err().contains("after byte_end"));
        assert!(apply_span_edits(text, &[(0, 4, b""), (3, 5, b"")]).unwrap_err().contains("overlap"));
        assert!(apply_span_edits(text, &[(0, 0, b"a"), (0, 0, b"b")]).unwrap_err().contains("overlap"));
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
