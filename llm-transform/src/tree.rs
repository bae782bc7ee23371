//! Operations that find their files in the tree: `replace_regex`,
//! `replace_matches` (a search's records), `rewrite` (a tree-sitter query
//! and a template; matches nested in another's captures are rewritten
//! inside out: `tree/rewrite.rs`), `rename_symbol` ([`crate::rename`]) and
//! `refactor` (the files its server's edit changes: [`crate::refactor`]).
//!
//! Each runs in two steps around the lock: [`Prepared::candidates`] walks
//! the tree (in parallel, reading without locks) for the files the
//! operation may change; the plan locks them with every other file of the
//! request, then [`Prepared::edits_in`] works out the edits on each file's
//! content as read under the lock. A file that changed between the two
//! steps is edited as it is now; the commit's own checks still hold. A
//! rewrite's scan also runs the syntax guard on each file it changes, while
//! the file's tree is at hand: the plan's guard takes that verdict for a
//! file whose content is still the one the scan read and rewrote.

use std::collections::BTreeMap;

use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;
use aide_core::walk::{WalkedFile, Walker};
use aide_core::{AideError, Root};
use llm_ast_search::{open_source, read_source};
use serde_json::Value;

use crate::error::TransformError;
use crate::growth::{Budget, Counter};
use crate::request::{Operation, ReplaceMatchesOp, ReplaceRegexOp};
pub(crate) use crate::scan::KnownSyntax;
use crate::scan::{Edit, ordered_without_overlap};
use crate::template::{Piece, Template};
pub(crate) use rewrite::PreparedRewrite;
use rewrite::prepare_rewrite;

mod rewrite;

/// A tree operation with its pattern, query or template compiled.
pub(crate) enum Prepared {
    Regex { regex: regex::bytes::Regex, template: Template, op: ReplaceRegexOp },
    Matches { records: BTreeMap<String, Vec<MatchRecord>>, template: Template },
    Rewrite(Box<PreparedRewrite>),
    Rename(Box<crate::rename::PreparedRename>),
    Refactor(Box<crate::refactor::PreparedRefactor>),
}

impl Prepared {
    /// Compiles a tree operation (None for the operations on one file);
    /// `check_syntax`: whether the request's syntax guard is on.
    pub(crate) fn new(index: usize, op: &Operation, check_syntax: bool) -> Result<Option<Prepared>, AideError> {
        Ok(Some(match op {
            Operation::ReplaceRegex(op) => Prepared::Regex {
                regex: compile_regex(op)?,
                template: Template::parse(&op.replacement),
                op: op.clone(),
            },
            Operation::ReplaceMatches(op) => prepare_matches(index, op)?,
            Operation::Rewrite(op) => Prepared::Rewrite(Box::new(prepare_rewrite(op, check_syntax)?)),
            Operation::RenameSymbol(op) => Prepared::Rename(Box::new(crate::rename::PreparedRename::new(op)?)),
            Operation::Refactor(op) => Prepared::Refactor(Box::new(crate::refactor::PreparedRefactor::new(op))),
            _ => return Ok(None),
        }))
    }

    /// The files (relative paths, sorted) the operation may change, and the
    /// diagnostics of files it could not read.
    pub(crate) fn candidates(&self, root: &Root, ctx: &Context) -> Result<(Vec<String>, Vec<Diagnostic>), AideError> {
        match self {
            Prepared::Regex { regex, op, .. } => {
                let max_filesize = op.scope.max_filesize;
                let walker = Walker::new(root, &op.scope.walk_args())?.watched(ctx);
                let threads = aide_core::walk::default_threads();
                // The text files that match, and why others were not read.
                let (found, mut diagnostics) = walker.filter_map_parallel(threads, || {
                    |file: WalkedFile| {
                        let read = open_source(root, &file.abs, &file.rel)
                            .and_then(|(f, meta)| read_source(f, &meta, &file.rel, max_filesize));
                        match read {
                            Ok(bytes) => regex.is_match(&bytes).then_some(Ok(file.rel)),
                            Err(d) => Some(Err(d)),
                        }
                    }
                })?;
                let mut files = Vec::new();
                for f in found {
                    match f {
                        Ok(rel) => files.push(rel),
                        Err(d) => diagnostics.push(d),
                    }
                }
                files.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                aide_core::envelope::sort_diagnostics(&mut diagnostics);
                Ok((files, diagnostics))
            }
            Prepared::Matches { records, .. } => Ok((records.keys().cloned().collect(), Vec::new())),
            Prepared::Rewrite(rw) => rw.candidates(root, ctx),
            Prepared::Rename(rename) => rename.candidates(root, ctx),
            Prepared::Refactor(refactor) => refactor.candidates(root, ctx),
        }
    }

