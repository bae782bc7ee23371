//! Raw tree-sitter queries: every capture of every match, with the symbol
//! kind of the captured definition where there is one.

use aide_core::{AideError, Lang, Span};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Query, QueryCursor};

use crate::error::AstError;
use crate::source::SourceFile;
use crate::symbols::{SymbolKind, kind_at};

/// One capture of a query match (the seed's `symbols` entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Capture {
    /// The captured text (cut at --max-text characters with a `…[+N chars]` marker).
    pub symbol: String,
    /// The symbol kind when the capture is a definition or the name of one,
    /// else null.
    pub kind: Option<SymbolKind>,
    /// The capture's name in the query, without `@`.
    pub capture: String,
    /// The grammar's node kind of the captured node.
    pub node_kind: String,
    pub path: String,
    /// SHA-256 of the file's bytes as parsed (`checksum_before` for an edit).
    pub checksum: std::sync::Arc<str>,
    #[serde(flatten)]
    pub span: Span,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub text_truncated: bool,
}

/// A compiled query, with what lets it run faster.
#[derive(Debug)]
pub struct CompiledQuery {
    pub query: Query,
    /// For a query that is one bare `(kind) @name` pattern: the ids of the
    /// named node kinds so called, and the capture name.
    single_kind: Option<(Vec<u16>, String)>,
    text: String,
    /// How deep the query's patterns nest.
    depth: usize,
}

/// The most a query's nesting times a file's syntax-tree depth may be:
/// tree-sitter's matching costs grow with their product (a 40-deep pattern
/// over 800 nested parentheses took 5 s, 100-deep 25 s). Ordinary code is
/// tens of levels deep and patterns a few: far under it.
pub(crate) const DEPTH_BUDGET: usize = 12_000;

/// A diagnostic for a file too deep for `compiled` (which then is not
/// searched), or None. A bare `(kind) @name` pattern is matched by a walk,
/// whatever the depth.
pub fn too_deep_for(compiled: &CompiledQuery, file: &SourceFile) -> Option<aide_core::Diagnostic> {
    if compiled.single_kind.is_some() || compiled.depth <= 1 {
        return None;
    }
    let tree_depth = tree_depth(&file.tree);
    (compiled.depth * tree_depth > DEPTH_BUDGET).then(|| {
        aide_core::Diagnostic::new(
            aide_core::envelope::diag::QUERY_TOO_DEEP,
            format!(
                "{} is {tree_depth} levels deep and the query {} levels: past what is matched in reasonable time \
                 ({DEPTH_BUDGET} for their product); the file was not searched",
                file.path, compiled.depth
            ),
        )
        .with_path(file.path.clone())
    })
}

/// The depth of a syntax tree's deepest node, by a cursor walk.
fn tree_depth(tree: &tree_sitter::Tree) -> usize {
    let mut cursor = tree.walk();
    let (mut depth, mut deepest) = (1, 1);
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            deepest = deepest.max(depth);
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return deepest;
            }
            depth -= 1;
        }
    }
}

/// `(kind) @name` and nothing else (comments aside)?
fn bare_kind_pattern(text: &str) -> Option<(String, String)> {
    let code: String = text.lines().map(|l| l.split(';').next().unwrap_or("")).collect::<Vec<_>>().join(" ");
    let re = regex::Regex::new(r"^\s*\(\s*([A-Za-z_]\w*)\s*\)\s*@([\w.-]+)\s*$").ok()?;
    let caps = re.captures(&code)?;
    Some((caps[1].to_string(), caps[2].to_string()))
}

/// Compiles `text` for `lang`; an invalid query is `invalid_query` with the
/// position tree-sitter reports.
pub fn compile(lang: Lang, text: &str) -> Result<CompiledQuery, AideError> {
    let depth = aide_core::text::bracket_depth(text);
    aide_core::text::check_depth("the query", depth)?;
    let query = compile_query(lang, text)?;
    let language = crate::language::grammar(lang);
    let single_kind = bare_kind_pattern(text).and_then(|(kind, capture)| {
        let ids: Vec<u16> = (0..language.node_kind_count() as u16)
            .filter(|&id| language.node_kind_is_named(id) && language.node_kind_for_id(id) == Some(kind.as_str()))
            .collect();
        (!ids.is_empty()).then_some((ids, capture))
    });
    Ok(CompiledQuery { query, single_kind, text: text.to_string(), depth })
}

fn compile_query(lang: Lang, text: &str) -> Result<Query, AideError> {
    Query::new(&crate::language::grammar(lang), text).map_err(|e| {
        AstError::InvalidQuery {
            lang,
            kind: e.kind,
            line: e.row + 1,
            column: e.column + 1,
            offset: e.offset,
            message: e.message,
        }
        .into()
    })
}

