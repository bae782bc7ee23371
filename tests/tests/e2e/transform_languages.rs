//! llm-transform's block, line and scoped edits in each language's own style: indentation, tabs, PEP 8 blank lines, Python's compile check, and output flags beside a request.

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::transform::{SESSIONS_PY, read, read_text, sha, transform};

/// Python's own verdict on a file, when python3 is on PATH (the expected
/// text is asserted either way).
fn python_accepts(t: &TestDir, rel: &str) -> bool {
    if !aide_tests::have("python3") {
        aide_tests::skip("python3", "compile() check of an edited Python file");
        return true;
    }
    std::process::Command::new("python3")
        .args(["-c", "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')"])
        .arg(t.root().join(rel))
        .status()
        .unwrap()
        .success()
}

#[test]
fn python_block_edits_take_the_targets_indentation_whatever_the_caller_gave() {
    let t = TestDir::new();
    // Bare first line, body relative to it (the issue's reproduction).
    t.write("bare.py", SESSIONS_PY);
    let op = |path: &str, block: &str| {
        json!({ "operations": [{ "op": "replace_block", "path": path, "kind": "method", "name": "open_session",
                                 "module_path": "SessionInterface", "new_block": block }] })
    };
    transform(&t, op("bare.py", "def open_session(self, app, request):\n    return None"), &[], 0);
    let expected = SESSIONS_PY
        .replace("        raise NotImplementedError()\n\n    def save", "        return None\n\n    def save");
    assert_eq!(String::from_utf8(read(&t, "bare.py")).unwrap(), expected);
    assert!(python_accepts(&t, "bare.py"));
    // Pre-indented: the first line is not indented twice.
    t.write("pre.py", SESSIONS_PY);
    transform(&t, op("pre.py", "    def open_session(self, app, request):\n        return None\n"), &[], 0);
    assert_eq!(String::from_utf8(read(&t, "pre.py")).unwrap(), expected);
    // Inserted blocks sit beside their neighbour, at its depth.
    t.write("ins.py", SESSIONS_PY);
    let insert = json!({ "operations": [
        { "op": "insert_after_block", "path": "ins.py", "kind": "method", "name": "open_session", "snippet": "\ndef touch(self):\n    if self:\n        return 1" },
        { "op": "insert_before_block", "path": "ins.py", "kind": "method", "name": "open_session", "snippet": "def first(self):\n    pass\n" },
    ]});
    transform(&t, insert, &[], 0);
    let got = String::from_utf8(read(&t, "ins.py")).unwrap();
    // PEP 8: one blank line between methods.
    assert!(got.contains("    def first(self):\n        pass\n\n    def open_session"), "{got}");
    assert!(got.contains("\n    def touch(self):\n        if self:\n            return 1\n"), "{got}");
    assert!(python_accepts(&t, "ins.py"));
}

#[test]
fn go_block_edits_keep_the_files_tabs() {
    let t = TestDir::new();
    let go = "package main\n\ntype Command struct{}\n\nfunc (c *Command) Name() string {\n\treturn \"x\"\n}\n";
    t.write("cmd.go", go);
    let op = json!({ "operations": [{ "op": "replace_block", "path": "cmd.go", "kind": "method", "name": "Name",
        "new_block": "func (c *Command) Name() string {\n    if c == nil {\n        return \"\"\n    }\n    return \"y\"\n}" }] });
    transform(&t, op, &[], 0);
    let got = String::from_utf8(read(&t, "cmd.go")).unwrap();
    assert!(
        got.ends_with("func (c *Command) Name() string {\n\tif c == nil {\n\t\treturn \"\"\n\t}\n\treturn \"y\"\n}\n"),
        "{got}"
    );
}

