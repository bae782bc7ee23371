//! The output envelope, diagnostics, formats and the stdout writer.
//!
//! Every JSON document a tool prints is
//!
//! ```json
//! { "tool": "llm-search", "version": "0.1.0", "execution_id": "0192…",
//!   "ok": true, …the tool's result fields…,
//!   "diagnostics": [ { "code": "binary_file", "path": "img.png", "message": "…" } ],
//!   "stats": { "elapsed_ms": 1.25 } }
//! ```
//!
//! and a failure is the same envelope with `"ok": false` and
//! `"error": { "code", "message", "hint", "details" }` in place of the result.
//! With `--jsonl` each record of the tool's main list is one line
//! (`{"type": "match", …}`) and a last line `{"type": "summary", …}` carries the
//! rest of the envelope.

use std::io::{self, Write};

use serde::Serialize;

use crate::error::{AideError, ErrorBody};

/// Stable diagnostic codes. Part of the wire format: add, never rename.
pub mod diag {
    /// A file with NUL bytes was skipped.
    pub const BINARY_FILE: &str = "binary_file";
    /// A file over the size limit was skipped.
    pub const FILE_TOO_LARGE: &str = "file_too_large";
    /// A file could not be read.
    pub const UNREADABLE: &str = "unreadable";
    /// A symlink whose target does not exist was skipped.
    pub const BROKEN_SYMLINK: &str = "broken_symlink";
    /// A symlink was not followed (pass `--follow`).
    pub const SYMLINK_NOT_FOLLOWED: &str = "symlink_not_followed";
    /// A followed symlink led outside the root.
    pub const OUTSIDE_ROOT: &str = "outside_root";
    /// The walk could not read a directory or ignore file.
    pub const WALK_ERROR: &str = "walk_error";
    /// A file in an encoding the tool does not search (UTF-16) was skipped.
    pub const UNSUPPORTED_ENCODING: &str = "unsupported_encoding";
    /// Text that is not valid UTF-8 was shown lossily.
    pub const LOSSY_UTF8: &str = "lossy_utf8";
    /// A file did not parse cleanly.
    pub const PARSE_ERROR: &str = "parse_error";
    /// The run could not be written to the execution log.
    pub const LOG_FAILED: &str = "log_failed";
    /// The output was cut to respect a limit.
    pub const OUTPUT_TRUNCATED: &str = "output_truncated";
    /// rustfmt was asked for but could not run or failed; the file is written unformatted.
    pub const RUSTFMT_FAILED: &str = "rustfmt_failed";
    /// `--threads` asked for more worker threads than the cap; the cap was used.
    pub const THREADS_CAPPED: &str = "threads_capped";
    /// A FIFO, socket or device met in a walk was skipped (never opened: it could block).
    pub const NOT_A_REGULAR_FILE: &str = "not_a_regular_file";
    /// A followed symlink leads back into a directory the walk is already in.
    pub const SYMLINK_LOOP: &str = "symlink_loop";
    /// An interrupted transform of this root was completed (or rolled back) before this run.
    pub const TRANSFORM_RECOVERED: &str = "transform_recovered";
    /// An interrupted transform of this root awaits recovery (a dry run reports it, writing nothing).
    pub const TRANSFORM_PENDING: &str = "transform_pending";
    /// A file's content before a transform was too large to keep for undo.
    pub const UNDO_NOT_KEPT: &str = "undo_not_kept";
    /// A file nested too deep for the query asked (the cost grows with the
    /// product of both depths): not searched.
    pub const QUERY_TOO_DEEP: &str = "query_too_deep";
    /// Item-position macro bodies that do not parse as items: what they
    /// define is not in the outline, definitions or block edits.
    pub const MACRO_NOT_INDEXED: &str = "macro_not_indexed";
    /// `--engine lsp` found no language server for the language: the syntax engine answered.
    pub const LSP_UNAVAILABLE: &str = "lsp_unavailable";
    /// The language server could not start, crashed, timed out, erred, had not loaded its project in
    /// time, or its answer left out sites the syntax engine ties to the symbol: the syntax engine answered.
    pub const LSP_FAILED: &str = "lsp_failed";
    /// Settings of a repository's own configuration that name a program (a filter driver, a signing
    /// program) were not honoured: git ran without them (llm-git).
    pub const GIT_CONFIG_IGNORED: &str = "git_config_ignored";
    /// A git hook that runs after a change (post-commit, post-checkout) failed; the change stands.
    pub const HOOK_FAILED: &str = "hook_failed";
    /// A git hook the operation would trigger in git (reference-transaction, post-index-change) was not run.
    pub const HOOK_NOT_RUN: &str = "hook_not_run";
}

