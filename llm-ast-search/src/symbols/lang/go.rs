//! The symbols of Go: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, named, text};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &[
    "function_declaration",
    "method_declaration",
    "type_spec",
    "type_alias",
    "const_spec",
    "var_spec",
    "field_declaration",
    "method_elem",
];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] = &[
    "comment",
    "interpreted_string_literal",
    "raw_string_literal",
    "import_declaration",
    "parameter_list",
    "type_arguments",
];

fn definition<'t>(node: Node<'t>, source: &[u8], _parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let kind = match node.kind() {
        "function_declaration" => K::Function,
        "method_declaration" => {
            let mut def = by_name(K::Method, node, source)?;
            def.qualifier = go_receiver_type(node, source).into_iter().collect();
            return Some(def);
        }
        "type_spec" => match named(node, "type").map(|t| t.kind()) {
            Some("struct_type") => K::Struct,
            Some("interface_type") => K::Interface,
            _ => K::TypeAlias,
        },
        "type_alias" => K::TypeAlias,
        "const_spec" => return every_name(K::Constant, node, source),
        "var_spec" if node.parent().and_then(|p| p.parent()).is_some_and(|p| p.kind() == "source_file") => {
            return every_name(K::Static, node, source);
        }
        "field_declaration" => K::Field,
        "method_elem" => K::Method,
        _ => return None,
    };
    by_name(kind, node, source)
}

/// A spec of several names (`var a, B = 1, 2`): one symbol a name.
fn every_name<'t>(kind: SymbolKind, node: Node<'t>, source: &[u8]) -> Option<Def<'t>> {
    let mut cursor = node.walk();
    let mut names =
        node.children_by_field_name("name", &mut cursor).filter(|n| n.is_named()).collect::<Vec<_>>().into_iter();
    let first = names.next()?;
    let more = names.map(|n| (text(n, source).into_owned(), n)).collect();
    Some(Def {
        kind,
        name: text(first, source).into_owned(),
        name_node: Some(first),
        qualifier: Vec::new(),
        more,
        holds: true,
    })
}

/// `func (c *Client[T]) Connect()` → `(*Client)`, `func (c Client) Len()` →
/// `Client`: the receiver as Go writes it in a method expression.
fn go_receiver_type(method: Node<'_>, source: &[u8]) -> Option<String> {
    let receiver = named(method, "receiver")?;
    let param = receiver.named_child(0)?;
    let mut ty = named(param, "type")?;
    let mut pointer = false;
    loop {
        match ty.kind() {
            "pointer_type" => {
                pointer = true;
                ty = ty.named_child(0)?;
            }
            "parenthesized_type" => ty = ty.named_child(0)?,
            "generic_type" => ty = named(ty, "type")?,
            _ => {
                let name = text(ty, source);
                return Some(if pointer { format!("(*{name})") } else { name.into_owned() });
            }
        }
    }
}
