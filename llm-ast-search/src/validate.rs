//! Syntax errors of a parse tree: the innermost ERROR and MISSING nodes,
//! with their span, position and a short message, and for Python the
//! indentation errors tree-sitter tolerates. llm-transform's syntax guard
//! compares these before and after an edit.

use aide_core::{Lang, LineIndex, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

/// How many characters of the offending text a message quotes.
pub(crate) const EXCERPT_CHARS: usize = 80;

/// One syntax error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SyntaxIssue {
    /// `error` (text the grammar cannot place), `missing` (a token the
    /// parser had to assume, such as a `;` or `}`) or `indentation` (a
    /// Python block not indented under its header).
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
    Indentation,
}

/// The syntax errors of `tree`, in source order: the innermost ERROR and
/// MISSING nodes (an ERROR node that holds others is where the parser gave
/// up, not where the fault is, so only the ones inside it are listed), and
/// for Python the blocks not indented under their header.
pub fn syntax_issues(lang: Lang, tree: &Tree, source: &[u8], index: &LineIndex) -> Vec<SyntaxIssue> {
    let mut issues = Vec::new();
    if tree.root_node().has_error() {
        innermost_errors(tree, source, index, &mut issues);
    }
    if lang == Lang::Python {
        python_indentation(tree, source, index, &mut issues);
        issues.sort_by_key(|i| (i.span.byte_start, i.span.byte_end));
    }
    issues
}

