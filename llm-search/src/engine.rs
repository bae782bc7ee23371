//! The search itself: one grep searcher per worker thread, over the parallel
//! walk (then a deterministic sort) or the walk in path order (results as
//! they come); the page the request asked for is built in [`crate::page`].

use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use aide_core::checksum::cache::{Cache as ChecksumCache, Stamp};
use aide_core::envelope::{Diagnostic, diag};
use aide_core::tool::{Context, Outcome};
use aide_core::walk::{WalkedFile, Walker};
use aide_core::{AideError, Root};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};

use crate::error::{MAX_PATTERN_BYTES, SearchError};
use crate::output::{Match, SearchOutput};
use crate::page::{FileOutcome, FileResult, Gather, paginate};
use crate::request::{Mode, SearchRequest};
use crate::sink::{FileSettings, FileSink};

/// Searches `root` for `req` and returns the page of results plus the
/// diagnostics of files that were skipped or cut short. `--max-output-bytes`
/// counts the bytes of the results as they will be printed in the context's
/// format. Stops at the context's cancellation flag; reports files searched.
pub fn search(root: &Root, req: &SearchRequest, ctx: &Context) -> Result<Outcome<SearchOutput>, AideError> {
    let format = ctx.format;
    if req.pattern.is_empty() {
        return Err(SearchError::NoPattern.into());
    }
    aide_core::request::check_limit(req.limit)?;
    if req.multiline_dotall && !req.multiline {
        return Err(SearchError::DotallWithoutMultiline.into());
    }
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
    // A tree an index holds (aide mcp's): only the files that can match are read.
    if let Some(listing) = crate::indexed::listing(root, req, threads) {
        let plan = crate::listed::Plan { searcher: &searcher_builder, settings: &settings, threads, ctx };
        if in_order {
            let mut gather = Gather::new(req, ctx, print);
            crate::listed::in_order(listing, &plan, &mut gather)?;
            let (output, found) = crate::listed::finish(gather);
            diagnostics.extend(found);
            cache.save();
            return Ok(Outcome::with_diagnostics(output, diagnostics));
        }
        let (outcomes, searched) = crate::listed::collected(listing, &plan)?;
        cache.save();
        let results = files_with_matches(outcomes, &mut diagnostics);
        let output = paginate(req, results, searched, format, ctx.voice, &mut diagnostics);
        return Ok(Outcome::with_diagnostics(output, diagnostics));
    }
    if in_order {
        let mut gather = Gather::new(req, ctx, print);
        let walk_diagnostics = walker.visit_ordered(
            threads,
            || {
                let mut searcher = searcher_builder.build();
                // One copy buffer per thread, reused file after file.
                let mut copy = Vec::new();
                let settings = &settings;
                move |file: &WalkedFile| search_file(&mut searcher, settings, file, &mut copy)
            },
            |_, outcome| gather.take(outcome),
        )?;
        diagnostics.extend(walk_diagnostics);
        diagnostics.append(&mut gather.diagnostics);
        cache.save();
        return Ok(Outcome::with_diagnostics(gather.finish(), diagnostics));
    }

    let (outcomes, walk_diagnostics) =
        search_parallel(&walker, threads, &searcher_builder, &settings, &files_searched)?;
    cache.save();
    diagnostics.extend(walk_diagnostics);
    let results = files_with_matches(outcomes, &mut diagnostics);

    let output = paginate(req, results, files_searched.into_inner(), format, ctx.voice, &mut diagnostics);
    Ok(Outcome::with_diagnostics(output, diagnostics))
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
            let outcome = search_file(&mut searcher, settings, &file, &mut copy);
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

/// The files with matches, in path order; every diagnostic goes to `diagnostics`.
fn files_with_matches(outcomes: Vec<FileOutcome>, diagnostics: &mut Vec<Diagnostic>) -> Vec<FileResult> {
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

// Long because: a file's one or two search passes share its reader, copy buffer and sink, which the checksum then finishes; checksum_as_read and binary_diagnostic are its steps.
pub(crate) fn search_file(
    searcher: &mut Searcher,
    s: &FileSettings<'_>,
    file: &WalkedFile,
    copy: &mut Vec<u8>,
) -> FileOutcome {
    // Opened beneath the root: a folder swapped for a symlink since the
    // walk listed it cannot lead the read outside.
    let (f, stat) = match s.root.open_file_with_stat(&file.abs) {
        Ok(opened) => opened,
        Err(e) => return FileOutcome::Skipped(e.into_diagnostic(&file.rel)),
    };
    // What the file was when opened: a checksum remembered for exactly this
    // version may stand for hashing it (see `aide_core::checksum::cache`).
    let stamp = Stamp::from_stat(&stat);
    if let Some(max) = s.max_filesize
        && stamp.size() > max
    {
        return FileOutcome::Skipped(
            Diagnostic::new(diag::FILE_TOO_LARGE, format!("{} bytes is over --max-filesize {max}", stamp.size()))
                .with_path(&file.rel),
        );
    }
    // A file is searched once, its bytes copied as they pass for the
    // checksum — up to COPY_LIMIT. A larger file with matches is searched
    // again from its start, hashing as it reads: its matches and checksum
    // then come from the same bytes, and no thread ever holds more than
    // COPY_LIMIT of copy (large files without matches cost nothing more).
    let mut f = f;
    let mut hash_as_read = false;
    let (sink, mut reader, remembered) = loop {
        copy.clear();
        let mut reader = TapReader {
            inner: &mut f,
            copy: &mut *copy,
            hasher: hash_as_read.then(aide_core::checksum::Hasher::default),
            overflowed: false,
            finishing: false,
            head: [0; 2],
            head_len: 0,
            read: 0,
        };
        let mut sink = FileSink::new(s, &file.rel);
        let searched = searcher.search_reader(s.matcher, &mut reader, &mut sink);
        // The searcher's buffer grows for a line longer than it and never
        // shrinks, and a NUL stops the search before the buffer holding it is
        // searched: a grown buffer would drop more matches before a NUL in the
        // next file. A fresh searcher after a large file keeps every file's
        // result its own (the same whichever file the thread searched before).
        if reader.read > SEARCHER_BUFFER {
            *searcher = s.searcher.build();
        }
        if let Err(e) = searched {
            return FileOutcome::Skipped(Diagnostic::new(diag::UNREADABLE, e.to_string()).with_path(&file.rel));
        }
        // Looked up once, after the first pass: a checksum remembered for
        // this version, unchanged while it was searched, also spares a large
        // file its second pass.
        let remembered =
            if sink.count > 0 && !hash_as_read { remembered_checksum(s, reader.inner, &stamp) } else { None };
        if sink.count > 0 && reader.overflowed && remembered.is_none() {
            drop(reader);
            if let Err(e) = std::io::Seek::rewind(&mut f) {
                return FileOutcome::Skipped(Diagnostic::new(diag::UNREADABLE, e.to_string()).with_path(&file.rel));
            }
            hash_as_read = true;
            continue;
        }
        break (sink, reader, remembered);
    };
    let mut sink = sink;
    // The checksum of exactly the bytes searched, for files with matches
    // only: a search stopped at a NUL byte reads the rest for it.
    let checksum: std::sync::Arc<str> = if sink.count > 0 {
        match remembered {
            Some(sum) => sum.into(),
            None => match checksum_as_read(s, &mut reader, stamp) {
                Ok(sum) => sum.into(),
                Err(e) => {
                    return FileOutcome::Skipped(Diagnostic::new(diag::UNREADABLE, e.to_string()).with_path(&file.rel));
                }
            },
        }
    } else {
        "".into()
    };
    for m in &mut sink.matches {
        m.checksum = checksum.clone();
    }
    let diagnostic = match binary_diagnostic(sink.binary_offset, reader.is_utf16(), sink.count, &file.rel) {
        Ok(diagnostic) => diagnostic,
        Err(skipped) => return FileOutcome::Skipped(skipped),
    };
    sink.finish_context();
    let mut matches = sink.matches;
    let json = (s.serialize && !matches.is_empty()).then(|| serialize_matches(std::mem::take(&mut matches)));
    FileOutcome::Searched(
        FileResult { path: file.rel.clone(), checksum, matches, json, count: sink.count, lines: sink.lines },
        diagnostic,
    )
}

/// The checksum of the bytes the search read (the rest read for it),
/// remembered when the file did not change meanwhile.
fn checksum_as_read(
    s: &FileSettings<'_>,
    reader: &mut TapReader<'_, &mut std::fs::File>,
    stamp: Stamp,
) -> io::Result<String> {
    let sum = reader.finish()?;
    if s.cache.usable_for(reader.inner, &stamp) && unchanged(reader.inner, &stamp) {
        s.cache.put(stamp, &sum);
    }
    Ok(sum)
}

/// What a NUL byte (at `offset`) in a file with `count` matches says: a
/// binary file skipped, or a search stopped there; `Err` for a UTF-16 file,
/// skipped whole.
fn binary_diagnostic(
    offset: Option<u64>,
    utf16: bool,
    count: usize,
    rel: &str,
) -> Result<Option<Diagnostic>, Diagnostic> {
    match offset {
        Some(_) if utf16 => {
            // Offsets into transcoded text would lie; skip the file whole.
            Err(Diagnostic::new(diag::UNSUPPORTED_ENCODING, "UTF-16 file (byte order mark) not searched").with_path(rel))
        }
        // Nothing matched before the NUL byte: a binary file, skipped as rg
        // skips it (counted in the stats).
        Some(_) if count == 0 => Ok(Some(Diagnostic::new(diag::BINARY_FILE, "binary file").with_path(rel))),
        // Matches before it are kept, the rest unsearched: that changes the answer.
        Some(offset) => Ok(Some(
            Diagnostic::new(
                diag::BINARY_STOPPED,
                format!(
                    "binary file: NUL byte at offset {offset}; search stopped there ({count} match(es) found before it kept)"
                ),
            )
            .with_path(rel),
        )),
        None => Ok(None),
    }
}

/// `matches` as comma-separated JSON records, in order.
fn serialize_matches(matches: Vec<Match>) -> String {
    let mut json = Vec::with_capacity(matches.len() * 384);
    crate::output::append_json(&mut json, &matches);
    // serde_json writes UTF-8.
    String::from_utf8(json).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The checksum the cache holds for the file `f` opened at `stamp`, if it
/// is still that version now that it has been searched.
fn remembered_checksum(s: &FileSettings<'_>, f: &std::fs::File, stamp: &Stamp) -> Option<String> {
    if !s.cache.usable_for(f, stamp) {
        return None;
    }
    let sum = s.cache.get(stamp)?;
    unchanged(f, stamp).then_some(sum)
}

/// Whether the open file `f` still has the stamp it was opened with.
fn unchanged(f: &std::fs::File, stamp: &Stamp) -> bool {
    f.metadata().is_ok_and(|md| Stamp::of(&md) == *stamp)
}

/// grep-searcher's initial line buffer (`DEFAULT_BUFFER_CAPACITY`, 64 KiB):
/// a file that reads no more than this cannot have grown it.
const SEARCHER_BUFFER: u64 = 64 << 10;

/// Files larger than this are not copied: with matches, they are searched
/// again, hashed as they are read.
const COPY_LIMIT: usize = 256 << 10;

/// Keeps what the searcher reads, so a file with matches gets the checksum
/// of exactly the bytes searched (re-reading it could hash a newer version).
/// Files are copied up to [`COPY_LIMIT`] (a copy costs far less than
/// hashing every file); past it the copy is dropped (`overflowed`), unless
/// the reader hashes as the bytes pass (`hasher`, the second search).
struct TapReader<'a, R> {
    inner: R,
    copy: &'a mut Vec<u8>,
    hasher: Option<aide_core::checksum::Hasher>,
    /// Past COPY_LIMIT without a hasher: no checksum from this pass.
    overflowed: bool,
    /// Reading what the searcher left, for the checksum only.
    finishing: bool,
    /// The first two bytes, to recognise a UTF-16 byte order mark.
    head: [u8; 2],
    head_len: usize,
    /// Bytes read so far.
    read: u64,
}

impl<R: Read> Read for TapReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        while self.head_len < 2 && self.head_len < n {
            self.head[self.head_len] = buf[self.head_len];
            self.head_len += 1;
        }
        self.keep(&buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

impl<R: Read> TapReader<'_, R> {
    fn keep(&mut self, bytes: &[u8]) {
        if let Some(h) = &mut self.hasher {
            h.update(bytes);
        } else if self.copy.len() + bytes.len() <= COPY_LIMIT {
            self.copy.extend_from_slice(bytes);
        } else if self.finishing {
            // The rest after a NUL byte, read for the checksum only: the
            // bytes so far go through the hash, and the rest as it passes.
            let mut h = aide_core::checksum::Hasher::default();
            h.update(self.copy);
            h.update(bytes);
            self.hasher = Some(h);
        } else if !self.overflowed {
            self.overflowed = true;
            self.copy.clear();
        }
    }

    /// A UTF-16 byte order mark at the start of what was read.
    fn is_utf16(&self) -> bool {
        self.head_len == 2 && (self.head == [0xFF, 0xFE] || self.head == [0xFE, 0xFF])
    }

    /// Reads what the searcher left unread and returns the checksum of the whole file.
    fn finish(&mut self) -> io::Result<String> {
        self.finishing = true;
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = match self.inner.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                break;
            }
            self.keep(&buf[..n]);
        }
        Ok(match self.hasher.take() {
            Some(h) => h.finish(),
            None => aide_core::checksum::sha256_hex(self.copy),
        })
    }
}
