//! Running a tool in-process, logged exactly like a command-line run.
//!
//! [`invoke`] is the half of the harness that comes after the request is
//! parsed: `prepare`, the [`Context`], panics turned into `internal` errors,
//! the envelope, and the execution-log record. The CLI ([`crate::cli`]) adds
//! flags and printing around the same bookkeeping; the MCP server calls
//! [`invoke`] directly, with its own cancellation flag, progress sink and
//! request id, and gets back the typed output beside the JSON document.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use serde::Serialize;
use serde_json::Value;

use aide_core::envelope::{Diagnostic, Envelope, ErrorEnvelope, Skipped, Stats, diag, sort_diagnostics, stderr_line};
use aide_core::error::{AideError, ExitStatus};
use aide_core::tool::{Cancel, Context, ProgressSink, Render, Tool};
use aide_log::{ExecutionLog, RunRecord};

/// What the caller of an in-process run supplies besides the request.
#[derive(Debug, Default)]
pub struct Call {
    /// The directory a relative `root` is resolved against (None: the
    /// process's working directory).
    pub working_dir: Option<PathBuf>,
    pub cancel: Cancel,
    pub progress: ProgressSink,
    /// Whether to record the run (the tool's own `LOG` and `AIDE_LOG=off`
    /// still switch it off).
    pub log: bool,
    /// The command line recorded for the run: the equivalent CLI words.
    pub argv: Vec<String>,
    /// Who asked, recorded beside the run (the MCP request id).
    pub origin: Option<String>,
    /// The roots the run is confined to, opened once by the caller (`aide
    /// mcp`'s): see [`Context::with_confine`].
    pub confine: Option<std::sync::Arc<Vec<aide_core::Root>>>,
    /// Diagnostics about the request itself (old names it used), added to
    /// the run's.
    pub notes: Vec<Diagnostic>,
    /// Whose words the run's messages and errors are in (`aide mcp`'s: MCP's).
    pub voice: aide_core::voice::Voice,
    /// The trace the run belongs to, and its tool's name there (`aide
    /// mcp`'s: the MCP tool and the request's `_meta` trace context).
    pub trace: Option<crate::telemetry::CallTrace>,
    /// Why the caller raised `cancel`, when for a reason of its own.
    pub stopped: StopReason,
}

/// Why a caller raised a run's cancellation for a reason of its own
/// (`aide mcp`'s call timeout): a run that then ends `cancelled` ends with
/// this error instead, in its result, its log record and its span.
#[derive(Debug, Clone, Default)]
pub struct StopReason(std::sync::Arc<Mutex<Option<AideError>>>);

impl StopReason {
    /// Records `why`, then raises `cancel`.
    pub fn stop(&self, cancel: &Cancel, why: AideError) {
        *aide_core::sync::lock(&self.0) = Some(why);
        cancel.cancel();
    }

    /// `err`, or why the run was stopped when it ended cancelled.
    fn explain(&self, err: AideError) -> AideError {
        if err.code != aide_core::error::code::CANCELLED {
            return err;
        }
        aide_core::sync::lock(&self.0).clone().unwrap_or(err)
    }
}

/// A finished in-process run: the typed output (for rendering and paging)
/// and the JSON document a CLI run would have printed.
#[derive(Debug)]
pub struct Finished<O> {
    pub execution_id: String,
    pub result: Result<O, AideError>,
    /// The envelope (or error envelope) as `--json` prints it, built once
    /// as a tree (its keys in their order) for the caller: never printed
    /// and parsed back.
    pub document: Value,
    /// The bytes of the document as `--json` prints it (compact), as the
    /// log keeps it.
    pub document_len: usize,
    pub diagnostics: Vec<Diagnostic>,
}

impl<O: Render> Finished<O> {
    /// The exit status the CLI would have ended with.
    pub fn exit_status(&self) -> ExitStatus {
        match &self.result {
            Ok(output) => output.exit_status(),
            Err(e) => e.exit_status(),
        }
    }
}

