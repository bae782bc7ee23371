//! What each language's nodes are to the measures: decision points for
//! cyclomatic complexity, and structures, nesting and flat increments for
//! cognitive complexity.
//!
//! Cyclomatic complexity is McCabe's, 1 + the decision points of a body.
//! Python's decision points are radon's (`radon/visitors.py`,
//! `ComplexityVisitor`): `if`, `elif`, a conditional expression, each
//! `and`/`or` (a `BoolOp` of n values is n − 1), a loop and its `else`, each
//! `except` and a `try`'s `else`, each comprehension `for` and `if`, each
//! `assert` (not what it holds), and a `match`'s cases less a final
//! wildcard or capture; `with`, `finally` and guards add nothing. The other
//! languages' are rust-code-analysis's (`src/metrics/cyclomatic.rs`):
//! `if`, loops, `case` (never `default`), `catch`, the conditional
//! operator, `&&` and `||`, and in Rust each match arm, its guard and each
//! `?`. Go, which rust-code-analysis does not read, by the same rule: `if`,
//! `for`, each `case` of a switch, type switch or select, `&&` and `||`.
//!
//! Cognitive complexity is SonarSource's ("Cognitive Complexity", G. Ann
//! Campbell, 2017, as rust-code-analysis's `cognitive.rs` reads it): +1 and
//! the nesting level for each `if`, conditional operator, `switch`/`match`,
//! loop and `catch`/`except`; +1 flat for each `else if`/`elif`, `else`,
//! `goto` and labelled `break`/`continue`, and for each run of like logical
//! operators (`a && b && c` is 1, `a && b || c` is 2); those structures and
//! each lambda or closure nest what they hold one level deeper. Recursion,
//! which the paper also counts, is not.

use aide_core::Lang;
use tree_sitter::Node;

/// What a node is to cognitive complexity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Plain,
    /// A structure: +1 and the nesting level, and what it holds one level deeper.
    Nests,
    /// +1, no nesting increment: `else if`, `elif`, `else`, a jump.
    Flat,
    /// A lambda or closure: what it holds one level deeper, nothing added.
    Lambda,
}

/// The decision points `node` itself adds to its body's cyclomatic complexity.
pub(crate) fn decisions(lang: Lang, node: Node<'_>, source: &[u8]) -> usize {
    if is_logical(lang, node, source) {
        return 1;
    }
    match lang {
        Lang::Python => python_decisions(node),
        Lang::Rust => match node.kind() {
            "if_expression" | "for_expression" | "while_expression" | "loop_expression" | "try_expression" => 1,
            "match_arm" => {
                let guarded =
                    node.child_by_field_name("pattern").is_some_and(|p| p.child_by_field_name("condition").is_some());
                1 + usize::from(guarded)
            }
            _ => 0,
        },
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => usize::from(matches!(
            node.kind(),
            "if_statement"
                | "for_statement"
                | "for_in_statement"
                | "while_statement"
                | "do_statement"
                | "switch_case"
                | "catch_clause"
                | "ternary_expression"
        )),
        Lang::Java => match node.kind() {
            "if_statement"
            | "for_statement"
            | "enhanced_for_statement"
            | "while_statement"
            | "do_statement"
            | "catch_clause"
            | "ternary_expression" => 1,
            "switch_label" => usize::from(first_token_is(node, "case")),
            _ => 0,
        },
        Lang::C | Lang::Cpp => match node.kind() {
            "if_statement"
            | "for_statement"
            | "for_range_loop"
            | "while_statement"
            | "do_statement"
            | "catch_clause"
            | "conditional_expression" => 1,
            "case_statement" => usize::from(first_token_is(node, "case")),
            _ => 0,
        },
        Lang::Go => usize::from(matches!(
            node.kind(),
            "if_statement" | "for_statement" | "expression_case" | "type_case" | "communication_case"
        )),
    }
}

/// radon's decision points of a Python node (see the module's doc).
fn python_decisions(node: Node<'_>) -> usize {
    let count = |kinds: &[&str]| {
        let mut cursor = node.walk();
        node.children(&mut cursor).filter(|c| kinds.contains(&c.kind())).count()
    };
    match node.kind() {
        "if_statement" | "elif_clause" | "conditional_expression" | "assert_statement" | "for_in_clause" => 1,
        // A comprehension's `if`, not a case's guard.
        "if_clause" => usize::from(node.parent().is_some_and(|p| p.kind() != "case_clause")),
        "for_statement" | "while_statement" => 1 + count(&["else_clause"]),
        // `try … except*` is radon's `TryStar`, which it does not count.
        "try_statement" if is_try_star(node) => 0,
        "try_statement" => count(&["except_clause", "else_clause"]),
        "match_statement" => {
            let Some(block) = node.child_by_field_name("body") else { return 0 };
            let mut cursor = block.walk();
            let cases: Vec<Node<'_>> = block.children(&mut cursor).filter(|c| c.kind() == "case_clause").collect();
            let catch_all = cases.iter().any(|c| is_irrefutable_case(*c));
            cases.len().saturating_sub(usize::from(catch_all))
        }
        _ => 0,
    }
}

fn is_try_star(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == "except_clause" && has_child(c, "*"))
}

