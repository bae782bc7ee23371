//! The telemetry forwarders at their seams: one per set of export settings
//! (a run is never sent with another run's endpoint or credentials), out
//! of every sandbox's reach, holding none of their caller's descriptors,
//! and counting every span they could not send. The endpoints are
//! `aide_tests::otlp` receivers, which say which request reached which
//! port with which headers.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use aide_tests::otlp::{OtlpSink, Point, cumulative_total};
use aide_tests::{TestDir, eventually};
use serde_json::Value;

use crate::otel::{aide_telemetry_state, export_dirs, records_in, run_json as run};
use crate::sandbox::{mounts_refused, sandbox_available};
use crate::shell::shell;

const ARRIVAL: Duration = Duration::from_secs(120);

fn id(doc: &Value) -> String {
    doc["execution_id"].as_str().unwrap_or_else(|| panic!("no execution id: {doc}")).to_string()
}

/// The pids of processes whose command line holds `word` and `also`.
fn processes_with(word: &str, also: &str) -> Vec<u32> {
    let Ok(rd) = std::fs::read_dir("/proc") else { return Vec::new() };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let line = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let line = String::from_utf8_lossy(&line);
            line.contains(word) && line.contains(also)
        })
        .collect()
}

#[test]
fn runs_with_other_settings_are_sent_by_their_own_forwarder_with_their_own_credentials() {
    let (a, b) = (OtlpSink::start(), OtlpSink::start());
    let t = TestDir::new();
    t.write("notes.txt", "alpha\n");
    let settings = |sink: &OtlpSink, who: &str| {
        vec![
            ("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint()),
            ("OTEL_EXPORTER_OTLP_HEADERS", format!("authorization=token-{who}")),
            ("OTEL_SERVICE_NAME", format!("service-{who}")),
        ]
    };
    // The second run comes while the first's forwarder still runs (it
    // stays for seconds after its last span).
    let first = id(&run(&t, &settings(&a, "a"), "llm-read", &["notes.txt"]));
    let second = id(&run(&t, &settings(&b, "b"), "llm-read", &["notes.txt"]));
    eventually("each run's span at its own endpoint", ARRIVAL, || {
        a.to("/v1/traces").iter().any(|r| r.mentions(&first)) && b.to("/v1/traces").iter().any(|r| r.mentions(&second))
    });
    for (sink, who, other_run) in [(&a, "a", &second), (&b, "b", &first)] {
        for request in sink.received() {
            let said = format!("{} {:?}", request.path, request.header("authorization"));
            assert_eq!(request.header("authorization"), Some(format!("token-{who}").as_str()), "{said}");
            assert!(!request.mentions(other_run), "the other settings' run reached {who}: {said}");
            let other_service = if who == "a" { "service-b" } else { "service-a" };
            assert!(!request.mentions(other_service), "{said}");
        }
    }
    assert_eq!(a.span_services().iter().collect::<std::collections::BTreeSet<_>>(), [&"service-a".to_string()].into());
    assert_eq!(b.span_services().iter().collect::<std::collections::BTreeSet<_>>(), [&"service-b".to_string()].into());
    assert_eq!(export_dirs(t.home()).len(), 2, "one export folder per set of settings");
}

#[test]
fn a_sandboxed_command_can_neither_see_nor_hold_a_forwarder_s_lock() {
    if !sandbox_available() {
        return;
    }
    let sink = OtlpSink::start();
    let t = TestDir::new();
    t.write("notes.txt", "alpha\n");
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())];
    let read = id(&run(&t, &env, "llm-read", &["notes.txt"]));
    eventually("the span sent", ARRIVAL, || sink.to("/v1/traces").iter().any(|r| r.mentions(&read)));
    let dir = export_dirs(t.home()).pop().expect("an export folder");
    let lock = dir.join("forwarder.lock");
    assert!(lock.exists(), "the forwarder's lock is made");
    if mounts_refused() {
        // Landlock alone cannot take a folder out of what is readable.
        return;
    }
    let otel = t.home().join("otel");
    let line = format!("ls -A {} | wc -l; flock -n {} true && echo held; echo end", otel.display(), lock.display());
    let v = shell(&t, &["exec", "--sandbox", "read-only", "--", &line], 0);
    assert_eq!(v["stdout"], "0\nend\n", "the telemetry folder is empty inside, its lock out of reach: {v}");
    // Outside, it is all still there and the export goes on.
    assert!(lock.exists());
    let again = id(&run(&t, &env, "llm-read", &["notes.txt"]));
    eventually("the next span sent", ARRIVAL, || sink.to("/v1/traces").iter().any(|r| r.mentions(&again)));
}

