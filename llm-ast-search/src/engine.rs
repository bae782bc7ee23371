//! The engine: the scope of files of a request, and each mode run over it.

use aide_core::color::TextOut;
use aide_core::tool::{Context, Outcome};
use aide_core::{AideError, Lang, Root};

use crate::error::AstError;
use crate::files::Scope;
use crate::lsp::CodeEngine;
use crate::outline_text::{OutlineView, counted_left_out, write_outline};
use crate::output::{AstOutput, FileValidation, Matching, Page, page};
use crate::refs::{self, Reference};
use crate::request::{AstRequest, Mode};
use crate::symbols::{self, NameMatch, Symbol, SymbolKind};
use crate::{query, resolve};

/// Results, how a name matched, the number of files parsed, diagnostics.
pub type Found<T> = (Vec<T>, Option<NameMatch>, usize, Vec<aide_core::Diagnostic>);

/// What a references lookup found, and which engine answered.
pub struct ReferencesFound {
    pub references: Vec<Reference>,
    pub matching: Matching,
    /// Files parsed.
    pub files: usize,
    pub diagnostics: Vec<aide_core::Diagnostic>,
    pub engine: CodeEngine,
}

/// Everything a run needs to read the tree.
pub struct Engine<'a> {
    pub root: &'a Root,
    pub request: &'a AstRequest,
    pub language: Option<Lang>,
    pub threads: usize,
    pub ctx: &'a Context,
}

