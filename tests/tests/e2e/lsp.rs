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
