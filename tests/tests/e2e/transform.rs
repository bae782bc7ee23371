//! llm-transform: checksum-guarded, all-or-nothing, byte-faithful edits,
//! block operations, guards, dry runs and undo.

use aide_tests::TestDir;
use serde_json::{Value, json};

pub(crate) fn sha(bytes: &[u8]) -> String {
    let v: Value = {
        let t = TestDir::new();
        t.write("f", bytes);
        t.cmd("llm-read").args(["f", "--limit", "1"]).json(0)
    };
    v["files"][0]["checksum"].as_str().unwrap().to_string()
}

/// Runs a request; `flags` (`--dry-run`…) become request fields, since a
/// request cannot be mixed with request flags.
pub(crate) fn transform(t: &TestDir, request: Value, flags: &[&str], code: i32) -> Value {
    let mut request = request;
    for f in flags {
        request[f.trim_start_matches("--").replace('-', "_")] = json!(true);
    }
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

pub(crate) fn read(t: &TestDir, rel: &str) -> Vec<u8> {
    std::fs::read(t.root().join(rel)).unwrap()
}

pub(crate) fn read_text(t: &TestDir, rel: &str) -> String {
    String::from_utf8(read(t, rel)).unwrap()
}

#[test]
fn seed_cli_applies_span_edits_in_reverse_order_without_drift() {
    let t = TestDir::new();
    let body = "fn foo() {}\nfn main() { foo(); foo(); }\n";
    t.write("src/main.rs", body);
    let sum = sha(body.as_bytes());
    let edits = json!({ "edits": [
        { "byte_start": 3, "byte_end": 6, "replacement": "bar", "checksum_before": sum },
        { "byte_start": 24, "byte_end": 27, "replacement": "bar", "checksum_before": sum },
        { "byte_start": 31, "byte_end": 34, "replacement": "bar", "checksum_before": sum },
    ]});
    t.write("edits.json", edits.to_string());
    let v: Value = t.cmd("llm-transform").args(["--file", "src/main.rs", "--edits", "edits.json"]).json(0);
    let expected = "fn bar() {}\nfn main() { bar(); bar(); }\n";
    assert_eq!(read(&t, "src/main.rs"), expected.as_bytes());
    assert_eq!((v["applied"].as_u64(), v["skipped"].as_u64()), (Some(3), Some(0)));
    assert_eq!(v["errors"], json!([]));
    assert_eq!(v["checksum_after"], sha(expected.as_bytes()).as_str());
    assert!(v["execution_id"].as_str().is_some());
}

#[test]
fn every_span_error_rejects_the_whole_batch_and_writes_nothing() {
    let t = TestDir::new();
    let body = "héllo wörld\n";
    t.write("a.txt", body);
    let sum = sha(body.as_bytes());
    let cases = [
        (
            json!([{ "byte_start": 0, "byte_end": 1, "replacement": "H", "checksum_before": "0".repeat(64) }]),
            "checksum_mismatch",
        ),
        (json!([{ "byte_start": 0, "byte_end": 99, "replacement": "", "checksum_before": sum }]), "invalid_span"),
        (json!([{ "byte_start": 2, "byte_end": 3, "replacement": "e", "checksum_before": sum }]), "invalid_span"),
        (
            json!([{ "byte_start": 0, "byte_end": 4, "replacement": "", "checksum_before": sum },
                   { "byte_start": 3, "byte_end": 5, "replacement": "", "checksum_before": sum }]),
            "invalid_span",
        ),
    ];
    for (edits, code) in cases {
        let mut edits = edits;
        // A valid edit first: it must not be applied either.
        edits
            .as_array_mut()
            .unwrap()
            .insert(0, json!({ "byte_start": 13, "byte_end": 13, "replacement": "!", "checksum_before": sum }));
        let v = transform(&t, json!({ "file": "a.txt", "edits": edits }), &[], 3);
        assert_eq!(v["error"]["code"], code, "{v}");
        assert_eq!(read(&t, "a.txt"), body.as_bytes());
    }
    let v = transform(
        &t,
        json!({ "file": "a.txt", "edits": [{ "byte_start": 0, "byte_end": 1, "replacement": "H", "checksum_before": "0".repeat(64) }] }),
        &[],
        3,
    );
    assert_eq!(v["error"]["details"]["current"], sum.as_str());
    let v = transform(
        &t,
        json!({ "file": "a.txt", "edits": [{ "byte_start": 0, "byte_end": 1, "replacement": "H" }] }),
        &[],
        2,
    );
    assert!(v["error"]["message"].as_str().unwrap().contains("checksum_before"));
}

#[test]
fn crlf_bom_tabs_multibyte_and_missing_final_newline_survive() {
    let t = TestDir::new();
    let body = "\u{feff}fn main() {\r\n\tlet s = \"é\";\r\n\tprintln!(\"{s}\");\r\n}";
    t.write("a.rs", body);
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "old_text": "\tprintln!(\"{s}\");\n", "new_text": "\tprintln!(\"{s}\");\n\tprintln!(\"ü\");\n" }] }),
        &[],
        0,
    );
    assert_eq!(v["applied"], 1);
    let expected = "\u{feff}fn main() {\r\n\tlet s = \"é\";\r\n\tprintln!(\"{s}\");\r\n\tprintln!(\"ü\");\r\n}";
    assert_eq!(String::from_utf8(read(&t, "a.rs")).unwrap(), expected);
}

