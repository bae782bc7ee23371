//! `rename_symbol`: a definition and its references, renamed as one edit.
//!
//! The definition is found by name or name path (llm-ast-search's
//! definitions), or, for a local variable or parameter, by `path` and
//! `line_hint` among the file's local bindings. Then every identifier
//! spelled like it (never in a comment or string unless asked) is judged:
//!
//! * a **local** is renamed where its scope's resolution leads to it;
//! * a **member** (method, field, variant) is renamed at `x.name` and
//!   `Type::name` sites whose receiver is known to be its owner (`self`,
//!   `this`, a Go receiver, the owner's own name) — `resolved` — or, when no
//!   other definition in the tree has the name, at every member site —
//!   `name_only`; any other member site is `unresolved`: listed, left alone
//!   unless `include_unresolved`;
//! * a **free** symbol (function, type, constant, module-level name) is
//!   renamed at bare and path-qualified uses that no local binding shadows:
//!   `resolved` in the files that define it, `name_only` elsewhere when the
//!   name is defined once in the tree, `unresolved` otherwise.
//!
//! A new name already defined beside the symbol (same owner, same file and
//! parent, or visible in a local's scope) is refused with `name_collision`;
//! a name with several definitions is refused with `ambiguous`, listing
//! them by name path.

use std::collections::BTreeMap;
use std::sync::Mutex;

use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;
use aide_core::{AideError, Lang, Root};
use llm_ast_search::files::SourceFile;
use llm_ast_search::refs::{RefKind, last_identifier};
use llm_ast_search::scopes::{Access, LocalDef, Locals, access_at, in_comment_or_string, self_names};
use llm_ast_search::symbols::{NameMatch, Symbol, SymbolKind};
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{DefinitionCandidate, TransformError};
use crate::request::RenameSymbolOp;
use crate::tree::Edit;

/// How a rename site was tied to the symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// The definition itself, or a use whose binding (scope, receiver,
    /// qualifier, file) leads to it.
    Resolved,
    /// Spelled like it, and no other definition in the tree has the name.
    NameOnly,
    /// Spelled like it, but it may mean another definition of the name:
    /// left alone unless `include_unresolved`.
    Unresolved,
}

/// What kind of symbol is renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolScope {
    /// A parameter or variable inside a function.
    Local,
    /// A method, field or variant of a type.
    Member,
    /// A function, type, constant or other module-level name.
    Free,
}

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
    pub sites: Vec<RenameSite>,
}

/// A rename, checked and ready to plan.
pub struct PreparedRename {
    op: RenameSymbolOp,
    ident: String,
    walk: aide_core::walk::WalkArgs,
    /// Definitions of the new name seen while looking for candidates:
    /// (path, line, name path, owner).
    new_name_definitions: Mutex<Vec<(String, usize, String, Option<String>, Option<String>)>>,
}

/// The edits of a rename, by file, and its report.
pub struct RenamePlan {
    pub edits: BTreeMap<String, Vec<Edit>>,
    pub report: RenameReport,
}

/// The type a member belongs to, from its parent's name path:
/// `impl Agent` → `Agent`, `impl Display for Agent<T>` → `Agent`,
/// `(*Command)` → `Command`, `pkg/Client` → `Client`.
fn owner_of(parent: &str) -> String {
    let last = parent.rsplit('/').next().unwrap_or(parent);
    let last = last.rsplit(" for ").next().unwrap_or(last);
    let last = strip_impl(last);
    let last = last.trim_start_matches("(*").trim_start_matches('(').trim_end_matches(')');
    let base = last.split('<').next().unwrap_or(last);
    base.rsplit("::").next().unwrap_or(base).trim().to_string()
}

/// `impl<T> Stack<T>` → `Stack<T>`, `impl Agent` → `Agent`.
fn strip_impl(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("impl") else { return s.trim() };
    let rest = rest.trim_start();
    if !rest.starts_with('<') {
        return rest;
    }
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return rest[i + 1..].trim();
                }
            }
            _ => {}
        }
    }
    rest
}

