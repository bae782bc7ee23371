//! A language server as the references engine: where the syntax engine can
//! only say a site is spelled like the symbol, the project's own server
//! (pyright here) knows its type. Without a server, or when it fails, the
//! syntax engine answers and a diagnostic says so.

use aide_tests::TestDir;
use serde_json::{Value, json};

const APP: &str = "class Blueprint:\n    def add_rule(self) -> None:\n        pass\n\n\nclass Flask:\n    def add_rule(self) -> None:\n        pass\n\n\ndef setup(app: Flask, bp: Blueprint) -> None:\n    app.add_rule()\n    bp.add_rule()\n\n\ndef other(x) -> None:\n    x.add_rule()\n";

fn lines(v: &Value) -> Vec<(u64, String)> {
    v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["matched"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn pyright_answers_which_calls_are_the_methods_own() {
    if !aide_tests::oracle("pyright-langserver", "references through a language server") {
        return;
    }
    let t = TestDir::new();
    t.write("app.py", APP);
    // The syntax engine: the typed call and an unknown receiver's.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Blueprint/add_rule"]).json(0);
    assert_eq!(v["engine"], "syntax");
    assert_eq!(lines(&v), [(13, "resolved".to_string()), (17, "unresolved".to_string())]);
    // The server knows `x` is not a Blueprint: only the real call.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Blueprint/add_rule", "--engine", "lsp"]).json(0);
    assert_eq!(v["engine"], "lsp", "{v}");
    assert_eq!(lines(&v), [(13, "resolved".to_string())]);
    assert_eq!(v["references"][0]["enclosing"], "setup");
    let read: Value = t.cmd("llm-read").arg("app.py").json(0);
    assert_eq!(v["references"][0]["checksum"], read["files"][0]["checksum"], "records carry the file's checksum");
    let v: Value = t
        .cmd("llm-ast-search")
        .args(["--references", "Blueprint/add_rule", "--engine", "lsp", "--include-definition"])
        .json(0);
    assert_eq!(lines(&v), [(2, "resolved".to_string()), (13, "resolved".to_string())], "{v}");
    assert_eq!(v["references"][0]["kind"], "definition");
}

#[test]
fn without_a_working_server_the_syntax_engine_answers_and_says_why() {
    let t = TestDir::new();
    t.write("app.py", APP);
    // A server that starts and fails.
    let v: Value = t
        .cmd("llm-ast-search")
        .env("AIDE_LSP_PYTHON", "/bin/false --stdio")
        .args(["--references", "Blueprint/add_rule", "--engine", "lsp"])
        .json(0);
    assert_eq!(v["engine"], "syntax");
    assert_eq!(v["diagnostics"][0]["code"], "lsp_failed", "{v}");
    assert_eq!(lines(&v).len(), 2);
    // A configured server that is not there is no server.
    let v: Value = t
        .cmd("llm-ast-search")
        .env("AIDE_LSP_PYTHON", "/nonexistent/language-server --stdio")
        .args(["--references", "Blueprint/add_rule", "--engine", "lsp"])
        .json(0);
    assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_unavailable")), "{v}");
    let said = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(said.contains("AIDE_LSP_PYTHON names /nonexistent/language-server, which is not found"), "{said}");
    // No server for the language at all: `lsp` and `auto` both say so
    // (issue 47: asked for a server, the caller is told there is none).
    t.write("main.go", "package main\n\nfunc Run() {}\n\nfunc main() { Run() }\n");
    for engine in ["lsp", "auto"] {
        let v: Value = t
            .cmd("llm-ast-search")
            .env("PATH", "/nonexistent")
            .args(["--references", "Run", "--engine", engine])
            .json(0);
        assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_unavailable")), "{v}");
        // The servers looked for are named: what a model can tell its user to install.
        assert!(
            v["diagnostics"][0]["message"]
                .as_str()
                .unwrap()
                .contains("no go language server is installed (gopls on PATH)"),
            "{v}"
        );
        assert_eq!(v["references"][0]["line"], 5);
    }
}

/// The number of language-server keepers alive for this test's AIDE_HOME.
fn live_keepers(t: &TestDir) -> usize {
    let out = t.cmd("aide").args(["doctor", "--json"]).output();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "language_servers").cloned().unwrap();
    check["detail"].as_str().unwrap().matches(", pid ").count()
}

#[test]
fn a_warm_server_answers_again_and_sees_every_edit_since() {
    if !aide_tests::oracle("pyright-langserver", "a language server kept warm") {
        return;
    }
    let t = TestDir::new();
    t.write("app.py", APP);
    let ask = |t: &TestDir| -> Vec<(u64, String)> {
        let v: Value = t.cmd("llm-ast-search").args(["--references", "Flask/add_rule", "--engine", "lsp"]).json(0);
        assert_eq!(v["engine"], "lsp", "{v}");
        v["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["line"].as_u64().unwrap(), r["path"].as_str().unwrap().to_string()))
            .collect()
    };
    assert_eq!(ask(&t), [(12, "app.py".to_string())]);
    assert_eq!(live_keepers(&t), 1, "the first question leaves the server warm in a keeper");
    // A new file that calls it, and the old call removed: the warm server sees both.
    t.write("more.py", "from app import Flask\n\n\ndef run(f: Flask) -> None:\n    f.add_rule()\n");
    t.write("app.py", APP.replace("    app.add_rule()\n", "    pass\n"));
    assert_eq!(ask(&t), [(5, "more.py".to_string())]);
    std::fs::remove_file(t.root().join("more.py")).unwrap();
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Flask/add_rule", "--engine", "lsp"]).json(1);
    assert_eq!(v["references"], json!([]), "a removed file's call is gone: {v}");
    assert_eq!(live_keepers(&t), 1, "one keeper a root and server");
}

#[test]
fn hover_shows_the_servers_type_or_else_the_declaration_head() {
    let t = TestDir::new();
    t.write("app.py", APP);
    let v: Value = t
        .cmd("llm-ast-search")
        .env("PATH", "/nonexistent")
        .args(["--hover", "Flask/add_rule", "--engine", "lsp"])
        .json(0);
    assert_eq!(v["engine"], "syntax");
    assert_eq!(v["diagnostics"][0]["code"], "lsp_unavailable", "{v}");
    assert_eq!(v["hover"], json!(["def add_rule(self) -> None"]));
    assert_eq!(v["definitions"][0]["name_path"], "Flask/add_rule");
    if !aide_tests::oracle("pyright-langserver", "hover through a language server") {
        return;
    }
    let v: Value = t.cmd("llm-ast-search").args(["--hover", "Flask/add_rule", "--engine", "lsp"]).json(0);
    assert_eq!(v["engine"], "lsp", "{v}");
    let text = v["hover"][0].as_str().unwrap();
    assert!(text.contains("def add_rule(self: Self@Flask) -> None"), "{text}");
}

const SHAPES: &str = "struct Shape {\n    virtual double area() const = 0;\n    virtual ~Shape() = default;\n};\n\nstruct Square : Shape {\n    double area() const override { return 1.0; }\n};\n\nstruct Circle : public Shape {\n    double area() const override { return 3.0; }\n};\n\nstruct Unrelated {\n    double area() const { return 0.0; }\n};\n";

fn name_paths(v: &Value) -> Vec<&str> {
    v["definitions"].as_array().unwrap().iter().map(|d| d["name_path"].as_str().unwrap()).collect()
}

#[test]
fn implementations_by_declaration_heads_and_by_clangd_agree() {
    let t = TestDir::new();
    t.write("shapes.cpp", SHAPES);
    t.write("shapes.rs", "trait Shape { fn area(&self) -> f64; }\nstruct Sq;\nimpl Shape for Sq { fn area(&self) -> f64 { 1.0 } }\nimpl Sq { fn area2(&self) {} }\n");
    let v: Value = t.cmd("llm-ast-search").args(["--implementations", "Shape/area", "-t", "cpp"]).json(0);
    assert_eq!(v["engine"], "syntax");
    assert_eq!(name_paths(&v), ["Square/area", "Circle/area"]);
    let v: Value = t.cmd("llm-ast-search").args(["--implementations", "Shape", "-t", "rust"]).json(0);
    assert_eq!(name_paths(&v), ["impl Shape for Sq"]);
    if !aide_tests::oracle("clangd", "implementations through a language server") {
        return;
    }
    for (name, expected) in [("Shape/area", ["Square/area", "Circle/area"]), ("Shape", ["Square", "Circle"])] {
        let v: Value =
            t.cmd("llm-ast-search").args(["--implementations", name, "--engine", "lsp", "-t", "cpp"]).json(0);
        assert_eq!(v["engine"], "lsp", "{v}");
        assert_eq!(name_paths(&v), expected, "{v}");
    }
}

#[test]
fn rename_symbol_by_the_server_renames_what_types_say_and_undoes() {
    let t = TestDir::new();
    let source = "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 2\n\n\ndef make() -> A:\n    return A()\n\n\ndef go(b: B):\n    make().run()\n    b.run()\n";
    t.write("m.py", source);
    t.write("ops.json", r#"{"operations":[{"op":"rename_symbol","name":"A/run","new_name":"start"}]}"#);
    // The syntax engine cannot tell what `make()` returns: it refuses.
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json"]).json(3);
    assert_eq!(v["error"]["code"], "unresolved_sites");
    // Without a server, `lsp` renames by syntax, which refuses the same way, and says why.
    let v: Value =
        t.cmd("llm-transform").env("PATH", "/nonexistent").args(["--edits", "ops.json", "--engine", "lsp"]).json(3);
    assert_eq!(v["error"]["code"], "unresolved_sites", "{v}");
    if !aide_tests::oracle("pyright-langserver", "a rename through a language server") {
        return;
    }
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json", "--engine", "lsp"]).json(0);
    let rename = &v["renames"][0];
    assert_eq!(
        (&rename["engine"], &rename["renamed"], &rename["unresolved"]),
        (&json!("lsp"), &json!(2), &json!(0)),
        "{v}"
    );
    assert_eq!(
        std::fs::read_to_string(t.root().join("m.py")).unwrap(),
        source
            .replace("def run(self):\n        return 1", "def start(self):\n        return 1")
            .replace("make().run()", "make().start()")
    );
    // The same guarantees as any transform: undone whole.
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(std::fs::read_to_string(t.root().join("m.py")).unwrap(), source);
    // The per-operation field says it too.
    t.write("ops.json", r#"{"operations":[{"op":"rename_symbol","name":"A/run","new_name":"start","engine":"lsp"}]}"#);
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json", "--dry-run"]).json(0);
    assert_eq!(v["renames"][0]["engine"], "lsp", "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join("m.py")).unwrap(), source, "a dry run writes nothing");
}

#[test]
fn a_place_names_the_symbol_written_there_and_the_server_says_which_it_is() {
    let t = TestDir::new();
    let source = "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 2\n\n\ndef make() -> A:\n    return A()\n\n\ndef go(b: B):\n    make().run()\n    b.run()\n";
    t.write("m.py", source);
    // By syntax, the place is its name: both definitions of `run`.
    let v: Value = t.cmd("llm-ast-search").args(["--definitions", "m.py:16:12"]).json(0);
    assert_eq!((&v["engine"], &v["matching"]), (&json!("syntax"), &json!("by_name")));
    assert_eq!(name_paths(&v), ["A/run", "B/run"]);
    // A place where no name is written is refused, saying how to name one.
    let v: Value = t.cmd("llm-ast-search").args(["--definitions", "m.py:16:40"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments");
    let v: Value = t.cmd("llm-ast-search").args(["--hover", "nope.py:1:1"]).json(2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    if !aide_tests::oracle("pyright-langserver", "places through a language server") {
        return;
    }
    // The server knows what `make()` returns.
    let v: Value = t.cmd("llm-ast-search").args(["--definitions", "m.py:16:12", "--engine", "lsp"]).json(0);
    assert_eq!((&v["engine"], &v["matching"]), (&json!("lsp"), &json!("definition")), "{v}");
    assert_eq!(name_paths(&v), ["A/run"]);
    let v: Value =
        t.cmd("llm-ast-search").args(["--references", "m.py:17:7", "--engine", "lsp", "--include-definition"]).json(0);
    let lines: Vec<u64> = v["references"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [7, 17], "B.run's definition and its one call: {v}");
    assert_eq!(v["references"][0]["kind"], "definition");
    let v: Value = t.cmd("llm-ast-search").args(["--hover", "m.py:16:5", "--engine", "lsp"]).json(0);
    assert_eq!(name_paths(&v), ["make"]);
    assert!(v["hover"][0].as_str().unwrap().contains("-> A"), "{v}");
}

#[test]
fn aide_mcp_keeps_the_server_warm_in_its_own_process() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    if !aide_tests::oracle("pyright-langserver", "a language server kept by aide mcp") {
        return;
    }
    let t = TestDir::new();
    t.write("app.py", APP);
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let mut ask = || {
        let result = client.call("ast_search", json!({"references": "Blueprint/add_rule", "engine": "lsp"}));
        let doc = result["structuredContent"].clone();
        assert_eq!(doc["engine"], "lsp", "{result}");
        lines(&doc)
    };
    assert_eq!(ask(), [(13, "resolved".to_string())]);
    // pyright checks every 3 s that the process named by `initialize`'s
    // processId is alive, by a signal the sandbox's scope refuses: it then
    // quit, and the next call found it gone (lsp_failed). Not a race: a
    // server that stays answers however late this call comes.
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(ask(), [(13, "resolved".to_string())], "asked again, of the same server");
    t.write("app.py", APP.replace("    bp.add_rule()\n", "    pass\n    bp.add_rule()\n"));
    assert_eq!(ask(), [(14, "resolved".to_string())], "an edit between calls is seen");
    assert!(!t.home().join("lsp").exists(), "no keeper: the server lives in aide mcp's process");
}

/// A project big enough that a cold pyright, asked at once, has not yet
/// listed its files (it answers from the one file opened): `target` defined
/// in pkg/core.py, imported and called by every other module and a test.
fn many_modules(t: &TestDir) -> Vec<(String, u64)> {
    t.write("pkg/__init__.py", "");
    t.write("pkg/core.py", "def target(x: int) -> int:\n    return x\n");
    let mut expected = Vec::new();
    for group in 0..6 {
        t.write(&format!("pkg/g{group}/__init__.py"), "");
        for n in 0..10 {
            let path = format!("pkg/g{group}/m{n}.py");
            t.write(&path, format!("from pkg.core import target\n\n\ndef use_{n}() -> int:\n    return target({n})\n"));
            expected.extend([(path.clone(), 1), (path, 5)]);
        }
    }
    t.write(
        "tests/test_core.py",
        "from pkg.core import target\n\n\ndef test_target() -> None:\n    assert target(1) == 1\n",
    );
    expected.extend([("tests/test_core.py".to_string(), 1), ("tests/test_core.py".to_string(), 5)]);
    expected.sort();
    expected
}

fn places(v: &Value) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap().to_string(), r["line"].as_u64().unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_cold_pyright_is_asked_only_once_it_has_loaded_the_project() {
    if !aide_tests::oracle("pyright-langserver", "a cold language server's first answer") {
        return;
    }
    let t = TestDir::new();
    let expected = many_modules(&t);
    // The first question starts the server: answered once it has listed the project's files, not before.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "target", "--engine", "lsp"]).json(0);
    assert_eq!((&v["engine"], &v["diagnostics"]), (&json!("lsp"), &json!([])), "{v}");
    assert_eq!(places(&v), expected, "every module's import and call, from the first answer");
    // A cold rename renames every use, not the definition alone.
    let t = TestDir::new();
    many_modules(&t);
    t.write("ops.json", r#"{"operations":[{"op":"rename_symbol","name":"target","new_name":"aim"}]}"#);
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json", "--engine", "lsp"]).json(0);
    let rename = &v["renames"][0];
    assert_eq!((&rename["engine"], &rename["renamed"]), (&json!("lsp"), &json!(expected.len() + 1)), "{v}");
    let module = std::fs::read_to_string(t.root().join("pkg/g5/m9.py")).unwrap();
    assert_eq!(module, "from pkg.core import aim\n\n\ndef use_9() -> int:\n    return aim(9)\n");
}

/// A language server that loads its project for a while: on `initialized`
/// it announces a progress token, begins it once the client has answered,
/// and ends it a moment later; until then it answers `references` with
/// nothing, as a cold server does, and after with every other occurrence
/// of the name in the root's Python files. With `never` its loading never ends.
const LOADING_SERVER: &str = r#"
import json, os, re, sys, threading, time
never = len(sys.argv) > 1 and sys.argv[1] == "never"
out = sys.stdout.buffer
lock = threading.Lock()
loaded = threading.Event()
root = os.getcwd()
def send(message):
    body = json.dumps(message).encode()
    with lock:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))
def end_later():
    time.sleep(1.5)
    loaded.set()
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": "end"}}})
def occurrences(name, skip):
    found = []
    for folder, _, names in os.walk(root):
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            path = os.path.join(folder, n)
            for i, line in enumerate(open(path).read().split("\n")):
                for m in re.finditer(r"\b%s\b" % re.escape(name), line):
                    place = {"uri": "file://" + path, "range": {"start": {"line": i, "character": m.start()}, "end": {"line": i, "character": m.end()}}}
                    if (path, i, m.start()) != skip:
                        found.append(place)
    return found
while True:
    message = read()
    if message is None or message.get("method") == "exit":
        break
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"referencesProvider": True, "definitionProvider": True}}})
    elif method == "initialized":
        send({"jsonrpc": "2.0", "id": "create", "method": "window/workDoneProgress/create", "params": {"token": "load"}})
    elif method is None and message.get("id") == "create":
        send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": "begin", "title": "Loading the project"}}})
        if not never:
            threading.Thread(target=end_later, daemon=True).start()
    elif method == "textDocument/references":
        path = params["textDocument"]["uri"][len("file://"):]
        line, character = params["position"]["line"], params["position"]["character"]
        text = open(path).read().split("\n")[line]
        name = re.match(r"\w+", text[character:]).group(0)
        result = occurrences(name, (path, line, character)) if loaded.is_set() else []
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    elif "id" in message and method is not None:
        if method in ("shutdown", "textDocument/definition"):
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no such method"}})
"#;

/// The command that runs [`LOADING_SERVER`] (kept in the test's home, outside its root).
fn loading_server(t: &TestDir, never: bool) -> String {
    std::fs::create_dir_all(t.home()).unwrap();
    let script = t.home().join("loading_server.py");
    std::fs::write(&script, LOADING_SERVER).unwrap();
    format!("python3 {}{}", script.display(), if never { " never" } else { "" })
}

#[test]
fn a_server_reporting_progress_is_asked_once_the_progress_has_ended() {
    if !aide_tests::oracle("python3", "a scripted language server") {
        return;
    }
    let t = TestDir::new();
    t.write("core.py", "def target(x):\n    return x\n");
    t.write("a.py", "from core import target\n\nprint(target(1))\n");
    t.write("b.py", "from core import target\n\nprint(target(2))\n");
    let v: Value = t
        .cmd("llm-ast-search")
        .env("AIDE_LSP_PYTHON", loading_server(&t, false))
        .args(["--references", "target", "--engine", "lsp"])
        .json(0);
    assert_eq!((&v["engine"], &v["diagnostics"]), (&json!("lsp"), &json!([])), "{v}");
    let expected = [("a.py", 1), ("a.py", 3), ("b.py", 1), ("b.py", 3)].map(|(p, l)| (p.to_string(), l));
    assert_eq!(places(&v), expected, "asked after its loading ended: {v}");
}

#[test]
fn a_server_that_never_finishes_loading_is_not_asked_and_the_syntax_engine_answers() {
    if !aide_tests::oracle("python3", "a scripted language server") {
        return;
    }
    let t = TestDir::new();
    t.write("core.py", "def target(x):\n    return x\n");
    t.write("a.py", "from core import target\n\nprint(target(1))\n");
    let v: Value = t
        .cmd("llm-ast-search")
        .env("AIDE_LSP_PYTHON", loading_server(&t, true))
        .env("AIDE_LSP_READY_TIMEOUT", "1")
        .args(["--references", "target", "--engine", "lsp"])
        .json(0);
    assert_eq!(v["engine"], "syntax", "{v}");
    assert_eq!(v["diagnostics"][0]["code"], "lsp_failed", "{v}");
    let message = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("had not loaded the project after 1 s: `Loading the project`"), "{message}");
    assert_eq!(places(&v), [("a.py".to_string(), 1), ("a.py".to_string(), 3)], "the syntax engine's answer");
}

/// A project whose pyright configuration leaves tests/ out, which uses the symbol.
fn excluding_tests(t: &TestDir) {
    t.write("pyrightconfig.json", r#"{"exclude": ["tests"]}"#);
    t.write(
        "app.py",
        "class Flask:\n    def run(self) -> None:\n        pass\n\n\ndef make() -> Flask:\n    return Flask()\n",
    );
    t.write("main.py", "from app import Flask\n\n\ndef serve(f: Flask) -> None:\n    f.run()\n");
    t.write(
        "tests/test_app.py",
        "from app import Flask\n\n\ndef test_it() -> None:\n    assert isinstance(Flask(), Flask)\n",
    );
}

#[test]
fn a_server_rename_that_leaves_sites_in_files_it_excludes_is_refused() {
    if !aide_tests::oracle("pyright-langserver", "a rename through a language server that excludes files") {
        return;
    }
    let t = TestDir::new();
    excluding_tests(&t);
    let before: Vec<String> = ["app.py", "main.py", "tests/test_app.py"]
        .iter()
        .map(|p| std::fs::read_to_string(t.root().join(p)).unwrap())
        .collect();
    // Warm first: the server has loaded the project when the rename is asked.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Flask", "--engine", "lsp"]).json(0);
    assert_eq!(v["engine"], "lsp", "{v}");
    t.write("ops.json", r#"{"operations":[{"op":"rename_symbol","name":"Flask","new_name":"Quart"}]}"#);
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json", "--engine", "lsp"]).json(3);
    assert_eq!(v["error"]["code"], "unresolved_sites", "{v}");
    let left: Vec<(&str, u64)> = v["error"]["details"]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(left, [("tests/test_app.py", 1), ("tests/test_app.py", 5), ("tests/test_app.py", 5)], "{v}");
    let after: Vec<String> = ["app.py", "main.py", "tests/test_app.py"]
        .iter()
        .map(|p| std::fs::read_to_string(t.root().join(p)).unwrap())
        .collect();
    assert_eq!(after, before, "refused whole: nothing written");
    // Asked to rename them too, every use follows.
    t.write(
        "ops.json",
        r#"{"operations":[{"op":"rename_symbol","name":"Flask","new_name":"Quart","include_unresolved":true}]}"#,
    );
    let v: Value = t.cmd("llm-transform").args(["--edits", "ops.json", "--engine", "lsp"]).json(0);
    assert_eq!((&v["renames"][0]["engine"], &v["renames"][0]["renamed"]), (&json!("lsp"), &json!(8)), "{v}");
    let test = std::fs::read_to_string(t.root().join("tests/test_app.py")).unwrap();
    assert_eq!(test, "from app import Quart\n\n\ndef test_it() -> None:\n    assert isinstance(Quart(), Quart)\n");
}

#[test]
fn dialect_find_references_answers_by_the_engine_asked_for() {
    let t = TestDir::new();
    t.write("app.py", APP);
    let program = "findReferences(`Blueprint/add_rule`)";
    let lines_of = |v: &Value| -> Vec<u64> {
        v["value"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect()
    };
    // By name: every call spelled `add_rule`.
    let v: Value = t.cmd("llm-ast-search").args(["--dialect", program]).json(0);
    assert_eq!(lines_of(&v), [12, 13, 17], "{v}");
    // Without a server, `lsp` says so; the syntax engine's answer judges by receiver.
    let v: Value =
        t.cmd("llm-ast-search").env("PATH", "/nonexistent").args(["--dialect", program, "--engine", "lsp"]).json(0);
    assert_eq!(v["diagnostics"][0]["code"], "lsp_unavailable", "{v}");
    assert_eq!(lines_of(&v), [13, 17], "{v}");
    if !aide_tests::oracle("pyright-langserver", "Dialect references through a language server") {
        return;
    }
    // The server knows `x` is no Blueprint: the one real call.
    let v: Value = t.cmd("llm-ast-search").args(["--dialect", program, "--engine", "lsp"]).json(0);
    assert_eq!(v["diagnostics"], json!([]), "{v}");
    assert_eq!(lines_of(&v), [13], "{v}");
    let v: Value = t
        .cmd("llm-ast-search")
        .args(["--dialect", "findReferences(findDefinition(`Blueprint/add_rule`))", "--engine", "lsp"])
        .json(0);
    assert_eq!(lines_of(&v), [13], "a definition is asked about by its name path: {v}");
}