/// The exit code a provisional record carries until the run records its own.
const UNFINISHED_EXIT: i32 = -1;

/// Runs `T` on `request` in this process and logs it like a CLI run.
pub fn invoke<T: Tool>(request: T::Request, call: Call) -> Finished<T::Output> {
    let Call { working_dir, cancel, progress, log, argv, origin, confine, notes, voice, trace, stopped } = call;
    let mut run = RunLog::for_call::<T>(argv, log, origin);
    run.span = crate::telemetry::RunSpan::for_call(T::NAME, trace.as_ref(), &run.execution_id);
    run.voice = voice;
    run.diagnostics.extend(notes);
    let mut ctx = Context::new(run.execution_id.clone()).with_cancel(cancel).with_progress(progress).with_voice(voice);
    if let Some(dir) = working_dir {
        ctx = ctx.with_working_dir(dir);
    }
    if let Some(roots) = confine {
        ctx = ctx.with_confine(roots);
    }
    match run_tool::<T, ()>(&mut run, request, ctx, |_, _, _| ()) {
        Ok(output) => {
            let status = output.exit_status();
            match run.success_document(&output) {
                Ok(document) => {
                    let document_len = run.record_document(status, true, None, &document);
                    Finished {
                        execution_id: run.execution_id.clone(),
                        result: Ok(output),
                        document,
                        document_len,
                        diagnostics: run.diagnostics,
                    }
                }
                Err(e) => run.finish_failed(e),
            }
        }
        Err(e) => run.finish_failed(stopped.explain(e)),
    }
}

/// The middle of every run, from the command line ([`crate::cli`]) or in
/// this process ([`invoke`]): `prepare` (a panic there is `internal` too),
/// the request logged, the log opened, then `T::run` with a panic turned
/// into `internal`, and the root it opened and its diagnostics kept for the
/// record. `ready` finishes the context once the log is open and returns
/// what must live while the tool runs (the CLI's signal handlers).
pub(crate) fn run_tool<T: Tool, G>(
    run: &mut RunLog,
    mut request: T::Request,
    mut ctx: Context,
    ready: impl FnOnce(&mut Context, &RunLog, &T::Request) -> G,
) -> Result<T::Output, AideError> {
    catch_panic(|| T::prepare(&mut request))?;
    if let Some(span) = &mut run.span {
        span.govern(&mut request);
    }
    // Only the log keeps the request: a --no-log run of 100,000 edits need
    // not serialise them.
    if run.enabled {
        run.request_json = serde_json::to_string(&request).ok();
    }
    run.open();
    let guard = ready(&mut ctx, run, &request);
    let result = catch_panic(|| T::run(request, &ctx));
    drop(guard);
    run.root = ctx.opened_root();
    let outcome = result?;
    run.diagnostics.extend(outcome.diagnostics);
    // Expected skips are counted in the stats, not warned on every call.
    run.skipped.take_from(&mut run.diagnostics);
    sort_diagnostics(&mut run.diagnostics);
    Ok(outcome.output)
}

/// Records a request refused before it ran (arguments that do not fit the
/// tool, a root outside the MCP server's roots) as a failed run, as the CLI
/// records a refused command line. `request_json` is what was asked, as
/// given (redacted in the log like every request).
pub fn refuse<T: Tool>(request_json: Option<String>, err: AideError, call: Call) -> Finished<T::Output> {
    let mut run = RunLog::for_call::<T>(call.argv, call.log, call.origin);
    run.span = crate::telemetry::RunSpan::for_call(T::NAME, call.trace.as_ref(), &run.execution_id);
    run.voice = call.voice;
    if run.enabled {
        run.request_json = request_json;
    }
    run.finish_failed(err)
}

