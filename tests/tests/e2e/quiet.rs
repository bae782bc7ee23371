//! Quiet by default (issue 49, items 3 and 4): expected skips (binary
//! files, links not followed, FIFOs) are counted in `stats.skipped`, never
//! warned on every call; what changes the answer is still warned; no text
//! points to content a reader of the text cannot see; text that leaves
//! something out says what and how to get it, in the caller's words.

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

fn server(t: &TestDir) -> McpClient {
    McpClient::initialized(t.root(), t.home(), &[], json!({}))
}

/// The text block of an MCP result.
fn text_of(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {result}")).to_string()
}

/// A tree with what every search passes over: binaries, a link to a file
/// and to a folder, a broken link, a FIFO.
fn tree_with_skips() -> TestDir {
    let t = TestDir::new();
    t.write("src/a.rs", "fn needle() {}\n").write("docs/b.md", "needle\n");
    for name in ["img/a.png", "img/b.png", "lib.so", "x.pyc", "y.pyc"] {
        t.write(name, b"\x89PNG\x00\x00needle".as_slice());
    }
    std::os::unix::fs::symlink("src/a.rs", t.root().join("link.rs")).unwrap();
    std::os::unix::fs::symlink("src", t.root().join("src-link")).unwrap();
    std::os::unix::fs::symlink("nowhere", t.root().join("dangling")).unwrap();
    let fifo = t.root().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    t
}

const SKIPPED: &str = r#"{"binary_file":5,"symlink_not_followed":2,"broken_symlink":1,"not_a_regular_file":1}"#;

fn json_of(t: &TestDir, tool: &str, args: &[&str]) -> Value {
    let (out, _) = t.cmd(tool).args(args).arg("--json").expect_exit(0);
    serde_json::from_str(&out).unwrap()
}

#[test]
fn expected_skips_are_counted_in_stats_and_never_warned_on_the_command_line() {
    let t = tree_with_skips();
    // Text: the answer alone, as rg gives it; stderr has nothing to say.
    let (text, stderr) = t.cmd("llm-search").args(["--pattern", "needle"]).expect_exit(0);
    assert_eq!(text, "docs/b.md:1:1: needle\nsrc/a.rs:1:4: fn needle() {}\n");
    assert_eq!(stderr, "", "nothing warned for what rg skips silently");
    // JSON: no diagnostics, the skips counted.
    let v = json_of(&t, "llm-search", &["--pattern", "needle"]);
    assert_eq!(v["diagnostics"], json!([]));
    assert_eq!(v["stats"]["skipped"], serde_json::from_str::<Value>(SKIPPED).unwrap());
    // The same for the syntax engine and the file finder.
    let v = json_of(&t, "llm-ast-search", &[]);
    assert_eq!(v["diagnostics"], json!([]), "{v}");
    assert_eq!(v["stats"]["skipped"]["symlink_not_followed"], 2, "{v}");
    let (_, stderr) = t.cmd("llm-ast-search").expect_exit(0);
    assert_eq!(stderr, "");
    let out = t.cmd("llm-discover").args(["--glob", "*.rs"]).output();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "discover warns of nothing it skipped");
    // A run with nothing skipped has no `skipped` at all.
    let clean = TestDir::new();
    clean.write("a.txt", "needle\n");
    let v = json_of(&clean, "llm-search", &["--pattern", "needle"]);
    assert!(v["stats"].get("skipped").is_none(), "{v}");
}

#[test]
fn what_changes_the_answer_is_still_warned() {
    let t = TestDir::new();
    t.write("ok.txt", "needle\n").write("big.txt", format!("needle\n{}", "x".repeat(5000)));
    let (_, stderr) = t.cmd("llm-search").args(["--pattern", "needle", "--max-filesize", "1K"]).expect_exit(0);
    assert!(stderr.starts_with("llm-search: warning[file_too_large]: big.txt: "), "{stderr}");
}

