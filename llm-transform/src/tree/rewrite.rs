//! `rewrite`: every match of a tree-sitter query replaced by a template of
//! its captures. Matches nested in another's captures are rewritten inside
//! out; the scan that finds the files works out each file's edits (and the
//! syntax guard's verdict) while its tree is at hand, and the plan takes
//! them for a file whose content is still the one the scan read.

use std::collections::BTreeMap;

use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;
use aide_core::{AideError, Lang, Root};
use llm_ast_search::SourceFile;
use streaming_iterator::StreamingIterator;

use crate::error::TransformError;
use crate::growth::{Budget, Counter};
use crate::request::RewriteOp;
use crate::scan::{Edit, KnownSyntax, ScanCache, ordered_without_overlap, overlap_error, source_scope};
use crate::template::{Piece, Template};

/// A compiled `rewrite`.
pub(crate) struct PreparedRewrite {
    pub lang: Lang,
    pub query: llm_ast_search::CompiledQuery,
    pub template: Template,
    /// The capture whose node each match replaces (None: the widest).
    pub replace: Option<u32>,
    pub op: RewriteOp,
    /// The edits (and the guard's verdict) worked out while finding the
    /// files: the locked content, if unchanged, is not parsed again.
    found: ScanCache<FoundEdits>,
    /// Whether the scan runs the syntax guard (not when the request allows
    /// syntax errors).
    check_syntax: bool,
    /// A literal every match contains, when the query says so.
    literal: Option<String>,
    /// What the edits the scan kept add, all files together: past the
    /// growth cap, a file's edits are not kept (the plan works them out
    /// again, within its budget).
    kept_growth: std::sync::atomic::AtomicU64,
}

/// The edits a rewrite worked out for a file while finding it, and what it
/// found out for the syntax guard.
type FoundEdits = (Result<Vec<Edit>, AideError>, KnownSyntax);

pub(super) fn prepare_rewrite(op: &RewriteOp, check_syntax: bool) -> Result<PreparedRewrite, AideError> {
    let lang: Lang = op.language.parse()?;
    let query = llm_ast_search::compile_query(lang, &op.query)?;
    let template = Template::parse(&op.template);
    let names = query.query.capture_names();
    let unknown = |name: String| -> AideError {
        TransformError::UnknownCapture { name, available: names.iter().map(|n| n.to_string()).collect() }.into()
    };
    for p in template.references() {
        let name = match p {
            Piece::Name(n) => n.clone(),
            Piece::Index(i) => i.to_string(),
            Piece::Literal(_) => continue,
        };
        if !names.contains(&name.as_str()) {
            return Err(unknown(name));
        }
    }
    let replace = match &op.replace {
        None => None,
        Some(name) => Some(query.query.capture_index_for_name(name).ok_or_else(|| unknown(name.clone()))?),
    };
    let literal = llm_ast_search::required_literal(&query);
    Ok(PreparedRewrite {
        lang,
        query,
        template,
        replace,
        op: op.clone(),
        found: Default::default(),
        check_syntax,
        literal,
        kept_growth: Default::default(),
    })
}

impl PreparedRewrite {
    /// The files the rewrite changes (its scan keeps their edits), and
    /// the diagnostics of files it could not read.
    pub(crate) fn candidates(&self, root: &Root, ctx: &Context) -> Result<(Vec<String>, Vec<Diagnostic>), AideError> {
        let walk = self.op.scope.walk_args();
        let scope = source_scope(root, &walk, Some(self.lang), ctx);
        let (found, diagnostics) = scope.map_files(self.literal.as_deref().map(str::as_bytes), |file, _| {
            // Measured against the bound of this file alone: the plan
            // checks the request's whole budget.
            let mut budget = Budget::default();
            budget.read(file.source.len());
            let counter = Counter::new(&budget, &file.path);
            let edits = rewrite_edits(self, file, &counter);
            if matches!(&edits, Ok(e) if e.is_empty()) {
                return None;
            }
            if counter.passed() || !self.keeps(counter.added()) {
                // Past a bound: the plan works it out within its own.
                return Some(file.path.clone());
            }
            let known = match &edits {
                Ok(edits) if self.check_syntax => checked_in_scan(self.lang, file, edits),
                _ => None,
            };
            let known = known.unwrap_or_else(|| KnownSyntax::Tree((self.lang, file.tree.clone())));
            self.found.keep(file, (edits, known));
            Some(file.path.clone())
        })?;
        Ok((found.into_iter().flatten().collect(), diagnostics))
    }