/// A warning attached to a result: the run succeeded, but something was
/// skipped or approximated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// Stable snake_case code.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Diagnostic { code: code.to_string(), path: None, message: message.into() }
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

/// Deterministic diagnostic order: by path (none first), code, message.
pub fn sort_diagnostics(d: &mut [Diagnostic]) {
    d.sort_by(|a, b| {
        (a.path.as_deref().map(str::as_bytes), &a.code, &a.message).cmp(&(
            b.path.as_deref().map(str::as_bytes),
            &b.code,
            &b.message,
        ))
    });
}

/// Diagnostics as text lines, one per code in order of first appearance:
/// `warning[code]: path: message` for a code seen once, and
/// `warning[code]: N files, first path: message (ELSEWHERE)` for a code
/// seen more often (a Python repository's search no longer prints a line
/// per binary file), ELSEWHERE naming where the full list is.
pub fn diagnostic_lines(diagnostics: &[Diagnostic], elsewhere: &str) -> Vec<String> {
    let mut codes: Vec<(&str, &Diagnostic, usize)> = Vec::new();
    for d in diagnostics {
        match codes.iter_mut().find(|(code, _, _)| *code == d.code.as_str()) {
            Some((_, _, n)) => *n += 1,
            None => codes.push((d.code.as_str(), d, 1)),
        }
    }
    codes
        .into_iter()
        .map(|(code, first, n)| {
            let path = first.path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
            if n == 1 {
                format!("warning[{code}]: {path}{}", first.message)
            } else {
                let what = if first.path.is_some() { "files" } else { "times" };
                format!("warning[{code}]: {n} {what}, first {path}{} ({elsewhere})", first.message)
            }
        })
        .collect()
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Compact text for people and token-thrifty agents.
    Text,
    /// One JSON document.
    Json { pretty: bool },
    /// One JSON record per line, then a summary record.
    Jsonl,
}

impl Format {
    pub fn is_json(self) -> bool {
        !matches!(self, Format::Text)
    }
}

/// Run statistics.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// Wall time of the run in milliseconds.
    pub elapsed_ms: f64,
}

/// The envelope of a successful run, generic over the tool's result.
// Its schema (within `Document`) is the output schema `--schema` prints:
// derived from the type serialised, it cannot drift from the output.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Envelope<'a, T: Serialize> {
    pub tool: &'a str,
    pub version: &'a str,
    /// UUIDv7 of this run; `aide log show ID` retrieves it.
    pub execution_id: &'a str,
    #[schemars(extend("const" = true))]
    pub ok: bool,
    #[serde(flatten)]
    pub result: &'a T,
    pub diagnostics: &'a [Diagnostic],
    pub stats: &'a Stats,
}

/// The envelope of a failed run.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ErrorEnvelope<'a> {
    pub tool: &'a str,
    pub version: &'a str,
    pub execution_id: &'a str,
    #[schemars(extend("const" = false))]
    pub ok: bool,
    pub error: ErrorBody,
    pub diagnostics: &'a [Diagnostic],
    pub stats: &'a Stats,
}

/// Every JSON document a tool prints (`--json`): a result or an error.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Document<'a, T: Serialize> {
    Success(Envelope<'a, T>),
    Failure(ErrorEnvelope<'a>),
}

impl<'a> ErrorEnvelope<'a> {
    pub fn new(
        tool: &'a str,
        version: &'a str,
        execution_id: &'a str,
        error: &AideError,
        diagnostics: &'a [Diagnostic],
        stats: &'a Stats,
    ) -> Self {
        ErrorEnvelope { tool, version, execution_id, ok: false, error: error.into(), diagnostics, stats }
    }
}

/// Serialises `value` compactly or indented.
pub fn to_json_string<T: Serialize + ?Sized>(value: &T, pretty: bool) -> Result<String, AideError> {
    let r = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    r.map_err(|e| AideError::internal(format!("serialising output: {e}")))
}

/// Writes to stdout, treating a closed pipe (`| head`) as success: once the
/// reader is gone, further output is dropped silently.
#[derive(Debug)]
pub struct Stdout {
    out: io::BufWriter<io::Stdout>,
    closed: bool,
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout { out: io::BufWriter::with_capacity(64 * 1024, io::stdout()), closed: false }
    }
}

