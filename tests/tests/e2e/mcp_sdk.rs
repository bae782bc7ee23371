//! `aide mcp` through the official MCP Python SDK (PyPI `mcp`), as a
//! harness meets it: what a model loads (the tool list within its budget,
//! required arguments marked), what it reads (compact structured content
//! that the SDK itself validates against each tool's output schema, text in
//! MCP words), and what `--structured off` leaves out.

use std::io::Write;
use std::process::{Command, Stdio};

use aide_tests::TestDir;
use serde_json::{Value, json};

/// The SDK's client script, run with the plan on its stdin.
const CLIENT: &str = include_str!("mcp_sdk/client.py");

/// Whether python3 with the `mcp` package is here (CI installs it); a
/// visible skip when not.
fn sdk_available() -> bool {
    let found =
        Command::new("python3").args(["-c", "import mcp"]).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if !found {
        aide_tests::skip("python3 -m pip install mcp", "aide mcp through the official MCP Python SDK");
    }
    found
}

/// Runs `calls` against `aide mcp SERVER_ARGS` in `t`'s root through the
/// SDK: the tools it listed and each call's result (or what the SDK raised).
fn through_sdk(t: &TestDir, server_args: &[&str], calls: Value) -> (Vec<Value>, Vec<Value>) {
    let report = report(t, server_args, calls);
    let list = |k: &str| report[k].as_array().unwrap().clone();
    (list("tools"), list("calls"))
}

