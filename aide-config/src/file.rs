//! One aide.toml as written: its keys, and every value checked when the
//! file is read, so a bad one is refused by every tool rather than half-read.

use std::path::Path;

use serde::Deserialize;

use aide_core::AideError;
use aide_gate::sandbox::{Network, SandboxMode};

/// One file, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub sandbox: Option<SandboxMode>,
    pub network: Option<Network>,
    #[serde(default)]
    pub writable: Vec<String>,
    pub readable: Option<Vec<String>>,
    pub max_risk: Option<String>,
    pub allow: Option<String>,
    pub confirm: Option<String>,
    pub rate: Option<String>,
    pub call_timeout: Option<f64>,
    pub exec_timeout: Option<f64>,
    /// OpenTelemetry export; read from the user's file only.
    pub telemetry: Option<TelemetryTable>,
}

/// `[telemetry]`: what the standard OpenTelemetry variables say, for a user
/// who would rather write it once (each variable, when set, wins).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryTable {
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: setting it turns export on.
    pub endpoint: Option<String>,
    /// `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`, `http/json` or `grpc`.
    pub protocol: Option<String>,
    /// `OTEL_SERVICE_NAME`.
    pub service_name: Option<String>,
    /// `OTEL_RESOURCE_ATTRIBUTES` (`key=value,key=value`).
    pub resource_attributes: Option<String>,
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`.
    pub capture_content: Option<bool>,
}

pub(crate) fn read(path: &Path) -> Result<ConfigFile, AideError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        AideError::io(&path.display().to_string(), &e).with_hint("aide.toml must be a readable UTF-8 file")
    })?;
    let invalid = |line: Option<usize>, message: &str| crate::error::invalid(path, line, message);
    let file: ConfigFile = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        invalid(line, e.message())
    })?;
    // The values only aide mcp uses are checked here too: a bad one is refused by every tool, not half-read.
    let line_of = |key: &str| {
        text.lines()
            .position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.trim_start().starts_with('=')))
            .map(|i| i + 1)
    };
    let bad = |key: &str, value: &str, expected: &str| {
        invalid(line_of(key), &format!("{key} = {value:?}: expected {expected}"))
    };
    if let Some(v) = file.max_risk.as_deref().filter(|v| risk_rank(v).is_none()) {
        return Err(bad("max_risk", v, "low, medium, high or critical"));
    }
    if let Some(v) = file.allow.as_deref().filter(|v| !matches!(*v, "auto" | "gated")) {
        return Err(bad("allow", v, "auto or gated"));
    }
    if let Some(v) = file.confirm.as_deref().filter(|v| *v != "gated") {
        return Err(bad("confirm", v, "gated"));
    }
    if let Some(v) = file.rate.as_deref().filter(|v| rate_per_second(v).is_none()) {
        return Err(bad("rate", v, "N/s or N/m, N above 0"));
    }
    if let Some(t) = &file.telemetry {
        if let Some(v) = t.protocol.as_deref().filter(|v| !matches!(*v, "http/protobuf" | "grpc")) {
            return Err(bad("protocol", v, "http/protobuf or grpc"));
        }
        if let Some(v) = t.endpoint.as_deref().filter(|v| !v.starts_with("http://") && !v.starts_with("https://")) {
            return Err(bad("endpoint", v, "an http:// or https:// URL"));
        }
    }
    // Past MAX_SECONDS a Duration overflows.
    let seconds = |s: f64| s > 0.0 && s <= aide_core::request::MAX_SECONDS;
    for (key, value) in [("call_timeout", file.call_timeout), ("exec_timeout", file.exec_timeout)] {
        if let Some(v) = value.filter(|s| !seconds(*s)) {
            return Err(bad(
                key,
                &v.to_string(),
                &format!("seconds above 0, at most {:.0}", aide_core::request::MAX_SECONDS),
            ));
        }
    }
    Ok(file)
}

/// The rank of a risk level (low first); None for a word that is not one.
pub(crate) fn risk_rank(risk: &str) -> Option<usize> {
    ["low", "medium", "high", "critical"].iter().position(|r| *r == risk)
}

/// `N/s`, `N/m` or `N` as calls a second; None when it is none of these.
pub fn rate_per_second(rate: &str) -> Option<f64> {
    let (number, per) = match rate.split_once('/') {
        Some((n, "s")) => (n, 1.0),
        Some((n, "m")) => (n, 60.0),
        Some(_) => return None,
        None => (rate, 1.0),
    };
    number.trim().parse::<f64>().ok().filter(|n| n.is_finite() && *n > 0.0).map(|n| n / per)
}
