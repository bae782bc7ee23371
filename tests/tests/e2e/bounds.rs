//! llm-transform within bounds (issue 48, item 5): a request whose edits
//! would grow the files past the growth bound is refused before the bytes
//! are made, and a tree of more files than may be open at once is copied,
//! edited and undone all the same.

use std::process::{Command, Output, Stdio};

use aide_tests::{TestDir, bin_dir};
use serde_json::{Value, json};

/// Runs llm-transform on the request `request` under the shell limits
/// `limits` (`ulimit` arguments, e.g. `-n 256`), with `env`.
fn limited(t: &TestDir, limits: &str, request: &Value, env: &[(&str, &str)]) -> Output {
    let file = t.home().join(format!("request-{}.json", aide_core::ids::new_execution_id()));
    std::fs::create_dir_all(t.home()).unwrap();
    std::fs::write(&file, request.to_string()).unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["-c", &format!("ulimit {limits} || exit 99; exec \"$@\""), "bash"])
        .arg(bin_dir().join("llm-transform"))
        .arg("--request")
        .arg(&file)
        .arg("--json")
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env("XDG_CONFIG_HOME", t.home().join("config"))
        .env_remove("AIDE_LOG")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The JSON of a run that exited `code`.
fn answer(out: &Output, code: i32) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(code), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn doubling_replacements_are_refused_before_they_pass_the_growth_bound() {
    let t = TestDir::new();
    let line = format!("{}\n", "x".repeat(2048));
    t.write("a.txt", &line);
    // 26 doublings of a 2 KiB line would make 128 GiB; the run may take 2 GB of address space.
    let doubling = json!({ "op": "replace_regex", "pattern": "(.*)", "replacement": "$1$1", "glob": "a.txt" });
    let request = |dry_run: bool| json!({ "operations": vec![doubling.clone(); 26], "dry_run": dry_run });
    for dry_run in [true, false] {
        let v = answer(&limited(&t, "-v 2000000", &request(dry_run), &[]), 2);
        assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
        let details = &v["error"]["details"];
        // 64 MiB at least: 15 doublings of the 2,048 x's add 67,106,816 bytes, the 16th 67,108,864 more.
        assert_eq!(
            (&details["index"], &details["op"], &details["path"], &details["bound"], &details["would_add"]),
            (&json!(15), &json!("replace_regex"), &json!("a.txt"), &json!(64 << 20), &json!(2048 * 65535)),
            "{v}"
        );
        let hint = v["error"]["hint"].as_str().unwrap();
        assert!(hint.contains("67108864") && hint.contains("operation 15"), "{hint}");
        assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), line, "nothing written");
    }
    // AIDE_TRANSFORM_MAX_GROWTH lowers the cap: 1 MiB is passed at operation 9.
    let v = answer(&limited(&t, "-v 2000000", &request(false), &[("AIDE_TRANSFORM_MAX_GROWTH", "1048576")]), 2);
    assert_eq!((&v["error"]["details"]["index"], &v["error"]["details"]["bound"]), (&json!(9), &json!(1 << 20)), "{v}");
    // Within the bound the same operations apply: 10 doublings.
    let ten = json!({ "operations": vec![doubling.clone(); 10] });
    let v = answer(&limited(&t, "-v 2000000", &ten, &[]), 0);
    assert_eq!(v["files"][0]["action"], "modified", "{v}");
    assert_eq!(std::fs::metadata(t.root().join("a.txt")).unwrap().len(), 2048 * 1024 + 1);
}

#[test]
fn every_way_of_growing_a_file_counts_against_the_bound() {
    let t = TestDir::new();
    t.write("a.txt", "ab\n");
    t.write("src/f.txt", "0123456789".repeat(2000));
    let cap = [("AIDE_TRANSFORM_MAX_GROWTH", "100000")];
    let refused = |request: Value, index: usize, what: &str| {
        let v = answer(&limited(&t, "-v 2000000", &request, &cap), 2);
        assert_eq!(v["error"]["code"], "invalid_arguments", "{what}: {v}");
        assert_eq!(v["error"]["details"]["index"], index, "{what}: {v}");
        assert_eq!(v["error"]["details"]["bound"], 100_000, "{what}: {v}");
    };
    // A patch of every occurrence, doubling each time.
    let patch = json!({ "op": "patch", "path": "a.txt", "old_text": "a", "new_text": "aa", "replace_all": true });
    let mut ops = vec![
        json!({ "op": "write", "path": "a.txt", "content": "a".repeat(1000), "checksum_before": aide_core::checksum::sha256_hex(b"ab\n") }),
    ];
    ops.extend(std::iter::repeat_n(patch, 10));
    // 1,000 bytes doubled 7 times adds 127,000.
    refused(json!({ "operations": ops }), 7, "patch replace_all");
    // A rewrite whose template doubles what it matches.
    t.write("m.py", "x = 1\n".repeat(500));
    let rewrite = json!({ "op": "rewrite", "language": "python", "query": "(expression_statement) @s",
        "template": "${s}; ${s}", "glob": "m.py" });
    refused(json!({ "operations": vec![rewrite; 12] }), 4, "rewrite");
    // Copies of a 20,000-byte tree: the sixth passes 100,000.
    let copies: Vec<Value> = (0..10).map(|i| json!({ "op": "copy", "path": "src", "to": format!("c{i}") })).collect();
    refused(json!({ "operations": copies }), 5, "copy");
    let copies: Vec<Value> =
        (0..10).map(|i| json!({ "op": "copy", "path": "src/f.txt", "to": format!("f{i}.txt") })).collect();
    refused(json!({ "operations": copies }), 5, "copy of a file");
    // replace_matches with a template repeating the match.
    let records = json!([{ "path": "a.txt", "byte_start": 0, "byte_end": 2,
        "checksum": aide_core::checksum::sha256_hex(b"ab\n") }]);
    let huge = "$0".repeat(60_000);
    refused(
        json!({ "operations": [{ "op": "replace_matches", "matches": records, "replacement": huge }] }),
        0,
        "replace_matches",
    );
}