static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// Keeps panics off stderr and remembers the message, so a panic becomes a
/// structured `internal` error instead of a backtrace.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        *aide_core::sync::lock(&PANIC_MESSAGE) = Some(format!("{msg}{at}"));
    }));
}

/// Runs `f`, turning a panic into an `internal` error.
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, AideError>) -> Result<T, AideError> {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            let msg = aide_core::sync::lock(&PANIC_MESSAGE).take().unwrap_or_else(|| "panic".into());
            Err(AideError::internal(format!("the tool panicked: {msg}")))
        }
    }
}

/// Everything the harness knows about a run, for the log.
pub(crate) struct RunLog {
    pub(crate) tool: &'static str,
    pub(crate) version: &'static str,
    pub(crate) execution_id: String,
    argv: Vec<String>,
    started: SystemTime,
    clock: Instant,
    /// Whether the run is recorded.
    pub(crate) enabled: bool,
    pub(crate) request_json: Option<String>,
    pub(crate) root: Option<PathBuf>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The expected skips taken out of `diagnostics`, for `stats.skipped`.
    pub(crate) skipped: Skipped,
    /// Whether the logged result is redacted too (argv and request always are).
    pub(crate) redact_result: bool,
    pub(crate) origin: Option<String>,
    /// Whose words the error document is in.
    pub(crate) voice: aide_core::voice::Voice,
    /// The thread writing the provisional record, joined before the final one.
    provisional: Option<std::thread::JoinHandle<()>>,
    /// Its OpenTelemetry span, when one is exported.
    pub(crate) span: Option<crate::telemetry::RunSpan>,
}

impl RunLog {
    pub(crate) fn new(tool: &'static str, version: &'static str, argv: Vec<String>, enabled: bool) -> RunLog {
        RunLog {
            tool,
            version,
            execution_id: aide_core::ids::new_execution_id(),
            argv,
            started: SystemTime::now(),
            clock: Instant::now(),
            enabled,
            request_json: None,
            root: None,
            diagnostics: Vec::new(),
            skipped: Skipped::default(),
            redact_result: false,
            origin: None,
            voice: aide_core::voice::Voice::Cli,
            provisional: None,
            span: None,
        }
    }

    /// Whether the run's end is recorded: in the log, or as its span.
    pub(crate) fn records(&self) -> bool {
        self.enabled || self.span.is_some()
    }

    /// The bookkeeping of an in-process run of `T`: logged when the caller
    /// and the tool want it and the environment does not switch it off.
    fn for_call<T: Tool>(argv: Vec<String>, log: bool, origin: Option<String>) -> RunLog {
        let mut run = RunLog::new(T::NAME, T::VERSION, argv, log && T::LOG && !aide_log::disabled_by_env());
        run.origin = origin;
        run.redact_result = T::REDACT_LOGGED_RESULT;
        run
    }

    /// Checks, before the tool runs, that the run can be logged, so a log
    /// that cannot be written shows as a diagnostic in the result instead
    /// of only on stderr; a failure switches logging off for this run.
    pub(crate) fn open(&mut self) {
        if !self.enabled {
            return;
        }
        match aide_log::spool_ready(&aide_core::home::aide_home()) {
            // A provisional record, replaced by the run's own when it ends: a
            // run killed mid-work (or just after printing) is in the log, as
            // unfinished, never missing. It is written beside the work, not
            // before it: the file costs a fast run a fifth of a millisecond,
            // and only a run killed within that time goes unrecorded, as one
            // killed while its arguments are read always did.
            Ok(()) => {
                let provisional = || {
                    self.record_of(UNFINISHED_EXIT, false, Some(aide_log::UNFINISHED), String::new(), None, Vec::new())
                };
                let (tool, record) = (self.tool, provisional());
                let thread = std::thread::Builder::new().name("aide-log".into());
                match thread.spawn(move || spool_record(tool, record)) {
                    Ok(handle) => self.provisional = Some(handle),
                    // No thread to spare: written here, before the work.
                    Err(_) => spool_record(tool, provisional()),
                }
            }
            Err(e) => {
                self.enabled = false;
                self.diagnostics
                    .push(Diagnostic::new(diag::LOG_FAILED, format!("this run is not logged: {}", e.message)));
            }
        }
    }

