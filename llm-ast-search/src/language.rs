//! Grammars, parsing, and the tags queries (the grammars' own plus our
//! overlays) for each language.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::OnceLock;

use aide_core::Lang;
use tree_sitter::{Language, Parser, Query, Tree};

/// The tree-sitter grammar of a language (TSX has its own grammar).
pub(crate) fn grammar(lang: Lang) -> Language {
    match lang {
        Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Lang::C => tree_sitter_c::LANGUAGE.into(),
        Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Lang::Java => tree_sitter_java::LANGUAGE.into(),
        Lang::Go => tree_sitter_go::LANGUAGE.into(),
    }
}

/// Gives tree-sitter mimalloc for its nodes, stacks and trees: a parse
/// allocates and frees small blocks by the million, and with glibc's
/// malloc that was about an eighth of an outline's time
/// (docs/BENCHMARKS.md). The rest of the process keeps the system
/// allocator. For a parsing tool's `main`, before anything else.
#[allow(unsafe_code)]
pub fn parse_with_mimalloc() {
    use libmimalloc_sys as mi;
    let allocator = tree_sitter::Allocator {
        malloc: mi::mi_malloc,
        calloc: mi::mi_calloc,
        realloc: mi::mi_realloc,
        free: mi::mi_free,
    };
    // SAFETY: the four functions are one allocator's (mimalloc's, which
    // returns malloc's alignment and null only when out of memory, as
    // malloc does), and `main` calls this first, on its only thread,
    // before any tree-sitter object exists.
    unsafe { tree_sitter::set_allocator(Some(allocator)) }
}

thread_local! {
    /// One parser per thread and language: creating one per file costs more
    /// than parsing a small file.
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

/// Calls `f` with this thread's parser of `lang`.
fn with_parser<R>(lang: Lang, f: impl FnOnce(&mut Parser) -> R) -> R {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = parsers.entry(lang).or_insert_with(|| {
            let mut p = Parser::new();
            // A grammar bundled with this binary always matches the library's ABI.
            let _ = p.set_language(&grammar(lang));
            p
        });
        f(parser)
    })
}

/// Parses `source` as `lang`. None only if tree-sitter gives up (it does not
/// on valid grammars without a timeout); callers report it as a parse error.
pub fn parse(lang: Lang, source: &[u8]) -> Option<Tree> {
    with_parser(lang, |parser| parser.parse(source, None))
}

/// Parses `source` again, reusing `old` (a tree of the earlier text,
/// already `edit`ed to the changes): only the changed regions are parsed.
pub fn reparse(lang: Lang, source: &[u8], old: &Tree) -> Option<Tree> {
    with_parser(lang, |parser| parser.parse(source, Some(old)))
}

/// Parses only `ranges` of `source` (in order, none overlapping) as `lang`,
/// as if the text between them were absent; every node keeps its offset in
/// `source`. None if tree-sitter refuses the ranges or gives up, and as
/// soon as every way it is trying has met a syntax error: the caller wants
/// a tree without one, and error recovery is the costly part of a parse.
pub(crate) fn parse_ranges_without_errors(lang: Lang, source: &[u8], ranges: &[tree_sitter::Range]) -> Option<Tree> {
    with_parser(lang, |parser| {
        parser.set_included_ranges(ranges).ok()?;
        let len = source.len();
        let mut read = |at: usize, _: tree_sitter::Point| if at < len { &source[at..] } else { &[][..] };
        let mut stop_at_error = |state: &tree_sitter::ParseState| {
            if state.has_error() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut stop_at_error);
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        // A parse stopped part-way would be resumed by the next one.
        parser.reset();
        // The parser's next file is read whole.
        let _ = parser.set_included_ranges(&[]);
        tree.filter(|t| !t.root_node().has_error())
    })
}