    /// The rewrite's edits of `rel`, whose content is `bytes`: those the
    /// scan kept when the content is the one it read, else worked out anew.
    pub(crate) fn edits_in(
        &self,
        rel: &str,
        bytes: &[u8],
        counter: &Counter,
    ) -> Result<(Vec<Edit>, Option<KnownSyntax>), AideError> {
        match self.found.take(rel, bytes) {
            Some((edits, known)) => Ok((edits?, Some(known))),
            None => {
                let file = SourceFile::parse(rel.to_string(), self.lang, bytes.to_vec())
                    .map_err(|d| AideError::internal(d.message))?;
                let edits = rewrite_edits(self, &file, counter)?;
                Ok((edits, Some(KnownSyntax::Tree((self.lang, file.tree.clone())))))
            }
        }
    }

    /// Whether the scan keeps a file's edits that add `added` bytes: not
    /// once the edits it kept would pass the growth cap.
    fn keeps(&self, added: i128) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let added = u64::try_from(added).unwrap_or(0);
        let before = self.kept_growth.fetch_add(added, Relaxed);
        before.saturating_add(added) <= crate::growth::cap()
    }
}

/// One match of a rewrite: the span it replaces and its captures' spans.
#[derive(Debug, Clone)]
struct Found {
    start: usize,
    end: usize,
    captures: BTreeMap<u32, (usize, usize)>,
}

/// The syntax guard's verdict on `file` with `edits` applied, worked out
/// from its tree (None where the guard would not take it: the edits do not
/// apply, or the new content reads as another language).
fn checked_in_scan(lang: Lang, file: &SourceFile, edits: &[Edit]) -> Option<KnownSyntax> {
    let spans: Vec<(usize, usize, &[u8])> = edits.iter().map(|e| (e.start, e.end, e.text.as_slice())).collect();
    let (after, applied) = crate::text::apply_span_edits_tracked(&file.source, &spans).ok()?;
    if Lang::from_path_and_content(std::path::Path::new(&file.path), &after) != Some(lang) {
        return None;
    }
    let mut regions = crate::sites::Regions::default();
    regions.apply(&applied);
    let earlier = crate::guards::Earlier { tree: &file.tree, regions: &regions };
    let issues = crate::guards::new_issues_from(lang, Some(&file.source), &after, Some(&earlier));
    Some(KnownSyntax::Checked { lang, after, issues })
}

fn rewrite_edits(rw: &PreparedRewrite, file: &SourceFile, counter: &Counter) -> Result<Vec<Edit>, AideError> {
    let (rel, bytes) = (file.path.as_str(), file.source.as_slice());
    // An edit never skips a file: one too deep for the query refuses the whole transform.
    if let Some(too_deep) = llm_ast_search::too_deep_for(&rw.query, file) {
        return Err(TransformError::QueryTooDeep { message: too_deep.message }.into());
    }
    let query = &rw.query.query;
    let names = query.capture_names();
    // A query with a required literal (`#eq? @m "unwrap"`) only matches
    // where the literal is: the cursor visits the nodes around each
    // occurrence instead of the whole tree.
    let ranges: Vec<std::ops::Range<usize>> = match &rw.literal {
        Some(lit) => memchr::memmem::find_iter(bytes, lit.as_bytes()).map(|at| at..at + lit.len()).collect(),
        None => std::iter::once(0..bytes.len()).collect(),
    };
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut found: Vec<Found> = Vec::new();
    for range in ranges {
        cursor.set_byte_range(range);
        let mut matches = cursor.matches(query, file.tree.root_node(), file.source.as_slice());
        while let Some(m) = matches.next() {
            if m.captures().is_empty() {
                continue;
            }
            // Each capture's text: from its first node to its last (a
            // quantified capture spans all its nodes).
            let mut captures: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
            for c in m.captures() {
                let (s, e) = (c.node.start_byte(), c.node.end_byte());
                captures.entry(c.index).and_modify(|r| *r = (r.0.min(s), r.1.max(e))).or_insert((s, e));
            }
            let (start, end) = match rw.replace {
                Some(i) => match captures.get(&i) {
                    Some(span) => *span,
                    None => continue,
                },
                None => widest(rel, &captures, names)?,
            };
            found.push(Found { start, end, captures });
        }
    }
    // Outer matches first; a span matched twice (two patterns) is rewritten once.
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    found.dedup_by(|b, a| (a.start, a.end) == (b.start, b.end));
    let rewriter = Rewriter { rw, rel, bytes, counter };
    let mut edits = Vec::new();
    let mut i = 0;
    while i < found.len() {
        let inner = rewriter.descendants(&found, i)?;
        let text = rewriter.render(&found[i], &found[i + 1..i + 1 + inner], 0)?;
        counter.replace(found[i].end - found[i].start, text.len())?;
        edits.push((Edit { start: found[i].start, end: found[i].end, text }, edits.len()));
        i += 1 + inner;
    }
    ordered_without_overlap(rel, bytes, edits)
}

