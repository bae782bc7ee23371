//! Definitions and references of a name, by name: the symbol finder's
//! definitions plus the tags queries' (the grammars' and our overlays'), and
//! every identifier spelled like the name that is not a definition, typed
//! `call`, `type`, `class`, `implementation` or `import` where a tags query
//! says so, else `usage`. Identifiers never occur in comments or strings, so
//! neither do references.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use aide_core::{Lang, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor};

use crate::source::SourceFile;
use crate::symbols::{NameMatch, Symbol, SymbolKind, enclosing, name_match};

/// Longest line shown with a reference, in characters.
pub const LINE_TEXT_CHARS: usize = 300;

/// How a site was tied to the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// The definition itself, or a use whose binding (scope, receiver,
    /// qualifier, file) leads to it.
    Resolved,
    /// Spelled like it, and no other definition that such a use can mean
    /// has the name (a method call where only one type in the files has a
    /// method of that name; fields do not count where calls cannot reach
    /// them).
    NameOnly,
    /// Spelled like it, but it may mean another definition of the name.
    Unresolved,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Resolved => "resolved",
            Resolution::NameOnly => "name_only",
            Resolution::Unresolved => "unresolved",
        }
    }
}

/// A use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    pub path: String,
    pub name: String,
    pub kind: RefKind,
    #[serde(flatten)]
    pub span: Span,
    /// The name path of the innermost symbol containing the reference.
    pub enclosing: Option<String>,
    pub enclosing_kind: Option<SymbolKind>,
    /// The line of the reference, without its line terminator.
    pub line_text: String,
    /// SHA-256 of the file's bytes as parsed (`checksum_before` for an edit).
    pub checksum: Arc<str>,
    /// How the site was tied to the definition: `resolved` (its scope,
    /// receiver or qualifier leads there), `name_only` (spelled like it,
    /// and nothing else such a use can mean has the name) or `unresolved`
    /// (it may mean another definition of the name).
    pub matched: Resolution,
}

/// How a reference uses the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    Call,
    Type,
    /// An instantiation.
    Class,
    Implementation,
    Import,
    /// Any other mention of the identifier.
    Usage,
    /// A place that defines the name (with `--include-definition`).
    Definition,
}

impl RefKind {
    /// The kind a tags query's `reference.*` capture names.
    fn from_tag(tag: &str) -> Option<RefKind> {
        Some(match tag {
            "reference.call" => RefKind::Call,
            "reference.class" => RefKind::Class,
            "reference.implementation" => RefKind::Implementation,
            "reference.import" => RefKind::Import,
            "reference.type" => RefKind::Type,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::Type => "type",
            RefKind::Class => "class",
            RefKind::Implementation => "implementation",
            RefKind::Import => "import",
            RefKind::Usage => "usage",
            RefKind::Definition => "definition",
        }
    }
}

impl std::fmt::Display for RefKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Node kinds that are identifiers (leaves spelling a name) in the nine grammars.
fn is_identifier(kind: &str) -> bool {
    kind.ends_with("identifier") || kind == "identifier"
}

/// Tags captured on a name node: (name span) → tag (`reference.call`…).
fn tags_at(file: &SourceFile, start: usize, end: usize) -> Vec<&'static str> {
    let query = crate::language::tags_query(file.lang);
    let Some(name_index) = query.capture_index_for_name("name") else {
        return Vec::new();
    };
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(start..end);
    let mut tags = Vec::new();
    let mut matches = cursor.matches(query, file.tree.root_node(), file.source.as_slice());
    while let Some(m) = matches.next() {
        if !m.captures().iter().any(|c| c.index == name_index && c.node.byte_range() == (start..end)) {
            continue;
        }
        for c in m.captures() {
            let tag = query.capture_names()[c.index as usize];
            if tag.starts_with("reference.") || tag.starts_with("definition.") {
                tags.push(tag);
            }
        }
    }
    tags
}

/// The kind a tags `definition.*` names, for definitions only the tags find.
fn tag_kind(tag: &str) -> SymbolKind {
    match tag.trim_start_matches("definition.") {
        "method" => SymbolKind::Method,
        "class" => SymbolKind::Class,
        "interface" => SymbolKind::Interface,
        "module" => SymbolKind::Module,
        "type" => SymbolKind::TypeAlias,
        "constant" => SymbolKind::Constant,
        "macro" => SymbolKind::Macro,
        _ => SymbolKind::Function,
    }
}

