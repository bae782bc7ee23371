//! Answers that need types: references judged by a language server,
//! definitions of a use, implementations, hover. A question names a
//! symbol by name (the syntax engine finds its definitions: a name is not
//! a position) or by a place, `PATH:LINE:COLUMN` (a use or a definition,
//! as records give them). The language's server, where the request's
//! engine allows one and one is installed, is asked about those places,
//! and its places become aide's records. Without a server (or when it
//! fails) the syntax engine answers as best it can (for a place, by the
//! name written there), and a diagnostic says so.

use std::collections::HashMap;
use std::path::Path;

use aide_core::envelope::diag;
use aide_core::{AideError, Diagnostic, Lang};

use crate::engine::{Engine, ReferencesFound};
use crate::error::AstError;
use crate::lsp::whole::SyntaxSite;
use crate::lsp::{self, CodeEngine, Located, LspFailure, ServerSpec};
use crate::output::Matching;
use crate::refs::{self, Reference};
use crate::request::AstRequest;
use crate::resolve;
use crate::source::SourceFile;
use crate::symbols::{Symbol, SymbolKind};

/// Symbols found, the files parsed, diagnostics, and which engine answered.
pub struct TypedFound<T> {
    pub found: Vec<T>,
    pub files: usize,
    pub diagnostics: Vec<Diagnostic>,
    pub engine: CodeEngine,
}

/// Files parsed on demand to turn a server's places into records.
#[derive(Default)]
struct Parsed(HashMap<String, Option<SourceFile>>);

impl Parsed {
    fn file(&mut self, engine: &Engine<'_>, path: &str) -> Option<&SourceFile> {
        self.0
            .entry(path.to_string())
            .or_insert_with(|| {
                let bytes = engine.root.read(Path::new(path)).ok()?;
                let lang = Lang::from_path_and_content(Path::new(path), &bytes)?;
                SourceFile::parse(path.to_string(), lang, bytes).ok()
            })
            .as_ref()
    }
}

