//! One file searched: opened beneath the root, read once by the grep
//! searcher (a large file with matches twice, hashing as it reads), its
//! matches given the checksum of exactly the bytes searched, and what a NUL
//! byte or a UTF-16 mark in it says.

use std::io::{self, Read};

use aide_core::checksum::cache::Stamp;
use aide_core::envelope::{Diagnostic, diag};
use aide_core::walk::WalkedFile;
use grep_searcher::Searcher;

use crate::output::Match;
use crate::page::{FileOutcome, FileResult};
use crate::sink::{FileSettings, FileSink};

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