/// Rust macro arguments are token trees, not expressions: `f(…)` inside
/// `assert_eq!(f(x), 1)` is a call all the same. The identifier is followed
/// by a parenthesised token tree.
fn called_in_macro(file: &SourceFile, start: usize, end: usize) -> bool {
    file.lang == Lang::Rust
        && identifier_at(file, start, end).is_some_and(|n| {
            n.parent().is_some_and(|p| p.kind() == "token_tree")
                && n.next_sibling()
                    .is_some_and(|s| s.kind() == "token_tree" && file.source.get(s.start_byte()) == Some(&b'('))
        })
}

/// The identifier leaf exactly at `start..end`, if there is one.
fn identifier_at(file: &SourceFile, start: usize, end: usize) -> Option<Node<'_>> {
    let node = file.tree.root_node().descendant_for_byte_range(start, end)?;
    (node.byte_range() == (start..end) && node.child_count() == 0 && is_identifier(node.kind())).then_some(node)
}

/// Definitions spelled `name` that only the tags queries know (a JS function
/// assigned to a property, a Python module variable…).
fn tag_definitions(file: &SourceFile, name: &str, symbols: &[Symbol]) -> Vec<Symbol> {
    let known: HashSet<(usize, usize)> = symbols.iter().filter_map(|s| s.name_span).collect();
    let mut out = Vec::new();
    for start in memchr::memmem::find_iter(&file.source, name.as_bytes()) {
        let end = start + name.len();
        if known.contains(&(start, end)) || identifier_at(file, start, end).is_none() {
            continue;
        }
        let Some(tag) = tags_at(file, start, end).into_iter().find(|t| t.starts_with("definition.")) else {
            continue;
        };
        out.push(tag_symbol(file, start, end, tag, symbols));
    }
    out
}

fn tag_symbol(file: &SourceFile, start: usize, end: usize, tag: &'static str, symbols: &[Symbol]) -> Symbol {
    let name = String::from_utf8_lossy(&file.source[start..end]).into_owned();
    let parent = enclosing(symbols, start);
    // The definition's span: the statement around the name, as the tags
    // query matched it, approximated by the name's line.
    let line = file.index.line_of(start);
    let range = file.index.line_content_range(&file.source, line).unwrap_or(start..end);
    let signature = String::from_utf8_lossy(&file.source[range.clone()]).trim().to_string();
    Symbol {
        path: Arc::from(file.path.as_str()),
        name_path: parent.map_or_else(|| name.clone(), |p| format!("{}/{name}", p.name_path)).into(),
        parent: parent.map(|p| p.name_path.clone()),
        depth: parent.map_or(1, |p| p.depth + 1),
        checksum: file.checksum().clone(),
        name,
        kind: tag_kind(tag),
        node_kind: tag,
        span: file.index.span(&file.source, range.start, range.end),
        signature: aide_core::text::shorten(signature, 200).0,
        exported: None,
        name_span: Some((start, end)),
    }
}

/// The identifier a (possibly qualified) query names: `K::m` → `m`,
/// `impl Agent/run` → `run`.
pub(crate) fn last_identifier(query: &str) -> &str {
    let tail = query.rsplit('/').next().unwrap_or(query);
    let tail = tail.rsplit("::").next().unwrap_or(tail);
    let tail = tail.rsplit('.').next().unwrap_or(tail);
    tail.trim()
}

/// The definitions in `file` matching `query` (a name, or the end of a name
/// path), with how they matched.
pub(crate) fn definitions_in(file: &SourceFile, query: &str) -> Vec<(NameMatch, Symbol)> {
    let symbols = file.outline();
    let extra = tag_definitions(file, last_identifier(query), symbols);
    symbols
        .iter()
        .cloned()
        .chain(extra)
        .filter_map(|s| match name_match(&s, query) {
            Some(m @ (NameMatch::Exact | NameMatch::PathSuffix)) => Some((m, s)),
            _ => None,
        })
        .collect()
}

