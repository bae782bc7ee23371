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

/// One language family's symbol rules.
pub(super) struct Family {
    /// The node kinds `definition` can say yes to: the outline asks it about
    /// these only (a table lookup instead of string matches on every node).
    pub definition_kinds: &'static [&'static str],
    /// Node kinds whose subtrees never hold a definition the outline reports
    /// (comments, strings, macro token trees, parameter and type-argument
    /// lists, imports…): the outline does not descend into them.
    pub opaque_kinds: &'static [&'static str],
    /// What a node defines, given the kind of the enclosing symbol.
    pub definition: for<'t> fn(Node<'t>, &[u8], Option<SymbolKind>) -> Option<Def<'t>>,
}

/// The rules of `lang`'s family.
pub(super) fn family(lang: Lang) -> &'static Family {
    match lang {
        Lang::Rust => &rust::FAMILY,
        Lang::Python => &python::FAMILY,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &javascript::FAMILY,
        Lang::C | Lang::Cpp => &c_family::FAMILY,
        Lang::Java => &java::FAMILY,
        Lang::Go => &go::FAMILY,
    }
}

/// What `node` defines in `lang`, given the kind of the enclosing symbol.
pub(super) fn definition<'t>(lang: Lang, node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    (family(lang).definition)(node, source, parent)
}