#[test]
fn patch_refuses_zero_or_several_matches_with_lines_and_near_misses() {
    let t = TestDir::new();
    t.write("a.py", "def f():\n\treturn 1\n\ndef g():\n    return 1\n");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "return 1", "new_text": "return 2" }] }),
        &[],
        3,
    );
    assert_eq!(v["error"]["code"], "ambiguous");
    assert_eq!(v["error"]["details"]["lines"], json!([2, 5]));
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "def f():\n    return 1\n", "new_text": "x" }] }),
        &[],
        3,
    );
    assert_eq!(v["error"]["code"], "no_match");
    let miss = &v["error"]["details"]["near_miss"];
    assert_eq!((miss["line"].as_u64(), miss["whitespace_only"].as_bool()), (Some(1), Some(true)));
    assert!(miss["diff"].as_str().unwrap().contains("-    return 1"));
    assert!(v["error"]["hint"].as_str().unwrap().contains("whitespace"));
    // Asked for, fuzzy matching is used and reported.
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "def f():\n    return 1\n", "new_text": "def f():\n\treturn 3\n", "fuzzy": true }] }),
        &[],
        0,
    );
    assert!(v["operations"][0]["note"].as_str().unwrap().contains("fuzzy"));
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "return", "new_text": "yield", "replace_all": true }] }),
        &[],
        0,
    );
    assert!(v["operations"][0]["note"].as_str().unwrap().contains("2 matches"));
    assert_eq!(read(&t, "a.py"), b"def f():\n\tyield 3\n\ndef g():\n    yield 1\n");
}

const AGENT: &str = "pub struct Agent;\n\nimpl Agent {\n    pub fn new() -> Self {\n        Agent\n    }\n\n    pub async fn run(self) -> u32 {\n        1\n    }\n}\n\nimpl Other {\n    fn run(&self) {}\n}\n";

#[test]
fn seed_rust_replace_block_and_insert_after_block_work_as_written() {
    let t = TestDir::new();
    t.write("src/agent/mod.rs", AGENT);
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "rust_replace_block", "path": "src/agent/mod.rs", "kind": "function", "name": "run",
            "new_block": "pub async fn run(mut self) -> u32 {\n        2\n    }\n", "module_path": "impl Agent", "line_hint": 8,
            "run_rustfmt": false, "run_cargo_check": false }] }),
        &[],
        0,
    );
    assert_eq!(v["operations"][0]["line"], 8);
    let now = String::from_utf8(read(&t, "src/agent/mod.rs")).unwrap();
    assert!(now.contains("    pub async fn run(mut self) -> u32 {\n        2\n    }\n}\n\nimpl Other"), "{now}");
    assert!(now.contains("fn run(&self) {}"));

    transform(
        &t,
        json!({ "operations": [{ "op": "rust_insert_after_block", "path": "src/agent/mod.rs", "kind": "function", "name": "new",
            "snippet": "\n    fn helper() -> bool {\n        true\n    }\n", "module_path": "impl Agent" }] }),
        &[],
        0,
    );
    let now = String::from_utf8(read(&t, "src/agent/mod.rs")).unwrap();
    assert!(
        now.contains("        Agent\n    }\n\n    fn helper() -> bool {\n        true\n    }\n\n    pub async fn run"),
        "{now}"
    );
}

