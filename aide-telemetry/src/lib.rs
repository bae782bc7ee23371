//! # aide-telemetry: every run as an OpenTelemetry span, off the run's path
//!
//! Export is off unless the standard OpenTelemetry environment asks for it
//! ([`settings::resolve`]: an OTLP endpoint for spans or metrics, or the
//! `[telemetry]` table of the user's aide.toml; each signal resolved on its
//! own). Then a run:
//!
//! 1. takes its span's ids when it starts ([`SpanContext::child_of`] the
//!    caller's `TRACEPARENT`, or an MCP request's `_meta.traceparent`,
//!    sampled as `OTEL_TRACES_SAMPLER` says: [`sampler`]), so the processes
//!    it starts are given `TRACEPARENT` naming its span (or, for a process
//!    started through the gate, a span of its own under it);
//! 2. when it ends, spools a [`SpanRecord`] (made from its execution-log
//!    record, already redacted) under `$AIDE_HOME/otel/spool/`;
//! 3. wakes the forwarder ([`forwarder::wake`]): one detached `aide`
//!    process per `$AIDE_HOME` that batches the records and exports them
//!    through `opentelemetry-otlp`, with metrics per tool, and writes its
//!    counts (spans sent, dropped) in [`state`] for `aide doctor`.
//!
//! The run itself does a few variable reads, one small file and one lock
//! probe: the exporter (and the network) are the forwarder's alone, so an
//! unreachable endpoint never slows a run or changes its result.
//!
//! This crate holds no OpenTelemetry dependency; `aide`'s `telemetry`
//! module is the forwarder.

pub mod context;
pub mod endpoint;
pub mod forwarder;
pub mod record;
pub mod resource;
pub mod sampler;
pub mod settings;
pub mod state;

pub use context::SpanContext;
pub use record::{Content, Phase, SpanRecord};
