//! The symbols of Rust: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, function_or_method, named, node_text_collapsed};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "type_item",
    "associated_type",
    "trait_item",
    "mod_item",
    "const_item",
    "static_item",
    "macro_definition",
    "enum_variant",
    "field_declaration",
    "impl_item",
];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] = &[
    "line_comment",
    "block_comment",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "token_tree",
    "use_declaration",
    "attribute_item",
    "inner_attribute_item",
    "parameters",
    "type_arguments",
    "type_parameters",
    "where_clause",
    "arguments",
    "scoped_identifier",
    "scoped_type_identifier",
    "generic_type",
    "reference_type",
    "field_expression",
    "macro_invocation",
];

fn definition<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let kind = match node.kind() {
        "function_item" => function_or_method(parent),
        "function_signature_item" => {
            if parent.is_some_and(K::holds_methods) {
                K::Method
            } else {
                K::Declaration
            }
        }
        "struct_item" => K::Struct,
        "enum_item" => K::Enum,
        "union_item" => K::Union,
        "type_item" | "associated_type" => K::TypeAlias,
        "trait_item" => K::Trait,
        "mod_item" => K::Module,
        "const_item" => K::Constant,
        "static_item" => K::Static,
        "macro_definition" => K::Macro,
        "enum_variant" => K::Variant,
        "field_declaration" => K::Field,
        "impl_item" => {
            let ty = named(node, "type")?;
            let name = match named(node, "trait") {
                Some(tr) => {
                    format!("impl {} for {}", node_text_collapsed(tr, source), node_text_collapsed(ty, source))
                }
                None => format!("impl {}", node_text_collapsed(ty, source)),
            };
            return Some(Def { kind: K::Impl, name, name_node: None, qualifier: Vec::new(), ..Def::PLAIN });
        }
        _ => return None,
    };
    by_name(kind, node, source)
}
