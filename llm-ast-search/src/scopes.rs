//! What a name means where it is used, as far as one file shows it:
//! local bindings (parameters, `let`s, assignments inside functions) by
//! tree-sitter locals queries — the grammar's own for JavaScript and
//! TypeScript, ours for the other seven — and member accesses (`x.name`,
//! `Type::name`) with their receiver.
//!
//! A local binding is visible in its scope (the innermost `@local.scope`
//! node around it) from its definition on; the innermost visible binding
//! wins. Module-level names are never local: they are the symbols the
//! outline lists.

use std::sync::OnceLock;

use aide_core::Lang;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

use crate::source::SourceFile;

/// A local binding: a parameter or variable inside a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalDef {
    pub name: String,
    /// The defining identifier.
    pub start: usize,
    pub end: usize,
    /// The scope it is visible in.
    pub scope_start: usize,
    pub scope_end: usize,
    /// The type its declaration names (`a: &Agent`, `Agent a`, `var a
    /// Agent`), or that its value constructs (`Agent::new()`, `Agent {…}`,
    /// `new Agent()`, `Agent(…)`), as a bare type name.
    pub type_name: Option<String>,
}

/// Node kinds of functions, methods and closures in the nine grammars: a
/// local binding's scope lies within the outermost one around it.
const FUNCTION_KINDS: &[&str] = &[
    "function_item",
    "closure_expression",
    "function_definition",
    "lambda",
    "function_declaration",
    "method_declaration",
    "func_literal",
    "constructor_declaration",
    "lambda_expression",
    "method_definition",
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
    "generator_function_declaration",
];

/// The local bindings of a file.
#[derive(Debug, Default)]
pub struct Locals {
    defs: Vec<LocalDef>,
}

impl Locals {
    /// Every local binding of `file`.
    pub fn of(file: &SourceFile) -> Locals {
        let whole = file.tree.root_node().byte_range();
        Locals::within(file, &[whole])
    }

    /// The local bindings that can be visible at `offsets`: those of the
    /// outermost function around each. A local's scope never reaches
    /// outside it, so the rest of the file need not be queried (references
    /// of a common name in a large tree query a fraction of it); an offset
    /// in no function sees no local.
    pub fn around(file: &SourceFile, offsets: &[usize]) -> Locals {
        let root = file.tree.root_node();
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for &at in offsets {
            if ranges.iter().any(|r| r.contains(&at)) {
                continue;
            }
            let Some(node) = root.descendant_for_byte_range(at, at) else { continue };
            let mut up = std::iter::once(node).chain(crate::tree::ancestors(root, node));
            if let Some(function) = up.by_ref().filter(|n| FUNCTION_KINDS.contains(&n.kind())).last() {
                ranges.push(function.byte_range());
            }
        }
        ranges.sort_by_key(|r| r.start);
        ranges.dedup();
        Locals::within(file, &ranges)
    }

    fn within(file: &SourceFile, ranges: &[std::ops::Range<usize>]) -> Locals {
        let query = locals_query(file.lang);
        let (Some(def_index), Some(scope_index)) =
            (query.capture_index_for_name("local.definition"), query.capture_index_for_name("local.scope"))
        else {
            return Locals::default();
        };
        let mut scopes: Vec<(usize, usize)> = Vec::new();
        let mut defs: Vec<Node<'_>> = Vec::new();
        let mut cursor = QueryCursor::new();
        for range in ranges {
            cursor.set_byte_range(range.clone());
            let mut matches = cursor.matches(query, file.tree.root_node(), file.source.as_slice());
            while let Some(m) = matches.next() {
                for c in m.captures() {
                    if c.index == scope_index {
                        scopes.push((c.node.start_byte(), c.node.end_byte()));
                    } else if c.index == def_index {
                        defs.push(c.node);
                    }
                }
            }
        }
        scopes.sort_unstable();
        scopes.dedup();
        let mut out = Vec::new();
        for node in defs {
            let (start, end) = (node.start_byte(), node.end_byte());
            // The innermost scope around the definition; none: module level.
            let Some(&(scope_start, scope_end)) =
                scopes.iter().filter(|(s, e)| *s <= start && end <= *e).min_by_key(|(s, e)| e - s)
            else {
                continue;
            };
            let name = String::from_utf8_lossy(&file.source[start..end]).into_owned();
            let type_name = declared_type(node, &file.source);
            out.push(LocalDef { name, start, end, scope_start, scope_end, type_name });
        }
        out.sort_by_key(|d| (d.start, d.end));
        out.dedup();
        Locals { defs: out }
    }

