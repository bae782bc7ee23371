//! OpenTelemetry configuration end to end, against a receiver of our own
//! (Phoenix has no metrics endpoint and does not show a span's resource): a
//! std `TcpListener` that answers every OTLP/HTTP POST and keeps its path,
//! content type and body. Each signal goes where the specification's
//! variables send it and nowhere else; samplers and an unsampled caller
//! keep spans from being sent while the metrics count the run;
//! `OTEL_SERVICE_NAME` names the service.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aide_tests::{TestDir, eventually};
use serde_json::Value;

/// How long a forwarder may take to send, and to leave once idle (10 s):
/// generous bounds for a loaded machine, never an assertion on time.
const ARRIVAL: Duration = Duration::from_secs(120);

/// One POST the sink received.
#[derive(Debug, Clone)]
pub(crate) struct Post {
    pub(crate) path: String,
    pub(crate) content_type: String,
    pub(crate) body: Vec<u8>,
}

impl Post {
    /// The body as OTLP/JSON (http/json).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }
}

/// An OTLP/HTTP receiver on a free port of 127.0.0.1 that answers 200 to
/// everything. Its thread lives as long as the test process.
pub(crate) struct Sink {
    pub(crate) port: u16,
    posts: Arc<Mutex<Vec<Post>>>,
}

impl Sink {
    pub(crate) fn start() -> Sink {
        Sink::on(TcpListener::bind("127.0.0.1:0").expect("a free port"))
    }

    fn on(listener: TcpListener) -> Sink {
        let port = listener.local_addr().expect("an address").port();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let kept = posts.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || serve(stream, &kept));
            }
        });
        Sink { port, posts }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The POSTs received so far to `path`.
    pub(crate) fn posts(&self, path: &str) -> Vec<Post> {
        self.posts.lock().unwrap().iter().filter(|p| p.path == path).cloned().collect()
    }

    pub(crate) fn all(&self) -> Vec<Post> {
        self.posts.lock().unwrap().clone()
    }

    /// Waits for a POST to `path` whose body `matches`.
    pub(crate) fn wait_for(&self, path: &str, matches: impl Fn(&Post) -> bool) -> Post {
        let mut found = None;
        eventually(&format!("a POST to {path} on port {}", self.port), ARRIVAL, || {
            found = self.posts(path).into_iter().find(|p| matches(p));
            found.is_some()
        });
        found.unwrap()
    }
}

/// Reads the requests of one connection (keep-alive) and answers each 200.
fn serve(stream: TcpStream, posts: &Mutex<Vec<Post>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or_default().to_string();
        let (mut length, mut chunked, mut content_type) = (0usize, false, String::new());
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                "content-type" => content_type = value.trim().to_string(),
                _ => {}
            }
        }
        let body = if chunked { read_chunked(&mut reader) } else { read_exactly(&mut reader, length) };
        let Some(body) = body else { return };
        posts.lock().unwrap().push(Post { path, content_type: content_type.clone(), body });
        let answer = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: 0\r\n\r\n");
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

fn read_exactly(reader: &mut impl Read, length: usize) -> Option<Vec<u8>> {
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        let mut chunk = read_exactly(reader, size + 2)?;
        chunk.truncate(size);
        body.extend(chunk);
        if size == 0 {
            return Some(body);
        }
    }
}

pub(crate) use crate::otel::run_json;

/// Whether `home`'s forwarders have left, their spools empty: what they
/// were to send, they sent (or never will).
pub(crate) fn forwarder_gone(home: &Path) -> bool {
    crate::otel::export_dirs(home).iter().all(|dir| {
        let spooled = std::fs::read_dir(dir.join("spool"))
            .map_or(0, |d| d.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).count());
        let held = std::fs::File::open(dir.join("forwarder.lock"))
            .is_ok_and(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)));
        spooled == 0 && !held
    })
}

/// The forwarder's state file, as `aide doctor` reads it.
pub(crate) fn state(home: &Path) -> Value {
    crate::otel::aide_telemetry_state(home).unwrap_or_default()
}

/// Every span of an OTLP/JSON traces body.
pub(crate) fn spans(body: &Value) -> Vec<Value> {
    let each = |v: &Value, key: &str| v[key].as_array().cloned().unwrap_or_default();
    each(body, "resourceSpans").iter().flat_map(|r| each(r, "scopeSpans")).flat_map(|s| each(&s, "spans")).collect()
}

