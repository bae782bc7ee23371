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

use aide_tests::mcp::{OPENAI_BYTES_PER_OPERATION, max_model_bytes, max_tool_bytes};

const MAX_DESCRIPTION_CHARS: usize = 400;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// `aide mcp ARGS` in `t`'s root, connected through rmcp's client.
async fn connect(t: &TestDir, args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(aide_tests::bin_dir().join("aide"));
    // The whole document, as McpClient starts it (mcp_structured.rs holds the compact one).
    let whole: &[&str] =
        if args.iter().any(|a| a.starts_with("--structured")) { &[] } else { &["--structured", "full"] };
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
        let mut total = 0;
        let mut over = Vec::new();
        for tool in &tools {
            let name = tool.name.as_ref();
            let size = compact_len(&model_loads(tool));
            total += size;
            let limit = max_tool_bytes(name);
            if size > limit {
                over.push(format!("{name} is {size} bytes, over {limit}"));
            }
        }
        assert!(over.is_empty(), "what a model loads: {over:?}");
        // Output schemas are not shown to a model and are not counted.
        let cap = max_model_bytes(tools.len());
        assert!(total <= cap, "what a model loads is {total} bytes, over {cap} for {} tools", tools.len());
        for tool in &tools {
            let name = tool.name.as_ref();
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
    for (format, per_operation) in
        [("anthropic", aide_tests::mcp::MODEL_BYTES_PER_OPERATION), ("openai", OPENAI_BYTES_PER_OPERATION)]
    {
        let (out, _) = t.cmd("aide").args(["tools", "--format", format, "--json"]).expect_exit(0);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let definitions = doc["definitions"].as_array().unwrap();
        let limit = per_operation * definitions.len();
        let size: usize = definitions.iter().map(compact_len).sum();
        assert!(size <= limit, "aide tools --format {format} is {size} bytes, over {limit}");
    }
    // The whole schemas stay available to validators.
    let (out, _) = t.cmd("aide").args(["tools", "--format", "mcp", "--full-schemas", "--json"]).expect_exit(0);
    let full: Value = serde_json::from_str(&out).unwrap();
    let transform = full["definitions"].as_array().unwrap().iter().find(|d| d["name"] == "transform").unwrap();
    assert!(transform["inputSchema"]["$defs"].is_object(), "the full schema keeps its $defs");
    assert!(compact_len(&full["definitions"]) > max_model_bytes(full["definitions"].as_array().unwrap().len()));
}

/// What a harness shows a model of a tool: its name, description and input schema.
fn model_loads(tool: &Tool) -> Value {
    json!({ "name": tool.name, "description": tool.description, "input_schema": tool.input_schema })
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
    assert_eq!(names, ["transform", "transform_refactor", "transform_undo", "transform_recover", "lint"]);
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

/// A file's outline's text block is the dense form, unless the call says
/// `compact: false`, and a folder's its exported surface; the structured
/// content has every range either way.
#[test]
fn an_outline_through_mcp_is_the_dense_text() {
    let t = TestDir::new();
    t.write("a.rs", "pub struct Agent { name: String }\nimpl Agent {\n    pub fn run(&self) {}\n}\n");
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let text = |r: &CallToolResult| r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap();
        let dense = call(&client, "ast_search", json!({ "symbols": true, "paths": ["a.rs"] })).await.unwrap();
        assert_eq!(text(&dense), "a.rs\n  struct Agent:1-1 {name:1}\n  impl Agent:2-4 {run:3}\n");
        let full =
            call(&client, "ast_search", json!({ "symbols": true, "paths": ["a.rs"], "compact": false })).await.unwrap();
        assert!(text(&full).contains("Method impl Agent/run [3-3]"), "{}", text(&full));
        let folder = call(&client, "ast_search", json!({ "symbols": true })).await.unwrap();
        assert_eq!(
            text(&folder),
            "a.rs\n  struct Agent:1\n(exported top-level symbols only: 1 other top-level symbol and members not shown; all: true lists every symbol)\n"
        );
        let dense_symbols = dense.structured_content.unwrap()["symbols"].clone();
        assert_eq!(dense_symbols, full.structured_content.unwrap()["symbols"]);
        // The folder holds only a.rs: every symbol, whatever its text shows.
        assert_eq!(folder.structured_content.unwrap()["symbols"], dense_symbols);
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
        // Text never points to content a text reader cannot see: log_show returns the whole.
        assert!(text.contains("log_show") && !text.contains("structured content"), "{text}");
        // A read-only tool's large result still pages.
        let listed = call(&client, "discover", json!({ "glob": "new/*", "max_output_chars": 1000 })).await.unwrap();
        let doc = listed.structured_content.unwrap();
        assert!(doc["page"]["next_offset"].is_number(), "{doc}");
        client.cancel().await.ok();
    });
}