#[test]
fn block_targets_are_disambiguated_or_refused_with_candidates() {
    let t = TestDir::new();
    t.write("a.rs", AGENT);
    let op = |extra: Value| {
        let mut o = json!({ "op": "replace_block", "path": "a.rs", "kind": "function", "name": "run", "new_block": "fn run() {}" });
        o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({ "operations": [o] })
    };
    let v = transform(&t, op(json!({})), &[], 3);
    assert_eq!(v["error"]["code"], "ambiguous");
    let candidates = v["error"]["details"]["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2);
    assert_eq!((candidates[0]["line"].as_u64(), candidates[1]["line"].as_u64()), (Some(8), Some(14)));
    let hash = candidates[1]["hash"].as_str().unwrap().to_string();
    let v = transform(&t, op(json!({ "module_path": "impl Nothing" })), &[], 3);
    assert_eq!(v["error"]["code"], "no_match");
    let v = transform(&t, op(json!({ "line_hint": 14, "expected_old_hash": "0".repeat(64) })), &[], 3);
    assert_eq!(v["error"]["code"], "checksum_mismatch");
    assert_eq!(v["error"]["details"]["current"], hash.as_str());
    transform(&t, op(json!({ "line_hint": 14, "expected_old_hash": hash })), &[], 0);
    assert!(String::from_utf8(read(&t, "a.rs")).unwrap().contains("impl Other {\n    fn run() {}\n}"));
}

#[test]
fn insert_before_block_goes_above_attributes_decorators_and_exports() {
    let t = TestDir::new();
    t.write("a.rs", "/// Doc.\n#[derive(Debug)]\nstruct A;\n");
    t.write("b.py", "import x\n\n@decorator\ndef f():\n    pass\n");
    t.write("c.ts", "export function f(): number { return 1; }\n");
    let ops = json!({ "operations": [
        { "op": "insert_before_block", "path": "a.rs", "kind": "struct", "name": "A", "snippet": "struct B;\n" },
        { "op": "insert_before_block", "path": "b.py", "kind": "function", "name": "f", "snippet": "def g():\n    pass\n\n" },
        { "op": "insert_after_block", "path": "c.ts", "kind": "function", "name": "f", "snippet": "export const g = 2;" },
    ]});
    let v = transform(&t, ops, &[], 0);
    assert_eq!(v["files"].as_array().unwrap().len(), 3);
    assert_eq!(read(&t, "a.rs"), b"struct B;\n/// Doc.\n#[derive(Debug)]\nstruct A;\n");
    // PEP 8: two blank lines around a top-level definition.
    assert_eq!(read(&t, "b.py"), b"import x\n\n\ndef g():\n    pass\n\n\n@decorator\ndef f():\n    pass\n");
    assert_eq!(read(&t, "c.ts"), b"export function f(): number { return 1; }\nexport const g = 2;");
}

#[test]
fn new_syntax_errors_are_refused_unless_allowed() {
    let t = TestDir::new();
    t.write("a.rs", "fn main() {\n    let x = 1;\n}\n");
    let request =
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "old_text": "let x = 1;", "new_text": "let x = 1" }] });
    let v = transform(&t, request.clone(), &[], 3);
    assert_eq!(v["error"]["code"], "new_syntax_errors");
    assert_eq!(v["error"]["details"]["errors"][0]["line"], 2);
    assert_eq!(read(&t, "a.rs"), b"fn main() {\n    let x = 1;\n}\n");
    transform(&t, request, &["--allow-syntax-errors"], 0);
    assert_eq!(read(&t, "a.rs"), b"fn main() {\n    let x = 1\n}\n");
    // An edit elsewhere in a file that was already broken is not blamed for the old error.
    transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.rs", "old_text": "main", "new_text": "start" }] }),
        &[],
        0,
    );
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing_and_no_ops_succeed() {
    let t = TestDir::new();
    t.write("a.txt", "one\ntwo\n");
    let request = json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "two", "new_text": "TWO" }] });
    let v = transform(&t, request.clone(), &["--dry-run"], 0);
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["files"][0]["diff"], "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n");
    assert_eq!(v["checksum_after"], sha(b"one\nTWO\n").as_str());
    assert_eq!(v["undo"], Value::Null);
    assert_eq!(read(&t, "a.txt"), b"one\ntwo\n");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "two", "new_text": "two" }] }),
        &[],
        0,
    );
    assert_eq!((v["no_op"].as_bool(), v["skipped"].as_u64(), v["applied"].as_u64()), (Some(true), Some(1), Some(0)));
}