#[test]
fn spans_a_forwarder_took_and_never_sent_are_counted_by_the_next() {
    let sink = OtlpSink::start();
    let t = TestDir::new();
    t.write("notes.txt", "alpha\n");
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())];
    let first = id(&run(&t, &env, "llm-read", &["notes.txt"]));
    // Sent, counted and settled: the forwarder is idle when it is killed.
    eventually("the first span sent and counted", ARRIVAL, || {
        let counted = aide_telemetry_state(t.home()).is_some_and(|s| s["exported_spans"] == 1);
        counted && records_in(t.home(), "in-flight") == 0 && sink.to("/v1/traces").iter().any(|r| r.mentions(&first))
    });
    let dir = export_dirs(t.home()).pop().expect("an export folder");
    let forwarders = || processes_with("__aide_otel_forward", &dir.display().to_string());
    // As a forwarder killed in the middle of an export leaves it: a record in flight.
    for pid in forwarders() {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }
    eventually("the forwarder gone", ARRIVAL, || forwarders().is_empty());
    // Later than a just-started forwarder is waited for before another starts.
    let _ = std::fs::remove_file(dir.join("forwarder.started"));
    std::fs::create_dir_all(dir.join("in-flight")).unwrap();
    std::fs::write(dir.join("in-flight/0190a1b2-0000-7000-8000-000000000000.json"), b"{}").unwrap();
    let second = id(&run(&t, &env, "llm-read", &["notes.txt"]));
    eventually("the stranded span counted, the next sent and nothing left in flight", ARRIVAL, || {
        let state = aide_telemetry_state(t.home()).unwrap_or_default();
        state["dropped_spans"] == 1 && state["exported_spans"] == 2 && records_in(t.home(), "in-flight") == 0
    });
    assert!(sink.to("/v1/traces").iter().any(|r| r.mentions(&second)));
}

#[test]
fn without_an_aide_executable_a_span_is_counted_lost_and_doctor_says_why() {
    let sink = OtlpSink::start();
    let t = TestDir::new();
    t.write("notes.txt", "alpha\n");
    // llm-read alone: no aide beside it or on PATH, so no forwarder can start.
    let lone = tempfile::tempdir().unwrap();
    std::fs::copy(aide_tests::bin_dir().join("llm-read"), lone.path().join("llm-read")).unwrap();
    let out = aide_tests::own_session(Command::new(lone.path().join("llm-read")))
        .args(["--json", "notes.txt"])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env("XDG_CONFIG_HOME", t.home().join("config"))
        .env("PATH", "/usr/bin:/bin")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["ok"], true, "the run is unaffected: {read}");
    assert_eq!(records_in(t.home(), "spool"), 0, "nothing left to pile up");
    let dir = export_dirs(t.home()).pop().expect("an export folder");
    let lost = std::fs::read_to_string(dir.join("lost-by-runs")).unwrap();
    assert_eq!(lost.lines().count(), 1, "{lost}");

    let doctor = run(&t, &[("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())], "aide", &["doctor"]);
    let check = doctor["checks"].as_array().unwrap().iter().find(|c| c["name"] == "telemetry").unwrap().clone();
    assert_eq!(check["status"], "warn", "{check}");
    assert!(check["detail"].as_str().unwrap().contains("1 never handed to a forwarder"), "{check}");
    assert!(check["fix"].as_str().unwrap().contains("aide executable on PATH"), "{check}");
}

#[test]
fn the_forwarder_and_a_job_s_supervisor_hold_none_of_their_caller_s_descriptors() {
    let sink = OtlpSink::start();
    let t = TestDir::new();
    let caller_dir = tempfile::tempdir().unwrap();
    let held = caller_dir.path().join("held-by-the-caller.txt");
    std::fs::write(&held, b"").unwrap();
    // The caller hands down descriptor 7 without close-on-exec, as a
    // harness's pipe or make's jobserver is.
    let tool = t.cmd("llm-jobs").env("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint());
    let mut caller = Command::new("bash");
    caller
        .arg("-c")
        .arg("exec 7>>\"$0\"; exec \"$@\"")
        .arg(&held)
        .arg(tool.cmd.get_program())
        .args(["--json", "spawn", "--", "sleep", "60"])
        .current_dir(t.root())
        .stdin(Stdio::null());
    for (k, v) in tool.cmd.get_envs() {
        match v {
            Some(v) => caller.env(k, v),
            None => caller.env_remove(k),
        };
    }
    let out = caller.output().unwrap();
    let spawn: Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = spawn["job_id"].as_i64().unwrap_or_else(|| panic!("{spawn}")).to_string();
    let home = t.home().display().to_string();
    eventually("the forwarder running", ARRIVAL, || !processes_with("__aide_otel_forward", &home).is_empty());
    let holders: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.parse::<u32>().is_ok()))
        .filter(|e| {
            std::fs::read_dir(e.path().join("fd"))
                .map(|fds| fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|to| to == held)))
                .unwrap_or(false)
        })
        .map(|e| {
            String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).unwrap_or_default()).replace('\0', " ")
        })
        .collect();
    run(&t, &[], "llm-jobs", &["kill", &job]);
    assert_eq!(holders, Vec::<String>::new(), "processes still holding the caller's descriptor");
    assert!(Path::new(&held).exists());
}