/// An attribute of an OTLP/JSON span or resource, as text.
pub(crate) fn attribute(of: &Value, key: &str) -> Option<String> {
    let found = of["attributes"].as_array()?.iter().find(|a| a["key"] == key)?;
    let value = &found["value"];
    value["stringValue"].as_str().or(value["intValue"].as_str()).map(str::to_string)
}

/// The environment that exports to `endpoint` over http/json.
fn json_env(endpoint: &str) -> Vec<(&'static str, String)> {
    vec![("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.to_string()), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json".into())]
}

/// With an endpoint for spans only, no metric goes anywhere: not to the
/// SDK's default `localhost:4318` (watched when that port is free here),
/// and the forwarder counts no failed metric export.
#[test]
fn an_endpoint_for_traces_only_sends_no_metrics() {
    let default_port = TcpListener::bind("127.0.0.1:4318").ok().map(Sink::on);
    let sink = Sink::start();
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let env = [("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", format!("{}/custom/traces", sink.url()))];
    assert_eq!(run_json(&t, &env, "llm-read", &["a.txt"])["ok"], true);
    sink.wait_for("/custom/traces", |_| true);
    eventually("the forwarder to leave", ARRIVAL, || forwarder_gone(t.home()));
    let paths: Vec<String> = sink.all().into_iter().map(|p| p.path).collect();
    assert_eq!(paths, ["/custom/traces"], "the traces endpoint as written, and nothing else");
    if let Some(default_port) = default_port {
        assert!(default_port.all().is_empty(), "{:?}", default_port.all());
    }
    assert_eq!(state(t.home())["failed_metric_exports"], 0, "{}", state(t.home()));
}

/// The common endpoint sends each signal to its path; a signal's own
/// endpoint is used as written; `OTEL_METRICS_EXPORTER=none` stops metrics
/// only, `OTEL_TRACES_EXPORTER=none` spans only (the run still spools its
/// record, for the metrics).
#[test]
fn each_signal_goes_where_its_own_variables_send_it() {
    let (common, metrics_only, no_metrics, no_traces) = (Sink::start(), Sink::start(), Sink::start(), Sink::start());
    let homes: Vec<(TestDir, Vec<(&str, String)>)> = vec![
        (TestDir::new(), json_env(&common.url())),
        (TestDir::new(), {
            let mut env = json_env(&common.url());
            env.push(("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", format!("{}/m", metrics_only.url())));
            env
        }),
        (TestDir::new(), {
            let mut env = json_env(&no_metrics.url());
            env.push(("OTEL_METRICS_EXPORTER", "none".into()));
            env
        }),
        (TestDir::new(), {
            let mut env = json_env(&no_traces.url());
            env.push(("OTEL_TRACES_EXPORTER", "none".into()));
            env
        }),
    ];
    for (t, env) in &homes {
        t.write("a.txt", "one\n");
        assert_eq!(run_json(t, env, "llm-read", &["a.txt"])["ok"], true);
    }
    let calls = |p: &Post| p.json().to_string().contains("aide.tool.calls");
    common.wait_for("/v1/traces", |_| true);
    common.wait_for("/v1/metrics", calls);
    metrics_only.wait_for("/m", calls);
    no_metrics.wait_for("/v1/traces", |_| true);
    no_traces.wait_for("/v1/metrics", calls);
    for (t, _) in &homes {
        eventually("the forwarder to leave", ARRIVAL, || forwarder_gone(t.home()));
    }
    assert_eq!(
        common.posts("/v1/traces").len(),
        2,
        "both homes' spans: the common one and the one with a metrics endpoint"
    );
    assert!(metrics_only.posts("/v1/traces").is_empty() && metrics_only.posts("/v1/metrics").is_empty());
    assert!(no_metrics.posts("/v1/metrics").is_empty(), "OTEL_METRICS_EXPORTER=none");
    assert!(no_traces.posts("/v1/traces").is_empty(), "OTEL_TRACES_EXPORTER=none");
    assert!(no_traces.all().iter().all(|p| p.content_type.starts_with("application/json")), "http/json as asked");
}