#[test]
fn write_delete_and_rename_are_guarded_and_all_or_nothing() {
    let t = TestDir::new();
    t.write("keep.txt", "keep\n").write("old.txt", "old\n");
    let v = transform(&t, json!({ "operations": [{ "op": "write", "path": "keep.txt", "content": "x" }] }), &[], 3);
    assert_eq!(v["error"]["code"], "conflict");
    let v =
        transform(&t, json!({ "operations": [{ "op": "write", "path": "new/dir/a.txt", "content": "a" }] }), &[], 2);
    assert!(v["error"]["hint"].as_str().unwrap().contains("create_dirs"));
    let v = transform(
        &t,
        json!({ "operations": [
            { "op": "write", "path": "new/dir/a.txt", "content": "a\n", "create_dirs": true },
            { "op": "rename", "path": "old.txt", "to": "moved.txt" },
            { "op": "delete", "path": "keep.txt", "checksum_before": sha(b"keep\n") },
        ]}),
        &[],
        0,
    );
    let actions: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [("keep.txt", "deleted"), ("moved.txt", "created"), ("new/dir/a.txt", "created"), ("old.txt", "deleted")]
    );
    assert_eq!(read(&t, "moved.txt"), b"old\n");
    assert!(!t.root().join("old.txt").exists() && !t.root().join("keep.txt").exists());
    let v =
        transform(&t, json!({ "operations": [{ "op": "write", "path": "../escape.txt", "content": "x" }] }), &[], 2);
    assert_eq!(v["error"]["code"], "path_outside_root");
}

#[test]
fn a_failed_write_midway_restores_the_files_already_written() {
    let t = TestDir::new();
    for i in 0..4 {
        t.write(&format!("f{i}.txt"), format!("old {i}\n"));
    }
    let ops: Vec<Value> = (0..4)
        .map(|i| json!({ "op": "patch", "path": format!("f{i}.txt"), "old_text": "old", "new_text": "new" }))
        .collect();
    let v: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .env("AIDE_TEST_FAIL_AFTER_WRITES", "2")
        .stdin(json!({ "operations": ops }).to_string())
        .json(4);
    assert_eq!(v["error"]["code"], "io_error");
    for i in 0..4 {
        assert_eq!(read(&t, &format!("f{i}.txt")), format!("old {i}\n").as_bytes(), "f{i}");
    }
}

#[test]
fn undo_restores_several_steps_and_refuses_files_changed_since() {
    let t = TestDir::new();
    t.write("a.txt", "v1\n");
    let patch = |from: &str, to: &str| json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": from, "new_text": to }] });
    let first = transform(&t, patch("v1", "v2"), &[], 0);
    let second = transform(&t, patch("v2", "v3"), &[], 0);
    let (id1, id2) = (first["execution_id"].as_str().unwrap(), second["execution_id"].as_str().unwrap());
    assert_eq!(first["undo"], format!("llm-transform undo {id1}").as_str());
    let v: Value = t.cmd("llm-transform").args(["undo", id1]).json(3);
    assert_eq!(v["error"]["code"], "conflict");
    assert!(v["error"]["message"].as_str().unwrap().contains("a.txt"));
    let v: Value = t.cmd("llm-transform").args(["undo", id2, id1]).json(0);
    assert_eq!(v["undone"], json!([id2, id1]));
    assert_eq!(read(&t, "a.txt"), b"v1\n");
    let v: Value = t.cmd("llm-transform").args(["undo", id1]).json(3);
    assert!(v["error"]["message"].as_str().unwrap().contains("already undone"));
    // undo --last undoes the newest not yet undone; a created file is removed.
    transform(&t, json!({ "operations": [{ "op": "write", "path": "b.txt", "content": "b" }] }), &[], 0);
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert!(!t.root().join("b.txt").exists());
}

