//! Syntax errors of a parse tree: every ERROR and MISSING node, with its
//! span, position and a short message. llm-transform's syntax guard compares
//! these before and after an edit.

use aide_core::{LineIndex, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

/// One syntax error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SyntaxIssue {
    /// `error` (text the grammar cannot place) or `missing` (a token the
    /// parser had to assume, such as a `;` or `}`).
    pub kind: IssueKind,
    pub message: String,
    #[serde(flatten)]
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    Error,
    Missing,
}

/// The syntax errors of `tree`, in source order. An ERROR node's inner
/// errors are not listed again.
pub fn syntax_issues(tree: &Tree, source: &[u8], index: &LineIndex) -> Vec<SyntaxIssue> {
    let mut issues = Vec::new();
    if !tree.root_node().has_error() {
        return issues;
    }
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_error() {
            issues.push(issue(IssueKind::Error, node, source, index));
            descend = false;
        } else if node.is_missing() {
            issues.push(issue(IssueKind::Missing, node, source, index));
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return issues;
            }
        }
    }
}

fn issue(kind: IssueKind, node: Node<'_>, source: &[u8], index: &LineIndex) -> SyntaxIssue {
    let message = match kind {
        IssueKind::Missing => format!("missing `{}`", node.kind()),
        IssueKind::Error => {
            let text = String::from_utf8_lossy(&source[node.byte_range()]);
            let first = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let (shown, _) = aide_core::text::shorten(first, 40);
            match node.parent().filter(|p| p.parent().is_some()) {
                Some(p) => format!("unexpected `{shown}` in {}", p.kind().replace('_', " ")),
                None => format!("unexpected `{shown}`"),
            }
        }
    };
    SyntaxIssue { kind, message, span: index.span(source, node.start_byte(), node.end_byte()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::Lang;

    fn issues(lang: Lang, src: &str) -> Vec<SyntaxIssue> {
        let tree = crate::language::parse(lang, src.as_bytes()).unwrap();
        syntax_issues(&tree, src.as_bytes(), &LineIndex::new(src.as_bytes()))
    }

    #[test]
    fn valid_code_has_no_issues() {
        assert!(issues(Lang::Rust, "fn main() { let x = 1; }\n").is_empty());
        assert!(issues(Lang::Python, "def f():\n    return 1\n").is_empty());
    }

    #[test]
    fn missing_and_unexpected_tokens_are_located() {
        let found = issues(Lang::Rust, "fn main() {\n    let x = 1\n}\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].kind, found[0].message.as_str(), found[0].span.line),
            (IssueKind::Missing, "missing `;`", 2)
        );
        let found = issues(Lang::Python, "def f(:\n    pass\n");
        assert!(found.iter().any(|i| i.span.line == 1 && i.span.column == 7), "{found:?}");
        let found = issues(Lang::Rust, "fn f() {}\n@@ fn g() {}\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].kind, found[0].span.line, found[0].span.column), (IssueKind::Error, 2, 1));
        assert!(found[0].message.starts_with("unexpected `@@`"), "{}", found[0].message);
    }
}
