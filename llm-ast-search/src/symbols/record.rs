//! The records an outline is made of: a symbol and its kind, the same
//! words in every language. Kept apart from the outline's extraction so a
//! parsed file can hold its outline without depending on how it is made.

use std::str::FromStr;
use std::sync::Arc;

use aide_core::{AideError, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::AstError;

/// A symbol's kind, the same words for every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
pub enum SymbolKind {
    Function,
    /// A function defined inside a class, impl, trait, interface or type.
    Method,
    Struct,
    Enum,
    Union,
    TypeAlias,
    Trait,
    Interface,
    Impl,
    Class,
    Module,
    Namespace,
    Constant,
    /// A global variable: Rust `static`, Go's package-level `var`, a C or
    /// C++ variable at file or namespace scope (one a declarator).
    Static,
    Macro,
    Field,
    Variant,
    /// A C or C++ function prototype or `extern` variable: declared here,
    /// defined elsewhere.
    Declaration,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 18] = [
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Struct,
        SymbolKind::Enum,
        SymbolKind::Union,
        SymbolKind::TypeAlias,
        SymbolKind::Trait,
        SymbolKind::Interface,
        SymbolKind::Impl,
        SymbolKind::Class,
        SymbolKind::Module,
        SymbolKind::Namespace,
        SymbolKind::Constant,
        SymbolKind::Static,
        SymbolKind::Macro,
        SymbolKind::Field,
        SymbolKind::Variant,
        SymbolKind::Declaration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Function => "Function",
            SymbolKind::Method => "Method",
            SymbolKind::Struct => "Struct",
            SymbolKind::Enum => "Enum",
            SymbolKind::Union => "Union",
            SymbolKind::TypeAlias => "TypeAlias",
            SymbolKind::Trait => "Trait",
            SymbolKind::Interface => "Interface",
            SymbolKind::Impl => "Impl",
            SymbolKind::Class => "Class",
            SymbolKind::Module => "Module",
            SymbolKind::Namespace => "Namespace",
            SymbolKind::Constant => "Constant",
            SymbolKind::Static => "Static",
            SymbolKind::Macro => "Macro",
            SymbolKind::Field => "Field",
            SymbolKind::Variant => "Variant",
            SymbolKind::Declaration => "Declaration",
        }
    }

    /// snake_case, as the Dialect's results show kinds (`"type_alias"`).
    pub fn snake_name(self) -> String {
        let mut out = String::new();
        for (i, c) in self.name().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// Kinds that contain methods: a function directly inside one is a Method.
    pub(crate) fn holds_methods(self) -> bool {
        matches!(
            self,
            SymbolKind::Impl
                | SymbolKind::Trait
                | SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Union
        )
    }
}

impl Symbol {
    /// Whether its direct members are exported each on its own (by the
    /// rule of C and C++): it is a top-level namespace.
    pub(crate) fn exports_its_members(&self) -> bool {
        self.depth == 1 && self.kind == SymbolKind::Namespace
    }
}

impl std::fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SymbolKind {
    type Err = AideError;

    /// Case-insensitive, with the usual short forms (`fn`, `mod`, `type`,
    /// `const`, `var`…).
    fn from_str(s: &str) -> Result<SymbolKind, AideError> {
        let lower = s.to_ascii_lowercase().replace(['_', '-'], "");
        let kind = match lower.as_str() {
            "fn" | "func" | "function" => SymbolKind::Function,
            "method" => SymbolKind::Method,
            "type" | "typealias" | "typedef" | "alias" => SymbolKind::TypeAlias,
            "mod" | "module" => SymbolKind::Module,
            "const" | "constant" => SymbolKind::Constant,
            "static" | "var" | "variable" => SymbolKind::Static,
            "ns" | "namespace" => SymbolKind::Namespace,
            "variant" | "enumvariant" | "enumerator" | "enumconstant" => SymbolKind::Variant,
            "field" | "property" => SymbolKind::Field,
            "decl" | "declaration" | "prototype" => SymbolKind::Declaration,
            other => match SymbolKind::ALL.into_iter().find(|k| k.name().to_ascii_lowercase() == other) {
                Some(k) => k,
                None => {
                    let known = SymbolKind::ALL.iter().map(|k| k.name()).collect();
                    return Err(AstError::UnknownKind { given: s.to_string(), known }.into());
                }
            },
        };
        Ok(kind)
    }
}

/// One symbol of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Symbol {
    /// Shared by the symbols of a file.
    pub path: Arc<str>,
    pub name: String,
    pub kind: SymbolKind,
    /// The grammar's node kind (`function_item`, `class_declaration`…).
    pub node_kind: &'static str,
    /// Names from the outermost enclosing symbol to this one, `/`-separated:
    /// `impl Agent/run`, `net/Client/connect`, `Outer/Inner/method`.
    pub name_path: Arc<str>,
    /// The enclosing symbol's name path, if any.
    pub parent: Option<Arc<str>>,
    /// 1 for a top-level symbol, 2 for one inside it, …
    pub depth: usize,
    /// SHA-256 of the file's bytes as parsed (shared by the file's symbols):
    /// what an edit of this span passes as `checksum_before`.
    pub checksum: Arc<str>,
    #[serde(flatten)]
    pub span: Span,
    /// The declaration up to its body, on one line.
    pub signature: String,
    /// Of a top-level symbol (and of a C or C++ namespace's member),
    /// whether its file exports it by its language's rule: Rust any
    /// `pub…` visibility or `#[macro_export]`, JavaScript/TypeScript
    /// `export` (and CommonJS `exports.x =`), Python `__all__` or else a
    /// name not starting with `_`, Go a capital letter, Java `public`, C
    /// and C++ not `static` (nor in an anonymous namespace, nor a C++
    /// `const` object). Absent on nested symbols.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exported: Option<bool>,
    /// Span of the name itself (for telling a definition from a use).
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Option<(usize, usize)>,
}
