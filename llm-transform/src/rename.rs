//! `rename_symbol`: a definition and its references, renamed as one edit.
//!
//! Which definition the request means and which uses mean it is
//! llm-ast-search's analysis (`llm_ast_search::resolve`), the same that
//! `--references` reports: locals by scope, members by receiver and
//! qualifier, free symbols by file and shadowing. Every site judged is
//! reported with how it matched; `unresolved` sites are left alone unless
//! `include_unresolved`, comments and strings unless
//! `in_comments_and_strings`.
//!
//! A new name already defined beside the symbol (same owner; same file and
//! parent; bound or used in a local's scope) is refused with
//! `name_collision`; a name with several definitions with `ambiguous`,
//! listing them by name path.

use std::collections::BTreeMap;
use std::sync::Mutex;

use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;
use aide_core::{AideError, Lang, Root};
use llm_ast_search::RefKind;
use llm_ast_search::SymbolKind;
use llm_ast_search::lsp::CodeEngine;
use llm_ast_search::{FileFacts, NotOne, Resolver, Symbol, SymbolQuery, Target, member_owner};
use llm_ast_search::{Locals, in_comment_or_string};
pub(crate) use llm_ast_search::{Resolution, SymbolScope};
use llm_ast_search::{SourceFile, is_token_at};
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{DefinitionCandidate, TransformError, UnresolvedSite};
use crate::request::RenameSymbolOp;
use crate::scan::{Edit, ScanCache, source_scope};

mod by_server;

/// One place a rename looked at.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameSite {
    pub path: String,
    pub line: usize,
    pub column: usize,
    /// In the file as read.
    pub byte_start: usize,
    pub byte_end: usize,
    pub kind: RefKind,
    pub matched: Resolution,
    /// In a comment or string (renamed only with `in_comments_and_strings`).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub in_comment_or_string: bool,
    pub renamed: bool,
    /// The line, for a reader deciding about an unresolved site.
    pub line_text: String,
}

/// A site a rename would leave, as its refusal lists it.
impl From<&RenameSite> for UnresolvedSite {
    fn from(s: &RenameSite) -> UnresolvedSite {
        UnresolvedSite { path: s.path.clone(), line: s.line, column: s.column, line_text: s.line_text.clone() }
    }
}

/// What a rename did: the definition it found and every site it judged.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameReport {
    pub name: String,
    pub new_name: String,
    pub scope: SymbolScope,
    /// The definition's name path (a local's is its name).
    pub name_path: String,
    pub kind: Option<SymbolKind>,
    /// Where it is defined (a C/C++ prototype and its definition are two).
    pub defined_in: Vec<String>,
    pub renamed: usize,
    /// Sites listed as `unresolved` and left alone.
    pub unresolved: usize,
    /// Who found the sites: `syntax`, or `lsp` (the language's server).
    pub engine: CodeEngine,
    pub sites: Vec<RenameSite>,
}

/// A rename, checked and ready to plan.
pub(crate) struct PreparedRename {
    op: RenameSymbolOp,
    query: SymbolQuery,
    walk: aide_core::walk::WalkArgs,
    /// Definitions of the new name seen while looking for candidates.
    new_name_definitions: Mutex<Vec<Existing>>,
    /// What each candidate file tells about the name, worked out while
    /// finding it: the locked content, if unchanged, is not parsed again.
    found: ScanCache<FileFacts>,
}

/// A definition of the new name already in the tree.
#[derive(Debug, Clone)]
struct Existing {
    path: String,
    line: usize,
    parent: Option<String>,
    owner: Option<String>,
}

/// The edits of a rename, by file, and its report.
pub(crate) struct RenamePlan {
    pub edits: BTreeMap<String, Vec<Edit>>,
    pub report: RenameReport,
    pub diagnostics: Vec<Diagnostic>,
}

impl PreparedRename {
    pub(crate) fn new(op: &RenameSymbolOp) -> Result<PreparedRename, AideError> {
        let query = SymbolQuery {
            name: op.name.clone(),
            path: op.path.clone(),
            line_hint: op.line_hint,
            comments_and_strings: op.in_comments_and_strings,
        };
        if query.ident().is_empty() {
            return Err(TransformError::NoDefinition { name: op.name.clone() }.into());
        }
        if !aide_core::request::is_identifier(&op.new_name) || op.new_name == query.ident() {
            return Err(TransformError::InvalidNewName { name: op.new_name.clone() }.into());
        }
        Ok(PreparedRename {
            op: op.clone(),
            query,
            walk: op.scope.walk_args(),
            new_name_definitions: Mutex::new(Vec::new()),
            found: Default::default(),
        })
    }

