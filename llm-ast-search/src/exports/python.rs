//! What a Python module offers: the names it binds at module level (what
//! `from m import *` binds without `__all__`), and its `__all__` as the
//! module builds it. Module level is the module's statements and those of
//! its `if`/`try`/`with`/`for`/`while`/`match` at any depth, never a
//! function's or class's body: `try: import json except ImportError: json =
//! None` binds `json` at module level.

use std::collections::HashMap;

use tree_sitter::Node;

use super::{text, unquoted};

/// Whether a module-level name is public (what `from m import *` binds
/// without `__all__`): not starting with `_`.
pub fn is_public(name: &str) -> bool {
    !name.starts_with('_')
}

/// A name bound at module level, where it is first bound.
#[derive(Debug, Clone)]
pub struct Binding<'t> {
    pub name: String,
    /// `Function`, `Class`, `Import` or `Variable`.
    pub kind: &'static str,
    /// The statement that binds it (a definition, assignment, import, `for`, `with`).
    pub statement: Node<'t>,
}

/// The module-level names of a module still bound at its end, each at its
/// first binding, in source order. A name an unconditional module-level
/// `del` removes is gone unless bound again after it; a conditional `del`
/// (in an `if` or `try`) leaves it. `except E as e` binds nothing that
/// stays (Python deletes `e` at the handler's end), nor does `x: int`
/// without a value.
pub fn bindings<'t>(root: Node<'t>, source: &[u8]) -> Vec<Binding<'t>> {
    let mut live: Vec<Option<Binding<'t>>> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (statement, top) in module_statements(root) {
        if statement.kind() == "delete_statement" {
            if top {
                for name in deleted_names(statement, source) {
                    if let Some(&i) = at.get(&name) {
                        live[i] = None;
                    }
                }
            }
            continue;
        }
        for (name, kind) in bound_names(statement, source) {
            match at.get(&name) {
                Some(&i) if live[i].is_some() => {}
                _ => {
                    at.insert(name.clone(), live.len());
                    live.push(Some(Binding { name, kind, statement }));
                }
            }
        }
    }
    let mut out: Vec<Binding<'t>> = live.into_iter().flatten().collect();
    out.sort_by_key(|b| b.statement.start_byte());
    out
}

/// Every module-level statement in source order, with whether it stands at
/// the top (not inside a compound statement).
fn module_statements(root: Node<'_>) -> Vec<(Node<'_>, bool)> {
    let mut out = Vec::new();
    statements_of(root, true, &mut out);
    out
}

fn statements_of<'t>(block: Node<'t>, top: bool, out: &mut Vec<(Node<'t>, bool)>) {
    let mut cursor = block.walk();
    for statement in block.named_children(&mut cursor) {
        out.push((statement, top));
        inner_blocks(statement, out);
    }
}

/// The statements of a compound statement's blocks (`if`, `elif`, `else`,
/// `try`, `except`, `finally`, `with`, `for`, `while`, `match`'s cases);
/// a definition's body is not module level.
fn inner_blocks<'t>(node: Node<'t>, out: &mut Vec<(Node<'t>, bool)>) {
    if matches!(node.kind(), "function_definition" | "class_definition" | "decorated_definition") {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "block" => statements_of(child, false, out),
            "elif_clause"
            | "else_clause"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "case_clause" => inner_blocks(child, out),
            _ => {}
        }
    }
}