    pub fn defs(&self) -> &[LocalDef] {
        &self.defs
    }

    /// The local binding `name` at `offset` means, if it is one: the
    /// innermost visible definition (defined at or before `offset`).
    pub fn resolve(&self, name: &str, offset: usize) -> Option<&LocalDef> {
        self.defs
            .iter()
            .filter(|d| d.name == name && d.scope_start <= offset && offset < d.scope_end && d.start <= offset)
            .min_by_key(|d| (d.scope_end - d.scope_start, std::cmp::Reverse(d.start)))
    }

    /// The local defined exactly at `start..end`.
    pub fn at(&self, start: usize, end: usize) -> Option<&LocalDef> {
        self.defs.iter().find(|d| d.start == start && d.end == end)
    }
}

/// The type a local's declaration names or its value constructs: the
/// nearest of its first three ancestors with a `type` field, else one with a
/// `value`/`right` that constructs a type (a capitalised name called, built
/// or `new`ed).
fn declared_type(def: Node<'_>, source: &[u8]) -> Option<String> {
    let text = |n: Node<'_>| String::from_utf8_lossy(&source[n.byte_range()]).into_owned();
    // Three `parent()` calls: lazily, never the whole chain.
    for node in std::iter::successors(def.parent(), |n| n.parent()).take(3) {
        if let Some(t) = node.child_by_field_name("type") {
            return bare_type(&text(t));
        }
        // A value that builds no named type: the declaration above may name it.
        let value = node.child_by_field_name("value").or_else(|| node.child_by_field_name("right"));
        if let Some(t) = value.and_then(|v| constructed_type(&text(v))) {
            return Some(t);
        }
    }
    None
}

/// `&mut Agent`, `*Agent`, `: Agent<T>`, `crate::a::Agent`, `Agent[]` → `Agent`.
fn bare_type(text: &str) -> Option<String> {
    let t = text.trim().trim_start_matches(':').trim();
    let t = t.trim_start_matches(['&', '*']).trim_start_matches("mut ").trim_start_matches("const ").trim();
    let t = t.split(['<', '[', '?', ' ']).next().unwrap_or("");
    let t = t.rsplit("::").next().unwrap_or(t);
    let t = t.rsplit('.').next().unwrap_or(t).trim();
    (!t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| t.to_string())
}

/// `Agent::new(…)`, `Agent {…}`, `&Agent{…}`, `new Agent(…)`, `Agent(…)`
/// → `Agent`: only a capitalised name, as types are written.
fn constructed_type(value: &str) -> Option<String> {
    let v = value.trim().trim_start_matches('&').trim();
    let v = v.strip_prefix("new ").unwrap_or(v).trim();
    let head = v.split(['(', '{', '<', ' ']).next().unwrap_or("");
    let mut segments: Vec<&str> = head.split("::").flat_map(|s| s.split('.')).collect();
    // `Agent::new` names the type before the constructor.
    if segments.len() > 1 && segments.last().is_some_and(|s| s.chars().next().is_some_and(char::is_lowercase)) {
        segments.pop();
    }
    let name = segments.last()?.trim();
    let typed =
        name.chars().next().is_some_and(char::is_uppercase) && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    typed.then(|| name.to_string())
}

/// How an identifier occurrence is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Access {
    /// A bare name: `run`, `run()`, `Agent`.
    Bare,
    /// A member of a value: `x.run`, `self.run`, `this.run`, `p->run`; the
    /// receiver's text.
    Member { receiver: String },
    /// A name qualified by a path: `Agent::run`, `Agent.run` on a type,
    /// `ns::run`; the qualifier's text.
    Qualified { qualifier: String },
}

/// Node kinds whose field child is accessed through a value, per grammar:
/// (parent kind, field holding the name, field holding the receiver).
const MEMBER_KINDS: &[(&str, &str, &str)] = &[
    ("field_expression", "field", "value"),      // Rust
    ("field_expression", "field", "argument"),   // C, C++
    ("member_expression", "property", "object"), // JavaScript, TypeScript
    ("attribute", "attribute", "object"),        // Python
    ("selector_expression", "field", "operand"), // Go
    ("field_access", "field", "object"),         // Java
    ("method_invocation", "name", "object"),     // Java
    ("method_reference", "name", "object"),      // Java (unusual)
];

