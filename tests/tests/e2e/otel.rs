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

pub(crate) fn run_json(t: &TestDir, env: &[(&str, String)], tool: &str, args: &[&str]) -> Value {
    let mut cmd = t.cmd(tool).arg("--json").args(args);
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
    command_line_runs_continue_traceparent(&phoenix, &t, &env);
    an_unsampled_caller_s_run_is_not_in_phoenix(&phoenix, &t, &env);
    children_join_the_run_s_span(&phoenix, &t, &env);
    mcp_calls_continue_their_meta_trace(&phoenix, &t, &env);

    // grpc (its name in capitals, as it is read whatever the case), from
    // another AIDE_HOME (its own forwarder), a run with no caller: a trace of its own.
    let g = TestDir::new();
    g.write("notes.txt", "gamma\n");
    let grpc = otel_env(&format!("http://127.0.0.1:{}", phoenix.grpc), "GRPC");
    let read = run_json(&g, &grpc, "llm-read", &["notes.txt"]);
    let span = phoenix.span_where("gen_ai.tool.call.id", read["execution_id"].as_str().unwrap());
    assert!(span["parent_id"].is_null(), "{span}");
    assert_ne!(span["context"]["trace_id"], TRACE_ID, "{span}");

    // The user's aide.toml alone turns export on, in the variables' words.
    let u = TestDir::new();
    u.write("notes.txt", "delta\n");
    let config = u.home().join("config/aide");
    std::fs::create_dir_all(&config).unwrap();
    let table = format!(
        "[telemetry]\nendpoint = \"http://127.0.0.1:{}\"\nprotocol = \"http/protobuf\"\nresource_attributes = \"openinference.project.name={PROJECT}\"\n",
        phoenix.http
    );
    std::fs::write(config.join("aide.toml"), table).unwrap();
    let read = run_json(&u, &[], "llm-read", &["notes.txt"]);
    let span = phoenix.span_where("gen_ai.tool.call.id", read["execution_id"].as_str().unwrap());
    assert_eq!(attribute(&span, "gen_ai.tool.name"), "llm-read", "{span}");

    // `aide doctor` sees the endpoint answer and the spans sent.
    let doctor =
        run_json(&t, &otel_env(&format!("http://127.0.0.1:{}", phoenix.http), "http/protobuf"), "aide", &["doctor"]);
    let check = telemetry_check(&doctor);
    assert_eq!(check["status"], "ok", "{check}");
    assert!(check["detail"].as_str().unwrap().contains("accepts connections"), "{check}");
}

/// A command-line run continues TRACEPARENT; its span carries the GenAI
/// conventions and aide's own attributes, the execution id leading to
/// `aide log show`; a failed run's span says its error.
fn command_line_runs_continue_traceparent(phoenix: &Phoenix, t: &TestDir, env: &[(&str, String)]) {
    let read = run_json(t, env, "llm-read", &["notes.txt"]);
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

    // Asked, the result goes as the log keeps it: redacted.
    t.write("key.txt", "key AKIAIOSFODNN7EXAMPLE here\n");
    let mut capture = env.to_vec();
    capture.push(("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true".into()));
    let read = run_json(t, &capture, "llm-read", &["key.txt"]);
    assert!(read.to_string().contains("AKIAIOSFODNN7EXAMPLE"), "the caller reads it whole: {read}");
    let span = phoenix.span_where("gen_ai.tool.call.id", read["execution_id"].as_str().unwrap());
    let result = attribute(&span, "gen_ai.tool.call.result").as_str().unwrap_or_default().to_string();
    assert!(result.contains("here") && result.contains("[REDACTED]"), "{span}");
    assert!(!span.to_string().contains("AKIAIOSFODNN7EXAMPLE"), "{span}");

    // A failed run's span says its error.
    let failed = run_json(t, env, "llm-read", &["no-such-file.txt"]);
    let id = failed["execution_id"].as_str().unwrap();
    let code = failed["error"]["code"].as_str().unwrap();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert_eq!(span["status_code"], "ERROR", "{span}");
    assert_eq!(attribute(&span, "error.type"), code, "{span}");
    assert_eq!(attribute(&span, "aide.error_code"), code, "{span}");
}

