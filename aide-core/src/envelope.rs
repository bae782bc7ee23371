//! The output envelope, diagnostics, formats and the stdout writer.
//!
//! Every JSON document a tool prints is
//!
//! ```json
//! { "tool": "llm-search", "version": "0.1.0", "execution_id": "0192…",
//!   "ok": true, …the tool's result fields…,
//!   "diagnostics": [ { "code": "unreadable", "path": "locked.txt", "message": "…" } ],
//!   "stats": { "elapsed_ms": 1.25, "skipped": { "binary_file": 3 } } }
//! ```
//!
//! and a failure is the same envelope with `"ok": false` and
//! `"error": { "code", "message", "hint", "details" }` in place of the result.
//! With `--jsonl` each record of the tool's main list is one line
//! (`{"type": "match", …}`) and a last line `{"type": "summary", …}` carries the
//! rest of the envelope.

use std::io::{self, Write};

use serde::Serialize;

pub use crate::diagnostic::{Diagnostic, Skipped, diag};
use crate::error::{AideError, ErrorBody};

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
/// seen more often, ELSEWHERE naming where the full list is.
pub fn diagnostic_lines(diagnostics: &[Diagnostic], elsewhere: &str) -> Vec<String> {
    diagnostic_lines_with(diagnostics, |_| elsewhere.to_string())
}

/// As [`diagnostic_lines`], with the paths after the first listed in the
/// line, at most `max` of them and how many more (for a reader who sees only
/// the text: it has no other list to be pointed to).
pub fn diagnostic_lines_listed(diagnostics: &[Diagnostic], max: usize) -> Vec<String> {
    diagnostic_lines_with(diagnostics, |group| {
        let paths: Vec<&str> = group.iter().skip(1).filter_map(|d| d.path.as_deref()).collect();
        let mut listed = paths.iter().take(max).copied().collect::<Vec<_>>().join(", ");
        if paths.len() > max {
            listed.push_str(&format!(", … and {} more", paths.len() - max));
        }
        format!("others: {listed}")
    })
}

/// The lines of [`diagnostic_lines`]; `elsewhere` says, of a code's
/// diagnostics (first to last), where the rest are.
fn diagnostic_lines_with(diagnostics: &[Diagnostic], elsewhere: impl Fn(&[&Diagnostic]) -> String) -> Vec<String> {
    let mut codes: Vec<(&str, Vec<&Diagnostic>)> = Vec::new();
    for d in diagnostics {
        match codes.iter_mut().find(|(code, _)| *code == d.code.as_str()) {
            Some((_, group)) => group.push(d),
            None => codes.push((d.code.as_str(), vec![d])),
        }
    }
    codes
        .into_iter()
        .map(|(code, group)| {
            let first = group[0];
            let path = first.path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
            let n = group.len();
            if n == 1 {
                format!("warning[{code}]: {path}{}", first.message)
            } else {
                let what = if first.path.is_some() { "files" } else { "times" };
                format!("warning[{code}]: {n} {what}, first {path}{} ({})", first.message, elsewhere(&group))
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
    /// Files passed over as rg and fd pass them over (binary files, links
    /// not followed, FIFOs): counted here, not warned. Absent when none.
    #[serde(default, skip_serializing_if = "Skipped::is_empty")]
    pub skipped: Skipped,
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
        // Listed for a reader of the text alone: the others, then how many more.
        assert_eq!(
            diagnostic_lines_listed(&all, 1),
            [
                "warning[binary_file]: 3 files, first a.dat: binary file (others: b.dat, … and 1 more)",
                "warning[walk_error]: loop",
            ]
        );
        assert_eq!(
            diagnostic_lines_listed(&all, 5)[0],
            "warning[binary_file]: 3 files, first a.dat: binary file (others: b.dat, c.dat)"
        );
    }

    #[derive(Serialize)]
    struct R {
        matches: Vec<u32>,
        truncated: bool,
    }

    #[test]
    fn envelope_field_order_is_fixed() {
        let stats = Stats { elapsed_ms: 1.5, skipped: Skipped::default() };
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
