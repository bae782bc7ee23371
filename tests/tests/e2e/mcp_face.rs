//! The face `aide mcp` shows a model, as the official Rust SDK's client
//! (rmcp) sees it: tool definitions small enough to load (issue 33), no
//! definition nobody references, toolsets, and arguments that do not fit
//! coming back as `isError` results that name the field, in the CLI's words.

use std::collections::BTreeSet;

use aide_tests::TestDir;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value, json};

/// The whole `tools/list` of every toolset, compact JSON.
const MAX_LIST_BYTES: usize = 48 * 1024;
/// One tool's definition; transform's, which takes every kind of edit, may be twice that.
const MAX_TOOL_BYTES: usize = 4 * 1024;
const MAX_TRANSFORM_BYTES: usize = 8 * 1024;
/// `aide tools --format openai|anthropic`.
const MAX_HARNESS_BYTES: usize = 32 * 1024;
const MAX_DESCRIPTION_CHARS: usize = 400;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// `aide mcp ARGS` in `t`'s root, connected through rmcp's client.
async fn connect(t: &TestDir, args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(aide_tests::bin_dir().join("aide"));
    // The whole document, as McpClient starts it (mcp_structured.rs holds the compact one).
    let whole: &[&str] = if args.iter().any(|a| a.starts_with("--structured")) { &[] } else { &["--structured", "full"] };
    command.arg("mcp").args(whole).args(args).current_dir(t.root()).env("AIDE_HOME", t.home()).env_remove("AIDE_LOG");
    let transport = TokioChildProcess::new(command).expect("spawn aide mcp");
    ().serve(transport).await.expect("the MCP handshake")
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    let arguments: Map<String, Value> = arguments.as_object().cloned().unwrap_or_default();
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments)).await
}

fn compact_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_vec(value).map(|v| v.len()).unwrap_or(usize::MAX)
}

/// Every `$ref` of a schema names one of its `$defs`, and every one of its
/// `$defs` is named by a `$ref`.
fn assert_definitions_all_used(tool: &str, schema: &Value) {
    fn refs(node: &Value, out: &mut BTreeSet<String>) {
        match node {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    out.insert(r.trim_start_matches("#/$defs/").to_string());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(list) => list.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut used = BTreeSet::new();
    refs(schema, &mut used);
    let defined: BTreeSet<String> =
        schema.get("$defs").and_then(Value::as_object).map(|d| d.keys().cloned().collect()).unwrap_or_default();
    assert_eq!(used, defined, "{tool}: the $refs and the $defs differ in {schema}");
}

#[test]
fn tools_list_is_small_enough_to_load_and_every_definition_is_used() {
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let tools: Vec<Tool> = client.list_all_tools().await.expect("tools/list");
        // The vocabulary the compact schemas leave undescribed is said once, here.
        let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
        for term in aide_core::vocabulary::TERMS {
            assert!(instructions.contains(&format!("- {}: {}", term.name, term.meaning)), "{} missing", term.name);
        }
        let (out, _) = t.cmd("aide").args(["tools", "--format", "mcp", "--json"]).expect_exit(0);
        let catalogue: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(tools.len(), catalogue["definitions"].as_array().unwrap().len(), "every operation is served");
        let total = compact_len(&tools);
        assert!(total <= MAX_LIST_BYTES, "tools/list is {total} bytes, over {MAX_LIST_BYTES}");
        for tool in &tools {
            let name = tool.name.as_ref();
            let size = compact_len(tool);
            let limit = if name == "transform" { MAX_TRANSFORM_BYTES } else { MAX_TOOL_BYTES };
            assert!(size <= limit, "{name} is {size} bytes, over {limit}");
            let description = tool.description.as_deref().unwrap_or("");
            assert!(
                !description.is_empty() && description.chars().count() <= MAX_DESCRIPTION_CHARS,
                "{name}'s description is {} characters",
                description.chars().count()
            );
            let input = Value::Object((*tool.input_schema).clone());
            assert_definitions_all_used(name, &input);
            assert_eq!(input["type"], "object", "{name}");
            let output = Value::Object((**tool.output_schema.as_ref().expect("an output schema")).clone());
            assert_definitions_all_used(name, &output);
            jsonschema::validator_for(&output).unwrap_or_else(|e| panic!("{name}'s output schema: {e}"));
            jsonschema::validator_for(&input).unwrap_or_else(|e| panic!("{name}'s input schema: {e}"));
        }
        // A tool's input holds only its own fields: undo takes no edit operations.
        let undo = tools.iter().find(|t| t.name == "transform_undo").unwrap();
        let undo_input = serde_json::to_string(&*undo.input_schema).unwrap();
        assert!(!undo_input.contains("replace_block") && !undo_input.contains("\"operations\""), "{undo_input}");
        client.cancel().await.ok();
    });
    for format in ["openai", "anthropic"] {
        let (out, _) = t.cmd("aide").args(["tools", "--format", format, "--json"]).expect_exit(0);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let size = compact_len(&doc["definitions"]);
        assert!(size <= MAX_HARNESS_BYTES, "aide tools --format {format} is {size} bytes, over {MAX_HARNESS_BYTES}");
    }
    // The whole schemas stay available to validators.
    let (out, _) = t.cmd("aide").args(["tools", "--format", "mcp", "--full-schemas", "--json"]).expect_exit(0);
    let full: Value = serde_json::from_str(&out).unwrap();
    let transform = full["definitions"].as_array().unwrap().iter().find(|d| d["name"] == "transform").unwrap();
    assert!(transform["inputSchema"]["$defs"].is_object(), "the full schema keeps its $defs");
    assert!(compact_len(&full["definitions"]) > MAX_LIST_BYTES);
}

