//! The symbol finder: every definition in a file with a normalized kind, its
//! name path, span and one-line signature. llm-transform's block operations
//! find their targets through [`outline`] too.

use std::str::FromStr;
use std::sync::Arc;

use aide_core::{AideError, Lang, LineIndex, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

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
    Static,
    Macro,
    Field,
    Variant,
    /// A C or C++ function prototype: declared here, defined elsewhere.
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
    fn holds_methods(self) -> bool {
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
    #[serde(flatten)]
    pub span: Span,
    /// The declaration up to its body, on one line.
    pub signature: String,
    /// Span of the name itself (for telling a definition from a use).
    #[serde(skip)]
    #[schemars(skip)]
    pub name_span: Option<(usize, usize)>,
}

/// What a node defines, if anything.
struct Def<'t> {
    kind: SymbolKind,
    name: String,
    name_node: Option<Node<'t>>,
    /// Scope written into the name (`K::m`, Go receivers): extra name-path
    /// components before the name.
    qualifier: Vec<String>,
}

/// The node kinds [`definition`] can say yes to, per language: the outline
/// asks it about these only (a table lookup instead of string matches on
/// every node).
fn definition_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => &[
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
        ],
        Lang::Python => &["function_definition", "class_definition", "assignment"],
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &[
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
        ],
        Lang::C | Lang::Cpp => &[
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
        ],
        Lang::Java => &[
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
        ],
        Lang::Go => &[
            "function_declaration",
            "method_declaration",
            "type_spec",
            "type_alias",
            "const_spec",
            "var_spec",
            "field_declaration",
            "method_elem",
        ],
    }
}

/// Node kinds whose subtrees never hold a definition the outline reports
/// (comments, strings, macro token trees, parameter and type-argument
/// lists, imports…): the outline does not descend into them.
fn opaque_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => &[
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
        ],
        Lang::Python => &[
            "comment",
            "string",
            "import_statement",
            "import_from_statement",
            "parameters",
            "argument_list",
            "decorator",
        ],
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &[
            "comment",
            "string",
            "template_string",
            "regex",
            "import_statement",
            "type_annotation",
            "type_arguments",
            "type_parameters",
        ],
        Lang::C | Lang::Cpp => &[
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
        ],
        Lang::Java => &[
            "line_comment",
            "block_comment",
            "string_literal",
            "import_declaration",
            "formal_parameters",
            "type_arguments",
            "type_parameters",
            "modifiers",
        ],
        Lang::Go => &[
            "comment",
            "interpreted_string_literal",
            "raw_string_literal",
            "import_declaration",
            "parameter_list",
            "type_arguments",
        ],
    }
}

/// Per language, indexed by node kind id: may a node of this kind define a
/// symbol, and is its subtree worth entering?
#[derive(Debug)]
struct KindTables {
    definition: Vec<bool>,
    opaque: Vec<bool>,
}

fn kind_tables(lang: Lang) -> &'static KindTables {
    static TABLES: [std::sync::OnceLock<KindTables>; 9] = [const { std::sync::OnceLock::new() }; 9];
    crate::language::per_language(&TABLES, lang, || {
        let language = crate::language::grammar(lang);
        let table = |kinds: &[&str]| -> Vec<bool> {
            (0..language.node_kind_count() as u16)
                .map(|id| {
                    language.node_kind_is_named(id) && language.node_kind_for_id(id).is_some_and(|k| kinds.contains(&k))
                })
                .collect()
        };
        KindTables { definition: table(definition_kinds(lang)), opaque: table(opaque_kinds(lang)) }
    })
}

/// What an outline computes.
#[derive(Debug, Clone, Copy)]
pub struct OutlineOptions {
    /// Stop at this nesting depth (1: top level), without walking below it.
    pub max_depth: Option<usize>,
    /// Compute each symbol's one-line signature (the text outline shows none).
    pub signatures: bool,
}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions { max_depth: None, signatures: true }
    }
}

