//! What a JavaScript or TypeScript file exports: its top-level `export`
//! statements (a declaration's kind, or for `export { x }` the kind of the
//! top-level declaration of `x`), and CommonJS `exports.x = …` and
//! `module.exports = …`.

use std::collections::HashMap;

use tree_sitter::Node;

use super::text;

/// One name a JavaScript or TypeScript file offers other modules.
#[derive(Debug, Clone)]
pub struct Offered<'t> {
    /// The name other modules know it by: `default` for a default export,
    /// `*` for `export * from "m"`.
    pub name: String,
    /// `Function`, `Class`, `Interface`, `TypeAlias`, `Enum`, `Namespace`,
    /// `Variable`, `Import`, `Reexport`, `Default` or `Unknown`.
    pub kind: &'static str,
    /// The file's own top-level name it offers: a declaration's name, `x`
    /// of `export { x as y }` and of `export default x`, `f` of `exports.f
    /// = function…`; None for a re-export or a value without a name.
    pub local: Option<String>,
    /// The statement that exports it.
    pub statement: Node<'t>,
}

/// `export …` statements and CommonJS `exports.x = …`/`module.exports = …` at the top level.
pub fn exports<'t>(root: Node<'t>, source: &[u8]) -> Vec<Offered<'t>> {
    let kinds = top_level_kinds(root, source);
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let mut emit = |name: String, kind: &'static str, local: Option<String>| {
            out.push(Offered { name, kind, local, statement })
        };
        match statement.kind() {
            "export_statement" => export_statement(statement, source, &kinds, &mut emit),
            "expression_statement" => {
                let Some(assignment) = statement.named_child(0).filter(|a| a.kind() == "assignment_expression") else {
                    continue;
                };
                let left = assignment.child_by_field_name("left").map(|l| text(l, source)).unwrap_or_default();
                let right = assignment.child_by_field_name("right");
                // `exports.x = x` offers the local `x`; `exports.x = function…` defines `x` there.
                let local = |name: &str| match right {
                    Some(r) if r.kind() == "identifier" => Some(text(r, source)),
                    _ => Some(name.to_string()),
                };
                if left == "module.exports" {
                    let named = right.filter(|r| r.kind() == "identifier").map(|r| text(r, source));
                    emit("default".into(), "Default", named);
                } else if let Some(name) =
                    left.strip_prefix("exports.").or_else(|| left.strip_prefix("module.exports."))
                {
                    emit(name.to_string(), "Variable", local(name));
                }
            }
            _ => {}
        }
    }
    out
}

// Long because: one arm per form of `export` (default, declaration, clause, re-export, `export =`), in the grammar's order.
fn export_statement(
    statement: Node<'_>,
    source: &[u8],
    kinds: &HashMap<String, &'static str>,
    emit: &mut dyn FnMut(String, &'static str, Option<String>),
) {
    let is_default = {
        let mut c = statement.walk();
        statement.children(&mut c).any(|k| k.kind() == "default")
    };
    // `export declare function f(): void;` declares what it exports.
    let declaration = statement
        .child_by_field_name("declaration")
        .map(|d| if d.kind() == "ambient_declaration" { d.named_child(0).unwrap_or(d) } else { d });
    if is_default {
        // `export default class K {}` is a class; `export default x;` is a value.
        let kind = match (declaration, statement.child_by_field_name("value").map(|v| v.kind())) {
            (Some(d), _) => declaration_kind(d.kind()),
            (None, Some("class")) => "Class",
            (None, Some("function_expression" | "function" | "arrow_function" | "generator_function")) => "Function",
            _ => "Default",
        };
        let value = statement.child_by_field_name("value");
        let named = declaration.and_then(|d| d.child_by_field_name("name")).or_else(|| match value {
            Some(v) if v.kind() == "identifier" => Some(v),
            Some(v) => v.child_by_field_name("name"),
            None => None,
        });
        emit("default".into(), if kind == "Variable" { "Default" } else { kind }, named.map(|n| text(n, source)));
        return;
    }
    let reexport = statement.child_by_field_name("source").is_some();
    if let Some(declaration) = declaration {
        let kind = declaration_kind(declaration.kind());
        match declaration.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut c = declaration.walk();
                for declarator in declaration.named_children(&mut c).filter(|d| d.kind() == "variable_declarator") {
                    if let Some(name) = declarator.child_by_field_name("name") {
                        emit(text(name, source), kind, Some(text(name, source)));
                    }
                }
            }
            _ => {
                if let Some(name) = declaration.child_by_field_name("name") {
                    emit(text(name, source), kind, Some(text(name, source)));
                }
            }
        }
        return;
    }
    let mut c = statement.walk();
    let clause = statement.children(&mut c).find(|k| k.kind() == "export_clause");
    match clause {
        Some(clause) => {
            let mut c = clause.walk();
            for specifier in clause.named_children(&mut c).filter(|s| s.kind() == "export_specifier") {
                let local = specifier.child_by_field_name("name");
                // `export { x as y }`: the kind of the declaration of `x` here.
                let kind = match local {
                    _ if reexport => "Reexport",
                    Some(local) => kinds.get(text(local, source).as_str()).copied().unwrap_or("Unknown"),
                    None => "Unknown",
                };
                if let Some(name) = specifier.child_by_field_name("alias").or(local) {
                    let offers = local.filter(|_| !reexport).map(|l| text(l, source));
                    emit(text(name, source), kind, offers);
                }
            }
        }
        // `export * as ns from "m"` offers `ns`; `export * from "m"` every name of m.
        None if reexport => {
            let mut c = statement.walk();
            let namespace = statement.children(&mut c).find(|k| k.kind() == "namespace_export");
            let name = namespace.and_then(|n| n.named_child(0));
            emit(name.map_or_else(|| "*".to_string(), |n| text(n, source)), "Reexport", None);
        }
        // TypeScript's `export = x`: the module's whole export, as `module.exports = x`.
        None if statement.child_by_field_name("value").is_some() || is_export_assignment(statement) => {
            let mut c = statement.walk();
            let named = statement.named_children(&mut c).find(|n| n.kind() == "identifier");
            emit("default".into(), "Default", named.map(|n| text(n, source)));
        }
        None => {}
    }
}

