//! The symbols of JavaScript, TypeScript and TSX: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, function_or_method, named, text};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_signature",
    "function_expression",
    "function",
    "generator_function",
    "construct_signature",
    "class_declaration",
    "abstract_class_declaration",
    "class",
    "method_definition",
    "abstract_method_signature",
    "method_signature",
    "property_signature",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "internal_module",
    "module",
    "enum_assignment",
    "property_identifier",
    "public_field_definition",
    "field_definition",
    "pair",
    "assignment_expression",
    "variable_declarator",
];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] = &[
    "comment",
    "string",
    "template_string",
    "regex",
    "import_statement",
    "type_annotation",
    "type_arguments",
    "type_parameters",
];

// Long because: one arm per JavaScript/TypeScript node kind that defines a symbol, each its kind and name.
fn definition<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let kind = match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => K::Function,
        // A named function expression (`return function Impl() {…}`); anonymous ones are not symbols.
        "function_expression" | "function" | "generator_function" => K::Function,
        // `new (…): T` in an interface.
        "construct_signature" if node.parent().is_some_and(|p| p.kind() == "interface_body") => {
            return Some(Def { kind: K::Method, name: "new".into(), name_node: None, qualifier: vec![], ..Def::PLAIN });
        }
        "class_declaration" | "abstract_class_declaration" | "class" => K::Class,
        "method_definition" | "abstract_method_signature" => K::Method,
        // Signatures inside interfaces and classes, not in inline object types.
        "method_signature" if node.parent().is_some_and(|p| matches!(p.kind(), "interface_body" | "class_body")) => {
            K::Method
        }
        "property_signature" if node.parent().is_some_and(|p| p.kind() == "interface_body") => K::Field,
        "interface_declaration" => K::Interface,
        "type_alias_declaration" => K::TypeAlias,
        "enum_declaration" => K::Enum,
        "internal_module" => K::Namespace,
        "module" => K::Module,
        "enum_assignment" => K::Variant,
        "property_identifier" if node.parent().is_some_and(|p| p.kind() == "enum_body") => {
            return Some(Def {
                kind: K::Variant,
                name: text(node, source).into_owned(),
                name_node: None,
                qualifier: vec![],
                ..Def::PLAIN
            });
        }
        "public_field_definition" | "field_definition" => {
            let name = named(node, "name").or_else(|| named(node, "property"))?;
            let kind = if is_function_value(named(node, "value")) { K::Method } else { K::Field };
            return Some(Def::named(kind, name, source));
        }
        // `{ key: function () {…} }`: a method of an object literal.
        "pair" if is_function_value(named(node, "value")) => {
            let key = named(node, "key")?;
            let name = text(key, source).trim_matches(['"', '\'', '`']).to_string();
            return Some(Def { kind: K::Method, name, name_node: Some(key), qualifier: vec![], ..Def::PLAIN });
        }
        // `A.prototype.f = function…`, `exports.f = () => …`.
        "assignment_expression" if is_function_value(named(node, "right")) => {
            let left = named(node, "left").filter(|l| l.kind() == "member_expression")?;
            let property = named(left, "property")?;
            let object = named(left, "object").map(|o| text(o, source).into_owned()).unwrap_or_default();
            let (kind, qualifier) = match object.strip_suffix(".prototype") {
                Some(class) => (K::Method, vec![class.to_string()]),
                None => (K::Function, vec![]),
            };
            return Some(Def {
                kind,
                name: text(property, source).into_owned(),
                name_node: Some(property),
                qualifier,
                ..Def::PLAIN
            });
        }
        "variable_declarator" => {
            let name = named(node, "name").filter(|n| n.kind() == "identifier")?;
            let value = named(node, "value");
            let kind = if is_function_value(value) {
                function_or_method(parent)
            } else if value.is_some_and(|v| is_class_iife(v, &text(name, source), source)) {
                // `var Action = (function (_super) { function Action() {…} … })(Base)`:
                // how compiled TypeScript and older code declare a class.
                K::Class
            } else {
                // `const X = …` at the top level of a module.
                let decl = node.parent().filter(|d| d.kind() == "lexical_declaration")?;
                let top = decl.parent().map(|p| match p.kind() {
                    "export_statement" => p.parent(),
                    _ => Some(p),
                });
                let at_top = top.flatten().is_some_and(|p| p.kind() == "program");
                let is_const = decl.child(0).is_some_and(|k| k.kind() == "const");
                if !(at_top && is_const) {
                    return None;
                }
                K::Constant
            };
            return Some(Def::named(kind, name, source));
        }
        _ => return None,
    };
    by_name(kind, node, source)
}

fn is_function_value(node: Option<Node<'_>>) -> bool {
    node.is_some_and(|v| {
        matches!(v.kind(), "arrow_function" | "function_expression" | "function" | "generator_function")
    })
}

/// `(function (…) { … function NAME(…) … })(…)`: an immediately invoked
/// function that declares a function of the variable's name.
fn is_class_iife(value: Node<'_>, name: &str, source: &[u8]) -> bool {
    let mut callee = match value.kind() {
        "call_expression" => named(value, "function"),
        "parenthesized_expression" => {
            value.named_child(0).filter(|c| c.kind() == "call_expression").and_then(|c| named(c, "function"))
        }
        _ => None,
    };
    while let Some(c) = callee.filter(|c| c.kind() == "parenthesized_expression") {
        callee = c.named_child(0);
    }
    callee.is_some_and(|f| {
        matches!(f.kind(), "function_expression" | "function")
            && memchr::memmem::find(&source[f.byte_range()], format!("function {name}(").as_bytes()).is_some()
    })
}