/// Every symbol of a parsed file, in source order (outer before inner).
pub fn outline(lang: Lang, path: &str, source: &[u8], tree: &Tree, index: &LineIndex) -> Vec<Symbol> {
    outline_with(lang, path, source, tree, index, Some(kind_tables(lang)), OutlineOptions::default())
}

/// [`outline`] with options.
pub fn outline_with_options(
    lang: Lang,
    path: &str,
    source: &[u8],
    tree: &Tree,
    index: &LineIndex,
    options: OutlineOptions,
) -> Vec<Symbol> {
    outline_with(lang, path, source, tree, index, Some(kind_tables(lang)), options)
}

/// [`outline`], asking [`definition`] about the kinds the tables allow and
/// skipping opaque subtrees (or, without tables, every named node).
fn outline_with(
    lang: Lang,
    path: &str,
    source: &[u8],
    tree: &Tree,
    index: &LineIndex,
    tables: Option<&KindTables>,
    options: OutlineOptions,
) -> Vec<Symbol> {
    let path: Arc<str> = Arc::from(path);
    let mut symbols: Vec<Symbol> = Vec::new();
    // Open symbols: (node id, index into `symbols`).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut cursor = tree.walk();
    let flag = |table: &[bool], id: u16| table.get(usize::from(id)).copied().unwrap_or(false);
    loop {
        let node = cursor.node();
        let id = node.kind_id();
        let candidate = tables.is_none_or(|t| flag(&t.definition, id));
        let mut enter = tables.is_none_or(|t| !flag(&t.opaque, id));
        if candidate && node.is_named() {
            let parent = open.last().map(|&(_, i)| &symbols[i]);
            if let Some(def) = definition(lang, node, source, parent.map(|p| p.kind)) {
                let symbol = make_symbol(&path, node, def, parent, source, index, options.signatures);
                enter &= options.max_depth.is_none_or(|m| symbol.depth < m);
                open.push((node.id(), symbols.len()));
                symbols.push(symbol);
            }
        }
        if enter && cursor.goto_first_child() {
            continue;
        }
        loop {
            if open.last().map(|o| o.0) == Some(cursor.node().id()) {
                open.pop();
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return symbols;
            }
        }
    }
}

fn make_symbol(
    path: &Arc<str>,
    node: Node<'_>,
    def: Def<'_>,
    parent: Option<&Symbol>,
    source: &[u8],
    index: &LineIndex,
    with_signature: bool,
) -> Symbol {
    // The parent's name path is shared, not copied, unless a qualifier extends it.
    let parent_path: Option<Arc<str>> = match (parent, def.qualifier.is_empty()) {
        (p, true) => p.map(|p| p.name_path.clone()),
        (p, false) => {
            let mut parts: Vec<&str> = p.map(|p| &*p.name_path).into_iter().collect();
            parts.extend(def.qualifier.iter().map(String::as_str));
            Some(Arc::from(parts.join("/")))
        }
    };
    let name_path: Arc<str> = match &parent_path {
        Some(p) => Arc::from(format!("{p}/{}", def.name)),
        None => Arc::from(def.name.as_str()),
    };
    Symbol {
        path: path.clone(),
        name: def.name,
        kind: def.kind,
        node_kind: node.kind(),
        name_path,
        parent: parent_path,
        depth: parent.map_or(1, |p| p.depth + 1),
        span: index.span(source, node.start_byte(), node.end_byte()),
        signature: if with_signature { signature(node, source) } else { String::new() },
        name_span: def.name_node.map(|n| (n.start_byte(), n.end_byte())),
    }
}

/// The text of a node, whitespace runs collapsed to one space.
pub fn node_text_collapsed(node: Node<'_>, source: &[u8]) -> String {
    collapse(&String::from_utf8_lossy(&source[node.byte_range()]))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> std::borrow::Cow<'s, str> {
    String::from_utf8_lossy(&source[node.byte_range()])
}

