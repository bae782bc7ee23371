//! Directories under the transform's guarantees: mkdir, copy of a file or a
//! tree, rename of a directory, recursive delete guarded by the tree
//! checksum llm-read and llm-discover print; undo byte for byte; a kill at
//! any moment leaves the whole request done or not done once recovered.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use aide_tests::TestDir;
use serde_json::{Value, json};

fn transform(t: &TestDir, request: Value, code: i32) -> Value {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

fn tree_checksum(t: &TestDir, dir: &str) -> String {
    let v: Value = t.cmd("llm-read").arg(dir).json(0);
    assert_eq!(v["files"][0]["kind"], "directory", "{v}");
    v["files"][0]["tree_checksum"].as_str().unwrap().to_string()
}

/// Every entry under `dir`: path, kind, mode, and bytes or link target.
fn snapshot(dir: &Path) -> Vec<(String, String, u32, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, String, u32, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let mode = m.permissions().mode() & 0o7777;
            if m.file_type().is_symlink() {
                out.push((
                    rel,
                    "link".into(),
                    0,
                    std::fs::read_link(&p).unwrap().into_os_string().into_encoded_bytes(),
                ));
            } else if m.is_dir() {
                out.push((rel, "dir".into(), mode, Vec::new()));
                walk(base, &p, out);
            } else {
                out.push((rel, "file".into(), mode, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// A tree with what a copy must keep: modes, an empty folder, hidden and
/// ignored files, and links (one relative, one leading out of the root).
fn sample_tree(t: &TestDir, at: &str) {
    t.write(&format!("{at}/a.txt"), "alpha\n");
    t.write(&format!("{at}/.hidden"), "h\n");
    t.write(&format!("{at}/.gitignore"), "*.log\n");
    t.write(&format!("{at}/debug.log"), "ignored but real\n");
    t.write(&format!("{at}/bin/run.sh"), "#!/bin/sh\necho run\n");
    let root = t.root();
    std::fs::set_permissions(root.join(at).join("bin/run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(root.join(at).join("empty/deeper")).unwrap();
    std::fs::set_permissions(root.join(at).join("empty"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink("../a.txt", root.join(at).join("bin/a-link")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join(at).join("bin/outside")).unwrap();
}

#[test]
fn the_tree_checksum_is_coreutils_sha256sum_of_the_sorted_file_list() {
    if !aide_tests::oracle("sha256sum", "the tree checksum against coreutils") {
        return;
    }
    let t = TestDir::new();
    t.write("d/b.txt", "b\n").write("d/a/z.txt", "z\n").write("d/a.c", "c\n").write("d/.h", "");
    t.write("d/sp ace.txt", "s\n").write("d/ünï.txt", "u\n");
    let out = std::process::Command::new("bash")
        .args(["-c", "cd d && find . -type f -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum"])
        .current_dir(t.root())
        .output()
        .unwrap();
    let expected = String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string();
    assert_eq!(tree_checksum(&t, "d"), expected);
    let v: Value = t.cmd("llm-discover").args(["--root", "d", "--tree", "--tree-checksum"]).json(0);
    assert_eq!(v["tree_checksum"], expected.as_str(), "{v}");
    // The text form says it too, with the entries directly inside.
    let (text, _) = t.cmd("llm-read").arg("d").expect_exit(0);
    assert!(text.contains(&format!("tree sha256 {expected}")), "{text}");
    assert!(text.lines().any(|l| l == "a/"), "{text}");
}

#[test]
fn a_tree_copy_keeps_modes_links_and_empty_folders_and_undo_removes_it() {
    let t = TestDir::new();
    sample_tree(&t, "src");
    let before = tree_checksum(&t, "src");
    let v = transform(&t, json!({ "operations": [{ "op": "copy", "path": "src", "to": "out/copy" }] }), 0);
    assert_eq!(v["operations"][0]["op"], "copy", "{v}");
    assert_eq!(v["operations"][0]["note"], "directory to out/copy: 5 files, 2 links, 3 folders");
    assert_eq!(snapshot(&t.root().join("src")), snapshot(&t.root().join("out/copy")));
    assert_eq!(tree_checksum(&t, "out/copy"), before);
    // Links are copied as links, never followed out of the root.
    assert_eq!(std::fs::read_link(t.root().join("out/copy/bin/outside")).unwrap(), Path::new("/etc/hostname"));
    // Nothing of the source is reported as changed.
    assert!(v["files"].as_array().unwrap().iter().all(|f| f["action"] == "created"), "{v}");
    // A copy onto what exists is refused, nothing written.
    let v = transform(&t, json!({ "operations": [{ "op": "copy", "path": "src", "to": "out/copy" }] }), 3);
    assert_eq!(v["error"]["code"], "conflict");
    let v = transform(&t, json!({ "operations": [{ "op": "copy", "path": "src", "to": "src/inner" }] }), 2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "into itself: {v}");
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert!(!t.root().join("out").exists(), "undo removes the copy and the folders it made");
    assert_eq!(tree_checksum(&t, "src"), before);
}

#[test]
fn a_tree_copy_replaces_a_tree_only_with_its_tree_checksum() {
    let t = TestDir::new();
    sample_tree(&t, "src");
    t.write("dst/old-only.txt", "old\n").write("dst/a.txt", "stale\n").write("dst/deep/x", "x");
    let root = t.root().to_path_buf();
    let old = snapshot(&root.join("dst"));
    let copy = |extra: Value| {
        let mut op = json!({ "op": "copy", "path": "src", "to": "dst", "overwrite": true });
        op.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({ "operations": [op] })
    };
    let v = transform(&t, copy(json!({})), 3);
    assert_eq!(v["error"]["code"], "conflict", "overwrite needs the tree checksum: {v}");
    let v = transform(&t, copy(json!({ "checksum_before": "0".repeat(64) })), 3);
    assert_eq!(v["error"]["code"], "checksum_mismatch");
    assert_eq!(snapshot(&root.join("dst")), old, "nothing written");
    let sum = tree_checksum(&t, "dst");
    transform(&t, copy(json!({ "checksum_before": sum })), 0);
    assert_eq!(
        snapshot(&root.join("dst")),
        snapshot(&root.join("src")),
        "the tree is the source's, nothing of the old left"
    );
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(snapshot(&root.join("dst")), old, "undo puts the replaced tree back");
}

#[test]
fn a_recursive_delete_needs_the_tree_checksum_and_undo_restores_it_byte_for_byte() {
    let t = TestDir::new();
    sample_tree(&t, "build");
    let root = t.root().to_path_buf();
    let before = snapshot(&root.join("build"));
    let sum = tree_checksum(&t, "build");

    let v = transform(&t, json!({ "operations": [{ "op": "delete", "path": "build" }] }), 2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    let v = transform(&t, json!({ "operations": [{ "op": "delete", "path": "build", "recursive": true }] }), 3);
    assert_eq!(v["error"]["code"], "conflict");
    assert_eq!(v["error"]["details"]["current"], sum.as_str(), "the hint carries the checksum: {v}");
    let wrong = "0".repeat(64);
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "delete", "path": "build", "recursive": true, "expected_tree_checksum": wrong }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "checksum_mismatch");
    assert_eq!(snapshot(&root.join("build")), before, "nothing removed");

    // One byte changed since it was read: refused.
    let stale = sum.clone();
    t.write("build/a.txt", "alphA\n");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "delete", "path": "build", "recursive": true, "expected_tree_checksum": stale }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "checksum_mismatch");
    t.write("build/a.txt", "alpha\n");

    let v = transform(
        &t,
        json!({ "operations": [{ "op": "delete", "path": "build", "recursive": true, "expected_tree_checksum": sum }] }),
        0,
    );
    assert!(!root.join("build").exists(), "{v}");
    let v: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(v["ok"], true);
    assert_eq!(snapshot(&root.join("build")), before, "modes, links, empty folders and bytes are back");

    // `force` deletes without a checksum.
    transform(&t, json!({ "operations": [{ "op": "delete", "path": "build", "recursive": true, "force": true }] }), 0);
    assert!(!root.join("build").exists());
}

#[test]
fn a_directory_rename_moves_the_tree_and_undo_moves_it_back() {
    let t = TestDir::new();
    sample_tree(&t, "old");
    t.write("taken/x", "x");
    let root = t.root().to_path_buf();
    let before = snapshot(&root.join("old"));
    let v = transform(&t, json!({ "operations": [{ "op": "rename", "path": "old", "to": "taken" }] }), 3);
    assert_eq!(v["error"]["code"], "conflict", "{v}");
    let v = transform(&t, json!({ "operations": [{ "op": "rename", "path": "old", "to": "new/place" }] }), 0);
    assert!(!root.join("old").exists(), "{v}");
    assert_eq!(snapshot(&root.join("new/place")), before);
    let renamed: Vec<&Value> = v["files"].as_array().unwrap().iter().filter(|f| f["action"] == "created").collect();
    assert!(renamed.iter().all(|f| f["renamed_from"].as_str().unwrap().starts_with("old/")), "{v}");
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(snapshot(&root.join("old")), before);
    assert!(!root.join("new").exists());
}

#[test]
fn mkdir_makes_parents_and_copy_of_a_file_overwrites_only_with_its_checksum() {
    let t = TestDir::new();
    t.write("a.txt", "new\n").write("b.txt", "old\n");
    std::fs::set_permissions(t.root().join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "mkdir", "path": "x/y/z" }, { "op": "copy", "path": "a.txt", "to": "x/y/a.txt" }] }),
        0,
    );
    assert!(t.root().join("x/y/z").is_dir(), "{v}");
    assert_eq!(std::fs::read(t.root().join("x/y/a.txt")).unwrap(), b"new\n");
    let mode = std::fs::metadata(t.root().join("x/y/a.txt")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "a copy keeps the mode");
    let v = transform(&t, json!({ "operations": [{ "op": "mkdir", "path": "x/y" }] }), 0);
    assert_eq!(v["operations"][0]["status"], "no_op");
    assert_eq!(v["no_op"], true);
    let v = transform(&t, json!({ "operations": [{ "op": "mkdir", "path": "a.txt" }] }), 3);
    assert_eq!(v["error"]["code"], "conflict");

    let v = transform(&t, json!({ "operations": [{ "op": "copy", "path": "a.txt", "to": "b.txt" }] }), 3);
    assert_eq!(v["error"]["code"], "conflict", "{v}");
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "copy", "path": "a.txt", "to": "b.txt", "overwrite": true }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "conflict", "overwrite needs the checksum: {v}");
    let b: Value = t.cmd("llm-read").arg("b.txt").json(0);
    let sum = b["files"][0]["checksum"].clone();
    transform(
        &t,
        json!({ "operations": [{ "op": "copy", "path": "a.txt", "to": "b.txt", "overwrite": true, "checksum_before": sum }] }),
        0,
    );
    assert_eq!(std::fs::read(t.root().join("b.txt")).unwrap(), b"new\n");
    // Undo of the mkdir request removes the folders it made (empty again).
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(std::fs::read(t.root().join("b.txt")).unwrap(), b"old\n");
}

