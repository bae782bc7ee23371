//! Which uses of a name mean one definition: the analysis behind
//! `--references` of a name that names one definition, and behind
//! llm-transform's `rename_symbol`.
//!
//! Two steps, so the files are read in parallel and held by no one:
//! [`facts`] works out, file by file, the definitions the query may mean
//! and every occurrence of the name with what the file alone tells about
//! it (how it is written, the local binding it resolves to, the type whose
//! body holds it); [`Resolver::choose`] picks the one definition and
//! [`Resolver::judge`] ties each occurrence to it:
//!
//! * a **local** (parameter, variable in a function) is meant where the
//!   scope resolution leads to its binding;
//! * a **member** (method, field, variant) is meant at `x.name` and
//!   `Type::name` sites whose receiver is known to be its owner (`self`,
//!   `this`, a Go receiver, the owner's own name, a local declared or built
//!   as the owner: `a: &Agent`, `Agent::new()`) — `resolved` — or, when no
//!   other definition in the files has the name, at any member site —
//!   `name_only`; other member sites are `unresolved`;
//! * a **free** symbol (function, type, constant) is meant at bare and
//!   path-qualified uses that no local binding shadows: `resolved` in the
//!   files that define it, `name_only` elsewhere when the name is defined
//!   once, `unresolved` otherwise.

use aide_core::Lang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::files::is_token_at;
use crate::receiver::{Chain, MemberUse, ReturnTypes, declared_return, initializer_type};
use crate::refs::{RefKind, Reference, last_identifier, references_in};
use crate::scopes::{Access, LocalDef, Locals, access_at, in_comment_or_string, receiver_node, self_names};
use crate::source::SourceFile;
use crate::symbols::{NameMatch, Symbol, SymbolKind};

pub use crate::refs::Resolution;
pub use owner::member_owner;
use owner::{enclosing_owner, last_segment};

mod owner;

/// What kind of symbol a definition is, for resolving its uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolScope {
    /// A parameter or variable inside a function.
    Local,
    /// A method, field or variant of a type.
    Member,
    /// A function, type, constant or other module-level name.
    Free,
}

/// Which definition: a name or name path (`Agent/run`, `impl Agent/run`,
/// `Command/Title` for Go's `(*Command)/Title`), narrowed by the file and
/// a line; a local is named by its file and line.
#[derive(Debug, Clone, Default)]
pub struct SymbolQuery {
    pub name: String,
    pub path: Option<String>,
    pub line_hint: Option<usize>,
    /// Also list word-bounded mentions in comments and strings.
    pub comments_and_strings: bool,
}

impl SymbolQuery {
    /// The identifier the query ends in.
    pub fn ident(&self) -> &str {
        last_identifier(&self.name)
    }

    fn wanted_path(&self) -> Option<&str> {
        self.path.as_deref().map(|p| p.trim_start_matches("./"))
    }
}

/// A local binding the query may mean, with its lines.
#[derive(Debug, Clone)]
struct LocalCandidate {
    def: LocalDef,
    line: usize,
    scope_lines: (usize, usize),
}

/// An occurrence of the name with what its file tells about it.
#[derive(Debug, Clone)]
pub struct RawSite {
    pub reference: Reference,
    access: Access,
    /// The local binding it resolves to.
    local: Option<LocalDef>,
    /// It is a local binding's own definition.
    defines_local: bool,
    /// The type whose body holds it.
    enclosing_owner: Option<String>,
    /// What the enclosing method calls its own object.
    self_names: Vec<String>,
    /// For `x.name`: the type local `x` is declared or built as.
    receiver_type: Option<String>,
    /// For a member access: how it uses the name, and the chain of calls
    /// its receiver is built by, where syntax shows one.
    member_use: Option<MemberUse>,
    chain: Option<Chain>,
    lang: Lang,
    pub in_comment_or_string: bool,
}