/// The declaration up to its body (or its first line), on one line, at most
/// 200 characters.
fn signature(node: Node<'_>, source: &[u8]) -> String {
    const MAX: usize = 200;
    let body_start = ["body", "value"]
        .iter()
        .filter_map(|f| node.child_by_field_name(f))
        .map(|b| b.start_byte())
        .find(|&b| b > node.start_byte());
    let raw = match body_start {
        Some(b) => String::from_utf8_lossy(&source[node.start_byte()..b]).into_owned(),
        None => {
            let bytes = &source[node.byte_range()];
            let first = bytes.split(|&c| c == b'\n').next().unwrap_or(bytes);
            String::from_utf8_lossy(first).into_owned()
        }
    };
    let mut sig = collapse(&raw);
    if body_start.is_some() {
        // The opener of the body: `{`, `=` or Python's `:`.
        sig = sig.trim_end_matches(['{', '=', ':']).trim_end().to_string();
    }
    aide_core::text::shorten(sig, MAX).0
}

fn named<'t>(node: Node<'t>, field: &str) -> Option<Node<'t>> {
    node.child_by_field_name(field)
}

fn by_name<'t>(kind: SymbolKind, node: Node<'t>, source: &[u8]) -> Option<Def<'t>> {
    let n = named(node, "name")?;
    Some(Def { kind, name: text(n, source).into_owned(), name_node: Some(n), qualifier: Vec::new() })
}

fn function_or_method(parent: Option<SymbolKind>) -> SymbolKind {
    if parent.is_some_and(SymbolKind::holds_methods) { SymbolKind::Method } else { SymbolKind::Function }
}

/// What `node` defines in `lang`, given the kind of the enclosing symbol.
fn definition<'t>(lang: Lang, node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    match lang {
        Lang::Rust => rust(node, source, parent),
        Lang::Python => python(node, source, parent),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript(node, source, parent),
        Lang::C | Lang::Cpp => c_family(node, source, parent),
        Lang::Java => java(node, source, parent),
        Lang::Go => go(node, source),
    }
}

fn rust<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
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
            return Some(Def { kind: K::Impl, name, name_node: None, qualifier: Vec::new() });
        }
        _ => return None,
    };
    by_name(kind, node, source)
}

fn python<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    match node.kind() {
        "function_definition" => by_name(function_or_method(parent), node, source),
        "class_definition" => by_name(SymbolKind::Class, node, source),
        "assignment" => {
            // `X = …` at module level (UPPER_CASE: a constant) or in a class body (a field).
            let left = named(node, "left").filter(|l| l.kind() == "identifier")?;
            let statement = node.parent().filter(|p| p.kind() == "expression_statement")?;
            let container = statement.parent()?;
            let name = text(left, source).into_owned();
            let kind = match container.kind() {
                "module" if name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(char::is_lowercase) => {
                    SymbolKind::Constant
                }
                "block" if container.parent().is_some_and(|c| c.kind() == "class_definition") => SymbolKind::Field,
                _ => return None,
            };
            Some(Def { kind, name, name_node: Some(left), qualifier: Vec::new() })
        }
        _ => None,
    }
}

fn is_function_value(node: Option<Node<'_>>) -> bool {
    node.is_some_and(|v| {
        matches!(v.kind(), "arrow_function" | "function_expression" | "function" | "generator_function")
    })
}

fn javascript<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
    use SymbolKind as K;
    let kind = match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => K::Function,
        // A named function expression (`return function Impl() {…}`); anonymous ones are not symbols.
        "function_expression" | "function" | "generator_function" => K::Function,
        // `new (…): T` in an interface.
        "construct_signature" if node.parent().is_some_and(|p| p.kind() == "interface_body") => {
            return Some(Def { kind: K::Method, name: "new".into(), name_node: None, qualifier: vec![] });
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
            });
        }
        "public_field_definition" | "field_definition" => {
            let name = named(node, "name").or_else(|| named(node, "property"))?;
            let kind = if is_function_value(named(node, "value")) { K::Method } else { K::Field };
            return Some(Def { kind, name: text(name, source).into_owned(), name_node: Some(name), qualifier: vec![] });
        }
        // `{ key: function () {…} }`: a method of an object literal.
        "pair" if is_function_value(named(node, "value")) => {
            let key = named(node, "key")?;
            let name = text(key, source).trim_matches(['"', '\'', '`']).to_string();
            return Some(Def { kind: K::Method, name, name_node: Some(key), qualifier: vec![] });
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
            return Some(Def { kind, name: text(property, source).into_owned(), name_node: Some(property), qualifier });
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
            return Some(Def { kind, name: text(name, source).into_owned(), name_node: Some(name), qualifier: vec![] });
        }
        _ => return None,
    };
    by_name(kind, node, source)
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

