//! Who calls a symbol (`--callers NAME|PLACE`, the Dialect's
//! `findCallers`): each call site, and its caller, the innermost symbol
//! holding the call that runs code (a function or method; a class or other
//! body for a call in its body; a constant's or field's initializer counts
//! as what holds the constant) — none at module level.
//!
//! Which sites are calls of the symbol, one engine decides: the syntax
//! engine, as the symbol's references (the same resolution `--references`
//! gives: `resolved`, `name_only`, `unresolved`) that are calls; or the
//! language's server, by its call hierarchy (see [`lsp::calls`]), every
//! site `resolved`, its answer checked against the syntax engine's calls
//! like a server's references are (see [`lsp::whole`]). The callers come
//! from the outline either way, so both engines name a caller alike.

use std::collections::BTreeMap;
use std::path::Path;

use aide_core::tool::Outcome;
use aide_core::{AideError, Diagnostic, Lang};

use crate::backend::range_of;
use crate::dialect::{CallerSite, Definition};
use crate::engine::{Engine, ReferencesFound};
use crate::files::Scope;
use crate::lsp::{self, CodeEngine, Located, LspFailure};
use crate::output::{AstOutput, CallSite, Matching, page};
use crate::refs::{self, RefKind, Reference};
use crate::request::AstRequest;
use crate::resolve::{Resolution, SymbolQuery};
use crate::source::SourceFile;
use crate::symbols::{Symbol, SymbolKind};
use crate::typed::Place;

/// What a callers lookup found, and which engine decided.
pub(crate) struct CallersFound {
    pub calls: Vec<CallSite>,
    pub matching: Matching,
    /// Files parsed.
    pub files: usize,
    pub diagnostics: Vec<Diagnostic>,
    pub engine: CodeEngine,
}

/// A call site an engine found, before it is made a record.
struct Found {
    start: usize,
    end: usize,
    matched: Resolution,
}

