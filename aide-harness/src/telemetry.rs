//! A run's OpenTelemetry span, when the environment asks for spans or
//! metrics (`aide_telemetry::settings::resolve`): its ids taken and its
//! sampling decided when the run starts (so what it starts through the gate
//! is given `TRACEPARENT` under it, sampled flag and all), and its record
//! spooled for the forwarder when it ends, unless there is nothing to send
//! (an unsampled run with no metrics asked). Nothing here touches the
//! network or fails a run.

use std::path::Path;
use std::time::{Duration, SystemTime};

use aide_core::govern::Governed;
use aide_core::operation::Operation;
use aide_core::sandbox::SandboxUsed;
use aide_telemetry::{Content, Phase, SpanContext, SpanRecord};

/// What the caller of an in-process run (`aide mcp`) says of the trace the
/// run belongs to.
#[derive(Debug, Default, Clone)]
pub struct CallTrace {
    /// `gen_ai.tool.name`: the MCP tool's name.
    pub tool_name: String,
    /// The request's `_meta.traceparent` and `_meta.tracestate`, as given.
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

/// The span of a run in progress.
#[derive(Debug)]
pub(crate) struct RunSpan {
    context: SpanContext,
    parent: Option<SpanContext>,
    tracestate: Option<String>,
    tool_name: String,
    max_risk: Option<&'static str>,
    sandbox: Option<SandboxUsed>,
    /// Registered under the run's id (a host of many runs), to forget at its end.
    per_run: Option<String>,
    settings: aide_telemetry::settings::Settings,
}

/// What a finished run tells its span.
pub(crate) struct Ended<'a> {
    pub(crate) execution_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) version: &'a str,
    pub(crate) origin: Option<&'a str>,
    pub(crate) started: SystemTime,
    pub(crate) duration: Duration,
    pub(crate) exit_code: i32,
    pub(crate) ok: bool,
    pub(crate) error_code: Option<&'a str>,
    pub(crate) root: Option<&'a Path>,
    pub(crate) result_json: &'a str,
    pub(crate) bytes_out: u64,
    pub(crate) request_json: Option<&'a str>,
    pub(crate) processes: &'a [aide_gate::ProcessRecord],
}

impl RunSpan {
    /// The span of a command-line run, the one run of its process: it
    /// continues `TRACEPARENT`, and every process started is given its own.
    pub(crate) fn for_command_line(tool: &str, operations: &[Operation], argv: &[String]) -> Option<RunSpan> {
        let settings = aide_telemetry::settings::resolve()?;
        let span = RunSpan::start(tool_name(tool, operations, argv), None, settings);
        if span.traces() {
            aide_gate::trace::set_for_process((span.context.traceparent(), span.tracestate.clone()));
        }
        Some(span)
    }

    /// The span of an in-process run: it continues the trace its caller
    /// names (an MCP request's `_meta`), else the process's `TRACEPARENT`.
    pub(crate) fn for_call(tool: &str, trace: Option<&CallTrace>, execution_id: &str) -> Option<RunSpan> {
        let settings = aide_telemetry::settings::resolve()?;
        let name = trace.map(|t| t.tool_name.clone()).filter(|n| !n.is_empty()).unwrap_or_else(|| tool.to_string());
        let given = trace.and_then(|t| {
            let parent = SpanContext::parse(t.traceparent.as_deref()?)?;
            Some((parent, t.tracestate.as_deref().and_then(aide_telemetry::context::clean_tracestate)))
        });
        let mut span = RunSpan::start(name, given, settings);
        if span.traces() {
            aide_gate::trace::set_for_run(execution_id, (span.context.traceparent(), span.tracestate.clone()));
            span.per_run = Some(execution_id.to_string());
        }
        Some(span)
    }