/// The innermost declarator of a C/C++ declarator chain that names something
/// (`*f(int)` → `f(int)` → `f`), and whether a function declarator was passed.
fn c_declarator_name<'t>(mut decl: Node<'t>) -> (Option<Node<'t>>, bool) {
    let mut is_function = false;
    loop {
        match decl.kind() {
            "function_declarator" => is_function = true,
            "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator"
            | "array_declarator"
            | "init_declarator" => {}
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

fn c_family<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
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
                _ => return None,
            };
            let (qualifier, simple) = if name.kind() == "qualified_identifier" {
                split_qualified(name, source)
            } else {
                (Vec::new(), text(name, source).into_owned())
            };
            let kind = if kind == K::Function && !qualifier.is_empty() { K::Method } else { kind };
            return Some(Def { kind, name: simple, name_node: last_name_node(name), qualifier });
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
            return Some(Def { kind, name: text(name, source).into_owned(), name_node: Some(name), qualifier: vec![] });
        }
        "namespace_definition" => K::Namespace,
        "enumerator" => K::Variant,
        "preproc_def" | "preproc_function_def" => K::Macro,
        "alias_declaration" => K::TypeAlias,
        "concept_definition" => K::Interface,
        "type_definition" => {
            let (name, _) = c_declarator_name(named(node, "declarator")?);
            let name = name?;
            return Some(Def {
                kind: K::TypeAlias,
                name: text(name, source).into_owned(),
                name_node: Some(name),
                qualifier: vec![],
            });
        }
        _ => return None,
    };
    by_name(kind, node, source)
}

/// The node of the last component of a possibly qualified name.
fn last_name_node(mut node: Node<'_>) -> Option<Node<'_>> {
    while node.kind() == "qualified_identifier" {
        node = named(node, "name")?;
    }
    Some(node)
}

fn java<'t>(node: Node<'t>, source: &[u8], parent: Option<SymbolKind>) -> Option<Def<'t>> {
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
            return Some(Def { kind, name: text(name, source).into_owned(), name_node: Some(name), qualifier: vec![] });
        }
        _ => return None,
    };
    by_name(kind, node, source)
}

fn go<'t>(node: Node<'t>, source: &[u8]) -> Option<Def<'t>> {
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
        "const_spec" => K::Constant,
        "var_spec" if node.parent().and_then(|p| p.parent()).is_some_and(|p| p.kind() == "source_file") => K::Static,
        "field_declaration" => K::Field,
        "method_elem" => K::Method,
        _ => return None,
    };
    by_name(kind, node, source)
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

/// The kind of the symbol `node` defines or names, without outlining the
/// whole file: `node`'s own definition, or that of the definition whose name
/// it is.
pub fn kind_at(lang: Lang, node: Node<'_>, source: &[u8]) -> Option<SymbolKind> {
    // The kind of the nearest enclosing definition decides method or function.
    let enclosing = |n: Node<'_>| {
        let mut at = n.parent();
        while let Some(a) = at {
            if let Some(d) = definition(lang, a, source, None) {
                return Some(d.kind);
            }
            at = a.parent();
        }
        None
    };
    if let Some(d) = definition(lang, node, source, enclosing(node)) {
        return Some(d.kind);
    }
    let mut at = node.parent();
    // C declarators put the name a few levels down.
    for _ in 0..4 {
        let a = at?;
        if let Some(d) = definition(lang, a, source, enclosing(a)) {
            return d.name_node.is_some_and(|n| n.id() == node.id()).then_some(d.kind);
        }
        at = a.parent();
    }
    None
}