#[test]
fn a_kept_session_gives_each_command_its_own_run_s_trace_and_never_an_earlier_one() {
    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const CALLER: &str = "00f067aa0ba902b7";
    let sink = OtlpSink::start();
    let t = TestDir::new();
    let root = t.root().display().to_string();
    // Made under one trace, with export on…
    let old = "00-11111111111111111111111111111111-2222222222222222-01".to_string();
    let made = [("TRACEPARENT", old), ("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())];
    let session = run(&t, &made, "llm-shell", &["session", "new", "--cwd", &root]);
    let session = session["session_id"].as_str().unwrap_or_else(|| panic!("{session}")).to_string();
    let printenv = ["exec", "--session", &session, "--", "printenv TRACEPARENT; echo end"];

    // …a later command under another caller's trace is given its own run's span.
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint()), ("TRACEPARENT", format!("00-{TRACE}-{CALLER}-01"))];
    let exec = run(&t, &env, "llm-shell", &printenv);
    let printed = exec["stdout"].as_str().unwrap_or_default();
    let (line, rest) = printed.split_once('\n').unwrap_or_else(|| panic!("{exec}"));
    assert_eq!(rest, "end\n", "{exec}");
    let parts: Vec<&str> = line.split('-').collect();
    assert_eq!(parts.len(), 4, "{exec}");
    assert_eq!((parts[0], parts[1], parts[3]), ("00", TRACE, "01"), "the caller's trace: {exec}");
    assert!(parts[2] != CALLER && parts[2].len() == 16, "a span of the exec's own: {exec}");
    // The span it names is the exec run's, sent to the endpoint.
    let (id, span) = (id(&exec), hex(parts[2]));
    eventually("the exec's span sent", ARRIVAL, || {
        sink.to("/v1/traces").iter().any(|r| r.mentions(&id) && r.body.windows(8).any(|w| w == span.as_slice()))
    });

    // With no trace and no export, nothing: never the one it was made under.
    let plain = run(&t, &[], "llm-shell", &printenv);
    assert_eq!(plain["stdout"], "end\n", "{plain}");

    // A terminal's program is given the trace of the run that starts it.
    let line = "printf '<%s>\\n' \"$TRACEPARENT\"; sleep 30";
    let term = run(&t, &env, "llm-shell", &["term", "start", "--session", &session, "--", line]);
    let id = term["terminal_id"].as_str().unwrap_or_else(|| panic!("{term}")).to_string();
    let shown = run(&t, &[], "llm-shell", &["term", "read", &id, "--wait-for", ">", "--timeout", "10"]);
    let screen = shown["screen"].as_array().map(|l| l.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"));
    let screen = screen.unwrap_or_else(|| panic!("{shown}"));
    assert!(screen.contains(&format!("<00-{TRACE}-")), "{shown}");
    assert!(!screen.contains("1111111111"), "never the trace the session was made under: {shown}");
    run(&t, &[], "llm-shell", &["term", "close", &id]);
}

/// The bytes of a hex span id, as OTLP's protobuf carries them.
fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or(0)).collect()
}

#[test]
fn metrics_count_calls_errors_and_durations_per_tool_at_the_endpoint() {
    let sink = OtlpSink::start();
    let t = TestDir::new();
    t.write("notes.txt", "alpha\n");
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", sink.endpoint())];
    run(&t, &env, "llm-read", &["notes.txt"]);
    run(&t, &env, "llm-read", &["notes.txt"]);
    let failed = run(&t, &env, "llm-read", &["missing.txt"]);
    let code = failed["error"]["code"].as_str().unwrap_or_else(|| panic!("{failed}")).to_string();
    let of_read = |name: &str| -> Vec<Point> {
        sink.points(name).into_iter().filter(|p| p.attribute("gen_ai.tool.name") == Some("llm-read")).collect()
    };
    eventually("three calls counted at the endpoint", ARRIVAL, || cumulative_total(&of_read("aide.tool.calls")) == 3.0);
    let errors = of_read("aide.tool.errors");
    assert!(errors.iter().all(|p| p.attribute("error.type") == Some(code.as_str())), "{errors:?}");
    assert_eq!(cumulative_total(&errors), 1.0, "{errors:?}");
    let durations = of_read("aide.tool.duration");
    assert_eq!(cumulative_total(&durations), 3.0, "one duration per run: {durations:?}");

    // The same tool, counted the same by the local log: `aide log stats`
    // groups by the operation every point carries.
    assert!(durations.iter().all(|p| p.attribute("aide.operation") == Some("read")), "{durations:?}");
    let stats = run(&t, &[], "aide", &["log", "stats", "--tool", "read"]);
    let read = &stats["per_tool"][0];
    assert_eq!(
        (read["tool"].as_str(), read["runs"].as_u64(), read["errors"].as_u64()),
        (Some("read"), Some(3), Some(1))
    );
}
