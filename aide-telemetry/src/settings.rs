//! Whether a run exports its span, read from the standard OpenTelemetry
//! environment only: the start-up path of every tool reads a few variables
//! and nothing else (no file, no exporter code).

/// The variables that turn export on: an OTLP endpoint, for all signals or
/// for traces.
pub const ENDPOINT_VARS: [&str; 2] = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"];

/// The GenAI conventions' own switch for content (here: the request and
/// the result document, redacted) on spans.
pub const CAPTURE_CONTENT_VAR: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Whether this process's runs export spans: an endpoint is set, and
/// neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` says
/// otherwise. Off by default.
pub fn enabled() -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let is = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v.trim().eq_ignore_ascii_case(value));
    ENDPOINT_VARS.iter().any(|v| set(v)) && !is("OTEL_SDK_DISABLED", "true") && !is("OTEL_TRACES_EXPORTER", "none")
}

/// Whether spans may carry content (the request and the result, redacted):
/// only when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
pub fn capture_content() -> bool {
    std::env::var(CAPTURE_CONTENT_VAR).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// The caller's trace context from the environment (`TRACEPARENT`, and
/// `TRACESTATE` beside it), as harnesses pass it to the commands they run.
pub fn parent_from_env() -> Option<(crate::SpanContext, Option<String>)> {
    let parent = crate::SpanContext::parse(&std::env::var("TRACEPARENT").ok()?)?;
    let state = std::env::var("TRACESTATE").ok().and_then(|s| crate::context::clean_tracestate(&s));
    Some((parent, state))
}
