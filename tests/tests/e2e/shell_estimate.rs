//! `llm-shell explain`'s estimate (and `shell_explain`'s): a command run
//! before through `llm-shell exec` in the same directory is given the time
//! of its last successful runs, read back here from `aide log` itself; one
//! never run has none, and says so.

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::shell::shell;

/// The command timed: it fails until `ready` exists.
const COMMAND: &str = "test -e ready && sleep 0.05";

fn exec(t: &TestDir, code: i32) {
    let out = t.cmd("llm-shell").args(["--json", "exec", "--", COMMAND]).output();
    assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The `execution_time_ms` of every successful exec of COMMAND, newest
/// first, as `aide log` shows the runs, with their ids.
fn logged_times(t: &TestDir) -> Vec<(String, f64)> {
    let list: Value = t.cmd("aide").args(["log", "list", "--tool", "llm-shell", "--limit", "100"]).json(0);
    let mut times = Vec::new();
    for run in list["runs"].as_array().unwrap() {
        let id = run["execution_id"].as_str().unwrap();
        let shown: Value = t.cmd("aide").args(["log", "show", id]).json(0);
        if shown["command"] == COMMAND && shown["exit_code"] == 0 {
            times.push((id.to_string(), shown["execution_time_ms"].as_f64().unwrap()));
        }
    }
    times
}

#[test]
fn explain_estimates_from_the_last_successful_runs_in_the_log() {
    let t = TestDir::new();
    exec(&t, 1); // a failed run does not count
    t.write("ready", "");
    for _ in 0..3 {
        exec(&t, 0);
    }
    let logged = logged_times(&t);
    assert_eq!(logged.len(), 3, "{logged:?}");
    let (min, max) = logged.iter().fold((f64::MAX, f64::MIN), |(lo, hi), (_, ms)| (lo.min(*ms), hi.max(*ms)));
    // Spelled with other blanks between its words, it is the same command.
    let v = shell(&t, &["explain", "--", "test -e ready   &&  sleep 0.05"], 0);
    let e = &v["estimate"];
    assert_eq!(e["runs"], 3, "{v}");
    let median = e["median_ms"].as_f64().unwrap();
    assert!(min - 0.001 <= median && median <= max + 0.001, "median {median} outside [{min}, {max}]: {v}");
    assert!((e["max_ms"].as_f64().unwrap() - max).abs() < 0.001 && (e["min_ms"].as_f64().unwrap() - min).abs() < 0.001);
    assert_eq!(e["last_execution_id"], logged[0].0.as_str(), "{v}");
    assert_eq!(v["no_estimate"], Value::Null);
    // The same log, the same estimate.
    assert_eq!(shell(&t, &["explain", "--", COMMAND], 0)["estimate"], *e);
    let (text, _) = t.cmd("llm-shell").args(["explain", "--", COMMAND]).expect_exit(0);
    assert!(text.contains("median of the last 3 successful runs"), "{text}");

    let v = shell(&t, &["explain", "--", "sleep 0.07"], 0);
    assert_eq!(v["estimate"], Value::Null, "{v}");
    assert!(v["no_estimate"].as_str().unwrap().contains("no successful run"), "{v}");
    let (text, _) = t.cmd("llm-shell").args(["explain", "--", "sleep 0.07"]).expect_exit(0);
    assert!(text.contains("estimated time: none"), "{text}");
}

#[test]
fn shell_explain_gives_the_estimate_over_mcp() {
    let t = TestDir::new();
    t.write("ready", "");
    exec(&t, 0);
    exec(&t, 0);
    let mut client = crate::mcp::server(&t);
    let v = crate::mcp::output_validators(&mut client);
    let doc = crate::mcp::checked_call(&mut client, &v, "shell_explain", json!({ "command": COMMAND }), false);
    assert_eq!(doc["estimate"]["runs"], 2, "{doc}");
    let doc = crate::mcp::checked_call(&mut client, &v, "shell_explain", json!({ "command": "make nothing" }), false);
    assert!(doc["estimate"].is_null(), "{doc}");
    assert!(doc.to_string().contains("no successful run"), "{doc}");
}
