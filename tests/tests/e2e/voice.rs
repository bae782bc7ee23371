//! One voice (issue 49, item 2): over `aide mcp` every result, hint, undo
//! line and error names MCP tools and their arguments, never a flag or a
//! binary; the same requests on the command line name flags and binaries.
//! Both are rendered from one message, so each pair is checked side by side.

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

/// What a model may read with a `--` in it that is not one of our flags:
/// another program's command line it is told to run.
const NOT_OUR_FLAGS: &[&str] = &["git config --unset", "git restore"];

/// The tools' binaries (`aide` is also an ordinary word in text).
fn binaries() -> impl Iterator<Item = &'static str> {
    aide::TOOLS.iter().map(|t| t.name).filter(|n| *n != "aide")
}

/// The flags (`--offset`, ` --limit`) and binaries `text` names.
fn cli_words(text: &str) -> Vec<String> {
    let mut text = text.to_string();
    for allowed in NOT_OUR_FLAGS {
        text = text.replace(allowed, "");
    }
    let mut found: Vec<String> = binaries().filter(|b| text.contains(b)).map(str::to_string).collect();
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices("--") {
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'-';
        let after = bytes.get(i + 2).copied().unwrap_or(b' ');
        if before_ok && after.is_ascii_lowercase() {
            let end = text[i + 2..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(text.len(), |e| i + 2 + e);
            found.push(text[i..end].to_string());
        }
    }
    found
}

/// Every string a model reads in a result: the text block, and the
/// structured content's messages, hints and undo lines.
fn said(result: &Value) -> Vec<String> {
    fn walk(v: &Value, key: Option<&str>, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => map.iter().for_each(|(k, v)| walk(v, Some(k), out)),
            Value::Array(items) => items.iter().for_each(|v| walk(v, key, out)),
            Value::String(s) if matches!(key, Some("message" | "hint" | "undo")) => out.push(s.clone()),
            _ => {}
        }
    }
    let mut out: Vec<String> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .map(String::from)
        .collect();
    walk(&result["structuredContent"], None, &mut out);
    out
}

/// The result of a call, held to MCP's words.
fn in_mcp_words(client: &mut McpClient, tool: &str, arguments: Value) -> (Value, String) {
    let result = client.call(tool, arguments.clone());
    let words = said(&result);
    for s in &words {
        let cli = cli_words(s);
        assert!(cli.is_empty(), "{tool} {arguments} names {cli:?} over MCP: {s}");
    }
    (result, words.join("\n"))
}

fn tree() -> TestDir {
    let t = TestDir::new();
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    t.write("ten.txt", lines);
    t.write(
        "src/lib.rs",
        "pub fn helper() -> u32 { 1 }\npub fn a() -> u32 { helper() }\npub fn b() -> u32 { helper() }\n",
    );
    t.write("src/main.rs", "fn main() { let _ = helper(); }\n");
    t
}

