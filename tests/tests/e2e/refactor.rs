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

fn read(t: &TestDir, rel: &str) -> String {
    std::fs::read_to_string(t.root().join(rel)).unwrap()
}

/// Runs `llm-transform --request -` with `request`, expecting `code`.
fn transform(t: &TestDir, request: Value, code: i32) -> Value {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

fn rust_tree() -> TestDir {
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

fn rename(t: &TestDir, fields: Value, code: i32) -> Value {
    let mut op = json!({ "op": "rename_symbol" });
    for (k, v) in fields.as_object().unwrap() {
        op[k] = v.clone();
    }
    transform(t, json!({ "operations": [op] }), code)
}

fn sites(v: &Value) -> Vec<(String, usize, String, bool)> {
    v["renames"][0]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap() as usize,
                s["matched"].as_str().unwrap().to_string(),
                s["renamed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn rename_a_free_function_across_files_never_in_comments_or_strings() {
    let t = rust_tree();
    t.write("src/util.rs", "pub fn other() { let helper = 1; let _ = helper; }\n");
    let v = rename(&t, json!({ "name": "helper", "new_name": "assist" }), 0);
    let main = read(&t, "src/main.rs");
    assert!(main.contains("fn assist(x: u32)") && main.contains("assist(2), s"));
    assert!(main.contains("// helper is explained here") && main.contains("\"helper\""));
    // A local of that name elsewhere is another binding.
    assert_eq!(read(&t, "src/util.rs"), "pub fn other() { let helper = 1; let _ = helper; }\n");
    assert_eq!(v["renames"][0]["scope"], "free");
    assert_eq!(
        sites(&v),
        [("src/main.rs".into(), 4, "resolved".into(), true), ("src/main.rs".into(), 13, "resolved".into(), true)]
    );
    // Asked for, comments and strings follow.
    let v = rename(&t, json!({ "name": "assist", "new_name": "aid", "in_comments_and_strings": false }), 0);
    assert_eq!(v["renames"][0]["renamed"], 2);
    let t = rust_tree();
    rename(&t, json!({ "name": "helper", "new_name": "assist", "in_comments_and_strings": true }), 0);
    let main = read(&t, "src/main.rs");
    assert!(main.contains("// assist is explained here") && main.contains("\"assist\""));
}

#[test]
fn rename_a_method_by_name_path_follows_receivers() {
    let t = rust_tree();
    let v = rename(&t, json!({ "name": "Agent/step", "new_name": "advance" }), 0);
    assert!(read(&t, "src/agent.rs").contains("self.count + self.advance()"));
    assert!(read(&t, "src/agent.rs").contains("fn advance(&self)"));
    assert_eq!(v["renames"][0]["scope"], "member");
    assert!(sites(&v).iter().all(|s| s.2 == "resolved"));
    // Another type with a method of the same name: a receiver declared or
    // built as the owner is resolved (`let a = Agent::new()`), one of the
    // other type is not this method, one of unknown type is `unresolved`:
    // reported, not renamed.
    t.write(
        "src/other.rs",
        "pub struct Other;\nimpl Other {\n    pub fn run(&self) {}\n}\npub fn go(o: &Other) { o.run(); }\npub fn any(x: Box<dyn Fn()>) { x.run(); }\n",
    );
    // Left behind silently, the unresolved site could break the build with
    // `ok: true`: refused, each listed, nothing written.
    let refused = rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 3);
    assert_eq!(refused["error"]["code"], "unresolved_sites", "{refused}");
    let listed = &refused["error"]["details"]["sites"];
    assert_eq!((&listed[0]["path"], &listed[0]["line"]), (&json!("src/other.rs"), &json!(6)), "{refused}");
    assert_eq!(listed[0]["line_text"], "pub fn any(x: Box<dyn Fn()>) { x.run(); }");
    assert!(read(&t, "src/agent.rs").contains("pub fn run(&self)"), "nothing written");
    let v = rename(&t, json!({ "name": "Agent/run", "new_name": "execute", "skip_unresolved": true }), 0);
    assert!(read(&t, "src/agent.rs").contains("pub fn execute(&self)"));
    assert!(read(&t, "src/main.rs").contains("a.execute();"));
    assert!(read(&t, "src/other.rs").contains("o.run();") && read(&t, "src/other.rs").contains("x.run();"));
    assert_eq!(v["renames"][0]["unresolved"], 1);
    let listed: Vec<(String, usize, String)> = sites(&v).into_iter().map(|s| (s.0, s.1, s.2)).collect();
    assert_eq!(
        listed,
        [
            ("src/agent.rs".to_string(), 10, "resolved".to_string()),
            ("src/main.rs".to_string(), 10, "resolved".to_string()),
            ("src/other.rs".to_string(), 6, "unresolved".to_string()),
        ]
    );
    // The result still compiles where nothing was left ambiguous.
    let t = rust_tree();
    t.write("Cargo.toml", "[package]\nname = \"r\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 0);
    rename(&t, json!({ "name": "Agent/count", "new_name": "total" }), 0);
    let check = std::process::Command::new("cargo")
        .args(["check", "--quiet", "--offline"])
        .current_dir(t.root())
        .env("CARGO_TARGET_DIR", t.root().join("target"))
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(read(&t, "src/agent.rs").contains("Agent { total: 0 }"));
    assert!(read(&t, "src/agent.rs").contains("let count = 2;"), "a local of the same name stays");
}

#[test]
fn rename_refuses_ambiguous_names_and_collisions() {
    let t = rust_tree();
    t.write("src/util.rs", "pub fn helper() {}\n");
    let v = rename(&t, json!({ "name": "helper", "new_name": "assist" }), 3);
    assert_eq!(error_code(&v), "ambiguous");
    let listed: Vec<&str> =
        v["error"]["details"]["candidates"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(listed, ["src/main.rs", "src/util.rs"]);
    // A path picks one.
    rename(&t, json!({ "name": "helper", "new_name": "assist", "path": "src/util.rs" }), 0);
    assert_eq!(read(&t, "src/util.rs"), "pub fn assist() {}\n");
    // A sibling of the new name.
    let v = rename(&t, json!({ "name": "Agent/step", "new_name": "run" }), 3);
    assert_eq!(error_code(&v), "name_collision");
    assert_eq!(v["error"]["details"]["line"], 10);
    // A local whose scope already uses the new name.
    let v =
        rename(&t, json!({ "name": "count", "new_name": "self_count", "path": "src/agent.rs", "line_hint": 15 }), 0);
    assert_eq!(v["renames"][0]["scope"], "local");
    assert!(read(&t, "src/agent.rs").contains("let self_count = 2;\n        self_count * 2"));
    let v = rename(&t, json!({ "name": "no_such_name", "new_name": "x" }), 2);
    assert_eq!(error_code(&v), "not_found");
    let v = rename(&t, json!({ "name": "Agent/run", "new_name": "not valid" }), 2);
    assert_eq!(error_code(&v), "invalid_arguments");
}

#[test]
fn rename_locals_by_scope_in_python_javascript_and_go() {
    let t = TestDir::new();
    t.write(
        "m.py",
        "value = 10\n\ndef f(value):\n    return value + 1\n\ndef g():\n    return value\n\nclass K:\n    def run(self):\n        return self.run\n",
    );
    rename(&t, json!({ "name": "value", "new_name": "amount", "path": "m.py", "line_hint": 3 }), 0);
    assert_eq!(
        read(&t, "m.py"),
        "value = 10\n\ndef f(amount):\n    return amount + 1\n\ndef g():\n    return value\n\nclass K:\n    def run(self):\n        return self.run\n"
    );
    t.write("a.js", "const x = 1;\nfunction f(x) {\n  const y = x * 2;\n  return () => x + y;\n}\nconsole.log(x);\n");
    rename(&t, json!({ "name": "x", "new_name": "n", "path": "a.js", "line_hint": 2 }), 0);
    assert_eq!(
        read(&t, "a.js"),
        "const x = 1;\nfunction f(n) {\n  const y = n * 2;\n  return () => n + y;\n}\nconsole.log(x);\n"
    );
    t.write(
        "c.go",
        "package c\n\ntype Command struct{ Name string }\n\nfunc (c *Command) Title() string { return c.Name }\n\nfunc Use(c *Command) string { return c.Title() }\n",
    );
    let v = rename(&t, json!({ "name": "Command/Title", "new_name": "Heading" }), 0);
    assert_eq!(
        read(&t, "c.go"),
        "package c\n\ntype Command struct{ Name string }\n\nfunc (c *Command) Heading() string { return c.Name }\n\nfunc Use(c *Command) string { return c.Heading() }\n"
    );
    assert_eq!(v["renames"][0]["scope"], "member");
    if aide_tests::oracle("python3", "a renamed Python file still compiles") {
        let ok = std::process::Command::new("python3")
            .args(["-m", "py_compile", "m.py"])
            .current_dir(t.root())
            .status()
            .unwrap();
        assert!(ok.success());
    }
}

#[test]
fn java_members_are_renamed_through_implicit_this() {
    let t = TestDir::new();
    t.write(
        "A.java",
        "class A {\n    int size;\n    int size() { return size; }\n    int twice() { return size() * 2 + this.size; }\n}\nclass B {\n    int size() { return 0; }\n    int use(A a) { return size() + a.size(); }\n}\n",
    );
    let v = rename(&t, json!({ "name": "A/size", "new_name": "count", "line_hint": 3 }), 0);
    assert_eq!(
        read(&t, "A.java"),
        "class A {\n    int size;\n    int count() { return size; }\n    int twice() { return count() * 2 + this.size; }\n}\nclass B {\n    int size() { return 0; }\n    int use(A a) { return size() + a.count(); }\n}\n"
    );
    // `a` is declared an A; B's own size() is B's.
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
}

#[test]
fn every_edit_reports_its_sites_so_the_next_edit_needs_no_read() {
    let t = rust_tree();
    let v = rename(&t, json!({ "name": "Agent/count", "new_name": "total" }), 0);
    let file = v["files"].as_array().unwrap().iter().find(|f| f["path"] == "src/agent.rs").unwrap();
    let after = read(&t, "src/agent.rs");
    let sites = file["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 3);
    for s in sites {
        let (a, b) =
            (s["after"]["byte_start"].as_u64().unwrap() as usize, s["after"]["byte_end"].as_u64().unwrap() as usize);
        assert_eq!(&after[a..b], "total");
        assert_eq!(s["before"]["line"], s["after"]["line"]);
    }
    // Chain: a span edit at a reported site, guarded by checksum_after.
    let s = &sites[2];
    let edit = json!({ "edits": [{ "path": "src/agent.rs", "byte_start": s["after"]["byte_start"], "byte_end": s["after"]["byte_end"],
        "replacement": "sum", "checksum_before": file["checksum_after"] }] });
    transform(&t, edit, 0);
    assert!(read(&t, "src/agent.rs").contains("self.sum + self.step()"));
}

/// cobra's `--references Name` listed pflag's `flag.Name` fields: a name
/// path that names one definition now gets its uses, each saying how it
/// matched, and nothing that means another symbol.
#[test]
fn references_of_one_definition_are_judged_not_just_spelled_alike() {
    let t = TestDir::new();
    t.write(
        "command.go",
        "package cobra\n\ntype Command struct{ use string }\n\nfunc (c *Command) Name() string { return c.use }\n\nfunc (c *Command) Title() string { return \"cmd \" + c.Name() }\n",
    )
    .write(
        "flag.go",
        "package cobra\n\ntype Flag struct{ Name string }\n\nfunc show(f *Flag) string { return f.Name }\n\nfunc local() string { Name := \"x\"; return Name }\n\nfunc any(v interface{ Name() string }) string { return v.Name() }\n",
    );
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Command/Name", "--include-definition"]).json(0);
    assert_eq!(v["matching"], "definition");
    let got: Vec<(String, u64, String, String)> = v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["line"].as_u64().unwrap(),
                r["kind"].as_str().unwrap().to_string(),
                r["matched"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("command.go", 5, "definition", "resolved"),
        ("command.go", 7, "call", "resolved"),
        ("flag.go", 9, "call", "unresolved"),
    ];
    let expected: Vec<(String, u64, String, String)> =
        expected.iter().map(|(p, l, k, m)| (p.to_string(), *l, k.to_string(), m.to_string())).collect();
    assert_eq!(got, expected, "f.Name is a Flag's field; the local `Name` is another binding");
    // Text mode marks the doubtful site.
    let (text, _) = t.cmd("llm-ast-search").args(["--references", "Command/Name"]).expect_exit(0);
    assert!(text.contains("flag.go:9:58: [call] in any (unresolved): "), "{text}");
    // A bare name with several definitions: every use by name, all unresolved.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Name"]).json(0);
    assert_eq!(v["matching"], "by_name");
    assert!(v["references"].as_array().unwrap().iter().all(|r| r["matched"] == "unresolved"));
}

#[test]
fn doc_comments_that_name_the_symbol_follow_a_rename() {
    // Go: the doc comment begins with the name.
    let t = TestDir::new();
    t.write(
        "flag.go",
        "package flag\n\n// Parse reads the flags.\n// Parse is safe to call twice.\nfunc Parse() {}\n\n// Other mentions Parse but is not its doc.\nfunc Other() { Parse() }\n",
    );
    let v = rename(&t, json!({ "name": "Parse", "new_name": "ParseAll" }), 0);
    let go = read(&t, "flag.go");
    assert!(go.contains("// ParseAll reads the flags.\n// Parse is safe"), "only the first word of the doc: {go}");
    assert!(go.contains("// Other mentions Parse but") && go.contains("func Other() { ParseAll() }"), "{go}");
    let doc = sites(&v).into_iter().find(|s| s.1 == 3).unwrap();
    assert_eq!(doc.2, "resolved", "{v}");

    // Rust: intra-doc links to the symbol, bare or qualified, in ///, //!.
    let t = rust_tree();
    t.write(
        "src/lib.rs",
        "//! The [`Agent`] type and [`Agent::run`].\n/// Runs an [Agent]; see [`Agent::run()`], not [`Other::run`].\npub fn drive() {}\n",
    );
    rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 0);
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("[`Agent::execute`]") && lib.contains("[`Agent::execute()`]"), "{lib}");
    assert!(lib.contains("[`Other::run`]"), "another type's method is not this one: {lib}");
    rename(&t, json!({ "name": "Agent", "new_name": "Robot" }), 0);
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("//! The [`Robot`] type") && lib.contains("Runs an [Robot]"), "{lib}");
}

#[test]
fn unresolved_sites_are_renamed_or_skipped_only_when_asked() {
    let t = TestDir::new();
    t.write(
        "app.py",
        "class Blueprint:\n    def add_rule(self):\n        pass\n\nclass Flask:\n    def add_rule(self):\n        pass\n\ndef setup(app):\n    app.add_rule()\n",
    );
    let v = rename(&t, json!({ "name": "Blueprint/add_rule", "new_name": "add_route" }), 3);
    assert_eq!(v["error"]["code"], "unresolved_sites");
    assert_eq!(v["error"]["details"]["sites"][0]["line"], 10, "{v}");
    let v = rename(&t, json!({ "name": "Blueprint/add_rule", "new_name": "add_route", "include_unresolved": true }), 0);
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    assert!(read(&t, "app.py").contains("app.add_route()"));
}