/// `undo --last 1` again steps further back: an undo is a transform of its
/// own (undoable by its id), but not one `--last` counts, or the second
/// `--last 1` redid the first.
#[test]
fn undo_last_again_steps_further_back() {
    let t = TestDir::new();
    t.write("a.txt", "a\n");
    let patch = |from: &str, to: &str| json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": from, "new_text": to }] });
    let first = transform(&t, patch("a", "b"), &[], 0);
    let second = transform(&t, patch("b", "c"), &[], 0);
    let v: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(v["undone"], json!([second["execution_id"]]));
    assert_eq!(read(&t, "a.txt"), b"b\n");
    let v: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(v["undone"], json!([first["execution_id"]]));
    assert_eq!(read(&t, "a.txt"), b"a\n");
    let v: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "nothing left to undo: {v}");
    assert_eq!(read(&t, "a.txt"), b"a\n");
    // Three steps at once, from the top.
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "d")] {
        transform(&t, patch(from, to), &[], 0);
    }
    let v: Value = t.cmd("llm-transform").args(["undo", "--last", "3"]).json(0);
    assert_eq!(v["undone"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(read(&t, "a.txt"), b"a\n");
}

#[test]
fn rustfmt_formats_on_request() {
    if !aide_tests::oracle("rustfmt", "llm-transform formats with rustfmt on request") {
        return;
    }
    let t = TestDir::new();
    t.write("a.rs", "fn main() {}\n");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "rust_replace_block", "path": "a.rs", "kind": "function", "name": "main",
            "new_block": "fn main(){let x=1;println!(\"{x}\");}", "run_rustfmt": true }] }),
        &[],
        0,
    );
    assert_eq!(v["files"][0]["formatted"], true);
    assert_eq!(read(&t, "a.rs"), b"fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n");
}

#[test]
fn concurrent_transforms_of_one_file_apply_exactly_once() {
    let t = TestDir::new();
    t.write("a.txt", "counter 0\n");
    let sum = sha(b"counter 0\n");
    let children: Vec<_> = (0..12)
        .map(|i| {
            let request = json!({ "edits": [{ "path": "a.txt", "byte_start": 8, "byte_end": 9, "replacement": format!("{}", i + 1), "checksum_before": sum }] });
            let mut c = t.cmd("llm-transform").args(["--json", "--request", "-"]).cmd;
            c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).unwrap();
            child
        })
        .collect();
    let codes: Vec<i32> = children.into_iter().map(|c| c.wait_with_output().unwrap().status.code().unwrap()).collect();
    assert_eq!(codes.iter().filter(|&&c| c == 0).count(), 1, "{codes:?}");
    assert!(codes.iter().all(|&c| c == 0 || c == 3), "{codes:?}");
    let now = String::from_utf8(read(&t, "a.txt")).unwrap();
    assert!(now.starts_with("counter ") && now.len() >= 10 && now != "counter 0\n", "{now}");
}

#[test]
fn sigkill_at_any_moment_leaves_every_file_old_or_new() {
    let t = TestDir::new();
    let n = 40;
    let old: Vec<String> = (0..n).map(|i| format!("{i}\n").repeat(20_000)).collect();
    let new: Vec<String> = old.iter().map(|o| o.replace('\n', "\r\n")).collect();
    let ops: Vec<Value> = (0..n)
        .map(|i| json!({ "op": "write", "path": format!("f{i}.txt"), "content": new[i], "checksum_before": sha(old[i].as_bytes()) }))
        .collect();
    let request = json!({ "operations": ops }).to_string();
    let mut random = aide_tests::Xorshift(0x2545_F491_4F6C_DD1D);
    for round in 0..15 {
        for (i, o) in old.iter().enumerate() {
            t.write(&format!("f{i}.txt"), o);
        }
        let mut child = t.cmd("llm-transform").args(["--json", "--request", "-"]).spawn_with_input(request.as_bytes());
        std::thread::sleep(std::time::Duration::from_micros(random.below(150_000)));
        let _ = child.kill();
        let _ = child.wait();
        for i in 0..n {
            let now = read(&t, &format!("f{i}.txt"));
            assert!(
                now == old[i].as_bytes() || now == new[i].as_bytes(),
                "round {round}: f{i}.txt is neither old nor new"
            );
        }
    }
}

