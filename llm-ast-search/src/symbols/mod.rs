//! The symbol finder: every definition in a file with a normalized kind, its
//! name path, span and one-line signature. llm-transform's block operations
//! find their targets through [`outline`] too. What each language family
//! defines lives in the private `lang` module, one file per family.

use std::sync::Arc;

use aide_core::{Lang, LineIndex};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

use lang::{definition, family};

use crate::exports::{Declared, FileFacts, RustReach};
use crate::source::SourceFile;
use crate::tree::collapse;
pub(crate) use crate::tree::node_text_collapsed;

mod lang;
mod macros;
mod place;
pub(crate) mod record;

use macros::macro_items;
pub use place::{body_of, body_start, leading_start, with_symbol_node};
pub use record::{Symbol, SymbolKind};

/// What a node defines, if anything.
struct Def<'t> {
    kind: SymbolKind,
    name: String,
    name_node: Option<Node<'t>>,
    /// Scope written into the name (`K::m`, Go receivers): extra name-path
    /// components before the name.
    qualifier: Vec<String>,
    /// More names the node defines, each a symbol of the same kind and
    /// span (`int a = 1, b;` defines `a` and `b`).
    more: Vec<(String, Node<'t>)>,
    /// Whether the symbols nested in the node are its members. A C variable
    /// holds none: `struct point {…} origin;` defines `point` beside `origin`.
    holds: bool,
}

impl Def<'_> {
    /// The rest of a definition of one name that holds what is nested in it.
    const PLAIN: Self = Def {
        kind: SymbolKind::Function,
        name: String::new(),
        name_node: None,
        qualifier: Vec::new(),
        more: Vec::new(),
        holds: true,
    };
}

impl<'t> Def<'t> {
    /// A plain definition of `kind` named by the text of `name`.
    fn named(kind: SymbolKind, name: Node<'t>, source: &[u8]) -> Def<'t> {
        Def { kind, name: text(name, source).into_owned(), name_node: Some(name), ..Def::PLAIN }
    }
}

/// Per language, indexed by node kind id: may a node of this kind define a
/// symbol, and is its subtree worth entering? And (Rust) is it a macro
/// invocation, or a list of items where one stands as an item?
#[derive(Debug)]
struct KindTables {
    definition: Vec<bool>,
    opaque: Vec<bool>,
    macro_call: Vec<bool>,
    item_list: Vec<bool>,
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
        let rules = family(lang);
        let rust = |kinds: &[&str]| if lang == Lang::Rust { table(kinds) } else { Vec::new() };
        KindTables {
            definition: table(rules.definition_kinds),
            opaque: table(rules.opaque_kinds),
            macro_call: rust(&["macro_invocation"]),
            item_list: rust(&["source_file", "declaration_list"]),
        }
    })
}

/// What an outline computes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutlineOptions {
    /// Stop at this nesting depth (1: top level), without walking below it.
    pub max_depth: Option<usize>,
    /// Compute each symbol's one-line signature (the text outline shows none).
    pub signatures: bool,
    /// Walk only where the exported surface is: the top level, and the
    /// members of a top-level namespace (C++ exports them), not the
    /// members, bodies and nested items of other symbols.
    pub surface_only: bool,
}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions { max_depth: None, signatures: true, surface_only: false }
    }
}

/// Every symbol of a parsed file, in source order (outer before inner).
pub fn outline(lang: Lang, path: &str, source: &[u8], tree: &Tree, index: &LineIndex) -> Vec<Symbol> {
    outline_with_options(lang, path, source, tree, index, OutlineOptions::default())
}

/// The outline of a parsed file, with options; its symbols carry the
/// file's checksum, computed once with the file.
impl SourceFile {
    /// The file's whole outline, with signatures, worked out once.
    pub fn outline(&self) -> &[Symbol] {
        self.outline.get_or_init(|| {
            let (symbols, skipped) = outline_counting(&self.parsed(), Some(kind_tables(self.lang)), Default::default());
            let _ = self.macro_bodies_skipped.set(skipped);
            symbols
        })
    }

