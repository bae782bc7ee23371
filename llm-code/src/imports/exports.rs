//! What a file offers other modules, by its language's rule: Rust's `pub`
//! items, Java's `public` types, Go's capitalised names, C's and C++'s
//! definitions and declarations that are not `static`, JavaScript's and
//! TypeScript's `export` (and CommonJS `exports.x =`), Python's `__all__`
//! or, without it, its public top-level names (what `from m import *`
//! binds: not starting with `_`).

use aide_core::Lang;
use llm_ast_search::{SourceFile, Symbol, SymbolKind, with_symbol_node};
use tree_sitter::Node;

use super::lang::rust_use;
use super::{Export, ExportRule, text, unquoted};

/// The exports of a file, in source order, and where they come from.
pub(crate) fn exports(file: &SourceFile) -> (Vec<Export>, ExportRule) {
    let mut out = Vec::new();
    let mut rule = ExportRule::Language;
    let span = |n: Node<'_>| file.index.span(&file.source, n.start_byte(), n.end_byte());
    let root = file.tree.root_node();
    let source = &file.source[..];
    match file.lang {
        Lang::Python => match python_all(root, source) {
            Some(names) => {
                rule = ExportRule::All;
                out.extend(names.into_iter().map(|(name, node)| Export {
                    name,
                    kind: "Variable".into(),
                    span: span(node),
                }));
            }
            None => python_public(root, source, &mut |name, kind, node| {
                out.push(Export { name, kind: kind.to_string(), span: span(node) })
            }),
        },
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript(root, source, &mut |name, kind, node| {
            out.push(Export { name, kind: kind.to_string(), span: span(node) })
        }),
        _ => {
            for symbol in file.outline().iter().filter(|s| offered(file, s)) {
                out.push(Export {
                    name: symbol.name_path.to_string(),
                    kind: symbol.kind.name().to_string(),
                    span: symbol.span,
                });
            }
            if file.lang == Lang::Rust {
                rust_reexports(root, source, &mut |name, node| {
                    out.push(Export { name, kind: "Reexport".into(), span: span(node) })
                });
            }
        }
    }
    // Stable: the names of one statement keep their order.
    out.sort_by_key(|e: &Export| e.span.byte_start);
    (out, rule)
}

/// Whether an outline symbol is exported by its language's rule.
fn offered(file: &SourceFile, symbol: &Symbol) -> bool {
    let lang = file.lang;
    let top = symbol.depth == 1;
    let node_says = |f: &dyn Fn(Node<'_>, &[u8]) -> bool| {
        with_symbol_node(lang, &file.tree, &file.source, symbol, |node, source| f(node, source)).unwrap_or(false)
    };
    match lang {
        Lang::Rust => top && node_says(&|node, source| visibility(node, source).as_deref() == Some("pub")),
        Lang::Java => {
            top && node_says(&|node, source| {
                let mut cursor = node.walk();
                node.children(&mut cursor)
                    .filter(|c| c.kind() == "modifiers")
                    .any(|m| text(m, source).split_whitespace().any(|w| w == "public"))
            })
        }
        // Go: a capital first letter; a method of a type is its type's.
        Lang::Go => {
            (top || symbol.kind == SymbolKind::Method) && symbol.name.chars().next().is_some_and(char::is_uppercase)
        }
        Lang::C | Lang::Cpp => {
            let in_namespace = symbol.depth == 2
                && symbol.parent.is_some()
                && file.outline().iter().any(|p| {
                    p.kind == SymbolKind::Namespace && Some(&p.name_path) == symbol.parent.as_ref() && p.depth == 1
                });
            (top || in_namespace)
                && !matches!(symbol.kind, SymbolKind::Namespace | SymbolKind::Field | SymbolKind::Variant)
                && !node_says(&|node, source| is_static(node, source))
        }
        _ => false,
    }
}

/// A Rust item's visibility as written (`pub`, `pub(crate)`), if any.
fn visibility(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == "visibility_modifier");
    found.map(|v| text(v, source))
}

/// A C or C++ declaration with `static` storage (internal linkage).
fn is_static(node: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == "storage_class_specifier" && text(c, source) == "static")
}

/// `pub use a::{b, c as d};` at the top level: `b` and `d`.
fn rust_reexports(root: Node<'_>, source: &[u8], emit: &mut dyn FnMut(String, Node<'_>)) {
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        if item.kind() != "use_declaration" || visibility(item, source).as_deref() != Some("pub") {
            continue;
        }
        let Some(argument) = item.child_by_field_name("argument") else { continue };
        let names = rust_use(argument, source)
            .into_iter()
            .flat_map(|(module, names)| if names.is_empty() { vec![module] } else { names });
        for name in names {
            // The name other modules use: an alias, else the path's last segment.
            let used = name.rsplit(" as ").next().unwrap_or(&name);
            let used = used.rsplit("::").next().unwrap_or(used).trim();
            emit(used.to_string(), item);
        }
    }
}