/// Kinds whose children are members.
fn is_type_kind(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Impl
            | SymbolKind::Trait
            | SymbolKind::Interface
            | SymbolKind::Enum
            | SymbolKind::Union
    )
}

/// The owner type of a symbol, if it is a member of one.
fn member_owner(file: &SourceFile, s: &Symbol) -> Option<String> {
    let parent = s.parent.as_deref()?;
    let parent_kind = file.outline().iter().find(|p| &*p.name_path == parent).map(|p| p.kind);
    let member = match parent_kind {
        Some(k) => is_type_kind(k),
        // A Go method's parent is its receiver, not a symbol of the file.
        None => s.kind == SymbolKind::Method,
    };
    member.then(|| owner_of(parent))
}

/// The last segment of a qualifier: `crate::agent::Agent` → `Agent`, `Vec<T>` → `Vec`.
fn last_segment(q: &str) -> &str {
    let q = q.split('<').next().unwrap_or(q);
    let q = q.rsplit("::").next().unwrap_or(q);
    q.rsplit('.').next().unwrap_or(q).trim()
}

/// Where the target is defined.
enum Target {
    Local { file: usize, def: LocalDef },
    Symbol { defs: Vec<(usize, Symbol)>, owner: Option<String> },
}

impl PreparedRename {
    pub fn new(op: &RenameSymbolOp) -> Result<PreparedRename, AideError> {
        let ident = last_identifier(&op.name).to_string();
        if ident.is_empty() {
            return Err(TransformError::NoDefinition { name: op.name.clone() }.into());
        }
        if !aide_core::request::is_identifier(&op.new_name) || op.new_name == ident {
            return Err(TransformError::InvalidNewName { name: op.new_name.clone() }.into());
        }
        Ok(PreparedRename {
            op: op.clone(),
            ident,
            walk: op.scope.walk_args(),
            new_name_definitions: Mutex::new(Vec::new()),
        })
    }

    /// The source files that spell the name (they are the ones to edit),
    /// having noted on the way where the new name is already defined.
    pub fn candidates(&self, root: &Root, ctx: &Context) -> Result<(Vec<String>, Vec<Diagnostic>), AideError> {
        let scope = crate::tree::source_scope(root, &self.walk, None, ctx);
        let new_name = self.op.new_name.as_str();
        let (existing, _) = scope.map_files(Some(new_name.as_bytes()), |file, _| {
            file.outline()
                .iter()
                .filter(|s| s.name == new_name)
                .map(|s| {
                    let parent = s.parent.as_deref().map(str::to_string);
                    (file.path.clone(), s.span.line, s.name_path.to_string(), parent, member_owner(file, s))
                })
                .collect::<Vec<_>>()
        })?;
        *aide_core::walk::lock(&self.new_name_definitions) = existing.into_iter().flatten().collect();
        let (files, diagnostics) = scope.map_files(Some(self.ident.as_bytes()), |file, _| file.path.clone())?;
        Ok((files, diagnostics))
    }

    /// Plans the rename over `files` (every candidate's current content).
    pub fn plan(&self, files: &[(String, Vec<u8>)]) -> Result<RenamePlan, AideError> {
        let parsed: Vec<SourceFile> = files
            .iter()
            .filter_map(|(rel, bytes)| {
                let lang = Lang::from_path_and_content(std::path::Path::new(rel), bytes)?;
                SourceFile::parse(rel.clone(), lang, bytes.clone()).ok()
            })
            .collect();
        let target = self.find_target(&parsed)?;
        let ident = self.ident.as_str();
        // Every definition of the name in the files read, for uniqueness.
        let all_defs: Vec<(usize, Symbol)> = parsed
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.outline().iter().filter(|s| s.name == ident).map(move |s| (i, s.clone())))
            .collect();
        let (scope, name_path, kind, defined_in) = match &target {
            Target::Local { file, def } => {
                (SymbolScope::Local, def.name.clone(), None, vec![parsed[*file].path.clone()])
            }
            Target::Symbol { defs, owner } => {
                let first = &defs[0].1;
                let mut paths: Vec<String> = defs.iter().map(|(i, _)| parsed[*i].path.clone()).collect();
                paths.dedup();
                let scope = if owner.is_some() { SymbolScope::Member } else { SymbolScope::Free };
                (scope, first.name_path.to_string(), Some(first.kind), paths)
            }
        };
        let unique = match &target {
            Target::Symbol { defs, .. } => all_defs.len() <= defs.len(),
            Target::Local { .. } => true,
        };
        self.check_collision(&parsed, &target)?;

