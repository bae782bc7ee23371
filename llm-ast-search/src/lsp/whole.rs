//! Whether a server's answer is whole. A server answers from the files it
//! knows: one that has not read them all, or whose configuration leaves
//! some out (pyright's `exclude`, a file clangd has no compile command
//! for, a TypeScript file outside every tsconfig), answers without their
//! sites, and nothing in its answer says so. So its places are checked
//! against the syntax engine's sites of the same definition, each site it
//! left out asked about (where the server says the name there is defined):
//!
//! * a `resolved` site (its scope, receiver or qualifier leads to the
//!   definition) was left out wrongly unless the server says it means
//!   something else;
//! * a `name_only` site (spelled like it, nothing else in the tree has the
//!   name) was left out wrongly when the server itself says it means the
//!   definition. Only files where the server gave no place are asked
//!   about (a file it searched, it judged), up to [`PER_FILE`] sites each,
//!   imports first (where a name comes in);
//! * an `unresolved` site is the server's to judge.
//!
//! At most [`MAX_ASKED`] sites are asked about; the ones past that are
//! counted as left out (`unchecked`): a caller cannot tell them apart, so
//! neither can aide.

use std::collections::BTreeMap;

use aide_core::Root;

use super::Located;
use super::client::LspFailure;
use super::server::ServerSpec;
use crate::refs::{RefKind, Resolution};

/// Sites asked about in one check, at most.
pub const MAX_ASKED: usize = 64;
/// `name_only` sites asked about in one file, at most.
pub const PER_FILE: usize = 3;

/// A site the syntax engine found for the definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxSite {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub start: usize,
    pub end: usize,
    pub kind: RefKind,
    pub matched: Resolution,
}

/// The syntax engine's sites a server's answer left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Indexes into the sites checked, in their order.
    pub sites: Vec<usize>,
    /// How many of them were not asked about (past [`MAX_ASKED`]).
    pub unchecked: usize,
}

impl LeftOut {
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// The sites in words, for a diagnostic: the first few as `path:line`,
    /// and why a server leaves sites out.
    pub fn describe(&self, syntax: &[SyntaxSite]) -> String {
        const SHOWN: usize = 5;
        let mut places: Vec<String> =
            self.sites.iter().take(SHOWN).map(|&i| format!("{}:{}", syntax[i].path, syntax[i].line)).collect();
        if self.sites.len() > SHOWN {
            places.push(format!("and {} more", self.sites.len() - SHOWN));
        }
        let unchecked = match self.unchecked {
            0 => String::new(),
            n => format!("; {n} of them too many to ask it about one by one"),
        };
        format!(
            "its answer left out {} site{} the syntax engine ties to the same definition ({}){unchecked}: files it has not loaded, or that its configuration excludes",
            self.sites.len(),
            if self.sites.len() == 1 { "" } else { "s" },
            places.join(", "),
        )
    }
}

/// The sites of `syntax` the server `spec`'s places `given` left out
/// wrongly (see the module), the symbol defined at `defined_at`.
pub fn check(
    root: &Root,
    spec: &ServerSpec,
    given: &[Located],
    syntax: &[SyntaxSite],
    defined_at: &[Located],
) -> Result<LeftOut, LspFailure> {
    left_out(given, syntax, defined_at, |site| super::definition(root, spec, &site.path, site.start))
}

