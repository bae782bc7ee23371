//! # llm-read: reads an agent can edit against
//!
//! `llm-read PATH... [--lines A:B | --offset N --limit M]` prints numbered
//! lines (like `cat -n`) or, with `--json`, one entry per file:
//!
//! ```json
//! { "files": [ { "path": "src/main.rs", "ok": true, "content": "fn main() {\n",
//!     "start_line": 1, "end_line": 1, "line_count": 3, "size_bytes": 30,
//!     "byte_start": 0, "byte_end": 12,
//!     "checksum": "<sha256 of the whole file>", "eol": "lf", "bom": false,
//!     "encoding": "utf-8", "final_newline": true, "truncated": false } ] }
//! ```
//!
//! * `checksum` is the SHA-256 of the whole file as stored: pass it to
//!   llm-transform as `checksum_before`. `byte_start`/`byte_end` delimit the
//!   returned range in the file's bytes (the BOM included in the offsets).
//! * `--lines A:B` is 1-based and inclusive (`A:` to the end, `:B` from the
//!   start); `--offset N` skips N lines (0-based, as the seed's `read_file`)
//!   and `--limit M` takes M lines (default 2000).
//! * `content` is the range as text, with the file's own line endings;
//!   invalid UTF-8 is shown lossily with `"lossy": true`. A line longer than
//!   `--max-line-len` characters is cut with a `…[+N chars]` marker and
//!   `"truncated": true` (in `content` only: offsets and checksum stay exact).
//! * Several files in one call: a file that cannot be read is an entry with
//!   `"ok": false` and an `error` (`not_found`, `binary_file`,
//!   `path_outside_root`, …), the others are read. With a single path its
//!   failure is the run's error.
//!
//! * `--session ID` (an llm-shell session): a relative path starts from the
//!   session's working directory (where its last `cd` left it), which must
//!   lie inside the root; paths are still shown relative to the root.
//!
//! * A directory named is read as `"kind": "directory"` with its
//!   `tree_checksum` (every file and link beneath it; the value
//!   llm-transform's recursive `delete` takes as `expected_tree_checksum`),
//!   `file_count`, `link_count`, `dir_count`, `size_bytes` and the
//!   `entries` directly inside (a folder's name ends with `/`).
//!
//! Exit status: 0 when every file was read; 1 when some but not all were; the
//! error's status (2 or 4) when a single file, or every file, failed.

use std::io::{self, Write};
use std::path::PathBuf;

use aide_core::color::{Paint, TextOut};
use aide_core::error::ErrorBody;
use aide_core::operation::Operation;
use aide_core::root::OpenFailure;
use aide_core::text::NonText;
use aide_core::tool::{Context, Outcome, Render, Tool};
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ReadError;

mod error;
mod operations;
mod scan;
mod session;

/// Lines returned when no range is given.
pub const DEFAULT_LIMIT: usize = 2000;

/// A read request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct ReadRequest {
    /// Files to read, relative to --root.
    #[arg(required = true, value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    /// Directory the paths are relative to; nothing outside it is read.
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    /// A:B, 1-based, inclusive (A: and :B too).
    #[arg(long, value_name = "A:B", conflicts_with = "offset")]
    #[serde(default)]
    pub lines: Option<String>,
    /// Lines to skip first (0-based).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub offset: Option<usize>,
    /// Lines to return.
    #[arg(long, value_name = "M")]
    #[serde(default)]
    pub limit: Option<usize>,
    /// Cut shown lines longer than this many characters (0: never).
    #[arg(long, value_name = "CHARS", default_value_t = 2000)]
    #[serde(default = "default_max_line_len")]
    pub max_line_len: usize,
    /// A shell session's id: relative paths start from its working directory (still inside --root).
    #[arg(long, value_name = "ID")]
    #[serde(default)]
    pub session: Option<String>,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for ReadRequest {}

/// `max_line_len` when a request leaves it out (the flag's default).
fn default_max_line_len() -> usize {
    2000
}

impl Default for ReadRequest {
    fn default() -> Self {
        ReadRequest {
            paths: Vec::new(),
            root: None,
            lines: None,
            offset: None,
            limit: None,
            max_line_len: 2000,
            session: None,
        }
    }
}

