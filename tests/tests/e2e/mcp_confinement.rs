//! aide mcp's roots and limits: redacted log records, a root swapped for a link mid-call, objects reached by id, commands over the limit, and large calls answered.

use aide_tests::TestDir;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

use crate::mcp::{checked_call, output_validators, server, with_roots};

/// Issue 32: a command holding a secret was logged as text that was no
/// longer JSON, and `log_show` answered without structured content.
#[test]
fn log_show_of_a_redacted_command_has_structured_content() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = server(&t);
    let v = output_validators(&mut client);
    let ran = checked_call(&mut client, &v, "shell_exec", json!({ "command": "echo \"token=abcdef\"" }), false);
    assert_eq!(ran["stdout"], "token=[REDACTED]\n", "{ran}");
    let id = ran["execution_id"].as_str().unwrap().to_string();
    let shown = client.call("log_show", json!({ "id": id }));
    let structured = &shown["structuredContent"];
    assert_eq!(structured["execution_id"], id.as_str(), "{shown}");
    assert_eq!(structured["command"], "echo \"token=[REDACTED]\"", "{shown}");
    assert!(!shown.to_string().contains("abcdef"), "{shown}");
}

/// Issue 31: with `roots=[R]`, swapping `R/sub` with a link to a folder
/// outside while calls name `root: "sub"` returned outside content (32–46
/// of 150 searches) and let a transform write outside. The roots are
/// opened once, and every call's root is opened beneath them with no link
/// followed: a call meets the folder or is refused, never the outside.
#[test]
fn a_root_swapped_for_a_link_mid_call_never_reaches_outside() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let t = TestDir::new();
    let root = t.root().join("r");
    t.write("r/sub/a.txt", "needle inside\n");
    t.write("outside/a.txt", "needle OUTSIDE\n");
    std::os::unix::fs::symlink(t.root().join("outside"), root.join("spare")).unwrap();
    let mut client = with_roots(&t, std::slice::from_ref(&root));
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    root.join("sub"),
                    rustix::fs::CWD,
                    root.join("spare"),
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let mut answered = 0;
    for i in 0..150 {
        for (tool, args) in [
            ("search", json!({ "pattern": "needle", "root": "sub" })),
            ("read", json!({ "paths": ["a.txt"], "root": "sub" })),
            ("discover", json!({ "root": "sub" })),
            (
                "transform",
                json!({ "root": "sub", "operations": [{ "op": "write", "path": format!("w{i}.txt"), "content": "x\n" }] }),
            ),
        ] {
            let result = client.call(tool, args);
            let text = result.to_string();
            assert!(!text.contains("OUTSIDE"), "{tool} reached outside: {text}");
            if result["isError"] != true {
                answered += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 100, "the swaps barely ran");
    assert!(answered > 0, "every call was refused: the test did not test the race");
    let written_outside: Vec<_> = std::fs::read_dir(t.root().join("outside"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('w'))
        .collect();
    assert!(written_outside.is_empty(), "a transform wrote outside the roots: {written_outside:?}");
}

/// Issue 31: `log_show` returned runs made outside the server's roots,
/// `jobs_logs` the output of jobs started outside them, `shell_exec` ran in
/// a session whose directory is outside them. Each is, to the server, none.
#[test]
fn objects_reached_by_id_stay_inside_the_roots() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("inside/a.txt", "needle\n");
    t.write("other/b.txt", "needle secret-other\n");
    let other = t.root().join("other");
    let cli = |tool: &str, args: &[&str]| -> Value {
        let out = std::process::Command::new(aide_tests::bin_dir().join(tool))
            .arg("--json")
            .args(args)
            .current_dir(&other)
            .env("AIDE_HOME", t.home())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let run = cli("llm-search", &["--pattern", "secret"]);
    let run_id = run["execution_id"].as_str().unwrap().to_string();
    let job = cli("llm-jobs", &["spawn", "--", "echo job-output-other"]);
    let job_id = job["job_id"].as_i64().unwrap();
    cli("llm-jobs", &["wait", &job_id.to_string()]);
    let session = cli("llm-shell", &["session", "new"]);
    let session_id = session["session_id"].as_str().unwrap().to_string();

    let mut client = with_roots(&t, &[t.root().join("inside")]);
    let own = client.call("search", json!({ "pattern": "needle" }));
    assert_eq!(own["isError"], false, "{own}");
    for (tool, args) in [
        ("log_show", json!({ "id": run_id })),
        ("jobs_logs", json!({ "id": job_id })),
        ("jobs_status", json!({ "id": job_id })),
        ("jobs_kill", json!({ "id": job_id })),
        ("shell_exec", json!({ "session": session_id, "command": "echo ran" })),
        ("shell_session_show", json!({ "id": session_id })),
    ] {
        let refused = client.call(tool, args);
        assert_eq!(refused["isError"], true, "{tool}: {refused}");
        assert_eq!(refused["structuredContent"]["error"]["code"], "not_found", "{tool}: {refused}");
    }
    let runs = client.call("log_list", json!({ "limit": 100 }));
    assert!(!runs.to_string().contains(&run_id), "log_list shows a run made outside: {runs}");
    let jobs = client.call("jobs_list", json!({}));
    assert_eq!(jobs["structuredContent"]["total_count"], 0, "{jobs}");
    let sessions = client.call("shell_session_list", json!({}));
    assert!(!sessions.to_string().contains(&session_id), "{sessions}");
    // What the server's own calls made stays reachable.
    let spawned = client.call("jobs_spawn", json!({ "command": "echo mine" }));
    let mine = spawned["structuredContent"]["job_id"].clone();
    client.call("jobs_wait", json!({ "ids": [mine] }));
    let logs = client.call("jobs_logs", json!({ "id": mine }));
    assert_eq!(logs["structuredContent"]["content"], "mine\n", "{logs}");
}

/// Issue 31: a 20 MiB `shell_check` through MCP ran past 120 s where the
/// command line cannot even carry it; the same limit now holds everywhere.
#[test]
fn a_command_over_the_limit_is_refused_at_once_through_mcp_and_the_cli() {
    let t = TestDir::new();
    let mut client = server(&t);
    let huge = "true; ".repeat(400_000);
    let started = Instant::now();
    for tool in ["shell_check", "shell_explain", "shell_exec"] {
        let refused = client.call(tool, json!({ "command": huge }));
        assert_eq!(refused["isError"], true, "{tool}");
        assert_eq!(refused["structuredContent"]["error"]["code"], "invalid_arguments", "{tool}");
    }
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    t.write("check.json", json!({ "command": { "check": { "command": huge } } }).to_string());
    let v: Value = t.cmd("llm-shell").args(["--request", "check.json"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
}

/// Issue 31: a 30 MiB transform through MCP got no answer (rmcp dropped a
/// message over 16 MiB unread); a message as large as a `--request`
/// document is read and answered.
#[test]
fn a_large_call_is_answered_not_dropped() {
    let t = TestDir::new();
    let mut client = server(&t);
    let content = "x".repeat(20 << 20);
    let result =
        client.call("transform", json!({ "operations": [{ "op": "write", "path": "big.txt", "content": content }] }));
    assert_eq!(result["isError"], false, "{}", &result.to_string()[..300.min(result.to_string().len())]);
    assert_eq!(std::fs::metadata(t.root().join("big.txt")).unwrap().len(), 20 << 20);
}
