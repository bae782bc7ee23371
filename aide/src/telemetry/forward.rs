//! The forwarder's life: hold the lock of its export folder, send what the
//! spool holds in batches, count what could not be sent, leave when idle.
//! A record taken is moved in flight and removed once dealt with, so one
//! left in flight by a forwarder that was killed is counted by the next.

use std::path::Path;
use std::time::{Duration, Instant};

use opentelemetry_sdk::trace::SpanExporter as _;

use aide_telemetry::state::{ForwarderState, LastExport};
use aide_telemetry::{forwarder, record, state};

use super::exporter;
use super::metrics::Metrics;
use super::spans;

/// How often the spool is looked at.
const POLL: Duration = Duration::from_millis(100);
/// How long the spool stays empty before the forwarder leaves.
const IDLE: Duration = Duration::from_secs(10);
/// How long the spool stays empty before the metrics are flushed.
const QUIET: Duration = Duration::from_secs(1);
/// Runs sent in one export.
const BATCH: usize = 512;
/// Records beyond this many waiting are dropped (and counted) unread, the
/// oldest first: a spool that outgrows an endpoint that cannot keep up
/// stays bounded.
const BACKLOG: usize = 10_000;

/// Serves the export folder `dir` until its spool has been idle for
/// [`IDLE`]; 0 also when another forwarder already serves it.
pub(super) fn serve(dir: &Path) -> i32 {
    let Ok(Some(mut lock)) = forwarder::hold(dir) else { return 0 };
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() else {
        return 4;
    };
    // The grpc channel is made inside the runtime that drives it.
    let _entered = runtime.enter();
    let exporter::Exporters { spans, metrics, metrics_refused, endpoint, protocol } = exporter::from_settings();
    let mut forwarding =
        Forwarding { dir, runtime: &runtime, spans, metrics, state: ForwarderState::default(), metrics_due: false };
    loop {
        // Read under the lock: another forwarder may have counted since.
        forwarding.state = state::read(dir).unwrap_or_default();
        forwarding.count_stranded();
        forwarding.state.endpoint = endpoint.clone();
        forwarding.state.protocol = protocol.clone();
        forwarding.state.metrics_refused = metrics_refused.clone();
        forwarding.until_idle();
        if forwarding.metrics_due {
            forwarding.flush_metrics();
        }
        drop(lock);
        // A run that spooled while this one was leaving saw the lock held
        // and started no forwarder: look once more, now that it is let go.
        if record::spooled(dir, 1).is_empty() {
            break;
        }
        match forwarder::hold(dir) {
            Ok(Some(again)) => lock = again,
            _ => break,
        }
    }
    // Everything counted was flushed under the lock; this only stops the reader.
    if let Some(metrics) = forwarding.metrics.take() {
        let _ = metrics.shutdown();
    }
    0
}

struct Forwarding<'a> {
    dir: &'a Path,
    runtime: &'a tokio::runtime::Runtime,
    /// None when spans are not asked (metrics only).
    spans: Option<Result<opentelemetry_otlp::SpanExporter, String>>,
    metrics: Option<Metrics>,
    state: ForwarderState,
    /// Runs were counted since the metrics were last flushed.
    metrics_due: bool,
}

impl Forwarding<'_> {
    /// Sends batches until the spool has been empty for [`IDLE`].
    fn until_idle(&mut self) {
        let mut last_seen = Instant::now();
        loop {
            let mut waiting = record::spooled(self.dir, usize::MAX);
            if waiting.is_empty() {
                if self.metrics_due && last_seen.elapsed() >= QUIET {
                    self.flush_metrics();
                }
                if last_seen.elapsed() >= IDLE {
                    return;
                }
                std::thread::sleep(POLL);
                continue;
            }
            last_seen = Instant::now();
            if waiting.len() > BACKLOG {
                let excess: Vec<_> = waiting.drain(..waiting.len() - BACKLOG).collect();
                for path in &excess {
                    let _ = std::fs::remove_file(path);
                }
                self.state.dropped_spans += excess.len() as u64;
            }
            let batch = &waiting[..waiting.len().min(BATCH)];
            let (records, taken): (Vec<_>, Vec<_>) = batch.iter().filter_map(|p| record::take(self.dir, p)).unzip();
            self.send(&records);
            record::settle(&taken);
        }
    }

    /// Counts as dropped what an earlier forwarder took and never dealt
    /// with (it was killed while sending: whether the endpoint got it is
    /// unknown, and sending it again could show it twice).
    fn count_stranded(&mut self) {
        let stranded = record::records_in(&record::in_flight_dir(self.dir), usize::MAX);
        if stranded.is_empty() {
            return;
        }
        self.state.dropped_spans += stranded.len() as u64;
        record::settle(&stranded);
        self.save();
    }

    /// Exports one batch of runs and counts the runs in the metrics (all
    /// of them: metrics are not sampled).
    fn send(&mut self, records: &[aide_telemetry::SpanRecord]) {
        if let Some(metrics) = &self.metrics {
            records.iter().for_each(|r| metrics.record(r));
            self.metrics_due = true;
        }
        // A run not sampled, or any run when spans are not asked, is counted only.
        let sampled: Vec<_> = records.iter().filter(|r| self.spans.is_some() && r.context.sampled()).collect();
        self.state.metrics_only_runs += (records.len() - sampled.len()) as u64;
        let Some(exporter) = self.spans.as_ref().filter(|_| !sampled.is_empty()) else {
            self.save();
            return;
        };
        let scope = spans::scope();
        let batch: Vec<_> = sampled.iter().flat_map(|r| spans::spans_of(r, &scope)).collect();
        let outcome = match exporter {
            Ok(exporter) => {
                // The exporter's own timeout bounds each request; this bounds the whole.
                let bound = export_timeout() + Duration::from_secs(1);
                match self.runtime.block_on(async { tokio::time::timeout(bound, exporter.export(batch)).await }) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(_) => Err(format!("no answer within {} s", bound.as_secs())),
                }
            }
            Err(e) => Err(format!("nothing is sent: {e}")),
        };
        let runs = sampled.len() as u64;
        match &outcome {
            Ok(()) => self.state.exported_spans += runs,
            Err(_) => self.state.dropped_spans += runs,
        }
        self.state.last_export = Some(LastExport {
            at: aide_core::time::rfc3339(std::time::SystemTime::now()),
            ok: outcome.is_ok(),
            spans: runs,
            error: outcome.err(),
        });
        self.save();
    }

    fn flush_metrics(&mut self) {
        self.metrics_due = false;
        if let Some(metrics) = &self.metrics
            && !metrics.flush()
        {
            self.state.failed_metric_exports += 1;
            self.save();
        }
    }

    fn save(&self) {
        let _ = state::write(self.dir, &self.state);
    }
}

/// The exporter's timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds; 10 s).
fn export_timeout() -> Duration {
    std::env::var("OTEL_EXPORTER_OTLP_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(10), Duration::from_millis)
}
