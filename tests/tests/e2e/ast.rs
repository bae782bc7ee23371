//! llm-ast-search: queries, symbols, definitions, references, validate and
//! the Dialect, on small fixtures in all nine languages.

use aide_tests::TestDir;
use serde_json::Value;

/// One small file per language, with the symbols each must yield.
const FIXTURES: &[(&str, &str, &[&str])] = &[
    (
        "src/agent.rs",
        "//! Agents.\nuse std::fmt;\n\npub struct Agent { name: String }\n\npub enum State { Idle, Busy(u32) }\n\npub trait Runner {\n    fn run(&self);\n}\n\nimpl Agent {\n    pub fn run(&self) -> u32 {\n        helper(1)\n    }\n}\n\nimpl fmt::Display for Agent {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }\n}\n\nmod net {\n    pub struct Client;\n    impl Client {\n        pub fn connect(&self) {}\n    }\n}\n\nconst LIMIT: u32 = 3;\nstatic NAME: &str = \"a\";\ntype Id = u64;\nunion Bits { i: u32, f: f32 }\nmacro_rules! twice { ($e:expr) => { $e * 2 }; }\n\nfn helper(x: u32) -> u32 {\n    // helper in a comment\n    let s = \"helper\";\n    net::helper2();\n    x\n}\n",
        &[
            "Struct Agent",
            "Field Agent/name",
            "Enum State",
            "Variant State/Idle",
            "Variant State/Busy",
            "Trait Runner",
            "Method Runner/run",
            "Impl impl Agent",
            "Method impl Agent/run",
            "Impl impl fmt::Display for Agent",
            "Method impl fmt::Display for Agent/fmt",
            "Module net",
            "Struct net/Client",
            "Impl net/impl Client",
            "Method net/impl Client/connect",
            "Constant LIMIT",
            "Static NAME",
            "TypeAlias Id",
            "Union Bits",
            "Field Bits/i",
            "Field Bits/f",
            "Macro twice",
            "Function helper",
        ],
    ),
    (
        "py/models.py",
        "MAX_SIZE = 10\nlogger = None\n\nclass Outer:\n    limit = 5\n\n    class Inner:\n        def method(self):\n            return helper()\n\n    @staticmethod\n    def build():\n        pass\n\ndef helper():\n    # helper in a comment\n    return \"helper\"\n",
        &[
            "Constant MAX_SIZE",
            "Class Outer",
            "Field Outer/limit",
            "Class Outer/Inner",
            "Method Outer/Inner/method",
            "Method Outer/build",
            "Function helper",
        ],
    ),
    (
        "web/shapes.ts",
        "export interface Shape { area(): number; name: string }\nexport type Id = string;\nenum Color { Red, Green = 2 }\nnamespace Geo { export function dist(a: number): number { return a; } }\nexport class Circle implements Shape {\n  name = \"c\";\n  area(): number { return validateToken(this.name) ? 1 : 0; }\n}\nexport const validateToken = (t: string) => t.length > 0;\nconst LIMIT = 3;\nfunction main() { const c = new Circle(); validateToken(\"x\"); }\n",
        &[
            "Interface Shape",
            "Method Shape/area",
            "Field Shape/name",
            "TypeAlias Id",
            "Enum Color",
            "Variant Color/Red",
            "Variant Color/Green",
            "Namespace Geo",
            "Function Geo/dist",
            "Class Circle",
            "Field Circle/name",
            "Method Circle/area",
            "Function validateToken",
            "Constant LIMIT",
            "Function main",
        ],
    ),
    (
        "web/view.tsx",
        "export function View(props: { n: number }) { return <div>{props.n}</div>; }\nclass Box { render() { return <span/>; } }\n",
        &["Function View", "Class Box", "Method Box/render"],
    ),
    (
        "web/app.js",
        "class Foo { bar() { return baz(); } }\nfunction baz() {}\nconst qux = function() {};\nfunction* gen() {}\n",
        &["Class Foo", "Method Foo/bar", "Function baz", "Function qux", "Function gen"],
    ),
    (
        "c/list.c",
        "#define MAX 10\ntypedef struct { int x; } Point;\nstruct node { int value; struct node *next; };\nenum color { RED, GREEN };\nint add(int a, int b);\nstatic int *make(void) { return 0; }\nint add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n",
        &[
            "Macro MAX",
            "TypeAlias Point",
            "Field Point/x",
            "Struct node",
            "Field node/value",
            "Field node/next",
            "Enum color",
            "Variant color/RED",
            "Variant color/GREEN",
            "Declaration add",
            "Function make",
            "Function add",
            "Function main",
        ],
    ),
    (
        "cpp/client.cpp",
        "namespace net {\nclass Client {\n public:\n  Client();\n  void connect(int port);\n  int state_;\n};\nvoid Client::connect(int port) { helper(port); }\ntemplate <typename T> T twice(T x) { return x + x; }\n}\nvoid net::Client::close() { net::helper(0); }\n",
        &[
            "Namespace net",
            "Class net/Client",
            "Declaration net/Client/Client",
            "Declaration net/Client/connect",
            "Field net/Client/state_",
            "Method net/Client/connect",
            "Function net/twice",
            "Method net/Client/close",
        ],
    ),
    (
        "java/A.java",
        "package p;\npublic class A implements Runnable {\n  private int count = 0;\n  public A() {}\n  public void run() { helper(count); }\n  interface Cb { void call(); }\n  enum Mode { ON, OFF }\n  static void helper(int x) {}\n}\n",
        &[
            "Class A",
            "Field A/count",
            "Method A/A",
            "Method A/run",
            "Interface A/Cb",
            "Method A/Cb/call",
            "Enum A/Mode",
            "Variant A/Mode/ON",
            "Variant A/Mode/OFF",
            "Method A/helper",
        ],
    ),
    (
        "go/client.go",
        "package main\n\ntype Client struct { Addr string }\ntype Conn interface { Close() error }\ntype ID = string\nconst Max = 10\nvar global = 1\n\nfunc (c *Client) Connect() error { return helper() }\nfunc helper() error { return nil }\n",
        &[
            "Struct Client",
            "Field Client/Addr",
            "Interface Conn",
            "Method Conn/Close",
            "TypeAlias ID",
            "Constant Max",
            "Static global",
            "Method (*Client)/Connect",
            "Function helper",
        ],
    ),
];