        let mut sites = Vec::new();
        for (fi, file) in parsed.iter().enumerate() {
            let locals = Locals::of(file);
            for r in llm_ast_search::refs::references_in(file, ident, true) {
                let (start, end) = (r.span.byte_start, r.span.byte_end);
                let matched = match &target {
                    Target::Local { file: tf, def } => {
                        if fi != *tf || access_at(file, start, end) != Access::Bare {
                            continue;
                        }
                        match locals.resolve(ident, start) {
                            Some(d) if d == def => Resolution::Resolved,
                            _ => continue,
                        }
                    }
                    Target::Symbol { defs, owner } => {
                        let is_target_def = defs.iter().any(|(i, s)| *i == fi && s.name_span == Some((start, end)));
                        if is_target_def {
                            Resolution::Resolved
                        } else if r.kind == RefKind::Definition || locals.at(start, end).is_some() {
                            continue;
                        } else {
                            let judge = Judge {
                                ident,
                                owner: owner.as_deref(),
                                target_kind: defs[0].1.kind,
                                unique,
                                defined_in: &defined_in,
                                all_defs: &all_defs,
                            };
                            match judge.site(file, &locals, fi, r.kind, start, end) {
                                Some(m) => m,
                                None => continue,
                            }
                        }
                    }
                };
                let renamed = matched != Resolution::Unresolved || self.op.include_unresolved;
                sites.push(RenameSite {
                    path: file.path.clone(),
                    line: r.span.line,
                    column: r.span.column,
                    byte_start: start,
                    byte_end: end,
                    kind: r.kind,
                    matched,
                    in_comment_or_string: false,
                    renamed,
                    line_text: r.line_text,
                });
            }
            if self.op.in_comments_and_strings {
                sites.extend(comment_sites(file, ident, &target, fi));
            }
        }
        sites.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.byte_start, &b.path, b.byte_start));
        sites.dedup_by(|a, b| (&a.path, a.byte_start) == (&b.path, b.byte_start));

        let mut edits: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
        for s in sites.iter().filter(|s| s.renamed) {
            let text = self.op.new_name.clone().into_bytes();
            edits.entry(s.path.clone()).or_default().push(Edit { start: s.byte_start, end: s.byte_end, text });
        }
        let report = RenameReport {
            name: self.op.name.clone(),
            new_name: self.op.new_name.clone(),
            scope,
            name_path,
            kind,
            defined_in,
            renamed: sites.iter().filter(|s| s.renamed).count(),
            unresolved: sites.iter().filter(|s| s.matched == Resolution::Unresolved && !s.renamed).count(),
            sites,
        };
        Ok(RenamePlan { edits, report })
    }

    /// The definition the request means: by name or name path among the
    /// symbols, narrowed by `path` and `line_hint`; else a local binding at
    /// `path`/`line_hint`.
    fn find_target(&self, parsed: &[SourceFile]) -> Result<Target, AideError> {
        let wanted_path = self.op.path.as_deref().map(|p| p.trim_start_matches("./"));
        let mut defs: Vec<(usize, Symbol)> = Vec::new();
        for (i, file) in parsed.iter().enumerate() {
            if wanted_path.is_some_and(|p| p != file.path) {
                continue;
            }
            // `Type/name` also names a member by its owner type, however the
            // name path spells it (`impl Type/name`, Go's `(*Type)/name`).
            let qualifier = self.op.name.rsplit_once(['/', '.']).map(|(q, _)| last_segment(q.trim_end_matches(':')));
            for (how, s) in llm_ast_search::refs::definitions_in(file, &self.op.name) {
                if matches!(how, NameMatch::Exact | NameMatch::PathSuffix) && s.name_span.is_some() {
                    defs.push((i, s));
                }
            }
            if let Some(q) = qualifier {
                for s in file.outline() {
                    let by_owner = s.name == self.ident && member_owner(file, s).as_deref() == Some(q);
                    if by_owner
                        && s.name_span.is_some()
                        && !defs.iter().any(|(j, d)| *j == i && d.name_span == s.name_span)
                    {
                        defs.push((i, s.clone()));
                    }
                }
            }
        }
        // A hint that no symbol of the name spans may point at a local.
        if let Some(hint) = self.op.line_hint
            && wanted_path.is_some()
            && !defs.iter().any(|(_, s)| s.span.line <= hint && hint <= s.span.end_line)
            && let Ok(local) = self.find_local(parsed, wanted_path)
        {
            return Ok(local);
        }
        if let Some(hint) = self.op.line_hint
            && defs.len() > 1
        {
            let distance = |s: &Symbol| {
                if s.span.line <= hint && hint <= s.span.end_line { 0 } else { s.span.line.abs_diff(hint) }
            };
            let best = defs.iter().map(|(_, s)| distance(s)).min().unwrap_or(0);
            defs.retain(|(_, s)| distance(s) == best);
        }
        if defs.is_empty() {
            return self.find_local(parsed, wanted_path);
        }
        // A C/C++ prototype and its definition are one symbol.
        let same_symbol = defs.iter().any(|(_, s)| s.kind == SymbolKind::Declaration)
            && defs.iter().all(|(i, s)| {
                matches!(parsed[*i].lang, Lang::C | Lang::Cpp)
                    && s.name_path == defs[0].1.name_path
                    && matches!(s.kind, SymbolKind::Declaration | SymbolKind::Function)
            });
        if defs.len() > 1 && !same_symbol {
            let candidates = defs
                .iter()
                .map(|(i, s)| DefinitionCandidate {
                    path: parsed[*i].path.clone(),
                    name_path: s.name_path.to_string(),
                    kind: s.kind,
                    line: s.span.line,
                })
                .collect();
            return Err(TransformError::AmbiguousDefinition { name: self.op.name.clone(), candidates }.into());
        }
        let owner = member_owner(&parsed[defs[0].0], &defs[0].1);
        Ok(Target::Symbol { defs, owner })
    }

    fn find_local(&self, parsed: &[SourceFile], wanted_path: Option<&str>) -> Result<Target, AideError> {
        let no_definition = || TransformError::NoDefinition { name: self.op.name.clone() };
        // A local is named by its file: a bare name may be a local of any function.
        let Some(path) = wanted_path else { return Err(no_definition().into()) };
        let Some((fi, file)) = parsed.iter().enumerate().find(|(_, f)| f.path == path) else {
            return Err(no_definition().into());
        };
        let locals = Locals::of(file);
        let mut defs: Vec<&LocalDef> = locals.defs().iter().filter(|d| d.name == self.ident).collect();
        if let Some(hint) = self.op.line_hint {
            let line = |d: &LocalDef| file.index.line_of(d.start);
            let scope_lines = |d: &LocalDef| (file.index.line_of(d.scope_start), file.index.line_of(d.scope_end));
            // The definition on the hinted line; else the nearest whose scope holds it.
            let exact: Vec<&LocalDef> = defs.iter().copied().filter(|d| line(d) == hint).collect();
            defs = if exact.is_empty() {
                let holding: Vec<&LocalDef> = defs
                    .iter()
                    .copied()
                    .filter(|d| (scope_lines(d).0..=scope_lines(d).1).contains(&hint) && line(d) <= hint)
                    .collect();
                let best = holding.iter().map(|d| hint - line(d)).min();
                holding.into_iter().filter(|d| Some(hint - line(d)) == best).collect()
            } else {
                exact
            };
        }
        match defs.as_slice() {
            [] => Err(no_definition().into()),
            [one] => Ok(Target::Local { file: fi, def: (*one).clone() }),
            several => {
                let candidates = several
                    .iter()
                    .map(|d| DefinitionCandidate {
                        path: file.path.clone(),
                        name_path: d.name.clone(),
                        kind: SymbolKind::Declaration,
                        line: file.index.line_of(d.start),
                    })
                    .collect();
                Err(TransformError::AmbiguousDefinition { name: self.op.name.clone(), candidates }.into())
            }
        }
    }

    /// Refuses a new name that is already defined where the symbol lives.
    fn check_collision(&self, parsed: &[SourceFile], target: &Target) -> Result<(), AideError> {
        let new_name = self.op.new_name.as_str();
        let collision = |name_path: String, path: &str, line: usize| -> AideError {
            TransformError::NameCollision { name_path, new_name: new_name.to_string(), path: path.to_string(), line }
                .into()
        };
        match target {
            Target::Local { file, def } => {
                let f = &parsed[*file];
                let locals = Locals::of(f);
                // A binding of the new name in the same scope, or a use of
                // the new name in it (it would be captured).
                let inside = |at: usize| def.scope_start <= at && at < def.scope_end;
                if let Some(other) = locals.defs().iter().find(|d| d.name == new_name && inside(d.start)) {
                    return Err(collision(def.name.clone(), &f.path, f.index.line_of(other.start)));
                }
                for at in memchr::memmem::find_iter(&f.source, new_name.as_bytes()).filter(|&at| inside(at)) {
                    if is_word_at(&f.source, at, new_name.len()) && !in_comment_or_string(f, at) {
                        return Err(collision(def.name.clone(), &f.path, f.index.line_of(at)));
                    }
                }
                Ok(())
            }
            Target::Symbol { defs, owner } => {
                let existing = aide_core::walk::lock(&self.new_name_definitions).clone();
                for (path, line, _, parent, other_owner) in &existing {
                    let clash = match owner {
                        Some(owner) => other_owner.as_deref() == Some(owner.as_str()),
                        None => defs
                            .iter()
                            .any(|(i, s)| parsed[*i].path == *path && s.parent.as_deref() == parent.as_deref()),
                    };
                    if clash {
                        return Err(collision(defs[0].1.name_path.to_string(), path, *line));
                    }
                }
                Ok(())
            }
        }
    }
}