    fn parsed(&self) -> Parsed<'_> {
        Parsed {
            lang: self.lang,
            path: &self.path,
            source: &self.source,
            tree: &self.tree,
            index: &self.index,
            checksum: self.checksum().clone(),
        }
    }
}

pub(crate) fn outline_of_file(file: &SourceFile, options: OutlineOptions) -> Vec<Symbol> {
    outline_with(&file.parsed(), Some(kind_tables(file.lang)), options)
}

/// [`outline_of_file`], with how many macro bodies could not be read as
/// items: one walk of the tree where asking the memo for the count would
/// walk it again with signatures.
pub(crate) fn outline_of_file_counted(file: &SourceFile, options: OutlineOptions) -> (Vec<Symbol>, usize) {
    outline_counting(&file.parsed(), Some(kind_tables(file.lang)), options)
}

/// [`outline`] with options.
pub(crate) fn outline_with_options(
    lang: Lang,
    path: &str,
    source: &[u8],
    tree: &Tree,
    index: &LineIndex,
    options: OutlineOptions,
) -> Vec<Symbol> {
    let checksum = Arc::from(aide_core::checksum::sha256_hex(source));
    outline_with(&Parsed { lang, path, source, tree, index, checksum }, Some(kind_tables(lang)), options)
}

/// A parsed file as the outline reads it.
pub(crate) struct Parsed<'a> {
    pub lang: Lang,
    pub path: &'a str,
    pub source: &'a [u8],
    pub tree: &'a Tree,
    pub index: &'a LineIndex,
    /// SHA-256 of `source`, given to every symbol.
    pub checksum: Arc<str>,
}

/// [`outline`], asking [`definition`] about the kinds the tables allow and
/// skipping opaque subtrees (or, without tables, every named node).
fn outline_with(file: &Parsed<'_>, tables: Option<&KindTables>, options: OutlineOptions) -> Vec<Symbol> {
    outline_counting(file, tables, options).0
}

/// [`outline_with`], with the items of macro bodies (see [`macro_items`])
/// in their places, and how many macro bodies could not be read as items.
fn outline_counting(file: &Parsed<'_>, tables: Option<&KindTables>, options: OutlineOptions) -> (Vec<Symbol>, usize) {
    let (mut symbols, item_macros) = outline_of_tree(file, tables, options);
    let (hidden, skipped) = macro_items(file, &item_macros, tables, options);
    if !hidden.is_empty() {
        symbols.extend(hidden);
        // Document order, a parent before what it holds.
        symbols.sort_by(|a, b| a.span.byte_start.cmp(&b.span.byte_start).then(a.depth.cmp(&b.depth)));
    }
    (symbols, skipped)
}

/// The symbols of the tree as tree-sitter parsed it, and the macro
/// invocations met where an item stands (Rust), whose bodies may hold more.
// Long because: one walk of the tree, each node asked in turn whether it defines, holds or wraps items.
fn outline_of_tree<'t>(
    file: &Parsed<'t>,
    tables: Option<&KindTables>,
    options: OutlineOptions,
) -> (Vec<Symbol>, Vec<Node<'t>>) {
    let Parsed { lang, path, source, tree, index, .. } = *file;
    let path: Arc<str> = Arc::from(path);
    let facts = FileFacts::read(lang, tree.root_node(), source);
    let mut symbols: Vec<Symbol> = Vec::new();
    let mut item_macros = Vec::new();
    // Open symbols: (node id, index into `symbols`).
    let mut open: Vec<(usize, usize)> = Vec::new();
    // The kinds of the cursor's ancestors, nearest last (tree-sitter's
    // `parent()` walks down from the root).
    let mut parents: Vec<u16> = Vec::new();
    let ids = kind_tables(lang);
    let mut cursor = tree.walk();
    let flag = |table: &[bool], id: u16| table.get(usize::from(id)).copied().unwrap_or(false);
    loop {
        let node = cursor.node();
        let id = node.kind_id();
        if flag(&ids.macro_call, id) && parents.last().is_some_and(|&p| flag(&ids.item_list, p)) {
            item_macros.push(node);
        }
        let candidate = tables.is_none_or(|t| flag(&t.definition, id));
        let mut enter = tables.is_none_or(|t| !flag(&t.opaque, id));
        if candidate && node.is_named() {
            let parent = open.last().map(|&(_, i)| &symbols[i]);
            if let Some(mut def) = definition(lang, node, source, parent.map(|p| p.kind)) {
                let at = Site { path: &path, checksum: &file.checksum, source, index, lang, facts: &facts };
                let (more, holds) = (std::mem::take(&mut def.more), def.holds);
                let kind = def.kind;
                let symbol = make_symbol(&at, node, def, parent, options.signatures);
                let others: Vec<Symbol> = more
                    .into_iter()
                    .map(|(name, name_node)| {
                        let def = Def { kind, name, name_node: Some(name_node), ..Def::PLAIN };
                        make_symbol(&at, node, def, parent, options.signatures)
                    })
                    .collect();
                enter &= options.max_depth.is_none_or(|m| symbol.depth < m);
                enter &= !options.surface_only || symbol.exports_its_members();
                if holds {
                    open.push((node.id(), symbols.len()));
                }
                symbols.push(symbol);
                symbols.extend(others);
            }
        }
        if enter && cursor.goto_first_child() {
            parents.push(id);
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
                return (symbols, item_macros);
            }
            parents.pop();
        }
    }
}