/// The names one statement binds (not those of its inner blocks).
fn bound_names(statement: Node<'_>, source: &[u8]) -> Vec<(String, &'static str)> {
    let definition = match statement.kind() {
        "decorated_definition" => statement.child_by_field_name("definition"),
        _ => Some(statement),
    };
    let Some(definition) = definition else { return Vec::new() };
    let mut names = Vec::new();
    match definition.kind() {
        "function_definition" | "class_definition" => {
            let kind = if definition.kind() == "class_definition" { "Class" } else { "Function" };
            names.extend(definition.child_by_field_name("name").map(|n| (text(n, source), kind)));
        }
        "expression_statement" => {
            let mut cursor = definition.walk();
            for expression in definition.named_children(&mut cursor) {
                assigned(expression, source, &mut names);
            }
        }
        "import_statement" | "import_from_statement" | "future_import_statement" => {
            let mut c = definition.walk();
            for name in definition.children_by_field_name("name", &mut c) {
                let bound = match name.kind() {
                    "aliased_import" => name.child_by_field_name("alias").map(|a| text(a, source)),
                    // `import a.b` binds `a`; `from m import a` binds `a`.
                    _ => text(name, source).split('.').next().map(str::to_string),
                };
                names.extend(bound.map(|b| (b, "Import")));
            }
        }
        "for_statement" => {
            if let Some(left) = definition.child_by_field_name("left") {
                targets(left, source, &mut names);
            }
        }
        "with_statement" => with_targets(definition, source, &mut names),
        _ => {}
    }
    names
}

/// The names an assignment (`a = b = 1`, `x, *y = …`, `x: int = 1`,
/// `n += 1`) binds.
fn assigned(expression: Node<'_>, source: &[u8], names: &mut Vec<(String, &'static str)>) {
    match expression.kind() {
        "assignment" => {
            // `x: int` alone annotates, binding nothing.
            let Some(right) = expression.child_by_field_name("right") else { return };
            if let Some(left) = expression.child_by_field_name("left") {
                targets(left, source, names);
            }
            assigned(right, source, names);
        }
        "augmented_assignment" => {
            if let Some(left) = expression.child_by_field_name("left") {
                targets(left, source, names);
            }
        }
        _ => {}
    }
}

/// The names of an assignment's target: `a`, `a, b`, `(a, [b, *c])`; not
/// an attribute or a subscript.
fn targets(target: Node<'_>, source: &[u8], names: &mut Vec<(String, &'static str)>) {
    match target.kind() {
        "identifier" => names.push((text(target, source), "Variable")),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "list_splat_pattern"
        | "expression_list"
        | "tuple"
        | "list"
        | "list_splat"
        | "parenthesized_expression" => {
            let mut cursor = target.walk();
            for part in target.named_children(&mut cursor) {
                targets(part, source, names);
            }
        }
        _ => {}
    }
}

/// `with open(p) as f, lock:` binds `f`.
fn with_targets(statement: Node<'_>, source: &[u8], names: &mut Vec<(String, &'static str)>) {
    let mut cursor = statement.walk();
    for clause in statement.named_children(&mut cursor).filter(|c| c.kind() == "with_clause") {
        let mut items = clause.walk();
        for item in clause.named_children(&mut items) {
            let Some(value) = item.child_by_field_name("value").filter(|v| v.kind() == "as_pattern") else {
                continue;
            };
            if let Some(alias) = value.child_by_field_name("alias") {
                let mut c = alias.walk();
                for target in alias.named_children(&mut c) {
                    targets(target, source, names);
                }
            }
        }
    }
}

/// Whether the module has a module-level `from m import *`: it binds
/// names the file does not write.
pub fn star_import(root: Node<'_>) -> bool {
    module_statements(root).into_iter().any(|(statement, _)| {
        let mut cursor = statement.walk();
        statement.kind() == "import_from_statement"
            && statement.children(&mut cursor).any(|c| c.kind() == "wildcard_import")
    })
}

/// `del a, b` at module level: `a` and `b`.
fn deleted_names(statement: Node<'_>, source: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = statement.walk();
    for target in statement.named_children(&mut cursor) {
        targets(target, source, &mut names);
    }
    names.into_iter().map(|(n, _)| n).collect()
}

/// A module's `__all__`, as its module-level statements build it.
#[derive(Debug)]
pub struct All<'t> {
    /// The names written as strings, in the order they join the list, each
    /// with its string.
    pub names: Vec<(String, Node<'t>)>,
    /// Whether values known only at run time join it too
    /// (`__all__.extend(f())`, `__all__ = other.__all__ + […]`).
    pub dynamic: bool,
}