#[test]
fn the_guard_catches_python_indentation_that_tree_sitter_tolerates() {
    let t = TestDir::new();
    t.write("s.py", SESSIONS_PY);
    // A patch that pulls the body out to the def's column.
    let patch = json!({ "operations": [{ "op": "patch", "path": "s.py",
        "old_text": "        raise NotImplementedError()\n\n    def save", "new_text": "    raise NotImplementedError()\n\n    def save" }] });
    let v = transform(&t, patch.clone(), &[], 3);
    assert_eq!(v["error"]["code"], "new_syntax_errors", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("indented block"), "{v}");
    assert_eq!(read(&t, "s.py"), SESSIONS_PY.as_bytes(), "nothing written");
    // --validate sees the same in a file written by other means.
    t.write("broken.py", "class A:\n    def f(self):\n    return None\n");
    let (out, _) = t.cmd("llm-ast-search").args(["--validate", "broken.py"]).expect_exit(3);
    assert!(out.contains("broken.py:2:") && out.contains("expected an indented block"), "{out}");
}

#[test]
fn output_flags_accompany_a_request() {
    let t = TestDir::new();
    t.write("a.txt", "old\n");
    let request = r#"{"operations": [{"op": "patch", "path": "a.txt", "old_text": "old", "new_text": "new"}]}"#;
    // --dry-run with --request: a diff, nothing written.
    let v: Value = t.cmd("llm-transform").args(["--request", "-", "--dry-run"]).stdin(request).json(0);
    assert_eq!(v["dry_run"], true, "{v}");
    assert!(v["files"][0]["diff"].as_str().unwrap().contains("+new"), "{v}");
    assert_eq!(read(&t, "a.txt"), b"old\n");
    // --diff with --request: applied, and the diff shown.
    let v: Value = t.cmd("llm-transform").args(["--diff", "--request", "-"]).stdin(request).json(0);
    assert!(v["files"][0]["diff"].as_str().unwrap().contains("-old"), "{v}");
    assert_eq!(read(&t, "a.txt"), b"new\n");
    // A flag that changes what is asked still cannot be mixed in.
    let (out, _) = t.cmd("llm-transform").args(["--request", "-", "--file", "a.txt"]).stdin(request).expect_exit(2);
    assert!(out.is_empty());
    let v: Value = t.cmd("llm-transform").args(["--request", "-", "--file", "a.txt"]).stdin(request).json(2);
    assert!(v["error"]["hint"].as_str().unwrap().contains("--dry-run"), "{v}");
}

/// Line edits: several in one request all count the original lines, an
/// overlap or a stale guard refuses the whole request, and undo restores.
#[test]
fn line_edits_count_the_original_lines_all_or_nothing() {
    let t = TestDir::new();
    let body = "one\ntwo\nthree\nfour\nfive\n";
    t.write("a.txt", body);
    let sum = sha(body.as_bytes());
    let v = transform(
        &t,
        json!({ "operations": [
            { "op": "delete_lines", "path": "a.txt", "lines": "2", "checksum_before": sum },
            { "op": "replace_lines", "path": "a.txt", "lines": "4:5", "text": "FOUR-FIVE", "expected_old_text": "four\nfive\n" },
            { "op": "insert_lines", "path": "a.txt", "at_line": 3, "text": "before three\n", "checksum_before": sum },
            { "op": "insert_lines", "path": "a.txt", "at_line": 6, "text": "end", "checksum_before": sum }
        ] }),
        &[],
        0,
    );
    assert_eq!(v["files"][0]["action"], "modified", "{v}");
    assert_eq!(String::from_utf8(read(&t, "a.txt")).unwrap(), "one\nbefore three\nthree\nFOUR-FIVE\nend\n");
    let undo = v["undo"].as_str().unwrap().rsplit(' ').next().unwrap().to_string();

    // Overlapping ranges: refused, nothing written.
    let now = String::from_utf8(read(&t, "a.txt")).unwrap();
    let sum = sha(now.as_bytes());
    let v = transform(
        &t,
        json!({ "operations": [
            { "op": "delete_lines", "path": "a.txt", "lines": "1:3", "checksum_before": sum },
            { "op": "replace_lines", "path": "a.txt", "lines": "3", "text": "x", "checksum_before": sum }
        ] }),
        &[],
        3,
    );
    assert_eq!(v["error"]["code"], "invalid_span", "{v}");
    // The lines moved since they were read: the text guard names what is there now.
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "replace_lines", "path": "a.txt", "lines": "2", "text": "x", "expected_old_text": "two" }] }),
        &[],
        3,
    );
    assert_eq!(v["error"]["code"], "no_match");
    assert_eq!(v["error"]["details"]["actual_text"], "before three\n");
    assert_eq!(String::from_utf8(read(&t, "a.txt")).unwrap(), now, "nothing written");
    t.cmd("llm-transform").args(["undo", &undo]).expect_exit(0);
    assert_eq!(String::from_utf8(read(&t, "a.txt")).unwrap(), body);
}

