//! The import statements of each language, read from the syntax tree.

use aide_core::Lang;
use llm_ast_search::SourceFile;
use tree_sitter::Node;

use llm_ast_search::exports::rust::use_groups;

use super::{Import, ImportKind, text, unquoted};

/// Every import of a file, in source order (wherever it stands: a Python
/// import inside a function is one too).
pub(crate) fn imports(file: &SourceFile) -> Vec<Import> {
    let source = &file.source[..];
    let mut out = Vec::new();
    let mut cursor = file.tree.walk();
    'walk: loop {
        let node = cursor.node();
        let before = out.len();
        read(file.lang, node, source, &mut |kind, module, names, alias| {
            out.push(Import {
                kind,
                module,
                names,
                alias,
                span: file.index.span(source, node.start_byte(), node.end_byte()),
            });
        });
        // An import holds no other; comments and strings hold none.
        let leaf_like = out.len() > before || node.kind().contains("comment") || node.kind().contains("string");
        if !leaf_like && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

type Emit<'e> = dyn FnMut(ImportKind, String, Vec<String>, Option<String>) + 'e;

/// The imports `node` makes, handed to `emit`.
fn read(lang: Lang, node: Node<'_>, source: &[u8], emit: &mut Emit<'_>) {
    match lang {
        Lang::Python => python(node, source, emit),
        Lang::Rust => rust(node, source, emit),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript(node, source, emit),
        Lang::C | Lang::Cpp => {
            if node.kind() == "preproc_include"
                && let Some(path) = node.child_by_field_name("path")
            {
                let kind =
                    if path.kind() == "system_lib_string" { ImportKind::SystemInclude } else { ImportKind::Include };
                emit(kind, unquoted(path, source), Vec::new(), None);
            }
        }
        Lang::Java => {
            if node.kind() == "import_declaration" {
                let is_static = children(node).iter().any(|c| c.kind() == "static");
                let all = children(node).iter().any(|c| c.kind() == "asterisk");
                let Some(name) =
                    children(node).into_iter().find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"))
                else {
                    return;
                };
                let kind = if is_static { ImportKind::StaticImport } else { ImportKind::Import };
                let names = if all { vec!["*".to_string()] } else { Vec::new() };
                emit(kind, text(name, source), names, None);
            }
        }
        Lang::Go => {
            if node.kind() == "import_spec"
                && let Some(path) = node.child_by_field_name("path")
            {
                let alias = node.child_by_field_name("name").map(|n| text(n, source));
                emit(ImportKind::Import, unquoted(path, source), Vec::new(), alias);
            }
        }
    }
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn python(node: Node<'_>, source: &[u8], emit: &mut Emit<'_>) {
    match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind() {
                    "aliased_import" => {
                        let module = name.child_by_field_name("name").map(|n| text(n, source)).unwrap_or_default();
                        let alias = name.child_by_field_name("alias").map(|n| text(n, source));
                        emit(ImportKind::Import, module, Vec::new(), alias);
                    }
                    _ => emit(ImportKind::Import, text(name, source), Vec::new(), None),
                }
            }
        }
        "import_from_statement" | "future_import_statement" => {
            let module = match node.child_by_field_name("module_name") {
                Some(m) => text(m, source),
                None => "__future__".to_string(),
            };
            let mut cursor = node.walk();
            let mut names: Vec<String> =
                node.children_by_field_name("name", &mut cursor).map(|n| text(n, source)).collect();
            if children(node).iter().any(|c| c.kind() == "wildcard_import") {
                names.push("*".to_string());
            }
            emit(ImportKind::From, module, names, None);
        }
        _ => {}
    }
}

fn rust(node: Node<'_>, source: &[u8], emit: &mut Emit<'_>) {
    match node.kind() {
        "use_declaration" => {
            if let Some(argument) = node.child_by_field_name("argument") {
                for (module, names) in use_groups(argument, source) {
                    emit(ImportKind::Use, module, names, None);
                }
            }
        }
        "extern_crate_declaration" => {
            let name = node.child_by_field_name("name").map(|n| text(n, source)).unwrap_or_default();
            let alias = node.child_by_field_name("alias").map(|n| text(n, source));
            emit(ImportKind::ExternCrate, name, Vec::new(), alias);
        }
        // `mod m;`: the module's file; a module with a body is no import.
        "mod_item" if node.child_by_field_name("body").is_none() => {
            let name = node.child_by_field_name("name").map(|n| text(n, source)).unwrap_or_default();
            emit(ImportKind::Mod, name, Vec::new(), None);
        }
        _ => {}
    }
}

fn javascript(node: Node<'_>, source: &[u8], emit: &mut Emit<'_>) {
    match node.kind() {
        "import_statement" => {
            let Some(from) = node.child_by_field_name("source").or_else(|| required_module(node)) else { return };
            let names = children(node)
                .into_iter()
                .find(|c| c.kind() == "import_clause")
                .map(|clause| {
                    let mut names = Vec::new();
                    for part in children(clause) {
                        match part.kind() {
                            "named_imports" => {
                                let mut cursor = part.walk();
                                names.extend(
                                    part.named_children(&mut cursor)
                                        .filter(|s| s.kind() == "import_specifier")
                                        .map(|s| text(s, source)),
                                );
                            }
                            "identifier" | "namespace_import" => names.push(text(part, source)),
                            _ => {}
                        }
                    }
                    names
                })
                .unwrap_or_default();
            emit(ImportKind::Import, unquoted(from, source), names, None);
        }
        "export_statement" => {
            if let Some(from) = node.child_by_field_name("source") {
                let names = children(node)
                    .into_iter()
                    .find(|c| c.kind() == "export_clause")
                    .map(|clause| {
                        let mut cursor = clause.walk();
                        clause.named_children(&mut cursor).map(|s| text(s, source)).collect()
                    })
                    .unwrap_or_else(|| vec!["*".to_string()]);
                emit(ImportKind::Reexport, unquoted(from, source), names, None);
            }
        }
        // `require("m")` and `import("m")`; a computed specifier
        // (`import(`./${name}.js`)`, `require(path)`) is given as written.
        "call_expression" => {
            let callee = node.child_by_field_name("function");
            let kind = match callee.map(|f| (f.kind(), text(f, source))) {
                Some(("import", _)) => ImportKind::DynamicImport,
                Some(("identifier", name)) if name == "require" => ImportKind::Require,
                _ => return,
            };
            let Some(argument) = node.child_by_field_name("arguments").and_then(|a| a.named_child(0)) else {
                return;
            };
            let literal = argument.kind() == "string"
                || (argument.kind() == "template_string" && {
                    let mut c = argument.walk();
                    !argument.named_children(&mut c).any(|p| p.kind() == "template_substitution")
                });
            let module = if literal { unquoted(argument, source) } else { text(argument, source) };
            emit(kind, module, Vec::new(), None);
        }
        _ => {}
    }
}

/// TypeScript's `import x = require("m")`: the module's string.
fn required_module(node: Node<'_>) -> Option<Node<'_>> {
    let clause = children(node).into_iter().find(|c| c.kind() == "import_require_clause")?;
    clause.child_by_field_name("source")
}
