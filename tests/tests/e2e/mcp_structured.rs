//! `aide mcp --structured`: the compact structured content made for a model
//! (the default), the whole document (`full`, or a call's `detail: "full"`)
//! and none (`off`); each against the output schema the server serves.

use std::collections::BTreeMap;

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

fn server_in(t: &TestDir, mode: &str) -> McpClient {
    McpClient::initialized(t.root(), t.home(), &["--structured", mode], json!({}))
}

/// Calls `tool` and returns its structured content, checked against the
/// tool's output schema.
fn call(client: &mut McpClient, v: &BTreeMap<String, Option<jsonschema::Validator>>, tool: &str, args: Value) -> Value {
    let result = client.call(tool, args.clone());
    assert_eq!(result["isError"], false, "{tool} {args}: {result:#}");
    let doc = result["structuredContent"].clone();
    let validator = v[tool].as_ref().unwrap_or_else(|| panic!("{tool} has no outputSchema"));
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{tool}: fails its outputSchema:\n{}\n{doc:#}", errors.join("\n"));
    doc
}

/// Every key anywhere in `value`.
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

fn tree() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write(
        "src/app.py",
        "def url_for(endpoint):\n    return endpoint\n\n\nclass App:\n    def url_for(self, e):\n        return url_for(e)\n",
    );
    t.write("src/views.py", "from app import url_for\n\n\ndef index():\n    return url_for(\"index\")\n");
    t
}

#[test]
fn compact_results_are_grouped_by_file_with_no_envelope_ids_spans_or_empty_fields() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = tree();
    let mut client = server_in(&t, "compact");
    let v = client.output_validators();
    let found = call(&mut client, &v, "search", json!({ "pattern": "url_for" }));
    let cli: Value = t.cmd("llm-search").args(["-e", "url_for"]).json(0);
    let files = found["matches"].as_object().unwrap_or_else(|| panic!("matches by file: {found:#}"));
    assert_eq!(files.keys().collect::<Vec<_>>(), ["src/app.py", "src/views.py"]);
    for (path, file) in files {
        let checksum =
            cli["matches"].as_array().unwrap().iter().find(|m| m["path"] == *path).unwrap()["checksum"].clone();
        let short = &checksum.as_str().unwrap()[..12];
        assert_eq!(file["checksum"], short, "each file's checksum once, its first 12 hex digits: {file:#}");
        for row in file["matches"].as_array().unwrap() {
            // A row of the table's columns: no path, checksum, id or span.
            let record: std::collections::BTreeMap<&str, &Value> = found["columns"]["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .zip(row.as_array().unwrap())
                .collect();
            assert!(!record.contains_key("path") && !record.contains_key("checksum"), "{found:#}");
            assert!(!record.contains_key("match_id") && !record.contains_key("byte_start"), "{found:#}");
            assert!(record["line"].is_u64() && record["line_text"].is_string(), "{found:#}");
        }
    }
    // Every match is shown: the total is the rows'.
    assert!(found.get("total_matches").is_none(), "{found:#}");
    let rows: usize = files.values().map(|f| f["matches"].as_array().unwrap().len()).sum();
    assert_eq!(json!(rows), cli["total_matches"]);
    let outline = call(&mut client, &v, "ast_search", json!({ "paths": "src/app.py" }));
    let symbols = outline["symbols"]["src/app.py"]["symbols"].as_array().unwrap();
    let at = outline["columns"]["symbols"].as_array().unwrap().iter().position(|c| c == "name_path").unwrap();
    let names: Vec<&str> = symbols.iter().map(|s| s[at].as_str().unwrap()).collect();
    assert_eq!(names, ["url_for", "App", "App/url_for"], "{outline:#}");
    let refs = call(&mut client, &v, "ast_search", json!({ "references": "url_for" }));
    assert!(refs["references"]["src/views.py"]["references"].is_array(), "{refs:#}");
    let read = call(&mut client, &v, "read", json!({ "paths": "src/views.py" }));
    assert!(read["files"][0]["checksum"].is_string(), "{read:#}");
    let ran = call(&mut client, &v, "shell_exec", json!({ "command": "echo hi" }));
    assert_eq!((&ran["stdout"], &ran["exit_code"]), (&json!("hi\n"), &json!(0)), "{ran:#}");

    let mut seen = Vec::new();
    for doc in [&found, &outline, &refs, &read, &ran] {
        keys(doc, &mut seen);
    }
    for unsaid in ["tool", "version", "execution_id", "stats", "match_id", "byte_start", "byte_end", "elapsed_ms"] {
        assert!(!seen.iter().any(|k| k == unsaid), "`{unsaid}` is only for detail: \"full\"");
    }
    // `isError` says what the envelope's `ok` did (a read file's own `ok` stays).
    for doc in [&found, &outline, &refs, &read, &ran] {
        assert!(doc.get("ok").is_none(), "{doc:#}");
    }
    // Nothing that says nothing: no null, false or empty value.
    for doc in [&found, &outline, &refs, &read, &ran] {
        let text = doc.to_string();
        for empty in [":null", ":false", ":[]", ":{}", ":\"\""] {
            assert!(!text.contains(empty), "{empty} in {text}");
        }
    }
}