#[test]
fn an_edit_that_breaks_the_build_is_undone_and_one_that_does_not_stands() {
    let t = TestDir::new();
    t.write("Cargo.toml", "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    // An error the tree already has stays out of the verdict.
    let old = "pub fn f() -> u32 {\n    1\n}\n\npub fn g() -> u8 {\n    \"old\"\n}\n";
    t.write("src/lib.rs", old);
    let bad = json!({ "operations": [{ "op": "rust_replace_block", "path": "src/lib.rs", "kind": "function", "name": "f",
        "new_block": "pub fn f() -> u32 {\n    \"one\"\n}", "run_cargo_check": true }] });
    let v = transform(&t, bad, &[], 3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    let fresh = v["error"]["details"]["new_findings"].as_array().unwrap();
    assert_eq!(fresh.len(), 1, "only the new error: {v}");
    assert_eq!(
        (&fresh[0]["code"], &fresh[0]["line"], &fresh[0]["checker"]),
        (&json!("E0308"), &json!(2), &json!("cargo"))
    );
    assert_eq!(read(&t, "src/lib.rs"), old.as_bytes(), "nothing remains changed");
    // The log keeps the attempt and its rollback.
    let (log, _) = t.cmd("aide").args(["log", "list", "--json", "--limit", "1"]).expect_exit(0);
    let log: Value = serde_json::from_str(&log).unwrap();
    assert_eq!(log["runs"][0]["exit_code"], 3, "{log}");
    // The rollback is not undone by the next undo (which would put the failed edit back).
    let (_, stderr) = t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(2);
    assert!(stderr.contains("nothing to undo") || stderr.contains("no transform"), "{stderr}");
    assert_eq!(read(&t, "src/lib.rs"), old.as_bytes());

    // The same through --verify-command: the project's tests must pass.
    let good = json!({ "operations": [{ "op": "patch", "path": "src/lib.rs", "old_text": "    1\n", "new_text": "    2\n" }],
        "verify": "cargo", "verify_command": "grep -q 'u32' src/lib.rs" });
    let v = transform(&t, good, &[], 0);
    assert_eq!(v["verified"]["checkers"], json!(["cargo"]), "{v}");
    assert_eq!(v["verified"]["errors_before"], 1);
    assert_eq!(v["verified"]["command"], "grep -q 'u32' src/lib.rs");
    let failing = json!({ "operations": [{ "op": "patch", "path": "src/lib.rs", "old_text": "    2\n", "new_text": "    3\n" }],
        "verify_command": "echo checking; grep -q 'not there' src/lib.rs" });
    let v = transform(&t, failing, &[], 3);
    assert_eq!(v["error"]["code"], "verification_failed");
    assert_eq!(v["error"]["details"]["exit_code"], 1);
    assert_eq!(v["error"]["details"]["stdout_tail"], "checking");
    assert!(String::from_utf8(read(&t, "src/lib.rs")).unwrap().contains("    2\n"), "undone");
    // --cargo-check is the old name of --verify cargo.
    let (_, stderr) = t
        .cmd("llm-transform")
        .args(["--path", "src/lib.rs", "--edits", "-", "--cargo-check"])
        .stdin(json!({ "operations": [{ "op": "patch", "path": "src/lib.rs", "old_text": "    2\n", "new_text": "    \"two\"\n" }] }).to_string())
        .expect_exit(3);
    assert!(stderr.contains("verification_failed"), "{stderr}");
    // A checker asked for by name that is not there: a clear error, nothing written.
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "src/lib.rs", "old_text": "    2\n", "new_text": "    4\n" }], "verify": "no-such-checker" }),
        &[],
        2,
    );
    assert_eq!(v["error"]["details"]["field"], "checker", "{v}");
    assert!(String::from_utf8(read(&t, "src/lib.rs")).unwrap().contains("    2\n"));
}

