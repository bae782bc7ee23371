//! Answers that need types: references judged by a language server,
//! implementations, hover. The syntax engine finds the definition (a name
//! is not a position); the language's server, where the request's engine
//! allows one and one is installed, is asked about that position, and its
//! places become aide's records. Without a server (or when it fails) the
//! syntax engine answers as best it can, and a diagnostic says so.

use std::collections::HashMap;
use std::path::Path;

use aide_core::envelope::diag;
use aide_core::{AideError, Diagnostic, Lang};

use crate::engine::Engine;
use crate::lsp::{self, CodeEngine, LspFailure, ServerSpec};
use crate::refs::{self, Reference};
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
    /// installed (said only when `lsp` was asked for), or it failed.
    fn ask_server<T>(
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
            if self.request.engine == CodeEngine::Lsp {
                diagnostics.push(Diagnostic::new(
                    diag::LSP_UNAVAILABLE,
                    format!(
                        "no {lang} language server on PATH (or {}): the syntax engine answered",
                        lsp::env_name(lang)
                    ),
                ));
            }
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
    /// a diagnostic, when no server can answer (the syntax engine then does).
    pub(crate) fn server_references(
        &self,
        path: &str,
        at: usize,
        ident: &str,
        syntax: &[resolve::RawSite],
        include_definitions: bool,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Reference>> {
        let located =
            self.ask_server(path, diagnostics, |spec| lsp::references(self.root, spec, path, at, include_definitions))?;
        let mut parsed = Parsed::default();
        let mut out = Vec::new();
        for place in located {
            let known =
                syntax.iter().find(|s| s.reference.path == place.path && s.reference.span.byte_start == place.start);
            let mut reference = match known {
                Some(site) => site.reference.clone(),
                None => {
                    let Some(file) = parsed.file(self, &place.path) else { continue };
                    let kind = if place.path == path && place.start == at {
                        refs::RefKind::Definition
                    } else {
                        refs::RefKind::Usage
                    };
                    refs::reference_at(file, ident, kind, place.start, place.end)
                }
            };
            reference.matched = resolve::Resolution::Resolved;
            if include_definitions || reference.kind != refs::RefKind::Definition {
                out.push(reference);
            }
        }
        Some(out)
    }

    /// What implements `name`'s definitions: of a trait, interface or
    /// class, the impl blocks and types that implement or extend it; of one
    /// of its methods, their methods of that name. A server answers by
    /// types (every level); the syntax engine by the declarations' heads
    /// (`impl T for X`, `class X(T)`, `implements T`, `extends T`, `: public T`),
    /// one level, and not Go's implicit interfaces.
    pub fn implementations_of(&self, name: &str) -> Result<TypedFound<Symbol>, AideError> {
        let ((defs, _, files, mut diagnostics), _) = self.definitions(name, None)?;
        let mut parsed = Parsed::default();
        let mut by_server: Option<Vec<Symbol>> = None;
        for def in &defs {
            let Some((at, _)) = def.name_span else { continue };
            let path = def.path.to_string();
            let Some(located) =
                self.ask_server(&path, &mut diagnostics, |spec| lsp::implementations(self.root, spec, &path, at))
            else {
                by_server = None;
                break;
            };
            let found = by_server.get_or_insert_with(Vec::new);
            for place in located {
                let Some(file) = parsed.file(self, &place.path) else { continue };
                let outline = file.outline();
                // The implementing item is the innermost one holding the place (an impl block, a class, a method).
                if let Some(symbol) = crate::symbols::enclosing(outline, place.start)
                    && !(symbol.path == def.path && symbol.span == def.span)
                {
                    found.push(symbol.clone());
                }
            }
        }
        if let Some(mut found) = by_server {
            sort_symbols(&mut found);
            return Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Lsp });
        }
        let mut found = Vec::new();
        let mut files = files;
        for def in &defs {
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
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        diagnostics.dedup_by(|a, b| a == b);
        Ok(TypedFound { found, files, diagnostics, engine: CodeEngine::Syntax })
    }

    /// `name`'s definitions, each with what hovering its name shows: the
    /// server's type, signature and documentation; without a server, its
    /// declaration head (the syntax engine's signature).
    pub fn hover_of(&self, name: &str) -> Result<TypedFound<(Symbol, String)>, AideError> {
        let ((defs, _, files, mut diagnostics), _) = self.definitions(name, None)?;
        // Asked while it answers: once it did not, the syntax engine answers the rest.
        let mut server_answers = self.request.engine != CodeEngine::Syntax;
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