#[test]
fn a_kill_at_any_moment_of_a_tree_copy_and_delete_recovers_to_all_or_nothing() {
    let t = TestDir::new();
    let n = 30;
    for i in 0..n {
        t.write(&format!("src/d{}/f{i}.txt", i % 4), format!("{i}\n").repeat(10_000));
    }
    let root = t.root().to_path_buf();
    let source = snapshot(&root.join("src"));
    let request = json!({ "operations": [
        { "op": "copy", "path": "src", "to": "copy" },
        { "op": "delete", "path": "gone", "recursive": true, "force": true },
    ] })
    .to_string();
    let mut random = aide_tests::Xorshift(0x9E37_79B9_7F4A_7C15);
    let (mut done, mut not_done, mut mid_commit) = (0, 0, 0);
    // Two kills at known moments of the commit, held there by a gate: with
    // everything staged and nothing renamed (rolled back), and after the
    // first rename (completed); then ten at random moments.
    let gates = [Some("AIDE_TEST_STAGED_GATE"), Some("AIDE_TEST_RENAME_GATE")];
    for (round, gate) in gates.into_iter().chain(std::iter::repeat_n(None, 10)).enumerate() {
        let _ = std::fs::remove_dir_all(root.join("copy"));
        let _ = std::fs::remove_dir_all(root.join("gone"));
        for i in 0..n {
            t.write(&format!("gone/e{}/g{i}.txt", i % 3), format!("gone {i}\n").repeat(5_000));
        }
        let gone = snapshot(&root.join("gone"));
        let held = t.home().join(format!("gate-{round}"));
        let reached = t.home().join(format!("gate-{round}.reached"));
        // Each rename waits 3 ms, so random kills land in the middle of the commit too.
        let mut run =
            t.cmd("llm-transform").args(["--json", "--request", "-"]).env("AIDE_TEST_RENAME_DELAY_US", "3000");
        if let Some(gate) = gate {
            run = run.env(gate, &held);
        }
        let mut child = run.spawn_with_input(request.as_bytes());
        match gate {
            Some(gate) => aide_tests::eventually(gate, std::time::Duration::from_secs(120), || reached.exists()),
            None => std::thread::sleep(std::time::Duration::from_micros(random.below(600_000))),
        }
        let _ = child.kill();
        let _ = child.wait();
        let recovered: Value = t.cmd("llm-transform").args(["recover"]).json(0);
        mid_commit += recovered["recovered"].as_array().map_or(0, Vec::len);
        let copied = root.join("copy").exists();
        if copied {
            assert_eq!(snapshot(&root.join("copy")), source, "round {round}: the copy is whole");
            assert!(!root.join("gone").exists(), "round {round}: the delete happened with the copy");
            done += 1;
        } else {
            assert_eq!(snapshot(&root.join("gone")), gone, "round {round}: nothing of the delete happened");
            not_done += 1;
        }
        match gate {
            Some("AIDE_TEST_STAGED_GATE") => assert!(!copied, "killed with nothing renamed: rolled back"),
            Some(_) => assert!(copied, "killed among the renames: completed"),
            None => {}
        }
        assert_eq!(snapshot(&root.join("src")), source, "round {round}: the source is untouched");
    }
    eprintln!("kill rounds: {done} done, {not_done} not done, {mid_commit} killed mid-commit");
    assert!(mid_commit >= 2, "both held kills left a commit to recover");
}

