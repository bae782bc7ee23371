//! Items a Rust item-position macro invocation wraps (`cfg_rt! { impl
//! Builder { pub fn enable_io… } }`): tree-sitter keeps a macro's body as
//! tokens, so each body is parsed on its own — only the body and the heads
//! of the items it sits in, where they stand in the file, so every offset,
//! line and column is the file's own. The outline lists the items
//! found there, and whoever needs such an item's node (its body, its
//! attributes) finds it in the same parse.

use aide_core::Lang;
use tree_sitter::{Node, Point, Range, Tree};

use super::{KindTables, OutlineOptions, Parsed, Symbol, outline_counting};

/// A macro body parsed as items: its tree and the body's byte range
/// (inside the braces).
pub(super) struct BodyParse {
    pub tree: Tree,
    pub start: usize,
    pub end: usize,
}

/// Whether `node` is a macro invocation where an item may stand, whose
/// body may hold items.
fn at_item_position(node: Node<'_>) -> bool {
    node.kind() == "macro_invocation"
        && node.parent().is_some_and(|p| matches!(p.kind(), "source_file" | "declaration_list"))
}

/// The body of the item-position invocation `node` parsed as items: None
/// when it has no body worth parsing, Some(Err(())) when the body does not
/// parse as items (`lazy_static!`'s `static ref`). Only the body and the
/// head and closing brace of each item it is inside are parsed (tree-sitter's
/// included ranges), so a body costs its own length, not the file's up to
/// it, and every node keeps its offset in the file.
fn parse_body(source: &[u8], node: Node<'_>) -> Option<Result<BodyParse, ()>> {
    let mut cursor = node.walk();
    let body = node.named_children(&mut cursor).find(|c| c.kind() == "token_tree")?;
    let (start, end) = (body.start_byte() + 1, body.end_byte().saturating_sub(1));
    if start >= end || source[start..end].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // The delimiters are one byte each: `{` `(` `[`, `}` `)` `]`.
    let inside = |from: Point, by: isize| Point { row: from.row, column: from.column.saturating_add_signed(by) };
    let mut kept = vec![Range {
        start_byte: start,
        end_byte: end,
        start_point: inside(body.start_position(), 1),
        end_point: inside(body.end_position(), -1),
    }];
    let mut up = node.parent();
    while let Some(list) = up {
        if list.kind() == "declaration_list"
            && let Some(item) = list.parent()
        {
            kept.push(Range {
                start_byte: item.start_byte(),
                end_byte: list.start_byte() + 1,
                start_point: item.start_position(),
                end_point: inside(list.start_position(), 1),
            });
            kept.push(Range {
                start_byte: list.end_byte().saturating_sub(1),
                end_byte: list.end_byte(),
                start_point: inside(list.end_position(), -1),
                end_point: list.end_position(),
            });
        }
        up = list.parent();
    }
    kept.sort_by_key(|r| r.start_byte);
    match crate::language::parse_ranges_without_errors(Lang::Rust, source, &kept) {
        Some(tree) => Some(Ok(BodyParse { tree, start, end })),
        None => Some(Err(())),
    }
}

/// The items of the bodies of `invocations` (the item-position macro
/// invocations of a Rust file, as the outline's walk met them), outlined
/// where they stand, and how many bodies could not be read as items
/// (counted, not guessed at).
pub(super) fn macro_items(
    file: &Parsed<'_>,
    invocations: &[Node<'_>],
    tables: Option<&KindTables>,
    options: OutlineOptions,
) -> (Vec<Symbol>, usize) {
    let mut found = Vec::new();
    let mut skipped = 0;
    for &node in invocations {
        let body = match parse_body(file.source, node) {
            None => continue,
            Some(Err(())) => {
                skipped += 1;
                continue;
            }
            Some(Ok(body)) => body,
        };
        let inner = Parsed {
            lang: file.lang,
            path: file.path,
            source: file.source,
            tree: &body.tree,
            index: file.index,
            checksum: file.checksum.clone(),
        };
        let (symbols, deeper) = outline_counting(&inner, tables, options);
        skipped += deeper;
        found.extend(symbols.into_iter().filter(|s| body.start <= s.span.byte_start && s.span.byte_end <= body.end));
    }
    (found, skipped)
}

/// How many macro bodies deep an item is looked for (each level is a parse).
const MAX_NESTING: usize = 8;

/// Calls `f` with the node of the item spanning `start..end` (of grammar
/// kind `kind`) inside a macro body of `tree`, and the file's source (of
/// which that node's tree read the body's part): the same parse the
/// outline made.
pub(super) fn in_macro_body<R>(
    tree: &Tree,
    source: &[u8],
    (start, end, kind): (usize, usize, &str),
    depth: usize,
    f: &mut dyn FnMut(Node<'_>, &[u8]) -> R,
) -> Option<R> {
    if depth >= MAX_NESTING {
        return None;
    }
    // Inside a token tree the item is tokens: its first enclosing node that
    // is not a token tree is the invocation whose body holds it.
    let mut node = tree.root_node().descendant_for_byte_range(start, end)?;
    while node.kind() != "macro_invocation" {
        node = node.parent()?;
    }
    if !at_item_position(node) {
        return None;
    }
    let body = parse_body(source, node)?.ok()?;
    if !(body.start <= start && end <= body.end) {
        return None;
    }
    match crate::tree::node_spanning(body.tree.root_node(), start, end, kind) {
        Some(found) => Some(f(found, source)),
        None => in_macro_body(&body.tree, source, (start, end, kind), depth + 1, f),
    }
}
