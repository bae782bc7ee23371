//! The exporters, each built for where and how
//! `aide_telemetry::settings` says its signal goes (the URL given to the
//! exporter as resolved, so the SDK's own defaults never pick another
//! place), with headers, timeout and compression read by
//! `opentelemetry-otlp` itself; and the resource from `OTEL_SERVICE_NAME`
//! and `OTEL_RESOURCE_ATTRIBUTES` as `aide_telemetry::resource` reads them.

use opentelemetry::KeyValue;
use opentelemetry_otlp::{MetricExporter, Protocol as Otlp, SpanExporter, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::resource::TelemetryResourceDetector;
use opentelemetry_sdk::trace::SpanExporter as _;

use aide_telemetry::resource::Described;
use aide_telemetry::settings::{Destination, Protocol};

use super::metrics::Metrics;

/// What the forwarder sends with, as the settings it started with say:
/// each signal where its own variables send it, none where they send none.
pub(crate) struct Exporters {
    /// None when spans are not asked; Err: why they cannot be sent.
    pub(crate) spans: Option<Result<SpanExporter, String>>,
    pub(crate) metrics: Option<Metrics>,
    /// Why the metrics asked cannot be sent.
    pub(crate) metrics_refused: Option<String>,
    /// Where (never with a password) and how, for the state file.
    pub(crate) endpoint: String,
    pub(crate) protocol: String,
}

/// The exporters of the forwarder's environment (the run's that started
/// it, with the user's aide.toml filling what it left unset). For grpc,
/// called inside the Tokio runtime that drives them.
pub(crate) fn from_settings() -> Exporters {
    let settings = aide_telemetry::settings::current();
    let resource =
        resource(&aide_telemetry::resource::describe(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty())));
    let mut spans = settings.traces.destination().map(span_exporter);
    if let Some(Ok(exporter)) = &mut spans {
        exporter.set_resource(&resource);
    }
    let (metrics, metrics_refused) = match settings.metrics.destination().map(metric_exporter) {
        Some(Ok(exporter)) => (Some(Metrics::new(exporter, resource)), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let sent_to = settings.traces.destination().or(settings.metrics.destination());
    let protocol = sent_to.map_or("", |d| d.protocol.as_ref().map_or("unsupported", |p| p.name()));
    Exporters {
        spans,
        metrics,
        metrics_refused,
        endpoint: aide_telemetry::endpoint::shown(&settings.endpoint),
        protocol: protocol.to_string(),
    }
}

/// How `destination` is sent to, or why nothing can be.
fn protocol(destination: &Destination) -> Result<Protocol, String> {
    match destination.refusal() {
        Some(why) => Err(why),
        None => destination.protocol.clone(),
    }
}

/// The span exporter for `destination`. For grpc it must be built inside
/// the Tokio runtime that drives it.
pub(crate) fn span_exporter(destination: &Destination) -> Result<SpanExporter, String> {
    let url = destination.url.as_str();
    let http = |p: Otlp| {
        SpanExporter::builder()
            .with_http()
            .with_endpoint(url)
            .with_protocol(p)
            .with_http_client(super::http::UreqClient::new())
            .build()
    };
    let built = match protocol(destination)? {
        Protocol::Grpc => SpanExporter::builder().with_tonic().with_endpoint(url).with_protocol(Otlp::Grpc).build(),
        Protocol::HttpProtobuf => http(Otlp::HttpBinary),
        Protocol::HttpJson => http(Otlp::HttpJson),
    };
    built.map_err(|e| e.to_string())
}

/// The metric exporter for `destination`.
pub(crate) fn metric_exporter(destination: &Destination) -> Result<MetricExporter, String> {
    let url = destination.url.as_str();
    let http = |p: Otlp| {
        MetricExporter::builder()
            .with_http()
            .with_endpoint(url)
            .with_protocol(p)
            .with_http_client(super::http::UreqClient::new())
            .build()
    };
    let built = match protocol(destination)? {
        Protocol::Grpc => MetricExporter::builder().with_tonic().with_endpoint(url).with_protocol(Otlp::Grpc).build(),
        Protocol::HttpProtobuf => http(Otlp::HttpBinary),
        Protocol::HttpJson => http(Otlp::HttpJson),
    };
    built.map_err(|e| e.to_string())
}

/// The resource every span and metric carries: the SDK's own attributes
/// (`telemetry.sdk.*`), `OTEL_RESOURCE_ATTRIBUTES`' and the service name,
/// which wins over any `service.name` among them (the SDK's default
/// builder lets the attributes win over `OTEL_SERVICE_NAME`).
pub(crate) fn resource(described: &Described) -> Resource {
    Resource::builder_empty()
        .with_detector(Box::new(TelemetryResourceDetector))
        .with_attributes(described.attributes.iter().map(|(k, v)| KeyValue::new(k.clone(), v.clone())))
        .with_service_name(described.service_name.clone())
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::Key;

    fn described(pairs: &[(&str, &str)]) -> Resource {
        resource(&aide_telemetry::resource::describe(|name| {
            pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        }))
    }

    fn get(resource: &Resource, key: &str) -> Option<String> {
        resource.get(&Key::from(key.to_string())).map(|v| v.as_str().into_owned())
    }

    #[test]
    fn otel_service_name_wins_over_the_attributes_and_aide_names_the_rest() {
        let both =
            described(&[("OTEL_SERVICE_NAME", "env"), ("OTEL_RESOURCE_ATTRIBUTES", "service.name=attrs,team=a%2Cb")]);
        assert_eq!(get(&both, "service.name").as_deref(), Some("env"));
        assert_eq!(get(&both, "team").as_deref(), Some("a,b"), "percent-decoded");
        assert_eq!(get(&both, "telemetry.sdk.language").as_deref(), Some("rust"));
        let k8s = described(&[("OTEL_RESOURCE_ATTRIBUTES", "k8s.service.name=kube")]);
        assert_eq!(get(&k8s, "service.name").as_deref(), Some("aide"));
        assert_eq!(get(&k8s, "k8s.service.name").as_deref(), Some("kube"));
    }

    #[test]
    fn a_destination_aide_cannot_send_to_builds_no_exporter() {
        let refused = Destination {
            url: "http://collector:4318/v1/traces".into(),
            named_by: "OTEL_EXPORTER_OTLP_ENDPOINT",
            protocol: Err("OTEL_EXPORTER_OTLP_PROTOCOL=`http/xml` is not a protocol aide has".into()),
        };
        assert!(span_exporter(&refused).is_err_and(|e| e.contains("http/xml")));
        let schemeless = Destination { url: "localhost:4318".into(), protocol: Ok(Protocol::HttpProtobuf), ..refused };
        assert!(metric_exporter(&schemeless).is_err_and(|e| e.contains("no scheme")));
        let json = Destination {
            url: "http://127.0.0.1:4318/v1/traces".into(),
            protocol: Ok(Protocol::HttpJson),
            ..schemeless
        };
        assert!(span_exporter(&json).is_ok(), "http/json is built in");
    }
}