/// The references to identifier `name` in `file`: every identifier spelled
/// `name` that is not itself a definition.
/// The references to `name` in `file`; with `include_definitions`, the
/// places that define it too, as references of kind `definition` whose
/// `enclosing` is the definition's parent.
pub(crate) fn references_in(file: &SourceFile, name: &str, include_definitions: bool) -> Vec<Reference> {
    if name.is_empty() {
        return Vec::new();
    }
    let symbols = file.outline();
    let definitions: HashSet<(usize, usize)> = symbols.iter().filter_map(|s| s.name_span).collect();
    let mut out = Vec::new();
    let mut tag_cache: HashMap<(usize, usize), Vec<&'static str>> = HashMap::new();
    for start in memchr::memmem::find_iter(&file.source, name.as_bytes()) {
        let end = start + name.len();
        if identifier_at(file, start, end).is_none() {
            continue;
        }
        if definitions.contains(&(start, end)) {
            if include_definitions {
                out.push(definition_site(file, symbols, name, start, end));
            }
            continue;
        }
        let tags = tag_cache.entry((start, end)).or_insert_with(|| tags_at(file, start, end));
        if tags.iter().any(|t| t.starts_with("definition.")) && !tags.iter().any(|t| t.starts_with("reference.")) {
            if include_definitions {
                out.push(reference(file, symbols, name, RefKind::Definition, start, end));
            }
            continue;
        }
        // The first of call, class, implementation, import, type that is tagged.
        let kind = [RefKind::Call, RefKind::Class, RefKind::Implementation, RefKind::Import, RefKind::Type]
            .into_iter()
            .find(|k| tags.iter().any(|t| RefKind::from_tag(t) == Some(*k)))
            .unwrap_or(RefKind::Usage);
        let kind = if kind == RefKind::Usage && called_in_macro(file, start, end) { RefKind::Call } else { kind };
        out.push(reference(file, symbols, name, kind, start, end));
    }
    out
}

/// A definition's name as a reference of kind `definition`, enclosed by the
/// definition's parent (not by the definition itself).
fn definition_site(file: &SourceFile, symbols: &[Symbol], name: &str, start: usize, end: usize) -> Reference {
    let mut r = reference(file, symbols, name, RefKind::Definition, start, end);
    let parent = symbols.iter().find(|s| s.name_span == Some((start, end))).and_then(|s| s.parent.as_deref());
    r.enclosing = parent.map(str::to_string);
    r.enclosing_kind = parent.and_then(|p| symbols.iter().find(|s| &*s.name_path == p)).map(|s| s.kind);
    r
}

/// The occurrence of `name` at `start..end` of `file` as a reference of `kind`.
pub(crate) fn reference_at(file: &SourceFile, name: &str, kind: RefKind, start: usize, end: usize) -> Reference {
    reference(file, file.outline(), name, kind, start, end)
}

fn reference(file: &SourceFile, symbols: &[Symbol], name: &str, kind: RefKind, start: usize, end: usize) -> Reference {
    let span = file.index.span(&file.source, start, end);
    let parent = enclosing(symbols, start);
    Reference {
        path: file.path.clone(),
        name: name.to_string(),
        kind,
        span,
        enclosing: parent.map(|p| p.name_path.to_string()),
        enclosing_kind: parent.map(|p| p.kind),
        line_text: file.index.line_text(&file.source, span.line, LINE_TEXT_CHARS),
        checksum: file.checksum().clone(),
        matched: Resolution::NameOnly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(lang: Lang, src: &str) -> SourceFile {
        SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).unwrap_or_else(|_| panic!("parse"))
    }

    fn refs(lang: Lang, src: &str, name: &str) -> Vec<(usize, String, Option<String>)> {
        references_in(&file(lang, src), name, false)
            .into_iter()
            .map(|r| (r.span.line, r.kind.to_string(), r.enclosing))
            .collect()
    }

    #[test]
    fn rust_references_skip_comments_strings_and_the_definition() {
        let src = "fn helper() {}\n// helper here\nfn main() {\n    let s = \"helper\";\n    helper();\n    m::helper();\n}\n";
        assert_eq!(
            refs(Lang::Rust, src, "helper"),
            vec![(5, "call".into(), Some("main".into())), (6, "call".into(), Some("main".into()))]
        );
    }

    #[test]
    fn calls_inside_rust_macro_arguments_are_calls() {
        let src = "fn f(x: u8) -> u8 { x }\nfn t() { assert_eq!(f(1), 1); let g = f; println!(\"{}\", f); }\n";
        assert_eq!(
            refs(Lang::Rust, src, "f"),
            vec![
                (2, "call".into(), Some("t".into())),
                (2, "usage".into(), Some("t".into())),
                (2, "usage".into(), Some("t".into()))
            ]
        );
    }

    #[test]
    fn c_and_cpp_get_call_references_from_the_overlay() {
        let src = "int add(int a, int b);\nint main(void) { return add(1, 2); }\n";
        let found = refs(Lang::C, src, "add");
        assert_eq!(found, vec![(2, "call".into(), Some("main".into()))]);
        let src = "namespace ns { int f(); }\nint g() { return ns::f(); }\n";
        assert_eq!(refs(Lang::Cpp, src, "f"), vec![(2, "call".into(), Some("g".into()))]);
    }

    #[test]
    fn qualified_queries_reduce_to_their_last_identifier() {
        assert_eq!(last_identifier("impl Agent/run"), "run");
        assert_eq!(last_identifier("ns::K::m"), "m");
        assert_eq!(last_identifier("validateToken"), "validateToken");
    }
}
