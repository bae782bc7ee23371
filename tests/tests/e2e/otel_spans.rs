//! OpenTelemetry spans and `aide doctor` end to end, against the receiver
//! of `otel_config`: a process started through the gate is a span of its
//! own whose id its `TRACEPARENT` names (a checker's span names the
//! checker); an MCP call stopped at its time limit is a timeout in its span
//! and its log record; doctor and the forwarder's state never show an
//! endpoint's password, and doctor says why export is off or refused.

use std::path::Path;

use aide_tests::mcp::McpClient;
use aide_tests::{TestDir, eventually};
use serde_json::{Value, json};

use crate::otel_config::{Sink, attribute, forwarder_gone, run_json, spans, state};

const ARRIVAL: std::time::Duration = std::time::Duration::from_secs(120);

fn json_env(endpoint: &str) -> Vec<(&'static str, String)> {
    vec![("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.to_string()), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json".into())]
}

/// The spans of the run `id`, once the sink has them.
fn spans_of_run(sink: &Sink, id: &str) -> Vec<Value> {
    spans(&sink.wait_for("/v1/traces", |p| p.json().to_string().contains(id)).json())
}

/// A checker started through the gate is told, in `TRACEPARENT`, the id of
/// its own span, and that is the id of the checker's span under the run:
/// what the checker itself traces hangs off it. The span names the checker.
#[test]
fn a_checker_s_span_is_the_one_its_traceparent_names_under_the_run_s() {
    let sink = Sink::start();
    let t = TestDir::new();
    t.write("s.sh", "echo hi\n");
    let bin = t.root().parent().unwrap().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let told = t.root().parent().unwrap().join("traceparent.txt");
    let fake = bin.join("shellcheck");
    std::fs::write(&fake, "#!/bin/bash\nprintenv TRACEPARENT > \"$TP_FILE\"\necho '{\"comments\":[]}'\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut env = json_env(&sink.url());
    env.push(("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())));
    env.push(("TP_FILE", told.display().to_string()));
    let lint = run_json(&t, &env, "llm-lint", &["--checker", "shellcheck"]);
    let id = lint["execution_id"].as_str().unwrap();
    let given = std::fs::read_to_string(&told).unwrap_or_else(|e| panic!("the checker ran ({e}): {lint}"));
    let parts: Vec<&str> = given.trim().split('-').collect();
    assert_eq!(parts.len(), 4, "{given}");
    let spans = spans_of_run(&sink, id);
    let run =
        spans.iter().find(|s| attribute(s, "gen_ai.tool.call.id").as_deref() == Some(id)).expect("the run's span");
    let checker = spans.iter().find(|s| s["name"] == "checker shellcheck").unwrap_or_else(|| panic!("{spans:?}"));
    assert_eq!(checker["spanId"], parts[2], "the span its TRACEPARENT named: {checker}");
    assert_eq!(checker["parentSpanId"], run["spanId"], "{checker}");
    assert_eq!(run["traceId"], parts[1], "{run}");
    assert_eq!(attribute(checker, "aide.process.purpose").as_deref(), Some("checker"), "{checker}");
    assert_eq!(attribute(checker, "aide.process.name").as_deref(), Some("shellcheck"), "{checker}");
}

/// A call `aide mcp` stops at `--call-timeout` is a timeout, not a
/// cancellation: in its result, its span and its log record.
#[test]
fn a_call_stopped_at_its_time_limit_is_a_timeout_in_its_span_and_log() {
    let sink = Sink::start();
    let t = TestDir::new();
    let env = json_env(&sink.url());
    let paths: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, Path::new(v.as_str()))).collect();
    let aide = aide_tests::bin_dir().join("aide");
    let args = ["--sandbox", "off", "--call-timeout", "1"];
    let mut client = McpClient::start_with_env(&aide, t.root(), t.home(), &args, &paths).handshake(json!({}));
    let r = client.call("shell_exec", json!({ "command": "sleep 30" }));
    drop(client);
    let document = &r["structuredContent"];
    assert_eq!(document["error"]["code"], "timeout", "{r}");
    let id = document["execution_id"].as_str().unwrap_or_else(|| panic!("{r}"));
    let spans = spans_of_run(&sink, id);
    let span = spans.iter().find(|s| attribute(s, "gen_ai.tool.call.id").as_deref() == Some(id)).expect("its span");
    assert_eq!(attribute(span, "error.type").as_deref(), Some("timeout"), "{span}");
    assert_eq!(span["status"]["message"], "timeout", "{span}");
    let shown = run_json(&t, &[], "aide", &["log", "show", id]);
    assert_eq!(shown["error"]["code"], "timeout", "{shown}");
}

fn telemetry_check(t: &TestDir, env: &[(&str, String)]) -> Value {
    let doctor = run_json(t, env, "aide", &["doctor"]);
    let checks = doctor["checks"].as_array().cloned().unwrap_or_default();
    checks.into_iter().find(|c| c["name"] == "telemetry").unwrap_or_else(|| panic!("no telemetry check: {doctor}"))
}

/// An endpoint's password is in neither doctor's report nor the
/// forwarder's state; the user is kept.
#[test]
fn an_endpoint_s_password_is_never_shown_or_stored() {
    let sink = Sink::start();
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://user:hunter2secret@127.0.0.1:{}", sink.port))];
    assert_eq!(run_json(&t, &env, "llm-read", &["a.txt"])["ok"], true);
    eventually("the forwarder's state", ARRIVAL, || state(t.home())["last_export"].is_object());
    let stored = state(t.home()).to_string();
    assert!(!stored.contains("hunter2secret") && stored.contains("user:***@"), "{stored}");
    let check = telemetry_check(&t, &env);
    assert!(!check.to_string().contains("hunter2secret"), "{check}");
    assert!(check["detail"].as_str().unwrap().contains("http://user:***@127.0.0.1"), "{check}");
}

/// doctor says why export is off, or what in the environment aide cannot
/// honour and how to fix it.
#[test]
fn doctor_says_why_export_is_off_or_refused() {
    let t = TestDir::new();
    let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9".to_string());
    let check = telemetry_check(&t, &[endpoint.clone(), ("OTEL_SDK_DISABLED", "true".into())]);
    assert_eq!(check["status"], "ok", "{check}");
    assert!(check["detail"].as_str().unwrap().starts_with("off: disabled by OTEL_SDK_DISABLED=true"), "{check}");

    let check = telemetry_check(&t, &[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318".into())]);
    assert_eq!(check["status"], "warn", "{check}");
    assert!(check["detail"].as_str().unwrap().contains("no scheme"), "{check}");
    assert!(check["fix"].as_str().unwrap().contains("http://localhost:4318"), "{check}");

    let check = telemetry_check(&t, &[endpoint.clone(), ("OTEL_TRACES_EXPORTER", "console".into())]);
    assert_eq!(check["status"], "warn", "{check}");
    assert!(check["detail"].as_str().unwrap().contains("OTEL_TRACES_EXPORTER=`console` is not supported"), "{check}");
}

/// A protocol aide does not have sends nothing at all (never another
/// protocol): the forwarder counts the span dropped with why, and doctor
/// names the value.
#[test]
fn an_unknown_protocol_sends_nothing_and_says_why() {
    let sink = Sink::start();
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", sink.url()), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml".to_string())];
    assert_eq!(run_json(&t, &env, "llm-read", &["a.txt"])["ok"], true);
    eventually("the span dropped with why", ARRIVAL, || {
        let s = state(t.home());
        s["dropped_spans"].as_u64().unwrap_or(0) >= 1
            && s["last_export"]["error"].as_str().is_some_and(|e| e.contains("http/xml"))
    });
    eventually("the forwarder to leave", ARRIVAL, || forwarder_gone(t.home()));
    assert!(sink.all().is_empty(), "{:?}", sink.all());
    let check = telemetry_check(&t, &env);
    assert_eq!(check["status"], "warn", "{check}");
    assert!(check.to_string().contains("OTEL_EXPORTER_OTLP_PROTOCOL=`http/xml`"), "{check}");
}
