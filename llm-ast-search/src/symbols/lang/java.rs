//! The symbols of Java: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, function_or_method, named};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &[
    "class_declaration",
    "record_declaration",
    "interface_declaration",
    "annotation_type_declaration",
    "enum_declaration",
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
    "annotation_type_element_declaration",
    "enum_constant",
    "field_declaration",
    "constant_declaration",
];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] = &[
    "line_comment",
    "block_comment",
    "string_literal",
    "import_declaration",
    "formal_parameters",
    "type_arguments",
    "type_parameters",
    "modifiers",
];

fn definition<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let kind = match node.kind() {
        "class_declaration" | "record_declaration" => K::Class,
        "interface_declaration" | "annotation_type_declaration" => K::Interface,
        "enum_declaration" => K::Enum,
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            function_or_method(parent)
        }
        "annotation_type_element_declaration" => K::Method,
        "enum_constant" => K::Variant,
        "field_declaration" | "constant_declaration" => {
            let declarator = named(node, "declarator")?;
            let name = named(declarator, "name")?;
            let kind = if node.kind() == "constant_declaration" { K::Constant } else { K::Field };
            return Some(Def::named(kind, name, source));
        }
        _ => return None,
    };
    by_name(kind, node, source)
}
