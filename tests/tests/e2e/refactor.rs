//! Refactoring across a tree: search results fed to an edit by their
//! checksums, regex replacement (against sd), structural rewrites, symbol
//! renames, and what every edit reports.

use aide_tests::TestDir;
use serde_json::{Value, json};

/// The file's checksum as llm-read reports it (what every edit takes).
fn checksum(t: &TestDir, rel: &str) -> String {
    let v: Value = t.cmd("llm-read").args([rel, "--limit", "1"]).json(0);
    v["files"][0]["checksum"].as_str().unwrap().to_string()
}

pub(crate) fn read(t: &TestDir, rel: &str) -> String {
    std::fs::read_to_string(t.root().join(rel)).unwrap()
}

/// Runs `llm-transform --request -` with `request`, expecting `code`.
pub(crate) fn transform(t: &TestDir, request: Value, code: i32) -> Value {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

pub(crate) fn error_code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

pub(crate) fn rust_tree() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write(
        "src/main.rs",
        "mod agent;\nuse agent::Agent;\n\nfn helper(x: u32) -> u32 {\n    x + 1\n}\n\nfn main() {\n    let a = Agent::new();\n    a.run();\n    // helper is explained here\n    let s = \"helper\";\n    println!(\"{} {}\", helper(2), s);\n}\n",
    );
    t.write(
        "src/agent.rs",
        "pub struct Agent {\n    pub count: u32,\n}\n\nimpl Agent {\n    pub fn new() -> Agent {\n        Agent { count: 0 }\n    }\n\n    pub fn run(&self) -> u32 {\n        self.count + self.step()\n    }\n\n    fn step(&self) -> u32 {\n        let count = 2;\n        count * 2\n    }\n}\n",
    );
    t
}

#[test]
fn every_search_record_carries_the_checksum_of_its_file() {
    let t = rust_tree();
    let main_sum = checksum(&t, "src/main.rs");
    let agent_sum = checksum(&t, "src/agent.rs");
    let sum_of = |path: &str| if path == "src/main.rs" { main_sum.clone() } else { agent_sum.clone() };
    let check = |records: &Value| {
        let list = records.as_array().unwrap();
        assert!(!list.is_empty());
        for r in list {
            assert_eq!(r["checksum"], sum_of(r["path"].as_str().unwrap()).as_str(), "{r}");
        }
    };
    let v: Value = t.cmd("llm-search").args(["-e", "count"]).json(0);
    check(&v["matches"]);
    let v: Value = t.cmd("llm-search").args(["-e", "count", "--mode", "files"]).json(0);
    check(&v["files"]);
    let v: Value = t.cmd("llm-ast-search").args(["--references", "count"]).json(0);
    check(&v["references"]);
    let v: Value = t.cmd("llm-ast-search").args(["--definitions", "run"]).json(0);
    check(&v["definitions"]);
    let v: Value = t.cmd("llm-ast-search").args(["src"]).json(0);
    check(&v["symbols"]);
    let v: Value = t.cmd("llm-ast-search").args(["-l", "rust", "-q", "(field_identifier) @f"]).json(0);
    check(&v["symbols"]);
}

#[test]
fn search_output_becomes_checksum_guarded_edits_with_captures() {
    let t = rust_tree();
    let (found, _) = t.cmd("llm-search").args(["-e", r"helper\((\d)\)", "--captures", "--json"]).expect_exit(0);
    let v: Value = t
        .cmd("llm-transform")
        .args(["--from-matches", "-", "--replacement", "helper(${1}0)"])
        .stdin(found.clone())
        .json(0);
    assert!(read(&t, "src/main.rs").contains("helper(20), s"));
    assert_eq!(v["applied"], 1);
    let file = &v["files"][0];
    assert_eq!(file["checksum_after"], checksum(&t, "src/main.rs").as_str());
    // The same search output is stale now: refused, nothing written.
    let before = read(&t, "src/main.rs");
    let v: Value = t.cmd("llm-transform").args(["--from-matches", "-", "--replacement", "X"]).stdin(found).json(3);
    assert_eq!(error_code(&v), "checksum_mismatch");
    assert_eq!(read(&t, "src/main.rs"), before);
}