    pub(crate) fn stats(&self) -> Stats {
        let ms = self.clock.elapsed().as_secs_f64() * 1000.0;
        Stats { elapsed_ms: (ms * 1000.0).round() / 1000.0, skipped: self.skipped.clone() }
    }

    /// The envelope of a successful run (compact), or the stored document
    /// a tool returns verbatim (`aide log show`).
    /// The envelope of a successful run, as a tree. A stored document an
    /// output prints verbatim ([`Render::raw_json`], `aide log show`) is
    /// read from its text: it is another run's, kept in the log.
    pub(crate) fn success_document<O: Serialize + Render>(&self, output: &O) -> Result<Value, AideError> {
        if let Some(raw) = output.raw_json() {
            return serde_json::from_str(raw).map_err(|e| AideError::internal(format!("a stored document: {e}")));
        }
        let stats = self.stats();
        serde_json::to_value(self.envelope(output, &stats))
            .map_err(|e| AideError::internal(format!("serialising output: {e}")))
    }

    /// The envelope of a successful run around `output`.
    pub(crate) fn envelope<'a, O: Serialize>(&'a self, output: &'a O, stats: &'a Stats) -> Envelope<'a, O> {
        Envelope {
            tool: self.tool,
            version: self.version,
            execution_id: &self.execution_id,
            ok: true,
            result: output,
            diagnostics: &self.diagnostics,
            stats,
        }
    }

    /// The error envelope of a failed run (diagnostics sorted first).
    pub(crate) fn error_document(&mut self, err: &AideError) -> Value {
        sort_diagnostics(&mut self.diagnostics);
        let stats = self.stats();
        let mut doc = ErrorEnvelope::new(self.tool, self.version, &self.execution_id, err, &self.diagnostics, &stats);
        doc.error = aide_core::error::ErrorBody::said(err, self.voice);
        serde_json::to_value(&doc).unwrap_or_else(|_| serde_json::json!({ "ok": false }))
    }

    fn finish_failed<O>(mut self, err: AideError) -> Finished<O> {
        let document = self.error_document(&err);
        let document_len = self.record_document(err.exit_status(), false, Some(err.code.name), &document);
        Finished {
            execution_id: self.execution_id,
            result: Err(err),
            document,
            document_len,
            diagnostics: self.diagnostics,
        }
    }

    /// Records the run with `document` printed as `--json` prints it;
    /// returns how many bytes that is.
    fn record_document(&mut self, status: ExitStatus, ok: bool, error_code: Option<&str>, document: &Value) -> usize {
        let text = document.to_string();
        let len = text.len();
        self.record(status, ok, error_code, text);
        len
    }

    /// Ends the run's span, if it exports one: how it ended, the result (for
    /// its risk, and its content when asked) and the bytes it printed.
    pub(crate) fn end_span(
        &mut self,
        (status, ok, error_code): (ExitStatus, bool, Option<&str>),
        result_json: &str,
        bytes_out: u64,
        processes: &[aide_gate::ProcessRecord],
    ) {
        if let Some(span) = self.span.take() {
            span.end(crate::telemetry::Ended {
                execution_id: &self.execution_id,
                tool: self.tool,
                version: self.version,
                origin: self.origin.as_deref(),
                started: self.started,
                duration: self.clock.elapsed(),
                exit_code: status.code(),
                ok,
                error_code,
                root: self.root.as_deref(),
                result_json,
                bytes_out,
                request_json: self.request_json.as_deref(),
                processes,
            });
        }
    }

    /// Records the run, if logging is on; a failure only warns on stderr
    /// (the result is already on its way).
    pub(crate) fn record(&mut self, status: ExitStatus, ok: bool, error_code: Option<&str>, result_json: String) {
        self.record_sized(status, ok, error_code, result_json, None);
    }

    /// As [`RunLog::record`]; `oversized`: the result was this many bytes,
    /// over what the log keeps, and is logged by its size only.
    pub(crate) fn record_sized(
        &mut self,
        status: ExitStatus,
        ok: bool,
        error_code: Option<&str>,
        result_json: String,
        oversized: Option<u64>,
    ) {
        // Taken whether logged or not: a server's runs leave nothing behind.
        let processes = aide_gate::take_records(&self.execution_id);
        // The span too, logged or not: it holds no more than the log's record.
        let bytes_out = oversized.unwrap_or(result_json.len() as u64);
        self.end_span((status, ok, error_code), &result_json, bytes_out, &processes);
        if !self.enabled {
            return;
        }
        let record = self.record_of(status.code(), ok, error_code, result_json, oversized, processes);
        self.spool(record);
        // The output is out already: a spool nobody reads stays small.
        if aide_log::ingests_after(&self.execution_id) {
            let _ = ExecutionLog::open_in(&aide_core::home::aide_home());
        }
    }

    /// Writes the run's record to the spool, replacing the provisional one
    /// (waited for first, so the final record is the one that stays).
    fn spool(&mut self, record: RunRecord) {
        if let Some(provisional) = self.provisional.take() {
            let _ = provisional.join();
        }
        spool_record(self.tool, record);
    }

    /// The run's record as the log keeps it, redacted.
    fn record_of(
        &self,
        exit_code: i32,
        ok: bool,
        error_code: Option<&str>,
        result_json: String,
        oversized: Option<u64>,
        processes: Vec<aide_gate::ProcessRecord>,
    ) -> RunRecord {
        // Command lines and requests may carry secrets (`export TOKEN=…`):
        // the log keeps them redacted.
        // Documents are redacted value by value, so they stay JSON.
        let redactor = aide_gate::redact::Redactor::default();
        let document = |s: &str| aide_gate::redact::json::redact_document(s, &redactor).0;
        let result_json = if self.redact_result { document(&result_json) } else { result_json };
        RunRecord {
            execution_id: self.execution_id.clone(),
            tool: self.tool.to_string(),
            version: self.version.to_string(),
            argv: self.argv.iter().map(|a| redactor.redact(a).0).collect(),
            request: self.request_json.as_deref().map(document),
            cwd: std::env::current_dir().ok().map(|p| p.display().to_string()),
            root: self.root.as_ref().map(|p| p.display().to_string()),
            origin: self.origin.clone(),
            started: self.started,
            duration: self.clock.elapsed(),
            exit_code,
            ok,
            error_code: error_code.map(str::to_string),
            result_json,
            result_bytes: oversized,
            processes,
        }
    }
}

/// Spools `record`; a failure only warns on stderr (the result is already
/// on its way, or the run under way).
fn spool_record(tool: &str, record: RunRecord) {
    if let Err(e) = aide_log::spool_in(&aide_core::home::aide_home(), record) {
        stderr_line(&format!("{tool}: warning[{}]: {}", diag::LOG_FAILED, e.message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_stopped_for_a_reason_ends_with_it_and_any_other_error_is_kept() {
        let reason = StopReason::default();
        let cancel = Cancel::new();
        assert_eq!(reason.explain(AideError::cancelled()).code, aide_core::error::code::CANCELLED, "no reason yet");
        reason.stop(&cancel, AideError::internal("stopped past its limit"));
        assert!(cancel.is_cancelled());
        let explained = reason.clone().explain(AideError::cancelled());
        assert_eq!(explained.code, aide_core::error::code::INTERNAL);
        let other = AideError::io("a.txt", &std::io::Error::other("disk"));
        assert_eq!(reason.explain(other.clone()).code, other.code, "only a cancellation is explained");
    }
}