impl Engine<'_> {
    /// `--callers NAME|PLACE`: the calls, paged.
    pub(crate) fn run_callers(&self) -> Result<Outcome<AstOutput>, AideError> {
        let name = self.request.callers.clone().unwrap_or_default();
        let found = self.callers_of(&name)?;
        let (calls, page) = page(found.calls, self.request, found.files);
        let output = AstOutput::Callers { name, engine: found.engine, matching: found.matching, calls, page };
        Ok(Outcome::with_diagnostics(output, found.diagnostics))
    }

    /// The calls of the symbol `given` names (a name, a name path, or a
    /// place), each with its caller, in path and byte order: by the
    /// server's call hierarchy where the request's engine allows one and
    /// it answers whole; else by the syntax engine.
    pub(crate) fn callers_of(&self, given: &str) -> Result<CallersFound, AideError> {
        let place = self.place_of(given)?;
        let query = match &place {
            Some(place) => self.query_at(place)?,
            None => SymbolQuery { name: given.to_string(), ..Default::default() },
        };
        let by_syntax = AstRequest { engine: CodeEngine::Syntax, ..self.request.clone() };
        let syntax_engine = Engine { request: &by_syntax, ..*self };
        let ReferencesFound { references, matching, files, mut diagnostics, .. } =
            syntax_engine.references_of_query(&query, true)?;
        let ident = query.ident().to_string();
        // The syntax engine's sites are the symbol's own (for a place: the place is one of them).
        let tied = matching == Matching::Definition
            && place.as_ref().is_none_or(|p| references.iter().any(|r| holds_place(r, p)));
        if let Some(located) = self.calls_by_server(place.as_ref(), &references, tied, &ident, &mut diagnostics) {
            let mut by_file: BTreeMap<String, Vec<Found>> = BTreeMap::new();
            for l in located {
                by_file.entry(l.path).or_default().push(Found {
                    start: l.start,
                    end: l.end,
                    matched: Resolution::Resolved,
                });
            }
            let calls = self.call_sites(by_file, &ident, CodeEngine::Lsp, &mut diagnostics)?;
            return Ok(CallersFound {
                calls,
                matching: Matching::Definition,
                files,
                diagnostics,
                engine: CodeEngine::Lsp,
            });
        }
        let mut by_file: BTreeMap<String, Vec<Found>> = BTreeMap::new();
        for r in references.into_iter().filter(|r| r.kind == RefKind::Call) {
            let found = Found { start: r.span.byte_start, end: r.span.byte_end, matched: r.matched };
            by_file.entry(r.path).or_default().push(found);
        }
        let calls = self.call_sites(by_file, &ident, CodeEngine::Syntax, &mut diagnostics)?;
        Ok(CallersFound { calls, matching, files, diagnostics, engine: CodeEngine::Syntax })
    }

    /// The symbol a place names: where it is a definition's name, that
    /// definition (its name path, in its file, at its line); elsewhere the
    /// name written there, as `--references` of a place goes.
    fn query_at(&self, place: &Place) -> Result<SymbolQuery, AideError> {
        let paths = [place.path.clone()];
        let scope = Scope { paths: &paths, ..self.scope() };
        let (named, _) = scope.map_files(None, |file, _| {
            let names_it =
                |s: &&Symbol| s.name_span.is_some_and(|(start, end)| start <= place.byte && place.byte < end);
            file.outline().iter().find(names_it).map(|s| (s.name_path.to_string(), s.span.line))
        })?;
        Ok(match named.into_iter().flatten().next() {
            Some((name_path, line)) => SymbolQuery {
                name: name_path,
                path: Some(place.path.clone()),
                line_hint: Some(line),
                ..Default::default()
            },
            None => SymbolQuery { name: place.ident.clone(), ..Default::default() },
        })
    }

    /// The call sites the server's call hierarchy gives for the symbol (at
    /// `place`, or at the definition the syntax engine tied its `syntax`
    /// sites to); None, with a diagnostic, when no server answers, or its
    /// answer left out calls of the syntax engine's (when `tied`).
    fn calls_by_server(
        &self,
        place: Option<&Place>,
        syntax: &[Reference],
        tied: bool,
        ident: &str,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Located>> {
        if self.request.engine == CodeEngine::Syntax {
            return None;
        }
        let is_definition = |r: &Reference| r.kind == RefKind::Definition && r.matched == Resolution::Resolved;
        let (path, at) = match place {
            Some(p) => (p.path.clone(), p.byte),
            None if tied => syntax.iter().find(|r| is_definition(r)).map(|r| (r.path.clone(), r.span.byte_start))?,
            // A name that names no one definition: no place to ask about.
            None => return None,
        };
        let known: Vec<&Reference> = match tied {
            true => syntax.iter().filter(|r| r.kind == RefKind::Call || is_definition(r)).collect(),
            false => Vec::new(),
        };
        let defined_at = Located { path: path.clone(), start: at, end: at + ident.len() };
        self.ask_server(&path, diagnostics, |spec| {
            let located = lsp::calls::incoming(self.root, spec, &path, at)?;
            self.check_whole(spec, &located, &known, false, defined_at)?;
            // A call aide cannot give a caller for is not left out unsaid.
            if let Some(unparsed) = located.iter().find(|l| Lang::from_path(Path::new(&l.path)).is_none()) {
                let message = format!("it gives a call in {}, a file of no language aide parses", unparsed.path);
                return Err(LspFailure::Error(message));
            }
            Ok(located)
        })
    }

    /// The records of the calls found in each file: the call's span and
    /// line, and its caller from the file's outline; sorted, each once.
    fn call_sites(
        &self,
        by_file: BTreeMap<String, Vec<Found>>,
        ident: &str,
        engine: CodeEngine,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Result<Vec<CallSite>, AideError> {
        if by_file.is_empty() {
            return Ok(Vec::new());
        }
        let paths: Vec<String> = by_file.keys().cloned().collect();
        let scope = Scope { paths: &paths, ..self.scope() };
        let (per_file, d) = scope.map_files(None, |file, _| {
            let found = by_file.get(&file.path).map(Vec::as_slice).unwrap_or_default();
            found.iter().map(|f| call_site(file, f, ident, engine)).collect::<Vec<_>>()
        })?;
        diagnostics.extend(d);
        let mut calls: Vec<CallSite> = per_file.into_iter().flatten().collect();
        calls.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start));
        calls.dedup_by(|a, b| (&a.path, a.span.byte_start) == (&b.path, b.span.byte_start));
        Ok(calls)
    }

    /// The Dialect's `findCallers` of each of `names`: its calls with
    /// their callers, in path and byte order, and the diagnostics.
    pub(crate) fn dialect_callers(&self, names: &[String]) -> Result<(Vec<CallerSite>, Vec<Diagnostic>), AideError> {
        let (mut calls, mut diagnostics) = (Vec::new(), Vec::new());
        for name in names {
            let found = self.callers_of(name)?;
            calls.extend(found.calls);
            diagnostics.extend(found.diagnostics);
        }
        calls.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start));
        calls.dedup_by(|a, b| (&a.path, a.span.byte_start) == (&b.path, b.span.byte_start));
        let sites = calls
            .into_iter()
            .map(|c| CallerSite {
                range: range_of(&c.path, &c.span),
                name: c.name,
                caller: c.caller.map(|s| Definition {
                    name: s.name.clone(),
                    kind: s.kind,
                    name_path: s.name_path.to_string(),
                    defined_at: range_of(&s.path, &s.span),
                }),
                matched: c.matched,
                engine: c.engine,
                text: c.line_text,
            })
            .collect();
        Ok((sites, diagnostics))
    }
}

