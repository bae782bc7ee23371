//! A symbol's node found again from its record, and the places an edit of
//! it needs: where its body starts (its head ends there), and where text
//! inserted before it goes. An item of a Rust macro body is found in the
//! parse the outline found it in, so it has a body and attributes too.

use aide_core::Lang;
use tree_sitter::{Node, Tree};

use super::Symbol;
use super::macros::in_macro_body;
use crate::tree::node_spanning;

/// Calls `f` with `symbol`'s node (in the file's tree, or for an item of a
/// Rust macro body in the body's parse, whose offsets are the file's) and
/// the file's source. None if the tree has no such node.
pub fn with_symbol_node<R>(
    lang: Lang,
    tree: &Tree,
    source: &[u8],
    symbol: &Symbol,
    mut f: impl FnMut(Node<'_>, &[u8]) -> R,
) -> Option<R> {
    let (start, end) = (symbol.span.byte_start, symbol.span.byte_end);
    if let Some(node) = node_spanning(tree.root_node(), start, end, symbol.node_kind) {
        return Some(f(node, source));
    }
    if lang != Lang::Rust {
        return None;
    }
    in_macro_body(tree, source, (start, end, symbol.node_kind), 0, &mut f)
}

/// The body of a definition: its `body` (a function's block, a class's
/// members), or the body of the function its name is given (`const f =
/// (a) => {…}`, `handler = () => {…}`, `{ key: function () {…} }`,
/// `A.prototype.f = function…`).
pub fn body_of(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(body) = node.child_by_field_name("body") {
        return Some(body);
    }
    ["value", "right"]
        .iter()
        .filter_map(|field| node.child_by_field_name(field))
        .find(|v| matches!(v.kind(), "arrow_function" | "function_expression" | "function" | "generator_function"))
        .and_then(|f| f.child_by_field_name("body"))
}

/// Where `symbol`'s body starts: its head (`fn f(a: u8)`, `def f(a):`,
/// `func (c *Command) Name() string`) is what comes before. None for a
/// symbol without a body (a prototype, a field, an abstract method).
pub fn body_start(lang: Lang, tree: &Tree, source: &[u8], symbol: &Symbol) -> Option<usize> {
    with_symbol_node(lang, tree, source, symbol, |node, _| body_of(node).map(|b| b.start_byte()))
        .flatten()
        .filter(|&b| b > symbol.span.byte_start)
}

/// Where text inserted "before" a symbol must go so it stays outside the
/// symbol: before its wrappers (Python decorators, `export`, C++
/// `template<…>`) and the attributes and comments attached above it (Rust
/// `#[…]`, doc comments), on no blank line.
pub fn leading_start(lang: Lang, tree: &Tree, source: &[u8], symbol: &Symbol) -> usize {
    with_symbol_node(lang, tree, source, symbol, leading_start_of).unwrap_or(symbol.span.byte_start)
}

fn leading_start_of(mut node: Node<'_>, source: &[u8]) -> usize {
    while let Some(p) = node.parent() {
        if matches!(p.kind(), "decorated_definition" | "export_statement" | "template_declaration") {
            node = p;
        } else {
            break;
        }
    }
    let mut start = node.start_byte();
    let mut current = node;
    while let Some(prev) = current.prev_sibling() {
        let attached = matches!(
            prev.kind(),
            "attribute_item"
                | "inner_attribute_item"
                | "line_comment"
                | "block_comment"
                | "comment"
                | "decorator"
                | "annotation"
        );
        // Attached: nothing but one line break (and indentation) in between,
        // and on a line of its own (`a int // a's comment` above `b int` is a's).
        let gap = &source[prev.end_byte()..current.start_byte()];
        let newlines = gap.iter().filter(|&&b| b == b'\n').count();
        let ends_with_newline = source.get(prev.end_byte().wrapping_sub(1)) == Some(&b'\n');
        let line_start = source[..prev.start_byte()].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let own_line = source[line_start..prev.start_byte()].iter().all(|b| matches!(b, b' ' | b'\t'));
        if !attached
            || !own_line
            || newlines + usize::from(ends_with_newline) > 1
            || prev.kind() == "inner_attribute_item"
        {
            break;
        }
        start = prev.start_byte();
        current = prev;
    }
    start
}
