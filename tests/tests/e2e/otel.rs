//! OpenTelemetry export against a real backend: Arize Phoenix (`phoenix
//! serve`, from PyPI) receives the spans of command-line runs (http/protobuf
//! and grpc) and of `aide mcp` calls, and is asked for them back through its
//! REST API; an unreachable endpoint changes nothing in a run and is
//! counted by `aide doctor`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use aide_tests::mcp::McpClient;
use aide_tests::{TestDir, eventually, kill_process_group, oracle};
use serde_json::{Value, json};

/// The caller's trace, as a harness hands it over.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN: &str = "00f067aa0ba902b7";
const MCP_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const MCP_PARENT_SPAN: &str = "b7ad6b7169203331";
/// The Phoenix project the spans go to (its resource attribute).
const PROJECT: &str = "aide-e2e";
/// How long a backend may take to start, and a span to show in it: generous
/// bounds for a loaded machine, never an assertion on time.
const STARTUP: Duration = Duration::from_secs(240);
const ARRIVAL: Duration = Duration::from_secs(120);

/// A running `phoenix serve`, taken down with its process group.
struct Phoenix {
    child: Child,
    http: u16,
    grpc: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        kill_process_group(self.child.id());
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

impl Phoenix {
    fn start() -> Phoenix {
        let dir = tempfile::tempdir().expect("tempdir");
        let (http, grpc) = (free_port(), free_port());
        let mut command = aide_tests::own_session(Command::new("phoenix"));
        command
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", http.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("phoenix.log")).expect("log"));
        let child = command.spawn().expect("phoenix serve");
        let phoenix = Phoenix { child, http, grpc, _dir: dir };
        eventually("phoenix to answer /healthz", STARTUP, || {
            get(phoenix.http, "/healthz").is_some_and(|(status, _)| status == 200)
        });
        phoenix
    }

    /// The spans of the project, as Phoenix's REST API lists them.
    fn spans(&self) -> Vec<Value> {
        let Some((200, body)) = get(self.http, &format!("/v1/projects/{PROJECT}/spans?limit=1000")) else {
            return Vec::new();
        };
        let doc: Value = serde_json::from_str(&body).unwrap_or_default();
        doc["data"].as_array().cloned().unwrap_or_default()
    }

    /// The span whose attributes say `key` = `value`, once Phoenix has it.
    fn span_where(&self, key: &str, value: &str) -> Value {
        let mut found = None;
        eventually(&format!("a span with {key} = {value} in Phoenix"), ARRIVAL, || {
            found = self.spans().into_iter().find(|s| attribute(s, key).as_str() == Some(value));
            found.is_some()
        });
        found.unwrap()
    }
}

/// An attribute of a span as Phoenix returns it: flat (`a.b.c`) or nested.
fn attribute(span: &Value, key: &str) -> Value {
    let attributes = &span["attributes"];
    if let Some(v) = attributes.get(key) {
        return v.clone();
    }
    key.split('.').fold(attributes.clone(), |v, part| v.get(part).cloned().unwrap_or(Value::Null))
}

/// A GET on localhost: the status and body (HTTP/1.0, so the body ends
/// with the connection).
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n").ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// The environment that turns export on, toward `endpoint`.
fn otel_env(endpoint: &str, protocol: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.to_string()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_string()),
        ("OTEL_SERVICE_NAME", "aide-e2e".to_string()),
        ("OTEL_RESOURCE_ATTRIBUTES", format!("openinference.project.name={PROJECT}")),
    ]
}

fn run_json(t: &TestDir, env: &[(&str, String)], tool: &str, args: &[&str]) -> Value {
    let mut cmd = t.cmd(tool).args(args).arg("--json");
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let out = cmd.output();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{tool} {args:?}: not JSON ({e})"))
}