#[test]
fn unknown_fields_in_operations_are_refused() {
    let t = TestDir::new();
    t.write("a.txt", "x\n");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "x", "new_text": "y", "replace_al": true }] }),
        &[],
        2,
    );
    assert_eq!(v["error"]["code"], "invalid_request");
    assert!(v["error"]["message"].as_str().unwrap().contains("replace_al"), "{v}");
    let v = transform(&t, json!({ "operations": [{ "op": "pacth", "path": "a.txt" }] }), &[], 2);
    assert_eq!(v["error"]["code"], "invalid_request");
    assert_eq!(read(&t, "a.txt"), b"x\n");
}

#[test]
fn block_operations_work_in_every_language_in_one_request() {
    let t = TestDir::new();
    t.write("a.go", "package p\n\nfunc (c *Client) Close() error {\n\treturn nil\n}\n");
    t.write("A.java", "class A {\n    void run() {}\n    void stop() {}\n}\n");
    t.write("k.cpp", "namespace n {\nclass K { void m(); };\n}\nvoid n::K::m() {}\n");
    t.write("m.py", "class M:\n    def f(self):\n        return 1\n");
    t.write("v.tsx", "export function View() {\n  return <div/>;\n}\n");
    t.write("l.c", "int add(int a, int b) { return a + b; }\n");
    let v = transform(
        &t,
        json!({ "operations": [
            { "op": "replace_block", "path": "a.go", "kind": "method", "name": "Close", "module_path": "Client",
              "new_block": "func (c *Client) Close() error {\n\treturn c.conn.Close()\n}" },
            { "op": "replace_block", "path": "A.java", "kind": "method", "name": "stop", "new_block": "void stop() { run(); }" },
            { "op": "replace_block", "path": "k.cpp", "kind": "method", "name": "m", "module_path": "n::K", "new_block": "void n::K::m() { return; }" },
            { "op": "insert_after_block", "path": "m.py", "kind": "method", "name": "f", "module_path": "M",
              "snippet": "\n    def g(self):\n        return 2\n" },
            { "op": "replace_block", "path": "v.tsx", "kind": "function", "name": "View",
              "new_block": "function View() {\n  return <span/>;\n}" },
            { "op": "insert_before_block", "path": "l.c", "kind": "function", "name": "add", "snippet": "static int twice(int a) { return 2 * a; }" },
        ]}),
        &[],
        0,
    );
    assert_eq!(v["applied"], 6, "{v}");
    assert_eq!(read(&t, "a.go"), b"package p\n\nfunc (c *Client) Close() error {\n\treturn c.conn.Close()\n}\n");
    assert_eq!(read(&t, "A.java"), b"class A {\n    void run() {}\n    void stop() { run(); }\n}\n");
    assert_eq!(read(&t, "k.cpp"), b"namespace n {\nclass K { void m(); };\n}\nvoid n::K::m() { return; }\n");
    assert_eq!(
        read(&t, "m.py"),
        b"class M:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    );
    assert_eq!(read(&t, "v.tsx"), b"export function View() {\n  return <span/>;\n}\n");
    assert_eq!(
        read(&t, "l.c"),
        b"static int twice(int a) { return 2 * a; }\nint add(int a, int b) { return a + b; }\n"
    );
}

#[test]
fn undo_data_older_than_thirty_days_is_forgotten() {
    let t = TestDir::new();
    t.write("a.txt", "a\n");
    let old = t.home().join("transform/undo/00000000-0001-7000-8000-000000000000");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("manifest.json"), "{}").unwrap();
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "a", "new_text": "b" }] }),
        &[],
        0,
    );
    assert!(!old.exists(), "a 1970 transform's undo data survived");
    assert!(t.home().join("transform/undo").join(v["execution_id"].as_str().unwrap()).exists());
}

pub(crate) const SESSIONS_PY: &str = "class SessionInterface:\n    \"\"\"Base.\"\"\"\n\n    def open_session(self, app, request):\n        raise NotImplementedError()\n\n    def save_session(self, app, session, response):\n        raise NotImplementedError()\n";