/// A request run with no flags.
fn apply(t: &TestDir, request: Value, code: i32) -> Value {
    transform(t, request, &[], code)
}

#[test]
fn a_patch_within_a_symbol_and_a_new_signature_touch_only_that_symbol() {
    let t = TestDir::new();
    let code = "struct Agent;\nimpl Agent {\n    fn run(&self) -> u32 {\n        let x = 1;\n        x + 1\n    }\n    fn stop(&self) -> u32 {\n        let x = 1;\n        x\n    }\n}\n";
    t.write("a.rs", code);
    // `let x = 1;` is twice in the file, once in `stop`.
    let v = apply(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "old_text": "let x = 1;", "new_text": "let x = 2;" }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "ambiguous");
    let v = apply(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "within": "Agent/stop", "old_text": "let x = 1;", "new_text": "let x = 2;" }] }),
        0,
    );
    assert_eq!(v["operations"][0]["note"], "within `impl Agent/stop`", "{v}");
    assert!(read_text(&t, "a.rs").contains("fn stop(&self) -> u32 {\n        let x = 2;"));
    assert!(read_text(&t, "a.rs").contains("fn run(&self) -> u32 {\n        let x = 1;"));
    let v = apply(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "within": "Agent/nope", "old_text": "x", "new_text": "y" }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "no_match", "{v}");
    // The head up to the body, nothing else of the 3-line body resent.
    apply(
        &t,
        json!({ "operations": [{ "op": "replace_signature", "path": "a.rs", "kind": "method", "name": "run",
            "new_block": "fn run(&self, extra: u32) -> u32" }] }),
        0,
    );
    assert!(
        read_text(&t, "a.rs").contains("    fn run(&self, extra: u32) -> u32 {\n        let x = 1;\n"),
        "{}",
        read_text(&t, "a.rs")
    );
    // A struct without a body, and a head that breaks the syntax, are refused.
    let v = apply(
        &t,
        json!({ "operations": [{ "op": "replace_signature", "path": "a.rs", "kind": "struct", "name": "Agent", "new_block": "struct Bot" }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "no_match", "{v}");
    let v = apply(
        &t,
        json!({ "operations": [{ "op": "replace_signature", "path": "a.rs", "kind": "method", "name": "stop", "new_block": "fn stop(&self" }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "new_syntax_errors");
}

#[test]
fn python_insertions_keep_pep8_blank_lines() {
    let t = TestDir::new();
    t.write("m.py", "import os\n\n\ndef a():\n    return 1\n\n\nclass C:\n    def m(self):\n        pass\n");
    apply(
        &t,
        json!({ "operations": [
            { "op": "insert_after_block", "path": "m.py", "kind": "function", "name": "a", "snippet": "\ndef b():\n    return 2\n\n" },
            { "op": "insert_before_block", "path": "m.py", "kind": "function", "name": "a", "snippet": "X = 1" },
            { "op": "insert_after_block", "path": "m.py", "kind": "method", "name": "m", "snippet": "def n(self):\n    pass" },
        ] }),
        0,
    );
    assert_eq!(
        read_text(&t, "m.py"),
        "import os\n\n\nX = 1\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\nclass C:\n    def m(self):\n        pass\n\n    def n(self):\n        pass\n"
    );
    // pycodestyle's blank-line rules (E30x), as ruff implements them.
    if aide_tests::oracle("ruff", "the inserted Python against PEP 8's blank-line rules") {
        let out = std::process::Command::new("ruff")
            .args(["check", "--preview", "--select", "E30", "--no-cache", "--output-format", "concise", "m.py"])
            .current_dir(t.root())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    }
}
