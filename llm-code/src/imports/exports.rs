//! What a file offers other modules, by its language's rule: Rust's `pub`
//! items and `#[macro_export]` macros, Java's `public` types, Go's capitalised names, C's and C++'s
//! definitions and declarations that are not `static`, JavaScript's and
//! TypeScript's `export` (and CommonJS `exports.x =`), Python's `__all__`
//! or, without it, its public top-level names (what `from m import *`
//! binds: not starting with `_`).

use aide_core::Lang;
use llm_ast_search::{SourceFile, Symbol, SymbolKind, with_symbol_node};
use tree_sitter::Node;

use std::collections::HashMap;

use super::lang::rust_use;
use super::{Export, ExportRule, javascript, python, text};

/// The exports of a file, in source order, and where they come from.
pub(crate) fn exports(file: &SourceFile) -> Exports {
    let mut out = Vec::new();
    let mut rule = ExportRule::Language;
    let mut complete = true;
    let span = |n: Node<'_>| file.index.span(&file.source, n.start_byte(), n.end_byte());
    let root = file.tree.root_node();
    let source = &file.source[..];
    match file.lang {
        Lang::Python => {
            let bound = python::bindings(root, source);
            match python::all(root, source) {
                Some(all) => {
                    rule = ExportRule::All;
                    complete = !all.dynamic;
                    let kinds: HashMap<&str, &'static str> = bound.iter().map(|b| (b.name.as_str(), b.kind)).collect();
                    out.extend(all.names.into_iter().map(|(name, node)| {
                        let kind = kinds.get(name.as_str()).copied().unwrap_or("Unknown").to_string();
                        Export { name, kind, span: span(node) }
                    }));
                }
                None => {
                    complete = !python::star_import(root);
                    out.extend(bound.into_iter().filter(|b| !b.name.starts_with('_')).map(|b| Export {
                        name: b.name,
                        kind: b.kind.to_string(),
                        span: span(b.statement),
                    }));
                }
            }
        }
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            javascript::exports(root, source, &mut |name, kind, node| {
                out.push(Export { name, kind: kind.to_string(), span: span(node) })
            })
        }
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
    // Stable: the names of one statement keep their order; `__all__` keeps
    // the order it is built in.
    if rule == ExportRule::Language {
        out.sort_by_key(|e: &Export| e.span.byte_start);
    }
    Exports { exports: out, rule, complete }
}

/// A file's exports, where they come from, and whether they are all of them.
pub(crate) struct Exports {
    pub exports: Vec<Export>,
    pub rule: ExportRule,
    pub complete: bool,
}

/// Whether an outline symbol is exported by its language's rule.
fn offered(file: &SourceFile, symbol: &Symbol) -> bool {
    let lang = file.lang;
    let top = symbol.depth == 1;
    let node_says = |f: &dyn Fn(Node<'_>, &[u8]) -> bool| {
        with_symbol_node(lang, &file.tree, &file.source, symbol, |node, source| f(node, source)).unwrap_or(false)
    };
    match lang {
        Lang::Rust => {
            top && node_says(&|node, source| {
                visibility(node, source).as_deref() == Some("pub")
                    || (symbol.kind == SymbolKind::Macro && macro_exported(node, source))
            })
        }
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
                && !node_says(&|node, source| {
                    is_static(node, source)
                        || in_anonymous_namespace(node)
                        || (lang == Lang::Cpp
                            && symbol.kind == SymbolKind::Static
                            && const_object(node, source, symbol))
                })
        }
        _ => false,
    }
}

/// A `macro_rules!` under `#[macro_export]`: offered at the crate's root.
fn macro_exported(node: Node<'_>, source: &[u8]) -> bool {
    let mut before = node.prev_named_sibling();
    while let Some(b) = before {
        match b.kind() {
            "attribute_item" if text(b, source).contains("macro_export") => return true,
            "attribute_item" | "line_comment" | "block_comment" => before = b.prev_named_sibling(),
            _ => return false,
        }
    }
    false
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

/// A C++ declaration inside `namespace { … }`: internal linkage.
fn in_anonymous_namespace(node: Node<'_>) -> bool {
    let mut up = node.parent();
    while let Some(p) = up {
        if p.kind() == "namespace_definition" && p.child_by_field_name("name").is_none() {
            return true;
        }
        up = p.parent();
    }
    false
}

/// A C++ variable that is itself `const` (or `constexpr`) and neither
/// `extern` nor `inline`: at namespace scope its linkage is internal
/// ([basic.link]). `const char *p` is not const itself, `char *const p` is.
fn const_object(declaration: Node<'_>, source: &[u8], symbol: &Symbol) -> bool {
    let words: Vec<String> = {
        let mut c = declaration.walk();
        declaration
            .children(&mut c)
            .filter(|c| matches!(c.kind(), "type_qualifier" | "storage_class_specifier"))
            .map(|c| text(c, source))
            .collect()
    };
    if words.iter().any(|w| w == "extern" || w == "inline") {
        return false;
    }
    let base_const = words.iter().any(|w| w == "const" || w == "constexpr");
    let Some((start, end)) = symbol.name_span else { return false };
    let Some(name) = declaration.descendant_for_byte_range(start, end) else { return false };
    // The pointer declarator nearest the name decides; without one, the base type.
    let mut up = name.parent();
    while let Some(p) = up.filter(|p| p.id() != declaration.id()) {
        if p.kind() == "pointer_declarator" {
            let mut c = p.walk();
            return p.children(&mut c).any(|q| q.kind() == "type_qualifier" && text(q, source) == "const");
        }
        up = p.parent();
    }
    base_const
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