pub(crate) fn fixture_tree() -> TestDir {
    let t = TestDir::new();
    for (path, source, _) in FIXTURES {
        t.write(path, source);
    }
    t
}

pub(crate) fn ast(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-ast-search").args(args).json(code)
}

/// The text-mode error of an llm-transform request that is refused (exit 3).
pub(crate) fn refused_transform(t: &TestDir, request: &str) -> String {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request).expect_exit(3).1
}

fn source_of(path: &str) -> &'static str {
    FIXTURES.iter().find(|f| f.0 == path).map(|f| f.1).unwrap()
}

pub(crate) fn span_text<'a>(source: &'a str, v: &Value) -> &'a str {
    &source[v["byte_start"].as_u64().unwrap() as usize..v["byte_end"].as_u64().unwrap() as usize]
}

#[test]
fn symbols_in_every_language_have_kinds_name_paths_and_exact_spans() {
    let t = fixture_tree();
    for (path, source, expected) in FIXTURES {
        let v = ast(&t, &[path], 0);
        assert_eq!(v["mode"], "symbols");
        let symbols = v["symbols"].as_array().unwrap();
        let brief: Vec<String> = symbols
            .iter()
            .map(|s| format!("{} {}", s["kind"].as_str().unwrap(), s["name_path"].as_str().unwrap()))
            .collect();
        assert_eq!(brief, *expected, "{path}");
        for s in symbols {
            let text = span_text(source, s);
            let name = s["name"].as_str().unwrap();
            if s["kind"] != "Impl" {
                assert!(text.contains(name), "{path}: span of {name} is {text:?}");
            }
            // The span starts where the line/column say.
            let line = s["line"].as_u64().unwrap() as usize;
            let col = s["column"].as_u64().unwrap() as usize;
            let line_start: usize = source.split_inclusive('\n').take(line - 1).map(str::len).sum();
            assert_eq!(line_start + col - 1, s["byte_start"].as_u64().unwrap() as usize, "{path} {name}");
            assert!(!s["signature"].as_str().unwrap().contains('\n'));
        }
    }
}

#[test]
fn symbols_text_is_kind_name_path_and_line_range_indented_by_nesting() {
    let t = fixture_tree();
    let (out, _) = t.cmd("llm-ast-search").args(["py/models.py"]).expect_exit(0);
    assert_eq!(
        out,
        "py/models.py\n  Constant MAX_SIZE [1-1]\n  Class Outer [4-13]\n    Field Outer/limit [5-5]\n    Class Outer/Inner [7-9]\n      Method Outer/Inner/method [8-9]\n    Method Outer/build [12-13]\n  Function helper [15-17]\n"
    );
}

