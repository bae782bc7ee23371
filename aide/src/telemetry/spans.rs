//! A spooled run made into the spans the exporter sends: the run's
//! `execute_tool` span (GenAI semantic conventions, with aide's own
//! attributes) and one child span per process it started (its phases, each
//! with the span id its `TRACEPARENT` named); none for a run that was not
//! sampled (it is counted in the metrics only).

use std::borrow::Cow;
use std::str::FromStr;
use std::time::SystemTime;

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
use opentelemetry_semantic_conventions::attribute as semconv;

use aide_telemetry::{Phase, SpanRecord};

/// The GenAI conventions' names: opentelemetry-semantic-conventions 0.33
/// deprecates its copies (they moved to the semantic-conventions-genai
/// repository, which publishes no crate), so they are spelt here, as that
/// repository's `execute_tool` span defines them.
pub(crate) mod genai {
    pub(crate) const OPERATION_NAME: &str = "gen_ai.operation.name";
    pub(crate) const TOOL_NAME: &str = "gen_ai.tool.name";
    pub(crate) const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    pub(crate) const TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
    pub(crate) const TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
    /// The operation every span and metric of a run is.
    pub(crate) const EXECUTE_TOOL: &str = "execute_tool";
}

/// aide's own attributes, beside the GenAI conventions' (CONTRACT.md lists them).
pub(crate) mod attr {
    pub(crate) const EXECUTION_ID: &str = "aide.execution_id";
    pub(crate) const TOOL: &str = "aide.tool";
    pub(crate) const VERSION: &str = "aide.tool.version";
    pub(crate) const EXIT_CODE: &str = "aide.exit_code";
    pub(crate) const ERROR_CODE: &str = "aide.error_code";
    pub(crate) const RISK: &str = "aide.risk";
    pub(crate) const MAX_RISK: &str = "aide.max_risk";
    pub(crate) const SANDBOX: &str = "aide.sandbox";
    pub(crate) const NETWORK: &str = "aide.network";
    pub(crate) const ROOT_NAME: &str = "aide.root.name";
    pub(crate) const BYTES_OUT: &str = "aide.bytes_out";
    pub(crate) const ORIGIN: &str = "aide.origin";
    pub(crate) const PURPOSE: &str = "aide.process.purpose";
    pub(crate) const PROCESS_NAME: &str = "aide.process.name";
    pub(crate) const TIMED_OUT: &str = "aide.process.timed_out";
}

/// The instrumentation scope of every span: aide, at this version.
pub(crate) fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("aide").with_version(env!("CARGO_PKG_VERSION")).build()
}

/// The run's span and its phases' spans; none when the run was not
/// sampled, or its ids do not read (a record not written by aide).
pub(crate) fn spans_of(record: &SpanRecord, scope: &InstrumentationScope) -> Vec<SpanData> {
    if !record.context.sampled() {
        return Vec::new();
    }
    let (Ok(trace_id), Ok(span_id)) =
        (TraceId::from_hex(&record.context.trace_id), SpanId::from_hex(&record.context.span_id))
    else {
        return Vec::new();
    };
    let state = record.tracestate.as_deref().and_then(|s| TraceState::from_str(s).ok()).unwrap_or_default();
    let flags = TraceFlags::new(record.context.flags);
    let parent = record.parent.as_ref().and_then(|p| SpanId::from_hex(&p.span_id).ok()).unwrap_or(SpanId::INVALID);
    let end = record.started + record.duration;
    let run = SpanData {
        span_context: SpanContext::new(trace_id, span_id, flags, false, state.clone()),
        parent_span_id: parent,
        parent_span_is_remote: parent != SpanId::INVALID,
        span_kind: SpanKind::Internal,
        name: Cow::Owned(format!("execute_tool {}", record.tool_name)),
        start_time: record.started,
        end_time: end,
        attributes: run_attributes(record),
        dropped_attributes_count: 0,
        events: SpanEvents::default(),
        links: SpanLinks::default(),
        status: match (&record.ok, &record.error_code) {
            (false, code) => Status::error(code.clone().unwrap_or_else(|| "failed".into())),
            (true, _) => Status::Unset,
        },
        instrumentation_scope: scope.clone(),
    };
    let mut spans = vec![run];
    for phase in &record.phases {
        let Ok(id) = SpanId::from_hex(&phase.span_id) else { continue };
        spans.push(SpanData {
            span_context: SpanContext::new(trace_id, id, flags, false, state.clone()),
            parent_span_id: span_id,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: Cow::Owned(match &phase.name {
                Some(name) => format!("{} {name}", phase.purpose),
                None => phase.purpose.clone(),
            }),
            start_time: phase.started,
            end_time: phase_end(phase, end),
            attributes: phase_attributes(phase),
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: if phase.timed_out { Status::error("timed out") } else { Status::Unset },
            instrumentation_scope: scope.clone(),
        });
    }
    spans
}