/// The module's `__all__`, if a module-level statement assigns it:
/// `__all__ = […]` (a list or tuple, or a sum of them) starts it afresh;
/// `__all__ += …`, `__all__.extend(…)`, `__all__.append(…)` and
/// `__all__.remove(…)` change it, in source order, conditional ones too
/// (what a module may export).
pub fn all<'t>(root: Node<'t>, source: &[u8]) -> Option<All<'t>> {
    let mut found: Option<All<'t>> = None;
    for (statement, _) in module_statements(root) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        let Some(expression) = statement.named_child(0) else { continue };
        match expression.kind() {
            "assignment" if is_all(expression.child_by_field_name("left"), source) => {
                let mut fresh = All { names: Vec::new(), dynamic: false };
                if let Some(right) = expression.child_by_field_name("right") {
                    strings_of(right, source, &mut fresh);
                }
                found = Some(fresh);
            }
            "augmented_assignment" if is_all(expression.child_by_field_name("left"), source) => {
                if let (Some(all), Some(right)) = (found.as_mut(), expression.child_by_field_name("right")) {
                    strings_of(right, source, all);
                }
            }
            "call" => {
                if let Some(all) = found.as_mut() {
                    all_method(expression, source, all);
                }
            }
            _ => {}
        }
    }
    found
}

fn is_all(node: Option<Node<'_>>, source: &[u8]) -> bool {
    node.is_some_and(|n| n.kind() == "identifier" && text(n, source) == "__all__")
}

/// `__all__.extend(…)`, `.append(…)`, `.remove(…)` applied to `all`.
fn all_method<'t>(call: Node<'t>, source: &[u8], all: &mut All<'t>) {
    let Some(function) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else { return };
    if !is_all(function.child_by_field_name("object"), source) {
        return;
    }
    let method = function.child_by_field_name("attribute").map(|a| text(a, source)).unwrap_or_default();
    let argument = call.child_by_field_name("arguments").and_then(|a| a.named_child(0));
    match (method.as_str(), argument) {
        ("extend", Some(argument)) => strings_of(argument, source, all),
        ("append", Some(argument)) if argument.kind() == "string" => {
            all.names.push((unquoted(argument, source), argument));
        }
        ("append", _) => all.dynamic = true,
        ("remove", Some(argument)) if argument.kind() == "string" => {
            let gone = unquoted(argument, source);
            if let Some(i) = all.names.iter().position(|(n, _)| *n == gone) {
                all.names.remove(i);
            }
        }
        ("remove", _) => all.dynamic = true,
        _ => {}
    }
}

/// The strings of a list or tuple literal, or a sum of them, added to
/// `all`; any other part makes it dynamic.
fn strings_of<'t>(value: Node<'t>, source: &[u8], all: &mut All<'t>) {
    match value.kind() {
        "list" | "tuple" | "expression_list" => {
            let mut cursor = value.walk();
            for item in value.named_children(&mut cursor).filter(|i| !i.kind().contains("comment")) {
                match item.kind() {
                    "string" if !is_fstring(item) => all.names.push((unquoted(item, source), item)),
                    _ => all.dynamic = true,
                }
            }
        }
        // `(['a'] + other)`: what the parentheses hold.
        "parenthesized_expression" => match value.named_child(0) {
            Some(inner) => strings_of(inner, source, all),
            None => all.dynamic = true,
        },
        "binary_operator" if value.child_by_field_name("operator").is_some_and(|o| o.kind() == "+") => {
            for side in ["left", "right"] {
                if let Some(part) = value.child_by_field_name(side) {
                    strings_of(part, source, all);
                }
            }
        }
        _ => all.dynamic = true,
    }
}

/// An f-string's value is known only at run time.
fn is_fstring(string: Node<'_>) -> bool {
    let mut cursor = string.walk();
    string.named_children(&mut cursor).any(|c| c.kind() == "interpolation")
}