#[test]
fn continuations_undo_lines_and_errors_over_mcp_name_tools_and_arguments() {
    let t = tree();
    t.git_init().git(&["add", "."]).git(&["commit", "-qm", "one"]);
    t.write("ten.txt", (1..=11).map(|i| format!("line {i}\n")).collect::<String>());
    t.git(&["commit", "-qam", "two"]);
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));

    // Continuation and "more" lines.
    let (_, text) = in_mcp_words(&mut client, "read", json!({ "paths": ["ten.txt"], "limit": 2 }));
    assert!(text.contains("continue with offset: 2"), "{text}");
    let (_, text) = in_mcp_words(&mut client, "search", json!({ "pattern": "helper", "limit": 1 }));
    assert!(text.contains("continue with offset: 1"), "{text}");
    let (_, text) = in_mcp_words(&mut client, "discover", json!({ "limit": 1 }));
    assert!(text.contains("offset: 1"), "{text}");
    let (_, text) = in_mcp_words(&mut client, "ast_search", json!({ "references": "helper" }));
    assert!(text.contains("include_definition: true adds where it is defined"), "{text}");
    let (_, text) = in_mcp_words(&mut client, "ast_search", json!({ "definitions": "", "limit": 1 }));
    assert!(!text.is_empty());
    // A warning's message too.
    t.write("broken/bad.rs", "pub fn broken( {\n");
    let (_, text) = in_mcp_words(&mut client, "ast_search", json!({ "paths": ["broken"] }));
    assert!(text.contains("(see validate: true)"), "{text}");
    let (_, text) = in_mcp_words(&mut client, "git", json!({ "command": "log", "limit": 1 }));
    assert!(text.contains("[more: raise limit]"), "{text}");

    // An edit's undo line names transform_undo, with the id to pass.
    let (result, text) = in_mcp_words(
        &mut client,
        "transform",
        json!({ "operations": [{ "op": "write", "path": "new.txt", "content": "hello\n" }] }),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert!(text.contains("transform_undo {\"execution_ids\":[\""), "{text}");
    let (result, _) = in_mcp_words(&mut client, "transform_undo", json!({ "last": 1 }));
    assert_eq!(result["isError"], false, "{result}");

    // Errors: messages and hints in the call's words.
    let errors = [
        ("search", json!({ "pattern": "(" }), "fixed_strings: true"),
        ("search", json!({ "pattern": "a", "multiline_dotall": true }), "multiline_dotall needs multiline"),
        ("read", json!({ "paths": ["ten.txt"], "lines": "x" }), "lines: 10:20"),
        ("read", json!({ "paths": ["ten.txt"], "lines": "50:60" }), "lines: 1:11"),
        ("read", json!({ "paths": ["missing.txt"] }), "relative to root"),
        ("ast_search", json!({ "query": "(identifier) @i" }), "query needs language"),
        (
            "ast_search",
            json!({ "definitions": "a", "references": "b" }),
            "definitions and references cannot be combined",
        ),
        ("discover", json!({ "tree": true, "query": "x" }), "tree does not take query"),
        ("transform_undo", json!({}), "transform_undo {\"execution_ids\":[\"EXECUTION_ID\"]}"),
        ("transform_undo", json!({ "execution_ids": ["0123456789abcdef"] }), "transform"),
        (
            "transform",
            json!({ "operations": [{ "op": "replace_block", "path": "src/lib.rs", "name": "nothing", "new_block": "x" }] }),
            "ast_search",
        ),
        ("shell_session_show", json!({ "id": "s-nope" }), "shell_session_new"),
        ("shell_exec", json!({ "command": "true", "timeout": -1 }), "timeout: 30"),
        ("shell_exec", json!({}), "command"),
        ("git", json!({ "command": "log", "rev": "no-such-rev" }), "git {\"command\":\"log\"}"),
    ];
    for (tool, arguments, want) in errors {
        let (result, text) = in_mcp_words(&mut client, tool, arguments.clone());
        assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
        assert!(text.contains(want), "{tool} {arguments} should say `{want}`: {text}");
    }
}

#[test]
fn the_same_requests_on_the_command_line_name_flags_and_binaries() {
    let t = tree();
    let (out, _) = t.cmd("llm-read").args(["--limit", "2", "ten.txt"]).expect_exit(0);
    assert!(out.contains("continue with --offset 2"), "{out}");
    let (out, _) = t.cmd("llm-search").args(["--limit", "1", "--pattern", "helper"]).expect_exit(0);
    assert!(out.contains("continue with --offset 1"), "{out}");
    let (out, _) = t.cmd("llm-ast-search").args(["--references", "helper"]).expect_exit(0);
    assert!(out.contains("--include-definition adds where it is defined"), "{out}");
    let (_, err) = t.cmd("llm-search").args(["--pattern", "("]).expect_exit(2);
    assert!(err.contains("--fixed-strings (-F)"), "{err}");
    let (_, err) = t.cmd("llm-read").args(["--lines", "50:60", "ten.txt"]).expect_exit(3);
    assert!(err.contains("--lines 1:10"), "{err}");
    let (_, err) = t.cmd("llm-transform").args(["undo"]).expect_exit(2);
    assert!(err.contains("llm-transform undo EXECUTION_ID, or llm-transform undo --last N"), "{err}");
    let doc: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .stdin(json!({ "operations": [{ "op": "write", "path": "new.txt", "content": "x\n" }] }).to_string())
        .json(0);
    let undo = doc["undo"].as_str().unwrap_or_default();
    assert_eq!(undo, format!("llm-transform undo {}", doc["execution_id"].as_str().unwrap()), "{doc}");
}

#[test]
fn the_check_sees_flags_and_binaries_and_passes_other_programs_command_lines() {
    assert_eq!(cli_words("continue with --offset 45"), ["--offset"]);
    assert_eq!(cli_words("(--include-definition adds)"), ["--include-definition"]);
    assert_eq!(cli_words("undo: llm-transform undo 01a2"), ["llm-transform"]);
    assert!(
        cli_words("continue with offset: 45; a -- b; x--y; unset it (git config --unset core.worktree)").is_empty()
    );
}