/// The definitions `aide tools --format mcp` prints, by name (`--full-schemas`: whole).
fn definitions(t: &TestDir, full: bool) -> std::collections::BTreeMap<String, Value> {
    let mut args = vec!["tools", "--format", "mcp", "--json"];
    if full {
        args.push("--full-schemas");
    }
    let (out, _) = t.cmd("aide").args(args).expect_exit(0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    doc["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["name"].as_str().unwrap().to_string(), d.clone()))
        .collect()
}

fn names(list: &Value) -> BTreeSet<String> {
    list.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// An argument a call cannot do without (a request field with no default
/// that is not optional) is `required` in its tool's input schema, as the
/// full schema derives it from the type, and a call without it is refused
/// naming it.
#[test]
fn required_arguments_are_marked_as_the_types_say() {
    let t = TestDir::new();
    let (full, compact) = (definitions(&t, true), definitions(&t, false));
    for (name, shown) in &compact {
        let schema = &shown["inputSchema"];
        let properties: BTreeSet<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
        let whole: BTreeSet<String> =
            names(&full[name]["inputSchema"]["required"]).intersection(&properties).cloned().collect();
        assert_eq!(names(&schema["required"]), whole, "{name}");
    }
    let needed = [
        ("search", "pattern"),
        ("read", "paths"),
        ("ide_operation", "program"),
        ("git", "command"),
        ("jobs_logs", "id"),
        ("jobs_kill", "id"),
    ];
    for (tool, field) in needed {
        assert!(names(&compact[tool]["inputSchema"]["required"]).contains(field), "{tool}: {field}");
    }
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        for (tool, field) in [("search", "pattern"), ("read", "paths"), ("jobs_kill", "id")] {
            let result = call(&client, tool, json!({})).await.unwrap();
            assert_eq!(refused(&result)["details"]["field"], field, "{tool}");
        }
        client.cancel().await.ok();
    });
}

/// `tools/call` of a name no tool has is a protocol error whose message and
/// data name the 1-3 closest tools.
#[test]
fn an_unknown_tool_names_the_closest_tools() {
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        for (name, expected) in [("serch", "search"), ("jobs", "jobs_list"), ("read_file", "read"), ("qqqqqqqqqq", "")]
        {
            let Err(ServiceError::McpError(error)) = call(&client, name, json!({})).await else {
                panic!("{name}: not a protocol error");
            };
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{name}");
            let closest = names(&error.data.as_ref().unwrap()["closest"]);
            assert!((1..=3).contains(&closest.len()), "{name}: {closest:?}");
            assert!(expected.is_empty() || closest.contains(expected), "{name}: {closest:?}");
            for c in &closest {
                assert!(error.message.contains(&format!("`{c}`")), "{name}: {}", error.message);
            }
        }
        client.cancel().await.ok();
    });
}

