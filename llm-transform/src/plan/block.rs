//! The block operations: `replace_block`, `replace_signature`,
//! `insert_before_block` and `insert_after_block`, applied to the symbol
//! their `name` finds ([`super::target`]), in the file's indentation, line
//! endings and (Python) blank-line style.

use aide_core::checksum::sha256_hex;
use aide_core::text::Eol;
use aide_core::{AideError, Lang};
use llm_ast_search::{Symbol, leading_start};

use super::target::{OutlineCache, Outlined, Wanted, find_block};
use crate::error::TransformError;
use crate::request::{BlockOp, Operation};
use crate::sites::Applied;
use crate::text::{Indent, apply_span_edits_tracked, reindent, to_eol};

/// Finds the block an operation targets and applies it.
pub(super) fn block(
    rel: &str,
    bytes: &[u8],
    op: &Operation,
    target: &BlockOp,
    text: &str,
    outlines: &mut OutlineCache,
) -> Result<(Vec<u8>, Applied, usize), AideError> {
    let outlined = outlines.get(rel, bytes)?;
    let wanted = Wanted {
        kind: target.kind,
        name: &target.name,
        module_path: target.module_path.as_deref(),
        line_hint: target.line_hint,
    };
    let symbol = find_block(rel, bytes, &outlined.symbols, wanted)?;
    let eol = Eol::of(bytes);
    check_old(rel, &bytes[symbol.span.byte_start..symbol.span.byte_end], target, symbol, eol)?;
    // The new block sits at the target's indentation, in the file's style,
    // whatever indentation the caller gave it.
    let line_start = outlined.index.line_range(symbol.span.line).map_or(0, |r| r.start);
    let target_indent = {
        let line = &bytes[line_start..symbol.span.byte_start.max(line_start)];
        let ws = line.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        String::from_utf8_lossy(&line[..ws]).into_owned()
    };
    let replacing = matches!(op, Operation::ReplaceBlock(_) | Operation::ReplaceSignature(_));
    let text = reindent(text, &target_indent, replacing, Indent::of(bytes));
    let text = to_eol(&text, eol);
    let eol_str = eol.line_break();
    let (at, end, insert) = match op {
        Operation::ReplaceBlock(_) => {
            // The span ends at the block's last character; a trailing newline
            // in new_block would add a blank line.
            let trimmed = text.strip_suffix(eol_str).unwrap_or(&text).to_string();
            (symbol.span.byte_start, symbol.span.byte_end, trimmed)
        }
        Operation::ReplaceSignature(_) => {
            let Some(head_end) = head_end(outlined.lang, &outlined.tree, bytes, symbol) else {
                return Err(
                    TransformError::NoBody { path: rel.to_string(), name_path: symbol.name_path.to_string() }.into()
                );
            };
            (symbol.span.byte_start, head_end, text.trim_end().to_string())
        }
        Operation::InsertAfterBlock(_) => after_block(outlined, bytes, symbol, &text, eol_str),
        _ => before_block(outlined, bytes, symbol, &text, eol_str),
    };
    let (out, tracked) = apply_span_edits_tracked(bytes, &[(at, end, insert.as_bytes())])
        .map_err(|e| AideError::internal(e.to_string()))?;
    Ok((out, tracked, symbol.span.line))
}

/// The block as the caller expects it (its hash, or its text in either
/// line ending), when the caller says.
fn check_old(rel: &str, old: &[u8], target: &BlockOp, symbol: &Symbol, eol: Eol) -> Result<(), AideError> {
    if let Some(expected) = &target.expected_old_hash
        && sha256_hex(old) != *expected
    {
        return Err(TransformError::BlockHashMismatch {
            path: rel.to_string(),
            name_path: symbol.name_path.to_string(),
            expected: expected.clone(),
            current: sha256_hex(old),
            line: symbol.span.line,
        }
        .into());
    }
    if let Some(expected) = &target.expected_old_block
        && old != to_eol(expected, eol).as_bytes()
        && old != expected.as_bytes()
    {
        return Err(TransformError::BlockTextMismatch {
            path: rel.to_string(),
            name_path: symbol.name_path.to_string(),
            current: String::from_utf8_lossy(old).into_owned(),
            line: symbol.span.line,
        }
        .into());
    }
    Ok(())
}

