//! The OpenTelemetry forwarder: `aide __aide_otel_forward DIR`, started
//! detached by the first run that spools a span in the export folder `DIR`
//! while none runs (see `aide_telemetry::forwarder`). It sends the spooled
//! spans of sampled runs in batches through `opentelemetry-otlp`
//! (http/protobuf, http/json or grpc), records every run in the per-tool
//! metrics and flushes them, each signal where `aide_telemetry::settings`
//! sends it (or not at all), counts what it could not send in its state
//! file (`aide doctor` reads it), and leaves when the spool has been empty
//! for a while. The exporter's crates are this
//! module's alone: no tool's run loads them.

mod exporter;
mod forward;
mod http;
mod metrics;
mod operation;
mod spans;

/// Runs the forwarder's hidden commands; None for any other command line.
pub(crate) fn run_internal_command() -> Option<i32> {
    aide_keeper::detach::run(aide_telemetry::forwarder::WORDS, |dir| forward::serve(std::path::Path::new(dir)))
}

/// The trace a `tools/call` continues: its `_meta` W3C trace context (as
/// harnesses pass it, SEP-414), with the MCP tool's name for the span.
pub(crate) fn call_trace(name: &str, meta: &rmcp::model::RequestMetaObject) -> aide_harness::CallTrace {
    aide_harness::CallTrace {
        tool_name: name.to_string(),
        traceparent: meta.get_traceparent().map(str::to_string),
        tracestate: meta.get_tracestate().map(str::to_string),
    }
}
