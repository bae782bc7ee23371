//! One shape for every tool.
//!
//! A tool is a typed request, a typed output, and one function between them:
//!
//! ```text
//! Tool::run(request, &Context) -> Result<Outcome<Output>, AideError>
//! ```
//!
//! The [`Context`] carries what is the caller's, not the request's: the
//! execution id, the directory a relative `root` is resolved against, a
//! cancellation flag, a progress sink and, in text mode, a live-output sink.
//! The [`Outcome`] is the output plus the diagnostics of the run. The CLI
//! harness (`aide_harness::cli`) calls `run`; so will the MCP server; and a tool
//! that uses another (llm-shell spawning a job) calls the other's `run` with
//! the other's typed request.

use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use clap::{Args, FromArgMatches};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::color::TextOut;
use crate::envelope::{Diagnostic, Format};
use crate::error::{AideError, ExitStatus};
pub use crate::progress::{Progress, ProgressCounter, ProgressSink};
use crate::root::Root;

/// A tool: a typed request, a typed output, and the function between them.
pub trait Tool {
    const NAME: &'static str;
    const VERSION: &'static str;
    const ABOUT: &'static str;
    /// What `aide tools` says of the tool, on one line.
    const SUMMARY: &'static str;
    /// What the tool offers an agent, operation by operation (`aide tools`,
    /// the MCP tools of `aide mcp`).
    const OPERATIONS: &'static [crate::operation::Operation];
    /// Alternative request field names accepted in `--request` JSON.
    const REQUEST_ALIASES: &'static [(&'static str, &'static str)] = &[];
    /// Request fields whose flags only say how a result is shown or whether
    /// it is applied (`dry_run`, `diff`, …), not what is asked: given on the
    /// command line, they may accompany `--request` and override its field.
    const OUTPUT_FLAGS: &'static [&'static str] = &[];
    /// Text shown after the options in `--help` and the man page: what the
    /// flags alone do not teach (a request's operations, with examples).
    const AFTER_HELP: Option<&'static str> = None;
    /// Subcommands the binary runs outside this harness (`aide mcp`), for
    /// the completion scripts and the man page.
    fn outside_subcommands() -> Vec<clap::Command> {
        Vec::new()
    }
    /// Runs what this same binary serves outside the harness, when the
    /// process was started as it (a session's keeper, a job's supervisor, a
    /// language server's keeper, `aide mcp`): Some(its exit status), None
    /// for an ordinary command line. The harness calls it first, after a
    /// sandbox's helper and before anything else reads the arguments.
    fn outside_harness() -> Option<i32> {
        None
    }
    /// Whether the process sets glibc's allocator for heavy parsing (see
    /// `aide_gate::process::tune_allocator`): faster for tree-sitter work, but
    /// it keeps freed memory, which costs a search that grows one large
    /// vector about 12 MiB of peak RSS for nothing.
    const TUNE_ALLOCATOR: bool = false;
    /// Whether runs of this tool are recorded in the execution log.
    const LOG: bool = true;
    /// Whether the results this tool logs hold command output, whose secrets
    /// the log stores redacted even when the run printed them (`--no-redact`).
    const REDACT_LOGGED_RESULT: bool = false;
    /// The request; [`crate::govern::Governed`] says what in it a host
    /// such as `aide mcp` imposes and rates (nothing, for most tools).
    type Request: Args + FromArgMatches + DeserializeOwned + Serialize + JsonSchema + crate::govern::Governed;
    type Output: Serialize + JsonSchema + Render + 'static;

    fn run(request: Self::Request, ctx: &Context) -> Result<Outcome<Self::Output>, AideError>;

    /// Brings a request built from flags or JSON into its one canonical form
    /// (e.g. the words after `--` into `command` or `argv`) and refuses what
    /// is contradictory, before the request is logged and run.
    fn prepare(_request: &mut Self::Request) -> Result<(), AideError> {
        Ok(())
    }

    /// Whether Ctrl-C (or SIGTERM) on the command line raises the
    /// cancellation flag for this request (the run then ends with a
    /// `cancelled` error, printed and logged) instead of killing the
    /// process. Only for runs that change nothing while they check the flag:
    /// a commit is never cut short.
    fn cancel_on_interrupt(_request: &Self::Request) -> bool {
        false
    }
}