fn declaration_kind(kind: &str) -> &'static str {
    match kind {
        "function_declaration" | "generator_function_declaration" | "function_signature" => "Function",
        "class_declaration" | "abstract_class_declaration" => "Class",
        "interface_declaration" => "Interface",
        "type_alias_declaration" => "TypeAlias",
        "enum_declaration" => "Enum",
        "internal_module" | "module" => "Namespace",
        _ => "Variable",
    }
}

/// The kind of each name the file's top-level statements declare (or
/// import), for `export { x }`.
fn top_level_kinds(root: Node<'_>, source: &[u8]) -> HashMap<String, &'static str> {
    let mut kinds = HashMap::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let declaration = match statement.kind() {
            "export_statement" => statement.child_by_field_name("declaration"),
            "import_statement" => {
                imported_names(statement, source, &mut kinds);
                None
            }
            _ => Some(statement),
        };
        let Some(mut declaration) = declaration else { continue };
        if declaration.kind() == "ambient_declaration" {
            declaration = declaration.named_child(0).unwrap_or(declaration);
        }
        match declaration.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut c = declaration.walk();
                for declarator in declaration.named_children(&mut c).filter(|d| d.kind() == "variable_declarator") {
                    if let Some(name) = declarator.child_by_field_name("name").filter(|n| n.kind() == "identifier") {
                        kinds.insert(text(name, source), "Variable");
                    }
                }
            }
            kind => {
                let named = declaration_kind(kind);
                if named != "Variable"
                    && let Some(name) = declaration.child_by_field_name("name")
                {
                    kinds.entry(text(name, source)).or_insert(named);
                }
            }
        }
    }
    kinds
}

/// The names an `import` statement binds, as `Import`s.
fn imported_names(statement: Node<'_>, source: &[u8], kinds: &mut HashMap<String, &'static str>) {
    let mut stack = vec![statement];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_specifier" => {
                let bound = node.child_by_field_name("alias").or_else(|| node.child_by_field_name("name"));
                if let Some(bound) = bound {
                    kinds.insert(text(bound, source), "Import");
                }
            }
            "namespace_import" => {
                let mut c = node.walk();
                let bound = node.named_children(&mut c).find(|n| n.kind() == "identifier");
                if let Some(bound) = bound {
                    kinds.insert(text(bound, source), "Import");
                }
            }
            // `import x from "m"`: the default's local name.
            "identifier" if node.parent().is_some_and(|p| p.kind() == "import_clause") => {
                kinds.insert(text(node, source), "Import");
            }
            "import_require_clause" => {
                let mut c = node.walk();
                if let Some(bound) = node.named_children(&mut c).find(|n| n.kind() == "identifier") {
                    kinds.insert(text(bound, source), "Import");
                }
            }
            "string" => {}
            _ => {
                let mut c = node.walk();
                stack.extend(node.named_children(&mut c));
            }
        }
    }
}

/// `export = x;`: an `=` right after `export`.
fn is_export_assignment(statement: Node<'_>) -> bool {
    let mut c = statement.walk();
    let mut kinds = statement.children(&mut c).map(|k| k.kind());
    kinds.next() == Some("export") && kinds.next() == Some("=")
}