impl Engine<'_> {
    pub(crate) fn scope(&self) -> Scope<'_> {
        Scope {
            root: self.root,
            paths: &self.request.paths,
            walk: &self.request.walk,
            language: self.language,
            threads: self.threads,
            ctx: self.ctx,
        }
    }

    /// The outline of every file, filtered by kind, name and depth.
    pub fn symbols(&self) -> Result<Found<Symbol>, AideError> {
        let kinds = self.kinds()?;
        let (per_file, diagnostics) = self.scope().map_files(None, |file, diags| {
            diags.extend(file.parse_diagnostic(self.ctx.voice));
            diags.extend(file.macro_diagnostic());
            self.outline_of(file, true, &kinds)
        })?;
        let files = per_file.len();
        let mut all: Vec<Symbol> = per_file.into_iter().flatten().collect();
        let mut how = None;
        if let Some(name) = &self.request.name {
            (all, how) = symbols::filter_by_name(all, name);
        }
        Ok((all, how, files, diagnostics))
    }

    /// The --kind filter, parsed.
    fn kinds(&self) -> Result<Vec<SymbolKind>, AideError> {
        self.request.kind.iter().map(|k| k.parse()).collect()
    }

    /// A file's symbols down to --depth (the walk stops there) of the kinds
    /// asked for (all when none).
    fn outline_of(&self, file: &crate::source::SourceFile, signatures: bool, kinds: &[SymbolKind]) -> Vec<Symbol> {
        let options = symbols::OutlineOptions { max_depth: self.request.depth, signatures, surface_only: false };
        let all = if signatures && options.max_depth.is_none() {
            // The file's memo: free on a file kept parsed between calls.
            file.outline().to_vec()
        } else {
            symbols::outline_of_file(file, options)
        };
        of_kinds(all, kinds)
    }

    /// The text outline, written to `w` file by file in path order as files
    /// are parsed, with --kind, --depth, --offset and --limit applied on the
    /// way; a full --limit page with more after it stops the parsing (the
    /// counts are then those up to there). A write error (a closed pipe)
    /// stops the printing, not the count.
    pub fn stream_symbols(
        &self,
        w: &mut TextOut<'_>,
        view: OutlineView,
    ) -> Result<(Page, usize, Vec<aide_core::Diagnostic>), AideError> {
        let kinds = self.kinds()?;
        let (offset, limit) = (self.request.offset, self.request.limit.unwrap_or(usize::MAX));
        let (mut total, mut files, mut printed, mut left_out) = (0usize, 0usize, 0usize, 0usize);
        let mut writing = true;
        let (diagnostics, cut_short) = self.scope().for_each_file(
            None,
            |file, diags| {
                diags.extend(file.parse_diagnostic(self.ctx.voice));
                if self.request.depth.is_some() {
                    // The count of unread macro bodies is the whole file's.
                    diags.extend(file.macro_diagnostic());
                    return self.outline_of(file, false, &kinds);
                }
                // The text outline shows no signatures: do not compute them,
                // and count the unread macro bodies in the same walk. The
                // surface walks the top level only, unless paging asks for
                // every symbol's place.
                let surface_only = view == OutlineView::Surface && offset == 0 && self.request.limit.is_none();
                let options = symbols::OutlineOptions { max_depth: None, signatures: false, surface_only };
                let (all, skipped) = symbols::outline_of_file_counted(file, options);
                diags.extend(file.macro_diagnostic_of(skipped));
                of_kinds(all, &kinds)
            },
            |symbols| {
                files += 1;
                let mut shown = Vec::new();
                for s in symbols {
                    total += 1;
                    if total <= offset || printed >= limit || !writing {
                        continue;
                    }
                    printed += 1;
                    shown.push(s);
                }
                if view == OutlineView::Surface {
                    left_out += shown.iter().filter(|s| counted_left_out(s)).count();
                }
                if writing && !shown.is_empty() {
                    writing &= write_outline(w, &shown, view).is_ok();
                }
                // A --limit page is full and more remain: no need to parse on.
                if self.request.limit.is_some() && printed >= limit && total > offset.saturating_add(printed) {
                    return std::ops::ControlFlow::Break(());
                }
                std::ops::ControlFlow::Continue(())
            },
        )?;
        let truncated = total > offset.saturating_add(printed) && printed >= limit;
        let next_offset = truncated.then_some(offset + printed);
        let page = Page { total, files_parsed: files, truncated, next_offset, totals_exact: !cut_short };
        Ok((page, left_out, diagnostics))
    }

    /// How the text outline shows the symbols: a folder's or several
    /// files' exported surface, unless the request names one file or asks
    /// for symbols (`--all`, `--kind`, `--name`, `--depth`); else every
    /// symbol, dense with `--compact`.
    pub(crate) fn outline_view(&self) -> OutlineView {
        let request = self.request;
        let asked = request.all || !request.kind.is_empty() || request.name.is_some() || request.depth.is_some();
        if !asked && !self.names_one_file() {
            OutlineView::Surface
        } else if request.compact {
            OutlineView::Compact
        } else {
            OutlineView::Full
        }
    }

    /// Whether the request's paths are one file (not a folder).
    fn names_one_file(&self) -> bool {
        match self.request.paths.as_slice() {
            [one] => self.root.resolve(one).is_ok_and(|abs| std::fs::metadata(abs).is_ok_and(|m| !m.is_dir())),
            _ => false,
        }
    }

    /// The definitions of `name` across the scope, at the best name-match
    /// tier. With `enough`, the files stop being parsed once more than that
    /// many exact definitions are in (no tier beats exact, so the first
    /// `enough` are certain, and more remain): the last value is then false
    /// — the count and the files are those up to there.
    pub fn definitions(&self, name: &str, enough: Option<usize>) -> Result<(Found<Symbol>, bool), AideError> {
        let (found, complete, _) = self.definitions_printing(name, enough, false)?;
        Ok((found, complete))
    }

    /// As [`Engine::definitions`]; with `print` (text and JSONL), the exact
    /// definitions inside the request's page are printed as their files
    /// come in path order — no tier beats exact, so each is certain when
    /// found. When some were, the first value holds just that page and the
    /// last is the count of every exact definition (`Some` only then).
    fn definitions_printing(
        &self,
        name: &str,
        enough: Option<usize>,
        print: bool,
    ) -> Result<(Found<Symbol>, bool, Option<usize>), AideError> {
        let needle = refs::last_identifier(name);
        if needle.is_empty() {
            return Err(AstError::EmptyName { example: "`MyClass` or `Agent/run`" }.into());
        }
        let (offset, limit) = (self.request.offset, self.request.limit.unwrap_or(usize::MAX));
        let (mut all, mut files, mut exact, mut shown) = (Vec::new(), 0usize, 0usize, Vec::new());
        let (diagnostics, cut_short) = self.scope().for_each_file(
            Some(needle.as_bytes()),
            |file, diags| {
                diags.extend(file.parse_diagnostic(self.ctx.voice));
                diags.extend(file.macro_diagnostic());
                refs::definitions_in(file, name)
            },
            |found: Vec<(NameMatch, Symbol)>| {
                files += 1;
                for (m, symbol) in found {
                    let is_exact = m == NameMatch::Exact;
                    if !(print && is_exact) {
                        all.push((m, symbol));
                    } else if exact >= offset && shown.len() < limit {
                        // A closed pipe ends the printing, not the run.
                        if let Some(mut live) = self.ctx.live() {
                            let _ = live.text_batch(|w| crate::output::write_definition(w, &symbol));
                        } else if let Some(mut live) = self.ctx.live_records() {
                            let _ = live.records("definition", std::slice::from_ref(&symbol), None);
                        }
                        shown.push(symbol);
                    }
                    exact += usize::from(is_exact);
                }
                if enough.is_some_and(|n| exact > n) {
                    return std::ops::ControlFlow::Break(());
                }
                std::ops::ControlFlow::Continue(())
            },
        )?;
        if print && exact > 0 {
            return Ok(((shown, Some(NameMatch::Exact), files, diagnostics), !cut_short, Some(exact)));
        }
        let best = all.iter().map(|(m, _)| *m).min();
        let defs = all.into_iter().filter(|(m, _)| Some(*m) == best).map(|(_, s)| s).collect();
        Ok(((defs, best, files, diagnostics), !cut_short, None))
    }

    /// The references of `name` (a name or name path): when it names one
    /// definition, its uses judged by scope, receiver and qualifier;
    /// otherwise every identifier spelled like it, `unresolved` when the
    /// name has several definitions.
    pub fn references_of(&self, name: &str, include_definitions: bool) -> Result<ReferencesFound, AideError> {
        self.references_of_query(
            &resolve::SymbolQuery { name: name.to_string(), ..Default::default() },
            include_definitions,
        )
    }

    /// [`Engine::references_of`] the definition `query` names (a name, narrowed by a file and a line).
    pub(crate) fn references_of_query(
        &self,
        query: &resolve::SymbolQuery,
        include_definitions: bool,
    ) -> Result<ReferencesFound, AideError> {
        let ident = query.ident().to_string();
        if ident.is_empty() {
            return Err(AstError::EmptyName { example: "`validateToken`" }.into());
        }
        let (facts, diagnostics) = self.scope().map_files(Some(ident.as_bytes()), |file, diags| {
            diags.extend(file.parse_diagnostic(self.ctx.voice));
            resolve::facts(file, query)
        })?;
        let files = facts.len();
        let mut diagnostics = diagnostics;
        let (sites, matching) = match resolve::Resolver::choose(query, &facts) {
            Ok(resolver) => {
                if !resolver.others().is_empty() {
                    diagnostics.push(others_named(&query.name, resolver.others()));
                }
                let definition = match resolver.target() {
                    resolve::Target::Symbol { defs, .. } => {
                        defs.iter().find_map(|d| d.name_span.map(|(start, _)| (d.path.to_string(), start)))
                    }
                    resolve::Target::Local { path, def } => Some((path.clone(), def.start)),
                };
                let sites = resolver.sites(facts);
                if let Some((path, at)) = definition.filter(|_| self.request.engine != CodeEngine::Syntax)
                    && let Some(found) =
                        self.server_references(&path, at, &ident, &sites, include_definitions, &mut diagnostics)
                {
                    return Ok(ReferencesFound {
                        references: found,
                        matching: Matching::Definition,
                        files,
                        diagnostics,
                        engine: CodeEngine::Lsp,
                    });
                }
                (sites, Matching::Definition)
            }
            Err(not_one) => {
                let several = matches!(not_one, resolve::NotOne::Several(_));
                let matched = if several { resolve::Resolution::Unresolved } else { resolve::Resolution::NameOnly };
                let mut sites: Vec<resolve::RawSite> = facts.into_iter().flat_map(|f| f.sites).collect();
                for s in &mut sites {
                    s.reference.matched = matched;
                }
                (sites, Matching::ByName)
            }
        };
        let references = sites
            .into_iter()
            .map(|s| s.reference)
            .filter(|r| include_definitions || r.kind != refs::RefKind::Definition)
            .collect();
        Ok(ReferencesFound { references, matching, files, diagnostics, engine: CodeEngine::Syntax })
    }

    /// The references to the identifiers `names` across the scope.
    pub fn references(
        &self,
        names: &[String],
        include_definitions: bool,
    ) -> Result<(Vec<Reference>, usize, Vec<aide_core::Diagnostic>), AideError> {
        let mut all = Vec::new();
        let mut files = 0;
        let mut diagnostics = Vec::new();
        for name in names {
            let ident = refs::last_identifier(name).to_string();
            if ident.is_empty() {
                return Err(AstError::EmptyName { example: "`validateToken`" }.into());
            }
            let (per_file, d) = self.scope().map_files(Some(ident.as_bytes()), |file, diags| {
                diags.extend(file.parse_diagnostic(self.ctx.voice));
                refs::references_in(file, &ident, include_definitions)
            })?;
            files += per_file.len();
            all.extend(per_file.into_iter().flatten());
            diagnostics.extend(d);
        }
        all.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.span.byte_start, &b.path, b.span.byte_start));
        all.dedup_by(|a, b| (&a.path, a.span.byte_start) == (&b.path, b.span.byte_start));
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        diagnostics.dedup_by(|a, b| a == b);
        Ok((all, files, diagnostics))
    }
}