#[test]
fn detail_full_gives_the_whole_document_as_full_mode_does() {
    let t = tree();
    let mut compact = server_in(&t, "compact");
    let v = compact.output_validators();
    let asked = call(&mut compact, &v, "search", json!({ "pattern": "url_for", "detail": "full" }));
    let mut whole = server_in(&t, "full");
    let wv = whole.output_validators();
    let full = call(&mut whole, &wv, "search", json!({ "pattern": "url_for" }));
    assert_eq!(asked["ok"], true);
    assert!(asked["execution_id"].is_string() && asked["matches"][0]["match_id"].is_string(), "{asked:#}");
    let without_run = |mut doc: Value| {
        let map = doc.as_object_mut().unwrap();
        map.remove("execution_id");
        map.remove("stats");
        doc
    };
    assert_eq!(without_run(asked), without_run(full));
    // A value `detail` does not take is the call's error, naming it.
    let refused = compact.call("search", json!({ "pattern": "x", "detail": "everything" }));
    assert_eq!(refused["isError"], true, "{refused:#}");
    assert_eq!(refused["structuredContent"]["error"]["details"]["field"], "detail", "{refused:#}");
}

#[test]
fn structured_off_serves_no_output_schema_and_no_structured_content() {
    let t = tree();
    let mut client = server_in(&t, "off");
    let listed = client.request("tools/list", json!({}));
    for tool in listed["result"]["tools"].as_array().unwrap() {
        assert!(tool.get("outputSchema").is_none(), "{}", tool["name"]);
    }
    let result = client.call("search", json!({ "pattern": "def url_for" }));
    assert!(result.get("structuredContent").is_none(), "{result:#}");
    assert_eq!(result["isError"], false);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("src/app.py:1:1: def url_for(endpoint):\n"), "{result:#}");
    let failed = client.call("read", json!({ "paths": "missing.py" }));
    assert!(failed.get("structuredContent").is_none(), "{failed:#}");
    assert_eq!(failed["isError"], true);
    assert!(failed["content"][0]["text"].as_str().unwrap().contains("error[not_found]"), "{failed:#}");
}