    /// The source files that spell the name (they are the ones to edit),
    /// having noted on the way where the new name is already defined.
    pub(crate) fn candidates(&self, root: &Root, ctx: &Context) -> Result<(Vec<String>, Vec<Diagnostic>), AideError> {
        let scope = source_scope(root, &self.walk, None, ctx);
        let new_name = self.op.new_name.as_str();
        let (existing, _) = scope.map_files(Some(new_name.as_bytes()), |file, _| {
            file.outline()
                .iter()
                .filter(|s| s.name == new_name)
                .map(|s| Existing {
                    path: file.path.clone(),
                    line: s.span.line,
                    parent: s.parent.as_deref().map(str::to_string),
                    owner: member_owner(file, s),
                })
                .collect::<Vec<_>>()
        })?;
        *aide_core::sync::lock(&self.new_name_definitions) = existing.into_iter().flatten().collect();
        let (files, diagnostics) = scope.map_files(Some(self.query.ident().as_bytes()), |file, _| {
            self.found.keep(file, llm_ast_search::file_facts(file, &self.query));
            file.path.clone()
        })?;
        Ok((files, diagnostics))
    }

    /// Plans the rename over `files` (every candidate's current content):
    /// the definition resolved, its new name checked for collisions, the
    /// sites found (by a language server where one answers, else by
    /// syntax), comments that name it by convention followed, the edits.
    pub(crate) fn plan(&self, root: &Root, files: &[(String, Vec<u8>)]) -> Result<RenamePlan, AideError> {
        let (resolver, facts) = self.resolve(files)?;
        // A local's collisions are looked for in its own file's scopes.
        let target_file = match resolver.target() {
            Target::Local { path, .. } => {
                files.iter().find(|(rel, _)| rel == path).and_then(|(rel, bytes)| parse(rel, bytes))
            }
            Target::Symbol { .. } => None,
        };
        self.check_collision(target_file.as_ref(), resolver.target())?;
        let syntax_sites = self.syntax_sites(&resolver, facts);
        let mut diagnostics = Vec::new();
        let (engine, mut sites, texts) =
            self.sites_to_rename(root, &resolver, syntax_sites, files, &mut diagnostics)?;
        let mut edits: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
        for (s, text) in sites.iter().zip(texts).filter(|(s, _)| s.renamed) {
            edits.entry(s.path.clone()).or_default().push(Edit {
                start: s.byte_start,
                end: s.byte_end,
                text: text.into_bytes(),
            });
        }
        if let Target::Symbol { defs, owner } = resolver.target() {
            self.follow_doc_mentions(files, (defs, owner.as_deref()), &mut sites, &mut edits);
        }
        for file_edits in edits.values_mut() {
            file_edits.sort_by_key(|e| (e.start, e.end));
        }
        let (name_path, kind) = resolver.name_path();
        let report = RenameReport {
            name: self.op.name.clone(),
            new_name: self.op.new_name.clone(),
            scope: resolver.scope(),
            name_path,
            kind,
            defined_in: resolver.defined_in().to_vec(),
            renamed: sites.iter().filter(|s| s.renamed).count(),
            unresolved: sites.iter().filter(|s| !s.renamed).count(),
            engine,
            sites,
        };
        Ok(RenamePlan { edits, report, diagnostics })
    }

    /// The definition the rename is of, from every file's facts (the
    /// scan's where the content is as it read it; else parsed anew).
    fn resolve(&self, files: &[(String, Vec<u8>)]) -> Result<(Resolver, Vec<FileFacts>), AideError> {
        let facts: Vec<FileFacts> = files
            .iter()
            .filter_map(|(rel, bytes)| {
                self.found
                    .take(rel, bytes)
                    .or_else(|| parse(rel, bytes).map(|f| llm_ast_search::file_facts(&f, &self.query)))
            })
            .collect();
        let resolver = Resolver::choose(&self.query, &facts).map_err(|e| match e {
            NotOne::None => TransformError::NoDefinition { name: self.op.name.clone() },
            NotOne::Several(listed) => TransformError::AmbiguousDefinition {
                name: self.op.name.clone(),
                candidates: listed
                    .into_iter()
                    .map(|c| DefinitionCandidate { path: c.path, name_path: c.name_path, kind: c.kind, line: c.line })
                    .collect(),
            },
        })?;
        Ok((resolver, facts))
    }

