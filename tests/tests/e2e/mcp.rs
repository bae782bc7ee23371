//! `aide mcp` as a client sees it: the handshake, every tool listed and
//! called with results that validate against their declared output schemas,
//! protocol errors, cancellation, progress, concurrency, roots, paging, the
//! execution log, and a client that goes away mid-call.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aide_tests::TestDir;
use aide_tests::mcp::{McpClient, canonical, file_uri};
use serde_json::{Value, json};

pub(crate) fn server(t: &TestDir) -> McpClient {
    McpClient::initialized(t.root(), t.home(), &[], json!({}))
}

/// A server whose structured content is `mode` (`compact`, `full`, `off`).
fn server_in(t: &TestDir, mode: &str) -> McpClient {
    McpClient::initialized(t.root(), t.home(), &["--structured", mode], json!({}))
}

/// The records of `field` in either form: a list, or (compact) grouped by
/// file, each given its path back.
fn records(doc: &Value, field: &str) -> Vec<Value> {
    // A compact table's row, as the record it stands for.
    let columns = doc["columns"][field].as_array().cloned().unwrap_or_default();
    let record = move |r: Value| match r {
        Value::Array(row) => {
            Value::Object(columns.iter().filter_map(Value::as_str).map(String::from).zip(row).collect())
        }
        other => other,
    };
    match &doc[field] {
        Value::Array(list) => list.iter().cloned().map(&record).collect(),
        Value::Object(files) => files
            .iter()
            .flat_map(|(path, file)| {
                let record = &record;
                file[field].as_array().cloned().unwrap_or_default().into_iter().map(move |r| {
                    let mut r = record(r);
                    r["path"] = json!(path);
                    r
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Each tool's declared output schema, compiled: every tool has one.
pub(crate) fn output_validators(client: &mut McpClient) -> BTreeMap<String, jsonschema::Validator> {
    let validators = client.output_validators().into_iter();
    validators.map(|(name, v)| (name.clone(), v.unwrap_or_else(|| panic!("{name} declares no outputSchema")))).collect()
}

/// Calls `tool`, checks the result against its output schema and the text
/// block, and returns the structured content.
pub(crate) fn checked_call(
    client: &mut McpClient,
    validators: &BTreeMap<String, jsonschema::Validator>,
    tool: &str,
    arguments: Value,
    expect_error: bool,
) -> Value {
    let result = client.call(tool, arguments.clone());
    let doc = result["structuredContent"].clone();
    let errors: Vec<String> =
        validators[tool].iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{tool}: the result fails its outputSchema:\n{}\n{doc:#}", errors.join("\n"));
    assert_eq!(result["isError"], expect_error, "{tool} {arguments}: {result:#}");
    // The whole document says `ok`; the compact one leaves the envelope to `isError`.
    let said = doc.get("ok").map_or(doc.get("error").is_none(), |ok| ok == true);
    assert_eq!(said, !expect_error, "{tool}: {doc:#}");
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{tool}: no text block: {result}"));
    assert!(!text.is_empty(), "{tool}: empty text block");
    doc
}

#[test]
fn lists_every_operation_of_the_catalogue_with_its_annotations_and_schemas() {
    let t = TestDir::new();
    let mut client = server(&t);
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().clone();
    let (out, _) = t.cmd("aide").args(["tools", "--json"]).expect_exit(0);
    let catalogue: Value = serde_json::from_str(&out).unwrap();
    let operations: Vec<&Value> =
        catalogue["tools"].as_array().unwrap().iter().flat_map(|t| t["operations"].as_array().unwrap()).collect();
    assert_eq!(tools.len(), operations.len());
    for op in operations {
        let name = op["name"].as_str().unwrap();
        let tool = tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} is not listed"));
        assert_eq!(tool["description"], op["description"], "{name}");
        // Each hint as a client reads it: absent means MCP's default
        // (readOnly false, destructive true, idempotent false, openWorld
        // true); destructive and idempotent mean nothing for a read-only tool.
        let a = &tool["annotations"];
        let hint = |key: &str, default: bool| a.get(key).and_then(Value::as_bool).unwrap_or(default);
        let read_only = op["effects"]["read_only"].as_bool().unwrap();
        assert_eq!(hint("readOnlyHint", false), read_only, "{name}");
        if !read_only {
            assert_eq!(Value::Bool(hint("destructiveHint", true)), op["effects"]["destructive"], "{name}");
            assert_eq!(Value::Bool(hint("idempotentHint", false)), op["effects"]["idempotent"], "{name}");
        }
        assert_eq!(Value::Bool(hint("openWorldHint", true)), op["effects"]["open_world"], "{name}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
    }
    let read_only: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in ["search", "ast_search", "ide_operation", "read", "discover", "log_show"] {
        assert!(read_only.contains(&name), "{name} should be read-only");
    }
    let open_world: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"].get("openWorldHint").and_then(Value::as_bool).unwrap_or(true))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // deps_outdated changes nothing but asks the registries over the network.
    assert_eq!(
        open_world,
        ["shell_exec", "term_start", "term_send", "shell_compare", "jobs_spawn", "jobs_send", "deps_outdated"]
    );
    assert!(client.garbage.lock().unwrap().is_empty());
}

#[test]
fn every_tool_can_be_called_and_its_result_fits_its_output_schema() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    // Each mode with a structured content: the whole document, and the compact one.
    for mode in ["full", "compact"] {
        every_tool_is_called_in(mode);
    }
}

// Long because: one call per tool of the catalogue, a table of cases.
fn every_tool_is_called_in(mode: &str) {
    let t = TestDir::new();
    t.git_init();
    t.write("src/lib.rs", "pub fn validate_token(t: &str) -> bool {\n    !t.is_empty()\n}\n\npub fn check() -> bool {\n    validate_token(\"x\")\n}\n");
    t.write("notes.txt", "hello\nworld\n");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(t.root())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    let mut client = server_in(&t, mode);
    let v = output_validators(&mut client);
    let mut called = std::collections::BTreeSet::new();
    let mut call = |client: &mut McpClient, tool: &str, args: Value| {
        called.insert(tool.to_string());
        checked_call(client, &v, tool, args, false)
    };

    let found = call(&mut client, "search", json!({ "pattern": "validate_token" }));
    assert_eq!(records(&found, "matches").len(), 2);
    let outline = call(&mut client, "ast_search", json!({ "symbols": true, "paths": ["src/lib.rs"] }));
    assert_eq!(records(&outline, "symbols").len(), 2);
    let ide =
        call(&mut client, "ide_operation", json!({ "program": "findReferences(findDefinition(`validate_token`))" }));
    assert!(ide.to_string().contains("src/lib.rs"), "{ide}");
    let metrics = call(&mut client, "code_metrics", json!({ "paths": ["src/lib.rs"], "sort": "cyclomatic" }));
    assert_eq!(records(&metrics, "functions")[0]["name_path"], "validate_token", "{metrics}");
    let copies = call(&mut client, "code_duplicates", json!({ "min_tokens": 10, "min_lines": 1 }));
    assert!(!copies.to_string().contains("\"first\""), "{copies}");
    let imports = call(&mut client, "code_imports", json!({ "paths": ["src/lib.rs"] }));
    assert!(imports.to_string().contains("validate_token"), "{imports}");
    let read = call(&mut client, "read", json!({ "paths": ["notes.txt"] }));
    let checksum = read["files"][0]["checksum"].as_str().unwrap().to_string();
    let edit = call(
        &mut client,
        "transform",
        json!({ "edits": [{ "path": "notes.txt", "byte_start": 0, "byte_end": 5, "replacement": "howdy", "checksum_before": checksum }] }),
    );
    assert_eq!(std::fs::read_to_string(t.root().join("notes.txt")).unwrap(), "howdy\nworld\n");
    call(&mut client, "transform_undo", json!({ "execution_ids": [edit["execution_id"]] }));
    assert_eq!(std::fs::read_to_string(t.root().join("notes.txt")).unwrap(), "hello\nworld\n");
    call(&mut client, "transform_recover", json!({}));
    // A refactor is the language server's: where clangd is, what it offers
    // in a C++ file; its refusal of a file of no language either way.
    if aide_tests::oracle("clangd", "transform_refactor over MCP") {
        t.write("a.cpp", "int f(int a) {\n    return a * 2 + 1;\n}\n");
        let offered = call(
            &mut client,
            "transform_refactor",
            json!({ "path": "a.cpp", "line": 2, "column": 12, "end_column": 17 }),
        );
        assert!(offered.to_string().contains("extract_variable"), "{offered}");
    }
    let refused =
        checked_call(&mut client, &v, "transform_refactor", json!({ "path": "notes.txt", "action": "inline" }), true);
    assert_eq!(refused["error"]["code"], "unknown_language", "{refused}");
    let discovered = call(&mut client, "discover", json!({ "query": "lib" }));
    assert_eq!(records(&discovered, "results")[0]["path"], "src/lib.rs");

    let session = call(&mut client, "shell_session_new", json!({}));
    let id = session["session_id"].as_str().unwrap().to_string();
    // The compact form leaves out a working_dir that is the root.
    let root = canonical(t.root()).display().to_string();
    assert_eq!(session.get("working_dir").unwrap_or(&json!(root)), &json!(root), "{session}");
    call(&mut client, "shell_env", json!({ "session": id, "set": ["GREETING=hi"] }));
    let ran = call(&mut client, "shell_exec", json!({ "session": id, "command": "echo $GREETING; pwd" }));
    assert_eq!(ran["stdout"], format!("hi\n{}\n", canonical(t.root()).display()));
    call(&mut client, "shell_session_show", json!({ "id": id }));
    call(&mut client, "shell_session_list", json!({}));
    call(&mut client, "shell_check", json!({ "command": "echo ok" }));
    let explained = call(&mut client, "shell_explain", json!({ "command": "rm -rf build" }));
    assert_ne!(explained["overall_risk"], "low");
    call(&mut client, "shell_perf", json!({ "session": id }));
    call(&mut client, "shell_compare", json!({ "baseline": "HEAD", "command": "true", "iterations": 2, "warmup": 0 }));
    let term = call(&mut client, "term_start", json!({ "session": id, "command": "read -p 'name? ' n; echo hi-$n" }));
    let term_id = term["terminal_id"].as_str().unwrap().to_string();
    call(&mut client, "term_send", json!({ "terminal_id": term_id, "text": "ann", "keys": ["Enter"] }));
    let seen = call(&mut client, "term_read", json!({ "terminal_id": term_id, "wait_for": "hi-ann" }));
    assert_eq!(seen["matched"], true, "{seen}");
    call(&mut client, "term_close", json!({ "terminal_id": term_id }));
    let yielded =
        call(&mut client, "shell_exec", json!({ "session": id, "command": "echo early; sleep 30", "yield_ms": 500 }));
    assert_eq!((&yielded["running"], &yielded["stdout"]), (&json!(true), &json!("early\n")), "{yielded}");
    call(&mut client, "jobs_kill", json!({ "id": yielded["job_id"], "grace": 1 }));
    call(&mut client, "shell_session_close", json!({ "id": id }));

    let spawned = call(&mut client, "jobs_spawn", json!({ "command": "echo from-job" }));
    let job = spawned["job_id"].clone();
    call(&mut client, "jobs_wait", json!({ "ids": [job], "timeout": 30 }));
    call(&mut client, "jobs_status", json!({ "id": job }));
    call(&mut client, "jobs_list", json!({}));
    let logs = call(&mut client, "jobs_logs", json!({ "id": job }));
    assert!(logs.to_string().contains("from-job"), "{logs}");
    call(&mut client, "jobs_kill", json!({ "id": job }));
    let reader = call(&mut client, "jobs_spawn", json!({ "command": "read line; echo got:$line" }))["job_id"].clone();
    let paused = call(&mut client, "jobs_pause", json!({ "id": reader }));
    assert_eq!(paused["status"], "Paused", "{paused}");
    call(&mut client, "jobs_resume", json!({ "id": reader }));
    call(&mut client, "jobs_send", json!({ "id": reader, "text": "hi\n" }));
    let read = call(&mut client, "jobs_wait", json!({ "ids": [reader], "timeout": 30 }));
    assert!(read.to_string().contains("got:hi"), "{read}");
    call(&mut client, "jobs_group", json!({ "action": "list" }));
    call(&mut client, "jobs_remove", json!({ "id": job }));
    call(&mut client, "jobs_prune", json!({}));

    t.write("broken.py", "def f(:\n");
    let linted = call(&mut client, "lint", json!({ "checker": "syntax" }));
    assert_eq!(records(&linted, "findings")[0]["path"], "broken.py", "{linted}");
    assert_eq!(linted["errors"], 1);

    let status = call(&mut client, "git", json!({ "command": "status" }));
    // Compact leaves `false` unsaid.
    assert!(!status["branch"]["detached"].as_bool().unwrap_or(false), "{status}");
    let log = call(&mut client, "git", json!({ "command": "log", "limit": 1 }));
    assert_eq!(log["commits"][0]["subject"], "base");
    call(&mut client, "git", json!({ "command": "diff" }));
    call(&mut client, "git", json!({ "command": "blame", "path": "src/lib.rs", "lines": "1:2" }));
    call(&mut client, "git", json!({ "command": "show", "rev": "HEAD" }));
    let branches = call(&mut client, "git_write", json!({ "command": "branch" }));
    assert_eq!(branches["branches"].as_array().map(Vec::len), Some(1), "{branches}");

    t.write("package.json", "{\"name\":\"w\",\"dependencies\":{\"ms\":\"^2.0.0\"}}\n");
    t.write("package-lock.json", "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"ms\":\"^2.0.0\"}},\"node_modules/ms\":{\"version\":\"2.0.0\"}}}\n");
    let deps = call(&mut client, "deps_list", json!({}));
    assert_eq!(records(&deps, "packages")[0]["name"], "ms", "{deps}");
    call(&mut client, "deps_tree", json!({ "depth": 1 }));
    // No go.mod: nothing to ask a registry, so no network is needed.
    call(&mut client, "deps_outdated", json!({ "ecosystem": ["go"] }));
    let audit = call(&mut client, "deps_audit", json!({}));
    assert_eq!(audit["audit"], "not_configured", "{audit}");

    let runs = call(&mut client, "log_list", json!({ "limit": 5 }));
    let newest = records(&runs, "runs")[0]["execution_id"].as_str().unwrap().to_string();
    let shown = call(&mut client, "log_show", json!({ "id": newest }));
    if mode == "full" {
        assert_eq!(shown["execution_id"], newest);
    }
    let stats = call(&mut client, "log_stats", json!({}));
    let read = records(&stats, "per_tool").into_iter().find(|s| s["tool"] == "read");
    assert!(read.is_some_and(|r| r["runs"].as_u64() >= Some(1)), "the read calls above, counted: {stats}");
    call(&mut client, "log_prune", json!({ "keep": 1000 }));

    // Called above, its refusal at least (the listing needs clangd).
    called.insert("transform_refactor".to_string());
    let all: Vec<String> = v.keys().cloned().collect();
    let missed: Vec<&String> = all.iter().filter(|n| !called.contains(*n)).collect();
    assert!(missed.is_empty(), "tools never called: {missed:?}");
    assert!(client.garbage.lock().unwrap().is_empty(), "non-protocol output: {:?}", client.garbage.lock().unwrap());
}

#[test]
fn a_tool_failure_is_an_error_result_with_the_clis_error_object() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = server(&t);
    let v = output_validators(&mut client);
    let doc = checked_call(&mut client, &v, "read", json!({ "paths": ["missing.txt"] }), true);
    let cli: Value = t.cmd("llm-read").arg("missing.txt").json(2);
    assert_eq!(doc["error"]["code"], "not_found");
    assert_eq!(doc["error"]["code"], cli["error"]["code"]);
    assert_eq!(doc["error"]["message"], cli["error"]["message"]);
    // The same hint, in each caller's words: a flag, or the argument.
    assert_eq!(cli["error"]["hint"], "check the path; paths are relative to --root");
    assert_eq!(doc["error"]["hint"], "check the path; paths are relative to root");
    let result = client.call("read", json!({ "paths": ["missing.txt"] }));
    assert!(result["content"][0]["text"].as_str().unwrap().contains("error[not_found]"), "{result}");
    // An edit after which the verify command fails is undone: the model reads why.
    t.write("kept.txt", "one\n");
    let edit = json!({ "operations": [{ "op": "patch", "path": "kept.txt", "old_text": "one", "new_text": "two" }], "verify_command": "grep -q one kept.txt" });
    let doc = checked_call(&mut client, &v, "transform", edit, true);
    assert_eq!(doc["error"]["code"], "verification_failed", "{doc}");
    assert_eq!(std::fs::read_to_string(t.root().join("kept.txt")).unwrap(), "one\n");
    // The server's stdin is the protocol: a command may not read it.
    let doc = checked_call(&mut client, &v, "shell_exec", json!({ "command": "cat", "stdin": "-" }), true);
    assert_eq!(doc["error"]["code"], "invalid_arguments", "{doc}");
    let still = checked_call(&mut client, &v, "read", json!({ "paths": ["missing.txt"] }), true);
    assert_eq!(still["error"]["code"], "not_found", "the protocol goes on unharmed");
}

#[test]
fn protocol_misuse_is_a_json_rpc_error_naming_the_closest_valid_name() {
    let t = TestDir::new();
    let mut client = server(&t);
    let reply = client.request("tools/call", json!({ "name": "serch", "arguments": { "pattern": "x" } }));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["closest"], json!(["search"]), "the 1-3 closest tools: {reply}");
    // Issue 33: arguments that do not fit are the tool's error, which the
    // model reads (mcp_face has every kind); only the rest is protocol.
    let reply = client.request("tools/call", json!({ "name": "search", "arguments": { "patern": "x" } }));
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["error"]["details"]["field"], "patern");
    // Issue 31: a tools/call whose `name` is not a string is a malformed
    // request (-32602), not an unknown method (-32601).
    let reply = client.request("tools/call", json!({ "name": 42, "arguments": {} }));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let reply = client.request("no/such/method", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

/// A job that sleeps, for calls that wait on it.
fn sleeping_job(client: &mut McpClient, seconds: u32) -> Value {
    let spawned = client.call("jobs_spawn", json!({ "command": format!("sleep {seconds}") }));
    spawned["structuredContent"]["job_id"].clone()
}

#[test]
fn cancellation_stops_a_running_call_and_other_calls_do_not_wait_for_a_slow_one() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    let mut client = server(&t);
    let job = sleeping_job(&mut client, 60);
    let waiting = client
        .start_request("tools/call", json!({ "name": "jobs_wait", "arguments": { "ids": [job], "timeout": 60 } }));
    let ran =
        client.start_request("tools/call", json!({ "name": "shell_exec", "arguments": { "command": "sleep 60" } }));
    // A search answers while both are still running.
    let searched = client.request("tools/call", json!({ "name": "search", "arguments": { "pattern": "needle" } }));
    assert_eq!(searched["result"]["structuredContent"]["total_matches"], 1, "{searched}");
    std::thread::sleep(Duration::from_millis(300));
    let cancelled_at = Instant::now();
    client.notify("notifications/cancelled", json!({ "requestId": waiting, "reason": "test" }));
    client.notify("notifications/cancelled", json!({ "requestId": ran, "reason": "test" }));
    // A cancelled request gets no reply (MCP: the receiver SHOULD NOT send
    // one); the runs end as `cancelled` in the log, well before either
    // command would have ended by itself.
    for (tool, id) in [("llm-jobs", waiting), ("llm-shell", ran)] {
        let origin = format!("mcp:{id}");
        loop {
            // Exit 1 while the log has no run of the tool yet; a run still
            // going stands there as `unfinished` until it records its end.
            let out = t.cmd("aide").args(["log", "list", "--json", "--tool", tool]).output();
            let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
            let run = runs["runs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["origin"] == origin.as_str() && r["error_code"] != "unfinished")
                .cloned();
            if let Some(run) = run {
                assert_eq!(run["error_code"], "cancelled", "{run}");
                break;
            }
            assert!(cancelled_at.elapsed() < Duration::from_secs(10), "{tool} did not stop: {runs}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(aide_tests::processes_with_cmdline("sleep 62").is_empty(), "the exec's sleep survived its cancellation");
    // The server goes on serving.
    client.call("jobs_kill", json!({ "id": job }));
}

#[test]
fn progress_notifications_follow_the_callers_token() {
    let t = TestDir::new();
    for i in 0..40 {
        t.write(&format!("src/f{i:02}.rs"), format!("fn f{i}() {{}}\n"));
    }
    let mut client = server(&t);
    let id = client.start_request(
        "tools/call",
        json!({ "name": "ast_search", "arguments": { "symbols": true }, "_meta": { "progressToken": "tok-1" } }),
    );
    let reply = client.reply(id);
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let progress = client.notifications(|m| m["method"] == "notifications/progress");
    assert!(!progress.is_empty(), "no progress notification");
    let mut last = 0.0;
    for p in &progress {
        assert_eq!(p["params"]["progressToken"], "tok-1");
        let done = p["params"]["progress"].as_f64().unwrap();
        assert!(done > last, "progress must increase: {progress:?}");
        last = done;
        assert_eq!(p["params"]["total"], 40.0);
    }
    // The last report is the whole, and none comes without a token.
    assert_eq!(last, 40.0);
    client.call("ast_search", json!({ "symbols": true }));
    assert_eq!(client.notifications(|m| m["method"] == "notifications/progress").len(), progress.len());
}

#[test]
fn a_large_result_pages_instead_of_being_cut() {
    let t = TestDir::new();
    let body: String = (0..400).map(|i| format!("let value_{i} = needle;\n")).collect();
    t.write("big.rs", &body);
    let mut client = server(&t);
    let v = output_validators(&mut client);
    let mut offset = 0;
    let mut lines = Vec::new();
    let mut pages = 0;
    loop {
        let doc = checked_call(
            &mut client,
            &v,
            "search",
            json!({ "pattern": "needle", "max_output_chars": 5000, "page_offset": offset }),
            false,
        );
        assert!(doc.to_string().len() <= 5000, "page over budget: {}", doc.to_string().len());
        assert_eq!(doc["total_matches"], 400, "the summary describes the whole result");
        let page = &doc["page"];
        assert_eq!(page["offset"], offset);
        assert_eq!(page["total"], 400);
        lines.extend(doc["matches"].as_array().unwrap().iter().map(|m| m["line"].as_u64().unwrap()));
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(next) => offset = usize::try_from(next).unwrap(),
            None => break,
        }
    }
    assert!(pages > 2, "{pages} pages");
    assert_eq!(lines, (1..=400).collect::<Vec<u64>>(), "the pages cover every match once, in order");
    // Under a budget it fits in, the same result comes whole.
    let whole =
        checked_call(&mut client, &v, "search", json!({ "pattern": "needle", "max_output_chars": 1_000_000 }), false);
    assert!(whole.get("page").is_none());
    assert_eq!(whole["matches"].as_array().unwrap().len(), 400);
}

#[test]
fn every_call_is_logged_with_its_request_id() {
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    let mut client = server(&t);
    let id = client.start_request("tools/call", json!({ "name": "search", "arguments": { "pattern": "needle" } }));
    let reply = client.reply(id);
    let execution_id = reply["result"]["structuredContent"]["execution_id"].as_str().unwrap().to_string();
    let (shown, _) = t.cmd("aide").args(["log", "show", &execution_id, "--json"]).expect_exit(0);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown, reply["result"]["structuredContent"], "the log keeps the document the client got");
    let runs: Value = t.cmd("aide").args(["log", "list", "--tool", "llm-search"]).json(0);
    assert_eq!(runs["runs"][0]["execution_id"], execution_id);
    assert_eq!(runs["runs"][0]["origin"], format!("mcp:{id}"));
    // Each run names the MCP tool it is, and log_list's text speaks of tools, not command lines.
    assert_eq!(runs["runs"][0]["mcp_tool"], "search", "{runs}");
    let listed = client.call("log_list", json!({ "tool": "search" }));
    let text = listed["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("{execution_id} ")) && text.contains(" search\n"), "{text}");
    assert!(!text.contains("llm-search"), "{text}");
}

#[test]
fn client_roots_confine_every_call_and_follow_list_changed() {
    let t = TestDir::new();
    t.write("inside/a.txt", "needle inside\n");
    t.write("other/b.txt", "needle other\n");
    let mut client = with_roots(&t, &[t.root().join("inside")]);

    // The default root is the client's.
    let found = client.call("search", json!({ "pattern": "needle" }));
    assert_eq!(found["structuredContent"]["matches"][0]["path"], "a.txt", "{found}");
    // A root outside it is refused, as a tool error, and nothing runs.
    let refused = client.call("search", json!({ "pattern": "needle", "root": "../other" }));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["error"]["code"], "path_outside_root");
    let refused = client.call("shell_session_new", json!({ "cwd": "/" }));
    assert_eq!(refused["structuredContent"]["error"]["code"], "path_outside_root", "{refused}");
    assert_eq!(client.roots.lock().unwrap().1, 1, "roots are asked once, then kept");

    // The client's roots change: the server asks again.
    client.roots.lock().unwrap().0 = vec![file_uri(&t.root().join("other"))];
    client.notify("notifications/roots/list_changed", json!({}));
    std::thread::sleep(Duration::from_millis(200));
    let found = client.call("search", json!({ "pattern": "needle" }));
    assert_eq!(found["structuredContent"]["matches"][0]["path"], "b.txt", "{found}");
    assert_eq!(client.roots.lock().unwrap().1, 2);
}

#[test]
fn without_client_roots_the_servers_root_applies() {
    let t = TestDir::new();
    t.write("sub/a.txt", "needle\n");
    t.write("b.txt", "needle\n");
    let mut client = McpClient::initialized(t.root(), t.home(), &["--root", "sub"], json!({}));
    let found = client.call("search", json!({ "pattern": "needle" }));
    assert_eq!(found["structuredContent"]["total_matches"], 1, "{found}");
    let refused = client.call("search", json!({ "pattern": "needle", "root": ".." }));
    assert_eq!(refused["structuredContent"]["error"]["code"], "path_outside_root", "{refused}");
}

#[test]
fn a_client_that_goes_away_mid_call_ends_the_server_and_its_calls() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    let mut client = server(&t);
    let job = sleeping_job(&mut client, 60);
    client.start_request("tools/call", json!({ "name": "jobs_wait", "arguments": { "ids": [job], "timeout": 60 } }));
    client.start_request("tools/call", json!({ "name": "shell_exec", "arguments": { "command": "sleep 61" } }));
    std::thread::sleep(Duration::from_millis(300));
    client.close_stdin();
    let (code, stderr) =
        client.wait_exit(Duration::from_secs(20)).expect("the server did not exit after its client left");
    assert_eq!(code, 0, "{stderr}");
    assert!(aide_tests::processes_with_cmdline("sleep 61").is_empty(), "the running command outlived the server");
    // The job lives on, but holds no handle on the client's pipe.
    assert!(client.stdout_closed(Duration::from_secs(5)), "something the server started keeps its stdout open");
    // The background job is the job system's: it lives on until killed.
    t.cmd("llm-jobs").args(["kill", &job.to_string()]).expect_exit(0);
}

#[test]
fn function_calling_formats_come_from_the_same_schemas() {
    let t = TestDir::new();
    // `aide tools` prints the definitions of the default mode.
    let mut client = server_in(&t, "compact");
    let listed = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let printed = |format: &str| -> Value {
        let (out, _) = t.cmd("aide").args(["tools", "--format", format]).expect_exit(0);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("--format {format} is not a JSON array ({e}):\n{out}"))
    };
    assert_eq!(printed("mcp"), listed, "--format mcp is what tools/list gives");
    let openai = printed("openai");
    let anthropic = printed("anthropic");
    for (i, tool) in listed.as_array().unwrap().iter().enumerate() {
        assert_eq!(openai[i]["type"], "function");
        assert_eq!(openai[i]["function"]["name"], tool["name"]);
        assert_eq!(openai[i]["function"]["parameters"], tool["inputSchema"]);
        assert_eq!(anthropic[i]["name"], tool["name"]);
        assert_eq!(anthropic[i]["description"], tool["description"]);
        assert_eq!(anthropic[i]["input_schema"], tool["inputSchema"]);
        jsonschema::validator_for(&tool["inputSchema"])
            .unwrap_or_else(|e| panic!("{}'s input schema does not compile: {e}", tool["name"]));
    }
    // In JSON mode the definitions sit in the envelope like any result.
    let doc: Value = t.cmd("aide").args(["tools", "--format", "anthropic"]).json(0);
    assert_eq!(doc["format"], "anthropic");
    assert_eq!(doc["definitions"], anthropic);
}

#[test]
fn files_kept_parsed_between_calls_are_reparsed_when_they_change() {
    let t = TestDir::new();
    let backdate = |rel: &str| {
        // Old enough for the server to keep the parse (a fresh mtime is not trusted).
        let ok = std::process::Command::new("touch")
            .args(["-d", "2020-01-01 00:00:00", rel])
            .current_dir(t.root())
            .status()
            .unwrap()
            .success();
        assert!(ok);
    };
    t.write("src/lib.rs", "fn alpha() {}\n");
    backdate("src/lib.rs");
    let mut client = server(&t);
    let names = |client: &mut McpClient| -> Vec<String> {
        let doc = client.call("ast_search", json!({ "symbols": true }))["structuredContent"].clone();
        doc["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&mut client), ["alpha"]);
    assert_eq!(names(&mut client), ["alpha"], "the kept parse gives the same outline");
    // Same size, same (backdated) mtime: only the change time tells.
    std::thread::sleep(Duration::from_millis(20));
    t.write("src/lib.rs", "fn omega() {}\n");
    backdate("src/lib.rs");
    assert_eq!(names(&mut client), ["omega"]);
    let refs = client.call("ast_search", json!({ "references": "omega", "include_definition": true }));
    assert_eq!(refs["structuredContent"]["references"][0]["name"], "omega", "{refs}");
}

/// A client that offers `roots`, initialized.
pub(crate) fn with_roots(t: &TestDir, roots: &[std::path::PathBuf]) -> McpClient {
    let mut client = McpClient::start(t.root(), t.home(), &[]);
    client.roots.lock().unwrap().0 = roots.iter().map(|r| file_uri(r)).collect();
    let init = client.request(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": { "roots": { "listChanged": true } },
                "clientInfo": { "name": "aide-tests", "version": "1" } }),
    );
    assert!(init.get("result").is_some());
    client.notify("notifications/initialized", json!({}));
    client
}
