//! Whether a run exports, and where each signal goes: the standard
//! OpenTelemetry environment, else the `[telemetry]` table of the user's
//! aide.toml (each variable that is set wins over the table). The start-up
//! path reads a few variables and at most the user's one small file: no
//! exporter code.
//!
//! Spans and metrics are resolved each on its own, as the OTLP exporter
//! specification says: a signal's own endpoint variable is its URL as
//! written; else `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` or
//! `/v1/metrics` appended (http) or as written (grpc); with neither, the
//! signal is not asked for. `OTEL_TRACES_EXPORTER` and
//! `OTEL_METRICS_EXPORTER` switch one off (`none`); aide has only OTLP, so
//! any other exporter named means that signal is not sent, and doctor says
//! so. The protocol is the signal's own `…_PROTOCOL`, else
//! `OTEL_EXPORTER_OTLP_PROTOCOL`, else http/protobuf.

use crate::sampler::Sampler;

/// The GenAI conventions' own switch for content (here: the request and
/// the result document, redacted) on spans.
pub const CAPTURE_CONTENT_VAR: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// The endpoint for every signal.
pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// Export as asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The endpoint export goes to: the spans', else the metrics' (empty
    /// when neither is sent).
    pub endpoint: String,
    /// The variables aide.toml sets that the environment does not: given
    /// to the forwarder, whose exporter reads them.
    pub from_file: Vec<(&'static str, String)>,
    /// Whether spans carry the redacted request and result.
    pub capture_content: bool,
    /// Where spans go, or why they do not.
    pub traces: Signal,
    /// Where metrics go, or why they do not.
    pub metrics: Signal,
    /// Which runs' spans are recorded.
    pub sampler: Sampler,
    /// Names these settings' export folder and forwarder: a digest of every
    /// `OTEL_` variable the forwarder reads and of what aide.toml adds, so
    /// runs asking for another endpoint, credentials, protocol or service
    /// name are never sent by a forwarder started with other settings.
    pub key: String,
}

/// What becomes of one signal.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// Sent there (unless the destination itself is refused: see
    /// [`Destination::refusal`]).
    On(Destination),
    /// Not sent.
    Off(Off),
}

/// Why a signal is not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Off {
    pub why: String,
    /// The environment asks for something aide cannot do (an exporter or
    /// sampler it does not have): doctor warns.
    pub unsupported: bool,
}

/// Where a signal is sent, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// The URL as sent (a signal's own variable as written; the common
    /// endpoint with the signal's path for http).
    pub url: String,
    /// The variable that named it (the table's `endpoint` stands for
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub named_by: &'static str,
    /// The protocol asked, or why it cannot be used.
    pub protocol: Result<Protocol, String>,
}

/// The OTLP transports aide sends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    HttpProtobuf,
    HttpJson,
    Grpc,
}

impl Protocol {
    /// As the protocol variables spell it.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "http/protobuf",
            Protocol::HttpJson => "http/json",
            Protocol::Grpc => "grpc",
        }
    }
}

impl Destination {
    /// Why nothing can be sent here (a protocol aide does not have, an
    /// endpoint that is no http(s) URL); the forwarder drops and counts
    /// what it would have sent, with this reason, rather than send it
    /// otherwise than asked.
    pub fn refusal(&self) -> Option<String> {
        match &self.protocol {
            Err(why) => Some(why.clone()),
            Ok(_) => crate::endpoint::problem(&self.url).map(|why| format!("{}: {why}", self.named_by)),
        }
    }
}

impl Signal {
    /// Where it is sent, when it is.
    pub fn destination(&self) -> Option<&Destination> {
        match self {
            Signal::On(d) => Some(d),
            Signal::Off(_) => None,
        }
    }
}

impl Settings {
    /// Whether a run has anything to spool: spans or metrics asked.
    pub fn exports(&self) -> bool {
        self.traces.destination().is_some() || self.metrics.destination().is_some()
    }
}

/// One signal's variables.
struct Kind {
    name: &'static str,
    exporter: &'static str,
    endpoint: &'static str,
    protocol: &'static str,
    path: &'static str,
}

const TRACES: Kind = Kind {
    name: "spans",
    exporter: "OTEL_TRACES_EXPORTER",
    endpoint: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    protocol: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    path: "/v1/traces",
};

const METRICS: Kind = Kind {
    name: "metrics",
    exporter: "OTEL_METRICS_EXPORTER",
    endpoint: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    protocol: "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    path: "/v1/metrics",
};

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// What export is asked; None when it is off: neither spans nor metrics
/// have an endpoint (in the environment or the user's aide.toml), or
/// `OTEL_SDK_DISABLED=true`, or each is switched off.
pub fn resolve() -> Option<Settings> {
    Some(current()).filter(Settings::exports)
}

/// What the environment and the user's aide.toml say, exported or not
/// (`aide doctor` says why not).
pub fn current() -> Settings {
    let mut settings = resolve_with(aide_config::user_telemetry().unwrap_or_default(), var);
    let environment: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| k.starts_with("OTEL_") && k != CAPTURE_CONTENT_VAR)
        .collect();
    settings.key = key_of(environment, &settings.from_file);
    settings
}