/// How a tool's output is shown beyond JSON.
pub trait Render {
    /// The compact text form, written through [`TextOut`], which escapes
    /// control characters and colours what [`TextOut::paint`] marks.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()>;
    /// False when the run found nothing (exit status 1, as grep).
    fn found(&self) -> bool {
        true
    }
    /// The exit status of a successful run: success, or nothing found.
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::found(self.found())
    }
    /// Whether the records were already written while the tool ran (to
    /// the live sink): the harness then prints only the rest.
    fn streamed(&self) -> bool {
        false
    }
    /// The result is too large for the execution log: about this many
    /// bytes as JSON (`aide_log::max_result_bytes`). The run is then
    /// logged by its size only, and a tool that streams its records need
    /// not keep them for the log.
    fn log_overflow(&self) -> Option<u64> {
        None
    }
    /// The records of the output's records field ([`Render::jsonl_records`]),
    /// already JSON: runs of comma-separated items (no brackets), in order,
    /// that the field, serialized empty, stands for. A streamed output hands
    /// over the records it printed, for the execution log; any other, when
    /// the context allowed it ([`Context::prepared_records`]), its whole
    /// records field, which the harness prints and logs in the field's
    /// place. The field must come before any text the output carries.
    fn records_json(&self) -> Option<&[String]> {
        None
    }
    /// For `--jsonl`: the result field holding the records and the record
    /// type written into each line's `type`.
    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// For paging a result to a budget (the MCP server): keeps only the
    /// records `range` of the field [`Render::jsonl_records`] names. Summary
    /// fields keep describing the whole result.
    fn keep_records(&mut self, _range: Range<usize>) {}
    /// A JSON document to print verbatim in JSON modes instead of the
    /// envelope (`aide log show` prints a stored result exactly as it was).
    fn raw_json(&self) -> Option<&str> {
        None
    }
}

/// Keeps the items `range` of `items` (clamped to its length).
pub fn keep_range<T>(items: &mut Vec<T>, range: Range<usize>) {
    let end = range.end.min(items.len());
    items.truncate(end);
    items.drain(..range.start.min(end));
}

/// What a run returns: its output and the diagnostics (what was skipped or
/// approximated on the way).
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    pub output: T,
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Outcome<T> {
    pub fn new(output: T) -> Self {
        Outcome { output, diagnostics: Vec::new() }
    }

    pub fn with_diagnostics(output: T, diagnostics: Vec<Diagnostic>) -> Self {
        Outcome { output, diagnostics }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        Outcome { output: f(self.output), diagnostics: self.diagnostics }
    }
}

/// A cancellation flag, shared by the caller (a signal handler, an MCP
/// `notifications/cancelled`) and the run, which checks it between files or
/// iterations.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(cancelled)` once the flag is raised.
    pub fn check(&self) -> Result<(), AideError> {
        if self.is_cancelled() { Err(AideError::cancelled()) } else { Ok(()) }
    }

    /// The flag itself, for a signal handler to raise.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.0
    }
}

type LiveSink = Mutex<Live>;

/// Where a tool streams text as it works (text mode only): written
/// through [`TextOut`], so it is escaped and coloured as the final text is.
pub struct Live {
    out: Box<dyn Write + Send>,
    color: bool,
    /// Cleared before the first write: stdout and stderr share the terminal.
    progress_line: Option<Arc<crate::progress::ProgressLine>>,
}

impl Live {
    pub fn new(out: Box<dyn Write + Send>, color: bool) -> Live {
        Live { out, color, progress_line: None }
    }