/// Path kinds: (parent kind, field of the name, field of the qualifier).
const QUALIFIED_KINDS: &[(&str, &str, &str)] = &[
    ("scoped_identifier", "name", "path"),      // Rust `a::b`
    ("scoped_type_identifier", "name", "path"), // Rust `a::B`
    ("qualified_identifier", "name", "scope"),  // C++ `a::b`
    ("qualified_type", "name", "package"),      // Go `pkg.T`
];

/// The receiver of the member access whose name is at `start..end` (`x` in
/// `x.name`), where the grammar has one: not inside macro token trees.
pub(crate) fn receiver_node(file: &SourceFile, start: usize, end: usize) -> Option<Node<'_>> {
    let node = file.tree.root_node().descendant_for_byte_range(start, end)?;
    let parent = node.parent()?;
    let is = |field: &str| parent.child_by_field_name(field).is_some_and(|c| c.id() == node.id());
    MEMBER_KINDS
        .iter()
        .find(|(kind, name_field, _)| parent.kind() == *kind && is(name_field))
        .and_then(|(_, _, receiver_field)| parent.child_by_field_name(receiver_field))
}

/// How the identifier at `start..end` of `file` is written.
pub(crate) fn access_at(file: &SourceFile, start: usize, end: usize) -> Access {
    let Some(node) = file.tree.root_node().descendant_for_byte_range(start, end) else {
        return Access::Bare;
    };
    let Some(parent) = node.parent() else { return Access::Bare };
    let text = |n: Node<'_>| String::from_utf8_lossy(&file.source[n.byte_range()]).into_owned();
    let is = |field: &str| parent.child_by_field_name(field).is_some_and(|c| c.id() == node.id());
    for (kind, name_field, receiver_field) in MEMBER_KINDS {
        if parent.kind() == *kind && is(name_field) {
            return match parent.child_by_field_name(receiver_field) {
                Some(r) => Access::Member { receiver: text(r) },
                None => Access::Bare,
            };
        }
    }
    for (kind, name_field, qualifier_field) in QUALIFIED_KINDS {
        if parent.kind() == *kind && is(name_field) {
            return match parent.child_by_field_name(qualifier_field) {
                Some(q) => Access::Qualified { qualifier: text(q) },
                None => Access::Bare,
            };
        }
    }
    // Rust macro arguments are token trees: `x.name` and `T::name` are
    // tokens there, the receiver or qualifier the token before the `.`/`::`.
    if parent.kind() == "token_tree"
        && let Some(punct) = node.prev_sibling()
        && matches!(punct.kind(), "." | "::")
    {
        let before = punct.prev_sibling().map(text).unwrap_or_default();
        return if punct.kind() == "." {
            Access::Member { receiver: before }
        } else {
            Access::Qualified { qualifier: before }
        };
    }
    // Go: `pkg.Func` and `x.Method` are both selector expressions (above);
    // Go field keys in composite literals and Rust struct field patterns
    // name members too.
    if matches!(parent.kind(), "field_initializer" | "shorthand_field_initializer" | "keyed_element" | "field_pattern")
    {
        return Access::Member { receiver: String::new() };
    }
    Access::Bare
}

/// The names a method's body calls its own object by: `self`, `this`, a
/// Go receiver's name, Python's first parameter.
pub(crate) fn self_names(file: &SourceFile, method_start: usize, method_end: usize) -> Vec<String> {
    let mut names: Vec<String> = match file.lang {
        Lang::Rust => vec!["self".into(), "Self".into()],
        Lang::Python => vec!["self".into(), "cls".into()],
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx | Lang::Java | Lang::Cpp => vec!["this".into()],
        Lang::C | Lang::Go => Vec::new(),
    };
    if file.lang == Lang::Go
        && let Some(node) = file.tree.root_node().descendant_for_byte_range(method_start, method_end)
        && let Some(method) = std::iter::once(node)
            .chain(crate::tree::ancestors(file.tree.root_node(), node))
            .find(|n| n.kind() == "method_declaration")
        && let Some(receiver) = method.child_by_field_name("receiver")
    {
        let mut cursor = receiver.walk();
        for p in receiver.named_children(&mut cursor) {
            if let Some(n) = p.child_by_field_name("name") {
                names.push(String::from_utf8_lossy(&file.source[n.byte_range()]).into_owned());
            }
        }
    }
    names
}