#[test]
fn spans_of_the_command_line_and_aide_mcp_reach_phoenix_under_their_callers_traces() {
    if !oracle("phoenix", "OpenTelemetry spans received by Arize Phoenix") {
        return;
    }
    let phoenix = Phoenix::start();
    let t = TestDir::new();
    t.write("notes.txt", "alpha\nbeta\n");
    let mut env = otel_env(&format!("http://127.0.0.1:{}", phoenix.http), "http/protobuf");
    env.push(("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_SPAN}-01")));

    // A command-line run continues TRACEPARENT; the span carries the GenAI
    // conventions and aide's own attributes, the execution id leading to `aide log show`.
    let read = run_json(&t, &env, "llm-read", &["notes.txt"]);
    assert_eq!(read["ok"], true, "{read}");
    let id = read["execution_id"].as_str().unwrap();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert_eq!(span["context"]["trace_id"], TRACE_ID, "{span}");
    assert_eq!(span["parent_id"], PARENT_SPAN, "{span}");
    assert_eq!(span["name"], "execute_tool llm-read", "{span}");
    assert_eq!(attribute(&span, "gen_ai.operation.name"), "execute_tool", "{span}");
    assert_eq!(attribute(&span, "gen_ai.tool.name"), "llm-read", "{span}");
    assert_eq!(attribute(&span, "aide.execution_id"), id, "{span}");
    assert_eq!(attribute(&span, "aide.exit_code"), 0, "{span}");
    assert_eq!(attribute(&span, "aide.root.name"), "root", "{span}");
    assert!(attribute(&span, "aide.bytes_out").as_i64().is_some_and(|n| n > 0), "{span}");
    // No file content leaves unless asked.
    assert!(!span.to_string().contains("alpha"), "{span}");

    // A child process is handed TRACEPARENT naming the run's own span, so
    // its spans join the tree; the failing run's span says its error.
    let exec = run_json(&t, &env, "llm-shell", &["exec", "--", "printenv", "TRACEPARENT"]);
    let id = exec["execution_id"].as_str().unwrap();
    let printed = exec["result"]["stdout"].as_str().unwrap_or_default().trim().to_string();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert_eq!(attribute(&span, "gen_ai.tool.name"), "llm-shell exec", "{span}");
    let own = span["context"]["span_id"].as_str().unwrap();
    assert_eq!(printed, format!("00-{TRACE_ID}-{own}-01"), "{exec}");
    let failed = run_json(&t, &env, "llm-read", &["no-such-file.txt"]);
    let id = failed["execution_id"].as_str().unwrap();
    let code = failed["error"]["code"].as_str().unwrap();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert_eq!(span["status_code"], "ERROR", "{span}");
    assert_eq!(attribute(&span, "error.type"), code, "{span}");
    assert_eq!(attribute(&span, "aide.error_code"), code, "{span}");

    // aide mcp: the request's `_meta` trace context is the parent.
    let mcp_env: Vec<(&str, &Path)> = env
        .iter()
        .filter(|(k, _)| *k != "TRACEPARENT")
        .map(|(k, v)| (*k, Path::new(v.as_str())))
        .collect();
    let aide = aide_tests::bin_dir().join("aide");
    let mut client = McpClient::start_with_env(&aide, t.root(), t.home(), &[], &mcp_env).handshake(json!({}));
    let reply = client.request(
        "tools/call",
        json!({
            "name": "read",
            "arguments": { "path": "notes.txt" },
            "_meta": { "traceparent": format!("00-{MCP_TRACE_ID}-{MCP_PARENT_SPAN}-01") },
        }),
    );
    assert!(reply["result"].is_object(), "{reply}");
    drop(client);
    let span = phoenix.span_where("gen_ai.tool.name", "read");
    assert_eq!(span["context"]["trace_id"], MCP_TRACE_ID, "{span}");
    assert_eq!(span["parent_id"], MCP_PARENT_SPAN, "{span}");
    assert_eq!(attribute(&span, "aide.origin").as_str().map(|o| o.starts_with("mcp:")), Some(true), "{span}");

    // grpc, from another AIDE_HOME (its own forwarder), a run with no caller: a trace of its own.
    let g = TestDir::new();
    g.write("notes.txt", "gamma\n");
    let env = otel_env(&format!("http://127.0.0.1:{}", phoenix.grpc), "grpc");
    let read = run_json(&g, &env, "llm-read", &["notes.txt"]);
    let id = read["execution_id"].as_str().unwrap();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert!(span["parent_id"].is_null(), "{span}");
    assert_ne!(span["context"]["trace_id"], TRACE_ID, "{span}");

    // `aide doctor` sees the endpoint answer and the spans sent.
    let doctor = run_json(&t, &otel_env(&format!("http://127.0.0.1:{}", phoenix.http), "http/protobuf"), "aide", &["doctor"]);
    let check = telemetry_check(&doctor);
    assert_eq!(check["status"], "ok", "{check}");
    assert!(check["detail"].as_str().unwrap().contains("accepts connections"), "{check}");
}

fn telemetry_check(doctor: &Value) -> Value {
    let checks = doctor["result"]["checks"].as_array().cloned().unwrap_or_default();
    checks.into_iter().find(|c| c["name"] == "telemetry").unwrap_or_else(|| panic!("no telemetry check: {doctor}"))
}

#[test]
fn an_unreachable_endpoint_changes_no_result_and_its_dropped_spans_are_counted() {
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    // A port nobody listens on: connections are refused.
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let env = otel_env(&endpoint, "http/protobuf");
    let plain = run_json(&t, &[], "llm-search", &["needle"]);
    let exported = run_json(&t, &env, "llm-search", &["needle"]);
    assert_eq!(exported["ok"], plain["ok"]);
    assert_eq!(exported["result"], plain["result"], "the result is the same with export on");
    let failed = t.cmd("llm-read").args(["missing.txt", "--json"]);
    let mut failed = failed;
    for (k, v) in &env {
        failed = failed.env(k, v);
    }
    let out = failed.output();
    let plain_failure = t.cmd("llm-read").args(["missing.txt", "--json"]).output();
    assert_eq!(out.status.code(), plain_failure.status.code(), "the exit code is the same with export on");

    // The forwarder tries, fails and counts; doctor says so, with the endpoint's health.
    eventually("the dropped spans to be counted", ARRIVAL, || {
        aide_telemetry_state(t.home()).is_some_and(|s| s["dropped_spans"].as_u64().unwrap_or(0) >= 2)
    });
    let doctor = run_json(&t, &env, "aide", &["doctor"]);
    let check = telemetry_check(&doctor);
    assert_eq!(check["status"], "warn", "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("does not answer") && detail.contains("dropped"), "{check}");
    assert!(check["fix"].is_string(), "{check}");

    // Off unless asked: without the variables nothing is spooled.
    let before = spooled_and_sent(t.home());
    run_json(&t, &[], "llm-search", &["needle"]);
    assert_eq!(spooled_and_sent(t.home()), before);
}

/// The forwarder's state file, as `aide doctor` reads it.
fn aide_telemetry_state(home: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(home.join("otel/state.json")).ok()?).ok()
}

/// Spans waiting plus spans the forwarder dealt with.
fn spooled_and_sent(home: &Path) -> u64 {
    let waiting = std::fs::read_dir(home.join("otel/spool")).map_or(0, |d| d.count() as u64);
    let state = aide_telemetry_state(home).unwrap_or_default();
    waiting + state["dropped_spans"].as_u64().unwrap_or(0) + state["exported_spans"].as_u64().unwrap_or(0)
}