/// The SDK client's whole report: the server's instructions, its tools,
/// each call's result.
fn report(t: &TestDir, server_args: &[&str], calls: Value) -> Value {
    let script = t.home().join("client.py");
    std::fs::create_dir_all(t.home()).unwrap();
    std::fs::write(&script, CLIENT).unwrap();
    let aide = aide_tests::bin_dir().join("aide");
    let mut server = vec![aide.display().to_string(), "mcp".to_string()];
    server.extend(server_args.iter().map(|a| a.to_string()));
    let plan = json!({ "server": server, "cwd": t.root(), "calls": calls });
    let mut child = Command::new("python3")
        .arg(&script)
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env("XDG_CONFIG_HOME", t.home().join("config"))
        .env_remove("AIDE_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(plan.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the SDK client failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A small project: Python, a binary file, a git history.
fn project() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write(
        "app/helpers.py",
        "import os\n\n\ndef url_for(endpoint):\n    return '/' + endpoint\n\n\ndef other():\n    return url_for('x')\n",
    );
    t.write("app/views.py", "from app.helpers import url_for\n\n\ndef index():\n    return url_for('index')\n");
    std::fs::write(t.root().join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0binary").unwrap();
    t.git(&["add", "-A"]).git(&["commit", "-qm", "first"]);
    t
}

/// The text block of a result.
fn text(result: &Value) -> String {
    result["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect()
}

#[test]
fn every_result_fits_its_schema_in_the_sdks_own_check_and_speaks_mcp() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    if !sdk_available() {
        return;
    }
    let t = project();
    let calls = json!([
        { "name": "search", "arguments": { "pattern": "def url_for" } },
        { "name": "search", "arguments": { "pattern": "url_for", "limit": 2 } },
        { "name": "search", "arguments": { "pattern": "url_for", "paths": ["app/views.py"] } },
        { "name": "read", "arguments": { "paths": ["app/helpers.py"], "limit": 3 } },
        { "name": "ast_search", "arguments": { "symbols": true, "paths": ["app/helpers.py"] } },
        { "name": "ast_search", "arguments": { "references": "url_for" } },
        { "name": "discover", "arguments": { "query": "help" } },
        { "name": "shell_exec", "arguments": { "command": "ls" } },
        { "name": "git", "arguments": { "command": "log", "limit": 5 } },
        { "name": "search", "arguments": { "pattern": "url_for", "detail": "full" } },
        { "name": "serch", "arguments": { "pattern": "x" } },
    ]);
    let (tools, results) = through_sdk(&t, &[], calls);
    let (known, unknown) = results.split_at(results.len() - 1);
    for (i, call) in known.iter().enumerate() {
        let result = &call["result"];
        assert!(call["error"].is_null(), "call {i}: the SDK refused it: {call}");
        assert_ne!(result["isError"], true, "call {i}: {result}");
        // One voice: no flag and no binary in what a model reads.
        let said = text(result);
        assert!(!said.contains(" --") && !said.contains("[--") && !said.contains("llm-"), "call {i}: {said}");
    }
    // The closest tool is named.
    assert!(unknown[0]["error"].as_str().unwrap().contains("search"), "{unknown:?}");
    // The shared vocabulary's `paths` narrows a search.
    let narrowed = text(&known[2]["result"]);
    assert!(narrowed.contains("views.py") && !narrowed.contains("helpers.py"), "{narrowed}");
    // Compact by default: no per-match checksum or byte span; `detail: "full"` has them.
    let compact = known[0]["result"]["structuredContent"].to_string();
    assert!(!compact.contains("byte_start") && !compact.contains("match_id"), "{compact}");
    let full = known[9]["result"]["structuredContent"].to_string();
    assert!(full.contains("byte_start") && full.contains("checksum"), "{full}");
    // What a model loads: required marked, within the budget.
    let input = |name: &str| tools.iter().find(|tool| tool["name"] == name).unwrap()["inputSchema"].clone();
    // (transform takes operations, edits or a patch, shell_exec a command or argv: neither alone is required.)
    for (tool, field) in [("search", "pattern"), ("read", "paths"), ("git", "command")] {
        assert!(
            input(tool)["required"].as_array().is_some_and(|r| r.contains(&json!(field))),
            "{tool}: {}",
            input(tool)
        );
    }
    // A name the walking tools share (said once) is shown where it means something else:
    // jobs_logs follows a log, and its hints send a model to max_output_bytes.
    for field in ["follow", "max_output_bytes"] {
        assert!(input("jobs_logs")["properties"][field].is_object(), "jobs_logs: {}", input("jobs_logs"));
        assert!(input("search")["properties"][field].is_null(), "search: {}", input("search"));
    }
    let loaded = |tool: &Value| {
        json!({ "name": tool["name"], "description": tool["description"], "input_schema": tool["inputSchema"] })
            .to_string()
            .len()
    };
    let total: usize = tools.iter().map(loaded).sum();
    let cap = aide_tests::mcp::max_model_bytes(tools.len());
    assert!(total <= cap, "{total} bytes of definitions, over {cap}");
    for tool in &tools {
        let cap = aide_tests::mcp::max_tool_bytes(tool["name"].as_str().unwrap_or(""));
        assert!(loaded(tool) <= cap, "{}: {} bytes", tool["name"], loaded(tool));
    }
}

#[test]
fn structured_off_leaves_the_text_alone() {
    if !sdk_available() {
        return;
    }
    let t = project();
    let (tools, results) = through_sdk(
        &t,
        &["--structured", "off"],
        json!([{ "name": "search", "arguments": { "pattern": "def url_for" } }]),
    );
    assert!(tools.iter().all(|tool| tool["outputSchema"].is_null()), "no output schema");
    let result = &results[0]["result"];
    assert!(result["structuredContent"].is_null(), "{result}");
    assert!(text(result).contains("app/helpers.py:4:1: def url_for(endpoint):"), "{result}");
}

#[test]
fn what_a_model_loads_names_no_flag_and_no_program() {
    if !sdk_available() {
        return;
    }
    let t = project();
    let report = report(&t, &[], json!([]));
    let mut said = vec![("instructions".to_string(), report["instructions"].as_str().unwrap().to_string())];
    for tool in report["tools"].as_array().unwrap() {
        // The log names runs by their programs: log_list's and log_stats'
        // filters take those names too.
        let by_program = tool["name"] == "log_list" || tool["name"] == "log_stats";
        let schema = if by_program { Value::Null } else { tool["inputSchema"].clone() };
        said.push((tool["name"].as_str().unwrap().to_string(), format!("{} {schema}", tool["description"])));
    }
    for (whose, text) in said {
        let flag = text.match_indices("--").any(|(i, _)| text[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()));
        assert!(!flag && !text.contains("llm-"), "{whose}: {text}");
    }
}
