//! The execution log: every run recorded, results retrievable exactly.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use aide_tests::TestDir;
use aide_tests::wire::{Envelope, Runs, SearchResult};

fn tree() -> TestDir {
    let t = TestDir::new();
    t.write("a.txt", "alpha beta\ngamma alpha\n");
    t
}

#[test]
fn a_usage_error_is_logged_from_the_very_first_run() {
    // A fresh AIDE_HOME: the first run may be one the arguments reject.
    let t = tree();
    let (_, stderr) = t.cmd("llm-search").arg("--bogus").expect_exit(2);
    assert!(stderr.contains("invalid_arguments"), "{stderr}");
    assert!(!stderr.contains("log_failed"), "{stderr}");
    let runs: Runs = t.cmd("aide").args(["log", "list"]).json::<Envelope<Runs>>(0).result;
    assert_eq!(runs.runs.len(), 1);
    assert_eq!((runs.runs[0].exit_code, runs.runs[0].ok), (2, false));
}

#[test]
fn log_show_returns_the_exact_document_the_tool_printed() {
    let t = tree();
    let (printed, _) = t.cmd("llm-search").args(["--pattern", "alpha", "--json"]).expect_exit(0);
    let env: Envelope<SearchResult> = serde_json::from_str(&printed).unwrap();
    let (shown, _) = t.cmd("aide").args(["log", "show", &env.execution_id, "--json"]).expect_exit(0);
    assert_eq!(shown, printed);
    // A unique prefix finds it too.
    let (shown, _) = t.cmd("aide").args(["log", "show", &env.execution_id[..13], "--json"]).expect_exit(0);
    assert_eq!(shown, printed);
}

#[test]
fn text_runs_store_their_json_result_and_failures_are_logged() {
    let t = tree();
    t.cmd("llm-search").args(["--pattern", "alpha"]).expect_exit(0);
    t.cmd("llm-search").args(["--pattern", "(", "--json"]).expect_exit(2);
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list"]).json(0);
    assert_eq!(runs.result.runs.len(), 2);
    let failed = &runs.result.runs[0];
    assert_eq!((failed.exit_code, failed.ok), (2, false));
    let ok = &runs.result.runs[1];
    assert_eq!(ok.exit_code, 0);
    let (doc, _) = t.cmd("aide").args(["log", "show", &ok.execution_id, "--json"]).expect_exit(0);
    let env: Envelope<SearchResult> = serde_json::from_str(&doc).unwrap();
    assert_eq!(env.result.total_matches, 2);
}

#[test]
fn no_log_flag_and_env_disable_logging() {
    let t = tree();
    t.cmd("llm-search").args(["--pattern", "alpha", "--no-log"]).expect_exit(0);
    t.cmd("llm-search").args(["--pattern", "alpha"]).env("AIDE_LOG", "off").expect_exit(0);
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list"]).json(1);
    assert!(runs.result.runs.is_empty());
}

