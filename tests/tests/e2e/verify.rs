//! llm-transform `--verify`: an edit after which a checker fails that did
//! not — by its exit status, or by failing to run — or says anything new
//! (of any severity) is undone, every file byte for byte as it was; an edit
//! that leaves the checkers as they were stands. The real checkers
//! (pyflakes, go vet) and stand-ins on PATH for what a real one would
//! rarely show (an exit status alone, a crash, a write).

use std::path::Path;

use aide_tests::TestDir;
use serde_json::{Value, json};

/// A patch of `path` with `--verify VERIFY`, expecting exit `code`.
fn patched(t: &TestDir, path: &str, old: &str, new: &str, verify: &str, code: i32) -> Value {
    let request =
        json!({ "operations": [{ "op": "patch", "path": path, "old_text": old, "new_text": new }], "verify": verify });
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

/// Every file under the root (the tool's own folders aside), with its bytes.
fn tree(t: &TestDir) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.push((p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(t.root(), t.root(), &mut out);
    out
}

fn pyflakes() -> Option<&'static str> {
    let name = if aide_tests::have("pyflakes") { "pyflakes" } else { "pyflakes3" };
    aide_tests::oracle(name, "llm-transform --verify pyflakes").then_some(name)
}

#[test]
fn verify_pyflakes_refuses_an_edit_that_adds_an_unused_import_and_passes_one_that_adds_nothing() {
    if pyflakes().is_none() {
        return;
    }
    let t = TestDir::new();
    t.write("pkg/a.py", "def f():\n    return 1\n");
    // A warning the tree already has (pyflakes already exits 1) is no verdict on the edit.
    t.write("pkg/old.py", "import sys\n");
    let before = tree(&t);

    // An unused import is a warning, and pyflakes says it: the edit is undone.
    let v = patched(&t, "pkg/a.py", "def f():", "import os\n\n\ndef f():", "pyflakes", 3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    let fresh = v["error"]["details"]["new_findings"].as_array().unwrap();
    let said: Vec<(&str, &str, &str)> = fresh
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["severity"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(said, [("pkg/a.py", "warning", "'os' imported but unused")], "{v}");
    assert_eq!(v["error"]["details"]["undone"], true);
    assert_eq!(tree(&t), before, "every file byte for byte as it was");

    // An edit that adds nothing stands, though pyflakes exits 1 both times.
    let v = patched(&t, "pkg/a.py", "return 1", "return 2", "pyflakes", 0);
    assert_eq!(v["verified"]["checkers"], json!(["pyflakes"]), "{v}");
    assert_eq!((&v["verified"]["findings_before"], &v["verified"]["findings_after"]), (&json!(1), &json!(1)));
    assert_eq!(std::fs::read_to_string(t.root().join("pkg/a.py")).unwrap(), "def f():\n    return 2\n");
}

#[test]
fn verify_go_vet_refuses_an_edit_that_adds_a_bad_printf() {
    if !aide_tests::oracle("go", "llm-transform --verify go-vet") {
        return;
    }
    let t = TestDir::new();
    t.write("go.mod", "module example.com/m\n\ngo 1.19\n");
    t.write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n");
    let before = tree(&t);
    // go's build cache in the test's folder: no test waits on another's.
    let go = |args: &[&str]| t.cmd("llm-transform").env("GOCACHE", t.home().join("gocache")).args(args);
    // go vet's printf check is one of its findings (a warning): go vet fails after the edit, not before.
    let bad = json!({ "operations": [{ "op": "patch", "path": "main.go", "old_text": "fmt.Println(\"hi\")",
        "new_text": "fmt.Printf(\"%d\\n\", \"hi\")" }], "verify": "go-vet" });
    let v: Value = go(&["--request", "-"]).stdin(bad.to_string()).json(3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    let fresh = &v["error"]["details"]["new_findings"];
    assert_eq!((&fresh[0]["code"], &fresh[0]["line"]), (&json!("printf"), &json!(6)), "{v}");
    assert_eq!(v["error"]["details"]["failing"][0]["checker"], "go-vet", "{v}");
    assert_eq!(tree(&t), before, "every file byte for byte as it was");

    let good = json!({ "operations": [{ "op": "patch", "path": "main.go", "old_text": "\"hi\"",
        "new_text": "\"hello\"" }], "verify": "go vet" });
    let v: Value = go(&["--request", "-"]).stdin(good.to_string()).json(0);
    assert_eq!(v["verified"]["checkers"], json!(["go-vet"]), "{v}");
    assert!(std::fs::read_to_string(t.root().join("main.go")).unwrap().contains("\"hello\""));
}

/// Puts a stand-in `pyflakes` first on PATH: `body` is its bash script.
fn stand_in(t: &TestDir, body: &str) -> String {
    let bin = t.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let p = bin.join("pyflakes");
    std::fs::write(&p, format!("#!/bin/bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    format!("{}:/usr/bin:/bin", bin.display())
}

#[test]
fn a_checker_that_starts_failing_crashes_or_writes_after_the_edit_undoes_it() {
    let t = TestDir::new();
    t.write("a.py", "x = 1\n");
    let before = tree(&t);
    let verify = |path: &str, new_text: &str, code: i32| -> Value {
        let request = json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "x = 1", "new_text": new_text }],
            "verify": "pyflakes" });
        t.cmd("llm-transform").args(["--request", "-"]).env("PATH", path).stdin(request.to_string()).json(code)
    };

    // Its exit status alone: after the edit it exits 1, of a file outside the root (no finding here).
    let path = stand_in(&t, "grep -q two a.py && { echo '/elsewhere/b.py:1:1: undefined name y'; exit 1; }; exit 0");
    let v = verify(&path, "x = 2  # two", 3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    assert_eq!(v["error"]["details"]["new_findings"], json!([]), "{v}");
    let failing = &v["error"]["details"]["failing"][0];
    assert_eq!(
        (&failing["checker"], &failing["exit_code_before"], &failing["exit_code"]),
        (&json!("pyflakes"), &json!(0), &json!(1))
    );
    assert_eq!(tree(&t), before);

    // A crash after the edit (a status it never gives for findings).
    let path = stand_in(&t, "grep -q two a.py && { echo 'Traceback: boom' >&2; exit 70; }; exit 0");
    let v = verify(&path, "x = 2  # two", 3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    assert!(v["error"]["details"]["failing"][0]["stderr_tail"].as_str().unwrap().contains("boom"), "{v}");
    assert_eq!(tree(&t), before);

    // A check that writes the edited file: caught, and everything undone.
    let path = stand_in(&t, "grep -q two a.py && echo 'y = 3' >> a.py; exit 0");
    let v = verify(&path, "x = 2  # two", 3);
    assert_eq!(v["error"]["code"], "verification_failed", "{v}");
    assert!(v["error"]["details"]["failing"][0]["reason"].as_str().unwrap().contains("a.py"), "{v}");
    assert_eq!(tree(&t), before, "the checker's write undone with the edit");

    // One that fails on the tree as it is cannot judge the edit: nothing is written.
    let path = stand_in(&t, "echo 'it broke' >&2; exit 70");
    let v = verify(&path, "x = 3", 4);
    assert_eq!(v["error"]["code"], "checker_failed", "{v}");
    assert!(v["error"]["details"]["stderr_tail"].as_str().unwrap().contains("it broke"), "{v}");
    assert_eq!(tree(&t), before);

    // The stand-in content with the tree: the same edit stands.
    let path = stand_in(&t, "exit 0");
    let v = verify(&path, "x = 2  # two", 0);
    assert_eq!(v["verified"]["checkers"], json!(["pyflakes"]), "{v}");
}

/// The request that patches `x = 1` to `x = 2` in a.py, with `verify`'s fields.
fn patch_with(verify: Value) -> String {
    let mut request =
        json!({ "operations": [{ "op": "patch", "path": "a.py", "old_text": "x = 1", "new_text": "x = 2" }] });
    request.as_object_mut().unwrap().extend(verify.as_object().unwrap().clone());
    request.to_string()
}

#[test]
fn a_check_that_writes_files_fails_the_edit_and_everything_is_put_back() {
    let t = TestDir::new();
    t.write("a.py", "x = 1\n");
    t.write("lib/b.py", "b = 1\n");
    t.write("notes.txt", "notes\n");
    let before = tree(&t);
    let refused = |v: &Value, wrote: &str, said: &str| {
        assert_eq!(v["error"]["code"], "verification_failed", "{said}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("wrote to files") && message.contains(wrote), "{said}: {message}");
        assert_eq!(v["error"]["details"]["written_by_check"], json!([wrote]), "{said}: {v}");
        assert_eq!(v["error"]["details"]["undone"], true, "{said}: {v}");
        assert_eq!(tree(&t), before, "{said}: the edit and the check's write are both undone");
    };

    // A verify command that writes the edited file or another source file
    // (or removes one), whether it then exits 0 or not.
    for (command, wrote) in [
        ("echo 'y = 3' >> a.py", "a.py"),
        ("echo 'y = 3' >> a.py; exit 1", "a.py"),
        ("echo 'c = 2' > lib/b.py", "lib/b.py"),
        ("rm lib/b.py", "lib/b.py"),
    ] {
        let v: Value = t
            .cmd("llm-transform")
            .args(["--request", "-"])
            .stdin(patch_with(json!({ "verify_command": command })))
            .json(3);
        refused(&v, wrote, command);
    }

    // A checker that writes a source file the edit did not touch.
    let path = stand_in(&t, "grep -q 'x = 2' a.py && echo 'c = 2' >> lib/b.py; exit 0");
    let v: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .env("PATH", &path)
        .stdin(patch_with(json!({ "verify": "pyflakes" })))
        .json(3);
    refused(&v, "lib/b.py", "a checker writing lib/b.py");

    // One that writes while checking the tree before the edit: nothing is
    // written, and its write is put back too.
    let path = stand_in(&t, "echo 'c = 2' >> lib/b.py; exit 0");
    let v: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .env("PATH", &path)
        .stdin(patch_with(json!({ "verify": "pyflakes" })))
        .json(4);
    assert_eq!(v["error"]["code"], "checker_failed", "{v}");
    assert_eq!(tree(&t), before, "the checker's write before the edit is put back");

    // A command that only reads, and writes outside the tree's source files, passes.
    let v: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .stdin(patch_with(json!({ "verify_command": "grep -q 'x = 2' a.py && echo seen >> notes.txt" })))
        .json(0);
    assert_eq!(v["verified"]["command"], "grep -q 'x = 2' a.py && echo seen >> notes.txt", "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join("a.py")).unwrap(), "x = 2\n");
}

#[test]
fn an_edit_whose_check_was_killed_is_reported_by_doctor_and_undone_by_recover() {
    use std::os::unix::process::CommandExt;
    let t = TestDir::new();
    t.write("a.py", "x = 1\n");
    t.write("lib/b.py", "b = 1\n");
    let before = tree(&t);
    // The command says it runs (its pid, outside the tree), then never ends.
    let started = t.home().join("checking.pid");
    let command = format!("echo $$ > '{}.new' && mv '{0}.new' '{0}'; exec sleep 600", started.display());
    let mut run = t.cmd("llm-transform").args(["--request", "-", "--json"]);
    run.cmd.process_group(0);
    let mut child = run.spawn_with_input(patch_with(json!({ "verify_command": command })).as_bytes());
    aide_tests::eventually("the verify command to start", std::time::Duration::from_secs(120), || started.exists());
    let checking: u32 = std::fs::read_to_string(&started).unwrap().trim().parse().unwrap();
    aide_tests::kill_process_group(child.id());
    let _ = child.wait();
    let _ = std::process::Command::new("kill").args(["-s", "KILL", &checking.to_string()]).status();
    assert_eq!(std::fs::read_to_string(t.root().join("a.py")).unwrap(), "x = 2\n", "the edit was on disk, unverified");

    let doctor = |t: &TestDir| -> Value {
        let out = t.cmd("aide").args(["doctor", "--json"]).output();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "transform_journals").unwrap().clone()
    };
    let journals = doctor(&t);
    assert_eq!(journals["status"], "fail", "{journals}");
    assert!(journals["detail"].as_str().unwrap().contains("unverified"), "{journals}");

    let v: Value = t.cmd("llm-transform").arg("recover").json(0);
    assert_eq!(v["recovered"][0]["action"], "undone_unverified", "{v}");
    assert_eq!(tree(&t), before, "the unverified edit is undone");
    assert_eq!(doctor(&t)["status"], "ok");
    // The edit never happened: nothing of it is left to undo.
    let e: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(2);
    assert_eq!(e["error"]["code"], "invalid_arguments", "nothing to undo: {e}");
}

#[test]
fn a_model_whose_verify_command_writes_files_over_mcp_gets_verification_failed_and_the_tree_as_before() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("a.py", "x = 1\n");
    t.write("lib/b.py", "b = 1\n");
    let before = tree(&t);
    // aide mcp runs the command in its sandbox, which lets it write the root: the check itself must hold.
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    for command in ["echo 'y = 3' >> a.py", "echo 'c = 2' > lib/b.py; exit 1"] {
        let request: Value = serde_json::from_str(&patch_with(json!({ "verify_command": command }))).unwrap();
        let result = client.call("transform", request);
        assert_eq!(result["isError"], true, "{command}: {result}");
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["code"], "verification_failed", "{command}: {result}");
        assert!(error["message"].as_str().unwrap().contains("wrote to files"), "{command}: {error}");
        assert_eq!(tree(&t), before, "{command}: the edit and the command's write undone");
    }
}
