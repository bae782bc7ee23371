//! The symbols of C and C++: which nodes define one, which subtrees hold
//! none, and what a defining node defines.

use tree_sitter::Node;

use super::Family;
use crate::symbols::{Def, SymbolKind, by_name, function_or_method, named, node_text_collapsed, text};

/// The family's rules.
pub(super) const FAMILY: Family = Family { definition_kinds: DEFINITION_KINDS, opaque_kinds: OPAQUE_KINDS, definition };

/// Node kinds that may define a symbol.
const DEFINITION_KINDS: &[&str] = &[
    "function_definition",
    "declaration",
    "field_declaration",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
    "namespace_definition",
    "enumerator",
    "preproc_def",
    "preproc_function_def",
    "alias_declaration",
    "concept_definition",
    "type_definition",
];

/// Node kinds whose subtrees hold no reported definition.
const OPAQUE_KINDS: &[&str] = &[
    "comment",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "preproc_include",
    "parameter_list",
    "argument_list",
    "template_argument_list",
    "template_parameter_list",
    "attribute_specifier",
];

/// The innermost declarator of a C/C++ declarator chain that names something
/// (`*f(int)` → `f(int)` → `f`), and whether it names a function: the
/// declarator nearest the name is a function declarator (`*f(int)` is a
/// function returning a pointer, `(*fp)(int)` a pointer to a function).
fn c_declarator_name<'t>(mut decl: Node<'t>) -> (Option<Node<'t>>, bool) {
    let mut is_function = false;
    loop {
        match decl.kind() {
            "function_declarator" => is_function = true,
            "pointer_declarator" | "reference_declarator" | "array_declarator" => is_function = false,
            "parenthesized_declarator" | "attributed_declarator" | "init_declarator" => {}
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function"
            | "primitive_type" => return (Some(decl), is_function),
            _ => return (None, is_function),
        }
        match named(decl, "declarator").or_else(|| decl.named_child(0)) {
            Some(d) => decl = d,
            None => return (None, is_function),
        }
    }
}

/// Splits `ns::K::m` into (["ns", "K"], "m").
fn split_qualified(node: Node<'_>, source: &[u8]) -> (Vec<String>, String) {
    let full = node_text_collapsed(node, source);
    let mut parts: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let chars: Vec<char> = full.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && chars.get(i + 1) == Some(&':') => {
                parts.push(std::mem::take(&mut current).trim().to_string());
                i += 2;
                continue;
            }
            _ => {}
        }
        current.push(c);
        i += 1;
    }
    let name = current.trim().to_string();
    parts.retain(|p| !p.is_empty());
    (parts, name)
}

fn definition<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let with_body = || named(node, "body").is_some();
    let kind = match node.kind() {
        "function_definition" | "declaration" | "field_declaration" => {
            let (name, is_function) = c_declarator_name(named(node, "declarator")?);
            let name = name?;
            let kind = match (node.kind(), is_function) {
                ("function_definition", _) => function_or_method(parent),
                (_, true) => K::Declaration,
                ("field_declaration", false) => K::Field,
                _ => return variables(node, source, parent),
            };
            let (qualifier, simple) = if name.kind() == "qualified_identifier" {
                split_qualified(name, source)
            } else {
                (Vec::new(), text(name, source).into_owned())
            };
            let kind = if kind == K::Function && !qualifier.is_empty() { K::Method } else { kind };
            return Some(Def { kind, name: simple, name_node: last_name_node(name), qualifier, ..Def::PLAIN });
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" if with_body() => {
            let kind = match node.kind() {
                "struct_specifier" => K::Struct,
                "union_specifier" => K::Union,
                "enum_specifier" => K::Enum,
                _ => K::Class,
            };
            // A specialization `class Action<R(Args...)>` is named `Action`.
            let mut name = named(node, "name")?;
            if name.kind() == "template_type" {
                name = named(name, "name")?;
            }
            return Some(Def::named(kind, name, source));
        }
        "namespace_definition" => K::Namespace,
        "enumerator" => K::Variant,
        "preproc_def" | "preproc_function_def" => K::Macro,
        "alias_declaration" => K::TypeAlias,
        "concept_definition" => K::Interface,
        "type_definition" => {
            let (name, _) = c_declarator_name(named(node, "declarator")?);
            let name = name?;
            return Some(Def::named(K::TypeAlias, name, source));
        }
        _ => return None,
    };
    by_name(kind, node, source)
}

/// The variables a declaration at file or namespace scope defines, as
/// universal-ctags lists them: `int g = 3;` a Static (ctags' `variable`),
/// `extern int e;` a Declaration (its `externvar`), `int K::n = 0;` a Field
/// of `K` (its `member`); one symbol a declarator, all of the declaration's
/// span. Local variables are none.
fn variables<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    // Inside a function (or a variable's initializer), not at file scope;
    // the symbol parent decides without climbing the tree.
    if parent.is_some_and(|p| p != K::Namespace) || !at_file_scope(node) {
        return None;
    }
    let mut cursor = node.walk();
    let mut names = node
        .children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| match c_declarator_name(d) {
            (Some(name), false) => Some(name),
            _ => None,
        })
        .collect::<Vec<_>>()
        .into_iter();
    let first = names.next()?;
    let is_extern = {
        let mut c = node.walk();
        node.children(&mut c).any(|c| c.kind() == "storage_class_specifier" && text(c, source) == "extern")
    };
    let initialised = {
        let mut c = node.walk();
        node.children_by_field_name("declarator", &mut c).any(|d| d.kind() == "init_declarator")
    };
    let (qualifier, simple) = if first.kind() == "qualified_identifier" {
        split_qualified(first, source)
    } else {
        (Vec::new(), text(first, source).into_owned())
    };
    let kind = match (qualifier.is_empty(), is_extern && !initialised) {
        (false, _) => K::Field,
        (true, true) => K::Declaration,
        (true, false) => K::Static,
    };
    let more = names.map(|n| (text(n, source).into_owned(), n)).collect();
    Some(Def { kind, name: simple, name_node: last_name_node(first), qualifier, more, holds: false })
}

/// Whether a declaration stands at file scope: below the translation unit
/// through namespaces, `extern "C"` blocks, templates and preprocessor
/// branches only.
fn at_file_scope(node: Node<'_>) -> bool {
    let mut up = node.parent();
    while let Some(p) = up {
        match p.kind() {
            "translation_unit" => return true,
            "declaration_list" | "namespace_definition" | "linkage_specification" | "template_declaration" => {}
            k if k.starts_with("preproc_") => {}
            _ => return false,
        }
        up = p.parent();
    }
    false
}

/// The node of the last component of a possibly qualified name.
fn last_name_node(mut node: Node<'_>) -> Option<Node<'_>> {
    while node.kind() == "qualified_identifier" {
        node = named(node, "name")?;
    }
    Some(node)
}