/// A caller that did not sample its span (flags 00) gets no span of the
/// run in Phoenix, while the run succeeds: a sampled run spooled after it,
/// once in Phoenix, shows the forwarder has dealt with the unsampled one.
fn an_unsampled_caller_s_run_is_not_in_phoenix(phoenix: &Phoenix, t: &TestDir, env: &[(&str, String)]) {
    let mut unsampled = env.to_vec();
    unsampled.retain(|(k, _)| *k != "TRACEPARENT");
    unsampled.push(("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_SPAN}-00")));
    let skipped = run_json(t, &unsampled, "llm-read", &["notes.txt"]);
    assert_eq!(skipped["ok"], true, "{skipped}");
    let after = run_json(t, env, "llm-read", &["notes.txt"]);
    phoenix.span_where("gen_ai.tool.call.id", after["execution_id"].as_str().unwrap());
    let id = skipped["execution_id"].as_str().unwrap();
    let found = phoenix.spans().into_iter().find(|s| attribute(s, "gen_ai.tool.call.id").as_str() == Some(id));
    assert!(found.is_none(), "{found:?}");
}

/// What a run starts is handed TRACEPARENT naming the run's span, and a
/// process it starts through the gate is a child span.
fn children_join_the_run_s_span(phoenix: &Phoenix, t: &TestDir, env: &[(&str, String)]) {
    // A job's process is handed TRACEPARENT naming the spawn's own span, so
    // its spans join the tree.
    let spawn = run_json(t, env, "llm-jobs", &["spawn", "--", "printenv", "TRACEPARENT"]);
    let id = spawn["execution_id"].as_str().unwrap();
    let job = spawn["job_id"].as_i64().unwrap().to_string();
    run_json(t, env, "llm-jobs", &["wait", &job]);
    let logs = run_json(t, env, "llm-jobs", &["logs", &job]);
    let printed = logs["content"].as_str().unwrap_or_default().trim().to_string();
    let span = phoenix.span_where("gen_ai.tool.call.id", id);
    assert_eq!(attribute(&span, "gen_ai.tool.name"), "llm-jobs spawn", "{span}");
    let own = span["context"]["span_id"].as_str().unwrap();
    assert_eq!(printed, format!("00-{TRACE_ID}-{own}-01"), "{logs}");

    // A process the run starts through the gate is a phase: a child span.
    if oracle("shellcheck", "a checker's process as a child span of llm-lint's") {
        t.write("s.sh", "#!/bin/sh\necho $1\n");
        let lint = run_json(t, env, "llm-lint", &["--checker", "shellcheck", "s.sh"]);
        let span = phoenix.span_where("gen_ai.tool.call.id", lint["execution_id"].as_str().unwrap());
        let own = span["context"]["span_id"].as_str().unwrap().to_string();
        let mut checker = None;
        eventually("the checker's span under llm-lint's", ARRIVAL, || {
            checker = phoenix.spans().into_iter().find(|s| s["parent_id"] == own.as_str());
            checker.is_some()
        });
        let checker = checker.unwrap();
        assert_eq!(checker["name"], "checker shellcheck", "{checker}");
        assert_eq!(attribute(&checker, "aide.process.purpose"), "checker", "{checker}");
        assert_eq!(attribute(&checker, "aide.process.name"), "shellcheck", "{checker}");
        assert_eq!(checker["context"]["trace_id"], TRACE_ID, "{checker}");
    }
}

/// aide mcp: the request's `_meta` trace context is the parent.
fn mcp_calls_continue_their_meta_trace(phoenix: &Phoenix, t: &TestDir, env: &[(&str, String)]) {
    let mcp_env: Vec<(&str, &Path)> =
        env.iter().filter(|(k, _)| *k != "TRACEPARENT").map(|(k, v)| (*k, Path::new(v.as_str()))).collect();
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
}

fn telemetry_check(doctor: &Value) -> Value {
    let checks = doctor["checks"].as_array().cloned().unwrap_or_default();
    checks.into_iter().find(|c| c["name"] == "telemetry").unwrap_or_else(|| panic!("no telemetry check: {doctor}"))
}

#[test]
fn an_unreachable_endpoint_changes_no_result_and_its_dropped_spans_are_counted() {
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    // A port nobody listens on: connections are refused.
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let env = otel_env(&endpoint, "http/protobuf");
    let plain = run_json(&t, &[], "llm-search", &["--pattern", "needle"]);
    let exported = run_json(&t, &env, "llm-search", &["--pattern", "needle"]);
    assert_eq!(exported["ok"], true, "{exported}");
    assert_eq!(without_run_ids(exported), without_run_ids(plain), "the result is the same with export on");
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

    // Off unless asked: without the variables nothing is spooled (the
    // search, the read and doctor's own run were, and are counted whether
    // waiting, in flight or dealt with).
    assert_eq!(export_dirs(t.home()).len(), 1, "one set of settings, one export folder");
    let before = spooled_and_sent(t.home());
    assert_eq!(before, 3);
    run_json(&t, &[], "llm-search", &["--pattern", "needle"]);
    assert_eq!(spooled_and_sent(t.home()), before);
}

