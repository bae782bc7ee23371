//! A search of the files an index listed ([`crate::indexed`]): the files
//! that can hold a match searched by the same per-file search as a walk's,
//! the others counted as searched without one, so the page, totals and
//! diagnostics are the ones a walk of the tree gives.

use std::ops::ControlFlow;

use aide_core::AideError;
use aide_core::envelope::Diagnostic;
use aide_core::tool::Context;
use aide_core::walk::WalkedFile;
use grep_searcher::SearcherBuilder;

use crate::file::search_file;
use crate::indexed::Listing;
use crate::output::SearchOutput;
use crate::page::{FileOutcome, Gather, paginate};
use crate::request::SearchRequest;
use crate::sink::FileSettings;

/// How the listing is searched: as the walk would for this request.
pub(crate) struct Plan<'a> {
    pub(crate) searcher: &'a SearcherBuilder,
    pub(crate) settings: &'a FileSettings<'a>,
    pub(crate) threads: usize,
    pub(crate) ctx: &'a Context,
}

/// In path order, results as they come: each batch of the files that can
/// match searched on every thread, then taken in order, the files between
/// them counted as searched without a match, until the page is full; the
/// path of the file the page was full at, if it was.
fn in_order(listing: &Listing, plan: &Plan<'_>, gather: &mut Gather<'_>) -> Result<Option<String>, AideError> {
    let batch = 64 * plan.threads.max(1);
    let mut next = 0;
    for files in listing.candidates.chunks(batch) {
        plan.ctx.check_cancel()?;
        for ((position, file), outcome) in files.iter().zip(search_all(files, plan)) {
            gather.searched_without_match(position - next);
            next = position + 1;
            if gather.take(outcome) == ControlFlow::Break(()) {
                return Ok(Some(file.rel.clone()));
            }
        }
    }
    gather.searched_without_match(listing.files.saturating_sub(next));
    Ok(None)
}

/// Every outcome with a match or a diagnostic, in no order that matters
/// (the caller sorts), and the number of files searched: those that could
/// not match among them.
fn collected(listing: Listing, plan: &Plan<'_>) -> Result<(Vec<FileOutcome>, usize), AideError> {
    plan.ctx.check_cancel()?;
    let outcomes = search_all(&listing.candidates, plan);
    let searched = outcomes.iter().filter(|o| matches!(o, FileOutcome::Searched(..))).count();
    let kept = outcomes
        .into_iter()
        .filter(|o| match o {
            FileOutcome::Searched(result, diagnostic) => result.count > 0 || diagnostic.is_some(),
            FileOutcome::Skipped(_) => true,
        })
        .collect();
    Ok((kept, searched + listing.files - listing.candidates.len()))
}

/// Each file's outcome, in order, searched on the plan's threads (this
/// one among them: a thread less to start for the few files an index lists).
fn search_all(files: &[(usize, WalkedFile)], plan: &Plan<'_>) -> Vec<FileOutcome> {
    let per = files.len().div_ceil(plan.threads.max(1)).max(1);
    let search_part = |part: &[(usize, WalkedFile)]| {
        let mut searcher = plan.searcher.build();
        let mut copy = Vec::new();
        part.iter().map(|(_, file)| search_file(&mut searcher, plan.settings, file, &mut copy)).collect::<Vec<_>>()
    };
    let mut parts = files.chunks(per);
    let Some(first) = parts.next() else { return Vec::new() };
    std::thread::scope(|s| {
        let handles: Vec<_> = parts.map(|part| s.spawn(move || search_part(part))).collect();
        let mut outcomes = search_part(first);
        for h in handles {
            outcomes.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        outcomes
    })
}

/// The search of a listing: in path order, results as they come, when
/// `in_order` (with whether they are printed), else collected and paged
/// (what the walk's paths do); the output and its diagnostics, the walk's
/// among them.
pub(crate) fn search(
    mut listing: Listing,
    plan: &Plan<'_>,
    req: &SearchRequest,
    in_order: Option<bool>,
) -> Result<(SearchOutput, Vec<Diagnostic>), AideError> {
    if let Some(print) = in_order {
        let mut gather = Gather::new(req, plan.ctx, print);
        let stopped_at = self::in_order(&listing, plan, &mut gather)?;
        let mut diagnostics = listing.diagnostics;
        // As the ordered walk: what it would have met past the stop is not said.
        if let Some(last) = stopped_at {
            diagnostics.retain(|d| d.path.as_deref().is_none_or(|p| p.as_bytes() <= last.as_bytes()));
        }
        diagnostics.append(&mut gather.diagnostics);
        return Ok((gather.finish(), diagnostics));
    }
    let mut diagnostics = std::mem::take(&mut listing.diagnostics);
    let (outcomes, searched) = collected(listing, plan)?;
    let results = crate::page::files_with_matches(outcomes, &mut diagnostics);
    let output = paginate(req, results, searched, plan.ctx.format, plan.ctx.voice, &mut diagnostics);
    Ok((output, diagnostics))
}
