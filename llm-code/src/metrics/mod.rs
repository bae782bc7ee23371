//! Per function and per file measures, from the trees llm-ast-search
//! parsed and the functions its outline found: what a function is, where
//! it starts and ends, is the outline's, so every measure names a symbol
//! the other tools can find and edit. What each node counts for is in
//! [`rules`].

mod rules;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::Arc;

use aide_core::{Lang, Span};
use llm_ast_search::{SourceFile, Symbol, SymbolKind, body_of, with_symbol_node};
use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::Node;

use rules::{LogicalOp, Role};

/// The measures of one function or method.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FunctionMetrics {
    pub path: String,
    pub name: String,
    /// As the outline names it (`impl Agent/run`, `Parser/parse`).
    pub name_path: String,
    pub kind: SymbolKind,
    /// The function's node, as the outline gives it.
    #[serde(flatten)]
    pub span: Span,
    /// McCabe's: 1 + the decision points of the body (Python's as radon counts them).
    pub cyclomatic: usize,
    /// SonarSource's cognitive complexity of the body.
    pub cognitive: usize,
    /// Lines from the first to the last of the function.
    pub lines: usize,
    /// Of those, lines holding code (not only blanks and comments).
    pub code_lines: usize,
    /// Formal parameters as written (`self` included; a Go `a, b int` is two).
    pub parameters: usize,
    /// The deepest nesting of control structures in the body (0: none);
    /// a lambda or closure counts one level.
    pub nesting: usize,
}

/// The measures of one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileMetrics {
    pub path: String,
    pub language: Lang,
    /// SHA-256 of the file's bytes as parsed.
    pub checksum: Arc<str>,
    pub lines: usize,
    pub code_lines: usize,
    /// Functions and methods with a body.
    pub functions: usize,
    /// The cyclomatic complexities of the file's `functions` summed, as
    /// radon's blocks are: equal to the sum over its records.
    pub cyclomatic: usize,
    /// The cognitive complexities of the file's `functions` summed.
    pub cognitive: usize,
    /// The cyclomatic complexity of the code outside every function (module
    /// level, class bodies, file-scope initialisers) measured as one body:
    /// 1 + its decision points. Not in `cyclomatic`; rust-code-analysis's
    /// file total is the two added.
    pub module_cyclomatic: usize,
    /// The cognitive complexity of the code outside every function. Not in
    /// `cognitive`.
    pub module_cognitive: usize,
    pub max_cyclomatic: usize,
    pub max_cognitive: usize,
    pub max_nesting: usize,
}

/// What one walk of a body counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measures {
    pub cyclomatic: usize,
    pub cognitive: usize,
    pub nesting: usize,
}

/// The measures of a file and of each of its functions, in outline order.
pub(crate) fn of_file(file: &SourceFile) -> (FileMetrics, Vec<FunctionMetrics>) {
    let lang = file.lang;
    let functions: Vec<&Symbol> =
        file.outline().iter().filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method)).collect();
    let spans: HashSet<(usize, usize)> = functions.iter().map(|s| (s.span.byte_start, s.span.byte_end)).collect();
    let mut measured = Vec::new();
    for symbol in functions {
        let found = with_symbol_node(lang, &file.tree, &file.source, symbol, |node, source| {
            let body = body_of(node)?;
            let skip = |n: Node<'_>| n.id() != node.id() && skipped_in_function(lang, n, &spans);
            let m = measure(lang, body, source, &skip);
            Some((m, code_lines(node), parameters(lang, node)))
        });
        let Some(Some((m, code, parameters))) = found else { continue };
        measured.push(FunctionMetrics {
            path: file.path.clone(),
            name: symbol.name.clone(),
            name_path: symbol.name_path.to_string(),
            kind: symbol.kind,
            span: symbol.span,
            cyclomatic: m.cyclomatic,
            cognitive: m.cognitive,
            lines: symbol.span.end_line - symbol.span.line + 1,
            code_lines: code,
            parameters,
            nesting: m.nesting,
        });
    }
    let root = file.tree.root_node();
    let outside = measure(lang, root, &file.source, &|n| is_function_node(n, &spans));
    let sum = |f: fn(&FunctionMetrics) -> usize| measured.iter().map(f).sum::<usize>();
    let max = |f: fn(&FunctionMetrics) -> usize| measured.iter().map(f).max().unwrap_or(0);
    let totals = FileMetrics {
        path: file.path.clone(),
        language: lang,
        checksum: file.checksum().clone(),
        lines: line_count(&file.source),
        code_lines: code_lines(root),
        functions: measured.len(),
        cyclomatic: sum(|f| f.cyclomatic),
        cognitive: sum(|f| f.cognitive),
        module_cyclomatic: outside.cyclomatic,
        module_cognitive: outside.cognitive,
        max_cyclomatic: max(|f| f.cyclomatic),
        max_cognitive: max(|f| f.cognitive),
        max_nesting: max(|f| f.nesting),
    };
    (totals, measured)
}

fn is_function_node(node: Node<'_>, spans: &HashSet<(usize, usize)>) -> bool {
    spans.contains(&(node.start_byte(), node.end_byte()))
}

/// What a function's walk does not enter: the functions nested in it
/// (measured on their own) with their decorators; in Python, as radon,
/// classes too.
fn skipped_in_function(lang: Lang, node: Node<'_>, spans: &HashSet<(usize, usize)>) -> bool {
    if is_function_node(node, spans) {
        return true;
    }
    match node.kind() {
        "class_definition" if lang == Lang::Python => true,
        "decorated_definition" => node
            .child_by_field_name("definition")
            .is_some_and(|d| is_function_node(d, spans) || (lang == Lang::Python && d.kind() == "class_definition")),
        _ => false,
    }
}