/// Whether the reference `r` holds the place `p` (the start of the name written there).
fn holds_place(r: &Reference, p: &Place) -> bool {
    r.path == p.path && r.span.byte_start <= p.byte && p.byte < r.span.byte_end.max(p.byte + 1)
}

/// The record of the call `found` in `file`: its name as written there
/// (`ident` where the span holds no name), and its caller.
fn call_site(file: &SourceFile, found: &Found, ident: &str, engine: CodeEngine) -> CallSite {
    let written = file.source.get(found.start..found.end).and_then(|b| std::str::from_utf8(b).ok());
    let is_name = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    let name = written.filter(is_name).unwrap_or(ident);
    let r = refs::reference_at(file, name, RefKind::Call, found.start, found.end);
    CallSite {
        caller: caller_of(file.outline(), found.start).cloned(),
        path: r.path,
        name: r.name,
        span: r.span,
        line_text: r.line_text,
        checksum: r.checksum,
        matched: found.matched,
        engine,
    }
}

/// The caller of a call at `at`: the innermost symbol holding it that runs
/// code. A constant, static, field or variant only holds an initializer,
/// which runs as part of what holds it; None at module level.
fn caller_of(outline: &[Symbol], at: usize) -> Option<&Symbol> {
    let holds_code = |s: &&Symbol| {
        !matches!(
            s.kind,
            SymbolKind::Constant
                | SymbolKind::Static
                | SymbolKind::Field
                | SymbolKind::Variant
                | SymbolKind::TypeAlias
                | SymbolKind::Declaration
        )
    };
    outline
        .iter()
        .filter(|s| s.span.byte_start <= at && at < s.span.byte_end)
        .filter(holds_code)
        .max_by_key(|s| s.depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callers_in(lang: Lang, src: &str, called: &str) -> Vec<(usize, Option<String>)> {
        let file = SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).unwrap();
        memchr::memmem::find_iter(src.as_bytes(), called.as_bytes())
            .map(|at| (file.index.line_of(at), caller_of(file.outline(), at).map(|s| s.name_path.to_string())))
            .collect()
    }

    #[test]
    fn a_caller_is_the_innermost_body_that_runs_the_call_and_none_at_module_level() {
        let py = "x = go()\n\nclass A:\n    y = go()\n\n    def m(self):\n        def inner():\n            go()\n        return go()\n";
        assert_eq!(
            callers_in(Lang::Python, py, "go()"),
            [(1, None), (4, Some("A".into())), (8, Some("A/m/inner".into())), (9, Some("A/m".into()))]
        );
        let rust =
            "const N: u32 = go();\nstruct S;\nimpl S {\n    const M: u32 = go();\n    fn f() { let c = || go(); }\n}\n";
        assert_eq!(
            callers_in(Lang::Rust, rust, "go()"),
            [(1, None), (4, Some("impl S".into())), (5, Some("impl S/f".into()))]
        );
    }
}
