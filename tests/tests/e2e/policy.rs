//! `aide mcp`'s policy as a client meets it: tools it may not call are not
//! listed and are refused with `not_allowed`, or asked of the user by
//! elicitation; calls that come too fast are refused with when to come
//! back; a shell command above the server's risk never runs, whatever the
//! call asks; a call past the time limit is stopped with `timeout`.

use std::time::{Duration, Instant};

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

fn listed(client: &mut McpClient) -> Vec<String> {
    let listed = client.request("tools/list", json!({}));
    listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

fn code(result: &Value) -> &str {
    result["structuredContent"]["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn allow_auto_offers_and_runs_only_read_only_tools() {
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let mut client = McpClient::initialized(t.root(), t.home(), &["--allow", "auto"], json!({}));
    let names = listed(&mut client);
    assert!(names.contains(&"read".to_string()) && names.contains(&"search".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n == "transform" || n == "shell_exec" || n == "jobs_spawn"), "{names:?}");
    let r = client.call("read", json!({"paths": "a.txt"}));
    assert_eq!(r["isError"], false, "{r}");
    let r = client.call("transform", json!({"operations": [{"op": "write", "path": "a.txt", "content": "two\n"}]}));
    assert_eq!((r["isError"].as_bool(), code(&r)), (Some(true), "not_allowed"), "{r}");
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "one\n", "nothing written");
}

#[test]
fn confirm_gated_asks_the_user_and_runs_only_what_they_allow() {
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let args = ["--allow", "auto", "--confirm", "gated"];
    let mut client = McpClient::initialized(t.root(), t.home(), &args, json!({"elicitation": {}}));
    assert!(listed(&mut client).contains(&"transform".to_string()), "asked, so offered");
    let write = json!({"name": "transform", "arguments": {"operations": [{"op": "write", "path": "b.txt", "content": "two\n"}]}});
    for (answer, allowed) in [
        (json!({"action": "decline"}), false),
        (json!({"action": "accept", "content": {"allow": false}}), false),
        (json!({"action": "accept", "content": {"allow": true}}), true),
    ] {
        let id = client.start_request("tools/call", write.clone());
        let asked = client.wait_for("the confirmation", |m| m["method"] == "elicitation/create");
        let message = asked["params"]["message"].as_str().unwrap();
        assert!(message.contains("transform") && message.contains("b.txt"), "{message}");
        client.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}));
        let r = client.reply(id)["result"].clone();
        assert_eq!(t.root().join("b.txt").is_file(), allowed, "{answer}: {r}");
        if !allowed {
            assert_eq!(code(&r), "not_allowed", "{r}");
        }
    }
    // A client that cannot be asked is refused.
    let mut plain = McpClient::initialized(t.root(), t.home(), &args, json!({}));
    let r = plain.call("transform", json!({"operations": [{"op": "write", "path": "c.txt", "content": "three\n"}]}));
    assert_eq!(code(&r), "not_allowed", "{r}");
}

#[test]
fn calls_past_the_rate_are_refused_with_when_to_call_again() {
    let t = TestDir::new();
    let mut client = McpClient::initialized(t.root(), t.home(), &["--rate", "2/s"], json!({}));
    let results: Vec<Value> = (0..3).map(|_| client.call("discover", json!({}))).collect();
    assert_eq!(results[0]["isError"], false);
    let refused = &results[2];
    assert_eq!(code(refused), "rate_limited", "{refused}");
    let after = refused["structuredContent"]["error"]["details"]["retry_after_ms"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(after + 50));
    let r = client.call("discover", json!({}));
    assert_eq!(r["isError"], false, "after the wait: {r}");
}

#[test]
fn the_servers_max_risk_holds_whatever_a_call_asks() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("keep.txt", "x\n");
    let mut client = McpClient::initialized(t.root(), t.home(), &["--max-risk", "low"], json!({}));
    for arguments in [json!({"command": "rm keep.txt"}), json!({"command": "rm keep.txt", "max_risk": "critical"})] {
        let r = client.call("shell_exec", arguments.clone());
        assert_eq!(code(&r), "risk_denied", "{arguments}: {r}");
    }
    assert!(t.root().join("keep.txt").is_file());
    let r = client.call("shell_exec", json!({"command": "cat keep.txt"}));
    assert_eq!(r["structuredContent"]["stdout"], "x\n", "{r}");
}

#[test]
fn a_call_past_the_time_limit_is_stopped_as_a_timeout() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = McpClient::initialized(t.root(), t.home(), &["--call-timeout", "1"], json!({}));
    let started = Instant::now();
    let r = client.call("shell_exec", json!({"command": "sleep 30"}));
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert_eq!((r["isError"].as_bool(), code(&r)), (Some(true), "timeout"), "{r}");
    let r = client.call("shell_exec", json!({"command": "echo fast"}));
    assert_eq!(r["structuredContent"]["stdout"], "fast\n", "{r}");
}