#[test]
fn list_filters_by_tool_and_limit_and_unknown_ids_are_errors() {
    let t = tree();
    for _ in 0..3 {
        t.cmd("llm-search").args(["--pattern", "alpha"]).expect_exit(0);
    }
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list", "--limit", "2", "--tool", "llm-search"]).json(0);
    assert_eq!(runs.result.runs.len(), 2);
    let none: Envelope<Runs> = t.cmd("aide").args(["log", "list", "--tool", "llm-read"]).json(1);
    assert!(none.result.runs.is_empty());
    let e: aide_tests::wire::ErrorResult = t.cmd("aide").args(["log", "show", "0000000000"]).json(2);
    assert_eq!(e.error.code, "not_found");
    // An MCP tool's name finds its program's runs; a name of neither is refused, naming the closest.
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list", "--tool", "search"]).json(0);
    assert_eq!(runs.result.runs.len(), 3);
    let e: aide_tests::wire::ErrorResult = t.cmd("aide").args(["log", "list", "--tool", "serch"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.hint.as_deref().is_some_and(|h| h.contains("did you mean `search`?")), "{:?}", e.error.hint);
}

#[test]
fn oversized_results_are_capped_with_a_flag() {
    let t = tree();
    t.cmd("llm-search").args(["--pattern", "alpha"]).env("AIDE_LOG_MAX_RESULT_BYTES", "10").expect_exit(0);
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list"]).json(0);
    assert!(runs.result.runs[0].result_capped);
    let e: aide_tests::wire::ErrorResult =
        t.cmd("aide").args(["log", "show", &runs.result.runs[0].execution_id]).json(4);
    assert_eq!(e.error.code, "result_capped");
}

#[test]
fn prune_keeps_the_newest() {
    let t = tree();
    for _ in 0..4 {
        t.cmd("llm-search").args(["--pattern", "alpha"]).expect_exit(0);
    }
    let (out, _) = t.cmd("aide").args(["log", "prune", "--keep", "1"]).expect_exit(0);
    assert!(out.contains("removed 3 runs, 1 remain"), "{out}");
}

/// 200 processes logging at once lose no row.
#[test]
fn concurrent_processes_lose_no_row() {
    let t = tree();
    let bin = aide_tests::bin_dir().join("llm-search");
    let children: Vec<_> = (0..200)
        .map(|_| {
            Command::new(&bin)
                .args(["--pattern", "alpha", "--json", "--threads", "1"])
                .current_dir(t.root())
                .env("AIDE_HOME", t.home())
                .env_remove("AIDE_LOG")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let mut ids = BTreeSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("log_failed"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let env: Envelope<SearchResult> = serde_json::from_slice(&out.stdout).unwrap();
        ids.insert(env.execution_id);
    }
    assert_eq!(ids.len(), 200);
    let runs: Envelope<Runs> = t.cmd("aide").args(["log", "list", "--limit", "1000"]).json(0);
    let logged: BTreeSet<_> = runs.result.runs.into_iter().map(|r| r.execution_id).collect();
    assert_eq!(logged, ids);
}

#[test]
fn an_unwritable_log_is_a_diagnostic_not_a_failure() {
    let t = tree();
    // AIDE_HOME is a file, so the log cannot be created below it.
    let blocker = t.home().with_file_name("not-a-dir");
    std::fs::write(&blocker, "").unwrap();
    let (out, _) = t.cmd("llm-search").args(["--pattern", "alpha", "--json"]).env("AIDE_HOME", &blocker).expect_exit(0);
    let env: Envelope<SearchResult> = serde_json::from_str(&out).unwrap();
    assert_eq!(env.result.total_matches, 2);
    assert!(env.diagnostics.iter().any(|d| d.code == "log_failed"), "{:?}", env.diagnostics);
}

#[test]
fn aide_home_and_everything_under_it_is_private_and_stores_commands_redacted() {
    use std::os::unix::fs::PermissionsExt;
    let t = TestDir::new();
    t.write("a.txt", "old\n");
    let secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let s: serde_json::Value = t.cmd("llm-shell").args(["--json", "session", "new"]).json(0);
    let s = s["session_id"].as_str().unwrap().to_string();
    t.cmd("llm-shell")
        .args(["exec", "--session", &s, "--", &format!("export GITHUB_TOKEN={secret}; echo hi")])
        .expect_exit(0);
    t.cmd("llm-jobs").args(["spawn", "--", &format!("echo DB_PASSWORD=hunter2hunter2 TOKEN={secret}")]).expect_exit(0);
    t.cmd("llm-jobs").args(["wait", "--all"]).expect_exit(0);
    t.cmd("llm-transform")
        .args(["--request", "-"])
        .stdin(r#"{"operations": [{"op": "patch", "path": "a.txt", "old_text": "old", "new_text": "new"}]}"#)
        .expect_exit(0);
    t.cmd("llm-search").args(["--pattern", "new"]).expect_exit(0);
    let mut seen = 0;
    let mut stack = vec![t.home().to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{} is mode {mode:o}: readable by others", p.display());
        seen += 1;
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if meta.is_file() && !p.to_string_lossy().contains("state.sh") && !p.to_string_lossy().contains("/jobs/")
        {
            // (A live keeper's socket and report FIFO hold no bytes to read.)
            // Session state must keep exported values (it is private); the
            // perf history, the command file and the log store the command redacted.
            let bytes = std::fs::read(&p).unwrap();
            let hit = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!hit, "{} stores the secret in plain text", p.display());
        }
    }
    assert!(seen > 10, "only {seen} entries under AIDE_HOME");
}

/// Every secret shape in a command stays redacted in the log and the
/// stored document stays JSON (`aide log show --json | jq .`).
#[test]
fn logged_documents_stay_json_whatever_secret_their_commands_hold() {
    let t = TestDir::new();
    let shapes = [
        "echo \"token=abcdef\"",
        "PGPASSWORD=pgsecret99 psql -h db -c 'select 1' || true",
        "curl -u admin:curlpass42 http://127.0.0.1:9 || true",
        "mysql -u root -pMyPw1234 db || true",
        "sshpass -p sshpw5678 true || true",
        "echo 'Cookie: session=abcdef123456'",
        "echo wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "echo \"Authorization: Bearer abcdefghijklmnop123\"",
        "printf '%s\\n' '{\"password\": \"pw-in-json\\\\\"\"}'",
        "echo 'x=\"export AWS_SECRET_ACCESS_KEY=\"wJalrXUtnFEMI/K7\"'",
    ];
    let secrets = [
        "abcdef\\",
        "pgsecret99",
        "curlpass42",
        "MyPw1234",
        "sshpw5678",
        "abcdef123456",
        "wJalrXUtnFEMI",
        "abcdefghijklmnop123",
        "pw-in-json",
        "wJalrXUtnFEMI/K7",
    ];
    let jq = aide_tests::oracle("jq", "the stored documents through jq");
    for (command, secret) in shapes.iter().zip(secrets) {
        let out = t.cmd("llm-shell").args(["--json", "exec", "--", command]).output();
        let out = String::from_utf8_lossy(&out.stdout);
        let id = serde_json::from_str::<serde_json::Value>(&out).unwrap()["execution_id"].as_str().unwrap().to_string();
        let (shown, _) = t.cmd("aide").args(["log", "show", &id, "--json"]).expect_exit(0);
        let parsed: serde_json::Value =
            serde_json::from_str(&shown).unwrap_or_else(|e| panic!("{command}: not JSON ({e}): {shown}"));
        assert!(!shown.contains(secret), "{command}: the log keeps {secret}: {shown}");
        assert_eq!(parsed["ok"], true, "{command}: {parsed}");
        if jq {
            let out =
                Command::new("jq").arg(".").stdin(Stdio::piped()).stdout(Stdio::null()).spawn().and_then(|mut c| {
                    use std::io::Write as _;
                    c.stdin.take().unwrap().write_all(shown.as_bytes())?;
                    c.wait()
                });
            assert!(out.unwrap().success(), "{command}: jq refuses {shown}");
        }
    }
}

/// Issue 31: 36 of 47 runs killed just after printing their output were
/// missing from the log. A run is now recorded before it prints, and a
/// provisional record stands from its start, so a run killed at any point
/// is in the log: with its result, or as unfinished.
#[test]
fn a_run_killed_after_its_output_or_mid_work_is_in_the_log() {
    use std::io::Read;
    let t = TestDir::new();
    t.write("a.txt", "alpha\n");
    // Killed with SIGKILL as soon as its first bytes arrive.
    let mut child = Command::new(aide_tests::bin_dir().join("llm-search"))
        .args(["--pattern", "alpha", "--json"])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = vec![0u8; 120];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let head = String::from_utf8_lossy(&head);
    let id = head.split("\"execution_id\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let shown: serde_json::Value = t.cmd("aide").args(["log", "show", &id]).json(0);
    assert_eq!(shown["total_matches"], 1, "{shown}");

    // Killed mid-work: there as unfinished.
    let mut child = Command::new(aide_tests::bin_dir().join("llm-search"))
        .args(["--pattern", "alpha"])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env("AIDE_TEST_STALL_MS", "10000")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _ = child.kill();
    let _ = child.wait();
    let runs: serde_json::Value = t.cmd("aide").args(["log", "list", "--limit", "1"]).json(0);
    let run = &runs["runs"][0];
    assert_eq!(run["error_code"], "unfinished", "{runs}");
    let id = run["execution_id"].as_str().unwrap();
    let shown: serde_json::Value = t.cmd("aide").args(["log", "show", id]).json(2);
    assert_eq!(shown["error"]["code"], "not_found", "{shown}");
    assert!(shown["error"]["message"].as_str().unwrap().contains("killed or crashed"), "{shown}");
}
