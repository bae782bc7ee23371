//! The language families' symbol rules, one module each.

use aide_core::Lang;
use tree_sitter::Node;

use crate::symbols::{Def, SymbolKind};

mod c_family;
mod go;
mod java;
mod javascript;
mod python;
mod rust;

/// What `node` defines in `lang`, given the kind of the enclosing symbol.
pub(super) fn definition<'t>(lang: Lang, node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    match lang {
        Lang::Rust => rust::definition(node, source, parent),
        Lang::Python => python::definition(node, source, parent),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript::definition(node, source, parent),
        Lang::C | Lang::Cpp => c_family::definition(node, source, parent),
        Lang::Java => java::definition(node, source, parent),
        Lang::Go => go::definition(node, source),
    }
}

/// The node kinds [`definition`] can say yes to, per language: the outline
/// asks it about these only (a table lookup instead of string matches on
/// every node).
pub(super) fn definition_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => rust::DEFINITION_KINDS,
        Lang::Python => python::DEFINITION_KINDS,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript::DEFINITION_KINDS,
        Lang::C | Lang::Cpp => c_family::DEFINITION_KINDS,
        Lang::Java => java::DEFINITION_KINDS,
        Lang::Go => go::DEFINITION_KINDS,
    }
}

/// Node kinds whose subtrees never hold a definition the outline reports
/// (comments, strings, macro token trees, parameter and type-argument
/// lists, imports…): the outline does not descend into them.
pub(super) fn opaque_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => rust::OPAQUE_KINDS,
        Lang::Python => python::OPAQUE_KINDS,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript::OPAQUE_KINDS,
        Lang::C | Lang::Cpp => c_family::OPAQUE_KINDS,
        Lang::Java => java::OPAQUE_KINDS,
        Lang::Go => go::OPAQUE_KINDS,
    }
}