    /// The edits of the operation in `rel`, whose content is `bytes`, and
    /// what the operation found out for the syntax guard when it parsed them.
    /// Each replacement is measured against `budget` before it is made.
    pub(crate) fn edits_in(
        &self,
        rel: &str,
        bytes: &[u8],
        budget: &Budget,
    ) -> Result<(Vec<Edit>, Option<KnownSyntax>), AideError> {
        let counter = Counter::new(budget, rel);
        if let Prepared::Rewrite(rw) = self {
            return rw.edits_in(rel, bytes, &counter);
        }
        self.text_edits_in(rel, bytes, &counter).map(|edits| (edits, None))
    }

    fn text_edits_in(&self, rel: &str, bytes: &[u8], counter: &Counter) -> Result<Vec<Edit>, AideError> {
        match self {
            Prepared::Regex { regex, template, .. } => {
                let mut edits = Vec::new();
                for caps in regex.captures_iter(bytes) {
                    let Some(whole) = caps.get(0) else { continue };
                    // An empty match inside a UTF-8 character would split it
                    // (sd does so); a text regex never reports one there.
                    if whole.is_empty() && !aide_core::span::is_char_boundary(bytes, whole.start()) {
                        continue;
                    }
                    let group = |p: &Piece| match p {
                        Piece::Index(i) => caps.get(*i).map(|m| m.as_bytes()),
                        Piece::Name(n) => caps.name(n).map(|m| m.as_bytes()),
                        Piece::Literal(_) => None,
                    };
                    counter.replace(whole.len(), template.expanded_len(group))?;
                    edits.push(Edit { start: whole.start(), end: whole.end(), text: template.expand(group) });
                }
                Ok(edits)
            }
            Prepared::Matches { records, template } => {
                let Some(records) = records.get(rel) else { return Ok(Vec::new()) };
                match_edits(rel, bytes, records, template, counter)
            }
            Prepared::Rewrite(_) | Prepared::Rename(_) | Prepared::Refactor(_) => {
                Err(AideError::internal("rewrite, rename and refactor edits are planned by their own steps"))
            }
        }
    }

    /// The most replacements the operation allows, if it sets a cap.
    pub(crate) fn max_replacements(&self) -> Option<usize> {
        match self {
            Prepared::Regex { op, .. } => op.max_replacements,
            Prepared::Rewrite(rw) => rw.op.max_replacements,
            Prepared::Matches { .. } | Prepared::Rename(_) | Prepared::Refactor(_) => None,
        }
    }
}

fn compile_regex(op: &ReplaceRegexOp) -> Result<regex::bytes::Regex, AideError> {
    let pattern = if op.fixed_strings { regex::escape(&op.pattern) } else { op.pattern.clone() };
    let pattern = if op.word { format!(r"\b(?:{pattern})\b") } else { pattern };
    regex::bytes::RegexBuilder::new(&pattern)
        .multi_line(true)
        .case_insensitive(op.ignore_case)
        .size_limit(64 << 20)
        .build()
        .map_err(|e| TransformError::InvalidRegex { pattern: op.pattern.clone(), message: e.to_string() }.into())
}

// ---------------------------------------------------------------- matches

/// One record of a search, as `replace_matches` uses it.
#[derive(Debug, Clone)]
pub(crate) struct MatchRecord {
    pub index: usize,
    pub start: usize,
    pub end: usize,
    pub checksum: String,
    /// Capture groups by number and name (llm-search `--captures`), or the
    /// record's own capture name (an llm-ast-search query capture).
    pub groups: Vec<Group>,
}

/// A capture group of a record: its number, name and span (None when it
/// did not take part in the match).
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub index: usize,
    pub name: Option<String>,
    pub span: Option<(usize, usize)>,
}

fn prepare_matches(op_index: usize, op: &ReplaceMatchesOp) -> Result<Prepared, AideError> {
    let mut records: BTreeMap<String, Vec<MatchRecord>> = BTreeMap::new();
    for (index, value) in op.matches.iter().enumerate() {
        let (path, record) = match_record(index, value)?;
        records.entry(path).or_default().push(record);
    }
    if records.is_empty() {
        return Err(TransformError::NoMatches { index: op_index }.into());
    }
    Ok(Prepared::Matches { records, template: Template::parse(&op.replacement) })
}