/// A literal every match must contain, when the query says so safely: one
/// pattern, an `(#eq? @capture "literal")` predicate, and no quantifier or
/// alternation that could leave the capture out. Files without it need not
/// be parsed.
pub fn required_literal(compiled: &CompiledQuery) -> Option<String> {
    let (query, text) = (&compiled.query, compiled.text.as_str());
    static EQ: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = EQ.get_or_init(|| regex::Regex::new(r#"\(#eq\?\s+@[\w.]+\s+"((?:[^"\\]|\\.)*)"\s*\)"#).ok()).as_ref()?;
    // Predicate names end in `?` or `!`; any other `?`, `*` or `[` may make the capture optional.
    let without_predicates: String = text
        .split('#')
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.trim_start_matches(|c: char| c.is_alphanumeric() || c == '-').trim_start_matches(['?', '!'])
            }
        })
        .collect();
    if query.pattern_count() != 1 || without_predicates.contains(['?', '*', '[']) {
        return None;
    }
    let caps = re.captures(text)?;
    let literal = caps.get(1)?.as_str();
    (!literal.is_empty() && !literal.contains('\\')).then(|| literal.to_string())
}

/// Every capture of `query` in `file`, deduplicated, in source order.
pub(crate) fn run(compiled: &CompiledQuery, file: &SourceFile, max_text: usize) -> Vec<Capture> {
    let query = &compiled.query;
    let mut out: Vec<Capture> = Vec::new();
    let capture = |node: tree_sitter::Node<'_>, name: &str| {
        let (start, end) = (node.start_byte(), node.end_byte());
        // Cut before converting: a captured function can be long.
        let mut cut = end;
        if max_text > 0 && end - start > max_text * 4 {
            cut = start + max_text * 4;
            while !aide_core::span::is_char_boundary(&file.source, cut) {
                cut -= 1;
            }
        }
        let (mut text, _) = aide_core::text::lossy(&file.source[start..cut]);
        if cut < end {
            text.push_str(&String::from_utf8_lossy(&file.source[cut..end]));
        }
        let (symbol, text_truncated) =
            if max_text == 0 { (text, false) } else { aide_core::text::shorten(text, max_text) };
        Capture {
            symbol,
            kind: kind_at(file.lang, file.tree.root_node(), node, &file.source),
            capture: name.to_string(),
            node_kind: node.kind().to_string(),
            path: file.path.clone(),
            checksum: file.checksum().clone(),
            span: file.index.span(&file.source, start, end),
            text_truncated,
        }
    };
    if let Some((ids, name)) = &compiled.single_kind {
        // `(kind) @name` matches exactly the named nodes of that kind: a
        // cursor walk finds them without the query engine's bookkeeping.
        let mut cursor = file.tree.walk();
        'walk: loop {
            let node = cursor.node();
            if node.is_named() && ids.contains(&node.kind_id()) {
                out.push(capture(node, name.as_str()));
            }
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
    } else {
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, file.tree.root_node(), file.source.as_slice());
        while let Some(m) = matches.next() {
            for c in m.captures() {
                out.push(capture(c.node, query.capture_names()[c.index as usize]));
            }
        }
    }
    out.sort_by(|a, b| {
        (a.span.byte_start, a.span.byte_end, &a.capture).cmp(&(b.span.byte_start, b.span.byte_end, &b.capture))
    });
    out.dedup_by(|a, b| {
        (a.span.byte_start, a.span.byte_end, &a.capture) == (b.span.byte_start, b.span.byte_end, &b.capture)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_kind_fast_path_finds_what_the_query_engine_finds() {
        let src = "fn a() {}\nmod m {\n    fn b() { fn c() {} }\n}\nimpl X { fn d(&self) {} }\n";
        let file = SourceFile::parse("f.rs".into(), Lang::Rust, src.as_bytes().to_vec()).unwrap_or_else(|_| panic!());
        let fast = compile(Lang::Rust, "(function_item) @f ; every function").unwrap();
        assert!(fast.single_kind.is_some());
        let slow = compile(Lang::Rust, "((function_item) @f (#match? @f \"\"))").unwrap();
        assert!(slow.single_kind.is_none());
        let names = |c: &[Capture]| c.iter().map(|c| (c.span.byte_start, c.kind)).collect::<Vec<_>>();
        let (a, b) = (run(&fast, &file, 200), run(&slow, &file, 200));
        assert_eq!(a.len(), 4);
        assert_eq!(names(&a), names(&b));
    }

    #[test]
    fn a_required_literal_is_taken_only_when_every_match_needs_it() {
        let lit = |q: &str| required_literal(&compile(Lang::Rust, q).unwrap());
        let q = r#"(call_expression function: (field_expression field: (field_identifier) @m) (#eq? @m "unwrap"))"#;
        assert_eq!(lit(q).as_deref(), Some("unwrap"));
        assert_eq!(lit(r#"((identifier) @i (#not-eq? @i "x"))"#), None);
        assert_eq!(lit(r#"((identifier)? @i (#eq? @i "x"))"#), None);
        assert_eq!(lit(r#"[(identifier) (type_identifier)] @i (#eq? @i "x")"#), None);
        assert_eq!(lit("(function_item) @f"), None);
        assert_eq!(lit(r#"((identifier) @i (#eq? @i "x")) ((type_identifier) @t)"#), None);
    }
}
