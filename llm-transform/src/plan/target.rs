//! Which symbol an operation means: the block operations' `name` (with
//! `kind`, `module_path` and `line_hint` when given) and `patch`'s `within`.
//!
//! A name is what llm-ast-search's outline prints as the symbol's name
//! path (`impl Builder/enable_io`, `(*Command)/Name`, `K/m`), or a looser
//! spelling of it: the last name alone (`enable_io`), `::` for `/`,
//! generics left out (`impl Foo` for `impl Foo<T>`), a Go receiver without
//! its pointer (`Command/Name`), an impl by its type (`Agent/run` for
//! `impl Agent/run`). The strictest spelling that matches anything
//! decides: the printed name path always names its own symbol, whatever
//! else a looser reading would also match.

use aide_core::checksum::sha256_hex;
use aide_core::{AideError, Lang, LineIndex};
use llm_ast_search::{Symbol, SymbolKind, outline};

use crate::error::{BlockCandidate, TransformError};

/// A file parsed and outlined, for the operations that find a symbol.
pub(super) struct Outlined {
    pub lang: Lang,
    pub tree: tree_sitter::Tree,
    pub index: LineIndex,
    pub symbols: Vec<Symbol>,
}

pub(super) fn outlined(rel: &str, bytes: &[u8]) -> Result<Outlined, AideError> {
    let Some(lang) = Lang::from_path_and_content(std::path::Path::new(rel), bytes) else {
        return Err(TransformError::UnknownLanguage { path: rel.to_string() }.into());
    };
    let Some(tree) = llm_ast_search::parse_source(lang, bytes) else {
        return Err(AideError::internal(format!("{rel}: tree-sitter could not parse the file")));
    };
    let index = LineIndex::new(bytes);
    let symbols = outline(lang, rel, bytes, &tree, &index);
    Ok(Outlined { lang, tree, index, symbols })
}

/// The file outlined last, kept while its content stays the same: the
/// block operations of a request that leave a file as it was (or look in
/// it: `within`) parse it once, not once each.
#[derive(Default)]
pub(crate) struct OutlineCache {
    last: Option<(String, Vec<u8>, Outlined)>,
}

impl std::fmt::Debug for OutlineCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutlineCache").field("path", &self.last.as_ref().map(|(rel, ..)| rel)).finish()
    }
}

impl OutlineCache {
    /// `rel` with content `bytes`, outlined.
    pub(super) fn get(&mut self, rel: &str, bytes: &[u8]) -> Result<&Outlined, AideError> {
        let fresh = self.last.as_ref().is_some_and(|(r, b, _)| r == rel && b == bytes);
        if !fresh {
            self.last = None;
            self.last = Some((rel.to_string(), bytes.to_vec(), outlined(rel, bytes)?));
        }
        self.last.as_ref().map(|(.., o)| o).ok_or_else(|| AideError::internal("the outline vanished"))
    }
}

/// A symbol an operation could have meant, as its errors list it.
pub(super) fn candidate(s: &Symbol, bytes: &[u8]) -> BlockCandidate {
    BlockCandidate {
        kind: s.kind,
        name_path: s.name_path.to_string(),
        line: s.span.line,
        end_line: s.span.end_line,
        hash: sha256_hex(&bytes[s.span.byte_start..s.span.byte_end]),
        parent: s.parent.as_deref().map(str::to_string),
    }
}

/// What an operation says about the symbol it means.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted<'a> {
    pub kind: Option<SymbolKind>,
    pub name: &'a str,
    pub module_path: Option<&'a str>,
    pub line_hint: Option<usize>,
}

/// Why no single symbol was found.
pub(super) enum Miss<'s> {
    /// Nothing matches; these are named alike (another kind, another parent).
    None(Vec<&'s Symbol>),
    Several(Vec<&'s Symbol>),
}

/// The one symbol of `symbols` that `wanted` names.
pub(super) fn find<'s>(symbols: &'s [Symbol], wanted: Wanted<'_>) -> Result<&'s Symbol, Miss<'s>> {
    let full = match wanted.module_path.filter(|m| !m.is_empty()) {
        Some(m) => format!("{m}/{}", wanted.name),
        None => wanted.name.to_string(),
    };
    let spelling = Spelling::of(&full);
    let of_kind = |s: &&Symbol| wanted.kind.is_none_or(|k| kind_matches(k, s.kind));
    // The strictest reading that matches anything decides.
    let readings: [fn(&Spelling, &Symbol) -> bool; 3] =
        [Spelling::is_exactly, Spelling::is_normally, Spelling::is_loosely];
    let mut found: Vec<&'s Symbol> = Vec::new();
    for reads in readings {
        found = symbols.iter().filter(of_kind).filter(|s| reads(&spelling, s)).collect();
        if !found.is_empty() {
            break;
        }
    }
    if found.len() > 1
        && let Some(hint) = wanted.line_hint
    {
        let distance =
            |s: &&Symbol| if s.span.line <= hint && hint <= s.span.end_line { 0 } else { s.span.line.abs_diff(hint) };
        let best = found.iter().map(distance).min().unwrap_or(0);
        found.retain(|s| distance(s) == best);
    }
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(Miss::None(
            symbols
                .iter()
                .filter(|s| s.name == spelling.leaf || spelling.is_loosely(s) || spelling.is_normally(s))
                .collect(),
        )),
        _ => Err(Miss::Several(found)),
    }
}