/// Reads one record: `path`, `byte_start`, `byte_end`, `checksum`, and the
/// capture groups it carries.
fn match_record(index: usize, v: &Value) -> Result<(String, MatchRecord), AideError> {
    let bad = |message: &str| TransformError::MatchRecord { index, message: message.to_string() };
    let field = |name: &str| v.get(name).and_then(Value::as_u64).map(|n| n as usize);
    let path = v.get("path").and_then(Value::as_str).ok_or_else(|| bad("no `path`"))?;
    let (Some(start), Some(end)) = (field("byte_start"), field("byte_end")) else {
        return Err(bad("no `byte_start`/`byte_end` (only records with byte spans can be edited)").into());
    };
    let Some(checksum) = v.get("checksum").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
        return Err(TransformError::MatchWithoutChecksum { index }.into());
    };
    let mut groups = Vec::new();
    if let Some(caps) = v.get("captures").and_then(Value::as_array) {
        for c in caps {
            let n = c.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            let name = c.get("name").and_then(Value::as_str).map(str::to_string);
            let span = match (c.get("byte_start").and_then(Value::as_u64), c.get("byte_end").and_then(Value::as_u64)) {
                (Some(s), Some(e)) => Some((s as usize, e as usize)),
                _ => None,
            };
            groups.push(Group { index: n, name, span });
        }
    } else if let Some(name) = v.get("capture").and_then(Value::as_str) {
        groups.push(Group { index: 0, name: Some(name.to_string()), span: Some((start, end)) });
    }
    let record = MatchRecord { index, start, end, checksum: checksum.to_string(), groups };
    Ok((path.to_string(), record))
}

/// The records of a search's output: the document llm-search or
/// llm-ast-search printed (`--json`, `--jsonl`, or just the list).
pub(crate) fn records_from_document(text: &str) -> Result<Vec<Value>, AideError> {
    let bad = |message: String| TransformError::MatchesDocument { message };
    let trimmed = text.trim_start();
    let document: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        // JSON Lines: one record a line, with its `type`.
        Err(_) if trimmed.starts_with('{') => {
            let mut records = Vec::new();
            for (n, line) in trimmed.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).map_err(|e| bad(format!("line {}: {e}", n + 1)))?;
                if v.get("ok") == Some(&Value::Bool(false)) || v.get("type").and_then(Value::as_str) == Some("error") {
                    return Err(bad("the search failed: its output is an error, not matches".into()).into());
                }
                if v.get("byte_start").is_some() {
                    records.push(v);
                }
            }
            return Ok(records);
        }
        Err(e) => return Err(bad(e.to_string()).into()),
    };
    match document {
        Value::Array(records) => Ok(records),
        Value::Object(map) => {
            if map.get("ok") == Some(&Value::Bool(false)) {
                return Err(bad("the search failed: its output is an error, not matches".into()).into());
            }
            for key in ["matches", "references", "definitions", "symbols"] {
                if let Some(Value::Array(records)) = map.get(key)
                    && (!records.is_empty() || key == "symbols")
                {
                    return Ok(records.clone());
                }
            }
            // An output with an empty list of one of them: nothing to replace.
            if ["matches", "references", "definitions"].iter().any(|k| map.contains_key(*k)) {
                return Ok(Vec::new());
            }
            Err(bad("no `matches`, `symbols`, `definitions` or `references` in it: pass the --json output of llm-search or llm-ast-search".into()).into())
        }
        _ => Err(bad("expected a JSON object or list".into()).into()),
    }
}

fn match_edits(
    rel: &str,
    bytes: &[u8],
    records: &[MatchRecord],
    template: &Template,
    counter: &Counter,
) -> Result<Vec<Edit>, AideError> {
    let current = aide_core::checksum::sha256_hex(bytes);
    let mut edits: Vec<(Edit, usize)> = Vec::with_capacity(records.len());
    for r in records {
        if !aide_core::checksum::names(&r.checksum, &current) {
            return Err(TransformError::ChecksumMismatch {
                path: rel.to_string(),
                expected: r.checksum.clone(),
                current: Some(current),
            }
            .into());
        }
        if r.start > r.end || r.end > bytes.len() {
            return Err(TransformError::MatchRecord {
                index: r.index,
                message: format!("span {}..{} is outside {rel} ({} bytes)", r.start, r.end, bytes.len()),
            }
            .into());
        }
        let span = |s: usize, e: usize| bytes.get(s..e);
        let group = |p: &Piece| match p {
            Piece::Index(0) => span(r.start, r.end),
            Piece::Index(i) => {
                r.groups.iter().find(|g| g.index == *i).and_then(|g| g.span).and_then(|(s, e)| span(s, e))
            }
            Piece::Name(n) => r
                .groups
                .iter()
                .find(|g| g.name.as_deref() == Some(n.as_str()))
                .and_then(|g| g.span)
                .and_then(|(s, e)| span(s, e)),
            Piece::Literal(_) => None,
        };
        counter.replace(r.end - r.start, template.expanded_len(group))?;
        let text = template.expand(group);
        edits.push((Edit { start: r.start, end: r.end, text }, r.index));
    }
    ordered_without_overlap(rel, bytes, edits)
}