    fn start(
        tool_name: String,
        given: Option<(SpanContext, Option<String>)>,
        settings: aide_telemetry::settings::Settings,
    ) -> RunSpan {
        let (parent, tracestate) = match given.or_else(aide_telemetry::settings::parent_from_env) {
            Some((parent, state)) => (Some(parent), state),
            None => (None, None),
        };
        // With spans off (metrics only) the run claims no span: never
        // sampled, so no forwarder exports it, and its children keep the
        // caller's context.
        let sampler = match settings.traces {
            aide_telemetry::settings::Signal::On(_) => settings.sampler,
            aide_telemetry::settings::Signal::Off(_) => aide_telemetry::sampler::Sampler::NEVER,
        };
        let context = SpanContext::child_of(parent.as_ref(), &sampler);
        RunSpan { context, parent, tracestate, tool_name, max_risk: None, sandbox: None, per_run: None, settings }
    }

    /// Whether the run's span may be exported: spans are asked for.
    fn traces(&self) -> bool {
        self.settings.traces.destination().is_some()
    }

    /// What the request asks of its commands: the risk cap and the sandbox
    /// (tightened by the one the process imposes).
    pub(crate) fn govern<R: Governed>(&mut self, request: &mut R) {
        self.max_risk = request.max_risk().and_then(|r| r.map(|r| r.as_str()));
        self.sandbox =
            request.sandbox().map(|s| aide_gate::stricter(s.or(SandboxUsed::default()), aide_gate::ambient()));
    }

    /// Spools the run's span and wakes the forwarder; nothing it meets
    /// fails the run (a span that cannot be spooled is lost, as one the
    /// forwarder cannot send is).
    pub(crate) fn end(self, run: Ended<'_>) {
        if let Some(id) = &self.per_run {
            aide_gate::trace::clear_run(id);
        }
        let settings = self.settings.clone();
        // An unsampled run is only counted in the metrics: with none asked, nothing is sent.
        if !self.context.sampled() && settings.metrics.destination().is_none() {
            return;
        }
        let record = self.record(&run, settings.capture_content);
        let dir = aide_telemetry::record::export_dir(&aide_core::home::aide_home(), &settings.key);
        if aide_telemetry::record::spool(&dir, &record).is_err() {
            return;
        }
        // Without an aide executable no forwarder can ever send it: counted
        // as lost rather than left to pile up.
        if let Err(e) = aide_telemetry::forwarder::wake(&dir, &settings)
            && e.kind() == std::io::ErrorKind::NotFound
        {
            let _ = std::fs::remove_file(aide_telemetry::record::spooled_path(&dir, &record.execution_id));
            aide_telemetry::record::note_loss(&dir, aide_telemetry::forwarder::NO_EXECUTABLE);
        }
    }

    fn record(self, run: &Ended<'_>, capture: bool) -> SpanRecord {
        let redactor = aide_gate::redact::Redactor::default();
        let redact_document = |s: &str| aide_gate::redact::json::redact_document(s, &redactor).0;
        let first_sandbox = run.processes.first().map(|p| p.sandbox);
        let sandbox = self.sandbox.or(first_sandbox);
        let phases = run
            .processes
            .iter()
            .map(|p| Phase {
                purpose: p.purpose.clone(),
                name: p.name.clone(),
                // The id its TRACEPARENT named, so its own spans hang off it.
                span_id: p.span_id.clone().unwrap_or_else(aide_telemetry::context::new_span_id),
                started: p.started.unwrap_or(run.started),
                duration: Duration::from_millis(p.duration_ms),
                exit_code: p.exit_code,
                timed_out: p.timed_out,
                sandbox: p.sandbox.mode.name().to_string(),
                command: capture.then(|| p.command.clone()),
            })
            .collect();
        SpanRecord {
            execution_id: run.execution_id.to_string(),
            tool_name: self.tool_name,
            tool: run.tool.to_string(),
            version: run.version.to_string(),
            context: self.context,
            parent: self.parent,
            tracestate: self.tracestate,
            origin: run.origin.map(|o| bounded(o, MAX_ORIGIN_CHARS)),
            started: run.started,
            duration: run.duration,
            exit_code: run.exit_code,
            ok: run.ok,
            error_code: run.error_code.map(str::to_string),
            risk: rated_risk(run.result_json),
            max_risk: self.max_risk.map(str::to_string),
            sandbox: sandbox.map(|s| s.mode.name().to_string()),
            network: sandbox.map(|s| s.network.name().to_string()),
            root_name: run.root.and_then(|r| r.file_name()).map(|n| n.to_string_lossy().into_owned()),
            bytes_out: run.bytes_out,
            phases,
            content: capture.then(|| Content {
                request: run.request_json.map(redact_document),
                result: Some(redact_document(run.result_json)).filter(|r| !r.is_empty()),
            }),
        }
    }
}

