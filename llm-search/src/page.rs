//! The page a request asks for: built from every result once the search is
//! done ([`paginate`], with --max-output-bytes), or as results come in path
//! order ([`Gather`]: printed at once when the output streams).

use aide_core::Format;
use aide_core::color::TextOut;
use aide_core::envelope::{Diagnostic, diag};
use aide_core::tool::Context;
use aide_core::voice::Voice;

use crate::output::{FileCount, Match, SearchOutput};
use crate::request::{Mode, SearchRequest};

/// The matches of one file.
pub(crate) struct FileResult {
    pub(crate) path: String,
    /// SHA-256 of the bytes searched (empty for a file without matches).
    pub(crate) checksum: std::sync::Arc<str>,
    pub(crate) matches: Vec<Match>,
    /// The matches as comma-separated JSON, when serialized here
    /// (`FileSettings::serialize`): `matches` is then empty.
    pub(crate) json: Option<String>,
    pub(crate) count: usize,
    pub(crate) lines: usize,
}

pub(crate) enum FileOutcome {
    Skipped(Diagnostic),
    Searched(FileResult, Option<Diagnostic>),
}

/// Content mode in path order: each file's matches as they come, the
/// totals counted, the page printed at once (`print`) or kept. Only the
/// page is kept — for the output, or for the execution log when printed.
pub(crate) struct Gather<'r> {
    req: &'r SearchRequest,
    ctx: &'r Context,
    print: bool,
    pub(crate) diagnostics: Vec<Diagnostic>,
    output: SearchOutput,
    write_failed: bool,
    /// The printed page kept for the log, as comma-separated JSON.
    log_json: Vec<u8>,
}