/// What one file tells about a query.
#[derive(Debug, Clone)]
pub struct FileFacts {
    pub path: String,
    /// Symbols the query names here.
    candidates: Vec<(Symbol, Option<String>)>,
    /// Every symbol spelled like the name, with its owner type.
    named: Vec<(Symbol, Option<String>)>,
    /// Local bindings of the name (in the query's file only).
    locals: Vec<LocalCandidate>,
    /// What the member functions of the file return: (owner, name, type).
    returns: Vec<(String, String, Option<String>)>,
    pub sites: Vec<RawSite>,
}

/// What `file` tells about `query`.
pub fn facts(file: &SourceFile, query: &SymbolQuery) -> FileFacts {
    let ident = query.ident();
    // Every symbol spelled like the name, with its owner type.
    let named: Vec<(Symbol, Option<String>)> =
        file.outline().iter().filter(|s| s.name == ident).map(|s| (s.clone(), member_owner(file, s))).collect();
    let candidates = definition_candidates(file, query, &named);
    let occurrences = references_in(file, ident, true);
    let offsets: Vec<usize> = occurrences.iter().map(|r| r.span.byte_start).collect();
    // The query's own file may name a local anywhere (by line).
    let own_file = query.wanted_path() == Some(file.path.as_str());
    let bindings = if own_file { Locals::of(file) } else { Locals::around(file, &offsets) };
    let locals = if own_file { local_candidates(file, ident, &bindings) } else { Vec::new() };
    let mut sites: Vec<RawSite> = occurrences.into_iter().map(|r| raw_site(file, ident, &bindings, r)).collect();
    if query.comments_and_strings {
        sites.extend(comment_and_string_sites(file, ident));
        sites.sort_by_key(|s| s.reference.span.byte_start);
    }
    let returns = member_returns(file);
    FileFacts { path: file.path.clone(), candidates, named, locals, returns, sites }
}

/// The definitions in `file` the query names (none when it names another
/// file), with their owner types.
fn definition_candidates(
    file: &SourceFile,
    query: &SymbolQuery,
    named: &[(Symbol, Option<String>)],
) -> Vec<(Symbol, Option<String>)> {
    let mut candidates: Vec<(Symbol, Option<String>)> = Vec::new();
    if query.wanted_path().is_some_and(|p| p != file.path) {
        return candidates;
    }
    for (how, s) in crate::refs::definitions_in(file, &query.name) {
        if matches!(how, NameMatch::Exact | NameMatch::PathSuffix) && s.name_span.is_some() {
            let owner = member_owner(file, &s);
            candidates.push((s, owner));
        }
    }
    // `Type/name` also names a member by its owner type, however the
    // name path spells it (`impl Type/name`, Go's `(*Type)/name`).
    if let Some((q, _)) = query.name.rsplit_once(['/', '.']) {
        let q = last_segment(q.trim_end_matches(':'));
        for (s, owner) in named {
            let known = candidates.iter().any(|(c, _)| c.name_span == s.name_span);
            if owner.as_deref() == Some(q) && s.name_span.is_some() && !known {
                candidates.push((s.clone(), owner.clone()));
            }
        }
    }
    candidates
}

/// The locals named `ident` the file binds, with their lines and scopes.
fn local_candidates(file: &SourceFile, ident: &str, bindings: &Locals) -> Vec<LocalCandidate> {
    bindings
        .defs()
        .iter()
        .filter(|d| d.name == ident)
        .map(|d| LocalCandidate {
            def: d.clone(),
            line: file.index.line_of(d.start),
            scope_lines: (file.index.line_of(d.scope_start), file.index.line_of(d.scope_end)),
        })
        .collect()
}

