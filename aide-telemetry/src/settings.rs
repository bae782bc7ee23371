//! Whether a run exports its span: the standard OpenTelemetry environment,
//! else the `[telemetry]` table of the user's aide.toml (each variable that
//! is set wins over the table). The start-up path reads a few variables and
//! at most the user's one small file: no exporter code.

/// The variables that turn export on: an OTLP endpoint, for all signals or
/// for traces.
pub const ENDPOINT_VARS: [&str; 2] = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"];

/// The GenAI conventions' own switch for content (here: the request and
/// the result document, redacted) on spans.
pub const CAPTURE_CONTENT_VAR: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Export as asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// The traces endpoint.
    pub endpoint: String,
    /// The variables aide.toml sets that the environment does not: given
    /// to the forwarder, whose exporter reads them.
    pub from_file: Vec<(&'static str, String)>,
    /// Whether spans carry the redacted request and result.
    pub capture_content: bool,
    /// Names these settings' export folder and forwarder: a digest of every
    /// `OTEL_` variable the forwarder reads and of what aide.toml adds, so
    /// runs asking for another endpoint, credentials, protocol or service
    /// name are never sent by a forwarder started with other settings.
    pub key: String,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// What export is asked; None when it is off: no endpoint in the
/// environment or the user's aide.toml, or `OTEL_SDK_DISABLED=true`, or
/// `OTEL_TRACES_EXPORTER=none`.
pub fn resolve() -> Option<Settings> {
    let is = |name: &str, value: &str| var(name).is_some_and(|v| v.trim().eq_ignore_ascii_case(value));
    if is("OTEL_SDK_DISABLED", "true") || is("OTEL_TRACES_EXPORTER", "none") {
        return None;
    }
    let mut settings = resolve_with(
        ENDPOINT_VARS.iter().find_map(|v| var(v)),
        aide_config::user_telemetry().unwrap_or_default(),
        var,
    )?;
    let environment: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| k.starts_with("OTEL_") && k != CAPTURE_CONTENT_VAR)
        .collect();
    settings.key = key_of(environment, &settings.from_file);
    Some(settings)
}

/// The digest naming an export's settings: its `OTEL_` variables and what
/// aide.toml adds, sorted, 16 hex digits of their SHA-256.
fn key_of(mut environment: Vec<(String, String)>, from_file: &[(&'static str, String)]) -> String {
    environment.extend(from_file.iter().map(|(k, v)| (format!("aide.toml {k}"), v.clone())));
    environment.sort();
    let text: String = environment.iter().map(|(k, v)| format!("{k}={v}\0")).collect();
    aide_core::checksum::sha256_hex(text.as_bytes())[..16].to_string()
}

/// [`resolve`] from an endpoint of the environment, the user's table and
/// the environment's other variables.
fn resolve_with(
    env_endpoint: Option<String>,
    table: aide_config::TelemetryTable,
    var: impl Fn(&str) -> Option<String>,
) -> Option<Settings> {
    let endpoint = env_endpoint.clone().or(table.endpoint.clone())?;
    let mut from_file = Vec::new();
    if env_endpoint.is_none() {
        from_file.push(("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.clone()));
    }
    let others = [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", table.protocol),
        ("OTEL_SERVICE_NAME", table.service_name),
        ("OTEL_RESOURCE_ATTRIBUTES", table.resource_attributes),
    ];
    from_file.extend(others.into_iter().filter(|(name, _)| var(name).is_none()).filter_map(|(n, v)| Some((n, v?))));
    let capture_content = match var(CAPTURE_CONTENT_VAR) {
        Some(v) => v.trim().eq_ignore_ascii_case("true"),
        None => table.capture_content.unwrap_or(false),
    };
    Some(Settings { endpoint, from_file, capture_content, key: String::new() })
}

/// Whether this process's runs export spans (see [`resolve`]).
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
mod tests {
    use super::*;
    use aide_config::TelemetryTable;

    fn table() -> TelemetryTable {
        TelemetryTable {
            endpoint: Some("http://collector:4318".into()),
            protocol: Some("grpc".into()),
            service_name: Some("agents".into()),
            resource_attributes: None,
            capture_content: Some(true),
        }
    }

    #[test]
    fn off_without_an_endpoint_anywhere() {
        assert_eq!(resolve_with(None, TelemetryTable::default(), |_| None), None);
    }

    #[test]
    fn the_user_s_table_turns_export_on_and_fills_what_the_environment_leaves_out() {
        let set = resolve_with(None, table(), |_| None).expect("on");
        assert_eq!(set.endpoint, "http://collector:4318");
        assert!(set.capture_content);
        assert_eq!(
            set.from_file,
            [
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318".to_string()),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string()),
                ("OTEL_SERVICE_NAME", "agents".to_string()),
            ]
        );
    }

    #[test]
    fn each_variable_that_is_set_wins_over_the_table() {
        let env = |name: &str| match name {
            "OTEL_SERVICE_NAME" => Some("mine".to_string()),
            CAPTURE_CONTENT_VAR => Some("false".to_string()),
            _ => None,
        };
        let set = resolve_with(Some("http://here:4318".into()), table(), env).expect("on");
        assert_eq!(set.endpoint, "http://here:4318");
        assert!(!set.capture_content);
        assert_eq!(set.from_file, [("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string())]);
    }

    #[test]
    fn other_settings_have_another_key_and_the_order_of_the_environment_none() {
        let env = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let a = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"), ("OTEL_SERVICE_NAME", "x")];
        let key = key_of(env(&a), &[]);
        assert_eq!(key.len(), 16);
        assert_eq!(key, key_of(env(&[a[1], a[0]]), &[]));
        assert_ne!(key, key_of(env(&[a[0]]), &[]));
        assert_ne!(key, key_of(env(&[a[0], ("OTEL_SERVICE_NAME", "y")]), &[]));
        assert_ne!(key, key_of(env(&[a[0]]), &[("OTEL_SERVICE_NAME", "x".to_string())]));
    }
}
