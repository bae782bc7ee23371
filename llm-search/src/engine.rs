//! The search itself: one grep searcher per worker thread, over the parallel
//! walk (then a deterministic sort) or the walk in path order (results as
//! they come); the page the request asked for is built in [`crate::page`].

use std::sync::atomic::{AtomicUsize, Ordering};

use aide_core::checksum::cache::Cache as ChecksumCache;
use aide_core::envelope::Diagnostic;
use aide_core::tool::{Context, Outcome};
use aide_core::walk::{WalkedFile, Walker};
use aide_core::{AideError, Root};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, SearcherBuilder};

use crate::error::{MAX_PATTERN_BYTES, SearchError};
use crate::output::SearchOutput;
use crate::page::{FileOutcome, Gather, paginate};
use crate::request::{Mode, SearchRequest};
use crate::sink::FileSettings;

/// Searches `root` for `req` and returns the page of results plus the
/// diagnostics of files that were skipped or cut short. `--max-output-bytes`
/// counts the bytes of the results as they will be printed in the context's
/// format. Stops at the context's cancellation flag; reports files searched.
pub fn search(root: &Root, req: &SearchRequest, ctx: &Context) -> Result<Outcome<SearchOutput>, AideError> {
    let format = ctx.format;
    check(req)?;
    let matcher = build_matcher(req)?;
    let capture_regexes = if req.captures { capture_regexes(req) } else { Vec::new() };
    let walker = Walker::new(root, &req.walk)?.under(&req.paths)?.watched(ctx);
    let (before, after) = req.context_lines();
    let searcher_builder = searcher_builder(req.multiline, before, after);
    let cache = ChecksumCache::open();
    let mut thread_diagnostics = Vec::new();
    let threads = aide_core::walk::worker_threads(req.threads, &mut thread_diagnostics);
    let files_searched = AtomicUsize::new(0);
    let mut settings = FileSettings {
        root,
        searcher: &searcher_builder,
        matcher: &matcher,
        capture_regexes: &capture_regexes,
        mode: req.mode,
        context: (before, after),
        max_line_len: req.max_line_len,
        max_filesize: walker.max_filesize(),
        serialize: false,
        cache: &cache,
    };

    // Text and JSONL on the command line print each file's matches as soon
    // as every earlier path is done, and a --limit stops the search once
    // its page is full: both walk in path order (see
    // `Walker::visit_ordered`). A whole JSON document gains nothing from
    // order while the search runs: the parallel walk is faster for it.
    let print = ctx.has_live() || ctx.live_records().is_some();
    let in_order = req.mode == Mode::Content && req.max_output_bytes.is_none() && (print || req.limit.is_some());
    // A whole page of a compact JSON document: each file's matches are
    // serialized by the thread that found them and kept as JSON, about a
    // third of the memory of the structs, and the main thread only sorts.
    settings.serialize = ctx.prepared_records
        && req.mode == Mode::Content
        && !in_order
        && req.offset == 0
        && req.limit.is_none()
        && req.max_output_bytes.is_none();
    let mut diagnostics = thread_diagnostics;
    // A tree an index holds (aide mcp's, or a keeper's for the command
    // line): only the files that can match are read.
    let listing = if crate::indexed::keeps_indexes() {
        crate::indexed::listing(root, req, threads)
    } else {
        crate::keeper::listing(root, req)
    };
    if let Some(listing) = listing {
        let plan = crate::listed::Plan { searcher: &searcher_builder, settings: &settings, threads, ctx };
        let (output, found) = crate::listed::search(listing, &plan, req, in_order.then_some(print))?;
        diagnostics.extend(found);
        cache.save();
        return Ok(Outcome::with_diagnostics(output, diagnostics));
    }
    if in_order {
        let mut gather = Gather::new(req, ctx, print);
        diagnostics.extend(walk_in_order(&walker, threads, &searcher_builder, &settings, &mut gather)?);
        diagnostics.append(&mut gather.diagnostics);
        cache.save();
        let output = gather.finish();
        after_walk(root, req, &output);
        return Ok(Outcome::with_diagnostics(output, diagnostics));
    }

    let (outcomes, walk_diagnostics) =
        search_parallel(&walker, threads, &searcher_builder, &settings, &files_searched)?;
    cache.save();
    diagnostics.extend(walk_diagnostics);
    let results = crate::page::files_with_matches(outcomes, &mut diagnostics);

    let output = paginate(req, results, files_searched.into_inner(), format, ctx.voice, &mut diagnostics);
    after_walk(root, req, &output);
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

/// A command line's walk of a large tree starts its index's keeper, for
/// the next searches ([`crate::keeper`]).
fn after_walk(root: &Root, req: &SearchRequest, output: &SearchOutput) {
    if !crate::indexed::keeps_indexes() && req.walk.changed.is_none() {
        crate::keeper::after_walk(root, req, output.files_searched);
    }
}

/// What no search can run with: no pattern, a bad limit, dotall without multiline.
fn check(req: &SearchRequest) -> Result<(), AideError> {
    if req.pattern.is_empty() {
        return Err(SearchError::NoPattern.into());
    }
    aide_core::request::check_limit(req.limit)?;
    if req.multiline_dotall && !req.multiline {
        return Err(SearchError::DotallWithoutMultiline.into());
    }
    Ok(())
}

/// The walk in path order, each file's outcome taken as soon as every
/// earlier path is done, until the page is full; the walk's diagnostics.
fn walk_in_order(
    walker: &Walker<'_>,
    threads: usize,
    searcher_builder: &SearcherBuilder,
    settings: &FileSettings<'_>,
    gather: &mut Gather<'_>,
) -> Result<Vec<Diagnostic>, AideError> {
    walker.visit_ordered(
        threads,
        || {
            let mut searcher = searcher_builder.build();
            // One copy buffer per thread, reused file after file.
            let mut copy = Vec::new();
            move |file: &WalkedFile| crate::file::search_file(&mut searcher, settings, file, &mut copy)
        },
        |_, outcome| gather.take(outcome),
    )
}

/// The searcher every file is read with: line numbers, the context asked,
/// a NUL ending the search of a binary file, offsets into the file's own bytes.
fn searcher_builder(multiline: bool, before: usize, after: usize) -> SearcherBuilder {
    let mut b = SearcherBuilder::new();
    b.line_number(true)
        .multi_line(multiline)
        .before_context(before)
        .after_context(after)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        // Offsets must stay offsets into the file's own bytes.
        .encoding(None)
        .bom_sniffing(false);
    b
}

/// Searches every file on `threads` threads in no order: the outcomes of
/// the files with matches or a diagnostic (each counted in `files_searched`).
fn search_parallel(
    walker: &Walker<'_>,
    threads: usize,
    searcher_builder: &SearcherBuilder,
    settings: &FileSettings<'_>,
    files_searched: &AtomicUsize,
) -> Result<(Vec<FileOutcome>, Vec<Diagnostic>), AideError> {
    walker.filter_map_parallel(threads, || {
        let mut searcher = searcher_builder.build();
        // One copy buffer per thread, reused file after file.
        let mut copy = Vec::new();
        move |file: WalkedFile| {
            let outcome = crate::file::search_file(&mut searcher, settings, &file, &mut copy);
            if let FileOutcome::Searched(result, diagnostic) = &outcome {
                files_searched.fetch_add(1, Ordering::Relaxed);
                if result.count == 0 && diagnostic.is_none() {
                    return None;
                }
            }
            Some(outcome)
        }
    })
}

fn build_matcher(req: &SearchRequest) -> Result<RegexMatcher, AideError> {
    let total: usize = req.pattern.iter().map(String::len).sum();
    if total > MAX_PATTERN_BYTES {
        return Err(SearchError::PatternTooLong { total }.into());
    }
    let mut b = RegexMatcherBuilder::new();
    b.case_smart(req.smart_case)
        .case_insensitive(req.ignore_case)
        .multi_line(true)
        .unicode(true)
        .octal(false)
        .fixed_strings(req.fixed_strings)
        .word(req.word);
    if req.multiline {
        b.dot_matches_new_line(req.multiline_dotall);
    } else {
        b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
    }
    b.build_many(&req.pattern).map_err(|e| pattern_error(req, &e).into())
}

/// Locates a pattern error precisely with regex-syntax, which reports spans.
fn pattern_error(req: &SearchRequest, err: &grep_regex::Error) -> SearchError {
    if !req.fixed_strings {
        for (index, p) in req.pattern.iter().enumerate() {
            let parsed = regex_syntax::ParserBuilder::new().multi_line(true).build().parse(p);
            let located = match &parsed {
                Err(regex_syntax::Error::Parse(e)) => Some((e.kind().to_string(), e.span().start)),
                Err(regex_syntax::Error::Translate(e)) => Some((e.kind().to_string(), e.span().start)),
                _ => None,
            };
            if let Some((message, at)) = located {
                return SearchError::InvalidRegex {
                    pattern: p.clone(),
                    index,
                    message: format!("{message} (at column {})", at.column),
                    offset: Some(at.offset),
                    column: Some(at.column),
                };
            }
        }
    }
    let first_line = err.to_string().lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").to_string();
    SearchError::InvalidRegex {
        pattern: req.pattern.join(" | "),
        index: 0,
        message: first_line.trim_start_matches("error: ").to_string(),
        offset: None,
        column: None,
    }
}

/// One regex per pattern, to recover capture groups and their names. A
/// match is attributed to the first pattern that reproduces its exact span.
fn capture_regexes(req: &SearchRequest) -> Vec<regex::bytes::Regex> {
    req.pattern
        .iter()
        .filter_map(|p| {
            let p = if req.fixed_strings { regex::escape(p) } else { p.clone() };
            let insensitive = req.ignore_case || (req.smart_case && !p.chars().any(char::is_uppercase));
            let p = if req.word { format!(r"\b(?:{p})\b") } else { p };
            regex::bytes::RegexBuilder::new(&p)
                .case_insensitive(insensitive)
                .multi_line(true)
                .dot_matches_new_line(req.multiline_dotall)
                .build()
                .ok()
        })
        .collect()
}