#[test]
fn toolsets_serve_only_the_groups_asked_for() {
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &["--tools", "search,log"]).await;
        let names: BTreeSet<String> =
            client.list_all_tools().await.expect("tools/list").into_iter().map(|t| t.name.to_string()).collect();
        assert!(names.contains("search") && names.contains("read") && names.contains("log_show"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("shell_") || n.starts_with("jobs_") || n.starts_with("transform")));
        // A tool of a group left out is an unknown tool: a protocol error.
        let refused = call(&client, "shell_exec", json!({ "command": "true" })).await;
        assert!(refused.is_err(), "{refused:?}");
        client.cancel().await.ok();
    });
    let (_, err) = t.cmd("aide").args(["mcp", "--tools", "serch"]).expect_exit(2);
    assert!(err.contains("serch") && err.contains("search"), "{err}");
    let (out, _) = t.cmd("aide").args(["tools", "--format", "anthropic", "--tools", "edit", "--json"]).expect_exit(0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = doc["definitions"].as_array().unwrap().iter().filter_map(|d| d["name"].as_str()).collect();
    assert_eq!(names, ["transform", "transform_undo", "transform_recover", "lint"]);
}

/// The error envelope of an `isError` result.
fn refused(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let doc = result.structured_content.as_ref().expect("structured content");
    assert_eq!(doc["ok"], false, "{doc}");
    assert!(doc["execution_id"].is_string(), "a refused call is a logged run: {doc}");
    let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("");
    assert!(text.contains("error[invalid_request]"), "the text block says it too: {text}");
    &doc["error"]
}

#[test]
fn arguments_that_do_not_fit_are_tool_errors_naming_the_field() {
    let t = TestDir::new();
    t.write("a.txt", "alpha\n");
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        // An unknown argument: its name, the closest valid one, the CLI's words.
        let result = call(&client, "read", json!({ "paths": ["a.txt"], "no_such_argument": 1 })).await.unwrap();
        let error = refused(&result).clone();
        assert_eq!(error["code"], "invalid_request", "{error}");
        assert_eq!(error["details"]["field"], "no_such_argument", "{error}");
        let result = call(&client, "search", json!({ "patern": "x" })).await.unwrap();
        let error = refused(&result).clone();
        assert_eq!(error["details"]["field"], "patern");
        assert_eq!(error["details"]["closest"], "pattern");
        assert!(error["hint"].as_str().unwrap().contains("did you mean `pattern`"), "{error}");
        // A missing argument, under the subcommand the server adds.
        let result = call(&client, "jobs_status", json!({})).await.unwrap();
        let error = refused(&result).clone();
        assert_eq!(error["details"]["field"], "id", "{error}");
        assert!(!error["message"].as_str().unwrap().contains("command.status"), "no server nesting shows: {error}");
        // An old name still works, and says so.
        let result = call(&client, "read", json!({ "path": "a.txt" })).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let doc = result.structured_content.as_ref().unwrap();
        assert_eq!(doc["diagnostics"][0]["code"], "deprecated_name", "{doc}");
        // A wrong type, nested under the subcommand the server adds.
        let result = call(&client, "shell_exec", json!({ "command": "true", "timeout": "soon" })).await.unwrap();
        let error = refused(&result).clone();
        assert_eq!(error["details"]["field"], "timeout", "{error}");
        let result = call(&client, "ast_search", json!({ "symbols": true, "limit": "many" })).await.unwrap();
        assert_eq!(refused(&result)["details"]["field"], "limit");
        // Out of range: a negative count, a page budget under the least.
        let result = call(&client, "search", json!({ "pattern": "x", "limit": -1 })).await.unwrap();
        assert_eq!(refused(&result)["details"]["field"], "limit");
        let result = call(&client, "search", json!({ "pattern": "x", "page_offset": -1 })).await.unwrap();
        assert_eq!(refused(&result)["details"]["field"], "page_offset");
        let result = call(&client, "search", json!({ "pattern": "x", "max_output_chars": 5 })).await.unwrap();
        assert_eq!(refused(&result)["details"]["field"], "max_output_chars");
        // An unknown tool stays a protocol error.
        assert!(call(&client, "serch", json!({})).await.is_err());
        client.cancel().await.ok();
    });
    // The same wording as the CLI's --request.
    t.write("req.json", r#"{"paths": ["a.txt"], "no_such_argument": 1}"#);
    let cli: Value = t.cmd("llm-read").args(["--request", "req.json"]).json(2);
    let t2 = TestDir::new();
    t2.write("a.txt", "alpha\n");
    runtime().block_on(async {
        let client = connect(&t2, &[]).await;
        let result = call(&client, "read", json!({ "paths": ["a.txt"], "no_such_argument": 1 })).await.unwrap();
        let error = refused(&result).clone();
        assert_eq!(error["message"], cli["error"]["message"], "{error} vs {cli}");
        client.cancel().await.ok();
    });
}