/// `--call-timeout` past what a duration holds panicked (1e300), and 0 or
/// less meant no limit without a word: both are refused before serving.
#[test]
fn a_call_timeout_out_of_range_is_refused_before_serving() {
    let t = TestDir::new();
    for value in ["1e300", "0", "-1", "NaN"] {
        let out = t.cmd("aide").args(["mcp", &format!("--call-timeout={value}")]).output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--call-timeout={value}: {stderr}");
        assert!(stderr.contains("--call-timeout must be a positive number of seconds"), "{value}: {stderr}");
        assert!(!stderr.contains("panicked"), "{value}: {stderr}");
    }
}

/// Every command line a call can send to a shell is held to the server's
/// `--max-risk`, not only shell_exec's: a transform's verify_command,
/// shell_compare's command, a job's command, argv and variables, a
/// session's variables. Refused as `risk_denied` naming the tool and the
/// argument; nothing ran.
#[test]
fn max_risk_covers_every_command_line_a_call_can_send() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("keep.txt", "x\n");
    let mut client = McpClient::initialized(t.root(), t.home(), &["--max-risk", "low"], json!({}));
    let calls = [
        (
            "transform",
            json!({"operations": [{"op": "write", "path": "new.txt", "content": "y\n"}], "verify_command": "rm keep.txt"}),
            "verify_command",
        ),
        (
            "shell_compare",
            json!({"baseline": "HEAD", "command": "rm keep.txt", "iterations": 2, "warmup": 0}),
            "command",
        ),
        ("shell_compare", json!({"baseline": "HEAD"}), "command"),
        ("jobs_spawn", json!({"command": "rm keep.txt"}), "command"),
        ("jobs_spawn", json!({"argv": ["rm", "keep.txt"]}), "argv"),
        ("jobs_spawn", json!({"command": "ls", "env": ["BASH_ENV=./evil.sh"]}), "env"),
        ("shell_session_new", json!({"env": ["LD_PRELOAD=./evil.so"]}), "env"),
    ];
    for (tool, arguments, field) in calls {
        let r = client.call(tool, arguments.clone());
        assert_eq!(code(&r), "risk_denied", "{tool} {arguments}: {r}");
        let error = &r["structuredContent"]["error"];
        assert_eq!((error["details"]["tool"].as_str(), error["details"]["field"].as_str()), (Some(tool), Some(field)));
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{tool}`'s `{field}`")) && message.contains("max_risk low"), "{r}");
    }
    assert!(t.root().join("keep.txt").is_file(), "nothing ran");
    assert!(!t.root().join("new.txt").exists(), "the transform did not run");
    // What is rated low runs.
    let r = client.call(
        "transform",
        json!({"operations": [{"op": "write", "path": "new.txt", "content": "y\n"}], "verify_command": "cat keep.txt"}),
    );
    assert_eq!(r["isError"], false, "{r}");
}

/// Text typed into a terminal cannot be rated (the program reading it may
/// run anything): under a cap below critical, term_send is refused, while
/// a terminal still starts (its command rated), is read and is closed.
#[test]
fn text_typed_into_a_terminal_is_refused_below_critical() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = McpClient::initialized(t.root(), t.home(), &["--max-risk", "high"], json!({}));
    let started = client.call("term_start", json!({"command": "bash --norc"}));
    assert_eq!(started["isError"], false, "{started}");
    let id = started["structuredContent"]["terminal_id"].as_str().unwrap().to_string();
    for arguments in [
        json!({"terminal_id": id, "text": "touch typed", "keys": ["Enter"]}),
        json!({"terminal_id": id, "keys": ["Up", "Enter"]}),
    ] {
        let r = client.call("term_send", arguments.clone());
        assert_eq!(code(&r), "risk_denied", "{arguments}: {r}");
        let message = r["structuredContent"]["error"]["message"].as_str().unwrap();
        assert!(message.contains("`term_send` types into a program") && message.contains("max_risk high"), "{r}");
    }
    let read = client.call("term_read", json!({"terminal_id": id, "quiet_ms": 200}));
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(client.call("term_close", json!({"terminal_id": id}))["isError"], false);
    assert!(!t.root().join("typed").exists(), "nothing was typed");
    // Under critical, typing is the operator's choice.
    let mut open = McpClient::initialized(t.root(), t.home(), &["--max-risk", "critical"], json!({}));
    let started = open.call("term_start", json!({"command": "bash --norc"}));
    let id = started["structuredContent"]["terminal_id"].as_str().unwrap().to_string();
    let r = open
        .call("term_send", json!({"terminal_id": id, "text": "touch typed; echo done-$((6*7))", "keys": ["Enter"]}));
    assert_eq!(r["isError"], false, "{r}");
    let r = open.call("term_read", json!({"terminal_id": id, "wait_for": "done-42"}));
    assert_eq!(r["structuredContent"]["matched"], true, "{r}");
    open.call("term_close", json!({"terminal_id": id}));
    assert!(t.root().join("typed").exists(), "typed under critical");
}