impl Stdout {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f` against the buffered stdout; a broken pipe ends output quietly,
    /// any other error is returned.
    pub fn write_with(&mut self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match f(&mut self.out).and_then(|()| self.out.flush()) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }

    pub fn write_str(&mut self, s: &str) -> io::Result<()> {
        self.write_with(|w| w.write_all(s.as_bytes()))
    }
}

/// Whether [`stderr_line`] colours its `error[…]`/`warning[…]` label: set
/// once per process from `--color` (stderr is for people).
static STDERR_COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Colours the labels of later [`stderr_line`]s, or stops.
pub fn set_stderr_color(on: bool) {
    STDERR_COLOR.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Writes one line to stderr, ignoring failures (there is nowhere left to
/// report them). Control characters are escaped; the first `error[code]` or
/// `warning[code]` label is coloured when [`set_stderr_color`] said so.
pub fn stderr_line(line: &str) {
    use crate::color::{Paint, TextOut};
    let line = crate::text::escape_controls(line);
    let label = [("error[", Paint::Bad), ("warning[", Paint::Warn)]
        .into_iter()
        .filter_map(|(l, paint)| {
            let start = line.find(l)?;
            let end = start + line[start..].find(']')? + 1;
            Some((start, end, paint))
        })
        .min_by_key(|(start, _, _)| *start);
    let mut err = io::stderr().lock();
    let mut out = TextOut::new(&mut err, STDERR_COLOR.load(std::sync::atomic::Ordering::Relaxed));
    let _ = match label {
        Some((start, end, paint)) if out.colored() => out
            .write_all(line[..start].as_bytes())
            .and_then(|()| out.paint(paint, &line[start..end]))
            .and_then(|()| writeln!(out, "{}", &line[end..])),
        _ => writeln!(out, "{line}"),
    };
}

/// Inserts `"type": kind` as the first field of an object.
pub fn with_type(kind: &str, value: serde_json::Value) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), serde_json::Value::String(kind.into()));
    if let serde_json::Value::Object(obj) = value {
        m.extend(obj);
    }
    serde_json::Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_diagnostics_are_one_line_per_code() {
        let bin = |p: &str| Diagnostic::new("binary_file", "binary file").with_path(p);
        let all = [bin("a.dat"), Diagnostic::new("walk_error", "loop"), bin("b.dat"), bin("c.dat")];
        assert_eq!(
            diagnostic_lines(&all, "see --json"),
            ["warning[binary_file]: 3 files, first a.dat: binary file (see --json)", "warning[walk_error]: loop",]
        );
        assert_eq!(diagnostic_lines(&all[..1], "see --json"), ["warning[binary_file]: a.dat: binary file"]);
    }

    #[derive(Serialize)]
    struct R {
        matches: Vec<u32>,
        truncated: bool,
    }

    #[test]
    fn envelope_field_order_is_fixed() {
        let stats = Stats { elapsed_ms: 1.5 };
        let r = R { matches: vec![1], truncated: false };
        let env = Envelope {
            tool: "t",
            version: "1",
            execution_id: "x",
            ok: true,
            result: &r,
            diagnostics: &[],
            stats: &stats,
        };
        assert_eq!(
            to_json_string(&env, false).unwrap(),
            r#"{"tool":"t","version":"1","execution_id":"x","ok":true,"matches":[1],"truncated":false,"diagnostics":[],"stats":{"elapsed_ms":1.5}}"#
        );
    }

    #[test]
    fn diagnostics_sort_deterministically() {
        let mut d = vec![
            Diagnostic::new("b", "m").with_path("z"),
            Diagnostic::new("a", "m").with_path("z"),
            Diagnostic::new("c", "m"),
            Diagnostic::new("a", "m").with_path("a"),
        ];
        sort_diagnostics(&mut d);
        let got: Vec<_> = d.iter().map(|d| (d.path.clone(), d.code.clone())).collect();
        assert_eq!(
            got,
            vec![
                (None, "c".into()),
                (Some("a".into()), "a".into()),
                (Some("z".into()), "a".into()),
                (Some("z".into()), "b".into())
            ]
        );
    }
}