/// The measures of the code under `root`, not entering what `skip` says.
pub(crate) fn measure(lang: Lang, root: Node<'_>, source: &[u8], skip: &dyn Fn(Node<'_>) -> bool) -> Measures {
    let mut m = Measures { cyclomatic: 1, cognitive: 0, nesting: 0 };
    // (node, its nesting level, whether its decision points count)
    let mut stack = vec![(root, 0usize, true)];
    while let Some((node, level, counting)) = stack.pop() {
        if skip(node) || is_comment(node) {
            continue;
        }
        if counting {
            m.cyclomatic += rules::decisions(lang, node, source);
        }
        let counting = counting && !rules::stops_decisions(lang, node);
        let mut inner = level;
        match rules::role(lang, node) {
            Role::Nests => {
                m.cognitive += 1 + level;
                inner = level + 1;
                m.nesting = m.nesting.max(inner);
            }
            Role::Flat => m.cognitive += 1,
            Role::Lambda => inner = level + 1,
            Role::Plain => {}
        }
        if rules::bare_else(lang, node) {
            m.cognitive += 1;
        }
        if rules::logical_operator(lang, node, source).is_some() && !logical_above(lang, node, source) {
            m.cognitive += operator_runs(lang, node, source);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push((child, inner, counting));
        }
    }
    m
}

/// Whether a logical operator holds `node` (through parentheses): then
/// `node`'s operators were counted with that one's.
fn logical_above(lang: Lang, node: Node<'_>, source: &[u8]) -> bool {
    let mut up = node.parent();
    while let Some(p) = up {
        if p.kind() == "parenthesized_expression" {
            up = p.parent();
            continue;
        }
        return rules::logical_operator(lang, p, source).is_some();
    }
    false
}

/// The runs of like operators in a logical expression, in source order
/// and through parentheses (`a && b || c` is 2; a negation starts anew).
fn operator_runs(lang: Lang, top: Node<'_>, source: &[u8]) -> usize {
    let mut operators: Vec<(usize, LogicalOp)> = Vec::new();
    let mut stack = vec![top];
    while let Some(node) = stack.pop() {
        if let Some(op) = rules::logical_operator(lang, node, source) {
            let at = node.child_by_field_name("operator").map_or(node.start_byte(), |o| o.start_byte());
            operators.push((at, op));
        } else if node.kind() != "parenthesized_expression" && node.id() != top.id() {
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    operators.sort_by_key(|(at, _)| *at);
    let changes = operators.windows(2).filter(|w| w[0].1 != w[1].1).count();
    usize::from(!operators.is_empty()) + changes
}

fn is_comment(node: Node<'_>) -> bool {
    node.kind().contains("comment")
}

/// Lines under `node` that hold a token other than a comment.
pub(crate) fn code_lines(node: Node<'_>) -> usize {
    let first = node.start_position().row;
    let mut lines = vec![false; node.end_position().row - first + 1];
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if is_comment(n) {
            continue;
        }
        if n.child_count() == 0 {
            if n.end_byte() > n.start_byte() {
                for row in n.start_position().row..=n.end_position().row {
                    if let Some(line) = lines.get_mut(row - first) {
                        *line = true;
                    }
                }
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    lines.iter().filter(|l| **l).count()
}

/// Lines in the file: a last line without a terminator counts.
fn line_count(source: &[u8]) -> usize {
    let breaks = source.iter().filter(|&&b| b == b'\n').count();
    breaks + usize::from(source.last().is_some_and(|&b| b != b'\n'))
}

/// The formal parameters of a function node.
fn parameters(lang: Lang, node: Node<'_>) -> usize {
    let Some(list) = parameter_list(node) else { return 0 };
    if list.kind() == "identifier" {
        // `x => …`: one parameter, unparenthesised.
        return 1;
    }
    let mut cursor = list.walk();
    let items: Vec<Node<'_>> = list.named_children(&mut cursor).filter(|c| !is_comment(*c)).collect();
    match lang {
        Lang::Go => items
            .iter()
            .map(|p| {
                let mut cursor = p.walk();
                p.children_by_field_name("name", &mut cursor).count().max(1)
            })
            .sum(),
        Lang::Python => {
            items.iter().filter(|p| !matches!(p.kind(), "keyword_separator" | "positional_separator")).count()
        }
        Lang::C | Lang::Cpp => {
            // `(void)` declares none.
            let void = |p: &Node<'_>| {
                p.kind() == "parameter_declaration"
                    && p.child_by_field_name("declarator").is_none()
                    && p.child_by_field_name("type").is_some_and(|t| t.kind() == "primitive_type")
                    && items.len() == 1
            };
            items.iter().filter(|p| !void(p)).count()
        }
        Lang::Rust => items.iter().filter(|p| p.kind() != "attribute_item").count(),
        _ => items.len(),
    }
}

/// Where a function node keeps its parameters: its own `parameters`, its
/// value's (`const f = (a) => …`), or a C declarator's.
fn parameter_list(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(list) = node.child_by_field_name("parameters") {
        return Some(list);
    }
    for field in ["value", "right"] {
        if let Some(value) = node.child_by_field_name(field) {
            return value.child_by_field_name("parameters").or_else(|| value.child_by_field_name("parameter"));
        }
    }
    let mut declarator = node.child_by_field_name("declarator");
    while let Some(d) = declarator {
        if d.kind() == "function_declarator" {
            return d.child_by_field_name("parameters");
        }
        declarator = d.child_by_field_name("declarator");
    }
    None
}
