//! Raw tree-sitter queries: every capture of every match, with the symbol
//! kind of the captured definition where there is one.

use aide_core::{AideError, Lang};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Query, QueryCursor, QueryErrorKind};

use crate::files::SourceFile;
use crate::symbols::{Symbol, SymbolKind, outline};

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
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub text_truncated: bool,
}

/// Compiles `text` for `lang`; an invalid query is `invalid_query` with the
/// position tree-sitter reports.
pub fn compile(lang: Lang, text: &str) -> Result<Query, AideError> {
    Query::new(&crate::language::grammar(lang), text).map_err(|e| {
        let what = match e.kind {
            QueryErrorKind::Syntax => "syntax error",
            QueryErrorKind::NodeType => "unknown node kind",
            QueryErrorKind::Field => "unknown field",
            QueryErrorKind::Capture => "unknown capture",
            QueryErrorKind::Predicate => "invalid predicate",
            QueryErrorKind::Structure => "impossible pattern structure",
            QueryErrorKind::Language => "language mismatch",
        };
        let detail = if e.message.is_empty() { String::new() } else { format!(": {}", e.message.trim()) };
        AideError::new(
            aide_core::code::INVALID_QUERY,
            format!("invalid {lang} query: {what} at line {}, column {}{detail}", e.row + 1, e.column + 1),
        )
        .with_hint(match e.kind {
            QueryErrorKind::NodeType | QueryErrorKind::Field => {
                format!(
                    "node kinds and fields are the {lang} grammar's; find them with a query like `(_) @n` on a sample"
                )
            }
            _ => {
                "queries use tree-sitter's S-expression syntax, e.g. `(function_item name: (identifier) @name)`".into()
            }
        })
        .with_details(json!({ "line": e.row + 1, "column": e.column + 1, "offset": e.offset, "kind": what }))
    })
}

/// The kind of the symbol the node defines or names.
fn kind_of(symbols: &[Symbol], start: usize, end: usize) -> Option<SymbolKind> {
    symbols
        .iter()
        .find(|s| (s.byte_start, s.byte_end) == (start, end) || s.name_span == Some((start, end)))
        .map(|s| s.kind)
}

/// Every capture of `query` in `file`, deduplicated, in source order.
pub fn run(query: &Query, file: &SourceFile, max_text: usize) -> Vec<Capture> {
    let symbols = outline(file.lang, &file.path, &file.source, &file.tree, &file.index);
    let mut cursor = QueryCursor::new();
    let mut out: Vec<Capture> = Vec::new();
    let mut matches = cursor.matches(query, file.tree.root_node(), file.source.as_slice());
    while let Some(m) = matches.next() {
        for c in m.captures {
            let (start, end) = (c.node.start_byte(), c.node.end_byte());
            let (text, _) = aide_core::text::lossy(&file.source[start..end]);
            let (symbol, text_truncated) =
                if max_text == 0 { (text, false) } else { aide_core::text::shorten(text, max_text) };
            let from = file.index.position(&file.source, start);
            let to = file.index.position(&file.source, end);
            out.push(Capture {
                symbol,
                kind: kind_of(&symbols, start, end),
                capture: query.capture_names()[c.index as usize].to_string(),
                node_kind: c.node.kind().to_string(),
                path: file.path.clone(),
                byte_start: start,
                byte_end: end,
                line: from.line,
                column: from.column,
                end_line: to.line,
                end_column: to.column,
                text_truncated,
            });
        }
    }
    out.sort_by(|a, b| (a.byte_start, a.byte_end, &a.capture).cmp(&(b.byte_start, b.byte_end, &b.capture)));
    out.dedup_by(|a, b| (a.byte_start, a.byte_end, &a.capture) == (b.byte_start, b.byte_end, &b.capture));
    out
}