#[test]
fn directory_operations_work_over_mcp() {
    let t = TestDir::new();
    t.write("pkg/a.txt", "a\n");
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let read = client.call("read", json!({ "paths": ["pkg"] }));
    let sum = read["structuredContent"]["files"][0]["tree_checksum"].as_str().unwrap().to_string();
    let done = client.call(
        "transform",
        json!({ "operations": [
            { "op": "copy", "path": "pkg", "to": "pkg2" },
            { "op": "delete", "path": "pkg", "recursive": true, "expected_tree_checksum": sum },
            { "op": "mkdir", "path": "made/here" },
        ] }),
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(std::fs::read(t.root().join("pkg2/a.txt")).unwrap(), b"a\n");
    assert!(!t.root().join("pkg").exists());
    assert!(t.root().join("made/here").is_dir());
}

#[test]
fn a_copy_or_move_of_a_broken_file_adds_no_syntax_error_of_its_own() {
    let t = TestDir::new();
    t.write("pkg/bad.py", "def f(:\n    pass\n");
    transform(&t, json!({ "operations": [{ "op": "copy", "path": "pkg/bad.py", "to": "bad_copy.py" }] }), 0);
    transform(&t, json!({ "operations": [{ "op": "copy", "path": "pkg", "to": "pkg2" }] }), 0);
    transform(&t, json!({ "operations": [{ "op": "rename", "path": "pkg2", "to": "pkg3" }] }), 0);
    // A copy edited in the same request is judged as any edit.
    let v = transform(
        &t,
        json!({ "operations": [
            { "op": "copy", "path": "pkg/bad.py", "to": "edited.py" },
            { "op": "patch", "path": "edited.py", "old_text": "    pass", "new_text": "    pass\nclass (:" },
        ] }),
        3,
    );
    assert_eq!(v["error"]["code"], "new_syntax_errors", "{v}");
}

#[test]
fn delete_and_rename_of_a_link_act_on_the_link_never_on_what_it_points_to() {
    let t = TestDir::new();
    t.write("real.txt", "precious\n");
    std::os::unix::fs::symlink("real.txt", t.root().join("link.txt")).unwrap();
    std::os::unix::fs::symlink("real.txt", t.root().join("other.txt")).unwrap();
    let v = transform(&t, json!({ "operations": [{ "op": "delete", "path": "link.txt" }] }), 0);
    assert_eq!(v["operations"][0]["note"], "symbolic link", "{v}");
    assert!(std::fs::symlink_metadata(t.root().join("link.txt")).is_err(), "the link is gone");
    assert_eq!(std::fs::read_to_string(t.root().join("real.txt")).unwrap(), "precious\n", "its target is not");
    let _: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(0);
    assert_eq!(
        std::fs::read_link(t.root().join("link.txt")).unwrap(),
        Path::new("real.txt"),
        "undo brings the link back"
    );

    transform(&t, json!({ "operations": [{ "op": "rename", "path": "other.txt", "to": "sub/moved.txt" }] }), 0);
    assert_eq!(std::fs::read_link(t.root().join("sub/moved.txt")).unwrap(), Path::new("real.txt"));
    assert!(std::fs::symlink_metadata(t.root().join("other.txt")).is_err());
    assert_eq!(std::fs::read_to_string(t.root().join("real.txt")).unwrap(), "precious\n");
}