impl Engine<'_> {
    /// What the language server of `path` answers to `ask`; None, with a
    /// diagnostic, when the request's engine is `syntax`, or no server is
    /// installed, or it failed.
    pub(crate) fn ask_server<T>(
        &self,
        path: &str,
        diagnostics: &mut Vec<Diagnostic>,
        ask: impl FnOnce(&ServerSpec) -> Result<T, LspFailure>,
    ) -> Option<T> {
        if self.request.engine == CodeEngine::Syntax {
            return None;
        }
        let lang = Lang::from_path(Path::new(path))?;
        let Some(spec) = lsp::server_for(lang) else {
            diagnostics.push(Diagnostic::new(
                diag::LSP_UNAVAILABLE,
                format!("{}: the syntax engine answered", lsp::why_no_server(lang)),
            ));
            return None;
        };
        match ask(&spec) {
            Ok(found) => Some(found),
            Err(failure) => {
                diagnostics.push(Diagnostic::new(
                    diag::LSP_FAILED,
                    format!("{}: {failure}; the syntax engine answered", spec.argv[0]),
                ));
                None
            }
        }
    }

    /// The references a language server gives for the definition at `at`
    /// of `path`, as records `resolved` by it (their kinds and enclosing
    /// symbols the syntax engine's where it saw the same place); None, with
    /// a diagnostic, when no server can answer, or its answer left out
    /// sites of the syntax engine's `syntax` (see [`lsp::whole`]): the
    /// syntax engine then does.
    pub(crate) fn server_references(
        &self,
        path: &str,
        at: usize,
        ident: &str,
        syntax: &[resolve::RawSite],
        include_definitions: bool,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Reference>> {
        let known: Vec<&Reference> = syntax.iter().filter(|s| !s.in_comment_or_string).map(|s| &s.reference).collect();
        let defined_at = Located { path: path.to_string(), start: at, end: at + ident.len() };
        let located = self.ask_server(path, diagnostics, |spec| {
            let located = lsp::references(self.root, spec, path, at, include_definitions)?;
            self.check_whole(spec, &located, &known, include_definitions, defined_at)?;
            Ok(located)
        })?;
        Some(self.records_of(located, ident, syntax, include_definitions))
    }

    /// Fails with `Partial` when the server's references `located` left out
    /// sites of the syntax engine's references `known` to the symbol
    /// defined at `defined_at` (and at its definitions among `known`).
    pub(crate) fn check_whole(
        &self,
        spec: &ServerSpec,
        located: &[Located],
        known: &[&Reference],
        include_definitions: bool,
        defined_at: Located,
    ) -> Result<(), LspFailure> {
        let is_definition = |r: &Reference| r.kind == refs::RefKind::Definition;
        let sites: Vec<SyntaxSite> = known
            .iter()
            .filter(|r| include_definitions || !is_definition(r))
            .map(|r| SyntaxSite {
                path: r.path.clone(),
                line: r.span.line,
                column: r.span.column,
                start: r.span.byte_start,
                end: r.span.byte_end,
                kind: r.kind,
                matched: r.matched,
            })
            .collect();
        let mut defined: Vec<Located> = known
            .iter()
            .filter(|r| is_definition(r) && r.matched == resolve::Resolution::Resolved)
            .map(|r| Located { path: r.path.clone(), start: r.span.byte_start, end: r.span.byte_end })
            .collect();
        defined.push(defined_at);
        let left = lsp::whole::check(self.root, spec, located, &sites, &defined)?;
        if left.is_empty() { Ok(()) } else { Err(LspFailure::Partial(left.describe(&sites))) }
    }

    /// The place `given` names when it has the form `PATH:LINE:COLUMN`
    /// (1-based, the column in characters): the file, the byte, and the
    /// name written there. None for a name.
    pub(crate) fn place_of(&self, given: &str) -> Result<Option<Place>, AideError> {
        let mut parts = given.rsplitn(3, ':');
        let (Some(column), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            return Ok(None);
        };
        let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else { return Ok(None) };
        let bytes = self.root.read(Path::new(path)).map_err(|e| e.into_error(path))?;
        let index = aide_core::LineIndex::new(&bytes);
        let byte = index.offset(&bytes, aide_core::span::Position { line, column });
        let Some((start, ident)) = byte.and_then(|b| identifier_at(&bytes, b)) else {
            return Err(AstError::NoNameAt { place: given.to_string() }.into());
        };
        Ok(Some(Place { path: path.to_string(), byte: start, ident }))
    }

    /// The references of the symbol at `place`: the server's, else the
    /// syntax engine's of the name written there. Where the syntax engine
    /// ties the place to one definition, the server's answer must hold
    /// its sites too (see [`lsp::whole`]).
    pub(crate) fn references_at(&self, place: &Place, include_definitions: bool) -> Result<ReferencesFound, AideError> {
        let mut diagnostics = Vec::new();
        let by_syntax = AstRequest { engine: CodeEngine::Syntax, ..self.request.clone() };
        let syntax_engine = Engine { request: &by_syntax, ..*self };
        let mut syntax = syntax_engine.references_of(&place.ident, true)?;
        let holds_place = |r: &&Reference| {
            r.path == place.path && r.span.byte_start <= place.byte && place.byte < r.span.byte_end.max(place.byte + 1)
        };
        let tied = syntax.matching == Matching::Definition && syntax.references.iter().any(|r| holds_place(&r));
        let known: Vec<&Reference> = if tied { syntax.references.iter().collect() } else { Vec::new() };
        let defined_at = Located { path: place.path.clone(), start: place.byte, end: place.byte + place.ident.len() };
        if let Some(located) = self.ask_server(&place.path, &mut diagnostics, |spec| {
            let located = lsp::references(self.root, spec, &place.path, place.byte, include_definitions)?;
            self.check_whole(spec, &located, &known, include_definitions, defined_at)?;
            Ok(located)
        }) {
            let references = self.records_of(located, &place.ident, &[], include_definitions);
            let files = references.iter().map(|r| &r.path).collect::<std::collections::BTreeSet<_>>().len();
            return Ok(ReferencesFound {
                references,
                matching: Matching::Definition,
                files,
                diagnostics,
                engine: CodeEngine::Lsp,
            });
        }
        if !include_definitions {
            syntax.references.retain(|r| r.kind != refs::RefKind::Definition);
        }
        diagnostics.append(&mut syntax.diagnostics);
        syntax.diagnostics = diagnostics;
        Ok(syntax)
    }

    /// Where the symbol used at `place` is defined: the server's answer
    /// (by types), else the definitions of the name written there.
    pub(crate) fn definitions_at(&self, place: &Place) -> Result<TypedFound<Symbol>, AideError> {
        let mut diagnostics = Vec::new();
        if let Some(located) = self
            .ask_server(&place.path, &mut diagnostics, |spec| lsp::definition(self.root, spec, &place.path, place.byte))
        {
            let (found, files) = self.symbols_named_at(located);
            return Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Lsp });
        }
        let ((found, _, files, mut d), _) = self.definitions(&place.ident, None)?;
        diagnostics.append(&mut d);
        Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Syntax })
    }

    /// What implements the symbol `given` names (a name, or a place): of a
    /// trait, interface or class, the impl blocks and types that implement
    /// or extend it; of one of its methods, their methods of that name. A
    /// server answers by types (every level); the syntax engine by the
    /// declarations' heads (`impl T for X`, `class X(T)`, `implements T`,
    /// `extends T`, `: public T`), one level, and not Go's implicit interfaces.
    pub fn implementations_of(&self, given: &str) -> Result<TypedFound<Symbol>, AideError> {
        let place = self.place_of(given)?;
        let name = place.as_ref().map_or(given, |p| p.ident.as_str());
        let mut diagnostics = Vec::new();
        if let Some(place) = &place
            && let Some(located) = self.ask_server(&place.path, &mut diagnostics, |spec| {
                lsp::implementations(self.root, spec, &place.path, place.byte)
            })
        {
            let (found, files) = self.symbols_at(located, None);
            return Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Lsp });
        }
        let ((defs, _, files, mut d), _) = self.definitions(name, None)?;
        diagnostics.append(&mut d);
        if place.is_none()
            && let Some(found) = self.implementations_by_server(&defs, &mut diagnostics)
        {
            return Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Lsp });
        }
        let (found, files, d) = self.implementations_by_heads(&defs, files)?;
        diagnostics.extend(d);
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        diagnostics.dedup_by(|a, b| a == b);
        Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Syntax })
    }

    /// The implementations the server gives for each of `defs`; None when
    /// it cannot answer for all of them.
    fn implementations_by_server(&self, defs: &[Symbol], diagnostics: &mut Vec<Diagnostic>) -> Option<Vec<Symbol>> {
        let mut found = Vec::new();
        for def in defs {
            let Some((at, _)) = def.name_span else { continue };
            let path = def.path.to_string();
            let located =
                self.ask_server(&path, diagnostics, |spec| lsp::implementations(self.root, spec, &path, at))?;
            found.extend(self.symbols_at(located, Some(def)).0);
        }
        sort_symbols(&mut found);
        (!defs.is_empty()).then_some(found)
    }

    /// What implements each of `defs`, told by declaration heads.
    fn implementations_by_heads(
        &self,
        defs: &[Symbol],
        files: usize,
    ) -> Result<(Vec<Symbol>, usize, Vec<Diagnostic>), AideError> {
        let (mut found, mut files, mut diagnostics) = (Vec::new(), files, Vec::new());
        for def in defs {
            // A member (a method, or a C++ pure virtual one's declaration): its owner's implementers' members.
            let (implemented, method) = match def.kind {
                SymbolKind::Method | SymbolKind::Declaration => match &def.parent {
                    Some(parent) => (refs::last_identifier(parent).to_string(), Some(def.name.clone())),
                    None => continue,
                },
                _ => (def.name.clone(), None),
            };
            let (per_file, d) = self.scope().map_files(Some(implemented.as_bytes()), |file, _| {
                let outline = file.outline();
                let implementers: Vec<&Symbol> = outline
                    .iter()
                    .filter(|s| !(s.path == def.path && s.span == def.span) && implements(s, &implemented))
                    .collect();
                match &method {
                    None => implementers.into_iter().cloned().collect::<Vec<_>>(),
                    Some(method) => outline
                        .iter()
                        .filter(|s| {
                            &s.name == method && implementers.iter().any(|i| s.parent.as_deref() == Some(&*i.name_path))
                        })
                        .cloned()
                        .collect(),
                }
            })?;
            files = files.max(per_file.len());
            found.extend(per_file.into_iter().flatten());
            diagnostics.extend(d);
        }
        sort_symbols(&mut found);
        Ok((found, files, diagnostics))
    }

    /// The definitions of the symbol `given` names (a name, or a place),
    /// each with what hovering it shows: the server's type, signature and
    /// documentation (of a place: what hovering the place shows, beside the
    /// definitions the server gives for it); without a server, each
    /// definition's declaration head (the syntax engine's signature).
    pub fn hover_of(&self, given: &str) -> Result<TypedFound<(Symbol, String)>, AideError> {
        let Some(place) = self.place_of(given)? else {
            return self.hover_by_name(given, self.request.engine != CodeEngine::Syntax);
        };
        let mut diagnostics = Vec::new();
        let asked = self.ask_server(&place.path, &mut diagnostics, |spec| {
            let text = lsp::hover(self.root, spec, &place.path, place.byte)?;
            Ok((text, lsp::definition(self.root, spec, &place.path, place.byte)?))
        });
        if let Some((text, located)) = asked {
            let text = text.unwrap_or_default();
            let (symbols, files) = self.symbols_named_at(located);
            let found = symbols.into_iter().map(|s| (s, text.clone())).collect();
            return Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Lsp });
        }
        let mut by_name = self.hover_by_name(&place.ident, false)?;
        diagnostics.append(&mut by_name.diagnostics);
        by_name.diagnostics = diagnostics;
        Ok(by_name)
    }

    /// `name`'s definitions with their hover text, asking the server while
    /// `ask` and it answers.
    fn hover_by_name(&self, name: &str, ask: bool) -> Result<TypedFound<(Symbol, String)>, AideError> {
        let ((defs, _, files, mut diagnostics), _) = self.definitions(name, None)?;
        // Asked while it answers: once it did not, the syntax engine answers the rest.
        let mut server_answers = ask;
        let mut engine = CodeEngine::Syntax;
        let mut found = Vec::new();
        for def in defs {
            let path = def.path.to_string();
            let server = match def.name_span.filter(|_| server_answers) {
                Some((at, _)) => {
                    self.ask_server(&path, &mut diagnostics, |spec| lsp::hover(self.root, spec, &path, at))
                }
                None => None,
            };
            server_answers &= server.is_some();
            let text = match server {
                Some(text) => {
                    engine = CodeEngine::Lsp;
                    text.unwrap_or_default()
                }
                None => def.signature.clone(),
            };
            found.push((def, text));
        }
        Ok(TypedFound { found, files, diagnostics, engine })
    }

    /// The server's places as references to `ident`: the syntax engine's
    /// record where it saw the same place, else one made here (a
    /// definition where the place is a symbol's name), each `resolved`.
    fn records_of(
        &self,
        located: Vec<lsp::Located>,
        ident: &str,
        syntax: &[resolve::RawSite],
        include_definitions: bool,
    ) -> Vec<Reference> {
        let mut parsed = Parsed::default();
        let mut out = Vec::new();
        for place in located {
            let known =
                syntax.iter().find(|s| s.reference.path == place.path && s.reference.span.byte_start == place.start);
            let mut reference = match known {
                Some(site) => site.reference.clone(),
                None => {
                    let Some(file) = parsed.file(self, &place.path) else { continue };
                    let names_a_symbol = file.outline().iter().any(|s| s.name_span == Some((place.start, place.end)));
                    let kind = if names_a_symbol { refs::RefKind::Definition } else { refs::RefKind::Usage };
                    refs::reference_at(file, ident, kind, place.start, place.end)
                }
            };
            reference.matched = resolve::Resolution::Resolved;
            if include_definitions || reference.kind != refs::RefKind::Definition {
                out.push(reference);
            }
        }
        out
    }

    /// The symbols the server's places name: each the outline symbol whose
    /// name holds the place, else the innermost one holding it; and the
    /// number of files parsed to tell.
    fn symbols_named_at(&self, located: Vec<lsp::Located>) -> (Vec<Symbol>, usize) {
        self.symbols_of(located, |outline, at| {
            let named =
                outline.iter().find(|s| s.name_span.is_some_and(|(start, end)| start <= at && at < end.max(start + 1)));
            named.or_else(|| crate::symbols::enclosing(outline, at))
        })
    }

    /// The implementing items the server's places fall in (an impl block,
    /// a class, a method), but not `not` itself; and the files parsed.
    fn symbols_at(&self, located: Vec<lsp::Located>, not: Option<&Symbol>) -> (Vec<Symbol>, usize) {
        self.symbols_of(located, |outline, at| {
            crate::symbols::enclosing(outline, at)
                .filter(|s| !not.is_some_and(|d| s.path == d.path && s.span == d.span))
        })
    }

    /// The symbol `pick` chooses in each place's file outline (given the
    /// place's start), sorted, each once; and the number of files parsed.
    fn symbols_of(
        &self,
        located: Vec<lsp::Located>,
        pick: impl for<'o> Fn(&'o [Symbol], usize) -> Option<&'o Symbol>,
    ) -> (Vec<Symbol>, usize) {
        let mut parsed = Parsed::default();
        let mut out = Vec::new();
        for place in located {
            let Some(file) = parsed.file(self, &place.path) else { continue };
            out.extend(pick(file.outline(), place.start).cloned());
        }
        sort_symbols(&mut out);
        (out, parsed.0.len())
    }
}