/// The known fields an unknown argument's hint lists are exactly the ones
/// the tool's input schema shows: never an old name or a knob the server
/// sets (file_glob, patterns, threads, max_output_bytes).
#[test]
fn an_unknown_arguments_known_fields_are_the_schemas() {
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        for tool in client.list_all_tools().await.expect("tools/list") {
            let name = tool.name.to_string();
            let result = call(&client, &name, json!({ "no_such_argument": 1 })).await.unwrap();
            let error = refused(&result).clone();
            assert_eq!(error["details"]["field"], "no_such_argument", "{name}: {error}");
            let hint = error["hint"].as_str().unwrap_or("");
            let listed: BTreeSet<String> = hint
                .rsplit("known fields: ")
                .next()
                .unwrap_or("")
                .split(", ")
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect();
            let shown: BTreeSet<String> =
                tool.input_schema["properties"].as_object().unwrap().keys().cloned().collect();
            assert_eq!(listed, shown, "{name}: {hint}");
        }
        client.cancel().await.ok();
    });
}

/// Every name of the shared vocabulary a tool's schema shows, and the
/// walking fields the instructions say search, ast_search and discover
/// take, is an argument the tool takes: a value of the wrong type is
/// refused as that argument's, never as an unknown field.
#[test]
fn every_vocabulary_term_a_tool_shows_is_taken() {
    const WALKING: [&str; 5] = ["hidden", "no_ignore", "follow", "max_depth", "max_filesize"];
    let t = TestDir::new();
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
        assert!(instructions.contains(&format!("also take {}", WALKING.join(", "))), "{instructions}");
        assert!(instructions.contains("also take no_redact"), "{instructions}");
        for tool in client.list_all_tools().await.expect("tools/list") {
            let name = tool.name.to_string();
            let properties = tool.input_schema["properties"].as_object().unwrap().clone();
            let mut terms: Vec<&str> =
                aide_core::vocabulary::TERMS.iter().map(|t| t.name).filter(|t| properties.contains_key(*t)).collect();
            if ["search", "ast_search", "discover"].contains(&name.as_str()) {
                terms.extend(WALKING);
            }
            if ["shell_exec", "term_read", "jobs_wait", "jobs_logs", "shell_session_show"].contains(&name.as_str()) {
                terms.push("no_redact");
            }
            // A tool over several subcommands: the term is taken by one of them.
            let choices: Vec<Option<Value>> = match properties.get("command").and_then(|c| c["enum"].as_array()) {
                Some(values) => values.iter().cloned().map(Some).collect(),
                None => vec![None],
            };
            for term in terms {
                let mut taken = Vec::new();
                for choice in &choices {
                    let mut arguments = json!({ term: { "not": "a value of any field" } });
                    if let Some(choice) = choice {
                        arguments["command"] = choice.clone();
                    }
                    let result = call(&client, &name, arguments).await.unwrap();
                    assert_eq!(result.is_error, Some(true), "{name} {term}: {result:?}");
                    let error = result.structured_content.clone().unwrap()["error"].clone();
                    taken.push(!error["message"].as_str().unwrap_or("").contains("unknown field"));
                }
                assert!(taken.contains(&true), "{name} does not take `{term}`");
            }
        }
        client.cancel().await.ok();
    });
}

/// `search {"paths": [...]}`: only the files at or beneath those paths,
/// the walk's filters still applying; a path that is not there is refused.
#[test]
fn search_takes_paths() {
    let t = TestDir::new();
    t.write("a/one.txt", "needle\n");
    t.write("a/deep/two.txt", "needle\n");
    t.write("b/three.txt", "needle\n");
    t.write("c.txt", "needle\n");
    runtime().block_on(async {
        let client = connect(&t, &[]).await;
        let result = call(&client, "search", json!({ "pattern": "needle", "paths": ["a", "c.txt"] })).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap();
        for shown in ["a/one.txt", "a/deep/two.txt", "c.txt"] {
            assert!(text.contains(shown), "{shown}: {text}");
        }
        assert!(!text.contains("b/three.txt"), "{text}");
        let result = call(&client, "search", json!({ "pattern": "needle", "paths": "nowhere" })).await.unwrap();
        assert_eq!(result.is_error, Some(true), "{result:?}");
        client.cancel().await.ok();
    });
}