/// The most of `aide.origin` a span carries: the MCP request id in it is the client's to choose.
const MAX_ORIGIN_CHARS: usize = 256;

/// `text`'s first `max` characters.
fn bounded(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// The risk a tool rated its command (`overall_risk` in its result), where it rates one.
fn rated_risk(result_json: &str) -> Option<String> {
    if !result_json.contains("\"overall_risk\"") {
        return None;
    }
    let doc: serde_json::Value = serde_json::from_str(result_json).ok()?;
    doc.pointer("/result/overall_risk").and_then(|r| r.as_str()).map(str::to_string)
}

/// `gen_ai.tool.name` of a command-line run: the executable and the
/// subcommand words of the operation its arguments name (the longest that
/// fits), as `llm-shell exec`.
pub(crate) fn tool_name(tool: &str, operations: &[Operation], argv: &[String]) -> String {
    let words: Vec<&str> = argv.iter().skip(1).take_while(|w| *w != "--").map(String::as_str).collect();
    let named = |op: &&Operation| {
        op.command.iter().all(|c| c.split('|').any(|alt| words.contains(&alt))) && !op.command.is_empty()
    };
    let Some(op) = operations.iter().filter(named).max_by_key(|op| op.command.len()) else {
        return tool.to_string();
    };
    let said: Vec<&str> = op.command.iter().filter_map(|c| c.split('|').find(|alt| words.contains(alt))).collect();
    format!("{tool} {}", said.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::operation::{Group, Mcp, READS};

    const fn op(name: &'static str, command: &'static [&'static str]) -> Operation {
        Operation {
            name,
            group: Group::Git,
            output: &[],
            mcp_defaults: &[],
            tool: "llm-git",
            command,
            description: "",
            effects: READS,
            mcp: Mcp::DERIVED,
        }
    }

    const OPS: &[Operation] = &[op("git", &["status|diff|log"]), op("git_branch", &["branch", "list|delete"])];

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_tool_name_is_the_program_and_the_subcommand_its_arguments_name() {
        assert_eq!(tool_name("llm-git", OPS, &argv("llm-git --json diff --staged")), "llm-git diff");
        assert_eq!(tool_name("llm-git", OPS, &argv("llm-git branch delete x")), "llm-git branch delete");
        assert_eq!(tool_name("llm-git", OPS, &argv("llm-git --json")), "llm-git");
        // Words after `--` are the command's, not the tool's.
        assert_eq!(tool_name("llm-git", OPS, &argv("llm-git x -- diff")), "llm-git");
    }

    #[test]
    fn an_origin_is_bounded_on_a_character_boundary() {
        let long = format!("mcp:{}", "é".repeat(1000));
        let kept = bounded(&long, MAX_ORIGIN_CHARS);
        assert_eq!(kept.chars().count(), 256);
        assert!(long.starts_with(&kept));
        assert_eq!(bounded("mcp:7", MAX_ORIGIN_CHARS), "mcp:7");
    }

    #[test]
    fn the_risk_a_tool_rated_is_read_from_its_result() {
        assert_eq!(rated_risk(r#"{"ok":true,"result":{"overall_risk":"high"}}"#).as_deref(), Some("high"));
        assert_eq!(rated_risk(r#"{"ok":true,"result":{}}"#), None);
        assert_eq!(rated_risk("not json \"overall_risk\""), None);
    }
}
