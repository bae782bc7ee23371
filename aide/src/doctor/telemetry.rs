//! The `telemetry` check: whether runs export OpenTelemetry spans, where
//! to, whether that endpoint answers, and what the forwarder sent and
//! dropped (its state file, kept across its lives).

use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use super::{Check, CheckStatus};

const NEEDED_BY: &str = "OpenTelemetry export of every run (OTEL_EXPORTER_OTLP_ENDPOINT)";

/// How long the endpoint gets to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a spooled span may wait before doctor says nothing sends it.
const STUCK: Duration = Duration::from_secs(60);

pub(super) fn check_telemetry(home: &Path) -> Check {
    let Some(settings) = aide_telemetry::settings::resolve() else {
        let detail = "off: neither OTEL_EXPORTER_OTLP_ENDPOINT nor the user's aide.toml [telemetry] names an endpoint";
        return Check::new("telemetry", NEEDED_BY, CheckStatus::Ok, detail.to_string());
    };
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
    let counts = state.as_ref().map_or_else(
        || "no span sent yet".to_string(),
        |s| {
            let last = s.last_export.as_ref().map_or(String::new(), |l| match &l.error {
                None => format!("; last export {} ok ({} runs)", l.at, l.spans),
                Some(e) => format!("; last export {} failed: {e}", l.at),
            });
            let metrics = if s.failed_metric_exports > 0 {
                format!(", {} metric exports failed", s.failed_metric_exports)
            } else {
                String::new()
            };
            format!("{} runs' spans sent, {} dropped{metrics}{last}", s.exported_spans, s.dropped_spans)
        },
    );
    let lost = match &loss_reason {
        Some(why) => format!("; {lost_by_runs} never handed to a forwarder ({why})"),
        None => String::new(),
    };
    let forwarder = format!("{} waiting, forwarder {}", waiting.len(), if running { "running" } else { "not running" });
    let endpoint = settings.endpoint;
    let reach = reachable(&endpoint);
    let dropped = state.as_ref().is_some_and(|s| s.dropped_spans > 0);
    let last_failed = state.as_ref().and_then(|s| s.last_export.as_ref()).is_some_and(|l| !l.ok);
    let warn = reach.is_err() || last_failed || stuck || lost_by_runs > 0;
    let status = if warn { CheckStatus::Warn } else { CheckStatus::Ok };
    let health = match &reach {
        Ok(()) => "accepts connections".to_string(),
        Err(e) => format!("does not answer: {e}"),
    };
    let detail = format!("{endpoint} {health}; {counts}{lost}; {forwarder}");
    let check = Check::new("telemetry", NEEDED_BY, status, detail);
    if stuck {
        check.fix(format!(
            "spans have waited over {} s with no forwarder sending them (its lock {}): stop whatever holds that lock, or run any tool again to start one",
            STUCK.as_secs(),
            if running { "is held" } else { "is free" }
        ))
    } else if lost_by_runs > 0 && loss_reason.as_deref() == Some(aide_telemetry::forwarder::NO_EXECUTABLE) {
        check.fix("put the aide executable on PATH beside the tools: it is the forwarder that sends their spans")
    } else if reach.is_err() {
        check.fix("start the OpenTelemetry backend (or collector) at OTEL_EXPORTER_OTLP_ENDPOINT, or unset it; runs are unaffected, their spans are dropped and counted")
    } else if dropped || last_failed {
        check.fix("see the last export's error: the endpoint refused or timed out; OTEL_EXPORTER_OTLP_PROTOCOL must match its port (http/protobuf or grpc)")
    } else {
        check
    }
}

/// Whether a TCP connection to the endpoint's host and port is accepted.
fn reachable(endpoint: &str) -> Result<(), String> {
    let (host, port) = host_port(endpoint).ok_or_else(|| format!("`{endpoint}` is not an http(s) URL"))?;
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

/// The host and port of an `http://` or `https://` URL (the scheme's port
/// when none is written).
fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let default = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = after.strip_prefix(':').map_or(Some(default), |p| p.parse().ok())?;
        return Some((host.to_string(), port));
    }
    match authority.split_once(':') {
        Some((host, port)) => Some((host.to_string(), port.parse().ok()?)),
        None => Some((authority.to_string(), default)),
    }
    .filter(|(h, _)| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn endpoints_are_read_into_host_and_port() {
        assert_eq!(host_port("http://localhost:4318"), Some(("localhost".into(), 4318)));
        assert_eq!(host_port("https://otel.example.com/v1/traces"), Some(("otel.example.com".into(), 443)));
        assert_eq!(host_port("http://[::1]:4317"), Some(("::1".into(), 4317)));
        assert_eq!(host_port("http://user:pw@collector:4318/"), Some(("collector".into(), 4318)));
        assert_eq!(host_port("localhost:4317"), None);
        assert_eq!(host_port("http://:4318"), None);
        assert_eq!(host_port("http://host:notaport"), None);
    }

    proptest! {
        #[test]
        fn any_endpoint_text_is_read_without_panicking(s in "\\PC{0,60}") {
            let _ = host_port(&s);
        }
    }
}
