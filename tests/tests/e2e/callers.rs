//! Who calls a symbol (`--callers NAME|PLACE`, the Dialect's
//! `findCallers`, `aide mcp`'s ast_search): each call of it, with its
//! caller — the function or method holding the call, null at module
//! level — decided by the syntax engine (the symbol's references that are
//! calls, as resolved as references are) or by the language server's call
//! hierarchy, which must name the same callers.

use aide_tests::TestDir;
use serde_json::{Value, json};

const RUST_LIB: &str = "pub mod shapes;
pub mod util;

pub fn first() -> u32 {
    util::helper(1)
}

pub fn second() -> u32 {
    let y = util::helper(2);
    util::helper(y)
}

pub fn shadowed() -> u32 {
    let helper = |x: u32| x * 2;
    helper(3)
}

pub const TOTAL: u32 = util::helper(0);
";

const RUST_UTIL: &str = "pub const fn helper(x: u32) -> u32 {
    x + 1
}
";

const RUST_SHAPES: &str = "pub struct Circle;
pub struct Square;

impl Circle {
    pub fn area(&self) -> f64 {
        3.0
    }
}

impl Square {
    pub fn area(&self) -> f64 {
        1.0
    }
}

pub fn measure(c: &Circle, s: &Square) -> f64 {
    c.area() + s.area()
}

pub fn only_square(s: Square) -> f64 {
    s.area()
}
";

const PY_UTIL: &str = "def helper(x: int) -> int:
    return x + 1
";

const PY_MAIN: &str = "from pkg.util import helper


def first() -> int:
    return helper(1)


def second() -> int:
    y = helper(2)
    return helper(y)


def shadowed() -> int:
    helper = lambda x: x * 2
    return helper(3)


def run_all() -> int:
    return first() + second()


TOTAL = helper(0)
";

const PY_SHAPES: &str = "class Circle:
    def area(self) -> float:
        return 3.0


class Square:
    def area(self) -> float:
        return 1.0


def measure(c: Circle, s: Square) -> float:
    return c.area() + s.area()


def only_square(s: Square) -> float:
    return s.area()
";

fn rust_project() -> TestDir {
    let t = TestDir::new();
    t.write("src/lib.rs", RUST_LIB).write("src/util.rs", RUST_UTIL).write("src/shapes.rs", RUST_SHAPES);
    t
}

fn python_project() -> TestDir {
    let t = TestDir::new();
    t.write("pkg/__init__.py", "")
        .write("pkg/util.py", PY_UTIL)
        .write("pkg/main.py", PY_MAIN)
        .write("pkg/shapes.py", PY_SHAPES);
    t
}

/// Each call as `path:line:column` and its caller's name path (`-` at module level).
fn calls(v: &Value) -> Vec<String> {
    v["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("no calls: {v}"))
        .iter()
        .map(|c| {
            let caller = c["caller"]["name_path"].as_str().unwrap_or("-");
            format!("{}:{}:{} {caller}", c["path"].as_str().unwrap(), c["line"], c["column"])
        })
        .collect()
}

/// Each call's `matched` and `engine`, once each.
fn decided(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["matched"].as_str().unwrap().to_string(), c["engine"].as_str().unwrap().to_string()))
        .collect();
    out.dedup();
    out
}

fn callers(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-ast-search").arg("--callers").args(args).json(code)
}