fn is_word_at(source: &[u8], at: usize, len: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    !(at > 0 && word(source[at - 1])) && !source.get(at + len).is_some_and(|&b| word(b))
}

/// What judging a site needs to know about the renamed symbol.
struct Judge<'a> {
    ident: &'a str,
    /// The member's type, for a member.
    owner: Option<&'a str>,
    target_kind: SymbolKind,
    /// No other definition in the tree has the name.
    unique: bool,
    defined_in: &'a [String],
    /// Every definition of the name in the files read.
    all_defs: &'a [(usize, Symbol)],
}

impl Judge<'_> {
    /// How a use of the symbol's name is tied to it; None when it is not a
    /// use of this symbol at all (a local of that name, another type's
    /// member, the field of a type whose method has the same name).
    fn site(
        &self,
        file: &SourceFile,
        locals: &Locals,
        fi: usize,
        kind: RefKind,
        start: usize,
        end: usize,
    ) -> Option<Resolution> {
        let Judge { ident, owner, unique, defined_in, all_defs, .. } = *self;
        // Rust, Java and C++ let a type have a field and a method of one
        // name: calls go to the method, the rest to the field.
        if let Some(owner) = owner {
            let of_owner = |k: SymbolKind| {
                all_defs.iter().any(|(_, s)| s.kind == k && s.parent.as_deref().is_some_and(|p| owner_of(p) == owner))
            };
            if of_owner(SymbolKind::Field) && of_owner(SymbolKind::Method) {
                let wants_call = self.target_kind == SymbolKind::Method;
                if wants_call != (kind == RefKind::Call) {
                    return None;
                }
            }
        }
        let by_name = if unique { Resolution::NameOnly } else { Resolution::Unresolved };
        // Types that define a member of this name, other than the owner.
        let other_owner =
            |name: &str| all_defs.iter().any(|(_, s)| s.parent.as_deref().is_some_and(|p| owner_of(p) == name));
        match (owner, access_at(file, start, end)) {
            (Some(owner), Access::Member { receiver }) => {
                let enclosing_owner = enclosing_owner(file, start);
                let own_self = enclosing_owner.as_deref() == Some(owner)
                    && self_names(file, start, end).iter().any(|n| *n == receiver);
                if own_self || last_segment(&receiver) == owner {
                    Some(Resolution::Resolved)
                } else {
                    // Another receiver (or a field key in a literal or pattern):
                    // its type is not worked out here.
                    Some(by_name)
                }
            }
            (Some(owner), Access::Qualified { qualifier }) => {
                let q = last_segment(&qualifier);
                if q == owner || (q == "Self" && enclosing_owner(file, start).as_deref() == Some(owner)) {
                    Some(Resolution::Resolved)
                } else if other_owner(q) {
                    None
                } else {
                    Some(by_name)
                }
            }
            (Some(owner), Access::Bare) => {
                // Java and C++ call their own members without `this`.
                let implicit_this = matches!(file.lang, Lang::Java | Lang::Cpp);
                if implicit_this
                    && locals.resolve(ident, start).is_none()
                    && enclosing_owner(file, start).as_deref() == Some(owner)
                {
                    Some(Resolution::Resolved)
                } else {
                    None
                }
            }
            (None, Access::Member { .. }) => None,
            (None, Access::Qualified { qualifier }) => {
                // `Type::name` is an associated item of that type, not this free symbol.
                let q = last_segment(&qualifier);
                let is_type = q.chars().next().is_some_and(char::is_uppercase) && file.lang != Lang::Go;
                if is_type || other_owner(q) { None } else { Some(by_name) }
            }
            (None, Access::Bare) => {
                if locals.resolve(ident, start).is_some() {
                    return None;
                }
                let defines_here = all_defs.iter().any(|(i, s)| *i == fi && s.parent.is_none());
                if defined_in.contains(&file.path) {
                    Some(Resolution::Resolved)
                } else if defines_here {
                    // This file has its own definition of the name.
                    None
                } else {
                    Some(by_name)
                }
            }
        }
    }
}