#[test]
fn jsonl_output_and_tree_sitter_captures_feed_edits_too() {
    let t = rust_tree();
    let (found, _) = t.cmd("llm-search").args(["-e", "count", "-g", "src/agent.rs", "--jsonl"]).expect_exit(0);
    let v: Value = t.cmd("llm-transform").args(["--from-matches", "-", "--replacement", "total"]).stdin(found).json(0);
    assert_eq!(v["applied"], 5);
    assert!(!read(&t, "src/agent.rs").contains("count"));
    // A query capture: `$0` is its text, `${name}` too.
    let (found, _) = t
        .cmd("llm-ast-search")
        .args([
            "-l",
            "rust",
            "-q",
            "(call_expression function: (field_expression field: (field_identifier) @m))",
            "--json",
        ])
        .expect_exit(0);
    let v: Value =
        t.cmd("llm-transform").args(["--from-matches", "-", "--replacement", "${m}_now"]).stdin(found).json(0);
    assert_eq!(v["applied"], 2);
    assert!(read(&t, "src/agent.rs").contains("self.total + self.step_now()"));
    assert!(read(&t, "src/main.rs").contains("a.run_now();"));
}

#[test]
fn from_matches_refuses_what_is_not_a_search_result() {
    let t = rust_tree();
    let v: Value =
        t.cmd("llm-transform").args(["--from-matches", "-", "--replacement", "x"]).stdin("{\"a\": 1}").json(2);
    assert_eq!(error_code(&v), "invalid_request");
    let v: Value = t
        .cmd("llm-transform")
        .args(["--from-matches", "-", "--replacement", "x"])
        .stdin(json!([{ "path": "src/main.rs", "byte_start": 0, "byte_end": 3 }]).to_string())
        .json(2);
    assert_eq!(error_code(&v), "invalid_request");
    assert!(v["error"]["message"].as_str().unwrap().contains("no checksum"));
    // Two overlapping records of one file: both named, nothing written.
    let sum = checksum(&t, "src/main.rs");
    let records = json!([
        { "path": "src/main.rs", "byte_start": 0, "byte_end": 6, "checksum": sum },
        { "path": "src/main.rs", "byte_start": 4, "byte_end": 9, "checksum": sum },
    ]);
    let v: Value =
        t.cmd("llm-transform").args(["--from-matches", "-", "--replacement", "x"]).stdin(records.to_string()).json(3);
    assert_eq!(error_code(&v), "overlapping_edits");
    assert_eq!(v["error"]["details"]["first"]["byte_start"], 0);
    assert_eq!(v["error"]["details"]["second"]["byte_start"], 4);
}