/// One occurrence of the name in code, with what its place tells: how it
/// is reached (a member, bare), its receiver's type, the local it is.
fn raw_site(file: &SourceFile, ident: &str, bindings: &Locals, r: Reference) -> RawSite {
    let (start, end) = (r.span.byte_start, r.span.byte_end);
    let access = access_at(file, start, end);
    let (receiver_type, member_use, chain) = match &access {
        Access::Member { receiver } => {
            let local_type = |name: &str| bindings.resolve(name, start).and_then(|d| d.type_name.clone());
            let chain = receiver_node(file, start, end).and_then(|n| Chain::of(file, n, &local_type));
            let typed = if receiver.is_empty() { initializer_type(file, start, end) } else { local_type(receiver) };
            (typed, Some(MemberUse::of(file, start, end, receiver.is_empty())), chain)
        }
        // Java and C++ name their own members bare (implicit `this`).
        Access::Bare if matches!(file.lang, Lang::Java | Lang::Cpp) => {
            (None, Some(MemberUse::of(file, start, end, false)), None)
        }
        _ => (None, None, None),
    };
    RawSite {
        receiver_type,
        member_use,
        chain,
        access,
        local: bindings.resolve(ident, start).cloned(),
        defines_local: bindings.at(start, end).is_some(),
        enclosing_owner: enclosing_owner(file, start),
        self_names: self_names(file, start, end),
        lang: file.lang,
        in_comment_or_string: false,
        reference: r,
    }
}

/// Where the name stands as a whole word in a comment or a string: sites
/// matched by name only.
fn comment_and_string_sites(file: &SourceFile, ident: &str) -> Vec<RawSite> {
    let mut sites = Vec::new();
    for at in memchr::memmem::find_iter(&file.source, ident.as_bytes()) {
        if !is_token_at(&file.source, at, ident.len()) || !in_comment_or_string(file, at) {
            continue;
        }
        let mut r = crate::refs::reference_at(file, ident, RefKind::Usage, at, at + ident.len());
        r.matched = Resolution::NameOnly;
        sites.push(RawSite {
            access: Access::Bare,
            local: None,
            defines_local: false,
            enclosing_owner: None,
            self_names: Vec::new(),
            receiver_type: None,
            member_use: None,
            chain: None,
            lang: file.lang,
            in_comment_or_string: true,
            reference: r,
        });
    }
    sites
}

/// Each method's and function's owner type, name and declared return type.
fn member_returns(file: &SourceFile) -> Vec<(String, String, Option<String>)> {
    file.outline()
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Method | SymbolKind::Function))
        .filter_map(|s| {
            let owner = member_owner(file, s)?;
            let returns = declared_return(s, &owner, file.lang);
            Some((owner, s.name.clone(), returns))
        })
        .collect()
}

/// The definition a query means.
#[derive(Debug, Clone)]
pub enum Target {
    Local {
        path: String,
        def: LocalDef,
    },
    /// One symbol; a C/C++ prototype and its definition are two `defs`.
    Symbol {
        defs: Vec<Symbol>,
        owner: Option<String>,
    },
}

/// A definition a query could mean, as listed when several match.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub path: String,
    pub name_path: String,
    pub kind: SymbolKind,
    pub line: usize,
}

/// Why a query names no single definition.
#[derive(Debug, Clone)]
pub enum NotOne {
    None,
    Several(Vec<Candidate>),
}

/// The one definition a query means, and what judging its uses needs.
#[derive(Debug, Clone)]
pub struct Resolver {
    target: Target,
    /// Every symbol of the name in the files, with its owner.
    named: Vec<(Symbol, Option<String>)>,
    /// No other symbol has the name.
    unique: bool,
    defined_in: Vec<String>,
    /// What the files' member functions return, for typing receivers.
    returns: ReturnTypes,
    /// Other symbols of the name, passed over for the exact name path.
    others: Vec<String>,
}