/// Where text inserted "before" a symbol must go so it stays outside the
/// symbol: before its wrappers (Python decorators, `export`, C++
/// `template<…>`) and the attributes and comments attached above it (Rust
/// `#[…]`, doc comments), on no blank line.
pub fn leading_start(tree: &Tree, source: &[u8], symbol: &Symbol) -> usize {
    let Some(mut node) =
        tree.root_node().descendant_for_byte_range(symbol.span.byte_start, symbol.span.byte_end).map(|mut n| {
            // The smallest node with the span may be a child; find the symbol's own.
            while n.kind() != symbol.node_kind && n.byte_range() == (symbol.span.byte_start..symbol.span.byte_end) {
                match n.parent() {
                    Some(p) if p.byte_range() == n.byte_range() => n = p,
                    _ => break,
                }
            }
            n
        })
    else {
        return symbol.span.byte_start;
    };
    while let Some(p) = node.parent() {
        if matches!(p.kind(), "decorated_definition" | "export_statement" | "template_declaration") {
            node = p;
        } else {
            break;
        }
    }
    let mut start = node.start_byte();
    let mut current = node;
    while let Some(prev) = current.prev_sibling() {
        let attached = matches!(
            prev.kind(),
            "attribute_item"
                | "inner_attribute_item"
                | "line_comment"
                | "block_comment"
                | "comment"
                | "decorator"
                | "annotation"
        );
        // Attached: nothing but one line break (and indentation) in between.
        let gap = &source[prev.end_byte()..current.start_byte()];
        let newlines = gap.iter().filter(|&&b| b == b'\n').count();
        let ends_with_newline = source.get(prev.end_byte().wrapping_sub(1)) == Some(&b'\n');
        if !attached || newlines + usize::from(ends_with_newline) > 1 || prev.kind() == "inner_attribute_item" {
            break;
        }
        start = prev.start_byte();
        current = prev;
    }
    start
}

/// The innermost symbol whose span contains `offset`.
pub fn enclosing(symbols: &[Symbol], offset: usize) -> Option<&Symbol> {
    symbols.iter().filter(|s| s.span.byte_start <= offset && offset < s.span.byte_end).max_by_key(|s| s.depth)
}

/// How `--name` matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NameMatch {
    /// The symbol's name, or its whole name path.
    Exact,
    /// The end of the name path (`Agent/run` for `impl Agent/run`).
    PathSuffix,
    /// A part of the name.
    Substring,
}

/// How a symbol matches `query`, if at all.
pub fn name_match(symbol: &Symbol, query: &str) -> Option<NameMatch> {
    if symbol.name == query || &*symbol.name_path == query {
        return Some(NameMatch::Exact);
    }
    if let Some(head) = symbol.name_path.strip_suffix(query)
        && (head.ends_with('/') || head.ends_with(' ') || head.ends_with("::"))
    {
        return Some(NameMatch::PathSuffix);
    }
    // `K::m` for a C++ name path `K/m`.
    if query.contains("::") {
        return name_match(symbol, &query.replace("::", "/"));
    }
    symbol.name.contains(query).then_some(NameMatch::Substring)
}