/// Line endings of a file (shared with llm-transform).
pub use aide_core::text::Eol;

/// One file read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileRead {
    pub path: String,
    pub ok: bool,
    #[serde(flatten)]
    pub read: Option<Box<Content>>,
    /// A directory named: what it holds, and its tree checksum.
    #[serde(flatten)]
    pub directory: Option<DirectoryRead>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// A directory read: its tree checksum (what llm-transform's recursive
/// `delete` and `copy` take as `expected_tree_checksum`), its sizes, and
/// the names it holds (a folder's with a trailing `/`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DirectoryRead {
    /// Always `directory`.
    pub kind: DirectoryKind,
    /// SHA-256 over the sorted (path, checksum) lines of every file and
    /// link beneath it, hidden and ignored ones too (docs/CONTRACT.md).
    pub tree_checksum: String,
    pub file_count: u64,
    pub link_count: u64,
    pub dir_count: u64,
    /// The files' bytes, all of them.
    pub size_bytes: u64,
    /// The names directly inside, sorted; a folder's ends with `/`.
    pub entries: Vec<String>,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DirectoryKind {
    Directory,
}

/// The content and facts of a file read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Content {
    pub content: String,
    /// First and last line returned, 1-based (0 and 0 for an empty range).
    pub start_line: usize,
    pub end_line: usize,
    pub line_count: usize,
    pub size_bytes: u64,
    pub byte_start: usize,
    pub byte_end: usize,
    /// SHA-256 of the whole file.
    pub checksum: String,
    pub eol: Eol,
    pub bom: bool,
    /// utf-8, or unknown when the bytes are not valid UTF-8.
    pub encoding: String,
    pub final_newline: bool,
    /// A line was cut at --max-line-len, or lines remain past --limit (not
    /// past the end of a --lines range: that range is whole).
    pub truncated: bool,
    /// Pass as --offset to continue after this range, when lines remain.
    pub next_offset: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub lossy: bool,
}

/// The result of a read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadOutput {
    pub files: Vec<FileRead>,
}