/// `case _:` or `case name:` (radon: a `MatchAs` without a sub-pattern),
/// guarded or not.
fn is_irrefutable_case(case: Node<'_>) -> bool {
    let mut cursor = case.walk();
    let patterns: Vec<Node<'_>> = case.children(&mut cursor).filter(|c| c.kind() == "case_pattern").collect();
    let mut cursor = case.walk();
    let trailing_comma = case.children(&mut cursor).any(|c| c.kind() == ",");
    let [pattern] = patterns.as_slice() else { return false };
    if trailing_comma || pattern.child_count() != 1 {
        return false;
    }
    let Some(only) = pattern.child(0) else { return false };
    match only.kind() {
        "_" => true,
        "dotted_name" => only.named_child_count() == 1,
        _ => false,
    }
}

/// Whether radon stops counting below `node` (it does not visit what an
/// `assert` holds).
pub(crate) fn stops_decisions(lang: Lang, node: Node<'_>) -> bool {
    lang == Lang::Python && node.kind() == "assert_statement"
}

/// What `node` is to cognitive complexity.
pub(crate) fn role(lang: Lang, node: Node<'_>) -> Role {
    let kind = node.kind();
    match lang {
        Lang::Python => match kind {
            "if_statement"
            | "for_statement"
            | "while_statement"
            | "except_clause"
            | "conditional_expression"
            | "match_statement" => Role::Nests,
            "elif_clause" => Role::Flat,
            "else_clause" if node.parent().is_some_and(|p| p.kind() == "if_statement") => Role::Flat,
            "lambda" => Role::Lambda,
            _ => Role::Plain,
        },
        _ if is_if(kind) => {
            if is_else_if(node) {
                Role::Flat
            } else {
                Role::Nests
            }
        }
        // An `else` that is not an `else if`.
        _ if kind == "else_clause" => {
            if node.named_children(&mut node.walk()).any(|c| is_if(c.kind())) {
                Role::Plain
            } else {
                Role::Flat
            }
        }
        Lang::Rust => match kind {
            "match_expression" | "for_expression" | "while_expression" | "loop_expression" => Role::Nests,
            "break_expression" | "continue_expression" if has_child(node, "label") => Role::Flat,
            "closure_expression" => Role::Lambda,
            _ => Role::Plain,
        },
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => match kind {
            "for_statement" | "for_in_statement" | "while_statement" | "do_statement" | "switch_statement"
            | "catch_clause" | "ternary_expression" => Role::Nests,
            "break_statement" | "continue_statement" if node.child_by_field_name("label").is_some() => Role::Flat,
            "arrow_function" | "function_expression" | "function" | "generator_function" => Role::Lambda,
            _ => Role::Plain,
        },
        Lang::Java => match kind {
            "for_statement"
            | "enhanced_for_statement"
            | "while_statement"
            | "do_statement"
            | "switch_expression"
            | "catch_clause"
            | "ternary_expression" => Role::Nests,
            "break_statement" | "continue_statement" if has_child(node, "identifier") => Role::Flat,
            "lambda_expression" => Role::Lambda,
            _ => Role::Plain,
        },
        Lang::C | Lang::Cpp => match kind {
            "for_statement"
            | "for_range_loop"
            | "while_statement"
            | "do_statement"
            | "switch_statement"
            | "catch_clause"
            | "conditional_expression" => Role::Nests,
            "goto_statement" => Role::Flat,
            "lambda_expression" => Role::Lambda,
            _ => Role::Plain,
        },
        Lang::Go => match kind {
            "for_statement" | "expression_switch_statement" | "type_switch_statement" | "select_statement" => {
                Role::Nests
            }
            "goto_statement" => Role::Flat,
            "break_statement" | "continue_statement" if has_child(node, "label_name") => Role::Flat,
            "func_literal" => Role::Lambda,
            _ => Role::Plain,
        },
    }
}

/// The `else` written as an if's `alternative` with no node of its own
/// (Java, Go): +1 flat, where it is not an `else if`.
pub(crate) fn bare_else(lang: Lang, node: Node<'_>) -> bool {
    matches!(lang, Lang::Java | Lang::Go)
        && is_if(node.kind())
        && node.child_by_field_name("alternative").is_some_and(|a| !is_if(a.kind()))
}

fn is_if(kind: &str) -> bool {
    matches!(kind, "if_statement" | "if_expression")
}

/// An `if` that is the `else` branch of another: `else if`.
fn is_else_if(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    match parent.kind() {
        "else_clause" => true,
        k if is_if(k) => parent.child_by_field_name("alternative").is_some_and(|a| a.id() == node.id()),
        _ => false,
    }
}

fn has_child(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

fn first_token_is(node: Node<'_>, token: &str) -> bool {
    node.child(0).is_some_and(|c| c.kind() == token)
}

/// The operator of a logical `and`/`or` node, if `node` is one.
pub(crate) fn logical_operator(lang: Lang, node: Node<'_>, source: &[u8]) -> Option<LogicalOp> {
    let kind = node.kind();
    let wanted = match lang {
        Lang::Python => kind == "boolean_operator",
        _ => kind == "binary_expression",
    };
    if !wanted {
        return None;
    }
    let operator = node.child_by_field_name("operator")?;
    match &source[operator.byte_range()] {
        b"&&" | b"and" => Some(LogicalOp::And),
        b"||" | b"or" => Some(LogicalOp::Or),
        _ => None,
    }
}

fn is_logical(lang: Lang, node: Node<'_>, source: &[u8]) -> bool {
    logical_operator(lang, node, source).is_some()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogicalOp {
    And,
    Or,
}