impl<'r> Gather<'r> {
    pub(crate) fn new(req: &'r SearchRequest, ctx: &'r Context, print: bool) -> Gather<'r> {
        Gather {
            req,
            ctx,
            print,
            diagnostics: Vec::new(),
            output: SearchOutput {
                mode: req.mode,
                matches: Vec::new(),
                files: Vec::new(),
                total_matches: 0,
                total_lines: 0,
                files_with_matches: 0,
                files_searched: 0,
                truncated: false,
                next_offset: None,
                totals_exact: true,
                streamed: print,
                printed: 0,
                log_overflow: None,
                records_json: None,
            },
            write_failed: false,
            log_json: Vec::new(),
        }
    }

    /// Takes the next file's outcome; breaks once --limit's page is full
    /// and a match past it shows that more remain.
    /// Counts `files` searched without a match (an index said they hold none).
    pub(crate) fn searched_without_match(&mut self, files: usize) {
        self.output.files_searched += files;
    }

    pub(crate) fn take(&mut self, outcome: FileOutcome) -> std::ops::ControlFlow<()> {
        use std::ops::ControlFlow;
        let result = match outcome {
            FileOutcome::Skipped(d) => {
                self.diagnostics.push(d);
                return ControlFlow::Continue(());
            }
            FileOutcome::Searched(result, d) => {
                self.diagnostics.extend(d);
                self.output.files_searched += 1;
                result
            }
        };
        if result.count == 0 {
            return ControlFlow::Continue(());
        }
        let first = self.output.total_matches;
        self.output.total_matches += result.count;
        self.output.total_lines += result.lines;
        self.output.files_with_matches += 1;
        // The part of this file's matches inside the page.
        let (offset, limit) = (self.req.offset, self.req.limit.unwrap_or(usize::MAX));
        let skip = offset.saturating_sub(first).min(result.matches.len());
        let take = limit.saturating_sub(self.output.printed).min(result.matches.len() - skip);
        if take > 0 {
            let page = &result.matches[skip..skip + take];
            self.output.printed += take;
            // The printed page is kept for the execution log as the JSON it
            // is stored as, until it is more than the log keeps.
            let keep_log = self.print && self.ctx.logged && self.output.log_overflow.is_none();
            let mut kept = false;
            if self.print && !self.write_failed {
                // A closed pipe ends the printing, not the search: the
                // totals and the log stay whole.
                let keep = if keep_log { Some(&mut self.log_json) } else { None };
                let written = if let Some(mut live) = self.ctx.live() {
                    live.text_batch(|w| crate::output::write_matches(w, page))
                } else if let Some(mut live) = self.ctx.live_records() {
                    kept = keep_log;
                    live.records("match", page, keep).map(|_| ())
                } else {
                    Ok(())
                };
                self.write_failed = written.is_err();
            }
            if !self.print {
                self.output.matches.extend_from_slice(page);
            } else if keep_log {
                if !kept {
                    crate::output::append_json(&mut self.log_json, page);
                }
                if self.log_json.len() > aide_log::max_result_bytes() {
                    self.output.log_overflow = Some(self.log_json.len() as u64);
                    self.log_json = Vec::new();
                }
            }
        }
        if self.req.limit.is_some() && self.output.total_matches > offset.saturating_add(limit) {
            self.output.totals_exact = false;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    pub(crate) fn finish(mut self) -> SearchOutput {
        if self.print && self.ctx.logged && self.output.log_overflow.is_none() {
            // serde_json writes UTF-8: no copy.
            let json =
                String::from_utf8(self.log_json).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            self.output.records_json = Some(vec![json]);
        }
        let next_offset = self.req.offset.saturating_add(self.output.printed);
        if next_offset < self.output.total_matches {
            self.output.truncated = true;
            self.output.next_offset = Some(next_offset);
        }
        self.output
    }
}

/// The files with matches, in path order; every diagnostic goes to `diagnostics`.
pub(crate) fn files_with_matches(outcomes: Vec<FileOutcome>, diagnostics: &mut Vec<Diagnostic>) -> Vec<FileResult> {
    let mut results = Vec::new();
    for outcome in outcomes {
        match outcome {
            FileOutcome::Skipped(d) => diagnostics.push(d),
            FileOutcome::Searched(result, d) => {
                diagnostics.extend(d);
                if result.count > 0 {
                    results.push(result);
                }
            }
        }
    }
    results.sort_by(|a, b| aide_core::ordering::cmp_path(&a.path, &b.path));
    results
}

// Long because: one arm per search mode (serialized records, matches, files or counts), each paged its way, then the page said once.
/// Applies --offset, --limit and --max-output-bytes to the sorted results.
/// Results whose matches were serialized where they were found (no page to
/// cut: see `engine::search`) hand their JSON on as the records.
pub(crate) fn paginate(
    req: &SearchRequest,
    results: Vec<FileResult>,
    files_searched: usize,
    format: Format,
    voice: Voice,
    diagnostics: &mut Vec<Diagnostic>,
) -> SearchOutput {
    let total_matches = results.iter().map(|r| r.count).sum();
    let total_lines = results.iter().map(|r| r.lines).sum();
    let files_with_matches = results.len();
    let mut output = SearchOutput {
        mode: req.mode,
        matches: Vec::new(),
        files: Vec::new(),
        total_matches,
        total_lines,
        files_with_matches,
        files_searched,
        truncated: false,
        next_offset: None,
        totals_exact: true,
        streamed: false,
        printed: 0,
        log_overflow: None,
        records_json: None,
    };
    let total_items;
    let kept;
    let mut byte_capped = false;
    match req.mode {
        Mode::Content if results.iter().any(|r| r.json.is_some()) => {
            total_items = total_matches;
            kept = total_matches;
            output.records_json = Some(results.into_iter().filter_map(|r| r.json).collect());
        }
        Mode::Content => {
            let all: Vec<Match> = results.into_iter().flat_map(|r| r.matches).collect();
            total_items = all.len();
            output.matches = page(
                all,
                req,
                &mut byte_capped,
                |m, w| crate::output::write_match(&mut TextOut::plain(w), m, &[]),
                format,
                "match",
            );
            kept = output.matches.len();
        }
        Mode::Files | Mode::Count => {
            let all: Vec<FileCount> = results
                .into_iter()
                .map(|r| FileCount { path: r.path, checksum: r.checksum, matches: r.count, lines: r.lines })
                .collect();
            total_items = all.len();
            let mode = req.mode;
            output.files = page(
                all,
                req,
                &mut byte_capped,
                |f, w| crate::output::write_file(&mut TextOut::plain(w), f, mode),
                format,
                "file",
            );
            kept = output.files.len();
        }
    }
    output.truncated = byte_capped;
    let next = req.offset.saturating_add(kept);
    if next < total_items {
        output.truncated = true;
        output.next_offset = Some(next);
    }
    if byte_capped && output.next_offset.is_some() {
        diagnostics.push(Diagnostic::new(
            diag::OUTPUT_TRUNCATED,
            format!(
                "output cut at {kept} of {total_items} results to stay under {}; continue with {}",
                voice.arg_is("max_output_bytes", req.max_output_bytes.unwrap_or(0)),
                voice.arg_is("offset", next)
            ),
        ));
    }
    output
}

/// The window of `items` the request asks for, cut before the items as
/// printed in `format` (`write_text` for text) pass --max-output-bytes.
fn page<T: serde::Serialize>(
    items: Vec<T>,
    req: &SearchRequest,
    byte_capped: &mut bool,
    write_text: impl Fn(&T, &mut dyn std::io::Write) -> std::io::Result<()>,
    format: Format,
    record_type: &str,
) -> Vec<T> {
    let mut window: Vec<T> = items.into_iter().skip(req.offset).take(req.limit.unwrap_or(usize::MAX)).collect();
    if let Some(cap) = req.max_output_bytes {
        let mut used = 0usize;
        let mut keep = 0usize;
        let mut buf = Vec::new();
        for item in &window {
            buf.clear();
            let size = match format {
                Format::Text => write_text(item, &mut buf).map_or(0, |()| buf.len()),
                // The item, and the comma or newline after it.
                Format::Json { pretty: false } => serde_json::to_writer(&mut buf, item).map_or(0, |()| buf.len() + 1),
                Format::Json { pretty: true } => {
                    serde_json::to_writer_pretty(&mut buf, item).map_or(0, |()| buf.len() + 6)
                }
                // {"type":"match", … }\n
                Format::Jsonl => {
                    serde_json::to_writer(&mut buf, item).map_or(0, |()| buf.len() + record_type.len() + 11)
                }
            };
            // The first result is shown even when it alone is over the
            // budget: a page must advance, or a caller paging by
            // next_offset would loop.
            if used + size > cap && keep > 0 {
                break;
            }
            used += size;
            keep += 1;
        }
        if keep < window.len() {
            window.truncate(keep);
            *byte_capped = true;
        }
    }
    window
}
