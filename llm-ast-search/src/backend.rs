//! The Dialect's backend: its questions (definitions, references, callers,
//! a search, lines of a file) answered by the engine over the request's
//! scope, and the Dialect's ranges made from spans.

use aide_core::AideError;
use aide_core::tool::Outcome;

use crate::dialect::{self, Definition, LineRange, Point, Range, ReferenceSite, SearchMatch};
use crate::engine::Engine;
use crate::error::AstError;
use crate::lsp::CodeEngine;
use crate::output::AstOutput;

impl Engine<'_> {
    /// Runs a Dialect program against this engine.
    pub(crate) fn run_dialect(&self, program: String) -> Result<Outcome<AstOutput>, AideError> {
        let backend = DialectBackend { engine: self, diagnostics: Default::default() };
        let value = dialect::run(&program, &backend)?;
        let mut diagnostics = backend.diagnostics.into_inner();
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        diagnostics.dedup_by(|a, b| a == b);
        Ok(Outcome::with_diagnostics(AstOutput::Dialect { program, value }, diagnostics))
    }
}

fn point(line: usize, column: usize) -> Point {
    Point { line, column }
}

pub(crate) fn range_of(path: &str, span: &aide_core::Span) -> Range {
    Range::new(path, point(span.line, span.column), point(span.end_line, span.end_column))
}

/// The Dialect's questions, answered by the engine over its scope.
struct DialectBackend<'a> {
    engine: &'a Engine<'a>,
    diagnostics: std::cell::RefCell<Vec<aide_core::Diagnostic>>,
}

impl dialect::Backend for DialectBackend<'_> {
    fn definitions(&self, name: &str) -> Result<Vec<Definition>, AideError> {
        let ((defs, _, _, d), _) = self.engine.definitions(name, None)?;
        self.diagnostics.borrow_mut().extend(d);
        Ok(defs
            .iter()
            .map(|s| Definition {
                name: s.name.to_string(),
                kind: s.kind,
                name_path: s.name_path.to_string(),
                defined_at: range_of(&s.path, &s.span),
            })
            .collect())
    }

    fn references(&self, names: &[String]) -> Result<Vec<ReferenceSite>, AideError> {
        let refs = if self.engine.request.engine == CodeEngine::Syntax {
            let (refs, _, d) = self.engine.references(names, false)?;
            self.diagnostics.borrow_mut().extend(d);
            refs
        } else {
            // Each name as `--references NAME --engine …` answers it: its server's where it can.
            let mut all = Vec::new();
            for name in names {
                let found = self.engine.references_of(name, false)?;
                self.diagnostics.borrow_mut().extend(found.diagnostics);
                all.extend(found.references);
            }
            all.sort_by(|a, b| {
                aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start)
            });
            all.dedup_by(|a, b| (&a.path, a.span.byte_start) == (&b.path, b.span.byte_start));
            all
        };
        Ok(refs
            .into_iter()
            .map(|r| ReferenceSite {
                range: range_of(&r.path, &r.span),
                name: r.name,
                kind: r.kind,
                enclosing: r.enclosing,
                text: r.line_text,
            })
            .collect())
    }

    fn callers(&self, names: &[String]) -> Result<Vec<dialect::CallerSite>, AideError> {
        let (callers, d) = self.engine.dialect_callers(names)?;
        self.diagnostics.borrow_mut().extend(d);
        Ok(callers)
    }

    fn search(&self, path: &str, pattern: &str, glob: Option<&str>) -> Result<Vec<SearchMatch>, AideError> {
        let root = self.engine.root;
        let abs = root.resolve(path)?;
        let meta = std::fs::metadata(&abs)
            .map_err(|e| AstError::PathUnreadable { path: path.to_string(), message: e.to_string() })?;
        let rel = root.relative(&abs).unwrap_or_else(|| path.to_string());
        let at_root = rel == "." || rel.is_empty();
        let glob = match glob {
            Some(g) if g.starts_with('!') => return Err(AstError::ExcludingGlob { glob: g.to_string() }.into()),
            // The old form, an extension: `rs` or `.rs` is `*.rs`.
            Some(g) if !g.contains(['*', '?', '[', '{', '/']) => {
                let ext = g.trim_start_matches('.');
                self.diagnostics.borrow_mut().push(aide_core::Diagnostic::new(
                    "deprecated_name",
                    format!("search()'s third argument is a glob: `{g}` is read as `*.{ext}`; write `*.{ext}`"),
                ));
                Some(format!("*.{}", escape_glob(ext)))
            }
            Some(g) => Some(g.to_string()),
            None => None,
        };
        // One glob (whitelist globs are alternatives, so they cannot be
        // combined): the folder's files that match the caller's glob, which
        // is relative to the folder (a glob without `/` matches at any depth).
        let under = |glob: &str| {
            if glob.contains('/') { glob.trim_start_matches('/').to_string() } else { format!("**/{glob}") }
        };
        let glob = match (meta.is_dir(), at_root, glob) {
            (false, _, _) => Some(format!("/{}", escape_glob(&rel))),
            (true, true, None) => None,
            (true, true, Some(glob)) => Some(if glob.contains('/') { format!("/{}", under(&glob)) } else { glob }),
            (true, false, None) => Some(format!("/{}/**", escape_glob(&rel))),
            (true, false, Some(glob)) => Some(format!("/{}/{}", escape_glob(&rel), under(&glob))),
        };
        let mut request = llm_search::SearchRequest { pattern: vec![pattern.to_string()], ..Default::default() };
        request.walk = self.engine.request.walk.clone();
        request.walk.glob = glob.into_iter().collect();
        request.threads = Some(self.engine.threads);
        let found = llm_search::search(root, &request, &self.engine.ctx.nested())?;
        self.diagnostics.borrow_mut().extend(found.diagnostics);
        Ok(found
            .output
            .matches
            .into_iter()
            .map(|m| SearchMatch { range: range_of(&m.path, &m.span), matched: m.text, text: m.line_text })
            .collect())
    }

    fn lines(&self, path: &str, start: usize, end: usize) -> Result<LineRange, AideError> {
        let content = llm_read::read_file(self.engine.root, path, (start - 1, end - start + 1), false, 0)?;
        if content.start_line == 0 {
            return Err(AstError::NoSuchLine { path: path.to_string(), line_count: content.line_count, start }.into());
        }
        let last = content.content.lines().last().unwrap_or("");
        let end = point(content.end_line, last.chars().count() + 1);
        let range = Range::new(path, point(content.start_line, 1), end);
        Ok(LineRange { range, content: content.content })
    }
}

/// Escapes glob metacharacters so a path matches only itself.
fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