#[test]
fn a_functions_callers_are_each_function_calling_it_and_the_module_level() {
    let t = rust_project();
    let v = callers(&t, &["helper"], 0);
    assert_eq!((&v["mode"], &v["engine"], &v["matching"]), (&json!("callers"), &json!("syntax"), &json!("definition")));
    assert_eq!(
        calls(&v),
        ["src/lib.rs:5:11 first", "src/lib.rs:9:19 second", "src/lib.rs:10:11 second", "src/lib.rs:18:30 -"],
        "the closure named helper in `shadowed` is another symbol: {v}"
    );
    let first = &v["calls"][0];
    assert_eq!(
        (&first["name"], &first["end_column"], &first["line_text"]),
        (&json!("helper"), &json!(17), &json!("    util::helper(1)"))
    );
    let caller = &first["caller"];
    assert_eq!(
        (&caller["kind"], &caller["path"], &caller["line"], &caller["end_line"]),
        (&json!("Function"), &json!("src/lib.rs"), &json!(4), &json!(6))
    );
    assert_eq!(v["calls"][3]["caller"], Value::Null, "a constant's initializer runs at module level");
    let read: Value = t.cmd("llm-read").arg("src/lib.rs").json(0);
    assert_eq!(first["checksum"], read["files"][0]["checksum"]);
    assert_eq!(decided(&v), [("name_only".to_string(), "syntax".to_string())], "defined in another file");

    let t = python_project();
    let v = callers(&t, &["helper"], 0);
    assert_eq!(
        calls(&v),
        ["pkg/main.py:5:12 first", "pkg/main.py:9:9 second", "pkg/main.py:10:12 second", "pkg/main.py:22:9 -"],
        "{v}"
    );
    assert_eq!(v["calls"][3]["caller"], Value::Null);
    // The text form says the same, the module level in words.
    let (text, _) = t.cmd("llm-ast-search").args(["--callers", "helper"]).expect_exit(0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "pkg/main.py:5:12: Function first [4-5]: return helper(1)");
    assert_eq!(lines[3], "pkg/main.py:22:9: (module level): TOTAL = helper(0)");
    // A name nothing calls; a name and a mode together; no name.
    let v = callers(&t, &["run_all"], 1);
    assert_eq!(v["calls"], json!([]));
    let v: Value = t.cmd("llm-ast-search").args(["--callers", "helper", "--references", "helper"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("callers"), "{v}");
    let v: Value = t.cmd("llm-ast-search").args(["--callers", ""]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
}

#[test]
fn a_method_has_only_the_calls_through_its_own_type() {
    let cases = [
        (
            rust_project(),
            "src/shapes.rs:5:12",
            ["src/shapes.rs:17:7 measure", "src/shapes.rs:17:18 measure", "src/shapes.rs:21:7 only_square"],
        ),
        (
            python_project(),
            "pkg/shapes.py:2:9",
            ["pkg/shapes.py:12:14 measure", "pkg/shapes.py:12:25 measure", "pkg/shapes.py:16:14 only_square"],
        ),
    ];
    for (t, circle_definition, [circle_call, square_call, only_square_call]) in cases {
        let v = callers(&t, &["Circle/area"], 0);
        assert_eq!(calls(&v), [circle_call], "{v}");
        assert_eq!(decided(&v), [("resolved".to_string(), "syntax".to_string())]);
        assert_eq!(v["calls"][0]["caller"]["kind"], "Function");
        // The place of its definition names the same method.
        assert_eq!(calls(&callers(&t, &[circle_definition], 0)), [circle_call], "{circle_definition}");
        let v = callers(&t, &["Square/area"], 0);
        assert_eq!(calls(&v), [square_call, only_square_call], "{v}");
        // By the bare name, both methods' calls, each unresolved.
        let v = callers(&t, &["area"], 0);
        assert_eq!(v["matching"], "by_name");
        assert_eq!(calls(&v), [circle_call, square_call, only_square_call], "{v}");
        assert_eq!(decided(&v), [("unresolved".to_string(), "syntax".to_string())]);
    }
}

#[test]
fn the_dialect_finds_callers_and_their_callers() {
    let t = python_project();
    let value = |program: &str| -> Value {
        let v: Value = t.cmd("llm-ast-search").args(["--dialect", program]).json(0);
        v["value"].clone()
    };
    let v = value("findCallers(`helper`)");
    let sites: Vec<(u64, u64, Value)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["line"].as_u64().unwrap(), c["column"].as_u64().unwrap(), c["caller"]["name_path"].clone()))
        .collect();
    assert_eq!(
        sites,
        [(5, 12, json!("first")), (9, 9, json!("second")), (10, 12, json!("second")), (22, 9, Value::Null)],
        "{v}"
    );
    assert_eq!(
        (&v[0]["path"], &v[0]["name"], &v[0]["text"]),
        (&json!("pkg/main.py"), &json!("helper"), &json!("    return helper(1)"))
    );
    assert_eq!((&v[0]["caller"]["kind"], &v[0]["caller"]["defined_at"]["line"]), (&json!("Function"), &json!(4)));
    assert_eq!((&v[0]["matched"], &v[0]["engine"]), (&json!("name_only"), &json!("syntax")));
    // A definition is asked about by its name path: one method's calls.
    let v = value("findCallers(findDefinition(`Circle/area`))");
    assert_eq!((v.as_array().unwrap().len(), &v[0]["caller"]["name_path"]), (1, &json!("measure")), "{v}");
    // Callers' callers: who calls first and second.
    let v = value("findCallers(findCallers(`helper`))");
    let called: Vec<(&str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["caller"]["name_path"].as_str().unwrap()))
        .collect();
    assert_eq!(called, [("first", "run_all"), ("second", "run_all")], "{v}");
}