impl Resolver {
    /// Picks the definition `query` means among the facts of every file:
    /// by name or name path, narrowed by `path` and `line_hint`; a hint
    /// that no symbol of the name spans may point at a local binding.
    pub fn choose(query: &SymbolQuery, files: &[FileFacts]) -> Result<Resolver, NotOne> {
        let mut defs: Vec<(Symbol, Option<String>)> = files.iter().flat_map(|f| f.candidates.iter().cloned()).collect();
        let locals: Vec<(&str, &LocalCandidate)> =
            files.iter().flat_map(|f| f.locals.iter().map(move |l| (f.path.as_str(), l))).collect();
        let hint = query.line_hint;
        let named: Vec<(Symbol, Option<String>)> = files.iter().flat_map(|f| f.named.iter().cloned()).collect();
        let mut returns = ReturnTypes::default();
        for (owner, name, ty) in files.iter().flat_map(|f| f.returns.iter().cloned()) {
            returns.add(owner, name, ty);
        }
        if let Some(hint) = hint
            && !defs.iter().any(|(s, _)| s.span.line <= hint && hint <= s.span.end_line)
            && let Ok(target) = choose_local(query, &locals)
        {
            return Ok(Resolver::new(target, named, returns));
        }
        if let Some(hint) = hint
            && defs.len() > 1
        {
            let distance = |s: &Symbol| {
                if s.span.line <= hint && hint <= s.span.end_line { 0 } else { s.span.line.abs_diff(hint) }
            };
            let best = defs.iter().map(|(s, _)| distance(s)).min().unwrap_or(0);
            defs.retain(|(s, _)| distance(s) == best);
        }
        if defs.is_empty() {
            return choose_local(query, &locals).map(|t| Resolver::new(t, named, returns));
        }
        // The name path exactly as the outline prints it wins over looser
        // matches: `PrintDefaults` is the function, not `(*FlagSet)/PrintDefaults`.
        let mut others = Vec::new();
        if defs.len() > 1 && defs.iter().any(|(s, _)| *s.name_path == *query.name) {
            let (exact, passed): (Vec<_>, Vec<_>) = defs.into_iter().partition(|(s, _)| *s.name_path == *query.name);
            others = passed.into_iter().map(|(s, _)| s.name_path.to_string()).collect();
            others.sort();
            others.dedup();
            defs = exact;
        }
        // A C/C++ prototype and its definition are one symbol.
        let c_family = |s: &Symbol| {
            let lang = Lang::from_path(std::path::Path::new(&*s.path));
            matches!(lang, Some(Lang::C | Lang::Cpp)) || Lang::is_ambiguous(std::path::Path::new(&*s.path))
        };
        let same_symbol = defs.iter().any(|(s, _)| s.kind == SymbolKind::Declaration)
            && defs.iter().all(|(s, _)| {
                c_family(s)
                    && s.name_path == defs[0].0.name_path
                    && matches!(s.kind, SymbolKind::Declaration | SymbolKind::Function)
            });
        if defs.len() > 1 && !same_symbol {
            let listed = defs
                .iter()
                .map(|(s, _)| Candidate {
                    path: s.path.to_string(),
                    name_path: s.name_path.to_string(),
                    kind: s.kind,
                    line: s.span.line,
                })
                .collect();
            return Err(NotOne::Several(listed));
        }
        let owner = defs[0].1.clone();
        let target = Target::Symbol { defs: defs.into_iter().map(|(s, _)| s).collect(), owner };
        Ok(Resolver { others, ..Resolver::new(target, named, returns) })
    }

    /// The name paths of the other symbols the query's name also names,
    /// passed over because it is exactly this one's name path (a caller
    /// must hear of them: their uses are not among this one's).
    pub fn others(&self) -> &[String] {
        &self.others
    }