/// An unsampled caller, `always_off` and a ratio of 0 all keep the run's
/// span from being sent while the run succeeds and the metrics count it;
/// its children are told it is not sampled.
#[test]
fn a_run_not_sampled_sends_no_span_and_is_counted_in_the_metrics() {
    let sink = Sink::start();
    let unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
    let cases: [&[(&str, &str)]; 3] = [
        &[("TRACEPARENT", unsampled)],
        &[("OTEL_TRACES_SAMPLER", "always_off")],
        &[("OTEL_TRACES_SAMPLER", "traceidratio"), ("OTEL_TRACES_SAMPLER_ARG", "0")],
    ];
    let mut homes = Vec::new();
    for case in cases {
        let t = TestDir::new();
        t.write("a.txt", "one\n");
        let mut env = json_env(&sink.url());
        env.extend(case.iter().map(|(k, v)| (*k, v.to_string())));
        assert_eq!(run_json(&t, &env, "llm-read", &["a.txt"])["ok"], true, "{case:?}");
        homes.push((t, env));
    }
    // A job is told its parent is not sampled: flag 00, the caller's trace.
    let (t, env) = &homes[0];
    let spawn = run_json(t, env, "llm-jobs", &["spawn", "--", "printenv", "TRACEPARENT"]);
    let job = spawn["job_id"].as_i64().unwrap().to_string();
    run_json(t, env, "llm-jobs", &["wait", &job]);
    let printed =
        run_json(t, env, "llm-jobs", &["logs", &job])["content"].as_str().unwrap_or_default().trim().to_string();
    assert!(printed.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-") && printed.ends_with("-00"), "{printed}");
    assert!(!printed.contains("00f067aa0ba902b7"), "the job's parent is the spawn's span, not the caller's: {printed}");
    for (t, _) in &homes {
        eventually("the forwarder to count the runs and leave", ARRIVAL, || {
            forwarder_gone(t.home()) && state(t.home())["metrics_only_runs"].as_u64().unwrap_or(0) >= 1
        });
        assert_eq!(state(t.home())["exported_spans"], 0, "{}", state(t.home()));
    }
    sink.wait_for("/v1/metrics", |p| p.json().to_string().contains("aide.tool.calls"));
    assert!(sink.posts("/v1/traces").is_empty(), "{:?}", sink.posts("/v1/traces"));
}

/// A caller's flags this version of Trace Context does not define are not
/// passed on; the random flag (Level 2) stays with its trace id.
#[test]
fn children_get_only_the_flags_trace_context_defines() {
    let sink = Sink::start();
    let t = TestDir::new();
    let mut env = json_env(&sink.url());
    env.push(("TRACEPARENT", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff".into()));
    let spawn = run_json(&t, &env, "llm-jobs", &["spawn", "--", "printenv", "TRACEPARENT"]);
    let job = spawn["job_id"].as_i64().unwrap().to_string();
    run_json(&t, &env, "llm-jobs", &["wait", &job]);
    let printed =
        run_json(&t, &env, "llm-jobs", &["logs", &job])["content"].as_str().unwrap_or_default().trim().to_string();
    assert!(printed.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-") && printed.ends_with("-03"), "{printed}");
}

/// `OTEL_SERVICE_NAME` names the service over `service.name` among the
/// attributes, which are percent-decoded; `k8s.service.name` is another
/// attribute, not the service's name.
#[test]
fn otel_service_name_names_the_service_and_attributes_are_decoded() {
    let sink = Sink::start();
    let (named, unnamed) = (TestDir::new(), TestDir::new());
    let mut env = json_env(&sink.url());
    env.push(("OTEL_SERVICE_NAME", "from-env".into()));
    env.push(("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs, team=a%2Cb ,k8s.service.name=kube".into()));
    named.write("a.txt", "one\n");
    let read = run_json(&named, &env, "llm-read", &["a.txt"]);
    let id = read["execution_id"].as_str().unwrap().to_string();
    let mut env = json_env(&sink.url());
    env.push(("OTEL_RESOURCE_ATTRIBUTES", "k8s.service.name=kube".into()));
    unnamed.write("a.txt", "one\n");
    let other = run_json(&unnamed, &env, "llm-read", &["a.txt"]);
    let other_id = other["execution_id"].as_str().unwrap().to_string();
    let resource_of = |id: &str| {
        let post = sink.wait_for("/v1/traces", |p| p.json().to_string().contains(id));
        post.json()["resourceSpans"][0]["resource"].clone()
    };
    let resource = resource_of(&id);
    assert_eq!(attribute(&resource, "service.name").as_deref(), Some("from-env"), "{resource}");
    assert_eq!(attribute(&resource, "team").as_deref(), Some("a,b"), "{resource}");
    assert!(!resource.to_string().contains("from-attrs"), "{resource}");
    let resource = resource_of(&other_id);
    assert_eq!(attribute(&resource, "service.name").as_deref(), Some("aide"), "{resource}");
    assert_eq!(attribute(&resource, "k8s.service.name").as_deref(), Some("kube"), "{resource}");
}