#[test]
fn aide_mcp_gives_callers_through_ast_search_and_ide_operation() {
    let t = rust_project();
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let result = client.call("ast_search", json!({ "callers": "Square/area" }));
    assert_ne!(result["isError"], true, "{result}");
    let doc = &result["structuredContent"];
    assert_eq!(doc["mode"], "callers", "{result}");
    assert_eq!(calls(doc), ["src/shapes.rs:17:18 measure", "src/shapes.rs:21:7 only_square"]);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("src/shapes.rs:21:7: Function only_square [20-22]: s.area()"), "the text block: {text}");
    let result = client.call("ide_operation", json!({ "program": "findCallers(`helper`)" }));
    assert_ne!(result["isError"], true, "{result}");
    let lines: Vec<u64> = result["structuredContent"]["value"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [5, 9, 10, 18], "{result}");
    // In the compact form each place is said once: the deprecated point
    // form (`start`, `end`) only with detail "full".
    let mut compact =
        aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &["--structured", "compact"], json!({}));
    let result = compact.call("ide_operation", json!({ "program": "findCallers(`helper`)" }));
    let first = &result["structuredContent"]["value"][0];
    assert_eq!(first["line"], 5, "{result}");
    assert!(first.get("start").is_none() && first.get("end").is_none(), "{first}");
    assert!(first["caller"]["defined_at"].get("start").is_none(), "{first}");
    let full = compact.call("ide_operation", json!({ "program": "findCallers(`helper`)", "detail": "full" }));
    assert_eq!(full["structuredContent"]["value"][0]["start"]["line"], 5, "{full}");
}

#[test]
fn without_a_server_the_syntax_engine_answers_and_says_why() {
    let t = python_project();
    let v: Value = t
        .cmd("llm-ast-search")
        .env("PATH", "/nonexistent")
        .args(["--callers", "Circle/area", "--engine", "lsp"])
        .json(0);
    assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_unavailable")), "{v}");
    assert_eq!(calls(&v), ["pkg/shapes.py:12:14 measure"]);
    let v: Value = t
        .cmd("llm-ast-search")
        // A server that ends at once.
        .env("AIDE_LSP_PYTHON", "/bin/false --stdio")
        .args(["--callers", "Circle/area", "--engine", "auto"])
        .json(0);
    assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_failed")), "{v}");
    assert_eq!(decided(&v), [("resolved".to_string(), "syntax".to_string())]);
}

#[test]
fn pyright_names_the_same_callers_as_the_syntax_engine() {
    if !aide_tests::oracle("pyright-langserver", "callers through a language server's call hierarchy") {
        return;
    }
    let t = python_project();
    for asked in ["helper", "Circle/area", "Square/area", "first", "pkg/shapes.py:2:9", "pkg/main.py:19:12"] {
        let by_syntax = callers(&t, &[asked], 0);
        let by_server = callers(&t, &[asked, "--engine", "lsp"], 0);
        assert_eq!(by_server["engine"], "lsp", "{asked}: {by_server}");
        assert_eq!(by_server["diagnostics"], json!([]), "{asked}: {by_server}");
        assert_eq!(calls(&by_server), calls(&by_syntax), "{asked}: the same calls, the same callers");
        assert_eq!(decided(&by_server), [("resolved".to_string(), "lsp".to_string())], "{asked}");
        assert_eq!(by_server["calls"][0]["checksum"], by_syntax["calls"][0]["checksum"]);
    }
    // Not a function to the server: it says so, and the syntax engine answers.
    let v = callers(&t, &["TOTAL", "--engine", "lsp"], 1);
    assert_eq!((&v["engine"], &v["diagnostics"][0]["code"]), (&json!("syntax"), &json!("lsp_failed")), "{v}");
    assert!(v["diagnostics"][0]["message"].as_str().unwrap().contains("no call hierarchy"), "{v}");
}

/// A name that is one symbol's exact name path and another's last name
/// (flask's `url_for` function and `Flask.url_for` method) is read as the
/// first: the answer says so and names the other, whose calls it leaves
/// out, on the command line and over MCP (never a silent "nothing found").
#[test]
fn a_name_shared_by_a_function_and_a_method_names_the_one_passed_over() {
    let t = TestDir::new();
    t.write(
        "m.py",
        "def url_for(x):\n    return x\n\n\nclass Flask:\n    def url_for(self, x):\n        return x\n\n    def go(self):\n        return self.url_for(1)\n\n\ndef use(app):\n    app.url_for(3)\n",
    );
    let others = |v: &Value| -> Vec<String> {
        let diagnostics = v["diagnostics"].as_array().cloned().unwrap_or_default();
        diagnostics
            .iter()
            .filter(|d| d["code"] == "others_named")
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    // No call of the function: none, said with the method it passed over.
    let v = callers(&t, &["url_for"], 1);
    assert_eq!(v["calls"].as_array().map_or(0, Vec::len), 0, "{v}");
    let said = others(&v);
    assert!(said.len() == 1 && said[0].contains("`Flask/url_for`"), "{v}");
    let v: Value = t.cmd("llm-ast-search").args(["--references", "url_for"]).json(1);
    assert!(others(&v).len() == 1, "{v}");
    // Asked by its name path, the method's calls come, with no such warning.
    let v = callers(&t, &["Flask/url_for"], 0);
    assert_eq!(calls(&v), ["m.py:10:21 Flask/go", "m.py:14:9 use"], "{v}");
    assert!(others(&v).is_empty(), "{v}");
    // A model reads the same in the text block.
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let result = client.call("ast_search", json!({ "callers": "url_for" }));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("warning[others_named]") && text.contains("Flask/url_for"), "{text}");
}