/// Whether `offset` is inside a comment or a string literal of `file`.
pub fn in_comment_or_string(file: &SourceFile, offset: usize) -> bool {
    let root = file.tree.root_node();
    root.descendant_for_byte_range(offset, offset).is_some_and(|n| {
        std::iter::once(n)
            .chain(crate::tree::ancestors(root, n))
            .any(|a| a.kind().contains("comment") || a.kind().contains("string"))
    })
}

fn locals_overlay(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => {
            r#"
(function_item) @local.scope
(closure_expression) @local.scope
(block) @local.scope
(match_arm) @local.scope
(parameter pattern: (identifier) @local.definition)
(parameter pattern: (_ (identifier) @local.definition))
(closure_parameters (identifier) @local.definition)
(let_declaration pattern: (identifier) @local.definition)
(let_declaration pattern: (_ (identifier) @local.definition))
(for_expression pattern: (identifier) @local.definition)
(let_condition pattern: (_ (identifier) @local.definition))
(match_pattern (identifier) @local.definition)
(match_pattern (_ (identifier) @local.definition))
"#
        }
        Lang::Python => {
            r#"
(function_definition) @local.scope
(lambda) @local.scope
(parameters (identifier) @local.definition)
(default_parameter name: (identifier) @local.definition)
(typed_parameter (identifier) @local.definition)
(typed_default_parameter name: (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
(assignment left: (pattern_list (identifier) @local.definition))
(for_statement left: (identifier) @local.definition)
(as_pattern alias: (as_pattern_target (identifier) @local.definition))
"#
        }
        Lang::Go => {
            r#"
(function_declaration) @local.scope
(method_declaration) @local.scope
(func_literal) @local.scope
(block) @local.scope
(parameter_declaration name: (identifier) @local.definition)
(short_var_declaration left: (expression_list (identifier) @local.definition))
(var_spec name: (identifier) @local.definition)
(range_clause left: (expression_list (identifier) @local.definition))
"#
        }
        Lang::Java => {
            r#"
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(lambda_expression) @local.scope
(block) @local.scope
(formal_parameter name: (identifier) @local.definition)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition))
(enhanced_for_statement name: (identifier) @local.definition)
(catch_formal_parameter name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(inferred_parameters (identifier) @local.definition)
"#
        }
        Lang::C | Lang::Cpp => {
            r#"
(function_definition) @local.scope
(compound_statement) @local.scope
(parameter_declaration declarator: (identifier) @local.definition)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local.definition))
(parameter_declaration declarator: (array_declarator declarator: (identifier) @local.definition))
(declaration declarator: (identifier) @local.definition)
(declaration declarator: (init_declarator declarator: (identifier) @local.definition))
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition)))
(declaration declarator: (pointer_declarator declarator: (identifier) @local.definition))
(declaration declarator: (array_declarator declarator: (identifier) @local.definition))
"#
        }
        // The grammar's own locals queries (below) cover these.
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => "",
    }
}

/// The grammar's locals query, where it ships one.
fn grammar_locals(lang: Lang) -> String {
    match lang {
        Lang::JavaScript => tree_sitter_javascript::LOCALS_QUERY.to_string(),
        // TypeScript's own locals only add its parameter kinds to JavaScript's.
        Lang::TypeScript | Lang::Tsx => {
            format!("{}\n{}", tree_sitter_javascript::LOCALS_QUERY, tree_sitter_typescript::LOCALS_QUERY)
        }
        _ => String::new(),
    }
}