#[test]
fn symbol_filters_kind_name_and_depth() {
    let t = fixture_tree();
    let names = |v: &Value| -> Vec<String> {
        v["symbols"].as_array().unwrap().iter().map(|s| s["name_path"].as_str().unwrap().to_string()).collect()
    };
    let v = ast(&t, &["src/agent.rs", "--kind", "method", "--kind", "Struct"], 0);
    assert_eq!(
        names(&v),
        [
            "Agent",
            "Runner/run",
            "impl Agent/run",
            "impl fmt::Display for Agent/fmt",
            "net/Client",
            "net/impl Client/connect"
        ]
    );
    let v = ast(&t, &["src/agent.rs", "--name", "run"], 0);
    assert_eq!(
        (names(&v), v["name_match"].as_str()),
        (vec!["Runner/run".into(), "impl Agent/run".into()], Some("exact"))
    );
    let v = ast(&t, &["src/agent.rs", "--name", "Agent/run"], 0);
    assert_eq!((names(&v), v["name_match"].as_str()), (vec!["impl Agent/run".to_string()], Some("path_suffix")));
    let v = ast(&t, &["src/agent.rs", "--name", "onnec"], 0);
    assert_eq!((names(&v), v["name_match"].as_str()), (vec!["net/impl Client/connect".to_string()], Some("substring")));
    let v = ast(&t, &["py/models.py", "--depth", "1"], 0);
    assert_eq!(names(&v), ["MAX_SIZE", "Outer", "helper"]);
    let v = ast(&t, &["src/agent.rs", "--kind", "strcut"], 2);
    assert!(v["error"]["hint"].as_str().unwrap().contains("Struct"));
    let v = ast(&t, &["src/agent.rs", "--name", "nothing_like_this"], 1);
    assert_eq!(v["total"], 0);
}

#[test]
fn seed_query_cli_reports_captures_sorted_with_kinds_and_spans() {
    let t = fixture_tree();
    t.write("src/b.rs", "fn b_one() {}\n");
    let v = ast(
        &t,
        &["--root", ".", "--language", "rust", "--query", "(function_item name: (identifier) @id)", "--glob", "*.rs"],
        0,
    );
    assert_eq!(v["mode"], "query");
    let symbols = v["symbols"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = symbols
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["symbol"].as_str().unwrap(), s["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("src/agent.rs", "run", "Method"),
            ("src/agent.rs", "fmt", "Method"),
            ("src/agent.rs", "connect", "Method"),
            ("src/agent.rs", "helper", "Function"),
            ("src/b.rs", "b_one", "Function"),
        ]
    );
    let s = &symbols[0];
    assert_eq!((s["capture"].as_str(), s["node_kind"].as_str()), (Some("id"), Some("identifier")));
    assert_eq!(span_text(source_of("src/agent.rs"), s), "run");
    assert_eq!((s["line"].as_u64(), s["column"].as_u64(), s["end_line"].as_u64()), (Some(13), Some(12), Some(13)));
    assert!(v["execution_id"].as_str().is_some());

    // A capture that is not a definition has no kind.
    let v = ast(&t, &["--language", "rust", "--query", "(call_expression function: (identifier) @callee)"], 0);
    assert_eq!(v["symbols"][0]["symbol"], "helper");
    assert_eq!(v["symbols"][0]["kind"], Value::Null);
}

#[test]
fn invalid_queries_say_where() {
    let t = fixture_tree();
    let v = ast(&t, &["--language", "rust", "--query", "(function_item name: (identifier) @id"], 2);
    assert_eq!(v["error"]["code"], "invalid_query");
    assert!(v["error"]["message"].as_str().unwrap().contains("syntax error at line 1"), "{v}");
    let v = ast(&t, &["--language", "rust", "--query", "(no_such_node) @x"], 2);
    assert_eq!(v["error"]["code"], "invalid_query");
    assert_eq!((v["error"]["details"]["line"].as_u64(), v["error"]["details"]["column"].as_u64()), (Some(1), Some(2)));
    assert!(v["error"]["message"].as_str().unwrap().contains("unknown node kind"));
    let v = ast(&t, &["--query", "(identifier) @x"], 2);
    assert!(v["error"]["message"].as_str().unwrap().contains("--language"));
    let v = ast(&t, &["--language", "cobol", "--query", "(x)"], 2);
    assert_eq!(v["error"]["code"], "unknown_language");
    let v = ast(&t, &["--symbols", "--validate"], 2);
    assert_eq!(v["error"]["code"], "invalid_arguments");
}