    /// Clears `line` for good before anything streams.
    pub fn with_progress_line(mut self, line: Arc<crate::progress::ProgressLine>) -> Live {
        self.progress_line = Some(line);
        self
    }

    fn clear_progress(&mut self) {
        if let Some(line) = self.progress_line.take() {
            line.stop();
        }
    }

    /// Writes through a [`TextOut`], then flushes.
    pub fn text<R>(&mut self, f: impl FnOnce(&mut TextOut<'_>) -> io::Result<R>) -> io::Result<R> {
        self.clear_progress();
        let mut text = TextOut::new(&mut *self.out, self.color);
        let r = f(&mut text)?;
        text.flush()?;
        Ok(r)
    }

    /// Writes JSONL records, `{"type": KIND, …}` each, exactly as the
    /// harness would have printed them from the final document: one write
    /// and a flush for the batch. Returns the bytes written.
    ///
    /// `keep`: each record's JSON (without its `type`) is appended there
    /// too, comma-separated — serialized once for both.
    pub fn records<T: Serialize>(
        &mut self,
        kind: &str,
        items: &[T],
        mut keep: Option<&mut Vec<u8>>,
    ) -> io::Result<usize> {
        self.clear_progress();
        let mut buf = Vec::new();
        let mut body = Vec::new();
        for item in items {
            body.clear();
            serde_json::to_writer(&mut body, item).map_err(io::Error::other)?;
            if let Some(keep) = keep.as_deref_mut() {
                if !keep.is_empty() {
                    keep.push(b',');
                }
                keep.extend_from_slice(&body);
            }
            match body.as_slice() {
                // An object: `"type"` spliced in first, as `with_type` puts
                // it, without building the record as a Value.
                [b'{', rest @ ..] => {
                    buf.extend_from_slice(b"{\"type\":");
                    serde_json::to_writer(&mut buf, kind).map_err(io::Error::other)?;
                    if rest != b"}" {
                        buf.push(b',');
                    }
                    buf.extend_from_slice(rest);
                }
                _ => {
                    let value = serde_json::from_slice(&body).map_err(io::Error::other)?;
                    serde_json::to_writer(&mut buf, &crate::envelope::with_type(kind, value))
                        .map_err(io::Error::other)?;
                }
            }
            buf.push(b'\n');
        }
        self.out.write_all(&buf)?;
        self.out.flush()?;
        Ok(buf.len())
    }

    /// As [`Live::text`], rendered whole first and written in one go (a
    /// batch of lines: one system call, not one per line).
    pub fn text_batch(&mut self, f: impl FnOnce(&mut TextOut<'_>) -> io::Result<()>) -> io::Result<()> {
        self.clear_progress();
        let mut buf = Vec::new();
        {
            let mut text = TextOut::new(&mut buf, self.color);
            f(&mut text)?;
            text.flush()?;
        }
        self.out.write_all(&buf)?;
        self.out.flush()
    }

    /// As [`Live::text`], buffered: many short lines cost one system call
    /// per 64 KiB instead of one each (stdout is line-buffered).
    pub fn buffered<R>(&mut self, f: impl FnOnce(&mut TextOut<'_>) -> R) -> R {
        self.clear_progress();
        let mut buf = io::BufWriter::with_capacity(1 << 16, &mut *self.out);
        let mut text = TextOut::new(&mut buf, self.color);
        let r = f(&mut text);
        let _ = text.flush();
        r
    }
}

/// What a run gets from its caller besides the request.
pub struct Context {
    /// The id this run is logged under (and undone by, for a transform).
    pub execution_id: String,
    /// The directory a relative `root` is resolved against; None: the
    /// process's working directory.
    pub working_dir: Option<PathBuf>,
    pub cancel: Cancel,
    pub progress: ProgressSink,
    /// The format the result will be printed in (an output budget such as
    /// `--max-output-bytes` counts the bytes of this format).
    pub format: Format,
    /// In text and JSONL modes on the command line, stdout for output that
    /// streams while the tool runs (the text outline, `llm-jobs logs
    /// --follow`, search results in order); None where only the final
    /// document may be printed.
    live: Option<LiveSink>,
    /// Whether the run's result is recorded in the execution log: a tool
    /// that streams its records keeps them for the log only then.
    pub logged: bool,
    /// The caller prints the result as one compact JSON document and takes
    /// its records already serialized ([`Render::records_json`]): a tool may
    /// serialize each record where it is found, in parallel, and keep the
    /// JSON instead of the (larger) structs.
    pub prepared_records: bool,
    /// The run may read this process's stdin as its caller's data (`exec
    /// --stdin -`): a command-line run whose request did not come on stdin.
    /// Never a server's run, whose stdin is its protocol.
    pub reads_stdin: bool,
    /// Who reads what the run says (hints, continuation lines, undo
    /// lines, errors): the command line's flags or MCP's arguments.
    pub voice: crate::voice::Voice,
    /// The root the run opened, for the execution log.
    opened_root: Mutex<Option<PathBuf>>,
    /// The roots this run is confined to (`aide mcp`'s), opened once: the
    /// run's root is opened beneath one of them, and the objects it reaches
    /// by id (log records, jobs, sessions, undo data) must belong under one.
    confine: Option<Arc<Vec<Root>>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("execution_id", &self.execution_id)
            .field("working_dir", &self.working_dir)
            .field("cancel", &self.cancel)
            .field("format", &self.format)
            .field("live", &self.live.is_some())
            .finish()
    }
}

impl Context {
    /// A context for a run printed as compact JSON: no live output, no
    /// progress, a flag nobody raises.
    pub fn new(execution_id: impl Into<String>) -> Context {
        Context {
            execution_id: execution_id.into(),
            working_dir: None,
            cancel: Cancel::new(),
            progress: ProgressSink::default(),
            format: Format::Json { pretty: false },
            live: None,
            logged: false,
            prepared_records: false,
            reads_stdin: false,
            voice: crate::voice::Voice::Cli,
            opened_root: Mutex::new(None),
            confine: None,
        }
    }

    /// The context of a library call made inside this run (a Dialect
    /// program's `search`, a background exec's spawn): the same id, working
    /// directory and cancellation flag, but nothing streamed, no records
    /// handed over as JSON and nothing logged — the caller reads the output
    /// it gets back, and prints only its own.
    pub fn nested(&self) -> Context {
        Context {
            execution_id: self.execution_id.clone(),
            working_dir: self.working_dir.clone(),
            cancel: self.cancel.clone(),
            voice: self.voice,
            ..Context::new(String::new())
        }
    }

    pub fn with_voice(mut self, voice: crate::voice::Voice) -> Context {
        self.voice = voice;
        self
    }

    pub fn with_cancel(mut self, cancel: Cancel) -> Context {
        self.cancel = cancel;
        self
    }

    pub fn with_progress(mut self, progress: ProgressSink) -> Context {
        self.progress = progress;
        self
    }

    pub fn with_format(mut self, format: Format) -> Context {
        self.format = format;
        self
    }

    pub fn with_working_dir(mut self, dir: impl Into<PathBuf>) -> Context {
        self.working_dir = Some(dir.into());
        self
    }

    pub fn with_live(mut self, live: Live) -> Context {
        self.live = Some(Mutex::new(live));
        self
    }

    /// The live-output sink, when the caller streams text (text mode).
    pub fn live(&self) -> Option<MutexGuard<'_, Live>> {
        if self.format != Format::Text {
            return None;
        }
        self.live.as_ref().map(crate::sync::lock)
    }

    pub fn has_live(&self) -> bool {
        self.format == Format::Text && self.live.is_some()
    }

    /// The live sink in JSONL mode: records written as they are found,
    /// with [`Live::records`]; the harness then prints only the summary
    /// (see [`Render::streamed`]).
    pub fn live_records(&self) -> Option<MutexGuard<'_, Live>> {
        if self.format != Format::Jsonl {
            return None;
        }
        self.live.as_ref().map(crate::sync::lock)
    }