/// The compiled locals query of a language.
pub(crate) fn locals_query(lang: Lang) -> &'static Query {
    static QUERIES: [OnceLock<Query>; 9] = [const { OnceLock::new() }; 9];
    crate::language::per_language(&QUERIES, lang, || {
        let text = format!("{}\n{}", grammar_locals(lang), locals_overlay(lang));
        // The query texts are constants tested below; a failure here is a bug.
        #[allow(clippy::expect_used)]
        Query::new(&crate::language::grammar(lang), &text).expect("bundled locals query compiles")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(lang: Lang, src: &str) -> SourceFile {
        SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).unwrap_or_else(|_| panic!("parse"))
    }

    #[test]
    fn every_locals_query_compiles_and_finds_a_parameter() {
        let samples = [
            (Lang::Rust, "fn f(count: u8) -> u8 { let y = count; y }"),
            (Lang::Python, "def f(count):\n    y = count\n    return y\n"),
            (Lang::JavaScript, "function f(count) { const y = count; return y; }"),
            (Lang::TypeScript, "function f(count: number) { const y = count; return y; }"),
            (Lang::Tsx, "function f(count: number) { const y = count; return y; }"),
            (Lang::Go, "package p\nfunc f(count int) int { y := count; return y }\n"),
            (Lang::Java, "class K { int f(int count) { int y = count; return y; } }"),
            (Lang::C, "int f(int count) { int y = count; return y; }"),
            (Lang::Cpp, "int f(int count) { int y = count; return y; }"),
        ];
        for (lang, src) in samples {
            let f = file(lang, src);
            let locals = Locals::of(&f);
            let names: Vec<&str> = locals.defs().iter().map(|d| d.name.as_str()).collect();
            assert!(names.contains(&"count") && names.contains(&"y"), "{lang}: {names:?}");
            let use_at = src.rfind("count").unwrap_or(0);
            assert_eq!(locals.resolve("count", use_at).map(|d| d.start), src.find("count"), "{lang}");
        }
    }

    #[test]
    fn module_level_names_are_not_locals_and_inner_bindings_shadow() {
        let src = "x = 1\ndef f(x):\n    return x\ndef g():\n    return x\n";
        let f = file(Lang::Python, src);
        let locals = Locals::of(&f);
        assert_eq!(locals.defs().len(), 1, "{:?}", locals.defs());
        assert!(locals.resolve("x", src.rfind("return x").unwrap_or(0) + 7).is_none());
        let src = "fn f(v: u8) { let v = v + 1; { let v = 2; g(v); } g(v); }";
        let f = file(Lang::Rust, src);
        let locals = Locals::of(&f);
        let inner_use = src.find("g(v)").unwrap_or(0) + 2;
        assert_eq!(locals.resolve("v", inner_use).map(|d| d.start), src.find("v = 2"));
    }

    #[test]
    fn locals_know_the_type_they_are_declared_or_built_as() {
        let types = |lang: Lang, src: &str| -> Vec<(String, Option<String>)> {
            Locals::of(&file(lang, src)).defs().iter().map(|d| (d.name.clone(), d.type_name.clone())).collect()
        };
        let t = |n: &str, ty: Option<&str>| (n.to_string(), ty.map(str::to_string));
        assert_eq!(
            types(
                Lang::Rust,
                "fn f(a: &mut Agent, n: u8) { let b = Agent::new(); let c = Other { x: 1 }; let d = make(); }"
            ),
            [t("a", Some("Agent")), t("n", Some("u8")), t("b", Some("Agent")), t("c", Some("Other")), t("d", None)]
        );
        assert_eq!(
            types(Lang::Java, "class K { void f(Agent a) { Agent b = make(); var c = new Other(); } }"),
            [t("a", Some("Agent")), t("b", Some("Agent")), t("c", Some("Other"))]
        );
        assert_eq!(
            types(Lang::Go, "package p\nfunc f(a *Agent) { b := &Agent{}; var c Other }\n"),
            [t("a", Some("Agent")), t("b", Some("Agent")), t("c", Some("Other"))]
        );
        assert_eq!(
            types(Lang::Python, "def f(a: Agent):\n    b = Agent()\n"),
            [t("a", Some("Agent")), t("b", Some("Agent"))]
        );
        assert_eq!(
            types(Lang::TypeScript, "function f(a: Agent) { const b = new Agent(); }"),
            [t("a", Some("Agent")), t("b", Some("Agent"))]
        );
    }

    #[test]
    fn member_and_qualified_accesses_name_their_receiver() {
        let src = "fn f(a: A) { a.run(); A::run(&a); run(); }";
        let f = file(Lang::Rust, src);
        let at = |needle: &str, skip: usize| {
            let s = src.find(needle).unwrap_or(0) + skip;
            access_at(&f, s, s + 3)
        };
        assert_eq!(at("a.run", 2), Access::Member { receiver: "a".into() });
        assert_eq!(at("A::run", 3), Access::Qualified { qualifier: "A".into() });
        assert_eq!(at(" run()", 1), Access::Bare);
        // Inside macro arguments, the same accesses are tokens.
        let src = "fn f(a: A) { println!(\"{} {}\", a.run(), A::run(&a)); }";
        let f = file(Lang::Rust, src);
        let at = |needle: &str, skip: usize| {
            let s = src.find(needle).unwrap_or(0) + skip;
            access_at(&f, s, s + 3)
        };
        assert_eq!(at("a.run", 2), Access::Member { receiver: "a".into() });
        assert_eq!(at("A::run", 3), Access::Qualified { qualifier: "A".into() });
    }
}
