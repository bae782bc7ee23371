//! The `telemetry` check: whether runs export OpenTelemetry spans and
//! metrics, where each goes (never with a password) or why it does not,
//! what the environment asks that aide cannot do, whether the endpoint
//! answers, and what the forwarder sent and dropped (its state file, kept
//! across its lives).

use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use aide_telemetry::endpoint;
use aide_telemetry::settings::{Settings, Signal};
use aide_telemetry::state::ForwarderState;

use super::{Check, CheckStatus};

const NEEDED_BY: &str = "OpenTelemetry export of every run (OTEL_EXPORTER_OTLP_ENDPOINT)";

/// How long the endpoint gets to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a spooled span may wait before doctor says nothing sends it.
const STUCK: Duration = Duration::from_secs(60);

// Long because: one check: the settings, the forwarder of this environment's settings, and each verdict with its fix.
pub(super) fn check_telemetry(home: &Path) -> Check {
    let settings = aide_telemetry::settings::current();
    // The counts of this environment's settings: another endpoint's are another forwarder's.
    let dir = aide_telemetry::record::export_dir(home, &settings.key);
    let state = aide_telemetry::state::read(&dir);
    let waiting = aide_telemetry::record::spooled(&dir, usize::MAX);
    let running = aide_telemetry::forwarder::running(&dir);
    let (lost_by_runs, loss_reason) = aide_telemetry::record::losses(&dir);
    let stuck = waiting
        .first()
        .and_then(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .is_some_and(|t| t.elapsed().is_ok_and(|age| age >= STUCK));
    let lost = match &loss_reason {
        Some(why) => format!("; {lost_by_runs} never handed to a forwarder ({why})"),
        None => String::new(),
    };
    let forwarder = format!("{} waiting, forwarder {}", waiting.len(), if running { "running" } else { "not running" });
    let about = format!("{}{lost}; {forwarder}", counts(state.as_ref()));
    let signals = format!("spans {}; metrics {}", said(&settings.traces), said(&settings.metrics));
    let get = |name: &str| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .or_else(|| settings.from_file.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()))
    };
    let problems = problems(&settings, get);
    if !settings.exports() {
        let status = if problems.is_empty() { CheckStatus::Ok } else { CheckStatus::Warn };
        let why = match (&settings.traces, &settings.metrics) {
            // One reason for both (OTEL_SDK_DISABLED, no endpoint at all) is said once.
            (Signal::Off(t), Signal::Off(m)) if t.why == m.why => t.why.clone(),
            _ => signals,
        };
        let check = Check::new("telemetry", NEEDED_BY, status, format!("off: {why} ({about})"));
        return match problems.first() {
            Some((_, fix)) => check.fix(fix.clone()),
            None => check,
        };
    }
    let refused = settings.traces.destination().or(settings.metrics.destination()).and_then(|d| d.refusal());
    let reach = match &refused {
        Some(_) => None,
        None => Some(reachable(&settings.endpoint)),
    };
    let dropped = state.as_ref().is_some_and(|s| s.dropped_spans > 0);
    let last_failed = state.as_ref().and_then(|s| s.last_export.as_ref()).is_some_and(|l| !l.ok);
    let unreachable = reach.as_ref().is_some_and(Result::is_err);
    let warn = unreachable || last_failed || stuck || lost_by_runs > 0 || !problems.is_empty();
    let status = if warn { CheckStatus::Warn } else { CheckStatus::Ok };
    let health = match &reach {
        Some(Ok(())) => format!("{} accepts connections", endpoint::shown(&settings.endpoint)),
        Some(Err(e)) => format!("{} does not answer: {e}", endpoint::shown(&settings.endpoint)),
        None => format!("nothing is sent to {}", endpoint::shown(&settings.endpoint)),
    };
    let check = Check::new("telemetry", NEEDED_BY, status, format!("{signals}; {health}; {about}"));
    if let Some((_, fix)) = problems.first() {
        check.fix(fix.clone())
    } else if stuck {
        check.fix(format!(
            "spans have waited over {} s with no forwarder sending them (its lock {}): stop whatever holds that lock, or run any tool again to start one",
            STUCK.as_secs(),
            if running { "is held" } else { "is free" }
        ))
    } else if lost_by_runs > 0 && loss_reason.as_deref() == Some(aide_telemetry::forwarder::NO_EXECUTABLE) {
        check.fix("put the aide executable on PATH beside the tools: it is the forwarder that sends their spans")
    } else if unreachable {
        check.fix("start the OpenTelemetry backend (or collector) at OTEL_EXPORTER_OTLP_ENDPOINT, or unset it; runs are unaffected, their spans are dropped and counted")
    } else if dropped || last_failed {
        check.fix("see the last export's error: the endpoint refused or timed out; OTEL_EXPORTER_OTLP_PROTOCOL must match its port (http/protobuf or http/json, grpc)")
    } else {
        check
    }
}

/// A signal as the check says it: where it goes and how, or why not.
fn said(signal: &Signal) -> String {
    match signal {
        Signal::On(d) => match d.refusal() {
            Some(why) => format!("refused: {why}"),
            None => {
                let protocol = d.protocol.as_ref().map_or("?", |p| p.name());
                format!("to {} ({protocol})", endpoint::shown(&d.url))
            }
        },
        Signal::Off(off) => format!("off: {}", off.why),
    }
}