/// Logging off is no export off: a run with `--no-log` (or `AIDE_LOG=off`)
/// exports its span too, a successful one as well as a failed one (only the
/// failures did, so error rates read 100%).
#[test]
fn a_run_not_logged_still_exports_its_span() {
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let env = otel_env(&endpoint, "http/protobuf");
    let before = spooled_and_sent(t.home());
    let runs: [(&[&str], Option<&str>); 3] =
        [(&["a.txt", "--no-log", "--json"], None), (&["a.txt", "--no-log"], None), (&["a.txt", "--json"], Some("off"))];
    for (args, log) in runs {
        let mut cmd = t.cmd("llm-read").args(args);
        for (k, v) in &env {
            cmd = cmd.env(k, v);
        }
        if let Some(log) = log {
            cmd = cmd.env("AIDE_LOG", log);
        }
        cmd.expect_exit(0);
    }
    eventually("three spans spooled or dealt with", ARRIVAL, || spooled_and_sent(t.home()) == before + 3);
}

/// A document without what differs from run to run (its id and timings).
fn without_run_ids(mut doc: Value) -> Value {
    if let Some(map) = doc.as_object_mut() {
        map.remove("execution_id");
        map.remove("stats");
    }
    doc
}

/// The export folders under `home`: one per set of export settings.
pub(crate) fn export_dirs(home: &Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = std::fs::read_dir(home.join("otel")) else { return Vec::new() };
    let mut dirs: Vec<_> = rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// The records in `folder` of every export folder (`spool`, `in-flight`).
pub(crate) fn records_in(home: &Path, folder: &str) -> u64 {
    export_dirs(home).iter().map(|d| std::fs::read_dir(d.join(folder)).map_or(0, |r| r.count() as u64)).sum()
}

/// The forwarder's state file, as `aide doctor` reads it (the one export
/// folder's that has one).
pub(crate) fn aide_telemetry_state(home: &Path) -> Option<Value> {
    let dirs = export_dirs(home);
    dirs.iter().find_map(|d| serde_json::from_slice(&std::fs::read(d.join("state.json")).ok()?).ok())
}

/// Spans waiting or being sent plus spans the forwarders dealt with.
pub(crate) fn spooled_and_sent(home: &Path) -> u64 {
    let states: Vec<Value> = export_dirs(home)
        .iter()
        .filter_map(|d| serde_json::from_slice(&std::fs::read(d.join("state.json")).ok()?).ok())
        .collect();
    let counted: u64 = states
        .iter()
        .map(|s| s["dropped_spans"].as_u64().unwrap_or(0) + s["exported_spans"].as_u64().unwrap_or(0))
        .sum();
    records_in(home, "spool") + records_in(home, "in-flight") + counted
}

#[test]
fn log_stats_counts_calls_errors_and_latency_per_tool_from_the_local_log() {
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    for _ in 0..3 {
        run_json(&t, &[], "llm-read", &["a.txt"]);
    }
    let failed = run_json(&t, &[], "llm-read", &["missing.txt"]);
    let code = failed["error"]["code"].as_str().unwrap().to_string();
    run_json(&t, &[], "llm-search", &["--pattern", "one"]);

    let stats = run_json(&t, &[], "aide", &["log", "stats"]);
    let per_tool = stats["per_tool"].as_array().unwrap();
    let names: Vec<&str> = per_tool.iter().filter_map(|s| s["tool"].as_str()).collect();
    assert_eq!(names, ["read", "search"], "by MCP tool, by name: {stats}");
    let read = &per_tool[0];
    assert_eq!((read["runs"].as_u64(), read["errors"].as_u64()), (Some(4), Some(1)), "{read}");
    assert_eq!(read["error_rate"], 0.25, "{read}");
    assert_eq!(read["error_codes"][&code], 1, "{read}");
    let (p50, p95, max) =
        (read["p50_ms"].as_f64().unwrap(), read["p95_ms"].as_f64().unwrap(), read["max_ms"].as_f64().unwrap());
    assert!(p50 > 0.0 && p50 <= p95 && p95 <= max, "{read}");

    // One tool, by its MCP name or its program's.
    let only = run_json(&t, &[], "aide", &["log", "stats", "--tool", "search"]);
    assert_eq!(only["per_tool"].as_array().map(Vec::len), Some(1), "{only}");
    assert_eq!(only["per_tool"][0]["runs"], 1, "{only}");
    let unknown = run_json(&t, &[], "aide", &["log", "stats", "--tool", "serch"]);
    assert_eq!(unknown["ok"], false, "{unknown}");
}