    /// Every site syntax finds, each marked renamed unless it is
    /// unresolved and the request did not take those.
    fn syntax_sites(&self, resolver: &Resolver, facts: Vec<FileFacts>) -> Vec<RenameSite> {
        resolver
            .sites(facts)
            .into_iter()
            .map(|s| {
                let r = s.reference;
                RenameSite {
                    path: r.path,
                    line: r.span.line,
                    column: r.span.column,
                    byte_start: r.span.byte_start,
                    byte_end: r.span.byte_end,
                    kind: r.kind,
                    matched: r.matched,
                    in_comment_or_string: s.in_comment_or_string,
                    renamed: r.matched != Resolution::Unresolved || self.op.include_unresolved,
                    line_text: r.line_text,
                }
            })
            .collect()
    }

    /// The sites to rename and the text each gets, and the engine that
    /// found them: a language server's where the request allows one and it
    /// answers, else syntax's. A syntax site that may mean another
    /// definition is never left behind silently: the caller says what to
    /// do with it.
    fn sites_to_rename(
        &self,
        root: &Root,
        resolver: &Resolver,
        syntax_sites: Vec<RenameSite>,
        files: &[(String, Vec<u8>)],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Result<(CodeEngine, Vec<RenameSite>, Vec<String>), AideError> {
        let by_server = match self.op.engine.unwrap_or_default() {
            CodeEngine::Syntax => None,
            CodeEngine::Lsp | CodeEngine::Auto => {
                self.server_sites(root, resolver.target(), &syntax_sites, files, diagnostics)?
            }
        };
        if let Some((sites, texts)) = by_server {
            return Ok((CodeEngine::Lsp, sites, texts));
        }
        let left: Vec<UnresolvedSite> = syntax_sites
            .iter()
            .filter(|s| s.matched == Resolution::Unresolved && !s.renamed)
            .map(UnresolvedSite::from)
            .collect();
        if !left.is_empty() && !self.op.skip_unresolved {
            let server = std::mem::take(diagnostics);
            return Err(TransformError::UnresolvedSites { name: self.op.name.clone(), sites: left, server }.into());
        }
        let texts = vec![self.op.new_name.clone(); syntax_sites.len()];
        Ok((CodeEngine::Syntax, syntax_sites, texts))
    }

    /// Comments that name the symbol by convention (Go doc comments, Rust
    /// intra-doc links)
    /// follow it: each becomes a renamed site and an edit, unless a site
    /// already covers it.
    fn follow_doc_mentions(
        &self,
        files: &[(String, Vec<u8>)],
        (defs, owner): (&[Symbol], Option<&str>),
        sites: &mut Vec<RenameSite>,
        edits: &mut BTreeMap<String, Vec<Edit>>,
    ) {
        for (rel, bytes) in files {
            for (start, end) in doc_mentions(rel, bytes, &self.op.name_leaf(), defs, owner) {
                if sites
                    .iter()
                    .any(|s| s.path == *rel && s.byte_start < end && start < s.byte_end.max(s.byte_start + 1))
                {
                    continue;
                }
                let index = aide_core::LineIndex::new(bytes);
                let at = index.span(bytes, start, end);
                sites.push(RenameSite {
                    path: rel.clone(),
                    line: at.line,
                    column: at.column,
                    byte_start: start,
                    byte_end: end,
                    kind: RefKind::Usage,
                    matched: Resolution::Resolved,
                    in_comment_or_string: true,
                    renamed: true,
                    line_text: index.line_text(bytes, at.line, 200),
                });
                let text = self.op.new_name.clone().into_bytes();
                edits.entry(rel.clone()).or_default().push(Edit { start, end, text });
            }
        }
        sites.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.byte_start, &b.path, b.byte_start));
    }

    /// Refuses a new name that is already defined where the symbol lives.
    fn check_collision(&self, local_file: Option<&SourceFile>, target: &Target) -> Result<(), AideError> {
        let new_name = self.op.new_name.as_str();
        let collision = |name_path: String, path: &str, line: usize| -> AideError {
            TransformError::NameCollision { name_path, new_name: new_name.to_string(), path: path.to_string(), line }
                .into()
        };
        match target {
            Target::Local { def, .. } => {
                let Some(f) = local_file else { return Ok(()) };
                let locals = Locals::of(f);
                // A binding of the new name in the same scope, or a use of
                // the new name in it (it would be captured).
                let inside = |at: usize| def.scope_start <= at && at < def.scope_end;
                if let Some(other) = locals.defs().iter().find(|d| d.name == new_name && inside(d.start)) {
                    return Err(collision(def.name.clone(), &f.path, f.index.line_of(other.start)));
                }
                for at in memchr::memmem::find_iter(&f.source, new_name.as_bytes()).filter(|&at| inside(at)) {
                    if is_token_at(&f.source, at, new_name.len()) && !in_comment_or_string(f, at) {
                        return Err(collision(def.name.clone(), &f.path, f.index.line_of(at)));
                    }
                }
                Ok(())
            }
            Target::Symbol { defs, owner } => {
                let existing = aide_core::sync::lock(&self.new_name_definitions).clone();
                for e in &existing {
                    let clash = match owner {
                        Some(owner) => e.owner.as_deref() == Some(owner.as_str()),
                        None => defs.iter().any(|s| *s.path == *e.path && s.parent.as_deref() == e.parent.as_deref()),
                    };
                    if clash {
                        return Err(collision(defs[0].name_path.to_string(), &e.path, e.line));
                    }
                }
                Ok(())
            }
        }
    }
}