/// The sites of `syntax` the server's places `given` left out wrongly;
/// `defined_at` is where the symbol is defined, `defined` asks the server
/// where the name at a site is defined.
pub fn left_out(
    given: &[Located],
    syntax: &[SyntaxSite],
    defined_at: &[Located],
    mut defined: impl FnMut(&SyntaxSite) -> Result<Vec<Located>, LspFailure>,
) -> Result<LeftOut, LspFailure> {
    let overlaps = |a: &Located, path: &str, start: usize, end: usize| {
        a.path == path && (a.start == start || (a.start < end.max(start + 1) && start < a.end.max(a.start + 1)))
    };
    let covered = |s: &SyntaxSite| given.iter().any(|g| overlaps(g, &s.path, s.start, s.end));
    let is_definition =
        |places: &[Located]| places.iter().any(|p| defined_at.iter().any(|d| overlaps(p, &d.path, d.start, d.end)));
    // The sites to ask about: every resolved one, and some name-only ones of files the server gave nothing in.
    let mut to_ask: Vec<usize> = Vec::new();
    let mut name_only: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, s) in syntax.iter().enumerate().filter(|(_, s)| !covered(s)) {
        match s.matched {
            Resolution::Resolved => to_ask.push(i),
            Resolution::NameOnly if !given.iter().any(|g| g.path == s.path) => {
                name_only.entry(&s.path).or_default().push(i)
            }
            _ => {}
        }
    }
    for (_, mut in_file) in name_only {
        in_file.sort_by_key(|&i| (syntax[i].kind != RefKind::Import, i));
        to_ask.extend(in_file.into_iter().take(PER_FILE));
    }
    to_ask.sort_unstable();
    let mut out = LeftOut::default();
    for (n, i) in to_ask.into_iter().enumerate() {
        let site = &syntax[i];
        if n >= MAX_ASKED {
            out.sites.push(i);
            out.unchecked += 1;
            continue;
        }
        let places = defined(site)?;
        let wrongly = match site.matched {
            Resolution::Resolved => places.is_empty() || is_definition(&places),
            _ => is_definition(&places),
        };
        if wrongly {
            out.sites.push(i);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, start: usize) -> Located {
        Located { path: path.into(), start, end: start + 5 }
    }

    fn site(path: &str, start: usize, kind: RefKind, matched: Resolution) -> SyntaxSite {
        SyntaxSite { path: path.into(), line: start / 10 + 1, column: 1, start, end: start + 5, kind, matched }
    }

    /// Asks nothing: a check that needs no server.
    fn never(_: &SyntaxSite) -> Result<Vec<Located>, LspFailure> {
        panic!("asked")
    }

    #[test]
    fn an_answer_with_every_site_is_whole() {
        let syntax = [
            site("a.py", 10, RefKind::Call, Resolution::Resolved),
            site("b.py", 0, RefKind::Import, Resolution::NameOnly),
        ];
        let given = [at("a.py", 10), at("b.py", 0)];
        assert!(left_out(&given, &syntax, &[at("a.py", 0)], never).unwrap().is_empty());
    }

    #[test]
    fn a_resolved_site_left_out_is_missing_unless_the_server_says_it_means_something_else() {
        let def = at("a.py", 0);
        let syntax = [
            site("a.py", 10, RefKind::Call, Resolution::Resolved),
            site("a.py", 20, RefKind::Call, Resolution::Resolved),
            site("a.py", 30, RefKind::Call, Resolution::Resolved),
            site("a.py", 40, RefKind::Call, Resolution::Unresolved),
        ];
        let answers = |s: &SyntaxSite| match s.start {
            10 => Ok(vec![def.clone()]),
            20 => Ok(Vec::new()),
            30 => Ok(vec![at("other.py", 3)]),
            _ => panic!("an unresolved site is the server's to judge"),
        };
        let left = left_out(&[], &syntax, std::slice::from_ref(&def), answers).unwrap();
        assert_eq!(left.sites, [0, 1], "the server's own definition, or none: missing");
        assert_eq!(
            left.describe(&syntax),
            "its answer left out 2 sites the syntax engine ties to the same definition (a.py:2, a.py:3): files it has not loaded, or that its configuration excludes"
        );
    }

    #[test]
    fn name_only_sites_are_asked_about_in_files_the_server_gave_nothing_in_imports_first() {
        let def = at("app.py", 6);
        let syntax = [
            site("main.py", 50, RefKind::Call, Resolution::NameOnly),
            site("main.py", 60, RefKind::Call, Resolution::NameOnly),
            site("tests/t.py", 30, RefKind::Call, Resolution::NameOnly),
            site("tests/t.py", 40, RefKind::Call, Resolution::NameOnly),
            site("tests/t.py", 50, RefKind::Call, Resolution::NameOnly),
            site("tests/t.py", 60, RefKind::Import, Resolution::NameOnly),
            site("util.py", 10, RefKind::Call, Resolution::NameOnly),
        ];
        let mut asked = Vec::new();
        let given = [at("main.py", 0)];
        let left = left_out(&given, &syntax, std::slice::from_ref(&def), |s| {
            asked.push((s.path.clone(), s.start));
            Ok(if s.path == "tests/t.py" { vec![def.clone()] } else { vec![at("dict.pyi", 1)] })
        })
        .unwrap();
        assert_eq!(
            asked,
            [("tests/t.py".into(), 30), ("tests/t.py".into(), 40), ("tests/t.py".into(), 60), ("util.py".into(), 10)],
            "main.py the server searched; the import first, three a file"
        );
        assert_eq!(left.sites, [2, 3, 5]);
    }

    #[test]
    fn past_the_limit_sites_count_as_left_out_unchecked() {
        let syntax: Vec<SyntaxSite> =
            (0..MAX_ASKED + 2).map(|i| site("a.py", 10 * (i + 1), RefKind::Call, Resolution::Resolved)).collect();
        let left = left_out(&[], &syntax, &[at("a.py", 0)], |_| Ok(vec![at("b.py", 0)])).unwrap();
        assert_eq!((left.sites, left.unchecked), (vec![MAX_ASKED, MAX_ASKED + 1], 2));
    }

    #[test]
    fn a_failing_server_fails_the_check() {
        let syntax = [site("a.py", 10, RefKind::Call, Resolution::Resolved)];
        let failed = left_out(&[], &syntax, &[], |_| Err(LspFailure::Timeout("textDocument/definition")));
        assert!(matches!(failed, Err(LspFailure::Timeout(_))));
    }
}