/// Runs a request: opens its root in the context and runs its mode.
pub fn run(request: &AstRequest, ctx: &Context) -> Result<Outcome<AstOutput>, AideError> {
    let mode = request.mode()?;
    aide_core::request::check_limit(request.limit)?;
    let root = ctx.open_root(request.root.as_deref())?;
    let language =
        request.language.as_deref().map(str::parse::<Lang>).transpose().map_err(|e| e.about_field("language"))?;
    let mut notes = Vec::new();
    let threads = aide_core::walk::worker_threads(request.threads, &mut notes);
    let engine = Engine { root: &root, request, language, threads, ctx };
    let mut outcome = engine.run(mode)?;
    outcome.diagnostics.extend(notes);
    Ok(outcome)
}

impl Engine<'_> {
    fn run(&self, mode: Mode) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        match mode {
            Mode::Query => self.run_query(request.query.as_deref().unwrap_or_default()),
            Mode::Symbols => self.run_symbols(),
            Mode::Definitions => self.run_definitions(request.definitions.clone().unwrap_or_default()),
            Mode::References => self.run_references(request.references.clone().unwrap_or_default()),
            Mode::Implementations => {
                let name = request.implementations.clone().unwrap_or_default();
                let found = self.implementations_of(&name)?;
                let (definitions, page) = page(found.found, request, found.files);
                let output = AstOutput::Implementations { name, engine: found.engine, definitions, page };
                Ok(Outcome::with_diagnostics(output, found.diagnostics))
            }
            Mode::Hover => {
                let name = request.hover.clone().unwrap_or_default();
                let found = self.hover_of(&name)?;
                let (definitions, hover) = found.found.into_iter().unzip();
                let output = AstOutput::Hover { name, engine: found.engine, definitions, hover };
                Ok(Outcome::with_diagnostics(output, found.diagnostics))
            }
            Mode::Callers => self.run_callers(),
            Mode::Validate => self.run_validate(),
            Mode::Dialect => self.run_dialect(request.dialect.clone().unwrap_or_default()),
        }
    }

    /// `--query`: the tree-sitter query's captures in every file of the language.
    fn run_query(&self, text: &str) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        let Some(lang) = self.language else {
            return Err(AstError::QueryWithoutLanguage.into());
        };
        let compiled = query::compile(lang, text)?;
        let needle = query::required_literal(&compiled);
        let (per_file, diagnostics) = self.scope().map_files(needle.as_deref().map(str::as_bytes), |file, diags| {
            diags.extend(file.parse_diagnostic(self.ctx.voice));
            if let Some(too_deep) = query::too_deep_for(&compiled, file) {
                diags.push(too_deep);
                return Vec::new();
            }
            query::run(&compiled, file, request.max_text)
        })?;
        let files = per_file.len();
        let (symbols, page) = page(per_file.into_iter().flatten().collect(), request, files);
        Ok(Outcome::with_diagnostics(AstOutput::Query { symbols, page }, diagnostics))
    }

    /// `--symbols`: the outline, printed file by file where nothing is
    /// filtered by name and the output is live text.
    fn run_symbols(&self) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        // Asked once: it may look at the file system (one file or a folder).
        let view = self.outline_view();
        if request.name.is_none()
            && let Some(mut live) = self.ctx.live()
        {
            // Text outline: print file by file, holding nothing.
            let (page, left_out, diagnostics) = live.buffered(|w| self.stream_symbols(w, view))?;
            let output = AstOutput::Symbols {
                symbols: Vec::new(),
                name_match: None,
                page,
                streamed: true,
                view,
                streamed_left_out: left_out,
            };
            return Ok(Outcome::with_diagnostics(output, diagnostics));
        }
        let (all, name_match, files, diagnostics) = self.symbols()?;
        let (symbols, page) = page(all, request, files);
        let output = AstOutput::Symbols { symbols, name_match, page, streamed: false, view, streamed_left_out: 0 };
        Ok(Outcome::with_diagnostics(output, diagnostics))
    }

    /// `--definitions`: at a place (by the language server where there is
    /// one), or by name, printed as found where the output is live.
    fn run_definitions(&self, name: String) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        if let Some(place) = self.place_of(&name)? {
            let found = self.definitions_at(&place)?;
            let matching = if found.engine == CodeEngine::Lsp { Matching::Definition } else { Matching::ByName };
            let (definitions, page) = page(found.found, request, found.files);
            let output = AstOutput::Definitions {
                name,
                matching,
                engine: found.engine,
                name_match: None,
                definitions,
                page,
                printed: false,
            };
            return Ok(Outcome::with_diagnostics(output, found.diagnostics));
        }
        let enough = request.limit.map(|l| request.offset.saturating_add(l));
        let print = self.ctx.has_live() || self.ctx.live_records().is_some();
        let ((defs, name_match, files, diagnostics), complete, printed) =
            self.definitions_printing(&name, enough, print)?;
        let (definitions, mut page) = match printed {
            // Printed as found: the page is what was printed, of all the exact ones.
            Some(exact) => {
                let page = Page::of(exact, defs.len(), request, files);
                (defs, page)
            }
            None => page(defs, request, files),
        };
        page.totals_exact = complete;
        let output = AstOutput::Definitions {
            name,
            matching: Matching::ByName,
            engine: CodeEngine::Syntax,
            name_match,
            definitions,
            page,
            printed: printed.is_some(),
        };
        Ok(Outcome::with_diagnostics(output, diagnostics))
    }

    /// `--references`: at a place, or by name.
    fn run_references(&self, name: String) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        let found = match self.place_of(&name)? {
            Some(place) => self.references_at(&place, request.include_definition)?,
            None => self.references_of(&name, request.include_definition)?,
        };
        let ReferencesFound { references: all, matching, files, diagnostics, engine } = found;
        let (references, page) = page(all, request, files);
        let output = AstOutput::References {
            name,
            engine,
            matching,
            includes_definitions: request.include_definition,
            references,
            page,
        };
        Ok(Outcome::with_diagnostics(output, diagnostics))
    }

    /// `--validate`: each file's syntax errors (the files must be named).
    fn run_validate(&self) -> Result<Outcome<AstOutput>, AideError> {
        let request = self.request;
        if request.paths.is_empty() && request.walk.glob.is_empty() && request.root.is_none() {
            return Err(AstError::ValidateWithoutFiles.into());
        }
        let (files, diagnostics) = self.scope().map_files(None, |file, _| {
            let errors = file.syntax_issues();
            FileValidation { path: file.path.clone(), language: file.lang, valid: errors.is_empty(), errors }
        })?;
        let invalid_files = files.iter().filter(|f| !f.valid).count();
        let output = AstOutput::Validate { valid: invalid_files == 0, invalid_files, files };
        Ok(Outcome::with_diagnostics(output, diagnostics))
    }
}

/// The warning that `name` was read as the symbol whose name path it is
/// exactly, and which others share it: their uses are not in the answer.
fn others_named(name: &str, others: &[String]) -> aide_core::Diagnostic {
    let listed = others.iter().take(5).map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ");
    let more = others.len().saturating_sub(5);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    aide_core::Diagnostic::new(
        aide_core::envelope::diag::OTHERS_NAMED,
        format!(
            "`{name}` is read as the symbol of exactly that name path; also named so: {listed}{more}, whose uses are \
             not here (ask for one by its name path)"
        ),
    )
}

/// The symbols of the kinds asked for (all when none).
fn of_kinds(mut symbols: Vec<Symbol>, kinds: &[SymbolKind]) -> Vec<Symbol> {
    if !kinds.is_empty() {
        symbols.retain(|s| kinds.contains(&s.kind));
    }
    symbols
}
