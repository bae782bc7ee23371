//! Line edits (`insert_lines`, `replace_lines`, and `delete_lines`, which
//! is `replace_lines` with no text) as span
//! edits of the file as it was before the request: several in one request
//! all count lines of the original, as span edits count its bytes, and an
//! overlap between them is refused as span edits' is.
//!
//! Lines end at `\n` (a `\r` before it belongs to the line). Text inserted
//! or put in place of lines ends with a line break in the file's own style,
//! unless it replaces the file's last line where that had none.

use aide_core::AideError;
use aide_core::checksum::sha256_hex;
use aide_core::span::LineIndex;
use aide_core::text::Eol;

use crate::error::TransformError;
use crate::request::{Operation, SpanEdit};

/// `A:B` or `A`, 1-based and inclusive.
fn parse_range(index: usize, lines: &str) -> Result<(usize, usize), AideError> {
    let bad = || AideError::from(TransformError::BadLineRange { index, lines: lines.to_string() });
    let number = |s: &str| s.trim().parse::<usize>().ok().filter(|n| *n > 0);
    let (a, b) = match lines.split_once(':') {
        Some((a, b)) => (number(a).ok_or_else(bad)?, number(b).ok_or_else(bad)?),
        None => {
            let n = number(lines).ok_or_else(bad)?;
            (n, n)
        }
    };
    if b < a {
        return Err(bad());
    }
    Ok((a, b))
}

/// `text` ending in a line break (the file's), unless it is empty.
fn as_lines(text: &str, eol: Eol) -> String {
    if text.is_empty() || text.ends_with('\n') { text.to_string() } else { format!("{text}{}", eol.line_break()) }
}

/// Whether the lines' text is what the request expected, with `\r\n` and
/// `\n` alike and a last line break on either side aside.
fn same_text(actual: &[u8], expected: &str) -> bool {
    let normal = |b: &[u8]| -> String {
        let text = String::from_utf8_lossy(b).replace("\r\n", "\n");
        text.strip_suffix('\n').unwrap_or(&text).to_string()
    };
    normal(actual) == normal(expected.as_bytes())
}

