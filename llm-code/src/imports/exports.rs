//! What a file offers other modules, as records: the rule of each language
//! is llm-ast-search's ([`llm_ast_search::exports`], which the outline's
//! `exported` follows too): Rust's `pub` items and `#[macro_export]`
//! macros, Java's `public` types, Go's capitalised names, C's and C++'s
//! definitions and declarations that are not `static`, JavaScript's and
//! TypeScript's `export` (and CommonJS `exports.x =`), Python's `__all__`
//! or, without it, its public top-level names (what `from m import *`
//! binds: not starting with `_`).

use aide_core::Lang;
use llm_ast_search::SourceFile;
use llm_ast_search::exports::{RustReach, javascript, offered, python, rust};
use tree_sitter::Node;

use std::collections::HashMap;

use super::{Export, ExportRule};

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
                    out.extend(bound.into_iter().filter(|b| python::is_public(&b.name)).map(|b| Export {
                        name: b.name,
                        kind: b.kind.to_string(),
                        span: span(b.statement),
                    }));
                }
            }
        }
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            out.extend(javascript::exports(root, source).into_iter().map(|o| Export {
                name: o.name,
                kind: o.kind.to_string(),
                span: span(o.statement),
            }));
        }
        _ => {
            // `pub` alone: what other crates may use (`pub(crate)` is not offered).
            for symbol in file.outline().iter().filter(|s| offered(file, s, RustReach::OtherCrates)) {
                out.push(Export {
                    name: symbol.name_path.to_string(),
                    kind: symbol.kind.name().to_string(),
                    span: symbol.span,
                });
            }
            if file.lang == Lang::Rust {
                out.extend(rust::reexports(root, source).into_iter().map(|(name, node)| Export {
                    name,
                    kind: "Reexport".into(),
                    span: span(node),
                }));
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