/// Where `insert_after_block` puts `text` (the start of the line after the
/// block) and what it inserts there, blank lines included.
fn after_block(
    outlined: &Outlined,
    bytes: &[u8],
    symbol: &Symbol,
    text: &str,
    eol_str: &str,
) -> (usize, usize, String) {
    let index = &outlined.index;
    let next_line = index.line_of(symbol.span.byte_end.saturating_sub(1).max(symbol.span.byte_start)) + 1;
    let at = index.line_range(next_line).map_or(bytes.len(), |r| r.start);
    let mut insert = String::new();
    if at == bytes.len() && !bytes.ends_with(b"\n") {
        insert.push_str(eol_str);
    }
    match pep8_blank_lines(outlined.lang, symbol) {
        Some(n) => {
            // Exactly n blank lines before the new definition, and at
            // least n between it and what follows.
            insert.push_str(&eol_str.repeat(n));
            insert.push_str(without_blank_edges(text));
            insert.push_str(eol_str);
            let blank_after = blank_lines_from(bytes, at);
            if at + blank_after.1 < bytes.len() && blank_after.0 < n {
                insert.push_str(&eol_str.repeat(n - blank_after.0));
            }
        }
        None => {
            insert.push_str(text);
            if !insert.ends_with('\n') && at < bytes.len() {
                insert.push_str(eol_str);
            }
        }
    }
    (at, at, insert)
}

/// Where `insert_before_block` puts `text` (the start of the line its
/// leading comments and attributes begin on) and what it inserts there.
fn before_block(
    outlined: &Outlined,
    bytes: &[u8],
    symbol: &Symbol,
    text: &str,
    eol_str: &str,
) -> (usize, usize, String) {
    let index = &outlined.index;
    let lead = leading_start(outlined.lang, &outlined.tree, bytes, symbol);
    let at = index.line_range(index.line_of(lead)).map_or(lead, |r| r.start);
    let insert = match pep8_blank_lines(outlined.lang, symbol) {
        Some(n) => {
            let mut insert = String::new();
            let blank_before = blank_lines_before(bytes, at);
            if at > blank_before.1 && blank_before.0 < n {
                insert.push_str(&eol_str.repeat(n - blank_before.0));
            }
            insert.push_str(without_blank_edges(text));
            insert.push_str(eol_str);
            insert.push_str(&eol_str.repeat(n));
            insert
        }
        None => {
            let mut insert = text.to_string();
            if !insert.ends_with('\n') {
                insert.push_str(eol_str);
            }
            insert
        }
    };
    (at, at, insert)
}

/// The blank lines PEP 8 wants around a Python definition inserted beside
/// `symbol`: two at the top level, one inside a class.
fn pep8_blank_lines(lang: Lang, symbol: &Symbol) -> Option<usize> {
    (lang == Lang::Python).then_some(if symbol.depth <= 1 { 2 } else { 1 })
}

/// `text` without blank lines at its start and end (its own indentation kept).
fn without_blank_edges(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    text[start..].trim_end()
}

/// How many blank lines start at `at` (a line start), and their bytes.
fn blank_lines_from(bytes: &[u8], at: usize) -> (usize, usize) {
    let (mut lines, mut len) = (0, 0);
    for line in bytes[at..].split_inclusive(|&b| b == b'\n') {
        if !line.ends_with(b"\n") || !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
        lines += 1;
        len += line.len();
    }
    (lines, len)
}

/// How many blank lines end at `at` (a line start), and their bytes.
fn blank_lines_before(bytes: &[u8], at: usize) -> (usize, usize) {
    let (mut lines, mut len) = (0, 0);
    let mut end = at;
    while end > 0 {
        let start = bytes[..end - 1].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if !bytes[start..end].iter().all(u8::is_ascii_whitespace) {
            break;
        }
        lines += 1;
        len += end - start;
        end = start;
    }
    (lines, len)
}

/// Where a symbol's declaration head ends: its body's start, less the
/// blank space before it (`fn f(a: u8)` of `fn f(a: u8) {`, `def f(a):`
/// of a Python function). None for a symbol without a body. The body is
/// llm-ast-search's: an item of a Rust macro body has one too.
fn head_end(lang: Lang, tree: &tree_sitter::Tree, bytes: &[u8], symbol: &Symbol) -> Option<usize> {
    let start = symbol.span.byte_start;
    let body = llm_ast_search::body_start(lang, tree, bytes, symbol)?;
    let head = bytes.get(start..body)?;
    let kept = head.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    Some(start + kept)
}