/// Where a symbol is: its file's shared path and checksum, its text, and
/// what its file's statements say of its exports.
struct Site<'a> {
    path: &'a Arc<str>,
    checksum: &'a Arc<str>,
    source: &'a [u8],
    index: &'a LineIndex,
    lang: Lang,
    facts: &'a FileFacts,
}

fn make_symbol(at: &Site<'_>, node: Node<'_>, def: Def<'_>, parent: Option<&Symbol>, with_signature: bool) -> Symbol {
    let (source, index) = (at.source, at.index);
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
    let depth = parent.map_or(1, |p| p.depth + 1);
    let declared = Declared {
        kind: def.kind,
        name: &def.name,
        depth,
        name_span: def.name_node.map(|n| (n.start_byte(), n.end_byte())),
        in_namespace: parent.is_some_and(Symbol::exports_its_members),
    };
    let exported = at.facts.exported(at.lang, node, source, &declared, RustReach::OtherModules);
    Symbol {
        path: at.path.clone(),
        name: def.name,
        kind: def.kind,
        node_kind: crate::language::kind_name(at.lang, node.kind_id()),
        name_path,
        parent: parent_path,
        depth,
        checksum: at.checksum.clone(),
        span: index.span(source, node.start_byte(), node.end_byte()),
        signature: if with_signature { signature(node, source) } else { String::new() },
        exported,
        name_span: def.name_node.map(|n| (n.start_byte(), n.end_byte())),
    }
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> std::borrow::Cow<'s, str> {
    String::from_utf8_lossy(&source[node.byte_range()])
}

/// The declaration up to its body (or its first line), on one line, at most
/// 200 characters.
fn signature(node: Node<'_>, source: &[u8]) -> String {
    const MAX: usize = 200;
    let body_start = place::body_of(node)
        .into_iter()
        .chain(node.child_by_field_name("value"))
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
    Some(Def { kind, name: text(n, source).into_owned(), name_node: Some(n), qualifier: Vec::new(), ..Def::PLAIN })
}

fn function_or_method(parent: Option<SymbolKind>) -> SymbolKind {
    if parent.is_some_and(SymbolKind::holds_methods) { SymbolKind::Method } else { SymbolKind::Function }
}

/// The kind of the symbol `node` defines or names, without outlining the
/// whole file: `node`'s own definition, or that of the definition whose name
/// it is.
pub(crate) fn kind_at(lang: Lang, root: Node<'_>, node: Node<'_>, source: &[u8]) -> Option<SymbolKind> {
    let up = crate::tree::ancestors(root, node);
    // The kind of the nearest enclosing definition decides method or function.
    let enclosing =
        |from: usize| up.get(from..)?.iter().find_map(|a| definition(lang, *a, source, None)).map(|d| d.kind);
    if let Some(d) = definition(lang, node, source, enclosing(0)) {
        return Some(d.kind);
    }
    // C declarators put the name a few levels down.
    for (i, a) in up.iter().take(4).enumerate() {
        if let Some(d) = definition(lang, *a, source, enclosing(i + 1)) {
            let names_it = d.name_node.iter().chain(d.more.iter().map(|(_, n)| n)).any(|n| n.id() == node.id());
            return names_it.then_some(d.kind);
        }
    }
    None
}

