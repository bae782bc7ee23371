//! Walking up a syntax tree without `parent()` chains: tree-sitter finds a
//! node's parent by walking down from the root, so a chain of `parent()`
//! calls costs the square of the depth (a query over a file of 500 nested
//! blocks took 26 s). The ancestors are found once, from the root down.
//! And a node's text on one line.

use tree_sitter::Node;

/// `node`'s ancestors below `root` and `root` itself, nearest first (empty
/// when `node` is `root`). Costs the depth times the children per level.
pub(crate) fn ancestors<'t>(root: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut chain = Vec::new();
    let mut at = root;
    while at.id() != node.id() {
        chain.push(at);
        match at.child_with_descendant(node) {
            Some(child) => at = child,
            None => break,
        }
    }
    chain.reverse();
    chain
}

/// The node of kind `kind` spanning exactly `start..end`, if the tree has one.
pub(crate) fn node_spanning<'t>(root: Node<'t>, start: usize, end: usize, kind: &str) -> Option<Node<'t>> {
    let mut node = root.descendant_for_byte_range(start, end)?;
    // The smallest node with the span may be a child of the symbol's own.
    while node.kind() != kind || node.byte_range() != (start..end) {
        node = node.parent().filter(|p| p.byte_range() == (start..end))?;
    }
    Some(node)
}

/// The text of a node, whitespace runs collapsed to one space.
pub(crate) fn node_text_collapsed(node: Node<'_>, source: &[u8]) -> String {
    collapse(&String::from_utf8_lossy(&source[node.byte_range()]))
}

/// `text` with its whitespace runs collapsed to one space, trimmed.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_chain_as_parent_calls() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
        let source = "def f():\n    if x:\n        return (1 + (2 * y))\n";
        let tree = parser.parse(source, None).unwrap();
        let root = tree.root_node();
        let y = root.descendant_for_byte_range(source.find('y').unwrap(), source.find('y').unwrap() + 1).unwrap();
        let by_parent: Vec<usize> = std::iter::successors(y.parent(), |n| n.parent()).map(|n| n.id()).collect();
        let found: Vec<usize> = ancestors(root, y).iter().map(|n| n.id()).collect();
        assert_eq!(found, by_parent);
        assert!(ancestors(root, root).is_empty());
    }
}
