//! The gate (issue 48, item 1): every process a tool starts from project or
//! model input runs in `aide mcp`'s sandbox, whichever tool started it — a
//! transform's `verify_command`, `shell_compare`'s command, a checker
//! `lint` runs (and the `build.rs` cargo runs for it) — and a timeout or a
//! cancellation ends it even when a process it started holds its output.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

/// A folder beside the root (outside it), which no sandbox lets a command write.
fn outside(t: &TestDir) -> PathBuf {
    let dir = t.root().parent().unwrap().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn code(result: &Value) -> &str {
    result["structuredContent"]["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn a_verify_command_runs_in_the_servers_sandbox() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("a.txt", "one\n");
    let planted = outside(&t).join("planted");
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let r = client.call(
        "transform",
        json!({
            "operations": [{ "op": "patch", "path": "a.txt", "old_text": "one", "new_text": "two" }],
            "verify_command": format!("touch {}", planted.display()),
        }),
    );
    assert_eq!(code(&r), "verification_failed", "{r}");
    assert!(!planted.exists(), "the verify command wrote outside the root");
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "one\n", "the edit was undone");

    // Under --sandbox read-only it cannot write even the root.
    let mut client = McpClient::initialized(t.root(), t.home(), &["--sandbox", "read-only"], json!({}));
    let r = client.call(
        "transform",
        json!({
            "operations": [{ "op": "patch", "path": "a.txt", "old_text": "one", "new_text": "two" }],
            "verify_command": "touch inside",
        }),
    );
    assert_eq!(code(&r), "verification_failed", "{r}");
    assert!(!t.root().join("inside").exists());

    // With the server unsandboxed, the same command runs as asked.
    let mut client = McpClient::initialized(t.root(), t.home(), &["--sandbox", "off"], json!({}));
    let r = client.call(
        "transform",
        json!({
            "operations": [{ "op": "patch", "path": "a.txt", "old_text": "one", "new_text": "two" }],
            "verify_command": "touch inside",
        }),
    );
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(t.root().join("inside").exists());
}

#[test]
fn a_compared_command_runs_in_the_servers_sandbox() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.git_init();
    t.write("a.txt", "one\n");
    t.git(&["add", "."]).git(&["commit", "-qm", "one"]);
    let planted = outside(&t).join("planted");
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let r = client.call(
        "shell_compare",
        json!({ "baseline": "HEAD", "command": format!("touch {}", planted.display()), "iterations": 2, "warmup": 0 }),
    );
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(!planted.exists(), "the compared command wrote outside the root");
    let failures = r["structuredContent"]["current"]["failures"].as_u64().unwrap();
    assert_eq!(failures, 2, "each run failed to write: {r}");
}

#[test]
fn a_build_script_cargo_runs_for_lint_runs_in_the_servers_sandbox() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let planted = outside(&t).join("planted");
    t.write("Cargo.toml", "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    t.write("src/lib.rs", "pub fn f() {}\n");
    t.write(
        "build.rs",
        format!(
            "fn main() {{ let _ = std::fs::write({:?}, \"planted\"); println!(\"cargo:rerun-if-changed=build.rs\"); }}\n",
            planted.display().to_string()
        ),
    );
    // cargo builds in the root whatever CARGO_TARGET_DIR the test run has.
    let target = t.root().join("target");
    let aide = aide_tests::bin_dir().join("aide");
    let serve = |args: &[&str]| {
        McpClient::start_with_env(&aide, t.root(), t.home(), args, &[("CARGO_TARGET_DIR", target.as_path())])
            .handshake(json!({}))
    };
    let mut client = serve(&[]);
    let r = client.call("lint", json!({ "checker": "cargo" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert_eq!(r["structuredContent"]["checkers"][0]["status"], "ran", "{r}");
    assert!(!planted.exists(), "cargo's build script wrote outside the root");
    // Unsandboxed, the same build script writes: the test can fail.
    std::fs::remove_dir_all(&target).unwrap();
    let mut client = serve(&["--sandbox", "off"]);
    let r = client.call("lint", json!({ "checker": "cargo" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(planted.exists(), "unsandboxed, the build script runs as cargo runs it");
}

/// A stand-in for shellcheck that hangs, with a process that left its group
/// holding its output open.
fn hanging_checker(t: &TestDir) -> String {
    let bin = t.root().parent().unwrap().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("shellcheck");
    std::fs::write(&fake, "#!/bin/bash\nsetsid sleep 96 &\nsleep 96\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn a_checker_past_its_timeout_ends_though_a_process_it_started_holds_its_output() {
    let t = TestDir::new();
    t.write("a.sh", "echo $1\n");
    let path = hanging_checker(&t);
    // Built before the clock starts: the first command of a test run may build the binaries.
    let lint = t.cmd("llm-lint").args(["--checker", "shellcheck", "--timeout", "1"]).env("PATH", &path);
    let started = Instant::now();
    let v: Value = lint.json(4);
    let elapsed = started.elapsed();
    let reason = v["checkers"][0]["reason"].as_str().or_else(|| v["error"]["message"].as_str()).unwrap_or("");
    assert!(reason.contains("timeout"), "{v}");
    // Before the gate it waited for the escaped process's 96 s.
    assert!(elapsed < Duration::from_secs(30), "returned after {elapsed:?}: {v}");
    for pid in aide_tests::processes_with_cmdline("sleep 96") {
        aide_tests::kill_process_group(pid);
    }
}

#[test]
fn a_call_past_the_servers_time_limit_ends_though_a_process_it_started_holds_its_output() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("a.sh", "echo $1\n");
    let path = hanging_checker(&t);
    let aide = aide_tests::bin_dir().join("aide");
    let mut client = McpClient::start_with_env(
        &aide,
        t.root(),
        t.home(),
        &["--call-timeout", "2"],
        &[("PATH", std::path::Path::new(&path))],
    )
    .handshake(json!({}));
    let started = Instant::now();
    let r = client.call("lint", json!({ "checker": "shellcheck" }));
    let elapsed = started.elapsed();
    assert_eq!(code(&r), "timeout", "{r}");
    // Before the gate the call answered when the escaped process's 96 s were up.
    assert!(elapsed < Duration::from_secs(30), "answered after {elapsed:?}");
    for pid in aide_tests::processes_with_cmdline("sleep 96") {
        aide_tests::kill_process_group(pid);
    }
}

#[test]
fn go_vet_runs_in_the_servers_sandbox_with_a_build_cache_of_its_own() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    if !aide_tests::oracle("go", "lint's go vet under aide mcp's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("go.mod", "module example.com/m\n\ngo 1.19\n");
    t.write("m.go", "package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n");
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let r = client.call("lint", json!({ "checker": "go-vet" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    let doc = &r["structuredContent"];
    // go's shared build cache is not writable in the sandbox; it ran on a private one and found the bug.
    assert_eq!(doc["checkers"][0]["status"], "ran", "{doc}");
    assert!(doc["findings"].as_array().unwrap().iter().any(|f| f["code"] == "printf"), "{doc}");
}