// Long because: its guard, span and replace closures share the file's checksum, line index and line ending.
/// The span edit a line operation makes of `bytes` (the file `rel` as it
/// was), after its guard held.
pub(crate) fn span_edit(index: usize, op: &Operation, rel: &str, bytes: &[u8]) -> Result<SpanEdit, AideError> {
    let checksum = sha256_hex(bytes);
    let line_index = LineIndex::new(bytes);
    let line_count = line_index.line_count();
    // Line `n` (1-based, at most line_count) with its terminator.
    let line = |n: usize| line_index.line_range(n).unwrap_or(bytes.len()..bytes.len());
    let eol = Eol::of(bytes);
    let guard = |given: &Option<String>| -> Result<(), AideError> {
        match given {
            Some(expected) if !aide_core::checksum::names(expected, &checksum) => {
                Err(TransformError::ChecksumMismatch {
                    path: rel.to_string(),
                    expected: expected.clone(),
                    current: Some(checksum.clone()),
                }
                .into())
            }
            _ => Ok(()),
        }
    };
    let span = |lines: &str| -> Result<(usize, usize), AideError> {
        let (a, b) = parse_range(index, lines)?;
        if b > line_count {
            return Err(TransformError::LinesOutOfRange {
                path: rel.to_string(),
                lines: lines.to_string(),
                line_count,
                checksum: checksum.clone(),
            }
            .into());
        }
        Ok((line(a).start, line(b).end))
    };
    let replace = |lines: &String,
                   text: &str,
                   checksum_before: &Option<String>,
                   expected_old_text: &Option<String>|
     -> Result<(usize, usize, String), AideError> {
        if checksum_before.is_none() && expected_old_text.is_none() {
            return Err(TransformError::LinesUnguarded { index, op: op.name() }.into());
        }
        let (start, end) = span(lines)?;
        guard(checksum_before)?;
        if let Some(expected) = expected_old_text
            && !same_text(&bytes[start..end], expected)
        {
            return Err(TransformError::LinesDiffer {
                path: rel.to_string(),
                lines: lines.clone(),
                actual: String::from_utf8_lossy(&bytes[start..end]).into_owned(),
                checksum: checksum.clone(),
            }
            .into());
        }
        let mut new = as_lines(text, eol);
        // The file's last line had no break: neither has what replaces it.
        if end == bytes.len() && !bytes.ends_with(b"\n") {
            new.truncate(new.trim_end_matches(['\n', '\r']).len());
        }
        Ok((start, end, new))
    };
    let (start, end, replacement) = match op {
        Operation::InsertLines { at_line, text, checksum_before, .. } => {
            guard(&Some(checksum_before.clone()))?;
            if *at_line == 0 || *at_line > line_count + 1 {
                return Err(TransformError::LinesOutOfRange {
                    path: rel.to_string(),
                    lines: at_line.to_string(),
                    line_count,
                    checksum: checksum.clone(),
                }
                .into());
            }
            let at = if *at_line <= line_count { line(*at_line).start } else { bytes.len() };
            // After a last line without a break, the new lines start on a line of their own.
            let lead =
                if at == bytes.len() && !bytes.is_empty() && !bytes.ends_with(b"\n") { eol.line_break() } else { "" };
            (at, at, format!("{lead}{}", as_lines(text, eol)))
        }
        Operation::ReplaceLines { lines, text, checksum_before, expected_old_text, .. } => {
            replace(lines, text, checksum_before, expected_old_text)?
        }
        _ => return Err(AideError::internal("not a line operation")),
    };
    Ok(SpanEdit {
        path: Some(rel.to_string()),
        byte_start: start,
        byte_end: end,
        replacement,
        checksum_before: Some(checksum),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(bytes: &str, op: serde_json::Value) -> Result<String, AideError> {
        let op: Operation = serde_json::from_value(op).map_err(|e| AideError::internal(e.to_string()))?;
        let e = span_edit(0, &op, "f", bytes.as_bytes())?;
        let mut out = bytes.as_bytes()[..e.byte_start].to_vec();
        out.extend_from_slice(e.replacement.as_bytes());
        out.extend_from_slice(&bytes.as_bytes()[e.byte_end..]);
        Ok(String::from_utf8(out).unwrap_or_default())
    }

    #[test]
    fn lines_are_inserted_replaced_and_deleted_in_the_files_style() {
        let file = "a\r\nb\r\nc";
        let sum = sha256_hex(file.as_bytes());
        let insert = |at: usize, text: &str| {
            apply(
                file,
                serde_json::json!({"op": "insert_lines", "path": "f", "at_line": at, "text": text, "checksum_before": sum}),
            )
        };
        assert_eq!(insert(1, "x").unwrap(), "x\r\na\r\nb\r\nc");
        assert_eq!(insert(3, "x\n").unwrap(), "a\r\nb\r\nx\nc");
        // One past the last line: after it, on a line of its own.
        assert_eq!(insert(4, "x").unwrap(), "a\r\nb\r\nc\r\nx\r\n");
        assert!(insert(5, "x").is_err());
        assert!(insert(0, "x").is_err());
        let replace = |lines: &str, text: &str, expected: Option<&str>| {
            apply(
                file,
                serde_json::json!({"op": "replace_lines", "path": "f", "lines": lines, "text": text, "expected_old_text": expected, "checksum_before": if expected.is_none() { Some(&sum) } else { None }}),
            )
        };
        assert_eq!(replace("2", "B", None).unwrap(), "a\r\nB\r\nc");
        assert_eq!(replace("1:2", "", Some("a\nb")).unwrap(), "c");
        // The last line had no break; its replacement has none either.
        assert_eq!(replace("3", "C\n", Some("c")).unwrap(), "a\r\nb\r\nC");
        assert_eq!(replace("3:4", "C", None).unwrap_err().code.name, "invalid_span");
        assert_eq!(replace("2", "B", Some("not b")).unwrap_err().code.name, "no_match");
        assert_eq!(replace("2:1", "B", None).unwrap_err().code.name, "invalid_request");
        let delete =
            apply(file, serde_json::json!({"op": "delete_lines", "path": "f", "lines": "2:3", "checksum_before": sum}));
        assert_eq!(delete.unwrap(), "a\r\n");
        let unguarded = apply(file, serde_json::json!({"op": "delete_lines", "path": "f", "lines": "2"}));
        assert_eq!(unguarded.unwrap_err().code.name, "invalid_request");
        let stale = apply(
            file,
            serde_json::json!({"op": "delete_lines", "path": "f", "lines": "2", "checksum_before": "0".repeat(64)}),
        );
        assert_eq!(stale.unwrap_err().code.name, "checksum_mismatch");
    }
}