/// An outline's text block is the dense form, unless the call says
/// `compact: false`; the structured content has every range either way.
#[test]
fn an_outline_through_mcp_is_the_dense_text() {
    let t = TestDir::new();
    t.write("a.rs", "pub struct Agent { name: String }\nimpl Agent {\n    pub fn run(&self) {}\n}\n");
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let text = |r: &CallToolResult| r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap();
        let dense = call(&client, "ast_search", json!({ "symbols": true })).await.unwrap();
        assert_eq!(text(&dense), "a.rs\n  struct Agent:1-1 {name:1}\n  impl Agent:2-4 {run:3}\n");
        let full = call(&client, "ast_search", json!({ "symbols": true, "compact": false })).await.unwrap();
        assert!(text(&full).contains("Method impl Agent/run [3-3]"), "{}", text(&full));
        assert_eq!(dense.structured_content.unwrap()["symbols"], full.structured_content.unwrap()["symbols"]);
        client.cancel().await.ok();
    });
}

/// A tool's own range checks name the field too (`limit: 0`, a timeout of
/// no seconds), through MCP as on the command line.
#[test]
fn a_tools_own_range_checks_name_the_field() {
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        for (tool, arguments, field) in [
            ("search", json!({ "pattern": "x", "limit": 0 }), "limit"),
            ("shell_exec", json!({ "command": "true", "timeout": 0 }), "timeout"),
        ] {
            let result = call(&client, tool, arguments).await.unwrap();
            assert_eq!(result.is_error, Some(true), "{result:?}");
            let doc = result.structured_content.unwrap();
            assert_eq!(doc["error"]["details"]["field"], field, "{tool}: {doc}");
        }
        client.cancel().await.ok();
    });
}

/// Only a read-only tool's result pages: a transform's report over the
/// budget comes whole as structured content, its text cut, and nothing tells
/// the model to call it again (which would edit again).
#[test]
fn a_result_that_is_not_repeatable_is_never_paged() {
    let t = TestDir::new();
    let operations: Vec<Value> = (0..60)
        .map(
            |i| json!({ "op": "write", "path": format!("new/file_{i:03}.txt"), "content": "x\n", "create_dirs": true }),
        )
        .collect();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let result =
            call(&client, "transform", json!({ "operations": operations, "max_output_chars": 1000 })).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let doc = result.structured_content.clone().unwrap();
        assert!(doc.get("page").is_none(), "{doc}");
        assert_eq!(doc["files"].as_array().map(Vec::len), Some(60));
        let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap();
        assert!(!text.contains("page_offset"), "{text}");
        assert!(text.contains("structured content holds the whole"), "{text}");
        // A read-only tool's large result still pages.
        let listed = call(&client, "discover", json!({ "glob": "new/*", "max_output_chars": 1000 })).await.unwrap();
        let doc = listed.structured_content.unwrap();
        assert!(doc["page"]["next_offset"].is_number(), "{doc}");
        client.cancel().await.ok();
    });
}