impl RenameSymbolOp {
    /// The symbol's own name: the last part of a name path (`Agent/run` → `run`).
    fn name_leaf(&self) -> String {
        let leaf = self.name.rsplit(['/', '.']).next().unwrap_or(&self.name);
        leaf.rsplit("::").next().unwrap_or(leaf).trim().to_string()
    }
}

/// Where a file's comments name the symbol by its language's convention,
/// as byte spans of the name: Go's doc comment of a definition, whose first
/// word is the name (`// Name does…`), and Rust's intra-doc links in `///`
/// and `//!` comments (`[`Name`]`, `[Name]`, `[`Owner::name`]`, a member's
/// only with its owner's name).
fn doc_mentions(rel: &str, bytes: &[u8], name: &str, defs: &[Symbol], owner: Option<&str>) -> Vec<(usize, usize)> {
    let Ok(text) = std::str::from_utf8(bytes) else { return Vec::new() };
    let index = aide_core::LineIndex::new(bytes);
    let mut out = Vec::new();
    if rel.ends_with(".go") {
        for d in defs.iter().filter(|d| *d.path == *rel) {
            // The comment block right above the definition, from its first line.
            let mut first = None;
            let mut line = d.span.line;
            while line > 1 {
                let Some(range) = index.line_content_range(bytes, line - 1) else { break };
                if !text[range.clone()].trim_start().starts_with("//") {
                    break;
                }
                first = Some(range);
                line -= 1;
            }
            let Some(range) = first else { continue };
            let body = &text[range.clone()];
            let slashes = body.find("//").unwrap_or(0) + 2;
            let word_at = slashes + body[slashes..].len() - body[slashes..].trim_start().len();
            let after = word_at + name.len();
            let is_word = body[word_at..].starts_with(name)
                && !body[after..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            if is_word {
                out.push((range.start + word_at, range.start + after));
            }
        }
    }
    if rel.ends_with(".rs") {
        let owner_leaf = owner.map(|o| o.rsplit([' ', '/', ':']).next().unwrap_or(o));
        for line in 1..=index.line_count() {
            let Some(range) = index.line_content_range(bytes, line) else { continue };
            let body = &text[range.clone()];
            let trimmed = body.trim_start();
            if !(trimmed.starts_with("///") || trimmed.starts_with("//!")) {
                continue;
            }
            let mut from = 0;
            while let Some(open) = body[from..].find('[').map(|i| from + i) {
                let Some(close) = body[open..].find(']').map(|i| open + i) else { break };
                from = close + 1;
                let inner = &body[open + 1..close];
                let link = inner.trim_matches('`');
                let link = link.strip_suffix("()").or_else(|| link.strip_suffix('!')).unwrap_or(link);
                let mut parts: Vec<&str> = link.split("::").collect();
                let Some(last) = parts.pop() else { continue };
                if last != name || link.is_empty() {
                    continue;
                }
                let qualifier_ok = match (owner_leaf, parts.last()) {
                    (Some(o), Some(q)) => *q == o,
                    (Some(_), None) => false,
                    (None, _) => true,
                };
                if !qualifier_ok {
                    continue;
                }
                // The name's own place in the link text.
                let offset = inner.find('`').map_or(0, |_| inner.len() - inner.trim_start_matches('`').len());
                let start = open + 1 + offset + link.len() - name.len();
                out.push((range.start + start, range.start + start + name.len()));
            }
        }
    }
    out
}

/// A file parsed as its language, if it has one and parses.
fn parse(rel: &str, bytes: &[u8]) -> Option<SourceFile> {
    let lang = Lang::from_path_and_content(std::path::Path::new(rel), bytes)?;
    SourceFile::parse(rel.to_string(), lang, bytes.to_vec()).ok()
}
