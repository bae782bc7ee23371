//! llm-transform's patches: a diff git made applies as `git apply` applies
//! it, the `*** Begin Patch` format all or nothing, and a file name that is
//! not UTF-8 is read from git's quoting byte for byte.

use aide_tests::TestDir;
use serde_json::{Value, json};

/// Runs a request through llm-transform's `--request -`.
fn transform(t: &TestDir, request: Value, code: i32) -> Value {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

fn read(t: &TestDir, rel: &str) -> Vec<u8> {
    std::fs::read(t.root().join(rel)).unwrap()
}

/// The bytes of every file under the root but `.git`, by relative path.
fn tree_bytes(t: &TestDir) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![t.root().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".git" || n == "change.diff") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(t.root()).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A diff git made applies with the bytes and modes `git apply` gives:
/// changes, CRLF and last lines without a break, new, deleted and renamed
/// files, mode changes with and without a content change.
#[test]
fn a_git_diff_applies_as_git_apply_does() {
    let t = TestDir::new();
    t.git(&["init", "-q"]);
    t.write("a.txt", "x\nb\nc\nb\nd\ne\nf\ng\nh\ni\nj\nb\nk\n");
    t.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    t.write("noeol.txt", "first\nlast");
    t.write("old.txt", "going\naway\n");
    t.write("mv.txt", "moving\nfile\n");
    t.write("src/keep.rs", "fn main() {}\n");
    t.write("tool.sh", "#!/bin/sh\n").write("tool2.sh", "#!/bin/sh\necho 1\n").write("was_exec.sh", "x\n");
    std::fs::set_permissions(t.root().join("was_exec.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    t.git(&["add", "-A"]).git(&["commit", "-qm", "base"]);
    let executable = |rel: &str, on: bool| {
        std::fs::set_permissions(
            t.root().join(rel),
            std::os::unix::fs::PermissionsExt::from_mode(if on { 0o755 } else { 0o644 }),
        )
        .unwrap();
    };
    executable("tool.sh", true);
    executable("tool2.sh", true);
    t.write("tool2.sh", "#!/bin/sh\necho 2\n");
    executable("was_exec.sh", false);
    t.write("a.txt", "x\nb\nc\nB\nd\ne\nf\ng\nh\ni\nj\nb\nk\nadded\n");
    t.write("crlf.txt", "one\r\nTWO\r\nthree\r\n");
    t.write("noeol.txt", "first\nlast changed");
    std::fs::remove_file(t.root().join("old.txt")).unwrap();
    std::fs::create_dir(t.root().join("moved")).unwrap();
    t.git(&["mv", "mv.txt", "moved/mv2.txt"]);
    t.write("moved/mv2.txt", "moving\nfile\nmoved\n");
    t.write("new/dir/n.txt", "brand\nnew\n");
    t.write("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(t.root().join("run.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    t.git(&["add", "-A"]);
    let out =
        std::process::Command::new("git").args(["diff", "--cached", "-M"]).current_dir(t.root()).output().unwrap();
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.contains("rename from mv.txt") && diff.contains("\\ No newline"), "{diff}");
    assert!(diff.contains("new mode 100755") && diff.contains("new mode 100644"), "{diff}");
    // What git apply makes of it, from the base.
    t.git(&["reset", "-q", "--hard", "HEAD"]);
    t.write("change.diff", &diff);
    t.git(&["apply", "change.diff"]);
    let by_git = tree_bytes(&t);
    let modes = |t: &TestDir| -> Vec<u32> {
        ["tool.sh", "tool2.sh", "was_exec.sh"]
            .iter()
            .map(|f| {
                std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(t.root().join(f)).unwrap().permissions())
                    & 0o777
            })
            .collect()
    };
    let modes_by_git = modes(&t);
    t.git(&["reset", "-q", "--hard", "HEAD"]);
    t.git(&["clean", "-qfd", "-e", "change.diff"]);
    let base = tree_bytes(&t);
    let (out, _) = t.cmd("llm-transform").args(["--json", "--patch", "change.diff"]).expect_exit(0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(tree_bytes(&t), by_git, "{v}");
    assert_eq!(modes(&t), modes_by_git, "modes as git apply sets them");
    let mode = |rel: &str| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(t.root().join(rel)).unwrap().permissions()) & 0o777
    };
    assert_eq!(mode("run.sh"), 0o755, "a new file git marks 100755 is executable");
    assert_eq!(mode("new/dir/n.txt") & 0o111, 0);
    // One transform: undone whole.
    let id = v["undo"].as_str().unwrap().rsplit(' ').next().unwrap().to_string();
    t.cmd("llm-transform").args(["undo", &id]).expect_exit(0);
    assert_eq!(tree_bytes(&t), base);
    assert_eq!(modes(&t), [0o644, 0o644, 0o755], "undo gives the modes back");
    assert!(!t.root().join("new").exists(), "undo removes the folders the patch made");
}

/// The `*** Begin Patch` format: add, update with an anchor, move, delete;
/// a hunk that does not fit refuses the whole patch, naming the nearest lines.
#[test]
fn a_begin_patch_applies_all_or_nothing() {
    let t = TestDir::new();
    t.write("src/app.py", "def a():\n    return 1\n\n\ndef b():\n    return 1\n");
    t.write("old.py", "x = 1\n");
    t.write("mv.py", "y = 2\n");
    let patch = "*** Begin Patch\n*** Add File: pkg/new.py\n+print('new')\n*** Update File: src/app.py\n@@ def b():\n-    return 1\n+    return 2\n*** Update File: mv.py\n*** Move to: moved.py\n@@\n-y = 2\n+y = 3\n*** Delete File: old.py\n*** End Patch\n";
    let v = transform(&t, json!({ "operations": [{ "op": "apply_patch", "patch": patch }] }), 0);
    // A moved and changed file is a rename and a write.
    assert_eq!(v["applied"], 5, "{v}");
    assert_eq!(
        String::from_utf8(read(&t, "src/app.py")).unwrap(),
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    );
    assert_eq!(String::from_utf8(read(&t, "pkg/new.py")).unwrap(), "print('new')\n");
    assert_eq!(String::from_utf8(read(&t, "moved.py")).unwrap(), "y = 3\n");
    assert!(!t.root().join("old.py").exists() && !t.root().join("mv.py").exists());

    let before = tree_bytes(&t);
    let stale = "*** Begin Patch\n*** Add File: more.py\n+z = 1\n*** Update File: src/app.py\n@@\n-    return 7\n+    return 8\n*** End Patch\n";
    let v = transform(&t, json!({ "operations": [{ "op": "apply_patch", "patch": stale }] }), 3);
    assert_eq!(v["error"]["code"], "no_match", "{v}");
    assert_eq!(v["error"]["details"]["hunk"], 1);
    assert_eq!(v["error"]["details"]["nearest"][0]["text"], "    return 1");
    assert_eq!(tree_bytes(&t), before, "nothing written");
    // Context that fits twice is ambiguous.
    let twice = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return 1\n+    return 0\n*** End Patch\n";
    let v = transform(
        &t,
        json!({ "operations": [{ "op": "apply_patch", "patch": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return\n*** End Patch\n" }] }),
        3,
    );
    assert_eq!(v["error"]["code"], "no_match");
    t.write("src/app.py", "def a():\n    return 1\n\n\ndef b():\n    return 1\n");
    let v = transform(&t, json!({ "operations": [{ "op": "apply_patch", "patch": twice }] }), 3);
    assert_eq!(v["error"]["code"], "ambiguous", "{v}");
    assert_eq!(v["error"]["details"]["candidates"], json!([2, 6]));
}

/// A name that is not UTF-8 is quoted by git in octal (`"a/caf\351.txt"`):
/// the patch changes, renames and adds those very bytes, never a name with
/// U+FFFD in it, and the result names them in the contract's `\xHH` form.
#[test]
fn names_that_are_not_utf8_are_patched_byte_for_byte() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = TestDir::new();
    let latin1 = |name: &[u8]| t.root().join(OsStr::from_bytes(name));
    t.git(&["init", "-q"]);
    std::fs::write(latin1(b"caf\xe9.txt"), "one\ntwo\n").unwrap();
    std::fs::write(latin1(b"old\xff.txt"), "moving\n").unwrap();
    t.git(&["add", "-A"]).git(&["commit", "-qm", "base"]);
    std::fs::write(latin1(b"caf\xe9.txt"), "one\nTWO\n").unwrap();
    let git = |args: &[&[u8]]| {
        let out = std::process::Command::new("git")
            .args(args.iter().map(|a| OsStr::from_bytes(a)))
            .current_dir(t.root())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    git(&[b"mv", b"old\xff.txt", b"new\xfe.txt"]);
    std::fs::write(latin1(b"added\xfd.txt"), "fresh\n").unwrap();
    git(&[b"add", b"-A"]);
    let diff = String::from_utf8(git(&[b"diff", b"--cached", b"-M"])).unwrap();
    assert!(diff.contains("\"a/caf\\351.txt\"") && diff.contains("rename to \"new\\376.txt\""), "{diff}");
    git(&[b"reset", b"-q", b"--hard", b"HEAD"]);
    t.write("change.diff", &diff);
    let (out, _) = t.cmd("llm-transform").args(["--json", "--patch", "change.diff"]).expect_exit(0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(std::fs::read(latin1(b"caf\xe9.txt")).unwrap(), b"one\nTWO\n", "{v}");
    assert_eq!(std::fs::read(latin1(b"new\xfe.txt")).unwrap(), b"moving\n");
    assert_eq!(std::fs::read(latin1(b"added\xfd.txt")).unwrap(), b"fresh\n");
    assert!(!latin1(b"old\xff.txt").exists());
    let lossy = std::fs::read_dir(t.root())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().contains("\u{FFFD}") && e.file_name().to_str().is_some());
    assert!(lossy.is_none(), "no name spelled with U+FFFD was made: {lossy:?}");
    let shown = v.to_string();
    assert!(shown.contains("caf\\\\xe9.txt") && !shown.contains('\u{FFFD}'), "the contract's spelling: {v}");
}