#[test]
fn over_mcp_the_text_has_no_skip_warnings_and_never_points_to_structured_content() {
    let t = tree_with_skips();
    let mut client = server(&t);
    let result = client.call("search", json!({ "pattern": "needle" }));
    let text = text_of(&result);
    assert_eq!(text, "docs/b.md:1:1: needle\nsrc/a.rs:1:4: fn needle() {}\n");
    if let Some(doc) = result.get("structuredContent").filter(|d| !d.is_null()) {
        assert_eq!(doc["diagnostics"], json!([]), "{doc}");
    }
    // Warnings that stay list their files in the text itself.
    for i in 0..8 {
        t.write(&format!("big{i}.txt"), format!("needle\n{}", "x".repeat(5000)));
    }
    let result = client.call("search", json!({ "pattern": "needle", "max_filesize": 1000 }));
    let text = text_of(&result);
    assert!(!text.contains("structured content"), "{text}");
    assert!(
        text.contains("warning[file_too_large]: 8 files, first big0.txt: ")
            && text.contains("(others: big1.txt, big2.txt, big3.txt, big4.txt, big5.txt, … and 2 more)"),
        "{text}"
    );
}

/// Runs llm-jobs with `--json` first (after `--` it would join the command).
fn jobs(t: &TestDir, args: &[&str], code: i32) -> Value {
    let (stdout, _) = t.cmd("llm-jobs").arg("--json").args(args).expect_exit(code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The command of a job that prints 10,000 lines of a build's output on
/// stdout and on stderr.
const CHATTY: &str = "seq -f 'line %g of a build that says a great deal about each step' 1 10000; \
                      seq -f 'line %g of a build that says a great deal about each step' 1 10000 >&2";

/// A finished job of [`CHATTY`].
fn chatty_job(t: &TestDir) -> i64 {
    let id = jobs(t, &["spawn", "--", CHATTY], 0)["job_id"].as_i64().unwrap();
    jobs(t, &["wait", &id.to_string(), "--timeout", "60"], 0);
    id
}

/// What [`CHATTY`] prints on each stream, its first `n` lines.
fn chatty(n: u32) -> String {
    (1..=n).map(|i| format!("line {i} of a build that says a great deal about each step\n")).collect()
}

#[test]
fn a_wait_answers_a_short_tail_and_says_how_to_read_the_rest() {
    let t = TestDir::new();
    let id = chatty_job(&t);
    let s = id.to_string();
    let total = chatty(10000).len();
    // What a wait answered before: 50 lines of each stream.
    let asked = jobs(&t, &["wait", &s, "--max-output-bytes", "1000000"], 0);
    let fifty = &chatty(10000)[chatty(9950).len()..];
    assert_eq!(asked["jobs"][0]["stdout"], fifty, "the 50 lines of --tail, when that many bytes are asked for");
    let v = jobs(&t, &["wait", &s], 0);
    println!(
        "wait --json: {} bytes by default, {} with 50 lines of each stream",
        v.to_string().len(),
        asked.to_string().len()
    );
    let job = &v["jobs"][0];
    let (out, err) = (job["stdout"].as_str().unwrap(), job["stderr"].as_str().unwrap());
    assert!(out.len() + err.len() <= 2000, "{} + {} bytes", out.len(), err.len());
    assert!(out.len() > 900 && err.len() > 900, "the budget is shared: {} and {}", out.len(), err.len());
    assert!(fifty.ends_with(out) && out.starts_with("line "), "whole lines, the last ones: {out:?}");
    assert_eq!(job["stdout_left_out"].as_u64().unwrap() + out.len() as u64, total as u64);
    // The text says what it left out and the command that reads all of it.
    let (text, _) = t.cmd("llm-jobs").args(["wait", &s]).expect_exit(0);
    assert!(text.len() < 2300, "{} bytes: {text}", text.len());
    let hint = format!("llm-jobs logs {id} --stream stdout --max-output-bytes {total} reads all");
    assert!(text.contains(&format!("--- stdout (last {} of {total} bytes; {hint}) ---", out.len())), "{text}");
    let all = jobs(&t, &["logs", &s, "--stream", "stdout", "--max-output-bytes", &total.to_string()], 0);
    assert_eq!(all["content"], chatty(10000), "the hint reads it all");
    // Short output is whole, with nothing said of it.
    let small = jobs(&t, &["spawn", "--", "echo hi"], 0)["job_id"].as_i64().unwrap().to_string();
    let (text, _) = t.cmd("llm-jobs").args(["wait", &small, "--timeout", "60"]).expect_exit(0);
    assert!(text.ends_with("--- stdout (tail) ---\nhi\n"), "{text}");
}

#[test]
fn logs_answer_the_end_by_default_and_page_forward_from_an_offset() {
    let t = TestDir::new();
    let id = chatty_job(&t);
    let s = id.to_string();
    let whole = chatty(10000);
    let total = whole.len() as u64;
    let v = jobs(&t, &["logs", &s, "--stream", "stdout"], 0);
    let content = v["content"].as_str().unwrap();
    assert!(content.len() <= 2000 && whole.ends_with(content) && content.starts_with("line "), "{content:?}");
    let before = v["left_out_before"].as_u64().unwrap();
    assert_eq!((v["start_offset"].as_u64(), v["total_bytes"].as_u64()), (Some(before), Some(total)));
    let (text, _) = t.cmd("llm-jobs").args(["logs", &s, "--stream", "stdout"]).expect_exit(0);
    let note = format!(
        "[{before} earlier bytes left out; llm-jobs logs {id} --stream stdout --since-offset 0 --max-output-bytes {before} reads them]\n"
    );
    assert!(text.ends_with(&note), "{text}");
    // Following each "continues" from the start reads the stream whole, once.
    let mut read = String::new();
    let mut offset = 0u64;
    let mut pages = 0;
    loop {
        let page = jobs(&t, &["logs", &s, "--stream", "stdout", "--since-offset", &offset.to_string()], 0);
        let content = page["content"].as_str().unwrap();
        assert!(content.len() <= 2000 && content.ends_with('\n'), "{content:?}");
        read.push_str(content);
        pages += 1;
        let after = page["left_out_after"].as_u64().unwrap();
        if after == 0 {
            break;
        }
        offset = page["next_offset"].as_u64().unwrap();
        let (text, _) = t
            .cmd("llm-jobs")
            .args(["logs", &s, "--stream", "stdout", "--since-offset", &page_start(&page)])
            .expect_exit(0);
        assert!(
            text.ends_with(&format!(
                "[{after} more bytes; llm-jobs logs {id} --stream stdout --since-offset {offset} continues]\n"
            )),
            "{text}"
        );
    }
    assert_eq!(read, whole);
    assert!(pages as u64 >= total / 2000, "{pages} pages");
}

fn page_start(page: &Value) -> String {
    page["start_offset"].as_u64().unwrap().to_string()
}

#[test]
fn over_mcp_waits_and_logs_are_short_and_their_hints_name_mcp_arguments() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = server(&t);
    let spawned = client.call("jobs_spawn", json!({ "command": CHATTY }));
    let total = chatty(10000).len();
    let id = spawned["structuredContent"]["job_id"].as_i64().unwrap();
    let waited = client.call("jobs_wait", json!({ "ids": [id], "timeout": 60 }));
    let text = text_of(&waited);
    let hint = format!(r#"jobs_logs {{"id":{id},"stream":"stdout","max_output_bytes":{total}}} reads all"#);
    assert!(text.contains(&hint), "{text}");
    assert!(!text.contains("llm-jobs") && !text.contains("--max-output-bytes"), "no command line over MCP: {text}");
    let whole = serde_json::to_string(&waited).unwrap().len();
    println!("jobs_wait over MCP: {} bytes of text, {whole} bytes in all", text.len());
    assert!(text.len() < 2300, "{} bytes: {text}", text.len());
    let logs = client.call("jobs_logs", json!({ "id": id }));
    let text = text_of(&logs);
    assert!(text.contains(r#"earlier bytes left out; jobs_logs {"id":"#), "{text}");
    println!(
        "jobs_logs over MCP: {} bytes of text, {} bytes in all",
        text.len(),
        serde_json::to_string(&logs).unwrap().len()
    );
    assert!(text.len() < 2300, "{} bytes", text.len());
}

fn shell_json(t: &TestDir, args: &[&str], code: i32) -> Value {
    let (stdout, _) = t.cmd("llm-shell").arg("--json").args(args).expect_exit(code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn screen(v: &Value) -> String {
    v["screen"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n")
}

/// A terminal in a new session running `command`; its id.
fn terminal(t: &TestDir, command: &str) -> String {
    let s = crate::shell::new_session(t);
    let started = shell_json(t, &["term", "start", "--session", &s, "--", command], 0);
    started["terminal_id"].as_str().unwrap().to_string()
}

#[test]
fn a_send_answers_the_screen_once_the_program_is_quiet() {
    let t = TestDir::new();
    // The answer comes a moment after the keys: a send waits for it.
    let id = terminal(&t, "while read x; do sleep 0.2; echo got:$x; done");
    let sent = shell_json(&t, &["term", "send", &id, "--text", "one", "--key", "Enter"], 0);
    assert!(screen(&sent).contains("got:one"), "one call, the screen after it: {sent}");
    assert!(sent["output"].as_str().unwrap().contains("got:one"), "{sent}");
    // A pattern to wait for, past the quiet spells.
    let id = terminal(&t, "read x; sleep 0.5; echo step; sleep 0.5; echo done:$x");
    let sent = shell_json(&t, &["term", "send", &id, "--text", "two", "--key", "Enter", "--wait-for", "done:two"], 0);
    assert_eq!(sent["matched"], true, "{sent}");
    assert!(screen(&sent).contains("done:two"), "{sent}");
    // Text: the screen.
    let id = terminal(&t, "while read x; do echo got:$x; done");
    let (text, _) = t.cmd("llm-shell").args(["term", "send", &id, "--text", "three", "--key", "Enter"]).expect_exit(0);
    assert!(text.contains("got:three\n"), "{text}");
}

#[test]
fn a_read_says_what_scrolled_away_and_a_wait_that_timed_out() {
    let t = TestDir::new();
    let id = terminal(&t, "read x; seq 1 100; echo end");
    let (text, _) =
        t.cmd("llm-shell").args(["term", "send", &id, "--key", "Enter", "--wait-for", "end"]).expect_exit(0);
    let (scrolled, screen) = text.split_once("[the screen:]\n").unwrap_or_else(|| panic!("{text}"));
    // The Enter's empty line, 1 to 100 and end: 102 lines printed on a 24-row screen.
    assert!(scrolled.starts_with("[78 lines scrolled off the screen since the last read:]\n\n1\n2\n"), "{text}");
    assert!(scrolled.ends_with("\n77\n"), "{text}");
    assert!(screen.contains("100\nend\n"), "{text}");
    // Nothing printed since: the screen alone.
    let (text, _) = t.cmd("llm-shell").args(["term", "read", &id]).expect_exit(0);
    assert!(!text.contains("scrolled"), "{text}");
    // A wait that timed out says so.
    let id = terminal(&t, "sleep 60");
    let (text, _) =
        t.cmd("llm-shell").args(["term", "read", &id, "--wait-for", "never", "--timeout", "0.3"]).expect_exit(0);
    assert!(text.contains("[--wait-for did not match before the timeout: this is the screen then]"), "{text}");
}

#[test]
fn over_mcp_a_send_answers_the_screen_and_a_timed_out_wait_names_the_argument() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = server(&t);
    let started = client.call("term_start", json!({ "command": "while read x; do sleep 0.2; echo got:$x; done" }));
    let id = started["structuredContent"]["terminal_id"].as_str().unwrap().to_string();
    let sent = client.call("term_send", json!({ "terminal_id": id, "text": "yes", "keys": ["Enter"] }));
    assert_eq!(sent["isError"], false, "{sent}");
    assert!(text_of(&sent).contains("got:yes"), "{sent}");
    let read = client.call("term_read", json!({ "terminal_id": id, "wait_for": "never", "timeout": 0.3 }));
    let text = text_of(&read);
    assert!(text.contains("[wait_for did not match before the timeout"), "{text}");
}
