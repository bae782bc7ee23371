//! The symbols of Python: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, function_or_method, named, text};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &["function_definition", "class_definition", "assignment"];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] =
    &["comment", "string", "import_statement", "import_from_statement", "parameters", "argument_list", "decorator"];

fn definition<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    match node.kind() {
        "function_definition" => by_name(function_or_method(parent), node, source),
        "class_definition" => by_name(SymbolKind::Class, node, source),
        "assignment" => {
            // `X = …` at module level (UPPER_CASE: a constant) or in a class body (a field).
            let left = named(node, "left").filter(|l| l.kind() == "identifier")?;
            let statement = node.parent().filter(|p| p.kind() == "expression_statement")?;
            let container = statement.parent()?;
            let name = text(left, source).into_owned();
            let constant_name = name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(char::is_lowercase);
            let kind = match container.kind() {
                "module" if constant_name => SymbolKind::Constant,
                "block" if container.parent().is_some_and(|c| c.kind() == "class_definition") => SymbolKind::Field,
                // `if sys.platform == "win32": SEP = "\\"`: still the module's
                // (no enclosing symbol, so no function's or class's).
                "block" if constant_name && parent.is_none() && at_module_level(container) => SymbolKind::Constant,
                _ => return None,
            };
            Some(Def { kind, name, name_node: Some(left), qualifier: Vec::new(), ..Def::PLAIN })
        }
        _ => None,
    }
}

/// Whether a block belongs to the module's own compound statements (`if`,
/// `try`, `with`, `for`, `while`, `match`), not to a function or class.
fn at_module_level(block: Node<'_>) -> bool {
    let mut up = block.parent();
    while let Some(p) = up {
        match p.kind() {
            "module" => return true,
            "function_definition" | "class_definition" | "lambda" => return false,
            _ => up = p.parent(),
        }
    }
    false
}
