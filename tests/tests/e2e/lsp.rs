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
    // A server that cannot start.
    let v: Value = t
        .cmd("llm-ast-search")
        .env("AIDE_LSP_PYTHON", "/nonexistent/language-server --stdio")
        .args(["--references", "Blueprint/add_rule", "--engine", "lsp"])
        .json(0);
    assert_eq!(v["engine"], "syntax");
    assert_eq!(v["diagnostics"][0]["code"], "lsp_failed", "{v}");
    assert_eq!(lines(&v).len(), 2);
    // No server for the language at all: `lsp` says so, `auto` quietly uses the syntax engine.
    t.write("main.go", "package main\n\nfunc Run() {}\n\nfunc main() { Run() }\n");
    let v: Value =
        t.cmd("llm-ast-search").env("PATH", "/nonexistent").args(["--references", "Run", "--engine", "lsp"]).json(0);
    assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_unavailable")), "{v}");
    let v: Value =
        t.cmd("llm-ast-search").env("PATH", "/nonexistent").args(["--references", "Run", "--engine", "auto"]).json(0);
    assert_eq!(v["diagnostics"], json!([]), "{v}");
    assert_eq!(v["references"][0]["line"], 5);
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
    assert_eq!(ask(), [(13, "resolved".to_string())], "asked again, of the same server");
    t.write("app.py", APP.replace("    bp.add_rule()\n", "    pass\n    bp.add_rule()\n"));
    assert_eq!(ask(), [(14, "resolved".to_string())], "an edit between calls is seen");
    assert!(!t.home().join("lsp").exists(), "no keeper: the server lives in aide mcp's process");
}