#[test]
fn a_guarded_edit_from_a_compact_search_results_checksum_succeeds() {
    let t = tree();
    let mut client = server_in(&t, "compact");
    let v = client.output_validators();
    let found = call(&mut client, &v, "search", json!({ "pattern": "def index" }));
    let file = &found["matches"]["src/views.py"];
    let at = found["columns"]["matches"].as_array().unwrap().iter().position(|c| c == "line").unwrap();
    let line = file["matches"][0][at].as_u64().unwrap();
    let edit = |checksum: &Value| {
        json!({ "operations": [{ "op": "insert_lines", "path": "src/views.py", "at_line": line,
                                  "text": "# the index\n", "checksum_before": checksum }] })
    };
    let stale = client.call("transform", edit(&json!("0".repeat(64))));
    assert_eq!(stale["structuredContent"]["error"]["code"], "checksum_mismatch", "{stale:#}");
    // A short checksum is its first 12 hex digits: another prefix, or fewer digits, is refused the same way.
    let short = file["checksum"].as_str().unwrap();
    assert_eq!(short.len(), 12, "{found:#}");
    for wrong in ["0".repeat(12), short[..11].to_string()] {
        let refused = client.call("transform", edit(&json!(wrong)));
        assert_eq!(refused["structuredContent"]["error"]["code"], "checksum_mismatch", "{refused:#}");
    }
    let done = call(&mut client, &v, "transform", edit(&file["checksum"]));
    assert_eq!(
        std::fs::read_to_string(t.root().join("src/views.py")).unwrap(),
        "from app import url_for\n\n\n# the index\ndef index():\n    return url_for(\"index\")\n"
    );
    // A changing tool keeps its execution_id: what undoes it.
    call(&mut client, &v, "transform_undo", json!({ "execution_ids": [done["execution_id"]] }));
    assert!(!std::fs::read_to_string(t.root().join("src/views.py")).unwrap().contains("# the index"));
}

#[test]
fn paging_works_in_every_mode() {
    let t = TestDir::new();
    let body: String = (0..300).map(|i| format!("let value_{i} = needle;\n")).collect();
    t.write("big.rs", &body);
    let mut pages_of = std::collections::BTreeMap::new();
    for mode in ["compact", "full", "off"] {
        let mut client = server_in(&t, mode);
        let (mut offset, mut lines, mut pages, mut counts) = (0, Vec::new(), 0, Vec::new());
        loop {
            let args = json!({ "pattern": "needle", "max_output_chars": 4000, "page_offset": offset });
            let result = client.call("search", args);
            assert_eq!(result["isError"], false, "{mode}: {result:#}");
            let text = result["content"][0]["text"].as_str().unwrap();
            lines.extend(
                text.lines()
                    .filter_map(|l| l.strip_prefix("big.rs:"))
                    .map(|l| l.split(':').next().unwrap().to_string()),
            );
            pages += 1;
            let next = match mode {
                "off" => {
                    assert!(result.get("structuredContent").is_none());
                    text.split("page_offset=")
                        .nth(1)
                        .map(|rest| rest.split(' ').next().unwrap().parse::<usize>().unwrap())
                }
                _ => {
                    let doc = &result["structuredContent"];
                    assert!(doc.to_string().len() <= 4000, "{mode}: page over budget");
                    assert_eq!(doc["page"]["offset"], offset, "{mode}");
                    assert_eq!(doc["total_matches"], 300, "{mode}");
                    counts.push(doc["page"]["count"].as_u64().unwrap());
                    doc["page"]["next_offset"].as_u64().map(|n| usize::try_from(n).unwrap())
                }
            };
            match next {
                Some(next) => offset = next,
                None => break,
            }
        }
        assert!(pages > 2, "{mode}: {pages} pages");
        let want: Vec<String> = (1..=300).map(|n| n.to_string()).collect();
        assert_eq!(lines, want, "{mode}: the pages cover every match once, in order");
        pages_of.insert(mode, pages);
        // Every page but the last is sized alike, the later ones as the first.
        if let Some((first, rest)) = counts.split_last().map(|(_, full)| full).and_then(|full| full.split_first()) {
            assert!(rest.iter().all(|c| c * 2 >= *first), "{mode}: records per page {counts:?}");
        }
    }
    // Pages are sized on what is sent: compact pages hold more records than whole ones.
    assert!(pages_of["compact"] < pages_of["full"], "{pages_of:?}");
}