/// The digest naming an export's settings: its `OTEL_` variables and what
/// aide.toml adds, sorted, 16 hex digits of their SHA-256.
fn key_of(mut environment: Vec<(String, String)>, from_file: &[(&'static str, String)]) -> String {
    environment.extend(from_file.iter().map(|(k, v)| (format!("aide.toml {k}"), v.clone())));
    environment.sort();
    let text: String = environment.iter().map(|(k, v)| format!("{k}={v}\0")).collect();
    aide_core::checksum::sha256_hex(text.as_bytes())[..16].to_string()
}

/// [`current`] from the user's table and the environment's variables.
fn resolve_with(table: aide_config::TelemetryTable, var: impl Fn(&str) -> Option<String>) -> Settings {
    let file = [
        (ENDPOINT_VAR, table.endpoint.clone()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", table.protocol.clone()),
        ("OTEL_SERVICE_NAME", table.service_name.clone()),
        ("OTEL_RESOURCE_ATTRIBUTES", table.resource_attributes.clone()),
    ];
    let from_file: Vec<(&'static str, String)> = file
        .into_iter()
        .filter(|(name, _)| var(name).is_none())
        .filter_map(|(name, value)| Some((name, value.filter(|v| !v.trim().is_empty())?)))
        .collect();
    let get = |name: &str| var(name).or_else(|| from_file.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()));
    let capture_content = match var(CAPTURE_CONTENT_VAR) {
        Some(v) => v.trim().eq_ignore_ascii_case("true"),
        None => table.capture_content.unwrap_or(false),
    };
    let disabled = get("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let (mut traces, metrics) = if disabled {
        let off = || Signal::Off(Off { why: "disabled by OTEL_SDK_DISABLED=true".into(), unsupported: false });
        (off(), off())
    } else {
        (signal(&TRACES, &get), signal(&METRICS, &get))
    };
    let sampler = match Sampler::parse(get("OTEL_TRACES_SAMPLER").as_deref(), get("OTEL_TRACES_SAMPLER_ARG").as_deref())
    {
        Ok(sampler) => sampler,
        Err(why) => {
            if let Signal::On(_) = traces {
                traces = Signal::Off(Off { why: format!("{why}: no span is sent"), unsupported: true });
            }
            Sampler::default()
        }
    };
    let endpoint = traces.destination().or(metrics.destination()).map(|d| d.url.clone()).unwrap_or_default();
    Settings { endpoint, from_file, capture_content, traces, metrics, sampler, key: String::new() }
}

/// Where one signal goes, as its variables say.
fn signal(kind: &Kind, get: &impl Fn(&str) -> Option<String>) -> Signal {
    let off = |why: String, unsupported: bool| Signal::Off(Off { why, unsupported });
    if let Some(exporter) = get(kind.exporter) {
        let named: Vec<String> =
            exporter.split(',').map(|e| e.trim().to_ascii_lowercase()).filter(|e| !e.is_empty()).collect();
        if !named.iter().any(|e| e == "otlp") {
            if named.iter().all(|e| e == "none") {
                return off(format!("switched off by {}=none", kind.exporter), false);
            }
            let said = exporter.trim();
            return off(
                format!("{}=`{said}` is not supported: aide exports OTLP only (otlp, none)", kind.exporter),
                true,
            );
        }
    }
    let protocol = [kind.protocol, "OTEL_EXPORTER_OTLP_PROTOCOL"]
        .into_iter()
        .find_map(|name| get(name).map(|value| protocol_of(name, &value)))
        .unwrap_or(Ok(Protocol::HttpProtobuf));
    let (url, named_by) = if let Some(url) = get(kind.endpoint) {
        (url.trim().to_string(), kind.endpoint)
    } else if let Some(base) = get(ENDPOINT_VAR) {
        let base = base.trim();
        let url = match protocol {
            // A gRPC endpoint is a target: the service names the method.
            Ok(Protocol::Grpc) => base.to_string(),
            _ => format!("{}{}", base.trim_end_matches('/'), kind.path),
        };
        (url, ENDPOINT_VAR)
    } else {
        let why = format!(
            "no endpoint is set for {} ({}, {ENDPOINT_VAR}, or the user's aide.toml [telemetry] endpoint)",
            kind.name, kind.endpoint
        );
        return off(why, false);
    };
    Signal::On(Destination { url, named_by, protocol })
}

/// The protocol `value` of variable `name` names, case aside.
fn protocol_of(name: &str, value: &str) -> Result<Protocol, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "http/protobuf" => Ok(Protocol::HttpProtobuf),
        "http/json" => Ok(Protocol::HttpJson),
        "grpc" => Ok(Protocol::Grpc),
        _ => Err(format!("{name}=`{}` is not a protocol aide has (http/protobuf, http/json, grpc)", value.trim())),
    }
}

/// Whether this process's runs export spans or metrics (see [`resolve`]).
pub fn enabled() -> bool {
    resolve().is_some()
}

/// The caller's trace context from the environment (`TRACEPARENT`, and
/// `TRACESTATE` beside it), as harnesses pass it to the commands they run.
pub fn parent_from_env() -> Option<(crate::SpanContext, Option<String>)> {
    let parent = crate::SpanContext::parse(&std::env::var("TRACEPARENT").ok()?)?;
    let state = std::env::var("TRACESTATE").ok().and_then(|s| crate::context::clean_tracestate(&s));
    Some((parent, state))
}

#[cfg(test)]
mod tests;
