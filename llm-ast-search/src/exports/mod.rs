//! What a file offers other modules, by its language's rule: the outline
//! marks each top-level symbol `exported` by it, and llm-code's imports
//! list each file's exports by it (one rule, read in one place).
//!
//! * Rust: items with a visibility ([`RustReach`] says which) and
//!   `#[macro_export]` macros; `pub use` re-exports ([`rust::reexports`]).
//! * Java: `public` top-level types. Go: capitalised top-level names and
//!   the capitalised methods of a type.
//! * C and C++: file- and namespace-scope definitions and declarations that
//!   are not `static`, not in an anonymous namespace, not a C++ `const`
//!   object (internal linkage all three).
//! * JavaScript and TypeScript: `export` statements and CommonJS
//!   `exports.x =` ([`javascript::exports`]).
//! * Python: `__all__` as the module builds it, else the public names
//!   (not starting with `_`) it binds at module level ([`python`]).

pub mod javascript;
mod offered;
pub mod python;
pub mod rust;

use std::collections::HashSet;

use aide_core::Lang;
use tree_sitter::Node;

use crate::symbols::record::SymbolKind;
use crate::tree::node_text_collapsed;

pub use offered::offered;

/// Which Rust visibility makes an item exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RustReach {
    /// `pub` alone: what other crates may use (llm-code's exports).
    OtherCrates,
    /// Any `pub…` (`pub(crate)`, `pub(super)`, `pub(in path)` too): what
    /// other modules of the crate may use (the outline's `exported`).
    OtherModules,
}

/// A symbol as the rule asks about it, besides its node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Declared<'a> {
    pub kind: SymbolKind,
    pub name: &'a str,
    /// 1 at the top level.
    pub depth: usize,
    /// The span of the name (a C or C++ declarator's, for `const` objects).
    pub name_span: Option<(usize, usize)>,
    /// It stands directly in a top-level C++ namespace.
    pub in_namespace: bool,
}

/// What a file's statements say of its exports, read once per file:
/// Python's `__all__` and module-level names, JavaScript's and
/// TypeScript's `export`s. Other languages mark exports on the
/// definition itself.
#[derive(Debug)]
pub(crate) enum FileFacts {
    Python {
        /// The names of `__all__`, when the module builds one.
        all: Option<HashSet<String>>,
        /// The public names bound at module level (the rule without `__all__`).
        public: HashSet<String>,
    },
    Script {
        /// The file's own top-level names its exports offer.
        offered: HashSet<String>,
    },
    OnTheDefinition,
}

impl FileFacts {
    pub(crate) fn read(lang: Lang, root: Node<'_>, source: &[u8]) -> FileFacts {
        match lang {
            Lang::Python => FileFacts::Python {
                all: python::all(root, source).map(|all| all.names.into_iter().map(|(name, _)| name).collect()),
                public: python::bindings(root, source)
                    .into_iter()
                    .map(|b| b.name)
                    .filter(|name| python::is_public(name))
                    .collect(),
            },
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => FileFacts::Script {
                offered: javascript::exports(root, source).into_iter().filter_map(|o| o.local).collect(),
            },
            _ => FileFacts::OnTheDefinition,
        }
    }

    /// Whether the file exports what `node` declares, by its language's
    /// rule; None where the rule says nothing of it (a nested symbol).
    pub(crate) fn exported(
        &self,
        lang: Lang,
        node: Node<'_>,
        source: &[u8],
        declared: &Declared<'_>,
        reach: RustReach,
    ) -> Option<bool> {
        let top = declared.depth == 1;
        match self {
            FileFacts::Python { all, public } => top.then(|| match all {
                Some(all) => all.contains(declared.name),
                None => public.contains(declared.name),
            }),
            FileFacts::Script { offered } => top.then(|| offered.contains(declared.name)),
            FileFacts::OnTheDefinition => on_the_definition(lang, node, source, declared, reach),
        }
    }
}

