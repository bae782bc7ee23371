//! Refactors through a language server (`llm-transform refactor`, MCP
//! `transform_refactor`), held against the server itself: the same server,
//! asked here directly through a minimal JSON-RPC exchange, gives the edit
//! of its own code action, applied here independently; the file
//! llm-transform leaves must be byte for byte that, still compile, and come
//! back whole on undo. clangd 14's refactors ("tweaks") are C++ only, so
//! its file is C++; pyright organises imports, and typescript-language-server
//! (on TypeScript 5) inlines.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use aide_tests::TestDir;
use serde_json::{Value, json};

const SOURCE: &str = "#include <cstdio>\n\nint compute(int a, int b) {\n    int total = a * 2 + b * 3;\n    std::printf(\"%d\\n\", total);\n    std::printf(\"%d\\n\", a);\n    return total + 1;\n}\n";

/// A language server started here, by hand, as an editor would.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
    /// The edits it sent as `workspace/applyEdit`.
    sent: Vec<Value>,
}

impl Server {
    fn start(argv: &[&str], root: &Path) -> Server {
        let mut child = Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server { child, stdin, stdout, next: 0, sent: Vec::new() };
        let uri = format!("file://{}", root.display());
        let kinds = ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "source"];
        server.request(
            "initialize",
            json!({ "processId": null, "rootUri": uri, "capabilities": {
                "workspace": { "applyEdit": true, "configuration": true },
                "textDocument": { "codeAction": { "codeActionLiteralSupport": { "codeActionKind": { "valueSet": kinds } } } } } }),
        );
        server.send(&json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }));
        server
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = n.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// The answer to `method` (its result, or its error): the server's own
    /// requests meanwhile answered, an edit it sends kept and accepted.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.read();
            if let (Some(asked), Some(their)) = (message["method"].as_str(), message.get("id")) {
                let result = match asked {
                    "workspace/applyEdit" => {
                        self.sent.push(message["params"]["edit"].clone());
                        json!({ "applied": true })
                    }
                    "workspace/configuration" => {
                        json!(vec![Value::Null; message["params"]["items"].as_array().map_or(0, Vec::len)])
                    }
                    _ => Value::Null,
                };
                self.send(&json!({ "jsonrpc": "2.0", "id": their, "result": result }));
            } else if message["id"] == id {
                return message.get("result").or(message.get("error")).cloned().unwrap_or(Value::Null);
            }
        }
    }

    fn open(&mut self, root: &Path, rel: &str, language: &str) -> String {
        let uri = format!("file://{}", root.join(rel).display());
        let text = std::fs::read_to_string(root.join(rel)).unwrap();
        let document = json!({ "uri": uri, "languageId": language, "version": 1, "text": text });
        self.send(
            &json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": document } }),
        );
        uri
    }

    /// The code actions offered at the 0-based (line, character, end line,
    /// end character) `range` of `uri`; only those of kind `only`, if given.
    fn code_actions(&mut self, uri: &str, range: [u64; 4], only: Option<&str>) -> Value {
        let [line, character, end_line, end_character] = range;
        let mut context = json!({ "diagnostics": [] });
        if let Some(kind) = only {
            context["only"] = json!([kind]);
        }
        self.request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri },
                    "range": { "start": { "line": line, "character": character },
                               "end": { "line": end_line, "character": end_character } },
                    "context": context }),
        )
    }

    /// Executes `command`; the edit it made (sent as applyEdit, or answered).
    fn execute(&mut self, command: &Value) -> Value {
        self.sent.clear();
        let params = json!({ "command": command["command"], "arguments": command["arguments"] });
        let answer = self.request("workspace/executeCommand", params);
        self.sent.first().cloned().unwrap_or(answer)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` with a `WorkspaceEdit`'s edits of `uri` made (ASCII text: an LSP
/// character is a byte), each range against the text as it was, inserts at
/// one point in the order given.
fn applied(text: &str, edit: &Value, uri: &str) -> String {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let at = |p: &Value| starts[p["line"].as_u64().unwrap() as usize] + p["character"].as_u64().unwrap() as usize;
    let mut edits: Vec<(usize, usize, &str)> = edit["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("no edit of {uri}: {edit}"))
        .iter()
        .map(|e| (at(&e["range"]["start"]), at(&e["range"]["end"]), e["newText"].as_str().unwrap()))
        .collect();
    edits.sort_by_key(|(start, end, _)| (*start, *end));
    let (mut out, mut from) = (String::new(), 0);
    for (start, end, new) in edits {
        out.push_str(&text[from..start]);
        out.push_str(new);
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// What `rel` becomes by clangd's own tweak `tweak` at the 0-based range
/// (line, character, end line, end character), asked here directly.
fn clangds_own(t: &TestDir, rel: &str, range: [u64; 4], tweak: &str) -> String {
    let mut clangd = Server::start(&["clangd"], t.root());
    let uri = clangd.open(t.root(), rel, "cpp");
    let actions = clangd.code_actions(&uri, range, None);
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["command"]["arguments"][0]["tweakID"] == tweak)
        .unwrap_or_else(|| panic!("clangd offers no {tweak} there: {actions}"));
    let edit = clangd.execute(&action["command"]);
    applied(&std::fs::read_to_string(t.root().join(rel)).unwrap(), &edit, &uri)
}

fn read(t: &TestDir, rel: &str) -> String {
    std::fs::read_to_string(t.root().join(rel)).unwrap()
}

/// Whether the C++ file compiles (when a compiler is here).
fn compiles(t: &TestDir, rel: &str) -> bool {
    if !aide_tests::have("c++") {
        return true;
    }
    Command::new("c++").args(["-fsyntax-only", rel]).current_dir(t.root()).status().unwrap().success()
}

fn cpp() -> TestDir {
    let t = TestDir::new();
    t.write("a.cpp", SOURCE);
    t
}

#[test]
fn clangd_extracts_a_variable_and_a_function_exactly_as_it_says_and_undo_takes_them_back() {
    if !aide_tests::oracle("clangd", "refactors through clangd") {
        return;
    }
    let t = cpp();
    // `a * 2` on line 4 (columns 17-22): what clangd offers there, listed.
    let at = ["--path", "a.cpp", "--line", "4", "--column", "17", "--end-column", "22"];
    let v: Value = t.cmd("llm-transform").arg("refactor").args(at).json(0);
    assert_eq!((&v["mode"], &v["server"]), (&json!("actions"), &json!("clangd")), "{v}");
    let names: Vec<&str> = v["actions"].as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert!(names.contains(&"extract_variable"), "{v}");
    assert_eq!(read(&t, "a.cpp"), SOURCE, "a list writes nothing");
    // The list gives the checksum that guards the action chosen from it.
    let listed_sum = v["checksum"].as_str().unwrap().to_string();
    assert_eq!(listed_sum, aide_core::checksum::sha256_hex(SOURCE.as_bytes()), "{v}");

    let expected = clangds_own(&t, "a.cpp", [3, 16, 3, 21], "ExtractVariable");
    assert_ne!(expected, SOURCE);
    let v: Value = t
        .cmd("llm-transform")
        .arg("refactor")
        .args(at)
        .args(["--action", "extract_variable", "--checksum-before", &listed_sum])
        .json(0);
    assert_eq!(v["refactors"][0]["action"], "extract_variable", "{v}");
    assert_eq!(v["refactors"][0]["server"], "clangd", "{v}");
    assert_eq!(read(&t, "a.cpp"), expected, "the server's own edit, byte for byte");
    assert_eq!(v["checksum_after"], aide_core::checksum::sha256_hex(expected.as_bytes()), "{v}");
    assert!(compiles(&t, "a.cpp"), "{}", read(&t, "a.cpp"));
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "a.cpp"), SOURCE, "undone whole");

    // Lines 5-6, two statements, made a function; verified by a compile.
    let expected = clangds_own(&t, "a.cpp", [4, 0, 5, 27], "ExtractFunction");
    let v: Value = t
        .cmd("llm-transform")
        .args(["refactor", "--path", "a.cpp", "--line", "5", "--end-line", "6", "--action", "extract_function"])
        .args(["--verify-command", "c++ -fsyntax-only a.cpp"])
        .json(0);
    assert_eq!(read(&t, "a.cpp"), expected, "{v}");
    assert_eq!(v["verified"]["command"], "c++ -fsyntax-only a.cpp", "{v}");
    assert!(read(&t, "a.cpp").contains("extracted(a, total);"), "{}", read(&t, "a.cpp"));
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "a.cpp"), SOURCE);
}

#[test]
fn a_refactor_not_offered_stale_or_without_a_server_is_refused_and_writes_nothing() {
    let t = cpp();
    t.write("notes.txt", "x\n");
    let extract = ["refactor", "--path", "a.cpp", "--line", "5", "--end-line", "6", "--action", "extract_function"];
    // No server for the language: said, with where one is looked for.
    let v: Value = t.cmd("llm-transform").env("PATH", "/nonexistent").args(extract).json(4);
    assert_eq!(v["error"]["code"], "server_unavailable", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("AIDE_LSP_CPP"), "{v}");
    let v: Value = t.cmd("llm-transform").args(["refactor", "--path", "notes.txt", "--action", "inline"]).json(2);
    assert_eq!(v["error"]["code"], "unknown_language", "{v}");
    let v: Value = t.cmd("llm-transform").args(["refactor", "--path", "a.cpp", "--line", "40"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    if !aide_tests::oracle("clangd", "refusals of refactors through clangd") {
        return;
    }
    // An action the server does not offer there: what it does offer, listed.
    let v: Value =
        t.cmd("llm-transform").args(["refactor", "--path", "a.cpp", "--line", "5", "--end-line", "6"]).json(0);
    let offered = v["actions"].clone();
    let v: Value = t
        .cmd("llm-transform")
        .args(["refactor", "--path", "a.cpp", "--line", "5", "--end-line", "6", "--action", "extract_variable"])
        .json(3);
    assert_eq!(v["error"]["code"], "not_offered", "{v}");
    assert_eq!(v["error"]["details"]["offered"], offered, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("extract_function"), "{v}");
    // It offers an extract there, of other text: the hint says to select it.
    let hint = v["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("extract_function") && hint.contains("select other text"), "{v}");
    // A stale checksum.
    let v: Value = t.cmd("llm-transform").args(extract).args(["--checksum-before", &"0".repeat(64)]).json(3);
    assert_eq!(v["error"]["code"], "checksum_mismatch", "{v}");
    // The server reads the disk: an earlier operation of the same request
    // that changed the file makes its edit stale, and the whole is refused.
    let request = json!({ "operations": [
        { "op": "patch", "path": "a.cpp", "old_text": "return total + 1;", "new_text": "return total + 2;" },
        { "op": "refactor", "path": "a.cpp", "action": "extract_function", "line": 5, "end_line": 6 } ] });
    let v: Value = t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(3);
    assert_eq!(v["error"]["code"], "checksum_mismatch", "{v}");
    assert_eq!(read(&t, "a.cpp"), SOURCE, "nothing written");
}

#[test]
fn pyright_organises_imports_as_its_own_command_does() {
    if !aide_tests::oracle("pyright-langserver", "organising imports through pyright") {
        return;
    }
    let t = TestDir::new();
    let source = "import sys\nimport os\nfrom collections import OrderedDict\nimport json\n\nprint(os.sep, sys.argv, json.dumps({}), OrderedDict())\n";
    t.write("m.py", source);
    let v: Value = t.cmd("llm-transform").args(["refactor", "--path", "m.py"]).json(0);
    assert!(v["actions"].as_array().unwrap().iter().any(|a| a["action"] == "organize_imports"), "{v}");
    let expected = {
        let mut pyright = Server::start(&["pyright-langserver", "--stdio"], t.root());
        let uri = pyright.open(t.root(), "m.py", "python");
        let edit = pyright.execute(&json!({ "command": "pyright.organizeimports", "arguments": [uri] }));
        applied(source, &edit, &uri)
    };
    assert_ne!(expected, source);
    let v: Value = t.cmd("llm-transform").args(["refactor", "--path", "m.py", "--action", "organize_imports"]).json(0);
    assert_eq!(read(&t, "m.py"), expected, "{v}");
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "m.py"), source);
}

#[test]
fn aide_mcp_lists_applies_and_undoes_a_refactor() {
    if !aide_tests::oracle("clangd", "refactors through clangd over MCP") {
        return;
    }
    let t = cpp();
    let expected = clangds_own(&t, "a.cpp", [3, 16, 3, 21], "ExtractVariable");
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let at = json!({ "path": "a.cpp", "line": 4, "column": 17, "end_column": 22 });
    let result = client.call("transform_refactor", at.clone());
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["actions"][0]["action"], "extract_variable", "{result}");
    let mut apply = at.clone();
    apply["action"] = json!("extract_variable");
    let result = client.call("transform_refactor", apply.clone());
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(read(&t, "a.cpp"), expected, "{result}");
    // Again, on the changed file: clangd offers nothing of that name there now.
    let again = client.call("transform_refactor", json!({ "path": "a.cpp", "line": 1, "action": "extract_variable" }));
    assert_eq!(
        (&again["isError"], &again["structuredContent"]["error"]["code"]),
        (&json!(true), &json!("not_offered")),
        "{again}"
    );
    // The hint says what the server did offer there, and asks for other
    // text only when it offers an extract.
    let error = &again["structuredContent"]["error"];
    let hint = error["hint"].as_str().unwrap();
    let offered: Vec<&str> =
        error["details"]["offered"].as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert!(offered.iter().all(|a| hint.contains(a)), "{again}");
    assert_eq!(hint.contains("select other text"), offered.iter().any(|a| a.starts_with("extract")), "{again}");
    if offered.is_empty() {
        assert!(hint.contains("offers nothing"), "{again}");
    }
    let result = client.call("transform_undo", json!({ "last": 1 }));
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(read(&t, "a.cpp"), SOURCE);
}

/// transform_refactor's place is described to a model in one span
/// convention: `line`, `column`, `end_line`, `end_column` are the shared
/// vocabulary's (the server's instructions say them once, the end
/// exclusive), and the tool's description gives the refactor's defaults.
#[test]
fn transform_refactors_place_is_described_in_the_shared_span_convention() {
    let t = TestDir::new();
    let mut client = aide_tests::mcp::McpClient::start(t.root(), t.home(), &[]);
    let hello = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "aide-tests", "version": "1" } });
    let reply = client.request("initialize", hello);
    let instructions = reply["result"]["instructions"].as_str().unwrap().to_string();
    client.notify("notifications/initialized", json!({}));
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let refactor = tools.iter().find(|tool| tool["name"] == "transform_refactor").expect("transform_refactor listed");
    let properties = &refactor["inputSchema"]["properties"];
    for field in ["line", "column", "end_line", "end_column"] {
        assert_eq!(properties[field]["type"], "integer", "{field}: {refactor}");
    }
    let description = refactor["description"].as_str().unwrap();
    assert!(description.contains("end_line:end_column, end exclusive"), "{description}");
    assert!(description.contains("end_line defaults to line"), "{description}");
    for said in [
        "end_line: the line a span ends on: its end is (end_line, end_column), exclusive",
        "end_column: the column of a span's exclusive end",
    ] {
        assert!(instructions.contains(said), "{said} not in the instructions: {instructions}");
    }
}

/// `new_name` names what an extract makes: clangd's own edit with its
/// `placeholder` (or `extracted`) written as the name given, in the one
/// commit undo takes back whole; a name the file uses, or no identifier,
/// is refused with nothing written.
// Long because: two extracts named against clangd's own edits, each undone, then the refusals and the same over MCP.
#[test]
fn new_name_names_an_extract_exactly_in_one_commit() {
    if !aide_tests::oracle("clangd", "naming extracts made through clangd") {
        return;
    }
    let t = cpp();
    let expected = clangds_own(&t, "a.cpp", [3, 16, 3, 21], "ExtractVariable");
    assert!(expected.contains("placeholder") && !SOURCE.contains("placeholder"), "{expected}");
    let at = ["--path", "a.cpp", "--line", "4", "--column", "17", "--end-column", "22"];
    let v: Value = t
        .cmd("llm-transform")
        .arg("refactor")
        .args(at)
        .args(["--action", "extract_variable", "--new-name", "doubled"])
        .json(0);
    assert_eq!(read(&t, "a.cpp"), expected.replace("placeholder", "doubled"), "{v}");
    assert_eq!(v["refactors"][0]["named_from"], "placeholder", "{v}");
    assert!(compiles(&t, "a.cpp"), "{}", read(&t, "a.cpp"));
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "a.cpp"), SOURCE, "one commit, undone whole");

    let expected = clangds_own(&t, "a.cpp", [4, 0, 5, 27], "ExtractFunction");
    let v: Value = t
        .cmd("llm-transform")
        .args(["refactor", "--path", "a.cpp", "--line", "5", "--end-line", "6", "--action", "extract_function"])
        .args(["--new-name", "report_both"])
        .json(0);
    let named_from = v["refactors"][0]["named_from"].as_str().unwrap().to_string();
    assert!(!SOURCE.contains(&named_from), "{v}");
    assert_eq!(read(&t, "a.cpp"), expected.replace(&named_from, "report_both"), "{v}");
    assert!(read(&t, "a.cpp").contains("report_both(a, total);"), "{}", read(&t, "a.cpp"));
    assert!(compiles(&t, "a.cpp"), "{}", read(&t, "a.cpp"));
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "a.cpp"), SOURCE);

    // A name the file already uses would capture it: refused.
    let v: Value = t
        .cmd("llm-transform")
        .arg("refactor")
        .args(at)
        .args(["--action", "extract_variable", "--new-name", "total"])
        .json(3);
    assert_eq!((&v["error"]["code"], &v["error"]["details"]["field"]), (&json!("conflict"), &json!("new_name")), "{v}");
    let v: Value = t
        .cmd("llm-transform")
        .arg("refactor")
        .args(at)
        .args(["--action", "extract_variable", "--new-name", "2x"])
        .json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    assert_eq!(read(&t, "a.cpp"), SOURCE, "nothing written");

    let expected = clangds_own(&t, "a.cpp", [3, 16, 3, 21], "ExtractVariable");
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let named = json!({ "path": "a.cpp", "line": 4, "column": 17, "end_column": 22, "action": "extract_variable", "new_name": "doubled" });
    let result = client.call("transform_refactor", named);
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(read(&t, "a.cpp"), expected.replace("placeholder", "doubled"), "over MCP the same: {result}");
}

/// The edits of `uri` in a `WorkspaceEdit`, whether the server sent them as
/// `changes` or as `documentChanges` (typescript-language-server does).
fn as_changes(edit: &Value, uri: &str) -> Value {
    let Some(documents) = edit["documentChanges"].as_array() else { return edit.clone() };
    let edits: Vec<Value> = documents
        .iter()
        .filter(|d| d["textDocument"]["uri"] == uri)
        .flat_map(|d| d["edits"].as_array().cloned().unwrap_or_default())
        .collect();
    json!({ "changes": { uri: edits } })
}

/// Inline is offered by typescript-language-server (TypeScript 5's
/// "Inline variable"; clangd 14 and pyright offer none): what llm-transform
/// applies is the server's own edit, asked here directly, and undo takes it
/// back.
#[test]
fn typescript_language_server_inlines_a_variable_as_its_own_action_does() {
    if !aide_tests::oracle("typescript-language-server", "inlining through typescript-language-server") {
        return;
    }
    let t = TestDir::new();
    let source = "export function area(): number {\n  const width = 3 * 4;\n  return width + width;\n}\n";
    t.write("tsconfig.json", "{ \"compilerOptions\": { \"strict\": true } }\n");
    t.write("a.ts", source);
    let at = ["--path", "a.ts", "--line", "2", "--column", "9"];
    let v: Value = t.cmd("llm-transform").arg("refactor").args(at).json(0);
    assert_eq!(v["server"], "typescript-language-server", "{v}");
    assert!(v["actions"].as_array().unwrap().iter().any(|a| a["action"] == "inline_variable"), "{v}");
    // The place the listing resolved (1-based, end exclusive), as the server is asked.
    let range = [&v["line"], &v["column"], &v["end_line"], &v["end_column"]].map(|n| n.as_u64().unwrap() - 1);
    let sum = v["checksum"].as_str().unwrap().to_string();

    let expected = {
        let mut server = Server::start(&["typescript-language-server", "--stdio"], t.root());
        let uri = server.open(t.root(), "a.ts", "typescript");
        let actions = server.code_actions(&uri, range, Some("refactor.inline"));
        let action = actions
            .as_array()
            .and_then(|all| all.iter().find(|a| a["kind"] == "refactor.inline.variable"))
            .unwrap_or_else(|| panic!("the server offers no inline there: {actions}"))
            .clone();
        let edit = match action.get("edit") {
            Some(edit) => edit.clone(),
            None => server.execute(&action["command"]),
        };
        applied(source, &as_changes(&edit, &uri), &uri)
    };
    assert_ne!(expected, source);
    let v: Value = t
        .cmd("llm-transform")
        .arg("refactor")
        .args(at)
        .args(["--action", "inline_variable", "--checksum-before", &sum])
        .json(0);
    assert_eq!(v["refactors"][0]["kind"], "refactor.inline.variable", "{v}");
    assert_eq!(read(&t, "a.ts"), expected, "the server's own edit, byte for byte");
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(read(&t, "a.ts"), source, "undone whole");
}