/// Renders matches whose captures hold other matches: the inner ones are
/// rewritten first and their text is what the outer template takes, so
/// `a.unwrap().err().unwrap()` is rewritten whole. An inner match that
/// straddles a capture's edge, or lies where the template drops the text,
/// would be lost: that is refused as an overlap.
struct Rewriter<'a> {
    rw: &'a PreparedRewrite,
    rel: &'a str,
    bytes: &'a [u8],
    /// What the file's rewrites add: no rendering takes the files past the bound.
    counter: &'a Counter<'a>,
}

impl Rewriter<'_> {
    fn overlap(&self, a: (usize, usize), b: (usize, usize)) -> AideError {
        overlap_error(self.rel, self.bytes, a, b)
    }

    /// How many matches after `found[i]` lie inside it; one that starts
    /// inside and ends outside is an overlap.
    fn descendants(&self, found: &[Found], i: usize) -> Result<usize, AideError> {
        let outer = &found[i];
        let mut n = 0;
        for f in &found[i + 1..] {
            if f.start >= outer.end && !(f.start == outer.end && f.end == outer.end && outer.start == outer.end) {
                break;
            }
            if f.end > outer.end {
                return Err(self.overlap((outer.start, outer.end), (f.start, f.end)));
            }
            n += 1;
        }
        Ok(n)
    }

    /// The template of `m`, each capture's text with the matches `inside`
    /// it rewritten.
    fn render(&self, m: &Found, inside: &[Found], depth: usize) -> Result<Vec<u8>, AideError> {
        aide_core::text::check_depth("the rewrite's nesting of matches", depth)?;
        let query = &self.rw.query.query;
        let index_of = |p: &Piece| match p {
            Piece::Name(name) => query.capture_index_for_name(name),
            Piece::Index(i) => query.capture_index_for_name(&i.to_string()),
            Piece::Literal(_) => None,
        };
        // Only the captures the template uses are rendered (each once), and
        // every inner match must sit inside one of them.
        let mut texts: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
        for i in self.rw.template.references().filter_map(index_of) {
            if let (Some(&(s, e)), false) = (m.captures.get(&i), texts.contains_key(&i)) {
                texts.insert(i, self.compose(s, e, inside, depth)?);
            }
        }
        for f in inside {
            let carried = texts.keys().filter_map(|i| m.captures.get(i)).any(|&(s, e)| s <= f.start && f.end <= e);
            if !carried {
                return Err(self.overlap((m.start, m.end), (f.start, f.end)));
            }
        }
        let text = |p: &Piece| index_of(p).and_then(|i| texts.get(&i)).map(Vec::as_slice);
        self.counter.fits(m.end - m.start, self.rw.template.expanded_len(text))?;
        Ok(self.rw.template.expand(text))
    }

    /// Bytes `s..e` with the outermost matches of `inside` within them rewritten.
    fn compose(&self, s: usize, e: usize, inside: &[Found], depth: usize) -> Result<Vec<u8>, AideError> {
        let mut out = Vec::with_capacity(e - s);
        let mut at = s;
        let mut k = 0;
        while k < inside.len() {
            let f = &inside[k];
            let within = s <= f.start && f.end <= e;
            let nested = self.descendants(inside, k)?;
            if within && f.start >= at {
                out.extend_from_slice(&self.bytes[at..f.start]);
                out.extend(self.render(f, &inside[k + 1..k + 1 + nested], depth + 1)?);
                at = f.end;
            }
            k += 1 + nested;
        }
        out.extend_from_slice(&self.bytes[at..e]);
        Ok(out)
    }
}

