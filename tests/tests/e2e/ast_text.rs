//! llm-ast-search's text forms: the outline streamed and paged, names
//! shown by their name paths, definitions as found, the compact outline;
//! and the bounds on deep nesting.

use aide_tests::TestDir;
use serde_json::Value;

use crate::ast::{ast, fixture_tree, refused_transform};

#[test]
fn the_text_outline_streams_and_pages_like_the_json_one() {
    let t = fixture_tree();
    let (text, _) = t.cmd("llm-ast-search").args(["py", "--all", "--offset", "1", "--limit", "2"]).expect_exit(0);
    assert_eq!(text, "py/models.py\n  Class Outer [4-13]\n    Field Outer/limit [5-5]\n… 4 more (--offset 3)\n");
    let v = ast(&t, &["py", "--offset", "1", "--limit", "2"], 0);
    let names: Vec<&str> = v["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!((names, v["next_offset"].as_u64(), v["total"].as_u64()), (vec!["Outer", "limit"], Some(3), Some(7)));
    // The run is logged with its counts.
    let log: Value = t.cmd("aide").args(["log", "list", "--tool", "llm-ast-search", "--limit", "1"]).json(0);
    assert!(log.to_string().contains("llm-ast-search"), "{log}");
}

#[test]
fn text_output_names_symbols_by_their_name_path_so_ambiguity_can_be_acted_on() {
    let t = TestDir::new();
    t.write(
        "cmd.go",
        "package cobra\n\ntype Command struct{ name string }\n\nfunc (c *Command) Name() string {\n\treturn c.name\n}\n\nfunc (c Command) Len() int { return 0 }\n",
    );
    t.write("sessions.py", "class SessionInterface:\n    def open_session(self):\n        pass\n\nclass Other:\n    def open_session(self):\n        pass\n");
    let (outline, _) = t.cmd("llm-ast-search").arg("cmd.go").expect_exit(0);
    assert!(
        outline.contains("Method (*Command)/Name [5-7]") && outline.contains("Method Command/Len [9-9]"),
        "{outline}"
    );
    // Definitions: name path and both ends.
    let (defs, _) = t.cmd("llm-ast-search").args(["--definitions", "open_session"]).expect_exit(0);
    assert_eq!(
        defs,
        "sessions.py:2:5: Method SessionInterface/open_session [2-3]  def open_session(self)\n\
         sessions.py:6:5: Method Other/open_session [6-7]  def open_session(self)\n"
    );
    // References say whether the definitions are in, and can include them.
    let (uses, _) = t.cmd("llm-ast-search").args(["--references", "Name"]).expect_exit(1);
    assert!(uses.starts_with("(uses of `Name` only; --include-definition adds where it is defined)"), "{uses}");
    let v = ast(&t, &["--references", "open_session", "--include-definition"], 0);
    assert_eq!(v["includes_definitions"], true);
    let sites: Vec<(String, String)> = v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["kind"].as_str().unwrap().to_string(), r["enclosing"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(sites, [("definition".into(), "SessionInterface".into()), ("definition".into(), "Other".into())]);
    // An ambiguous edit lists the candidates in text mode, with a hint in the file's own terms.
    let err = refused_transform(
        &t,
        r#"{"operations": [{"op": "replace_block", "path": "sessions.py", "kind": "method", "name": "open_session", "new_block": "def open_session(self):\n    return 1"}]}"#,
    );
    assert!(err.contains("SessionInterface/open_session at sessions.py:2-3 (hash "), "{err}");
    assert!(err.contains("Other/open_session at sessions.py:6-7"), "{err}");
    assert!(err.contains("module_path (one of `SessionInterface`, `Other`)") && !err.contains("impl Agent"), "{err}");
    // Each parent is offered once, even when candidates alternate between them.
    t.write("again.py", "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n\nclass A:\n    def run(self):\n        pass\n");
    let err = refused_transform(
        &t,
        r#"{"operations": [{"op": "replace_block", "path": "again.py", "kind": "method", "name": "run", "new_block": "def run(self):\n    return 1"}]}"#,
    );
    assert!(err.contains("module_path (one of `A`, `B`) or line_hint (one of 2, 6, 10)"), "{err}");
    // And the Go receiver, given either way, picks the method.
    let v = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .stdin(r#"{"operations": [{"op": "replace_block", "path": "cmd.go", "kind": "method", "name": "Name", "module_path": "Command", "new_block": "func (c *Command) Name() string {\n\treturn \"x\"\n}"}]}"#)
        .json::<Value>(0);
    assert_eq!(v["ok"], true);
}

#[test]
fn text_prints_exact_definitions_as_found_and_says_what_json_says() {
    let t = TestDir::new();
    t.write("a/aaa.py", "def run_all():\n    pass\n");
    t.write("n.py", "class Outer:\n    class Inner:\n        def go(self):\n            pass\n");
    for i in 0..12 {
        t.write(
            &format!("m{i:02}/x.py"),
            format!("def run():\n    return {i}\n\nclass C{i}:\n    def run(self):\n        pass\n"),
        );
    }
    // The text of the --json run's page, as text mode prints a definition.
    let expected = |v: &Value| -> String {
        let mut text = String::new();
        for d in v["definitions"].as_array().unwrap() {
            text.push_str(&format!(
                "{}:{}:{}: {} {} [{}-{}]  {}\n",
                d["path"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["kind"].as_str().unwrap(),
                d["name_path"].as_str().unwrap(),
                d["line"],
                d["end_line"],
                d["signature"].as_str().unwrap()
            ));
        }
        if let Some(next) = v["next_offset"].as_u64() {
            let at_least = if v["totals_exact"] == true { "" } else { "at least " };
            text.push_str(&format!("… {at_least}{} more (--offset {next})\n", v["total"].as_u64().unwrap() - next));
        }
        text
    };
    for args in [
        vec!["--definitions", "run"],
        vec!["--definitions", "run", "--offset", "3", "--limit", "5"],
        vec!["--definitions", "run", "--offset", "30"],
        // No exact definition: the best tier, printed at the end.
        vec!["--definitions", "Inner/go"],
        vec!["--definitions", "C1/run"],
    ] {
        let v = ast(&t, &args, 0);
        let (text, _) = t.cmd("llm-ast-search").args(&args).expect_exit(0);
        assert_eq!(text, expected(&v), "{args:?}");
        // JSONL: the same records, each once, then the summary.
        let (jsonl, _) = t.cmd("llm-ast-search").args(&args).arg("--jsonl").expect_exit(0);
        let mut lines: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let summary = lines.pop().unwrap();
        assert_eq!(summary["type"], "summary");
        assert!(summary.get("definitions").is_none(), "{summary}");
        assert_eq!(
            (summary["total"].clone(), summary["next_offset"].clone()),
            (v["total"].clone(), v["next_offset"].clone())
        );
        for line in &mut lines {
            assert_eq!(line.as_object_mut().unwrap().remove("type"), Some(Value::from("definition")));
        }
        assert_eq!(Value::Array(lines), v["definitions"], "{args:?}");
        // The log keeps the page that was printed.
        let id = {
            let runs: Value =
                serde_json::from_str(&t.cmd("aide").args(["log", "list", "--limit", "1", "--json"]).expect_exit(0).0)
                    .unwrap();
            runs["runs"][0]["execution_id"].as_str().unwrap().to_string()
        };
        let (stored, _) = t.cmd("aide").args(["log", "show", &id, "--json"]).expect_exit(0);
        let stored: Value = serde_json::from_str(&stored).unwrap();
        assert_eq!(stored["definitions"], v["definitions"], "{args:?}");
        assert_eq!(
            (stored["total"].clone(), stored["next_offset"].clone()),
            (v["total"].clone(), v["next_offset"].clone())
        );
    }
}

#[test]
fn definitions_with_a_limit_stop_once_the_page_is_certain() {
    let t = TestDir::new();
    // An exact definition in every file (and a file the name's token is not in).
    t.write("a/aaa.py", "def run_all():\n    pass\n");
    for i in 0..40 {
        t.write(&format!("m{i:02}/x.py"), format!("def run():\n    return {i}\n"));
    }
    let whole = ast(&t, &["--definitions", "run"], 0);
    assert_eq!((whole["total"].as_u64(), whole["totals_exact"].as_bool()), (Some(40), Some(true)), "{whole}");
    let paths = |v: &Value| -> Vec<String> {
        v["definitions"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap().to_string()).collect()
    };
    let runs: Vec<Value> = ["1", "2", "8"]
        .iter()
        .map(|threads| ast(&t, &["--definitions", "run", "--limit", "2", "--offset", "1", "--threads", threads], 0))
        .collect();
    let page = &runs[0];
    // The whole run's page, found after four files of 40: no tier beats exact.
    assert_eq!(paths(page), paths(&whole)[1..3]);
    assert_eq!(page["name_match"], "exact");
    assert_eq!((page["truncated"].as_bool(), page["next_offset"].as_u64()), (Some(true), Some(3)));
    let counts = (page["total"].as_u64(), page["files_parsed"].as_u64(), page["totals_exact"].as_bool());
    assert_eq!(counts, (Some(4), Some(4), Some(false)));
    let strip = |v: &Value| {
        let mut v = v.clone();
        v["execution_id"] = Value::Null;
        v["stats"] = Value::Null;
        v
    };
    assert!(runs.iter().all(|r| strip(r) == strip(page)), "the same whatever the threads");
    // The text says the count is a lower bound.
    let (text, _) = t.cmd("llm-ast-search").args(["--definitions", "run", "--limit", "2"]).expect_exit(0);
    assert!(text.contains("… at least 1 more (--offset 2)"), "{text}");
    // The text outline stops the same way once its page is full.
    let (outline, _) = t.cmd("llm-ast-search").args(["--all", "--limit", "2"]).expect_exit(0);
    assert_eq!(
        outline,
        "a/aaa.py\n  Function run_all [1-2]\nm00/x.py\n  Function run [1-2]\n… at least 1 more (--offset 2)\n"
    );
}

/// Issue 31: every capture walked up its ancestors with `parent()`, which
/// tree-sitter answers by walking down from the root (1,000 nested blocks
/// took 64 s); a pattern nested deep over a deep file costs their product,
/// so past a budget the file is skipped and said so, and a rewrite refuses.
#[test]
fn deep_nesting_costs_the_depth_once_and_deep_queries_are_bounded() {
    let t = TestDir::new();
    let mut source = String::from("x = 1\n");
    for _ in 0..600 {
        source = format!("if x:\n{}", source.lines().map(|l| format!("    {l}\n")).collect::<String>());
    }
    t.write("deep.py", &source);
    let (out, _) =
        t.cmd("llm-ast-search").args(["--json", "--query", "(identifier) @i", "--language", "python"]).expect_exit(0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"], 601, "600 conditions and one assignment");
    t.write("parens.py", format!("x = {}1{}\n", "(".repeat(800), ")".repeat(800)));
    let pattern = format!("{}(integer) @n{}", "(parenthesized_expression ".repeat(40), ")".repeat(40));
    let (out, _) = t
        .cmd("llm-ast-search")
        .args(["--json", "--query", &pattern, "--language", "python", "parens.py"])
        .expect_exit(1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "query_too_deep", "{v}");
    let shallow = "(parenthesized_expression (parenthesized_expression (integer) @n))";
    let (out, _) = t
        .cmd("llm-ast-search")
        .args(["--json", "--query", shallow, "--language", "python", "parens.py"])
        .expect_exit(0);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["total"], 1);
    let rewrite = serde_json::json!({ "operations": [{ "op": "rewrite", "language": "python", "query": pattern, "template": "2", "glob": ["parens.py"] }] });
    let v: serde_json::Value = t.cmd("llm-transform").args(["--request", "-"]).stdin(rewrite.to_string()).json(2);
    assert_eq!(v["error"]["code"], "input_too_deep", "{v}");
}

/// Issue 33: `--compact` is the dense outline (a container's members on
/// its line, leaves side by side), a fraction of the default text; the
/// JSON is the same either way.
#[test]
fn the_compact_outline_puts_members_on_their_containers_line() {
    let t = TestDir::new();
    t.write(
        "a.rs",
        "pub struct Agent { name: String, age: u32 }\nimpl Agent {\n    pub fn new() -> Self { todo!() }\n    \
         pub fn run(&self) {}\n}\npub fn top() {}\nconst MAX: u32 = 3;\nmod inner { pub fn deep() {} }\n",
    );
    let (text, _) = t.cmd("llm-ast-search").args(["--symbols", "--compact", "a.rs"]).expect_exit(0);
    assert_eq!(
        text,
        "a.rs\n  struct Agent:1-1 {name:1 age:1}\n  impl Agent:2-5 {new:3 run:4}\n  fn top:6  const MAX:7\n  \
         mod inner:8-8 {deep:8}\n"
    );
    let (full, _) = t.cmd("llm-ast-search").args(["--symbols", "a.rs"]).expect_exit(0);
    assert!(text.len() * 2 < full.len(), "{text}\n{full}");
    let compact: Value = t.cmd("llm-ast-search").args(["--symbols", "--compact", "a.rs"]).json(0);
    let plain: Value = t.cmd("llm-ast-search").args(["--symbols", "a.rs"]).json(0);
    assert_eq!(compact["symbols"], plain["symbols"]);
}
