//! The exporters, as the standard OpenTelemetry environment configures
//! them: `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
//! `grpc`), the endpoint, headers and timeout read by `opentelemetry-otlp`
//! itself, and the resource from `OTEL_SERVICE_NAME` and
//! `OTEL_RESOURCE_ATTRIBUTES` (service name `aide` when neither names one).

use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;

/// How spans and metrics are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    HttpProtobuf,
    Grpc,
}

impl Transport {
    /// What the environment asks (the traces' own variable first);
    /// anything but `grpc` is http/protobuf, the specification's default
    /// (`http/json` is not built in).
    pub(crate) fn from_env() -> Transport {
        let asked = ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()));
        match asked.as_deref().map(str::trim) {
            Some("grpc") => Transport::Grpc,
            _ => Transport::HttpProtobuf,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Transport::HttpProtobuf => "http/protobuf",
            Transport::Grpc => "grpc",
        }
    }
}

/// The traces endpoint as the environment names it.
pub(crate) fn endpoint_from_env() -> String {
    aide_telemetry::settings::ENDPOINT_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_default()
}

/// The span exporter. For grpc it must be built inside the Tokio runtime
/// that drives it.
pub(crate) fn span_exporter(transport: Transport) -> Result<SpanExporter, String> {
    let built = match transport {
        Transport::Grpc => SpanExporter::builder().with_tonic().with_protocol(Protocol::Grpc).build(),
        Transport::HttpProtobuf => SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(super::http::UreqClient::new())
            .build(),
    };
    built.map_err(|e| e.to_string())
}

/// The metric exporter, on the same transport and endpoint.
pub(crate) fn metric_exporter(transport: Transport) -> Result<MetricExporter, String> {
    let built = match transport {
        Transport::Grpc => MetricExporter::builder().with_tonic().with_protocol(Protocol::Grpc).build(),
        Transport::HttpProtobuf => MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(super::http::UreqClient::new())
            .build(),
    };
    built.map_err(|e| e.to_string())
}

/// The resource every span and metric carries.
pub(crate) fn resource() -> Resource {
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|v| !v.trim().is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| v.contains("service.name="));
    let builder = Resource::builder();
    if named { builder.build() } else { builder.with_service_name("aide").build() }
}