/// The capture whose span contains every other capture of the match.
fn widest(rel: &str, spans: &BTreeMap<u32, (usize, usize)>, names: &[&str]) -> Result<(usize, usize), AideError> {
    let outer = spans.values().copied().max_by_key(|&(s, e)| (e - s, std::cmp::Reverse(s)));
    match outer {
        Some(o) if spans.values().all(|&(s, e)| o.0 <= s && e <= o.1) => Ok(o),
        _ => Err(TransformError::NoWidestCapture {
            path: rel.to_string(),
            captures: spans.keys().filter_map(|&i| names.get(i as usize)).map(|n| n.to_string()).collect(),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(language: &str, query: &str, template: &str) -> PreparedRewrite {
        let op = RewriteOp {
            language: language.into(),
            query: query.into(),
            template: template.into(),
            replace: None,
            max_replacements: None,
            scope: Default::default(),
        };
        prepare_rewrite(&op, true).unwrap_or_else(|e| panic!("{}", e.message))
    }

    fn rewrite(language: &str, query: &str, template: &str, src: &str, literal: bool) -> Vec<Edit> {
        let mut rw = prepared(language, query, template);
        if !literal {
            rw.literal = None;
        }
        let lang: Lang = language.parse().unwrap_or(Lang::Rust);
        let file = SourceFile::parse("f".into(), lang, src.as_bytes().to_vec()).unwrap_or_else(|_| panic!("parse"));
        let budget = Budget::default();
        rewrite_edits(&rw, &file, &Counter::new(&budget, "f")).unwrap_or_else(|e| panic!("{}", e.message))
    }

    /// Each nested match is rendered once, for the capture the template
    /// uses: rendering it for every capture around it (here `@call` holds
    /// all 40 levels too) doubled the work at each level.
    #[test]
    fn deeply_nested_matches_are_rendered_once_each() {
        let depth = 40;
        let src = format!("fn f() {{ {}1{} }}\n", "old(".repeat(depth), ")".repeat(depth));
        let query =
            r#"(call_expression function: (identifier) @f (#eq? @f "old") arguments: (arguments (_) @a)) @call"#;
        let edits = rewrite("rust", query, "new(${a})", &src, true);
        let expected = format!("{}1{}", "new(".repeat(depth), ")".repeat(depth));
        assert_eq!(edits.len(), 1);
        assert_eq!(String::from_utf8_lossy(&edits[0].text), expected);
    }

    /// Looking only around the required literal finds every match a walk
    /// of the whole tree finds, nested ones and multi-line ones included.
    #[test]
    fn matches_near_the_literal_are_all_the_matches() {
        let cases = [
            (
                "rust",
                r#"(call_expression function: (field_expression value: (_) @x field: (field_identifier) @m (#eq? @m "unwrap")) arguments: (arguments) @a (#eq? @a "()")) @c"#,
                "${x}.expect(\"e\")",
                "fn f() {\n    let v = a\n        .b()\n        .unwrap()\n        .c(d.unwrap())\n        .unwrap();\n    g(unwrap);\n}\n",
            ),
            (
                "python",
                r#"(call function: (identifier) @f (#eq? @f "old") arguments: (argument_list) @args) @call"#,
                "new${args}",
                "x = old(old(1),\n        2)\ny = [old(z) for z in old()]\n",
            ),
        ];
        for (language, query, template, src) in cases {
            let near = rewrite(language, query, template, src, true);
            let whole = rewrite(language, query, template, src, false);
            assert!(!near.is_empty(), "{language}");
            assert_eq!(near, whole, "{language}");
        }
    }

    /// The verdict the scan works out from the file's tree is the guard's
    /// own on the whole new content: new errors found, old ones not counted.
    #[test]
    fn the_scans_syntax_verdict_is_the_guards() {
        let query = r#"(call_expression function: (identifier) @f (#eq? @f "old") arguments: (arguments) @args) @call"#;
        let cases = [
            ("fn f() { old(1); old(2) }\n", "new${args}", false),
            ("fn f() { old(1); old(2) }\n", "new(${args}", true),
            ("fn f() {\n    old(1);\n    let = ;\n}\n", "new${args}", false),
            ("fn f() {\n    old(1);\n    let = ;\n}\n", "${args} +", true),
        ];
        for (src, template, breaks) in cases {
            let rw = prepared("rust", query, template);
            let file = SourceFile::parse("f.rs".into(), Lang::Rust, src.as_bytes().to_vec())
                .unwrap_or_else(|_| panic!("parse"));
            let budget = Budget::default();
            let edits =
                rewrite_edits(&rw, &file, &Counter::new(&budget, "f.rs")).unwrap_or_else(|e| panic!("{}", e.message));
            let Some(KnownSyntax::Checked { lang, after, issues }) = checked_in_scan(Lang::Rust, &file, &edits) else {
                panic!("no verdict for {template}")
            };
            assert_eq!(lang, Lang::Rust);
            let whole = crate::guards::new_issues_from(Lang::Rust, Some(src.as_bytes()), &after, None);
            assert_eq!(issues, whole, "{template} on {src}");
            assert_eq!(!issues.is_empty(), breaks, "{template} on {src}: {issues:?}");
        }
    }
}