/// A place a question names: a file of the root, where the name written
/// there starts, and that name.
pub(crate) struct Place {
    pub path: String,
    pub byte: usize,
    pub ident: String,
}

/// The identifier that `byte` is in or just after: its start and text.
fn identifier_at(bytes: &[u8], byte: usize) -> Option<(usize, String)> {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let mut at = byte.min(bytes.len());
    if bytes.get(at).is_none_or(|b| !is_ident(*b)) && at > 0 && is_ident(bytes[at - 1]) {
        at -= 1;
    }
    if bytes.get(at).is_none_or(|b| !is_ident(*b)) {
        return None;
    }
    let start = bytes[..at].iter().rposition(|b| !is_ident(*b)).map_or(0, |p| p + 1);
    let end = bytes[at..].iter().position(|b| !is_ident(*b)).map_or(bytes.len(), |p| at + p);
    let ident = std::str::from_utf8(&bytes[start..end]).ok()?;
    (!ident.starts_with(|c: char| c.is_ascii_digit())).then(|| (start, ident.to_string()))
}

/// Whether the symbol `s` declares that it implements or extends the type
/// named `implemented` (its last identifier), by its declaration's head.
fn implements(s: &Symbol, implemented: &str) -> bool {
    match s.kind {
        SymbolKind::Impl => {
            // `impl<…> path::Trait<…> for Type`: the trait's last identifier.
            let Some(rest) = s.name.strip_prefix("impl ") else { return false };
            let Some((implemented_here, _)) = rest.split_once(" for ") else { return false };
            let without_generics = implemented_here.split('<').next().unwrap_or_default();
            refs::last_identifier(without_generics.trim()) == implemented
        }
        SymbolKind::Class | SymbolKind::Interface | SymbolKind::Struct => {
            // What follows the name in the head: bases, `extends`, `implements`.
            let Some(at) = s.signature.find(&s.name) else { return false };
            let heads = &s.signature[at + s.name.len()..];
            heads.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).any(|word| word == implemented)
        }
        _ => false,
    }
}