/// Visits `tree`'s nodes in source order; `visit` says whether to go into
/// the node's children.
fn preorder<'t>(tree: &'t Tree, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = tree.walk();
    loop {
        if visit(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn innermost_errors(tree: &Tree, source: &[u8], index: &LineIndex, issues: &mut Vec<SyntaxIssue>) {
    preorder(tree, |node| {
        if node.is_error() {
            let mut children = node.walk();
            let holds_errors = node.children(&mut children).any(|c| c.has_error());
            if !holds_errors {
                issues.push(issue(IssueKind::Error, node, source, index));
                return false;
            }
        } else if node.is_missing() {
            issues.push(issue(IssueKind::Missing, node, source, index));
        }
        node.has_error()
    });
}

/// The first line of `node`'s text, whitespace squeezed, at most
/// [`EXCERPT_CHARS`] characters (`…` where cut).
pub(crate) fn excerpt(node: Node<'_>, source: &[u8]) -> String {
    let text = String::from_utf8_lossy(&source[node.byte_range()]);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    let squeezed = first.split_whitespace().collect::<Vec<_>>().join(" ");
    let more = lines.next().is_some();
    match squeezed.char_indices().nth(EXCERPT_CHARS - 1) {
        Some((cut, _)) => format!("{}…", &squeezed[..cut]),
        None if more => format!("{squeezed} …"),
        None => squeezed,
    }
}

fn issue(kind: IssueKind, node: Node<'_>, source: &[u8], index: &LineIndex) -> SyntaxIssue {
    let message = match kind {
        IssueKind::Missing => format!("missing `{}`", node.kind()),
        _ => {
            let shown = excerpt(node, source);
            match node.parent().filter(|p| p.parent().is_some()) {
                Some(p) => format!("unexpected `{shown}` in {}", p.kind().replace('_', " ")),
                None => format!("unexpected `{shown}`"),
            }
        }
    };
    SyntaxIssue { kind, message, span: index.span(source, node.start_byte(), node.end_byte()) }
}

/// Python blocks whose body is empty or not indented deeper than the
/// header (`def f():` then `return` at the `def`'s column): tree-sitter
/// parses them without an ERROR, Python refuses them (IndentationError).
fn python_indentation(tree: &Tree, source: &[u8], index: &LineIndex, issues: &mut Vec<SyntaxIssue>) {
    preorder(tree, |node| {
        if node.kind() == "block"
            && let Some(header) = node.parent()
            && let Some(problem) = python_block_problem(header, node, source)
        {
            let line = header.start_position().row + 1;
            let head = excerpt(header, source);
            let (at, message) = match problem {
                BlockProblem::Empty => (node, format!("expected an indented block after `{head}` on line {line}")),
                BlockProblem::NotDeeper(first) => {
                    (first, format!("the body of `{head}` (line {line}) is not indented deeper than its header"))
                }
            };
            issues.push(SyntaxIssue {
                kind: IssueKind::Indentation,
                message,
                span: index.span(source, at.start_byte(), at.end_byte()),
            });
        }
        true
    });
}

enum BlockProblem<'t> {
    Empty,
    NotDeeper(Node<'t>),
}

fn python_block_problem<'t>(header: Node<'t>, block: Node<'t>, source: &[u8]) -> Option<BlockProblem<'t>> {
    if header.has_error() {
        return None; // the ERROR says more
    }
    let mut cursor = block.walk();
    let first = block.named_children(&mut cursor).find(|c| c.kind() != "comment");
    let Some(first) = first else {
        return Some(BlockProblem::Empty);
    };
    let header_row = header.start_position().row;
    if first.start_position().row == header_row {
        return None; // `if x: pass`
    }
    // Indentation as Python counts it: the whitespace that starts each line.
    let line_start = |at: usize| source[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let header_line = line_start(header.start_byte());
    let header_indent = source[header_line..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    let first_start = first.start_byte();
    let first_line = line_start(first_start);
    let only_space_before = source[first_line..first_start].iter().all(|b| matches!(b, b' ' | b'\t'));
    (only_space_before && first_start - first_line <= header_indent).then_some(BlockProblem::NotDeeper(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(lang: Lang, src: &str) -> Vec<SyntaxIssue> {
        let tree = crate::language::parse(lang, src.as_bytes()).unwrap();
        syntax_issues(lang, &tree, src.as_bytes(), &LineIndex::new(src.as_bytes()))
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

    #[test]
    fn python_bodies_must_be_indented_under_their_header() {
        let found = issues(
            Lang::Python,
            "class SessionInterface:\n    def open_session(self, app, request):\n    return None\n",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].kind, found[0].span.line), (IssueKind::Indentation, 2));
        assert!(found[0].message.contains("expected an indented block after `def open_session"), "{found:?}");
        // One-line bodies, comments and nested blocks are fine.
        let fine = "def f(x):\n    if x: return 1\n    # note\n    for i in x:\n        pass\n    return 2\n";
        assert!(issues(Lang::Python, fine).is_empty(), "{:?}", issues(Lang::Python, fine));
        assert!(issues(Lang::Python, "if True:\n\tx = 1\n").is_empty());
    }

    #[test]
    fn errors_inside_an_error_are_reported_innermost_with_short_excerpts() {
        // A `}` deleted inside a func literal: tree-sitter wraps everything
        // from the outer function's body to the end of the file in one
        // ERROR, which used to be the (first) error reported.
        let mut src = String::from("// Copyright 2013-2023 The Cobra Authors\npackage cobra\n\n");
        src.push_str(
            "func (c *Command) UsageFunc() (f func(*Command) error) {\n\tif c.usageFunc != nil {\n\t\treturn c.usageFunc\n\t}\n\treturn func(c *Command) error {\n\t\terr := fn(c)\n\t\tif err != nil {\n\t\t\tc.PrintErrln(err)\n\t\t\n\t\treturn err\n\t}\n}\n\n",
        );
        let fault_line = src.lines().count() - 4;
        for i in 0..5 {
            src.push_str(&format!("func (c *Command) Name{i}() string {{\n\tname := c.Use\n\tif i >= 0 {{\n\t\tname = name[:i]\n\t}}\n\treturn name\n}}\n\n"));
        }
        let tree = crate::language::parse(Lang::Go, src.as_bytes()).unwrap();
        assert!(tree.root_node().has_error(), "the fixture must not parse");
        let found = issues(Lang::Go, &src);
        assert!(!found.is_empty());
        for i in &found {
            assert!(i.span.end_line - i.span.line <= 2, "not the innermost: {i:?}");
            assert!(!i.message.contains('\n') && i.message.chars().count() <= EXCERPT_CHARS + 40, "{}", i.message);
        }
        assert!(
            found[0].span.line >= fault_line && found[0].span.line <= fault_line + 12,
            "first at {} for a fault at {fault_line}: {found:?}",
            found[0].span.line
        );
    }
}