/// Our additions to the grammars' tags queries, where those fall short:
/// references the grammars do not tag (C and C++ ship none; Rust's scoped
/// calls `m::f()`, types and struct literals; qualified C++ calls).
fn tags_overlay(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => {
            r#"
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (scoped_identifier name: (identifier) @name)) @reference.call
(type_identifier) @name @reference.type
(struct_expression name: (type_identifier) @name) @reference.class
(use_declaration argument: (scoped_identifier name: (identifier) @name)) @reference.import
(use_list (identifier) @name) @reference.import
(use_list (scoped_identifier name: (identifier) @name)) @reference.import
"#
        }
        Lang::C => {
            r#"
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
"#
        }
        Lang::Cpp => {
            r#"
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (template_function name: (identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.class
(type_identifier) @name @reference.type
"#
        }
        Lang::Python => {
            r#"
(class_definition superclasses: (argument_list (identifier) @name)) @reference.class
(import_from_statement name: (dotted_name (identifier) @name)) @reference.import
"#
        }
        Lang::Java => {
            r#"
(type_identifier) @name @reference.type
"#
        }
        Lang::Go => "",
        Lang::JavaScript => {
            r#"
(import_specifier name: (identifier) @name) @reference.import
"#
        }
        Lang::TypeScript | Lang::Tsx => {
            r#"
(import_specifier name: (identifier) @name) @reference.import
(type_identifier) @name @reference.type
"#
        }
    }
}

/// The grammar's tags query text (TypeScript's builds on JavaScript's).
fn grammar_tags(lang: Lang) -> String {
    match lang {
        Lang::Rust => tree_sitter_rust::TAGS_QUERY.to_string(),
        Lang::Python => tree_sitter_python::TAGS_QUERY.to_string(),
        Lang::TypeScript | Lang::Tsx => {
            format!("{}\n{}", tree_sitter_javascript::TAGS_QUERY, tree_sitter_typescript::TAGS_QUERY)
        }
        Lang::JavaScript => tree_sitter_javascript::TAGS_QUERY.to_string(),
        Lang::C => tree_sitter_c::TAGS_QUERY.to_string(),
        Lang::Cpp => tree_sitter_cpp::TAGS_QUERY.to_string(),
        Lang::Java => tree_sitter_java::TAGS_QUERY.to_string(),
        Lang::Go => tree_sitter_go::TAGS_QUERY.to_string(),
    }
}

/// The name of node kind `id` in `lang`'s grammar (what a node's `kind()`
/// says), for the life of the process: tree-sitter ties a node's kind name
/// to its tree, and our grammars are compiled in.
pub(crate) fn kind_name(lang: Lang, id: u16) -> &'static str {
    static GRAMMARS: [OnceLock<Language>; 9] = [const { OnceLock::new() }; 9];
    per_language(&GRAMMARS, lang, || grammar(lang)).node_kind_for_id(id).unwrap_or("")
}

/// A value computed once per process and language, on first use: a run
/// that reads only Rust never builds the other eight.
pub(crate) fn per_language<T>(cells: &'static [OnceLock<T>; 9], lang: Lang, init: impl FnOnce() -> T) -> &'static T {
    let i = Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0);
    cells[i].get_or_init(init)
}

/// The compiled tags query of a language: the grammar's plus our overlay.
pub(crate) fn tags_query(lang: Lang) -> &'static Query {
    static QUERIES: [OnceLock<Query>; 9] = [const { OnceLock::new() }; 9];
    per_language(&QUERIES, lang, || {
        let text = format!("{}\n{}", grammar_tags(lang), tags_overlay(lang));
        // The query texts are constants tested below; a failure here is a bug.
        #[allow(clippy::expect_used)]
        Query::new(&grammar(lang), &text).expect("bundled tags query compiles")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_parses_and_every_tags_query_compiles() {
        for lang in Lang::ALL {
            assert!(parse(lang, b"x").is_some(), "{lang}");
            let q = tags_query(lang);
            assert!(q.capture_names().contains(&"name"), "{lang}");
        }
    }
}