    fn new(target: Target, named: Vec<(Symbol, Option<String>)>, returns: ReturnTypes) -> Resolver {
        let (unique, mut defined_in) = match &target {
            Target::Local { path, .. } => (true, vec![path.clone()]),
            Target::Symbol { defs, .. } => {
                (named.len() <= defs.len(), defs.iter().map(|s| s.path.to_string()).collect::<Vec<_>>())
            }
        };
        defined_in.dedup();
        Resolver { target, named, unique, defined_in, returns, others: Vec::new() }
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    pub fn scope(&self) -> SymbolScope {
        match &self.target {
            Target::Local { .. } => SymbolScope::Local,
            Target::Symbol { owner: Some(_), .. } => SymbolScope::Member,
            Target::Symbol { owner: None, .. } => SymbolScope::Free,
        }
    }

    /// The files that define it.
    pub fn defined_in(&self) -> &[String] {
        &self.defined_in
    }

    /// Its name path (a local's is its name) and kind.
    pub fn name_path(&self) -> (String, Option<SymbolKind>) {
        match &self.target {
            Target::Local { def, .. } => (def.name.clone(), None),
            Target::Symbol { defs, .. } => (defs[0].name_path.to_string(), Some(defs[0].kind)),
        }
    }

    /// Whether no other definition of the name is one a member access used
    /// as `used` can mean: a method call where only one type in the files
    /// has a method of the name counts as naming it.
    fn unique_for(&self, used: MemberUse, lang: Lang) -> bool {
        let Target::Symbol { defs, .. } = &self.target else { return self.unique };
        let reachable = |(s, owner): &&(Symbol, Option<String>)| {
            used.can_mean(s.kind, lang) && (owner.is_some() || MemberUse::reaches_free_symbols(lang))
        };
        self.named.iter().filter(reachable).count() <= defs.len()
    }

    /// The sites of `files` that mean the definition, each with how it was
    /// tied to it (its `matched`), in path and byte order.
    pub fn sites(&self, files: Vec<FileFacts>) -> Vec<RawSite> {
        let mut out: Vec<RawSite> = Vec::new();
        for f in files {
            for mut site in f.sites {
                if let Some(m) = self.judge(&f.path, &site) {
                    site.reference.matched = m;
                    out.push(site);
                }
            }
        }
        out.sort_by(|a, b| {
            aide_core::ordering::cmp_location(
                &a.reference.path,
                a.reference.span.byte_start,
                &b.reference.path,
                b.reference.span.byte_start,
            )
        });
        out.dedup_by(|a, b| {
            (&a.reference.path, a.reference.span.byte_start) == (&b.reference.path, b.reference.span.byte_start)
        });
        out
    }

    // Long because: one arm per (owner, access) pair a site can have, each its verdict.
    /// How a site of `path` is tied to the definition; None when it is not
    /// a use of it at all (a local of that name, another type's member,
    /// the field of a type whose method has the same name).
    pub fn judge(&self, path: &str, site: &RawSite) -> Option<Resolution> {
        if site.in_comment_or_string {
            return match &self.target {
                Target::Local { path: p, def } => {
                    let at = site.reference.span.byte_start;
                    (p == path && def.scope_start <= at && at < def.scope_end).then_some(Resolution::NameOnly)
                }
                Target::Symbol { .. } => Some(Resolution::NameOnly),
            };
        }
        let r = &site.reference;
        let (start, end) = (r.span.byte_start, r.span.byte_end);
        let (defs, owner) = match &self.target {
            Target::Local { path: p, def } => {
                let meant = p == path && site.access == Access::Bare && site.local.as_ref() == Some(def);
                return meant.then_some(Resolution::Resolved);
            }
            Target::Symbol { defs, owner } => (defs, owner.as_deref()),
        };
        if defs.iter().any(|s| &*s.path == path && s.name_span == Some((start, end))) {
            return Some(Resolution::Resolved);
        }
        if r.kind == RefKind::Definition || site.defines_local {
            return None;
        }
        // A member access that cannot name a symbol of this kind (a Rust
        // field read is never a method, a method call never a field) is
        // not a use of it; among those it can name, the name may be unique.
        let by_name = match site.member_use {
            Some(used) if owner.is_some() && !used.can_mean(defs[0].kind, site.lang) => return None,
            Some(used) => self.unique_for(used, site.lang),
            None => self.unique,
        };
        let by_name = if by_name { Resolution::NameOnly } else { Resolution::Unresolved };
        let of_owner = |owner: &str, kind: Option<SymbolKind>| {
            self.named.iter().any(|(s, o)| o.as_deref() == Some(owner) && kind.is_none_or(|k| s.kind == k))
        };
        let inside_owner = |owner: &str| site.enclosing_owner.as_deref() == Some(owner);
        match (owner, &site.access) {
            (Some(owner), Access::Member { receiver }) => {
                let own_self = inside_owner(owner) && site.self_names.iter().any(|n| n == receiver);
                let chained = site.chain.as_ref().and_then(|c| c.yields(&self.returns));
                let typed = site.receiver_type.as_deref().or(chained.as_deref());
                if own_self || last_segment(receiver) == owner || typed == Some(owner) {
                    Some(Resolution::Resolved)
                } else if typed.is_some_and(|t| of_owner(t, None)) {
                    // A local of another type that has a member of this name.
                    None
                } else {
                    Some(by_name)
                }
            }
            (Some(owner), Access::Qualified { qualifier }) => {
                let q = last_segment(qualifier);
                if q == owner || (q == "Self" && inside_owner(owner)) {
                    Some(Resolution::Resolved)
                } else if of_owner(q, None) {
                    None
                } else {
                    Some(by_name)
                }
            }
            (Some(owner), Access::Bare) => {
                // Java and C++ call their own members without `this`.
                let implicit_this = matches!(site.lang, Lang::Java | Lang::Cpp);
                (implicit_this && site.local.is_none() && inside_owner(owner)).then_some(Resolution::Resolved)
            }
            (None, Access::Member { .. }) => None,
            (None, Access::Qualified { qualifier }) => {
                // `Type::name` is an associated item of that type, not this free symbol.
                let q = last_segment(qualifier);
                let is_type = q.chars().next().is_some_and(char::is_uppercase) && site.lang != Lang::Go;
                if is_type || of_owner(q, None) { None } else { Some(by_name) }
            }
            (None, Access::Bare) => {
                if site.local.is_some() {
                    return None;
                }
                let defines_here = self.named.iter().any(|(s, _)| &*s.path == path && s.parent.is_none());
                if self.defined_in.iter().any(|p| p == path) {
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

/// The local binding a query names: on the hinted line, else the nearest
/// before it whose scope holds the line.
fn choose_local(query: &SymbolQuery, locals: &[(&str, &LocalCandidate)]) -> Result<Target, NotOne> {
    let mut picked: Vec<&(&str, &LocalCandidate)> = locals.iter().collect();
    if let Some(hint) = query.line_hint {
        let exact: Vec<_> = picked.iter().copied().filter(|(_, l)| l.line == hint).collect();
        picked = if exact.is_empty() {
            let holding: Vec<_> = picked
                .iter()
                .copied()
                .filter(|(_, l)| l.scope_lines.0 <= hint && hint <= l.scope_lines.1 && l.line <= hint)
                .collect();
            let best = holding.iter().map(|(_, l)| hint - l.line).min();
            holding.into_iter().filter(|(_, l)| Some(hint - l.line) == best).collect()
        } else {
            exact
        };
    }
    match picked.as_slice() {
        [] => Err(NotOne::None),
        [(path, l)] => Ok(Target::Local { path: path.to_string(), def: l.def.clone() }),
        several => Err(NotOne::Several(
            several
                .iter()
                .map(|(path, l)| Candidate {
                    path: path.to_string(),
                    name_path: l.def.name.clone(),
                    kind: SymbolKind::Declaration,
                    line: l.line,
                })
                .collect(),
        )),
    }
}

#[cfg(test)]
mod tests;