/// The symbols matching `query` at the best tier that has any: exact names
/// first, then name-path suffixes, then substrings.
pub fn filter_by_name(symbols: Vec<Symbol>, query: &str) -> (Vec<Symbol>, Option<NameMatch>) {
    let tagged: Vec<(NameMatch, Symbol)> =
        symbols.into_iter().filter_map(|s| name_match(&s, query).map(|m| (m, s))).collect();
    let Some(best) = tagged.iter().map(|(m, _)| *m).min() else {
        return (Vec::new(), None);
    };
    (tagged.into_iter().filter(|(m, _)| *m == best).map(|(_, s)| s).collect(), Some(best))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline_of(lang: Lang, src: &str) -> Vec<Symbol> {
        let tree = crate::language::parse(lang, src.as_bytes()).expect("parse");
        outline(lang, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()))
    }

    fn brief(symbols: &[Symbol]) -> Vec<String> {
        symbols.iter().map(|s| format!("{} {}", s.kind, s.name_path)).collect()
    }

    #[test]
    fn kinds_parse_case_insensitively_with_short_forms() {
        assert_eq!("fn".parse::<SymbolKind>().unwrap(), SymbolKind::Function);
        assert_eq!("TYPE_ALIAS".parse::<SymbolKind>().unwrap(), SymbolKind::TypeAlias);
        assert_eq!("interface".parse::<SymbolKind>().unwrap(), SymbolKind::Interface);
        let err = "strcut".parse::<SymbolKind>().unwrap_err();
        assert!(err.hint.unwrap().contains("Struct"));
        assert_eq!(SymbolKind::TypeAlias.snake_name(), "type_alias");
    }

    #[test]
    fn spans_slice_exactly_the_symbol() {
        let src = "struct A;\nimpl A {\n    fn run(&self) {}\n}\n";
        for s in outline_of(Lang::Rust, src) {
            let text = &src[s.span.byte_start..s.span.byte_end];
            assert!(text.contains(&s.name) || s.kind == SymbolKind::Impl, "{text}");
        }
    }

    #[test]
    fn cpp_qualified_definitions_split_their_scope() {
        let src = "namespace ns { class K { void m(); }; }\nvoid ns::K::m() {}\n";
        let b = brief(&outline_of(Lang::Cpp, src));
        assert!(b.contains(&"Method ns/K/m".to_string()), "{b:?}");
        assert!(b.contains(&"Declaration ns/K/m".to_string()), "{b:?}");
    }

    #[test]
    fn leading_start_includes_attributes_doc_comments_and_decorators() {
        let src = "fn a() {}\n\n/// Doc.\n#[inline]\nfn b() {}\n";
        let tree = crate::language::parse(Lang::Rust, src.as_bytes()).unwrap();
        let symbols = outline(Lang::Rust, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
        let b = symbols.iter().find(|s| s.name == "b").unwrap();
        assert_eq!(&src[leading_start(&tree, src.as_bytes(), b)..], "/// Doc.\n#[inline]\nfn b() {}\n");
        let src = "x = 1\n\n@decorator\ndef f():\n    pass\n";
        let tree = crate::language::parse(Lang::Python, src.as_bytes()).unwrap();
        let symbols = outline(Lang::Python, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
        let f = symbols.iter().find(|s| s.name == "f").unwrap();
        assert_eq!(&src[leading_start(&tree, src.as_bytes(), f)..], "@decorator\ndef f():\n    pass\n");
    }

    #[test]
    fn older_javascript_idioms_are_symbols() {
        let src = "var Action = (function (_super) {\n  function Action() {}\n  Action.prototype.run = function () {};\n  return Action;\n})(Base);\nvar api = { get: function () {}, 'put': () => 1 };\nexports.make = function make() {};\n";
        let b = brief(&outline_of(Lang::JavaScript, src));
        for want in [
            "Class Action",
            "Function Action/Action",
            "Method Action/Action/run",
            "Method get",
            "Method put",
            "Function make",
        ] {
            assert!(b.contains(&want.to_string()), "{want} not in {b:?}");
        }
    }

    #[test]
    fn cpp_specializations_are_named_by_their_template() {
        let b = brief(&outline_of(Lang::Cpp, "template <typename R>\nclass Action<R()> { void f(); };\n"));
        assert_eq!(b[0], "Class Action");
    }

    #[test]
    fn the_kind_table_changes_nothing() {
        let samples: [(Lang, &str); 9] = [
            (
                Lang::Rust,
                "mod m { pub struct S { a: u8 } impl S { fn f() {} } trait T { fn g(); } }\nconst C: u8 = 1;\nmacro_rules! m { () => {} }\nunion U { a: u8 }\nenum E { A }\ntype X = u8;\nstatic S2: u8 = 0;\n",
            ),
            (Lang::Python, "X = 1\nclass A:\n    y = 2\n    def f(self):\n        def g(): pass\n"),
            (
                Lang::JavaScript,
                "class A { m() {} f = 1 }\nfunction g() {}\nconst h = () => 1;\nvar o = { k: function () {} };\nA.prototype.p = function () {};\nconst X = 2;\n",
            ),
            (
                Lang::TypeScript,
                "interface I { a: string; m(): void; new (): I }\ntype T = I;\nenum E { A, B = 1 }\nnamespace N { export function f() {} }\nabstract class C { abstract m(): void; x = 1 }\n",
            ),
            (Lang::Tsx, "function V() { return <div/>; }\nclass B { r() {} }\n"),
            (
                Lang::C,
                "#define M 1\n#define F(x) x\ntypedef struct { int a; } P;\nstruct s { int b; };\nunion u { int c; };\nenum e { X };\nint p(void);\nint f(void) { return 0; }\n",
            ),
            (
                Lang::Cpp,
                "namespace n { class K { void m(); int x; }; template <typename T> struct S {}; using A = int; }\nvoid n::K::m() {}\n",
            ),
            (
                Lang::Java,
                "class A { int x; A() {} void m() {} interface I { int C = 1; void n(); } enum E { X } record R(int a) {} @interface Q { int v(); } }\n",
            ),
            (
                Lang::Go,
                "package p\ntype S struct { A int }\ntype I interface { M() }\ntype T = int\nconst C = 1\nvar V = 2\nfunc F() {}\nfunc (s *S) G() {}\n",
            ),
        ];
        for (lang, src) in samples {
            let tree = crate::language::parse(lang, src.as_bytes()).unwrap();
            let index = LineIndex::new(src.as_bytes());
            let fast = outline(lang, "f", src.as_bytes(), &tree, &index);
            let slow = outline_with(lang, "f", src.as_bytes(), &tree, &index, None, OutlineOptions::default());
            assert!(fast.len() >= 3, "{lang}: {:?}", brief(&fast));
            assert_eq!(brief(&fast), brief(&slow), "{lang}");
        }
        // Every listed kind exists in a grammar that shares the list (a misspelt one would never match).
        for lang in Lang::ALL {
            let family: &[Lang] = match lang {
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &[Lang::JavaScript, Lang::TypeScript, Lang::Tsx],
                Lang::C | Lang::Cpp => &[Lang::C, Lang::Cpp],
                _ => std::slice::from_ref(&lang),
            };
            for kind in definition_kinds(lang).iter().chain(opaque_kinds(lang)) {
                let known = family.iter().any(|&l| {
                    let language = crate::language::grammar(l);
                    (0..language.node_kind_count() as u16).any(|id| language.node_kind_for_id(id) == Some(*kind))
                });
                assert!(known, "{lang}: no node kind {kind}");
            }
            assert!(
                {
                    let t = kind_tables(lang);
                    t.definition.iter().any(|&b| b) && t.opaque.iter().any(|&b| b)
                },
                "{lang}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]
        /// Whatever the bytes, every language's outline, kind lookups and
        /// leading starts stay inside the file and never panic.
        #[test]
        fn any_bytes_outline_without_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            for lang in Lang::ALL {
                let tree = crate::language::parse(lang, &bytes).unwrap();
                let index = LineIndex::new(&bytes);
                for s in outline(lang, "f", &bytes, &tree, &index) {
                    proptest::prop_assert!(s.span.byte_start <= s.span.byte_end && s.span.byte_end <= bytes.len());
                    proptest::prop_assert!(leading_start(&tree, &bytes, &s) <= s.span.byte_start);
                }
            }
        }
    }

    #[test]
    fn name_matching_tiers() {
        let src = "struct Agent;\nimpl Agent {\n    fn run(&self) {}\n    fn runner(&self) {}\n}\n";
        let all = outline_of(Lang::Rust, src);
        let (hits, how) = filter_by_name(all.clone(), "run");
        assert_eq!((brief(&hits), how), (vec!["Method impl Agent/run".to_string()], Some(NameMatch::Exact)));
        let (hits, how) = filter_by_name(all.clone(), "Agent/run");
        assert_eq!((hits.len(), how), (1, Some(NameMatch::PathSuffix)));
        let (hits, how) = filter_by_name(all, "unne");
        assert_eq!((brief(&hits), how), (vec!["Method impl Agent/runner".to_string()], Some(NameMatch::Substring)));
    }
}
