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

/// The settings of an environment of `pairs` and no aide.toml.
fn env(pairs: &[(&str, &str)]) -> Settings {
    let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    resolve_with(TelemetryTable::default(), move |name| {
        pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).filter(|v| !v.trim().is_empty())
    })
}

fn url(signal: &Signal) -> Option<&str> {
    signal.destination().map(|d| d.url.as_str())
}

fn off(signal: &Signal) -> &Off {
    match signal {
        Signal::Off(off) => off,
        Signal::On(d) => panic!("sent to {}", d.url),
    }
}

const BASE: (&str, &str) = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/");

#[test]
fn off_without_an_endpoint_anywhere() {
    let set = resolve_with(TelemetryTable::default(), |_| None);
    assert!(!set.exports());
    assert!(off(&set.traces).why.contains("no endpoint"), "{:?}", set.traces);
}

#[test]
fn the_user_s_table_turns_export_on_and_fills_what_the_environment_leaves_out() {
    let set = resolve_with(table(), |_| None);
    assert_eq!(url(&set.traces), Some("http://collector:4318"), "grpc: the endpoint as written");
    assert_eq!(url(&set.metrics), Some("http://collector:4318"));
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
        "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://here:4318".to_string()),
        "OTEL_SERVICE_NAME" => Some("mine".to_string()),
        CAPTURE_CONTENT_VAR => Some("false".to_string()),
        _ => None,
    };
    let set = resolve_with(table(), env);
    assert_eq!(set.endpoint, "http://here:4318", "grpc, from the table");
    assert!(!set.capture_content);
    assert_eq!(set.from_file, [("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string())]);
}

#[test]
fn an_endpoint_for_traces_only_asks_for_no_metrics() {
    let set = env(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/custom")]);
    assert_eq!(url(&set.traces), Some("http://traces:4318/custom"), "a signal's own endpoint is used as written");
    assert!(off(&set.metrics).why.contains("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"), "{:?}", set.metrics);
    assert!(set.exports());
    let set = env(&[("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://metrics:4318/v1/metrics")]);
    assert_eq!(url(&set.metrics), Some("http://metrics:4318/v1/metrics"));
    assert!(matches!(set.traces, Signal::Off(_)), "an endpoint for metrics only asks for no spans");
}

#[test]
fn the_common_endpoint_gets_each_signal_s_path_over_http_and_is_a_target_over_grpc() {
    let set = env(&[BASE]);
    assert_eq!(url(&set.traces), Some("http://collector:4318/v1/traces"), "no double slash");
    assert_eq!(url(&set.metrics), Some("http://collector:4318/v1/metrics"));
    assert_eq!(set.traces.destination().map(|d| d.named_by), Some("OTEL_EXPORTER_OTLP_ENDPOINT"));
    let set = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
    assert_eq!(url(&set.traces), Some("http://collector:4317"));
    // A signal's own endpoint wins over the common one.
    let set = env(&[BASE, ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9/x")]);
    assert_eq!((url(&set.traces), url(&set.metrics)), (Some("http://collector:4318/v1/traces"), Some("http://m:9/x")));
}

#[test]
fn each_signal_is_switched_off_on_its_own() {
    let set = env(&[BASE, ("OTEL_METRICS_EXPORTER", "none")]);
    assert!(set.traces.destination().is_some());
    assert!(!off(&set.metrics).unsupported);
    let set = env(&[BASE, ("OTEL_TRACES_EXPORTER", "NONE")]);
    assert!(off(&set.traces).why.contains("OTEL_TRACES_EXPORTER=none"));
    assert_eq!(url(&set.metrics), Some("http://collector:4318/v1/metrics"), "metrics still go");
    assert!(set.exports(), "a run still spools its record, for the metrics");
    let set = env(&[BASE, ("OTEL_TRACES_EXPORTER", "none"), ("OTEL_METRICS_EXPORTER", "none")]);
    assert!(!set.exports());
}

#[test]
fn an_exporter_aide_does_not_have_means_that_signal_is_not_sent_and_says_so() {
    for value in ["console", "zipkin", "otlp/stdout"] {
        let set = env(&[BASE, ("OTEL_TRACES_EXPORTER", value)]);
        let off = off(&set.traces);
        assert!(off.unsupported && off.why.contains(value), "{off:?}");
        assert!(set.metrics.destination().is_some());
    }
    let set = env(&[BASE, ("OTEL_METRICS_EXPORTER", "prometheus")]);
    assert!(off(&set.metrics).unsupported);
    // A list that names otlp is otlp.
    assert!(env(&[BASE, ("OTEL_TRACES_EXPORTER", "console, OTLP")]).traces.destination().is_some());
}

#[test]
fn protocols_are_read_per_signal_whatever_their_case_and_an_unknown_one_is_refused() {
    let set =
        env(&[BASE, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"), ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "GRPC")]);
    let protocol = |s: &Signal| s.destination().map(|d| d.protocol.clone());
    assert_eq!(protocol(&set.traces), Some(Ok(Protocol::HttpProtobuf)));
    assert_eq!(protocol(&set.metrics), Some(Ok(Protocol::Grpc)));
    assert_eq!(url(&set.metrics), Some("http://collector:4318/"), "grpc: the endpoint as written");
    let set = env(&[BASE, ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "HTTP/JSON")]);
    assert_eq!(protocol(&set.traces), Some(Ok(Protocol::HttpJson)));
    assert_eq!(protocol(&set.metrics), Some(Ok(Protocol::HttpProtobuf)), "the default");
    let set = env(&[BASE, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml")]);
    let refusal = set.traces.destination().and_then(Destination::refusal).expect("refused");
    assert!(refusal.contains("OTEL_EXPORTER_OTLP_PROTOCOL=`http/xml`"), "{refusal}");
}

#[test]
fn otel_sdk_disabled_switches_both_off_and_says_so() {
    let set = env(&[BASE, ("OTEL_SDK_DISABLED", "True")]);
    assert!(!set.exports());
    assert!(off(&set.traces).why.contains("OTEL_SDK_DISABLED"));
    assert!(env(&[BASE, ("OTEL_SDK_DISABLED", "yes")]).exports(), "only `true` is true");
}

#[test]
fn a_sampler_aide_does_not_have_sends_no_span_and_leaves_metrics_alone() {
    let set = env(&[BASE, ("OTEL_TRACES_SAMPLER", "jaeger_remote")]);
    let off = off(&set.traces);
    assert!(off.unsupported && off.why.contains("jaeger_remote"), "{off:?}");
    assert!(set.metrics.destination().is_some());
    let set = env(&[BASE, ("OTEL_TRACES_SAMPLER", "traceidratio"), ("OTEL_TRACES_SAMPLER_ARG", "0.25")]);
    assert_eq!(set.sampler.describe(), "traceidratio 0.25");
}

#[test]
fn an_endpoint_without_a_scheme_is_refused_with_the_fix() {
    let set = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318")]);
    let refusal = set.traces.destination().and_then(Destination::refusal).expect("refused");
    assert!(refusal.contains("no scheme") && refusal.contains("http://localhost:4318"), "{refusal}");
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