/// A phase ends when it ended, or with its run when it outlived it (a
/// job's process handed over running).
fn phase_end(phase: &Phase, run_end: SystemTime) -> SystemTime {
    if phase.exit_code.is_none() && phase.duration.is_zero() { run_end } else { phase.started + phase.duration }
}

fn run_attributes(r: &SpanRecord) -> Vec<KeyValue> {
    let mut a = vec![
        KeyValue::new(genai::OPERATION_NAME, genai::EXECUTE_TOOL),
        KeyValue::new(genai::TOOL_NAME, r.tool_name.clone()),
        KeyValue::new(genai::TOOL_CALL_ID, r.execution_id.clone()),
        KeyValue::new(attr::EXECUTION_ID, r.execution_id.clone()),
        KeyValue::new(attr::TOOL, r.tool.clone()),
        KeyValue::new(attr::VERSION, r.version.clone()),
        KeyValue::new(attr::EXIT_CODE, i64::from(r.exit_code)),
        KeyValue::new(attr::BYTES_OUT, i64::try_from(r.bytes_out).unwrap_or(i64::MAX)),
    ];
    a.extend(super::operation::of(r).map(|op| KeyValue::new(super::operation::OPERATION, op)));
    let optional = [
        (attr::ERROR_CODE, &r.error_code),
        (semconv::ERROR_TYPE, &r.error_code),
        (attr::RISK, &r.risk),
        (attr::MAX_RISK, &r.max_risk),
        (attr::SANDBOX, &r.sandbox),
        (attr::NETWORK, &r.network),
        (attr::ROOT_NAME, &r.root_name),
        (attr::ORIGIN, &r.origin),
    ];
    a.extend(optional.into_iter().filter_map(|(k, v)| v.clone().map(|v| KeyValue::new(k, v))));
    if let Some(content) = &r.content {
        if let Some(request) = &content.request {
            a.push(KeyValue::new(genai::TOOL_CALL_ARGUMENTS, request.clone()));
        }
        if let Some(result) = &content.result {
            a.push(KeyValue::new(genai::TOOL_CALL_RESULT, result.clone()));
        }
    }
    a
}