impl Render for ReadOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        let several = self.files.len() > 1;
        for f in &self.files {
            // A file read has its header with the checksum an edit passes
            // back as `checksum_before`, so the text form alone is enough.
            if let Some(d) = &f.directory {
                write!(w, "==> ")?;
                w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                write!(w, "/ <==")?;
                w.paint(
                    Paint::Dim,
                    format_args!(
                        " directory: {}, {}, {}, {} bytes, tree sha256 {}",
                        counted(d.file_count, "file"),
                        counted(d.link_count, "link"),
                        counted(d.dir_count, "folder"),
                        d.size_bytes,
                        d.tree_checksum
                    ),
                )?;
                writeln!(w)?;
                for entry in &d.entries {
                    writeln!(w, "{}", aide_core::text::escape_controls(entry))?;
                }
                continue;
            }
            if several || f.read.is_some() {
                write!(w, "==> ")?;
                w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                write!(w, " <==")?;
                if let Some(c) = &f.read {
                    let shown = if c.start_line == 0 {
                        "no lines".to_string()
                    } else {
                        format!("lines {}-{}", c.start_line, c.end_line)
                    };
                    w.paint(Paint::Dim, format_args!(" {shown} of {}, sha256 {}", c.line_count, c.checksum))?;
                }
                writeln!(w)?;
            }
            match (&f.read, &f.error) {
                (Some(c), _) => {
                    for (i, line) in c.content.split_inclusive('\n').enumerate() {
                        let line = line.strip_suffix('\n').unwrap_or(line);
                        let line = line.strip_suffix('\r').unwrap_or(line);
                        w.paint(Paint::LineNumber, format_args!("{:>6}", c.start_line + i))?;
                        writeln!(w, "\t{line}")?;
                    }
                    if let Some(next) = c.next_offset {
                        w.paint(
                            Paint::Dim,
                            format_args!(
                                "[{} lines in all; continue with {}]",
                                c.line_count,
                                w.voice().arg_is("offset", next)
                            ),
                        )?;
                        writeln!(w)?;
                    }
                }
                (None, Some(e)) => {
                    w.paint(Paint::Bad, format_args!("error[{}]", e.code))?;
                    writeln!(w, ": {}", e.message)?;
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    fn found(&self) -> bool {
        self.files.iter().all(|f| f.ok)
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        Some(("files", "file"))
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        aide_core::tool::keep_range(&mut self.files, range);
    }
}

/// `1 file`, `2 files`.
fn counted(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The line range a request asks for: (skip, take).
fn range(req: &ReadRequest) -> Result<(usize, usize), AideError> {
    let bad = |why: &'static str| -> AideError {
        ReadError::BadLines { spec: req.lines.clone().unwrap_or_default(), why }.into()
    };
    if let Some(spec) = &req.lines {
        let (a, b) = spec.split_once(':').ok_or_else(|| bad("expected A:B"))?;
        let parse = |s: &str| -> Result<Option<usize>, AideError> {
            if s.trim().is_empty() {
                Ok(None)
            } else {
                s.trim().parse().map(Some).map_err(|_| bad("not a line number"))
            }
        };
        let start = parse(a)?.unwrap_or(1);
        let end = parse(b)?;
        if start == 0 || end == Some(0) {
            return Err(bad("lines are numbered from 1"));
        }
        if end.is_some_and(|e| e < start) {
            return Err(bad("the end is before the start"));
        }
        return Ok((start - 1, end.map_or(usize::MAX, |e| e - start + 1)));
    }
    aide_core::request::check_limit(req.limit)?;
    Ok((req.offset.unwrap_or(0), req.limit.unwrap_or(DEFAULT_LIMIT)))
}

/// Reads one file, streaming: memory holds the range asked for, not the file.
/// `take` is a limit (`limited`: lines past it make the content truncated)
/// or the end of the range asked for.
pub fn read_file(
    root: &Root,
    rel: &str,
    (skip, take): (usize, usize),
    limited: bool,
    max_line_len: usize,
) -> Result<Content, AideError> {
    // A name shown escaped (not valid UTF-8) is accepted back.
    let path = root.unescaped(rel).unwrap_or_else(|| PathBuf::from(rel));
    let file = root.open_file(&path).map_err(|e| match e {
        OpenFailure::Directory => ReadError::Directory { path: rel.to_string() }.into(),
        other => other.into_error(rel),
    })?;
    let scanned = scan::scan(file, skip.saturating_add(1), take, 256 * 1024).map_err(|e| match e {
        scan::ScanError::NonText(NonText::Utf16) => ReadError::Utf16 { path: rel.to_string() }.into(),
        scan::ScanError::NonText(NonText::Binary) => ReadError::Binary { path: rel.to_string() }.into(),
        scan::ScanError::Io(e) => AideError::io(rel, &e),
    })?;
    let line_count = scanned.line_count;
    if skip > 0 && skip >= line_count {
        return Err(past_the_end(rel, skip, line_count));
    }
    let first = skip + 1;
    let last = first.saturating_add(take).saturating_sub(1).min(line_count);
    let (start_line, end_line) = if take == 0 || first > line_count { (0, 0) } else { (first, last) };
    let (byte_start, byte_end) = (scanned.range_start as usize, scanned.range_end as usize);
    let mut slice = &scanned.range[..];
    if byte_start == 0 && scanned.bom {
        slice = slice.get(3..).unwrap_or_default();
    }
    let (text, lossy) = aide_core::text::lossy(slice);
    let mut cut = false;
    let content: String = if max_line_len == 0 {
        text
    } else {
        text.split_inclusive('\n')
            .map(|line| {
                let body = line.strip_suffix('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).unwrap_or(line);
                let ending = &line[body.len()..];
                let (shown, c) = aide_core::text::shorten(body.to_string(), max_line_len);
                cut |= c;
                shown + ending
            })
            .collect()
    };
    let more = end_line > 0 && end_line < line_count;
    Ok(Content {
        content,
        start_line,
        end_line,
        line_count,
        size_bytes: scanned.size,
        byte_start,
        byte_end,
        checksum: scanned.checksum,
        eol: scanned.eol,
        bom: scanned.bom,
        encoding: if scanned.utf8 { "utf-8".into() } else { "unknown".into() },
        final_newline: scanned.final_newline,
        truncated: cut || (more && limited),
        next_offset: more.then_some(end_line),
        lossy,
    })
}

/// Reads a directory: its whole tree (never following a link) for the
/// checksum and sizes, and the names directly inside.
pub fn read_directory(root: &Root, abs: &std::path::Path, shown: &str) -> Result<DirectoryRead, AideError> {
    let rel = abs.strip_prefix(root.path()).unwrap_or(std::path::Path::new(""));
    let tree = aide_core::tree::scan(root, rel, aide_core::tree::Depth::Checksums).map_err(|e| e.into_error(shown))?;
    let counts = tree.counts();
    let entries = tree
        .entries
        .iter()
        .filter(|e| e.rel.components().count() == 1)
        .map(|e| {
            let name = aide_core::root::to_slash(&e.rel);
            if matches!(e.kind, aide_core::tree::EntryKind::Dir { .. }) { name + "/" } else { name }
        })
        .collect();
    Ok(DirectoryRead {
        kind: DirectoryKind::Directory,
        tree_checksum: tree.checksum(),
        file_count: counts.files,
        link_count: counts.links,
        dir_count: counts.dirs,
        size_bytes: counts.bytes,
        entries,
    })
}

fn past_the_end(rel: &str, skip: usize, line_count: usize) -> AideError {
    ReadError::PastTheEnd { path: rel.to_string(), line_count, start_line: skip + 1 }.into()
}

/// Reads every path of the request; stops at the context's cancellation
/// flag between files and reports each file read.
pub fn read(root: &Root, req: &ReadRequest, ctx: &Context) -> Result<Outcome<ReadOutput>, AideError> {
    let (skip, take) = range(req)?;
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let progress = ctx.progress.counter(Some(req.paths.len() as u64));
    for given in &req.paths {
        ctx.check_cancel()?;
        progress.tick();
        // Every path is shown relative to the root, however it was given.
        // An escaped name (`caf\xe9.txt`) is shown as the name it stands for.
        let named = root.unescaped(given).unwrap_or_else(|| PathBuf::from(given));
        let shown = root.lexical(&named).map(|p| aide_core::root::to_slash(&p));
        let path = shown.as_ref().unwrap_or(given);
        let read = match root.resolve(given) {
            Ok(abs) if abs.is_dir() => read_directory(root, &abs, path).map(|d| FileRead {
                path: path.clone(),
                ok: true,
                read: None,
                directory: Some(d),
                error: None,
            }),
            _ => read_file(root, given, (skip, take), req.lines.is_none(), req.max_line_len).map(|c| FileRead {
                path: path.clone(),
                ok: true,
                read: Some(Box::new(c)),
                directory: None,
                error: None,
            }),
        };
        match read {
            Ok(f) => files.push(f),
            Err(e) => {
                files.push(FileRead {
                    path: path.clone(),
                    ok: false,
                    read: None,
                    directory: None,
                    error: Some(ErrorBody::said(&e, ctx.voice)),
                });
                errors.push(e);
            }
        }
    }
    // A single file's failure (or every file's) is the run's error.
    if errors.len() == req.paths.len() && !errors.is_empty() {
        return Err(errors.swap_remove(0));
    }
    Ok(Outcome::new(ReadOutput { files }))
}

/// The `llm-read` tool.
#[derive(Debug)]
pub struct LlmRead;

impl Tool for LlmRead {
    const NAME: &'static str = "llm-read";
    const SUMMARY: &'static str = "Line-numbered reads with checksums to edit against.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[("path", "paths")];
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Read files with line numbers and checksums to edit against.";
    const OUTPUT_FLAGS: &'static [&'static str] = &["max_line_len"];
    type Request = ReadRequest;
    type Output = ReadOutput;

    fn run(mut request: ReadRequest, ctx: &Context) -> Result<Outcome<ReadOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        if let Some(id) = &request.session {
            let from = session::start(&root, id, ctx)?;
            request.paths = request.paths.iter().map(|p| session::from(&from, p)).collect();
        }
        read(&root, &request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &ReadRequest) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::code;

    fn setup(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Root) {
        let d = tempfile::tempdir().unwrap();
        for (name, body) in files {
            std::fs::write(d.path().join(name), body).unwrap();
        }
        let root = Root::new(d.path()).unwrap();
        (d, root)
    }

    #[test]
    fn ranges_slice_exact_bytes() {
        let body = b"one\r\ntwo\r\nthree\r\n";
        let (_d, root) = setup(&[("a.txt", body)]);
        let c = read_file(&root, "a.txt", (1, 1), true, 0).unwrap();
        assert_eq!((c.start_line, c.end_line, c.line_count), (2, 2, 3));
        assert_eq!(&body[c.byte_start..c.byte_end], b"two\r\n");
        assert_eq!(c.content, "two\r\n");
        assert_eq!((c.eol, c.final_newline, c.truncated, c.next_offset), (Eol::Crlf, true, true, Some(2)));
        assert_eq!(c.checksum, aide_core::checksum::sha256_hex(body));
        // The same lines asked as a range (`lines: "2:2"`) are whole: not truncated, still continued.
        let asked = read_file(&root, "a.txt", (1, 1), false, 0).unwrap();
        assert_eq!((asked.content.as_str(), asked.truncated, asked.next_offset), ("two\r\n", false, Some(2)));
        let past = read_file(&root, "a.txt", (10, 5), true, 0).unwrap_err();
        assert_eq!(past.code, aide_core::code::INVALID_SPAN);
        assert!(past.message.contains("has 3 lines"), "{}", past.message);
        assert_eq!(past.details.as_ref().unwrap()["line_count"], 3);
        // The last line itself, and an empty file from the start, are fine.
        assert_eq!(read_file(&root, "a.txt", (2, 5), true, 0).unwrap().content, "three\r\n");
    }

    #[test]
    fn bom_mixed_endings_and_no_final_newline() {
        let (_d, root) = setup(&[("b.txt", b"\xEF\xBB\xBFa\nb\r\nc")]);
        let c = read_file(&root, "b.txt", (0, 10), true, 0).unwrap();
        assert!(c.bom);
        assert_eq!(c.content, "a\nb\r\nc");
        assert_eq!((c.byte_start, c.byte_end), (0, 9));
        assert_eq!((c.eol, c.final_newline, c.line_count), (Eol::Mixed, false, 3));
    }

    #[test]
    fn long_lines_are_cut_in_content_only() {
        let long = format!("{}\nshort\n", "x".repeat(50));
        let (_d, root) = setup(&[("l.txt", long.as_bytes())]);
        let c = read_file(&root, "l.txt", (0, 10), true, 10).unwrap();
        assert_eq!(c.content, format!("{}…[+40 chars]\nshort\n", "x".repeat(10)));
        assert!(c.truncated);
        assert_eq!(c.byte_end, long.len());
    }

    #[test]
    fn binary_utf16_and_escapes_are_refused() {
        let (_d, root) = setup(&[("bin", b"a\0b"), ("w.txt", b"\xFF\xFEa\0")]);
        assert_eq!(read_file(&root, "bin", (0, 10), true, 0).unwrap_err().code, code::INVALID_ARGUMENTS);
        assert!(read_file(&root, "w.txt", (0, 10), true, 0).unwrap_err().message.contains("UTF-16"));
        assert_eq!(read_file(&root, "../x", (0, 10), true, 0).unwrap_err().code, code::PATH_OUTSIDE_ROOT);
        assert_eq!(read_file(&root, "missing", (0, 10), true, 0).unwrap_err().code, code::NOT_FOUND);
    }

    #[test]
    fn line_specs_parse() {
        let req = |lines: &str| ReadRequest { lines: Some(lines.into()), ..ReadRequest::default() };
        assert_eq!(range(&req("3:5")).unwrap(), (2, 3));
        assert_eq!(range(&req("3:")).unwrap(), (2, usize::MAX));
        assert_eq!(range(&req(":2")).unwrap(), (0, 2));
        for bad in ["0:3", "5:3", "x", "a:b"] {
            assert_eq!(range(&req(bad)).unwrap_err().code, code::INVALID_ARGUMENTS, "{bad}");
        }
        let offset = ReadRequest { offset: Some(100), limit: Some(50), ..ReadRequest::default() };
        assert_eq!(range(&offset).unwrap(), (100, 50));
    }
}