fn sort_symbols(symbols: &mut Vec<Symbol>) {
    symbols.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start));
    symbols.dedup_by(|a, b| a.path == b.path && a.span == b.span);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(lang: Lang, src: &str) -> Vec<Symbol> {
        SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).map(|f| f.outline().to_vec()).unwrap_or_default()
    }

    fn implementers(lang: Lang, src: &str, name: &str) -> Vec<String> {
        outline(lang, src).iter().filter(|s| implements(s, name)).map(|s| s.name_path.to_string()).collect()
    }

    #[test]
    fn the_identifier_at_a_place_is_the_one_it_is_in_or_just_after() {
        let text = b"let x = make_it(a.b_c);";
        assert_eq!(identifier_at(text, 8), Some((8, "make_it".into())));
        assert_eq!(identifier_at(text, 12), Some((8, "make_it".into())));
        assert_eq!(identifier_at(text, 15), Some((8, "make_it".into())), "just after it");
        assert_eq!(identifier_at(text, 18), Some((18, "b_c".into())));
        assert_eq!(identifier_at(text, 7), None, "`=` stands between two spaces");
    }

    #[test]
    fn heads_that_implement_a_type_are_told_by_its_whole_name() {
        let rust = "trait Shape {}\nstruct Sq;\nimpl Shape for Sq {}\nimpl<T> geo::Shape<T> for Vec<T> {}\nimpl Sq {}\nimpl ShapeX for Sq {}\n";
        assert_eq!(implementers(Lang::Rust, rust, "Shape"), ["impl Shape for Sq", "impl geo::Shape<T> for Vec<T>"]);
        let ts = "interface Shape {}\nclass Sq implements Other, Shape {}\nclass Shapes {}\nclass Sub extends Sq {}\n";
        assert_eq!(implementers(Lang::TypeScript, ts, "Shape"), ["Sq"]);
        assert_eq!(implementers(Lang::TypeScript, ts, "Sq"), ["Sub"]);
        let py = "class Shape: pass\nclass Sq(Shape, metaclass=M): pass\nclass Shape2: pass\n";
        assert_eq!(implementers(Lang::Python, py, "Shape"), ["Sq"]);
    }
}