fn refs(v: &Value) -> Vec<String> {
    v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}:{} {} in {}",
                r["path"].as_str().unwrap(),
                r["line"],
                r["kind"].as_str().unwrap(),
                r["enclosing"].as_str().unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn references_by_name_skip_comments_strings_and_definitions() {
    let t = fixture_tree();
    let v = ast(&t, &["--references", "helper"], 0);
    assert_eq!(v["matching"], "by_name");
    assert_eq!(
        refs(&v),
        [
            "cpp/client.cpp:8 call in net/Client/connect",
            "cpp/client.cpp:11 call in net/Client/close",
            "go/client.go:9 call in (*Client)/Connect",
            "java/A.java:5 call in A/run",
            "py/models.py:9 call in Outer/Inner/method",
            "src/agent.rs:14 call in impl Agent/run",
        ]
    );
    let r = &v["references"][5];
    assert_eq!(r["line_text"], "        helper(1)");
    assert_eq!(r["enclosing_kind"], "Method");
    // TypeScript uses the JavaScript tags too: calls are calls.
    let v = ast(&t, &["--references", "validateToken", "web"], 0);
    assert_eq!(refs(&v), ["web/shapes.ts:7 call in Circle/area", "web/shapes.ts:11 call in main"]);
    // C has no reference tags of its own; Rust scoped calls count.
    let v = ast(&t, &["--references", "add"], 0);
    assert_eq!(refs(&v), ["c/list.c:8 call in main"]);
    let v = ast(&t, &["--references", "helper2"], 0);
    assert_eq!(refs(&v), ["src/agent.rs:38 call in helper"]);
    let v = ast(&t, &["--references", "Agent", "src"], 0);
    assert_eq!(
        refs(&v),
        ["src/agent.rs:12 implementation in impl Agent", "src/agent.rs:18 type in impl fmt::Display for Agent"]
    );
    let v = ast(&t, &["--references", "nowhere"], 1);
    assert_eq!(v["total"], 0);
}

#[test]
fn definitions_have_normalized_kinds_and_qualified_names() {
    let t = fixture_tree();
    let defs = |args: &[&str]| -> Vec<String> {
        let v = ast(&t, args, 0);
        v["definitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {} {}",
                    d["path"].as_str().unwrap(),
                    d["line"],
                    d["kind"].as_str().unwrap(),
                    d["name_path"].as_str().unwrap()
                )
            })
            .collect()
    };
    // Rust structs are structs, not "class".
    assert_eq!(defs(&["--definitions", "Agent"]), ["src/agent.rs:4 Struct Agent"]);
    assert_eq!(defs(&["--definitions", "Runner"]), ["src/agent.rs:8 Trait Runner"]);
    // C++ out-of-line definitions by qualified name.
    assert_eq!(
        defs(&["--definitions", "Client::connect"]),
        [
            "cpp/client.cpp:5 Declaration net/Client/connect",
            "cpp/client.cpp:8 Method net/Client/connect",
            "src/agent.rs:25 Method net/impl Client/connect"
        ]
    );
    assert_eq!(defs(&["--definitions", "net::Client::close"]), ["cpp/client.cpp:11 Method net/Client/close"]);
    assert_eq!(
        defs(&["--definitions", "connect"]),
        [
            "cpp/client.cpp:5 Declaration net/Client/connect",
            "cpp/client.cpp:8 Method net/Client/connect",
            "src/agent.rs:25 Method net/impl Client/connect"
        ]
    );
    assert_eq!(defs(&["--definitions", "Shape"]), ["web/shapes.ts:1 Interface Shape"]);
    assert_eq!(defs(&["--definitions", "Connect"]), ["go/client.go:9 Method (*Client)/Connect"]);
    let v = ast(&t, &["--definitions", "absent"], 1);
    assert_eq!(v["definitions"], Value::Array(vec![]));
}

