//! llm-code's question of a symbol it has from an outline: is it exported?
//! Its node is found again, and the rule of [`super`] asked about it.

use super::{Declared, RustReach, on_the_definition};
use crate::source::SourceFile;
use crate::symbols::{Symbol, with_symbol_node};

/// Whether `symbol` of a Rust, Java, Go, C or C++ file is exported by its
/// language's rule (Python's and JavaScript's exports are read from their
/// statements: [`super::python`], [`super::javascript`]).
pub fn offered(file: &SourceFile, symbol: &Symbol, reach: RustReach) -> bool {
    let in_namespace = symbol.depth == 2
        && symbol.parent.is_some()
        && file.outline().iter().any(|p| p.exports_its_members() && Some(&p.name_path) == symbol.parent.as_ref());
    let declared = Declared {
        kind: symbol.kind,
        name: &symbol.name,
        depth: symbol.depth,
        name_span: symbol.name_span,
        in_namespace,
    };
    with_symbol_node(file.lang, &file.tree, &file.source, symbol, |node, source| {
        on_the_definition(file.lang, node, source, &declared, reach)
    })
    .flatten()
    .unwrap_or(false)
}
