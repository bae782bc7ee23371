//! Which trigrams a file must hold for a regex to match in it: a query of
//! ands and ors of trigram sets, from the regex's syntax tree. Every step
//! keeps the query a necessary condition (a file that can match passes it),
//! so a search of the files that pass finds every match a full scan finds;
//! where nothing is required the query is [`Query::All`].

use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Hir, HirKind};

use crate::trigram::{self, Trigram};

/// A condition on a file's trigrams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Every file passes.
    All,
    /// A file holding every one of these (sorted, distinct).
    Trigrams(Vec<Trigram>),
    And(Vec<Query>),
    Or(Vec<Query>),
}

/// How the patterns are read, as the search reads them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Syntax {
    pub case_insensitive: bool,
    pub multi_line: bool,
    pub dot_matches_new_line: bool,
    /// The patterns are literal text, not regexes.
    pub fixed_strings: bool,
}

impl Query {
    /// What a file must hold to match any of `patterns` (All when a pattern
    /// does not parse: the search itself says why).
    pub fn of_patterns(patterns: &[String], syntax: Syntax) -> Query {
        let mut any = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let text = if syntax.fixed_strings { regex_syntax::escape(pattern) } else { pattern.clone() };
            let parsed = regex_syntax::ParserBuilder::new()
                .case_insensitive(syntax.case_insensitive)
                .multi_line(syntax.multi_line)
                .dot_matches_new_line(syntax.dot_matches_new_line)
                .utf8(false)
                .build()
                .parse(&text);
            match parsed {
                Ok(hir) => any.push(of_hir(&hir)),
                Err(_) => return Query::All,
            }
        }
        Query::or(any)
    }

    /// Whether a file with `trigrams` (sorted) passes.
    pub fn passes(&self, trigrams: &[Trigram]) -> bool {
        match self {
            Query::All => true,
            Query::Trigrams(needed) => needed.iter().all(|t| trigrams.binary_search(t).is_ok()),
            Query::And(parts) => parts.iter().all(|q| q.passes(trigrams)),
            Query::Or(parts) => parts.iter().any(|q| q.passes(trigrams)),
        }
    }

    fn and(parts: Vec<Query>) -> Query {
        let mut parts: Vec<Query> = parts.into_iter().filter(|q| *q != Query::All).collect();
        match parts.len() {
            0 => Query::All,
            1 => parts.remove(0),
            _ => Query::And(parts),
        }
    }

    fn or(parts: Vec<Query>) -> Query {
        if parts.is_empty() || parts.contains(&Query::All) {
            return Query::All;
        }
        let mut parts = parts;
        parts.dedup();
        match parts.len() {
            1 => parts.remove(0),
            _ => Query::Or(parts),
        }
    }

    /// Any of the literals of `seq` (a finite set every match contains one
    /// of); All when a literal is too short to require a trigram.
    fn any_literal(seq: &Seq) -> Query {
        let Some(literals) = seq.literals() else { return Query::All };
        if literals.is_empty() {
            // No literal at all: the expression never matches; nothing is required.
            return Query::All;
        }
        let mut any: Vec<Query> = Vec::with_capacity(literals.len());
        for literal in literals {
            let needed = trigram::of_literal(literal.as_bytes());
            if needed.is_empty() {
                return Query::All;
            }
            any.push(Query::Trigrams(needed));
        }
        any.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        Query::or(any)
    }
}

/// What a match of `hir` holds: its prefixes and suffixes (every match
/// starts with one of the first and ends with one of the second), and
/// within, what each part of a concatenation holds, what every branch of an
/// alternation holds, and what a repetition of at least one holds.
fn of_hir(hir: &Hir) -> Query {
    let mut extractor = Extractor::new();
    let prefixes = Query::any_literal(&extractor.kind(ExtractKind::Prefix).extract(hir));
    let suffixes = Query::any_literal(&extractor.kind(ExtractKind::Suffix).extract(hir));
    let inner = match hir.kind() {
        HirKind::Concat(parts) => Query::and(parts.iter().map(of_hir).collect()),
        HirKind::Alternation(branches) => Query::or(branches.iter().map(of_hir).collect()),
        HirKind::Capture(capture) => of_hir(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => of_hir(&repetition.sub),
        _ => Query::All,
    };
    let mut parts = vec![prefixes, suffixes, inner];
    parts.dedup();
    Query::and(parts)
}

#[cfg(test)]
mod tests;