/// A block operation's `name`, found or refused with the candidates.
pub(super) fn find_block<'s>(
    rel: &str,
    bytes: &[u8],
    symbols: &'s [Symbol],
    wanted: Wanted<'_>,
) -> Result<&'s Symbol, AideError> {
    find(symbols, wanted).map_err(|miss| match miss {
        Miss::None(similar) => TransformError::NoBlock {
            path: rel.to_string(),
            kind: wanted.kind,
            name: wanted.name.to_string(),
            module_path: wanted.module_path.map(str::to_string),
            similar: similar.iter().map(|s| candidate(s, bytes)).collect(),
        }
        .into(),
        Miss::Several(several) => ambiguous(rel, bytes, wanted.name, &several),
    })
}

/// Several symbols match: listed with their kinds and lines, so the caller
/// can add `kind` or `line_hint`.
pub(super) fn ambiguous(rel: &str, bytes: &[u8], name: &str, several: &[&Symbol]) -> AideError {
    TransformError::AmbiguousBlock {
        path: rel.to_string(),
        name: name.to_string(),
        candidates: several.iter().map(|s| candidate(s, bytes)).collect(),
    }
    .into()
}

/// A symbol's span, by name path: where a `patch` with `within` looks.
pub(super) struct Within {
    pub start: usize,
    pub end: usize,
    pub name_path: String,
}

pub(super) fn symbol_range(
    rel: &str,
    bytes: &[u8],
    name_path: &str,
    outlines: &mut OutlineCache,
) -> Result<Within, AideError> {
    let symbols = &outlines.get(rel, bytes)?.symbols;
    let wanted = Wanted { kind: None, name: name_path, module_path: None, line_hint: None };
    match find(symbols, wanted) {
        Ok(one) => {
            Ok(Within { start: one.span.byte_start, end: one.span.byte_end, name_path: one.name_path.to_string() })
        }
        Err(Miss::None(similar)) => Err(TransformError::NoWithin {
            path: rel.to_string(),
            within: name_path.to_string(),
            similar: similar.iter().map(|s| candidate(s, bytes)).collect(),
        }
        .into()),
        Err(Miss::Several(several)) => Err(ambiguous(rel, bytes, name_path, &several)),
    }
}

/// Whether a symbol's kind satisfies the requested kind: `function` also
/// covers methods, as in the seed (`kind: "function"` with `impl Agent`).
fn kind_matches(wanted: SymbolKind, kind: SymbolKind) -> bool {
    wanted == kind || (wanted == SymbolKind::Function && kind == SymbolKind::Method)
}

/// A name as the caller spelled it, and in the forms the looser readings
/// compare.
struct Spelling {
    given: String,
    /// `::` as `/`, no generics, Go receivers without `(*…)`, single spaces.
    normal: String,
    /// The normal form's last name, and what comes before it.
    leaf: String,
    parent: Option<String>,
}

impl Spelling {
    fn of(given: &str) -> Spelling {
        let normal = normal_path(given);
        let (parent, leaf) = match normal.rsplit_once('/') {
            Some((p, l)) if !l.is_empty() => (Some(p.to_string()), l.to_string()),
            _ => (None, normal.clone()),
        };
        Spelling { given: given.to_string(), normal, leaf, parent }
    }

    /// The name path exactly as the outline prints it, or the name of a
    /// top-level symbol.
    fn is_exactly(&self, s: &Symbol) -> bool {
        *s.name_path == *self.given
    }

    /// The name path, spelled another way (`K::m`, `impl Foo`, `Command/Name`).
    fn is_normally(&self, s: &Symbol) -> bool {
        normal_path(&s.name_path) == self.normal
    }

    /// The last name (an impl by its type), under a parent that ends the
    /// same (`Agent` for `impl Agent`, `net/Client` for `pkg/net/Client`).
    fn is_loosely(&self, s: &Symbol) -> bool {
        name_matches(s, &self.leaf) && self.parent.as_deref().is_none_or(|p| module_matches(s, p))
    }
}