/// The rule of the languages that mark an export where it is defined.
fn on_the_definition(
    lang: Lang,
    node: Node<'_>,
    source: &[u8],
    declared: &Declared<'_>,
    reach: RustReach,
) -> Option<bool> {
    let top = declared.depth == 1;
    match lang {
        Lang::Rust => top.then(|| {
            let shown = rust::visibility(node, source).is_some_and(|v| match reach {
                RustReach::OtherCrates => v == "pub",
                RustReach::OtherModules => v.starts_with("pub"),
            });
            shown || (declared.kind == SymbolKind::Macro && rust::macro_exported(node, source))
        }),
        Lang::Java => top.then(|| {
            let mut cursor = node.walk();
            node.children(&mut cursor)
                .filter(|c| c.kind() == "modifiers")
                .any(|m| text(m, source).split_whitespace().any(|w| w == "public"))
        }),
        // A method of a type is its type's: Go's outline has it at the top level.
        Lang::Go => (top || declared.kind == SymbolKind::Method)
            .then(|| declared.name.chars().next().is_some_and(char::is_uppercase)),
        Lang::C | Lang::Cpp => (top || declared.in_namespace).then(|| {
            // Internal linkage, or no linkage of its own.
            let internal = matches!(declared.kind, SymbolKind::Namespace | SymbolKind::Field | SymbolKind::Variant)
                || is_static(node, source)
                || in_anonymous_namespace(node)
                || (lang == Lang::Cpp && declared.kind == SymbolKind::Static && const_object(node, source, declared));
            !internal
        }),
        Lang::Python | Lang::JavaScript | Lang::TypeScript | Lang::Tsx => None,
    }
}

/// The text of a node, whitespace runs collapsed to one space.
fn text(node: Node<'_>, source: &[u8]) -> String {
    node_text_collapsed(node, source)
}

/// A string literal's text without its quotes (or a header's brackets).
pub fn unquoted(node: Node<'_>, source: &[u8]) -> String {
    let t = text(node, source);
    t.trim_matches(|c| matches!(c, '"' | '\'' | '`' | '<' | '>')).to_string()
}

/// A C or C++ declaration with `static` storage (internal linkage).
fn is_static(node: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == "storage_class_specifier" && text(c, source) == "static")
}

/// A C++ declaration inside `namespace { … }`: internal linkage.
fn in_anonymous_namespace(node: Node<'_>) -> bool {
    let mut up = node.parent();
    while let Some(p) = up {
        if p.kind() == "namespace_definition" && p.child_by_field_name("name").is_none() {
            return true;
        }
        up = p.parent();
    }
    false
}

/// A C++ variable that is itself `const` (or `constexpr`) and neither
/// `extern` nor `inline`: at namespace scope its linkage is internal
/// ([basic.link]). `const char *p` is not const itself, `char *const p` is.
fn const_object(declaration: Node<'_>, source: &[u8], declared: &Declared<'_>) -> bool {
    let words: Vec<String> = {
        let mut c = declaration.walk();
        declaration
            .children(&mut c)
            .filter(|c| matches!(c.kind(), "type_qualifier" | "storage_class_specifier"))
            .map(|c| text(c, source))
            .collect()
    };
    if words.iter().any(|w| w == "extern" || w == "inline") {
        return false;
    }
    let base_const = words.iter().any(|w| w == "const" || w == "constexpr");
    let Some((start, end)) = declared.name_span else { return false };
    let Some(name) = declaration.descendant_for_byte_range(start, end) else { return false };
    // The pointer declarator nearest the name decides; without one, the base type.
    let mut up = name.parent();
    while let Some(p) = up.filter(|p| p.id() != declaration.id()) {
        if p.kind() == "pointer_declarator" {
            let mut c = p.walk();
            return p.children(&mut c).any(|q| q.kind() == "type_qualifier" && text(q, source) == "const");
        }
        up = p.parent();
    }
    base_const
}

#[cfg(test)]
mod tests;