/// The innermost symbol whose span contains `offset`.
pub(crate) fn enclosing(symbols: &[Symbol], offset: usize) -> Option<&Symbol> {
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
pub(crate) fn name_match(symbol: &Symbol, query: &str) -> Option<NameMatch> {
    // `Context/*`: the members of what the rest names (a class, an impl's type).
    if let Some(owner) = query.strip_suffix("/*") {
        let parent = symbol.parent.as_deref()?;
        let owner = owner.replace("::", "/");
        if parent == owner {
            return Some(NameMatch::Exact);
        }
        let names_owner = ends_in_segments(parent, &owner) || ends_in_segments(&bare_name_path(parent), &owner);
        return names_owner.then_some(NameMatch::PathSuffix);
    }
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
    // `TextDiff/from_lines` for `impl TextDiff<'a, str>/from_lines`, and
    // `S/m` for `impl Tr for S<T>/m`: an impl is named by its bare type.
    if symbol.name_path.contains("impl") && ends_in_segments(&bare_name_path(&symbol.name_path), query) {
        return Some(NameMatch::PathSuffix);
    }
    symbol.name.contains(query).then_some(NameMatch::Substring)
}

/// Whether `path` ends in the whole segments `tail` (`B/c` ends `a/B/c`, not `aB/c`).
fn ends_in_segments(path: &str, tail: &str) -> bool {
    path.strip_suffix(tail).is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

/// A name path with each impl segment as the bare type it is for
/// (`impl Tr for S<T>` is `S`, `impl TextDiff<'a, str>` is `TextDiff`).
fn bare_name_path(name_path: &str) -> String {
    let is_impl = |segment: &str| segment.starts_with("impl ") || segment.starts_with("impl<");
    let bare = |segment: &str| if is_impl(segment) { owner_of(segment) } else { segment.to_string() };
    name_path.split('/').map(bare).collect::<Vec<_>>().join("/")
}

/// The type a member belongs to, from its parent's name path:
/// `impl Agent` → `Agent`, `impl Display for Agent<T>` → `Agent`,
/// `(*Command)` → `Command`, `pkg/Client` → `Client`.
pub(crate) fn owner_of(parent: &str) -> String {
    let last = parent.rsplit('/').next().unwrap_or(parent);
    let last = last.rsplit(" for ").next().unwrap_or(last);
    let last = strip_impl(last);
    let last = last.trim_start_matches("(*").trim_start_matches('(').trim_end_matches(')');
    let base = last.split('<').next().unwrap_or(last);
    base.rsplit("::").next().unwrap_or(base).trim().to_string()
}

/// `impl<T> Stack<T>` → `Stack<T>`, `impl Agent` → `Agent`.
fn strip_impl(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("impl") else { return s.trim() };
    let rest = rest.trim_start();
    if !rest.starts_with('<') {
        return rest;
    }
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return rest[i + 1..].trim();
                }
            }
            _ => {}
        }
    }
    rest
}

/// The symbols matching `query` at the best tier that has any: exact names
/// first, then name-path suffixes, then substrings.
pub(crate) fn filter_by_name(symbols: Vec<Symbol>, query: &str) -> (Vec<Symbol>, Option<NameMatch>) {
    let tagged: Vec<(NameMatch, Symbol)> =
        symbols.into_iter().filter_map(|s| name_match(&s, query).map(|m| (m, s))).collect();
    let Some(best) = tagged.iter().map(|(m, _)| *m).min() else {
        return (Vec::new(), None);
    };
    (tagged.into_iter().filter(|(m, _)| *m == best).map(|(_, s)| s).collect(), Some(best))
}

#[cfg(test)]
mod tests;