/// The names of a module-level `__all__ = [...]` (or a tuple), if it has one.
fn python_all<'t>(root: Node<'t>, source: &[u8]) -> Option<Vec<(String, Node<'t>)>> {
    let mut found = None;
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let Some(assignment) = statement.named_child(0).filter(|a| a.kind() == "assignment") else { continue };
        let is_all = assignment.child_by_field_name("left").is_some_and(|l| text(l, source) == "__all__");
        let Some(value) = assignment.child_by_field_name("right").filter(|_| is_all) else { continue };
        if !matches!(value.kind(), "list" | "tuple") {
            continue;
        }
        let mut items = value.walk();
        let names: Vec<(String, Node<'t>)> = value
            .named_children(&mut items)
            .filter(|s| s.kind() == "string")
            .map(|s| (unquoted(s, source), s))
            .collect();
        // The last assignment stands.
        found = Some(names);
    }
    found
}

/// Python's public module-level names: functions, classes, variables and
/// the names imports bind, not starting with `_`.
fn python_public<'t>(root: Node<'t>, source: &[u8], emit: &mut dyn FnMut(String, &'static str, Node<'t>)) {
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let definition = match statement.kind() {
            "decorated_definition" => statement.child_by_field_name("definition"),
            _ => Some(statement),
        };
        let Some(definition) = definition else { continue };
        let mut names: Vec<(String, &'static str)> = Vec::new();
        match definition.kind() {
            "function_definition" | "class_definition" => {
                let kind = if definition.kind() == "class_definition" { "Class" } else { "Function" };
                names.extend(definition.child_by_field_name("name").map(|n| (text(n, source), kind)));
            }
            "expression_statement" => {
                let assignment = definition.named_child(0).filter(|a| a.kind() == "assignment");
                if let Some(left) = assignment.and_then(|a| a.child_by_field_name("left")) {
                    let mut targets = vec![left];
                    if matches!(left.kind(), "pattern_list" | "tuple_pattern") {
                        let mut c = left.walk();
                        targets = left.named_children(&mut c).collect();
                    }
                    names.extend(
                        targets.into_iter().filter(|t| t.kind() == "identifier").map(|t| (text(t, source), "Variable")),
                    );
                }
            }
            "import_statement" | "import_from_statement" => {
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
            _ => {}
        }
        for (name, kind) in names {
            if !name.starts_with('_') {
                emit(name, kind, statement);
            }
        }
    }
}

/// `export …` statements and CommonJS `exports.x = …`/`module.exports = …` at the top level.
fn javascript<'t>(root: Node<'t>, source: &[u8], emit: &mut dyn FnMut(String, &'static str, Node<'t>)) {
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        match statement.kind() {
            "export_statement" => export_statement(statement, source, emit),
            "expression_statement" => {
                let Some(assignment) = statement.named_child(0).filter(|a| a.kind() == "assignment_expression") else {
                    continue;
                };
                let left = assignment.child_by_field_name("left").map(|l| text(l, source)).unwrap_or_default();
                if left == "module.exports" {
                    emit("default".into(), "Variable", statement);
                } else if let Some(name) =
                    left.strip_prefix("exports.").or_else(|| left.strip_prefix("module.exports."))
                {
                    emit(name.to_string(), "Variable", statement);
                }
            }
            _ => {}
        }
    }
}

fn export_statement<'t>(statement: Node<'t>, source: &[u8], emit: &mut dyn FnMut(String, &'static str, Node<'t>)) {
    let is_default = {
        let mut c = statement.walk();
        statement.children(&mut c).any(|k| k.kind() == "default")
    };
    if is_default {
        emit("default".into(), "Default", statement);
        return;
    }
    let reexport = statement.child_by_field_name("source").is_some();
    if let Some(declaration) = statement.child_by_field_name("declaration") {
        let kind = declaration_kind(declaration.kind());
        match declaration.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut c = declaration.walk();
                for declarator in declaration.named_children(&mut c).filter(|d| d.kind() == "variable_declarator") {
                    if let Some(name) = declarator.child_by_field_name("name") {
                        emit(text(name, source), kind, statement);
                    }
                }
            }
            _ => {
                if let Some(name) = declaration.child_by_field_name("name") {
                    emit(text(name, source), kind, statement);
                }
            }
        }
        return;
    }
    let mut c = statement.walk();
    let clause = statement.children(&mut c).find(|k| k.kind() == "export_clause");
    let kind = if reexport { "Reexport" } else { "Variable" };
    match clause {
        Some(clause) => {
            let mut c = clause.walk();
            for specifier in clause.named_children(&mut c).filter(|s| s.kind() == "export_specifier") {
                let name = specifier.child_by_field_name("alias").or_else(|| specifier.child_by_field_name("name"));
                if let Some(name) = name {
                    emit(text(name, source), kind, statement);
                }
            }
        }
        // `export * from "m"`.
        None if reexport => emit("*".into(), "Reexport", statement),
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