/// The owner type of the member whose body holds `offset`.
fn enclosing_owner(file: &SourceFile, offset: usize) -> Option<String> {
    file.outline()
        .iter()
        .filter(|s| s.span.byte_start <= offset && offset < s.span.byte_end && is_type_kind(s.kind))
        .max_by_key(|s| s.depth)
        .map(|s| owner_of(&s.name_path))
        .or_else(|| {
            // A Go method: its receiver type.
            file.outline()
                .iter()
                .filter(|s| s.span.byte_start <= offset && offset < s.span.byte_end && s.kind == SymbolKind::Method)
                .max_by_key(|s| s.depth)
                .and_then(|s| s.parent.as_deref().map(owner_of))
        })
}

/// Word-bounded mentions of the name inside comments and strings.
fn comment_sites(file: &SourceFile, ident: &str, target: &Target, fi: usize) -> Vec<RenameSite> {
    if let Target::Local { file: tf, .. } = target
        && *tf != fi
    {
        return Vec::new();
    }
    memchr::memmem::find_iter(&file.source, ident.as_bytes())
        .filter(|&at| is_word_at(&file.source, at, ident.len()) && in_comment_or_string(file, at))
        .map(|at| {
            let span = file.index.span(&file.source, at, at + ident.len());
            RenameSite {
                path: file.path.clone(),
                line: span.line,
                column: span.column,
                byte_start: at,
                byte_end: at + ident.len(),
                kind: RefKind::Usage,
                matched: Resolution::NameOnly,
                in_comment_or_string: true,
                renamed: true,
                line_text: file.index.line_text(&file.source, span.line, llm_ast_search::refs::LINE_TEXT_CHARS),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_read_from_parent_name_paths() {
        assert_eq!(owner_of("impl Agent"), "Agent");
        assert_eq!(owner_of("impl Display for Agent<T>"), "Agent");
        assert_eq!(owner_of("(*Command)"), "Command");
        assert_eq!(owner_of("net/Client"), "Client");
        assert_eq!(owner_of("mod/impl<T> Stack<T>"), "Stack");
    }
}
