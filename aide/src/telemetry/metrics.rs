//! Calls, errors and latency per tool as OpenTelemetry metrics, counted
//! from the runs the forwarder sends and exported through the same
//! endpoint: a dashboard sees error rates and slow tools across machines.
//! The reader is flushed by the forwarder (after a quiet spell and when it
//! leaves), so it knows whether each export went through.

use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_semantic_conventions::attribute as semconv;

use super::spans::genai;

use aide_telemetry::SpanRecord;

/// The instruments, per tool (`gen_ai.tool.name`) and error (`error.type`).
pub(crate) struct Metrics {
    provider: SdkMeterProvider,
    calls: Counter<u64>,
    errors: Counter<u64>,
    duration: Histogram<f64>,
}

impl Metrics {
    pub(crate) fn new(exporter: opentelemetry_otlp::MetricExporter, resource: opentelemetry_sdk::Resource) -> Metrics {
        // Exported when the forwarder flushes; the interval only bounds a
        // forwarder that is never quiet.
        let reader = PeriodicReader::builder(exporter).with_interval(Duration::from_secs(60)).build();
        let provider = SdkMeterProvider::builder().with_resource(resource).with_reader(reader).build();
        let meter = provider.meter_with_scope(super::spans::scope());
        let calls =
            meter.u64_counter("aide.tool.calls").with_unit("{call}").with_description("Runs of each tool").build();
        let errors = meter
            .u64_counter("aide.tool.errors")
            .with_unit("{call}")
            .with_description("Runs of each tool that failed, by error code")
            .build();
        let duration = meter
            .f64_histogram("aide.tool.duration")
            .with_unit("s")
            .with_description("How long each tool's runs took")
            .with_boundaries(vec![
                0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
            ])
            .build();
        Metrics { provider, calls, errors, duration }
    }

    /// Counts one run.
    pub(crate) fn record(&self, run: &SpanRecord) {
        let mut attributes = vec![
            KeyValue::new(genai::OPERATION_NAME, genai::EXECUTE_TOOL),
            KeyValue::new(genai::TOOL_NAME, run.tool_name.clone()),
        ];
        attributes.extend(super::operation::of(run).map(|op| KeyValue::new(super::operation::OPERATION, op)));
        if let Some(code) = run.error_code.as_ref().filter(|_| !run.ok) {
            attributes.push(KeyValue::new(semconv::ERROR_TYPE, code.clone()));
            self.errors.add(1, &attributes);
        }
        self.calls.add(1, &attributes);
        self.duration.record(run.duration.as_secs_f64(), &attributes);
    }

    /// Exports what was counted; whether it went through.
    pub(crate) fn flush(&self) -> bool {
        self.provider.force_flush().is_ok()
    }

    /// Exports what is left and stops; whether it went through.
    pub(crate) fn shutdown(self) -> bool {
        self.provider.shutdown().is_ok()
    }
}
