//! llm-shell's terminals: interactive programs on a pseudo-terminal, driven
//! call by call (start, send, read, close), CLI and MCP.

use std::time::{Duration, Instant};

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::shell::{new_session, shell};

fn screen(v: &Value) -> String {
    v["screen"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n")
}

fn start(t: &TestDir, session: &str, command: &[&str]) -> Value {
    let mut args = vec!["term", "start", "--session", session, "--"];
    args.extend_from_slice(command);
    shell(t, &args, 0)
}

/// Types into a terminal: its screen and the text since the last read,
/// once the program is quiet.
fn send(t: &TestDir, id: &str, text: Option<&str>, keys: &[&str]) -> Value {
    let mut args = vec!["term", "send", id];
    if let Some(text) = text {
        args.extend(["--text", text]);
    }
    for k in keys {
        args.extend(["--key", k]);
    }
    shell(t, &args, 0)
}

fn read_until(t: &TestDir, id: &str, pattern: &str) -> Value {
    shell(t, &["term", "read", id, "--wait-for", pattern, "--timeout", "10"], 0)
}

#[test]
fn a_python_repl_is_a_real_terminal_and_takes_ctrl_c_and_ctrl_d() {
    if !aide_tests::have("python3") {
        aide_tests::skip("python3", "a python3 REPL on a terminal");
        return;
    }
    let t = TestDir::new();
    let s = new_session(&t);
    let started = start(&t, &s, &["python3", "-q"]);
    let id = started["terminal_id"].as_str().unwrap().to_string();
    assert!(id.starts_with(&format!("{s}.t")), "{started}");
    send(&t, &id, Some("6*7"), &["Enter"]);
    let r = read_until(&t, &id, "(?m)^42$");
    assert_eq!(r["matched"], true, "{r}");
    assert!(screen(&r).contains(">>> 6*7\n42"), "{r}");
    let sent = send(&t, &id, Some("import os, time; print(os.isatty(0), os.isatty(1))"), &["Enter"]);
    let r = read_until(&t, &id, "True True");
    assert_eq!(r["matched"], true, "stdin and stdout are a tty: {r}");
    // The send answered the text printed since the last read, with its screen.
    let said = format!("{}{}", sent["output"].as_str().unwrap(), r["output"].as_str().unwrap());
    assert!(said.contains("True True\n"), "the text since the last read: {sent} {r}");

    send(&t, &id, Some("time.sleep(100)"), &["Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    let pressed = Instant::now();
    send(&t, &id, None, &["Ctrl-C"]);
    let r = read_until(&t, &id, "KeyboardInterrupt");
    assert_eq!(r["matched"], true, "{r}");
    assert!(pressed.elapsed() < Duration::from_secs(2), "Ctrl-C took {:?}", pressed.elapsed());
    assert_eq!(r["exited"], false);

    send(&t, &id, None, &["Ctrl-D"]);
    let r = shell(&t, &["term", "read", &id, "--timeout", "5"], 0);
    assert_eq!(r["exited"], true, "Ctrl-D ends the REPL: {r}");
    let listed = shell(&t, &["term", "list", "--session", &s], 0);
    assert_eq!(listed["terminals"][0]["exited"], true, "{listed}");
    let closed = shell(&t, &["term", "close", &id], 0);
    assert_eq!(closed["closed"], id.as_str());
    let v = shell(&t, &["term", "read", &id], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
}

#[test]
fn a_prompt_is_answered_and_a_full_screen_program_pages_and_quits() {
    let t = TestDir::new();
    let s = new_session(&t);
    // The session's functions and aliases, not only its variables.
    crate::shell::exec(&t, &s, "greet() { echo \"hello $1\"; }; alias shout='tr a-z A-Z <<<'");
    let r = start(&t, &s, &["read -p 'Name? ' n; greet \"$n\"; shout quiet; sleep 0.2"]);
    let id = r["terminal_id"].as_str().unwrap().to_string();
    let r = read_until(&t, &id, "Name\\? ");
    assert_eq!(r["matched"], true, "{r}");
    send(&t, &id, Some("bob"), &["Enter"]);
    let r = read_until(&t, &id, "QUIET");
    assert_eq!(r["matched"], true, "{r}");
    assert!(screen(&r).contains("hello bob"), "{r}");
    // A match, then the quiet spell after it: what follows the match shortly is read too.
    let r = start(&t, &s, &["echo ready; sleep 0.2; echo settled; sleep 30"]);
    let id2 = r["terminal_id"].as_str().unwrap().to_string();
    let r = shell(&t, &["term", "read", &id2, "--wait-for", "ready", "--quiet-ms", "1500", "--timeout", "20"], 0);
    assert_eq!(r["matched"], true, "{r}");
    assert!(screen(&r).contains("settled"), "{r}");
    shell(&t, &["term", "close", &id2], 0);

    if !aide_tests::have("less") {
        aide_tests::skip("less", "a full-screen program on a terminal");
        return;
    }
    let lines: String = (1..=200).map(|n| format!("line {n}\n")).collect();
    t.write("long.txt", &lines);
    let r = shell(&t, &["term", "start", "--session", &s, "--rows", "10", "--cols", "40", "--", "less", "long.txt"], 0);
    let id = r["terminal_id"].as_str().unwrap().to_string();
    let r = read_until(&t, &id, "line 9");
    assert_eq!((r["rows"].as_u64(), r["cols"].as_u64()), (Some(10), Some(40)));
    assert_eq!(r["screen"][0], "line 1", "{r}");
    assert_eq!(r["alternate_screen"], true, "{r}");
    send(&t, &id, None, &["PageDown"]);
    let r = read_until(&t, &id, "line 18");
    assert_eq!(r["screen"][0], "line 10", "one page down: {r}");
    send(&t, &id, Some("q"), &[]);
    let r = shell(&t, &["term", "read", &id, "--timeout", "5"], 0);
    assert_eq!((r["exited"].as_bool(), r["exit_code"].as_i64()), (Some(true), Some(0)), "{r}");
    assert_eq!(r["alternate_screen"], false, "{r}");
}

#[test]
fn terminals_end_with_their_session_and_refuse_bad_input() {
    let t = TestDir::new();
    let s = new_session(&t);
    let marker = format!("sleep 49.{}", std::process::id());
    let r = start(&t, &s, &[&format!("{marker} & {marker}")]);
    let id = r["terminal_id"].as_str().unwrap().to_string();
    aide_tests::eventually("the terminal's command to start", Duration::from_secs(10), || {
        aide_tests::processes_with_cmdline(&marker).len() >= 2
    });
    let v = shell(&t, &["term", "send", &id, "--key", "Hyper"], 2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("PageDown"), "{v}");
    let v = shell(&t, &["term", "send", &id], 2);
    assert_eq!(v["error"]["code"], "invalid_arguments");
    let v = shell(&t, &["term", "start", "--session", &s, "--rows", "0", "--", "true"], 2);
    assert_eq!(v["error"]["details"]["field"], "rows", "{v}");
    let v = shell(&t, &["term", "start", "--session", &s, "--max-risk", "low", "--", "rm -rf /tmp/x"], 3);
    assert_eq!(v["error"]["code"], "risk_denied", "{v}");
    let v = shell(&t, &["term", "read", "s-nothere.t1"], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    shell(&t, &["session", "rm", &s], 0);
    aide_tests::eventually("the terminal's processes to end with its session", Duration::from_secs(10), || {
        aide_tests::processes_with_cmdline(&marker).is_empty()
    });
}

#[test]
fn terminals_through_mcp() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = aide_tests::mcp::McpClient::start(t.root(), t.home(), &[]).handshake(json!({}));
    let started = client.call("term_start", json!({ "command": "read -p 'ready> ' x; echo got:$x" }));
    assert_eq!(started["isError"], false, "{started}");
    let id = started["structuredContent"]["terminal_id"].as_str().unwrap().to_string();
    let sent = client.call("term_send", json!({ "terminal_id": id, "text": "yes", "keys": ["Enter"] }));
    assert_eq!(sent["isError"], false, "{sent}");
    let read = client.call("term_read", json!({ "terminal_id": id, "wait_for": "got:yes" }));
    assert_eq!(read["structuredContent"]["matched"], true, "{read}");
    let closed = client.call("term_close", json!({ "terminal_id": id }));
    assert_eq!(closed["isError"], false, "{closed}");
}

/// Runs `args` of llm-shell (`--json` first) as its own process and
/// answers its JSON and exit code; a call still running after `limit` (it
/// hung: a keeper that waits on another terminal) fails the test.
fn shell_within(t: &TestDir, args: &[&str], limit: Duration) -> (Value, i32) {
    let mut child = t
        .cmd("llm-shell")
        .arg("--json")
        .args(args)
        .cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("llm-shell {args:?} still waited after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (v, out.status.code().unwrap())
}

/// A size past what a terminal holds killed the keeper (65535 × 65535
/// cells and their scrollback): refused with the range, CLI and MCP, and
/// the session's other terminals live on.
#[test]
fn terminal_sizes_are_bounded_and_a_huge_one_is_refused_with_the_range() {
    let t = TestDir::new();
    let s = new_session(&t);
    let cat = start(&t, &s, &["cat"])["terminal_id"].as_str().unwrap().to_string();
    for (flag, value) in [("--rows", "65535"), ("--cols", "501"), ("--rows", "0")] {
        let v = shell(&t, &["term", "start", "--session", &s, flag, value, "--", "true"], 2);
        assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(&format!("{flag} must be 1 to 500")), "{v}");
        assert_eq!(v["error"]["details"]["field"], &flag[2..], "{v}");
    }
    let v = shell(&t, &["term", "resize", &cat, "--rows", "65535", "--cols", "65535"], 2);
    assert_eq!(v["error"]["details"]["max"], 500, "{v}");
    let r = shell(&t, &["term", "start", "--session", &s, "--rows", "500", "--cols", "500", "--", "echo big"], 0);
    assert_eq!((r["rows"].as_u64(), r["cols"].as_u64()), (Some(500), Some(500)), "{r}");
    send(&t, &cat, Some("still here"), &["Enter"]);
    assert_eq!(read_until(&t, &cat, "still here")["matched"], true, "the keeper and its terminal live on");

    let mut client = aide_tests::mcp::McpClient::start(t.root(), t.home(), &[]).handshake(json!({}));
    let r = client.call("term_start", json!({ "command": "true", "rows": 65535, "cols": 65535 }));
    assert_eq!(r["isError"], true, "{r}");
    let error = &r["structuredContent"]["error"];
    assert_eq!((error["code"].as_str(), error["details"]["field"].as_str()), (Some("invalid_arguments"), Some("rows")));
    assert!(error["hint"].as_str().unwrap().contains("1 to 500 rows and 1 to 500 columns"), "{r}");
}

/// A program that does not read (a raw terminal, asleep) is typed at until
/// what waits for it is full: each send answers at once (the last with
/// `conflict` and why), and the session's other terminal answers meanwhile.
#[test]
fn a_send_to_a_program_that_does_not_read_blocks_no_other_terminal() {
    let t = TestDir::new();
    let s = new_session(&t);
    let echo = start(&t, &s, &["cat"])["terminal_id"].as_str().unwrap().to_string();
    let jam = start(&t, &s, &["stty raw -echo; echo ready; sleep 600"])["terminal_id"].as_str().unwrap().to_string();
    assert_eq!(read_until(&t, &jam, "ready")["matched"], true);
    let text = "x".repeat(32 * 1024);
    let mut refused = None;
    for _ in 0..40 {
        let (v, code) = shell_within(&t, &["term", "send", &jam, "--text", &text], Duration::from_secs(60));
        if code != 0 {
            refused = Some(v);
            break;
        }
    }
    let refused = refused.expect("the input of a program that does not read is bounded");
    assert_eq!(refused["error"]["code"], "conflict", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("is not reading its input"), "{refused}");
    let (v, _) =
        shell_within(&t, &["term", "send", &echo, "--text", "pong", "--key", "Enter"], Duration::from_secs(60));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(read_until(&t, &echo, "pong")["matched"], true);
    let (listed, _) = shell_within(&t, &["term", "list", "--session", &s], Duration::from_secs(60));
    assert_eq!(listed["terminals"].as_array().unwrap().len(), 2, "{listed}");
    shell(&t, &["term", "close", &jam], 0);
}

/// One client reads a terminal, waiting for a line, while another types
/// lines into it: the second never finds the terminal missing (it was
/// taken out of the keeper's list while a read waited: `not_found`).
#[test]
fn concurrent_clients_see_the_same_terminal() {
    let t = TestDir::new();
    let s = new_session(&t);
    let id = start(&t, &s, &["cat"])["terminal_id"].as_str().unwrap().to_string();
    let reader = t
        .cmd("llm-shell")
        .args(["--json", "term", "read", &id, "--wait-for", "ping-20", "--timeout", "120"])
        .cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for n in 1..=20 {
        let (v, code) = shell_within(
            &t,
            &["term", "send", &id, "--text", &format!("ping-{n}"), "--key", "Enter"],
            Duration::from_secs(60),
        );
        assert_eq!((code, &v["ok"]), (0, &json!(true)), "send {n} during another client's read: {v}");
    }
    let out = reader.wait_with_output().unwrap();
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["matched"], true, "{read}");
}