#[test]
fn a_tree_of_more_files_than_may_be_open_at_once_is_copied_edited_and_undone() {
    const FILES: usize = 600;
    let t = TestDir::new();
    for i in 0..FILES {
        t.write(&format!("src/d{}/f{i:03}.txt", i % 4), format!("file {i} OLD\n"));
    }
    let read_tree = |dir: &str| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for i in 0..FILES {
            let rel = format!("{dir}/d{}/f{i:03}.txt", i % 4);
            out.push((rel.clone(), std::fs::read_to_string(t.root().join(&rel)).unwrap_or_default()));
        }
        out
    };
    let source = read_tree("src");
    // At most 256 descriptors open at once (soft and hard limit): the tool cannot raise it.
    let copy = json!({ "operations": [{ "op": "copy", "path": "src", "to": "dst" }] });
    let v = answer(&limited(&t, "-n 256", &copy, &[]), 0);
    assert_eq!(v["files"].as_array().unwrap().len(), FILES, "{}", v["error"]);
    let copied: Vec<String> = read_tree("dst").into_iter().map(|(_, text)| text).collect();
    assert_eq!(copied, source.iter().map(|(_, text)| text.clone()).collect::<Vec<_>>());
    // An edit of every file of both trees at once: 1,200 files.
    let edit = json!({ "operations": [{ "op": "replace_regex", "pattern": "OLD", "replacement": "NEW" }] });
    let v = answer(&limited(&t, "-n 256", &edit, &[]), 0);
    assert_eq!(v["files"].as_array().unwrap().len(), 2 * FILES);
    assert!(read_tree("dst").iter().all(|(_, text)| text.ends_with("NEW\n")));
    // Both undone, newest first.
    let undo = json!({ "command": { "undo": { "last": 2 } } });
    answer(&limited(&t, "-n 256", &undo, &[]), 0);
    assert_eq!(read_tree("src"), source);
    assert!(!t.root().join("dst").exists(), "the copy is undone, its folders removed");
}

#[test]
fn a_tree_of_more_folders_than_the_soft_open_file_limit_is_copied() {
    let t = TestDir::new();
    for i in 0..600 {
        t.write(&format!("src/d{}/f{i}.txt", i % 300), format!("file {i}\n"));
    }
    // The commit holds a descriptor for each of the 301 folders it writes
    // in: the soft limit (256 here) is raised to the hard one meanwhile.
    let copy = json!({ "operations": [{ "op": "copy", "path": "src", "to": "dst" }] });
    let v = answer(&limited(&t, "-S -n 256", &copy, &[]), 0);
    assert_eq!(v["files"].as_array().unwrap().len(), 600);
    assert_eq!(std::fs::read_to_string(t.root().join("dst/d299/f599.txt")).unwrap(), "file 599\n");
}

#[test]
fn a_model_asking_for_doublings_over_mcp_is_refused_before_they_pass_the_bound() {
    let t = TestDir::new();
    t.write("a.txt", format!("{}\n", "x".repeat(2048)));
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let doubling = json!({ "op": "replace_regex", "pattern": "(.*)", "replacement": "$1$1", "glob": "a.txt" });
    for dry_run in [true, false] {
        let result = client.call("transform", json!({ "operations": vec![doubling.clone(); 26], "dry_run": dry_run }));
        assert_eq!(result["isError"], true, "{result}");
        let error = &result["structuredContent"]["error"];
        assert_eq!((&error["code"], &error["details"]["index"]), (&json!("invalid_arguments"), &json!(15)), "{result}");
    }
    assert_eq!(std::fs::metadata(t.root().join("a.txt")).unwrap().len(), 2049, "nothing written");
    // The server goes on, its memory its own.
    let result = client.call("read", json!({ "paths": ["a.txt"] }));
    assert_eq!(result["isError"], false, "{result}");
}