/// What the environment (read through `get`) asks that aide cannot do,
/// each with its fix.
fn problems(settings: &Settings, get: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for signal in [&settings.traces, &settings.metrics] {
        match signal {
            Signal::Off(off) if off.unsupported => found.push((off.why.clone(), format!("{}: aide exports OTLP only, with the specification's samplers; change or unset that variable (until then nothing of it is sent)", off.why))),
            Signal::On(d) => {
                if let Some(why) = d.refusal() {
                    found.push((why.clone(), format!("{why}; until then what would be sent is dropped and counted")));
                }
            }
            Signal::Off(_) => {}
        }
    }
    if let Some(why) = aide_telemetry::resource::describe(get).discarded {
        let fix = format!(
            "{why}: write key=value pairs separated by commas, with `,` `=` and `%` in them percent-encoded; until then none of its attributes is sent"
        );
        found.push((why, fix));
    }
    found
}

/// What the forwarder's state file says it sent and dropped.
fn counts(state: Option<&ForwarderState>) -> String {
    let Some(s) = state else { return "no span sent yet".to_string() };
    let last = s.last_export.as_ref().map_or(String::new(), |l| match &l.error {
        None => format!("; last export {} ok ({} runs)", l.at, l.spans),
        Some(e) => format!("; last export {} failed: {e}", l.at),
    });
    let mut metrics = String::new();
    if s.metrics_only_runs > 0 {
        metrics.push_str(&format!(", {} runs in the metrics only (not sampled, or spans off)", s.metrics_only_runs));
    }
    if s.failed_metric_exports > 0 {
        metrics.push_str(&format!(", {} metric exports failed", s.failed_metric_exports));
    }
    if let Some(why) = &s.metrics_refused {
        metrics.push_str(&format!(", no metric sent: {why}"));
    }
    format!("{} runs' spans sent, {} dropped{metrics}{last}", s.exported_spans, s.dropped_spans)
}

/// Whether a TCP connection to the endpoint's host and port is accepted.
fn reachable(url: &str) -> Result<(), String> {
    let (host, port) =
        endpoint::host_port(url).ok_or_else(|| format!("`{}` is not an http(s) URL", endpoint::shown(url)))?;
    let addrs = (host.as_str(), port).to_socket_addrs().map_err(|e| format!("{host}: {e}"))?;
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_telemetry::settings::{Destination, Off, Protocol};

    fn settings(traces: Signal, metrics: Signal) -> Settings {
        Settings {
            endpoint: String::new(),
            from_file: Vec::new(),
            capture_content: false,
            traces,
            metrics,
            sampler: Default::default(),
            key: String::new(),
        }
    }

    fn to(url: &str, protocol: Result<Protocol, String>) -> Signal {
        Signal::On(Destination { url: url.into(), named_by: "OTEL_EXPORTER_OTLP_ENDPOINT", protocol })
    }

    #[test]
    fn a_signal_is_said_without_its_password() {
        let said = said(&to("http://user:secret@collector:4318/v1/traces", Ok(Protocol::HttpProtobuf)));
        assert_eq!(said, "to http://user:***@collector:4318/v1/traces (http/protobuf)");
        assert_eq!(
            said_off("switched off by OTEL_METRICS_EXPORTER=none"),
            "off: switched off by OTEL_METRICS_EXPORTER=none"
        );
    }

    fn said_off(why: &str) -> String {
        said(&Signal::Off(Off { why: why.into(), unsupported: false }))
    }

    #[test]
    fn what_aide_cannot_do_is_a_problem_with_its_fix() {
        let unsupported =
            Signal::Off(Off { why: "OTEL_TRACES_EXPORTER=`console` is not supported".into(), unsupported: true });
        let refused = to("localhost:4318", Ok(Protocol::HttpProtobuf));
        let found = problems(&settings(unsupported, refused), |name| {
            (name == "OTEL_RESOURCE_ATTRIBUTES").then(|| "broken".to_string())
        });
        let said: Vec<&str> = found.iter().map(|(what, _)| what.as_str()).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].contains("console")
                && said[1].contains("no scheme")
                && said[2].contains("OTEL_RESOURCE_ATTRIBUTES"),
            "{said:?}"
        );
        assert!(found[1].1.contains("http://localhost:4318"), "the fix says what to write: {}", found[1].1);
        let fine = settings(to("http://collector:4318/v1/traces", Ok(Protocol::Grpc)), said_off_signal());
        assert!(problems(&fine, |_| None).is_empty());
    }

    fn said_off_signal() -> Signal {
        Signal::Off(Off { why: "no endpoint is set for metrics".into(), unsupported: false })
    }

    #[test]
    fn the_counts_say_what_went_only_to_the_metrics_and_why_metrics_are_refused() {
        let state = ForwarderState {
            exported_spans: 3,
            metrics_only_runs: 2,
            metrics_refused: Some("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=`x` is not a protocol aide has".into()),
            ..ForwarderState::default()
        };
        let said = counts(Some(&state));
        assert!(said.starts_with("3 runs' spans sent, 0 dropped"), "{said}");
        assert!(
            said.contains("2 runs in the metrics only")
                && said.contains("no metric sent: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"),
            "{said}"
        );
    }
}