#[test]
fn validate_reports_every_error_and_exits_3() {
    let t = TestDir::new();
    t.write("ok.rs", "fn main() {}\n")
        .write("bad.rs", "fn main() {\n    let x = 1\n}\nfn g( {\n")
        .write("bad.py", "def f(:\n");
    let v = ast(&t, &["--validate", "ok.rs"], 0);
    assert_eq!((v["valid"].as_bool(), v["files"][0]["errors"].as_array().map(Vec::len)), (Some(true), Some(0)));
    let v = ast(&t, &["--validate", "ok.rs", "bad.rs", "bad.py"], 3);
    assert_eq!((v["valid"].as_bool(), v["invalid_files"].as_u64()), (Some(false), Some(2)));
    let files = v["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["bad.py", "bad.rs", "ok.rs"]);
    let bad = &files[1]["errors"];
    assert_eq!(bad[0]["kind"], "missing");
    assert_eq!(bad[0]["message"], "missing `;`");
    assert_eq!((bad[0]["line"].as_u64(), bad[0]["column"].as_u64()), (Some(2), Some(14)));
    assert!(bad.as_array().unwrap().len() >= 2, "{bad}");
    let (out, _) = t.cmd("llm-ast-search").args(["--validate", "bad.rs"]).expect_exit(3);
    assert!(out.starts_with("bad.rs:2:14: error: missing `;`\n"), "{out}");

    // Other modes still read a broken file, and say so.
    let v = ast(&t, &["bad.rs"], 0);
    assert_eq!(v["symbols"][0]["name"], "main");
    let d = &v["diagnostics"][0];
    assert_eq!((d["code"].as_str(), d["path"].as_str()), (Some("parse_error"), Some("bad.rs")));
}

#[test]
fn unreadable_binary_and_unknown_files_are_never_silent() {
    let t = TestDir::new();
    t.write("a.rs", "fn a() {}\n").write("bin.rs", b"fn x() {}\x00\x01".as_slice()).write("notes.txt", "x");
    let v = ast(&t, &[], 0);
    assert_eq!(v["symbols"].as_array().unwrap().len(), 1);
    // A binary file is skipped as rg skips it: counted, not warned.
    assert_eq!(v["diagnostics"], serde_json::json!([]));
    assert_eq!(v["stats"]["skipped"]["binary_file"], 1);
    let v = ast(&t, &["notes.txt"], 2);
    assert_eq!(v["error"]["code"], "unknown_language");
    // --language parses a named file whatever its extension.
    t.write("script", "def f():\n    pass\n");
    let v = ast(&t, &["script", "--language", "python"], 0);
    assert_eq!(v["symbols"][0]["name"], "f");
    let v = ast(&t, &["../x.rs"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root");
}

#[test]
fn output_is_deterministic_across_thread_counts() {
    let t = fixture_tree();
    let strip = |mut v: Value| {
        let o = v.as_object_mut().unwrap();
        o.remove("execution_id");
        o.remove("stats");
        v
    };
    for args in [vec![], vec!["--references", "helper"], vec!["--language", "rust", "--query", "(identifier) @i"]] {
        let mut one = args.clone();
        one.extend(["-j", "1"]);
        let mut four = args.clone();
        four.extend(["-j", "4"]);
        assert_eq!(strip(ast(&t, &one, 0)), strip(ast(&t, &four, 0)), "{args:?}");
    }
}

#[test]
fn dialect_functions_compose_and_return_seed_shapes() {
    let t = fixture_tree();
    t.write("tests/it.rs", "#[test]\nfn works() {}\n");
    let run = |program: &str, code: i32| ast(&t, &["--dialect", program], code);

    let v = run("findDefinitions(`Agent`)", 0);
    assert_eq!(v["mode"], "dialect");
    assert_eq!(
        v["value"],
        serde_json::json!([{ "name": "Agent", "kind": "Struct", "name_path": "Agent",
            "defined_at": { "path": "src/agent.rs", "line": 4, "column": 1, "end_line": 4, "end_column": 34,
                            "start": { "line": 4, "column": 1 }, "end": { "line": 4, "column": 34 } } }])
    );
    assert_eq!(run("findDefinition(`Agent`)", 0)["value"], v["value"]);
    // Text mode prints the value as compact JSON, one line, like every tool.
    let (text, _) = t.cmd("llm-ast-search").args(["--dialect", "findDefinitions(`Agent`)"]).expect_exit(0);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v["value"]);

    let v = run("findReferences(findDefinition(`validateToken`))", 0);
    let lines: Vec<u64> = v["value"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [7, 11]);
    // The seed's points stay beside the shared span names (issue 33), the same.
    let old: Vec<u64> = v["value"].as_array().unwrap().iter().map(|r| r["start"]["line"].as_u64().unwrap()).collect();
    assert_eq!(old, lines);
    assert_eq!(v["value"][0]["path"], "web/shapes.ts");
    assert_eq!(v["value"][0]["enclosing"], "Circle/area");

    let v = run("search(`src/agent.rs`, `pub fn`)", 0);
    let found: Vec<u64> = v["value"].as_array().unwrap().iter().map(|m| m["line"].as_u64().unwrap()).collect();
    assert_eq!(found, [13, 25]);
    // search()'s third argument is a glob; an extension still works, and says so.
    let by_glob = run("search(`src`, `pub fn`, `*.rs`)", 0);
    let by_ext = run("search(`src`, `pub fn`, `rs`)", 0);
    assert_eq!(by_glob["value"], by_ext["value"]);
    assert!(by_glob["value"].as_array().unwrap().iter().any(|m| m["path"] == "src/agent.rs"), "{by_glob}");
    assert_eq!(by_glob["diagnostics"], serde_json::json!([]));
    assert_eq!(by_ext["diagnostics"][0]["code"], "deprecated_name", "{by_ext}");
    let nested = run("search(`.`, `pub fn`, `src/*.rs`)", 0);
    assert!(nested["value"].as_array().unwrap().iter().all(|m| m["path"].as_str().unwrap().starts_with("src/")));
    run("search(`src`, `pub fn`, `!*.rs`)", 2);
    // The search a program makes is the program's, whatever the format: its
    // matches are the value, never printed as records of their own.
    let (text, _) = t.cmd("llm-ast-search").args(["--dialect", "search(`src/agent.rs`, `pub fn`)"]).expect_exit(0);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v["value"]);
    let (jsonl, _) =
        t.cmd("llm-ast-search").args(["--dialect", "search(`src/agent.rs`, `pub fn`)", "--jsonl"]).expect_exit(0);
    assert_eq!(jsonl.lines().count(), 1, "{jsonl}");
    assert_eq!(serde_json::from_str::<Value>(&jsonl).unwrap()["value"], v["value"]);
    let v = run("search(`.`, `struct.*Client`, `.rs`)", 0);
    assert_eq!(v["value"].as_array().unwrap().len(), 1);
    assert_eq!(v["value"][0]["path"], "src/agent.rs");
    let v = run(r"search(`tests`, `#\[test\]`)", 0);
    assert_eq!(v["value"][0]["path"], "tests/it.rs");
    assert_eq!(v["value"][0]["start"], serde_json::json!({ "line": 1, "column": 1 }));

    let v = run("lines(`py/models.py`, 4, 5)", 0);
    assert_eq!(
        v["value"],
        serde_json::json!({ "path": "py/models.py", "line": 4, "column": 1, "end_line": 5, "end_column": 14,
            "start": { "line": 4, "column": 1 }, "end": { "line": 5, "column": 14 },
            "content": "class Outer:\n    limit = 5\n" })
    );
    // Past the end, as llm-read says it: the file's line count, invalid_span.
    let v = run("lines(`py/models.py`, 400, 401)", 3);
    assert_eq!(v["error"]["code"], "invalid_span");
    assert!(v["error"]["message"].as_str().unwrap().contains("has 17 lines"), "{v}");

    let v = run("findDefinitons(`Agent`)", 2);
    assert_eq!(v["error"]["code"], "invalid_program");
    assert!(v["error"]["hint"].as_str().unwrap().contains("findDefinitions"));
    assert_eq!(v["error"]["details"]["snippet"], "findDefinitons(`Agent`)\n^");
    let v = run("lines(`a`, `b`, 2)", 2);
    assert_eq!((v["error"]["details"]["line"].as_u64(), v["error"]["details"]["column"].as_u64()), (Some(1), Some(12)));
    let v = run("search(`missing-dir`, `x`)", 2);
    assert_eq!(v["error"]["code"], "not_found");
}

#[test]
fn request_json_takes_the_seed_fields() {
    let t = fixture_tree();
    let v: Value = t
        .cmd("llm-ast-search")
        .args(["--request", "-"])
        .stdin(
            r#"{"language": "rust", "query": "(struct_item name: (type_identifier) @name)", "file_glob": ["src/**"]}"#,
        )
        .json(0);
    let names: Vec<&str> = v["symbols"].as_array().unwrap().iter().map(|s| s["symbol"].as_str().unwrap()).collect();
    assert_eq!(names, ["Agent", "Client"]);
    assert_eq!(v["symbols"][0]["kind"], "Struct");
}