#[test]
fn replace_regex_is_one_all_or_nothing_request_with_per_file_reports() {
    let t = TestDir::new();
    t.write("a.py", "old_name = 1\nprint(old_name)\n")
        .write("b/c.py", "from a import old_name\n")
        .write("b/notes.txt", "old_name in prose\n")
        .write("bin.dat", b"old_name\x00\x01".as_slice());
    let request = |extra: Value| {
        let mut op = json!({ "op": "replace_regex", "pattern": r"old_(\w+)", "replacement": "new_$1" });
        for (k, v) in extra.as_object().unwrap() {
            op[k] = v.clone();
        }
        json!({ "operations": [op] })
    };
    // Dry run: the diffs, nothing written.
    let mut dry = request(json!({ "type": "python" }));
    dry["dry_run"] = json!(true);
    let v = transform(&t, dry, 0);
    assert_eq!(v["applied"], 3);
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert!(v["files"][0]["diff"].as_str().unwrap().contains("+new_name = 1"));
    assert_eq!(read(&t, "a.py"), "old_name = 1\nprint(old_name)\n");
    // A guard: more replacements than allowed refuses the whole request.
    let v = transform(&t, request(json!({ "max_replacements": 3 })), 3);
    assert_eq!(error_code(&v), "too_many_replacements");
    assert_eq!(v["error"]["details"]["count"], 4);
    assert_eq!(read(&t, "a.py"), "old_name = 1\nprint(old_name)\n");
    // Applied: every text file, the binary one reported and left alone.
    let v = transform(&t, request(json!({})), 0);
    assert_eq!(read(&t, "a.py"), "new_name = 1\nprint(new_name)\n");
    assert_eq!(read(&t, "b/notes.txt"), "new_name in prose\n");
    assert_eq!(std::fs::read(t.root().join("bin.dat")).unwrap(), b"old_name\x00\x01");
    // Quiet by default: the binary file is counted, not warned on.
    assert_eq!(v["stats"]["skipped"]["binary_file"], 1, "{v}");
    assert!(v["diagnostics"].as_array().is_none_or(|d| d.is_empty()), "{v}");
    let reports: Vec<(&str, &str)> = v["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap(), r["note"].as_str().unwrap()))
        .collect();
    assert_eq!(reports, [("a.py", "2 replacements"), ("b/c.py", "1 replacement"), ("b/notes.txt", "1 replacement")]);
    // One undo restores every file.
    t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(0);
    assert_eq!(read(&t, "a.py"), "old_name = 1\nprint(old_name)\n");
    assert_eq!(read(&t, "b/c.py"), "from a import old_name\n");
    // An invalid pattern is refused before anything is read.
    let v = transform(&t, json!({ "operations": [{ "op": "replace_regex", "pattern": "(", "replacement": "" }] }), 2);
    assert_eq!(error_code(&v), "invalid_pattern");
    // A misspelt field is refused, never ignored.
    let v = transform(&t, request(json!({ "max_replacement": 1 })), 2);
    assert!(v["error"]["message"].as_str().unwrap().contains("max_replacement"), "{v}");
}

#[test]
fn replace_regex_writes_the_same_bytes_as_sd() {
    if !aide_tests::oracle("sd", "replace_regex gives sd's bytes") {
        return;
    }
    let cases = [
        (r"(\w+)_(\w+)\((\d+)\)", "${2}_$1[$3]"),
        (r"^fn ", "pub fn "),
        (r"x$", "y"),
        (r"\s+//.*", ""),
        (r"ö+", "oe"),
        (r"(?i)TODO", "DONE"),
        (r"a|ab", "[$0]"),
        (r"\$", "$$"),
        (r"(?P<k>\w+)=(?P<v>\w+)", "$v=$k"),
    ];
    let body = "fn foo_bar(12) // note\nfn x\n  todo: a_b(3)\r\nköln=öö  \nabc=def $5\nTODO ab a\n";
    for (pattern, replacement) in cases {
        let ours = TestDir::new();
        ours.write("f.txt", body);
        let theirs = TestDir::new();
        theirs.write("f.txt", body);
        let op = json!({ "op": "replace_regex", "pattern": pattern, "replacement": replacement });
        let out = ours
            .cmd("llm-transform")
            .args(["--request", "-"])
            .stdin(json!({ "operations": [op] }).to_string())
            .output();
        assert!(out.status.success(), "{pattern}: {}", String::from_utf8_lossy(&out.stderr));
        let status = std::process::Command::new("sd")
            .args([pattern, replacement, "f.txt"])
            .current_dir(theirs.root())
            .status()
            .unwrap();
        assert!(status.success(), "sd {pattern}");
        assert_eq!(read(&ours, "f.txt"), read(&theirs, "f.txt"), "pattern {pattern:?} replacement {replacement:?}");
    }
}

/// sd puts an empty match's replacement between the bytes of a UTF-8
/// character; an empty match never splits one here.
#[test]
fn empty_matches_never_split_a_character() {
    let t = TestDir::new();
    t.write("f.txt", "köln\n");
    let op = json!({ "op": "replace_regex", "pattern": r"\d*", "replacement": "#" });
    transform(&t, json!({ "operations": [op] }), 0);
    assert_eq!(read(&t, "f.txt"), "#k#ö#l#n#\n#");
}

/// One rewrite per language: each call `old(ARG)` becomes `new_call(ARG, 0)`.
#[test]
fn structural_rewrites_work_in_every_language() {
    let cases: [(&str, &str, &str, &str, &str); 9] = [
        (
            "rust",
            "a.rs",
            "fn f() { old(1); }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (_) @a)) @call",
            "fn f() { new_call(1, 0); }\n",
        ),
        (
            "python",
            "a.py",
            "def f():\n    old(1)\n",
            "(call function: (identifier) @f (#eq? @f \"old\") arguments: (argument_list (_) @a)) @call",
            "def f():\n    new_call(1, 0)\n",
        ),
        (
            "javascript",
            "a.js",
            "function f() { old(1); }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (_) @a)) @call",
            "function f() { new_call(1, 0); }\n",
        ),
        (
            "typescript",
            "a.ts",
            "function f(): void { old(1); }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (_) @a)) @call",
            "function f(): void { new_call(1, 0); }\n",
        ),
        (
            "tsx",
            "a.tsx",
            "function f() { return <div>{old(1)}</div>; }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (_) @a)) @call",
            "function f() { return <div>{new_call(1, 0)}</div>; }\n",
        ),
        (
            "c",
            "a.c",
            "void f(void) { old(1); }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (argument_list (_) @a)) @call",
            "void f(void) { new_call(1, 0); }\n",
        ),
        (
            "cpp",
            "a.cpp",
            "void f() { old(1); }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (argument_list (_) @a)) @call",
            "void f() { new_call(1, 0); }\n",
        ),
        (
            "java",
            "A.java",
            "class A { void f() { old(1); } }\n",
            "(method_invocation name: (identifier) @f (#eq? @f \"old\") arguments: (argument_list (_) @a)) @call",
            "class A { void f() { new_call(1, 0); } }\n",
        ),
        (
            "go",
            "a.go",
            "package a\nfunc f() { old(1) }\n",
            "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (argument_list (_) @a)) @call",
            "package a\nfunc f() { new_call(1, 0) }\n",
        ),
    ];
    for (language, path, before, query, after) in cases {
        let t = TestDir::new();
        t.write(path, before).write("other.txt", "old(1)\n");
        let op = json!({ "op": "rewrite", "language": language, "query": query, "template": "new_call(${a}, 0)" });
        let v = transform(&t, json!({ "operations": [op] }), 0);
        assert_eq!(read(&t, path), after, "{language}: {v}");
        assert_eq!(v["applied"], 1, "{language}");
        assert_eq!(read(&t, "other.txt"), "old(1)\n");
    }
}

#[test]
fn nested_matches_are_rewritten_inside_out_and_real_overlaps_refused() {
    let t = TestDir::new();
    let body = "fn f() -> u32 { old(old(1)) + old(2) + a.unwrap().err().unwrap() }\n";
    t.write("a.rs", body);
    let op = |query: &str, template: &str| json!({ "operations": [{ "op": "rewrite", "language": "rust", "query": query, "template": template }] });
    // A match inside another's capture is rewritten first, then carried by
    // the outer template (ast-grep -U rewrites the outer one only).
    let nested = "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (_) @a)) @call";
    let v = transform(&t, op(nested, "new(${a})"), 0);
    assert_eq!(v["applied"], 2);
    let unwraps = "(call_expression function: (field_expression value: (_) @x field: (field_identifier) @m (#eq? @m \"unwrap\")) arguments: (arguments) @args (#eq? @args \"()\")) @call";
    transform(&t, op(unwraps, "${x}.expect(\"checked\")"), 0);
    assert_eq!(
        read(&t, "a.rs"),
        "fn f() -> u32 { new(new(1)) + new(2) + a.expect(\"checked\").err().expect(\"checked\") }\n"
    );
    // An inner match whose text the template drops would be lost: refused,
    // both spans named.
    t.write("a.rs", body);
    let v = transform(&t, op(nested, "dropped()"), 3);
    assert_eq!(error_code(&v), "overlapping_edits");
    assert_eq!(v["error"]["details"]["first"]["byte_start"], 16);
    assert_eq!(v["error"]["details"]["second"]["byte_start"], 20);
    // With `replace`, the replaced capture nests the same way.
    let sums = "(binary_expression left: (_) @l right: (_) @r) @b";
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "rewrite", "language": "rust", "query": sums, "template": "(${l})", "replace": "l" }] }),
        0,
    );
    assert_eq!(v["applied"], 1, "{v}");
    assert!(read(&t, "a.rs").starts_with("fn f() -> u32 { ((old(old(1))) + old(2)) + a.unwrap()"));
    // Broken results and unknown captures.
    t.write("a.rs", body);
    let inner = "(call_expression function: (identifier) @f (#eq? @f \"old\") arguments: (arguments (integer_literal) @a)) @call";
    let v = transform(&t, op(inner, "new(${a}"), 3);
    assert_eq!(error_code(&v), "new_syntax_errors");
    let v = transform(&t, op(nested, "new(${b})"), 2);
    assert_eq!(error_code(&v), "invalid_request");
    assert!(v["error"]["hint"].as_str().unwrap().contains("${a}"));
    assert_eq!(read(&t, "a.rs"), body);
}