    /// `Err(cancelled)` once the caller raised the flag.
    pub fn check_cancel(&self) -> Result<(), AideError> {
        self.cancel.check()
    }

    /// Confines the run to `roots` (see [`Context::open_root`], [`Context::confined`]).
    pub fn with_confine(mut self, roots: Arc<Vec<Root>>) -> Context {
        self.confine = Some(roots);
        self
    }

    /// Whether the run is confined to roots.
    pub fn is_confined(&self) -> bool {
        self.confine.is_some()
    }

    /// Whether `path` lies under the roots the run is confined to (always,
    /// when it is not confined). Judged on the path resolved through its
    /// links where it exists, by its letters where it does not.
    pub fn confined(&self, path: &Path) -> bool {
        let Some(roots) = &self.confine else { return true };
        let resolved = path.canonicalize().ok().or_else(|| crate::root::lexically_normal(&self.resolve(path)));
        resolved.is_some_and(|p| roots.iter().any(|r| p.starts_with(r.path())))
    }

    /// `Err(path_outside_root)` when `path` (a session's folder, a job's
    /// working directory, a run's root) is not under the confining roots.
    pub fn check_confined(&self, what: &str, path: &Path) -> Result<(), AideError> {
        if self.confined(path) { Ok(()) } else { Err(self.outside_roots(what, path)) }
    }