/// `impl Foo<T>` → `impl Foo`: generics do not have to be spelled out.
fn without_generics(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Go receivers: `Command` and `(*Command)` name the same type.
fn without_pointer_receiver(part: &str) -> &str {
    part.strip_prefix("(*").and_then(|r| r.strip_suffix(')')).unwrap_or(part)
}

/// A name path's normal form: `::` as `/`, generics out, receivers bare.
fn normal_path(path: &str) -> String {
    let path = without_generics(&path.replace("::", "/"));
    path.split('/').map(without_pointer_receiver).collect::<Vec<_>>().join("/")
}

fn name_matches(symbol: &Symbol, name: &str) -> bool {
    if symbol.name == name || without_generics(&symbol.name) == without_generics(name) {
        return true;
    }
    // An impl is found by its type or trait: `Agent` finds `impl Agent` and `impl Display for Agent`.
    symbol.kind == SymbolKind::Impl && {
        let n = without_generics(&symbol.name);
        n == format!("impl {name}")
            || n.ends_with(&format!(" for {name}"))
            || n.starts_with(&format!("impl {name} for"))
    }
}

fn module_matches(symbol: &Symbol, module_path: &str) -> bool {
    let parent = normal_path(symbol.parent.as_deref().unwrap_or(""));
    let wanted = normal_path(module_path);
    parent == wanted || parent.ends_with(&format!("/{wanted}")) || {
        // `Agent` for `impl Agent`, `impl Agent` for `impl Display for Agent`.
        let last = parent.rsplit('/').next().unwrap_or("");
        last == format!("impl {wanted}") || last.ends_with(&format!(" for {}", wanted.trim_start_matches("impl ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols(lang: Lang, src: &str) -> Vec<Symbol> {
        outlined(if lang == Lang::Go { "f.go" } else { "f.rs" }, src.as_bytes()).unwrap().symbols
    }

    fn named<'s>(symbols: &'s [Symbol], name: &str, kind: Option<SymbolKind>) -> Result<&'s str, usize> {
        let wanted = Wanted { kind, name, module_path: None, line_hint: None };
        match find(symbols, wanted) {
            Ok(s) => Ok(&s.name_path),
            Err(Miss::None(_)) => Err(0),
            Err(Miss::Several(several)) => Err(several.len()),
        }
    }

    #[test]
    fn every_printed_name_path_names_its_own_symbol() {
        let src = "pub struct Builder { enable_io: bool }\nimpl Builder {\n    pub fn enable_io(&mut self) {}\n}\nfn enable_io() {}\nmod m { fn f() {} }\nfn f() {}\n";
        let all = symbols(Lang::Rust, src);
        for s in &all {
            assert_eq!(named(&all, &s.name_path, None), Ok(&*s.name_path));
        }
        // Looser spellings, where they mean one symbol; `function` covers methods.
        assert_eq!(named(&all, "Builder::enable_io", Some(SymbolKind::Function)), Ok("impl Builder/enable_io"));
        assert_eq!(named(&all, "m::f", None), Ok("m/f"));
        assert_eq!(named(&all, "Builder", Some(SymbolKind::Impl)), Ok("impl Builder"));
        // The last name alone: the printed top-level `enable_io` decides.
        assert_eq!(named(&all, "enable_io", None), Ok("enable_io"));
        assert_eq!(named(&all, "nothing", None), Err(0));
    }

    #[test]
    fn go_methods_by_receiver_as_printed_or_bare() {
        let src =
            "package p\n\ntype Command struct{ name string }\n\nfunc (c *Command) Name() string { return c.name }\n";
        let all = symbols(Lang::Go, src);
        assert_eq!(named(&all, "(*Command)/Name", None), Ok("(*Command)/Name"));
        assert_eq!(named(&all, "Command/Name", None), Ok("(*Command)/Name"));
        assert_eq!(named(&all, "Name", Some(SymbolKind::Method)), Ok("(*Command)/Name"));
        assert_eq!(named(&all, "Command/name", None), Ok("Command/name"));
    }

    #[test]
    fn the_same_name_path_twice_needs_kind_or_a_line() {
        let src = "mod x {}\nfn x() {}\nimpl A {}\nimpl A {}\n";
        let all = symbols(Lang::Rust, src);
        assert_eq!(named(&all, "x", None), Err(2));
        assert_eq!(named(&all, "x", Some(SymbolKind::Module)), Ok("x"));
        assert_eq!(named(&all, "impl A", None), Err(2));
        let wanted = Wanted { kind: None, name: "impl A", module_path: None, line_hint: Some(4) };
        assert_eq!(find(&all, wanted).ok().map(|s| s.span.line), Some(4));
    }
}