fn phase_attributes(p: &Phase) -> Vec<KeyValue> {
    let mut a = vec![
        KeyValue::new(attr::PURPOSE, p.purpose.clone()),
        KeyValue::new(attr::SANDBOX, p.sandbox.clone()),
        KeyValue::new(attr::TIMED_OUT, p.timed_out),
    ];
    if let Some(name) = &p.name {
        a.push(KeyValue::new(attr::PROCESS_NAME, name.clone()));
    }
    if let Some(code) = p.exit_code {
        a.push(KeyValue::new(attr::EXIT_CODE, i64::from(code)));
    }
    if let Some(command) = &p.command {
        a.push(KeyValue::new(semconv::PROCESS_COMMAND_LINE, command.clone()));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record() -> SpanRecord {
        let parent = aide_telemetry::SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        let context = aide_telemetry::SpanContext::child_of(parent.as_ref(), &Default::default());
        let started = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        SpanRecord {
            execution_id: "019a0000-0000-7000-8000-000000000001".into(),
            tool_name: "llm-transform".into(),
            tool: "llm-transform".into(),
            version: "0.1.0".into(),
            context,
            parent,
            tracestate: Some("rojo=00f067aa0ba902b7".into()),
            origin: None,
            started,
            duration: Duration::from_millis(40),
            exit_code: 3,
            ok: false,
            error_code: Some("verify_failed".into()),
            risk: None,
            max_risk: Some("medium".into()),
            sandbox: Some("workspace-write".into()),
            network: Some("on".into()),
            root_name: Some("repo".into()),
            bytes_out: 321,
            phases: vec![Phase {
                purpose: "verify command".into(),
                name: None,
                span_id: aide_telemetry::context::new_span_id(),
                started: started + Duration::from_millis(5),
                duration: Duration::from_millis(30),
                exit_code: Some(1),
                timed_out: false,
                sandbox: "workspace-write".into(),
                command: None,
            }],
            content: None,
        }
    }

    fn value<'a>(span: &'a SpanData, key: &str) -> Option<&'a opentelemetry::Value> {
        span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
    }

    #[test]
    fn a_run_is_an_execute_tool_span_under_its_caller_with_its_phases_under_it() {
        let r = record();
        let spans = spans_of(&r, &scope());
        assert_eq!(spans.len(), 2);
        let run = &spans[0];
        assert_eq!(run.name, "execute_tool llm-transform");
        assert_eq!(run.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(run.span_context.span_id().to_string(), r.context.span_id);
        assert_eq!(run.parent_span_id.to_string(), "00f067aa0ba902b7");
        assert!(run.parent_span_is_remote);
        assert_eq!(value(run, "gen_ai.operation.name").map(|v| v.as_str().into_owned()), Some("execute_tool".into()));
        assert_eq!(value(run, "gen_ai.tool.call.id").map(|v| v.as_str().into_owned()), Some(r.execution_id.clone()));
        assert_eq!(value(run, "error.type").map(|v| v.as_str().into_owned()), Some("verify_failed".into()));
        assert_eq!(value(run, "aide.exit_code"), Some(&opentelemetry::Value::I64(3)));
        assert_eq!(run.status, Status::error("verify_failed"));
        assert!(value(run, "gen_ai.tool.call.arguments").is_none(), "no content unless asked");
        let phase = &spans[1];
        assert_eq!(phase.parent_span_id, run.span_context.span_id());
        assert_eq!(phase.span_context.trace_id(), run.span_context.trace_id());
        assert_eq!(phase.name, "verify command");
        assert!(phase.start_time >= run.start_time && phase.end_time <= run.end_time);
    }

    #[test]
    fn a_root_run_has_no_parent_and_a_record_with_bad_ids_makes_no_span() {
        let mut r = record();
        r.parent = None;
        r.context = aide_telemetry::SpanContext::child_of(None, &Default::default());
        let spans = spans_of(&r, &scope());
        assert_eq!(spans[0].parent_span_id, SpanId::INVALID);
        assert!(!spans[0].parent_span_is_remote);
        r.context.span_id = "zz".into();
        assert!(spans_of(&r, &scope()).is_empty());
    }

    #[test]
    fn an_unsampled_run_makes_no_span() {
        let mut r = record();
        r.context.flags &= !aide_telemetry::context::SAMPLED;
        assert!(spans_of(&r, &scope()).is_empty());
    }

    #[test]
    fn a_phase_keeps_the_span_id_it_was_given_and_says_what_it_ran_as() {
        let mut r = record();
        r.phases[0].purpose = "checker".into();
        r.phases[0].name = Some("shellcheck".into());
        let spans = spans_of(&r, &scope());
        let phase = &spans[1];
        assert_eq!(phase.span_context.span_id().to_string(), r.phases[0].span_id);
        assert_eq!(phase.name, "checker shellcheck");
        assert_eq!(value(phase, "aide.process.purpose").map(|v| v.as_str().into_owned()), Some("checker".into()));
        assert_eq!(value(phase, "aide.process.name").map(|v| v.as_str().into_owned()), Some("shellcheck".into()));
    }

    /// aide decides a run's sampling itself (the forwarder only sends what
    /// was sampled): its trace id ratio must agree with the SDK's sampler.
    #[test]
    fn the_ratio_sampler_agrees_with_the_sdk_s() {
        use opentelemetry_sdk::trace::{Sampler, ShouldSample};
        for ratio in [0.0, 0.1, 0.25, 0.5, 0.9, 1.0] {
            let ours = aide_telemetry::sampler::Sampler::parse(Some("traceidratio"), Some(&ratio.to_string()))
                .expect("a sampler");
            for _ in 0..200 {
                let id = aide_telemetry::context::new_trace_id();
                let trace_id = TraceId::from_hex(&id).expect("an id");
                let decided = Sampler::TraceIdRatioBased(ratio).should_sample(
                    None,
                    trace_id,
                    "run",
                    &SpanKind::Internal,
                    &[],
                    &[],
                );
                let sdk = matches!(decided.decision, opentelemetry_sdk::trace::SamplingDecision::RecordAndSample);
                assert_eq!(ours.samples(None, &id), sdk, "ratio {ratio}, trace {id}");
            }
        }
    }
}