    /// The error for `what` at `path`, outside the confining roots.
    fn outside_roots(&self, what: &str, path: &Path) -> AideError {
        let roots: Vec<String> =
            self.confine.iter().flat_map(|r| r.iter()).map(|r| r.path().display().to_string()).collect();
        crate::error::ToolError::OutsideRoots { what: what.to_string(), path: path.display().to_string(), roots }.into()
    }

    /// The directory relative paths of the request are resolved against:
    /// the caller's working directory, or the process's.
    pub fn base_dir(&self) -> Result<PathBuf, AideError> {
        match &self.working_dir {
            Some(dir) => Ok(dir.clone()),
            None => std::env::current_dir().map_err(|e| AideError::io(".", &e)),
        }
    }

    /// `path` resolved against [`Context::base_dir`] when it is relative.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        match &self.working_dir {
            Some(dir) => dir.join(path),
            None => path.to_path_buf(),
        }
    }

    /// Opens the root a request names (relative to the working directory),
    /// or the working directory itself, and remembers it for the log.
    pub fn open_root(&self, requested: Option<&Path>) -> Result<Root, AideError> {
        let dir = match (requested, &self.working_dir) {
            (Some(r), Some(base)) => base.join(r),
            (Some(r), None) => r.to_path_buf(),
            (None, Some(base)) => base.clone(),
            (None, None) => PathBuf::from("."),
        };
        let root = match &self.confine {
            None => Root::new(&dir)?,
            // Opened beneath the confining root that holds it, with no link
            // followed: a swap of a folder for a link to the outside between
            // the check and the open is refused, never followed.
            Some(roots) => {
                let shown = dir.display().to_string();
                let resolved = dir.canonicalize().map_err(|e| {
                    AideError::io(&shown, &e)
                        .with_hint("the root must name an existing directory under the server's roots")
                })?;
                let holder =
                    roots.iter().filter(|r| resolved.starts_with(r.path())).max_by_key(|r| r.path().as_os_str().len());
                match holder {
                    Some(holder) if resolved == holder.path() => holder.clone(),
                    Some(holder) => holder.subdir(&resolved)?,
                    None => return Err(self.outside_roots(&format!("the root `{shown}`"), &resolved)),
                }
            }
        };
        *crate::sync::lock(&self.opened_root) = Some(root.path().to_path_buf());
        Ok(root)
    }

    /// The root the run opened, if it opened one.
    pub fn opened_root(&self) -> Option<PathBuf> {
        crate::sync::lock(&self.opened_root).clone()
    }
}

#[cfg(test)]
mod tests;
