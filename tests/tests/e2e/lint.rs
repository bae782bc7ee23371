//! llm-lint: each checker's findings held equal to what the checker itself
//! says (shellcheck, pyflakes, ruff, cargo), aide's syntax check, `--fix`
//! through llm-transform's commit and undo, `--changed`, `--baseline`, the
//! failures that must never pass for a complete list, a check that never
//! writes whatever the project's configuration says, and checkers run as
//! the project configures them.

use std::collections::BTreeSet;
use std::process::Command;

use aide_tests::TestDir;
use serde_json::Value;

fn lint(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-lint").args(args).json(code)
}

/// The findings of one checker, as (path, line, column, code) — what both
/// sides of a differential test say.
fn located(v: &Value, checker: &str) -> BTreeSet<(String, u64, u64, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["checker"] == checker)
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The findings of one checker as (path, line, column).
fn places(v: &Value, checker: &str) -> BTreeSet<(String, u64, u64)> {
    located(v, checker).into_iter().map(|(p, l, c, _)| (p, l, c)).collect()
}

/// What `cargo SUBCOMMAND` itself says, in rustc's short form
/// (`path:line:col: level[code]: message`), as (path, line, column).
fn rustc_short(t: &TestDir, subcommand: &str) -> BTreeSet<(String, u64, u64)> {
    let out = Command::new("cargo")
        .args([subcommand, "--workspace", "--all-targets", "--message-format=short", "--quiet"])
        .current_dir(t.root())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("src/"))
        .map(|l| {
            let mut p = l.splitn(4, ':');
            (p.next().unwrap().to_string(), p.next().unwrap().parse().unwrap(), p.next().unwrap().parse().unwrap())
        })
        .collect()
}

/// Runs a checker directly in the root.
fn direct(t: &TestDir, program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).current_dir(t.root()).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

const SHELL: &str =
    "#!/bin/bash\n# é then a tab:\tstill one column each\necho $1\nls `pwd`\nfor f in $(ls); do\n\techo \"$f\"\ndone\n";

#[test]
fn shellcheck_findings_are_shellchecks_own_located_exactly_and_fixes_undo() {
    if !aide_tests::oracle("shellcheck", "llm-lint against shellcheck") {
        return;
    }
    let t = TestDir::new();
    t.write("bin/run.sh", SHELL);
    t.write("bin/é.sh", "x=1\necho \"é\" $x\n");
    // SC2045 (iterating over ls) and SC2148 (no shebang) are errors: exit 1.
    let v = lint(&t, &["--checker", "shellcheck"], 1);
    // shellcheck's own json1, by (file, line, column, code).
    let own: Value =
        serde_json::from_str(&direct(&t, "shellcheck", &["-f", "json1", "bin/run.sh", "bin/é.sh"])).unwrap();
    let theirs: BTreeSet<(String, u64, u64, String)> = own["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let code = format!("SC{}", c["code"]);
            (c["file"].as_str().unwrap().to_string(), c["line"].as_u64().unwrap(), c["column"].as_u64().unwrap(), code)
        })
        .collect();
    assert!(!theirs.is_empty());
    assert_eq!(located(&v, "shellcheck"), theirs);
    // Each span is the text shellcheck points at (its columns count characters).
    let sc2086 = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "SC2086" && f["line"] == 3).unwrap();
    let (a, b) = (sc2086["byte_start"].as_u64().unwrap() as usize, sc2086["byte_end"].as_u64().unwrap() as usize);
    assert_eq!(&SHELL.as_bytes()[a..b], b"$1");

    // --fix: shellcheck's own fixes, one commit, undone byte for byte.
    let fixed = lint(&t, &["--checker", "shellcheck", "--fix"], 1);
    assert!(fixed["fixed"]["fixes"].as_u64().unwrap() >= 2, "{fixed}");
    let now = std::fs::read_to_string(t.root().join("bin/run.sh")).unwrap();
    assert!(now.contains("echo \"$1\"") && now.contains("ls $(pwd)"), "{now}");
    assert!(!located(&fixed, "shellcheck").iter().any(|(_, _, _, c)| c == "SC2086" || c == "SC2006"));
    let undo = fixed["fixed"]["undo"].as_str().unwrap();
    let id = undo.rsplit(' ').next().unwrap();
    t.cmd("llm-transform").args(["undo", id]).expect_exit(0);
    assert_eq!(std::fs::read_to_string(t.root().join("bin/run.sh")).unwrap(), SHELL);
}

#[test]
fn pyflakes_and_ruff_findings_are_their_own() {
    let t = TestDir::new();
    // A non-ASCII string before the unused name: pyflakes counts bytes, ruff characters.
    t.write("pkg/a.py", "s = \"héllo\"; import os\n\ndef f():\n    return missing_name\n");
    t.write("pkg/b.py", "import sys\nprint(sys.argv)\nprint(undefined)\n");
    let pyflakes = if aide_tests::have("pyflakes") { "pyflakes" } else { "pyflakes3" };
    if aide_tests::oracle(pyflakes, "llm-lint against pyflakes") {
        // Chosen by the project's files, each checker says why: Python files and no ruff configuration.
        let chosen = lint(&t, &[], 1);
        let by_files = chosen["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "pyflakes").unwrap();
        assert_eq!(by_files["chosen"], "Python files, no ruff configuration", "{chosen}");
        let v = lint(&t, &["--checker", "pyflakes"], 1);
        assert_eq!(v["checkers"][0]["chosen"], "named", "{v}");
        let theirs: BTreeSet<(String, u64, String)> = direct(&t, pyflakes, &["pkg/a.py", "pkg/b.py"])
            .lines()
            .map(|l| {
                let mut p = l.splitn(4, ':');
                let (path, line, _, message) = (p.next().unwrap(), p.next().unwrap(), p.next(), p.next().unwrap());
                (path.to_string(), line.parse().unwrap(), message.trim().to_string())
            })
            .collect();
        let ours: BTreeSet<(String, u64, String)> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (f["path"].as_str().unwrap().into(), f["line"].as_u64().unwrap(), f["message"].as_str().unwrap().into())
            })
            .collect();
        assert_eq!(ours, theirs);
        let os = v["findings"].as_array().unwrap().iter().find(|f| f["message"] == "'os' imported but unused").unwrap();
        assert_eq!(os["column"], 14, "pyflakes' byte column 15 is character 14: {os}");
        assert_eq!(v["errors"], 2, "undefined names are errors: {v}");
    }
    if aide_tests::oracle("ruff", "llm-lint against ruff") {
        t.write("pyproject.toml", "[tool.ruff]\n");
        let v = lint(&t, &[], 1);
        assert!(
            v["checkers"].as_array().unwrap().iter().all(|c| c["checker"] != "pyflakes"),
            "ruff stands in for pyflakes"
        );
        let ruff = v["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "ruff").unwrap();
        assert_eq!(ruff["chosen"], "a ruff configuration", "{v}");
        let own: Value =
            serde_json::from_str(&direct(&t, "ruff", &["check", "--output-format=json", "--no-cache", "--quiet", "."]))
                .unwrap();
        let root = t.root().canonicalize().unwrap();
        let theirs: BTreeSet<(String, u64, u64, String)> = own
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let path = std::path::Path::new(d["filename"].as_str().unwrap())
                    .strip_prefix(&root)
                    .unwrap()
                    .display()
                    .to_string();
                (
                    path,
                    d["location"]["row"].as_u64().unwrap(),
                    d["location"]["column"].as_u64().unwrap(),
                    d["code"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        assert_eq!(located(&v, "ruff"), theirs);
        // ruff's safe fix of the unused import is a span edit llm-transform takes as it is.
        let f401 =
            v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "F401" && f["path"] == "pkg/a.py").unwrap();
        let edits = serde_json::json!({ "edits": f401["fixes"][0]["edits"] });
        t.cmd("llm-transform").args(["--edits", "-"]).stdin(edits.to_string()).expect_exit(0);
        assert!(!std::fs::read_to_string(t.root().join("pkg/a.py")).unwrap().contains("import os"));
    }
}

#[test]
fn cargo_findings_are_rustcs_own_and_the_syntax_check_always_runs() {
    let t = TestDir::new();
    t.write("Cargo.toml", "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    t.write("src/lib.rs", "use std::fmt;\n\npub fn f() -> u32 {\n    let s: u32 = \"é\";\n    s\n}\n");
    t.write("broken.py", "def f(:\n    pass\n");
    let v = lint(&t, &["--checker", "cargo", "--checker", "syntax"], 1);
    assert_eq!(places(&v, "cargo"), rustc_short(&t, "check"));
    let e0308 = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "E0308").unwrap();
    assert_eq!(e0308["severity"], "error");
    assert_eq!(e0308["related"][0]["message"], "expected due to this");
    let unused = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "unused_imports").unwrap();
    assert_eq!(unused["fixes"][0]["edits"][0]["byte_start"], 0, "rustc's machine-applicable removal: {unused}");
    // clippy: the same format, and its own lints.
    let clippy = lint(&t, &["--checker", "clippy"], 1);
    assert_eq!(places(&clippy, "clippy"), rustc_short(&t, "clippy"));
    let syntax = located(&v, "syntax");
    assert_eq!(syntax.iter().map(|(p, l, ..)| (p.as_str(), *l)).collect::<Vec<_>>(), vec![("broken.py", 1)]);
    // --jsonl: one finding a line, then the summary.
    let (jsonl, _) = t.cmd("llm-lint").args(["--jsonl", "--checker", "syntax"]).expect_exit(1);
    let lines: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["type"], "finding");
    assert_eq!(lines.len(), 2, "{jsonl}");
}

#[test]
fn changed_files_and_a_baseline_keep_to_what_is_new() {
    if !aide_tests::oracle("shellcheck", "llm-lint --changed and --baseline") {
        return;
    }
    let t = TestDir::new();
    t.git_init();
    t.write("old.sh", "#!/bin/bash\necho $1\n");
    t.write("kept.sh", "#!/bin/bash\necho $2\n");
    t.git(&["add", "-A"]);
    t.git(&["commit", "-qm", "base"]);
    // Nothing changed: no checker runs.
    let clean = lint(&t, &["--checker", "shellcheck", "--changed"], 0);
    assert_eq!(clean["checkers"][0]["status"], "no_files", "{clean}");
    // A line added above the old finding moves it; a new one comes beside it.
    t.write("old.sh", "#!/bin/bash\n# a comment now\necho $1\necho $3\n");
    t.write("new.sh", "#!/bin/bash\necho $4\n");
    let changed = lint(&t, &["--checker", "shellcheck", "--changed"], 0);
    let paths: BTreeSet<String> =
        changed["findings"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    assert_eq!(paths, BTreeSet::from(["new.sh".to_string(), "old.sh".to_string()]), "kept.sh did not change");

    let fresh = lint(&t, &["--checker", "shellcheck", "--baseline", "HEAD"], 0);
    let lines: BTreeSet<(String, u64)> = fresh["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(lines, BTreeSet::from([("new.sh".to_string(), 2), ("old.sh".to_string(), 4)]), "{fresh}");
    assert_eq!(fresh["baseline"]["before"], 2);

    // The same against a saved output of an earlier run.
    let (saved, _) = t.cmd("llm-lint").args(["--json", "--checker", "shellcheck"]).expect_exit(0);
    t.write("saved.json", saved);
    t.write("new.sh", "#!/bin/bash\necho $4\necho $5\n");
    let since = lint(&t, &["--checker", "shellcheck", "--baseline", "saved.json"], 0);
    let lines: Vec<(String, u64)> = since["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(lines, vec![("new.sh".to_string(), 3)], "{since}");

    // A root inside the repository compares with the same folder of the revision.
    t.write("sub/s.sh", "#!/bin/bash\necho $1\n");
    t.git(&["add", "-A"]);
    t.git(&["commit", "-qm", "sub"]);
    t.write("sub/s.sh", "#!/bin/bash\necho $1\necho $2\n");
    let inner = lint(&t, &["--root", "sub", "--checker", "shellcheck", "--baseline", "HEAD"], 0);
    let lines: Vec<(String, u64)> = inner["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(lines, vec![("s.sh".to_string(), 3)], "{inner}");
}

#[test]
fn a_check_never_writes_though_ruffs_configuration_says_fix() {
    if !aide_tests::oracle("ruff", "llm-lint against ruff's fix = true") {
        return;
    }
    for setting in ["fix = true", "fix-only = true", "fix = true\nunsafe-fixes = true"] {
        let t = TestDir::new();
        t.write("pyproject.toml", format!("[tool.ruff]\n{setting}\n"));
        let source = "import os\nimport sys\n\nprint(sys.argv)\n";
        t.write("pkg/a.py", source);
        let v = lint(&t, &[], 0);
        assert_eq!(std::fs::read_to_string(t.root().join("pkg/a.py")).unwrap(), source, "{setting}: unchanged");
        assert_eq!(
            std::fs::read_to_string(t.root().join("pyproject.toml")).unwrap(),
            format!("[tool.ruff]\n{setting}\n")
        );
        let f401 =
            v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "F401").unwrap_or_else(|| panic!("{v}"));
        assert_eq!((&f401["path"], &f401["line"]), (&serde_json::json!("pkg/a.py"), &serde_json::json!(1)));
        assert!(!f401["fixes"].as_array().unwrap().is_empty(), "the fix offered, not applied: {f401}");
        assert!(!t.root().join(".ruff_cache").exists(), "no cache written");
        let ruff = v["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "ruff").unwrap();
        assert!(ruff["command"].as_str().unwrap().contains("--no-fix"), "{ruff}");
    }
}

#[test]
fn mypy_checks_what_its_configuration_names_and_a_crash_leaves_the_others_findings() {
    if !aide_tests::oracle("mypy", "llm-lint runs mypy as configured") {
        return;
    }
    let t = TestDir::new();
    t.git_init();
    t.write("pyproject.toml", "[tool.mypy]\nfiles = [\"pkg\"]\n");
    t.write("pkg/a.py", "x: int = \"a\"\n");
    // Outside the configured files: an error `mypy .` would report, and two
    // modules of one name (`mypy .` exits 2 over them).
    t.write("scripts/b.py", "y: str = 1\n");
    t.write("tools/one/run.py", "z = 1\n");
    t.write("tools/two/run.py", "z = 2\n");
    let v = lint(&t, &["--checker", "mypy"], 1);
    // mypy's own run, as the project runs it: no path.
    let own = direct(&t, "mypy", &["--output", "json", "--no-error-summary", "--no-color-output"]);
    let theirs: BTreeSet<(String, u64, String)> = own
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(lines_of(&v, "mypy"), theirs);
    assert_eq!(theirs.iter().map(|(p, ..)| p.as_str()).collect::<Vec<_>>(), ["pkg/a.py"], "{own}");
    assert!(v["checkers"][0]["command"].as_str().unwrap().ends_with("--no-install-types"), "{v}");

    // Without its files, `mypy .` exits 2: mypy is failed, with its stderr;
    // shellcheck's findings are given; the run exits 4, never passing for complete.
    t.write("pyproject.toml", "[tool.mypy]\n");
    t.write("run.sh", "#!/bin/bash\necho $1\n");
    if aide_tests::oracle("shellcheck", "a failed mypy leaves shellcheck's findings") {
        let v = lint(&t, &["--checker", "mypy, shellcheck"], 4);
        assert_eq!(v["complete"], false, "{v}");
        let mypy = v["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "mypy").unwrap();
        assert_eq!((&mypy["status"], &mypy["exit_code"]), (&serde_json::json!("failed"), &serde_json::json!(2)), "{v}");
        // mypy says why on stdout, as one of its JSON lines.
        assert!(mypy["reason"].as_str().unwrap().contains("exited 2: tools/two/run.py: Duplicate module"), "{mypy}");
        assert!(v["findings"].as_array().unwrap().iter().all(|f| f["checker"] != "mypy"));
        assert_eq!(located(&v, "shellcheck").len(), 1, "{v}");
        // The text says so too.
        let (text, _) = t.cmd("llm-lint").args(["--checker", "mypy,shellcheck"]).expect_exit(4);
        assert!(text.contains("mypy failed, its findings missing") && text.contains("SC2086"), "{text}");
    }

    // A configuration that makes mypy write reports: it is not run.
    t.write("pyproject.toml", "[tool.mypy]\nfiles = [\"pkg\"]\nhtml_report = \"report\"\n");
    let v = lint(&t, &["--checker", "mypy"], 4);
    assert_eq!(v["checkers"][0]["status"], "failed", "{v}");
    assert!(v["checkers"][0]["reason"].as_str().unwrap().contains("html_report"), "{v}");
    assert!(!t.root().join("report").exists());
}

#[test]
fn a_missing_crashing_writing_or_slow_checker_is_failed_never_a_partial_list() {
    let t = TestDir::new();
    t.write("a.sh", "echo $1\n");
    let fake = t.root().join("fake-bin");
    std::fs::create_dir(&fake).unwrap();
    let path = format!("{}:/usr/bin:/bin", fake.display());
    let without: &str = "/nonexistent";

    // Named but not installed.
    let v: Value = t.cmd("llm-lint").args(["--checker", "shellcheck"]).env("PATH", without).json(4);
    assert_eq!(v["error"]["code"], "checker_unavailable", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("apt-get install shellcheck"));
    // Found by the project's files but not installed: said, and the rest runs.
    let v: Value = t.cmd("llm-lint").env("PATH", without).json(0);
    let shellcheck = v["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "shellcheck").unwrap().clone();
    assert_eq!(shellcheck["status"], "unavailable", "{v}");
    // An unknown name.
    let v = lint(&t, &["--checker", "shelcheck"], 2);
    assert_eq!(v["error"]["details"]["closest"], "shellcheck", "{v}");

    // Prints garbage: listed failed with its stderr's tail, no finding of it given, exit 4.
    let write_fake = |body: &str| {
        let p = fake.join("shellcheck");
        std::fs::write(&p, format!("#!/bin/bash\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    };
    let failed = |v: &Value| -> Value {
        assert_eq!(v["complete"], false, "{v}");
        assert!(v["findings"].as_array().unwrap().iter().all(|f| f["checker"] != "shellcheck"), "no partial list: {v}");
        let c = v["checkers"].as_array().unwrap().iter().find(|c| c["checker"] == "shellcheck").unwrap().clone();
        assert_eq!(c["status"], "failed", "{v}");
        c
    };
    write_fake("echo 'not json'; echo 'it broke' >&2; exit 1");
    let v: Value = t.cmd("llm-lint").args(["--checker", "shellcheck"]).env("PATH", &path).json(4);
    assert!(failed(&v)["stderr_tail"].as_str().unwrap().contains("it broke"), "{v}");
    // Crashes (a signal).
    write_fake("kill -SEGV $$");
    let v: Value = t.cmd("llm-lint").args(["--checker", "shellcheck"]).env("PATH", &path).json(4);
    assert!(failed(&v)["reason"].as_str().unwrap().contains("signal"), "{v}");
    // Writes the file it checks (as a checker configured to fix would): failed, naming it.
    write_fake("echo '# fixed' >> a.sh; echo '{\"comments\":[]}'");
    let v: Value = t.cmd("llm-lint").args(["--checker", "shellcheck"]).env("PATH", &path).json(4);
    assert!(failed(&v)["reason"].as_str().unwrap().contains("(a.sh)"), "{v}");
    t.write("a.sh", "echo $1\n");
    // Over --timeout: killed with what it started.
    write_fake("sleep 97 & sleep 97; wait");
    let started = std::time::Instant::now();
    let v: Value = t.cmd("llm-lint").args(["--checker", "shellcheck", "--timeout", "1"]).env("PATH", &path).json(4);
    assert!(failed(&v)["reason"].as_str().unwrap().contains("timeout"), "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    aide_tests::eventually("the slow checker's processes to end", std::time::Duration::from_secs(10), || {
        aide_tests::processes_with_cmdline("sleep 97").is_empty()
    });
}

/// The findings of one checker as (path, line, code).
fn lines_of(v: &Value, checker: &str) -> BTreeSet<(String, u64, String)> {
    located(v, checker).into_iter().map(|(p, l, _, c)| (p, l, c)).collect()
}

// Long because: one case per checker, each held against the checker's own output.
#[test]
fn mypy_pyright_tsc_and_eslint_findings_are_their_own() {
    let t = TestDir::new();
    t.write("py/a.py", "s = \"e\"; x: int = \"a\"\n\n\ndef f() -> int:\n    return \"s\"\n");
    t.write("mypy.ini", "[mypy]\n");
    t.write("pyrightconfig.json", "{\"include\": [\"py\"]}\n");
    // A character outside the BMP: two UTF-16 units, one column.
    t.write(
        "src/a.ts",
        "const s = \"😀\"; const n: number = \"x\";\nfunction f(a: string): number {\n  return a;\n}\n",
    );
    t.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n");
    t.write("src/b.js", "const s = \"😀\"; let unused = 1;\nvar x = 1\nif (x == 1) { debugger; }\n");
    t.write(
        "eslint.config.mjs",
        "export default [{ rules: { \"no-unused-vars\": \"error\", \"no-debugger\": \"error\", \"eqeqeq\": \"error\", \"no-var\": \"error\", \"prefer-const\": \"error\" } }];\n",
    );
    let root = t.root().canonicalize().unwrap();
    let relative =
        |p: &str| std::path::Path::new(p).strip_prefix(&root).map(|r| r.display().to_string()).unwrap_or(p.to_string());

    if aide_tests::oracle("mypy", "llm-lint against mypy") {
        let v = lint(&t, &["--checker", "mypy"], 1);
        let theirs: BTreeSet<(String, u64, String)> =
            direct(&t, "mypy", &["--output", "json", "--no-error-summary", "--no-color-output", "."])
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .map(|d| {
                    (
                        d["file"].as_str().unwrap().to_string(),
                        d["line"].as_u64().unwrap(),
                        d["code"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
        assert_eq!(lines_of(&v, "mypy"), theirs);
        let first = &v["findings"][0];
        assert_eq!(
            (&first["column"], &first["end_column"]),
            (&serde_json::json!(19), &serde_json::json!(22)),
            "{first}"
        );
    }
    if aide_tests::oracle("pyright", "llm-lint against pyright") {
        let v = lint(&t, &["--checker", "pyright"], 1);
        let own: Value = serde_json::from_str(&direct(&t, "pyright", &["--outputjson"])).unwrap();
        let theirs: BTreeSet<(String, u64, String)> = own["generalDiagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    relative(d["file"].as_str().unwrap()),
                    d["range"]["start"]["line"].as_u64().unwrap() + 1,
                    d["rule"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        assert_eq!(lines_of(&v, "pyright"), theirs);
    }
    if aide_tests::oracle("tsc", "llm-lint against tsc") {
        let v = lint(&t, &["--checker", "tsc"], 1);
        let theirs: BTreeSet<(String, u64, String)> = direct(&t, "tsc", &["--noEmit", "--pretty", "false", "-p", "."])
            .lines()
            .filter_map(|l| {
                let (path, rest) = l.split_once('(')?;
                let (line, rest) = rest.split_once(',')?;
                let code = rest.split_whitespace().find(|w| w.starts_with("TS"))?.trim_end_matches(':');
                Some((path.to_string(), line.parse().ok()?, code.to_string()))
            })
            .collect();
        assert_eq!(lines_of(&v, "tsc"), theirs);
        let n = v["findings"].as_array().unwrap().iter().find(|f| f["line"] == 1).unwrap();
        assert_eq!(n["column"], 22, "tsc's UTF-16 column 23 is character 22: {n}");
    }
    if aide_tests::oracle("eslint", "llm-lint against eslint") {
        let v = lint(&t, &["--checker", "eslint"], 1);
        let own: Value = serde_json::from_str(&direct(&t, "eslint", &["-f", "json", "."])).unwrap();
        let theirs: BTreeSet<(String, u64, String)> = own
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| {
                let path = relative(f["filePath"].as_str().unwrap());
                f["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |m| {
                        (path.clone(), m["line"].as_u64().unwrap(), m["ruleId"].as_str().unwrap_or("").to_string())
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(lines_of(&v, "eslint"), theirs);
        // eslint's fix (UTF-16 offsets) applied through llm-transform is eslint's own fix.
        let fixed = lint(&t, &["--checker", "eslint", "--fix"], 1);
        assert_eq!(fixed["fixed"]["fixes"], 2, "{fixed}");
        let now = std::fs::read_to_string(t.root().join("src/b.js")).unwrap();
        assert!(now.contains("const unused = 1;") && now.contains("let x = 1"), "{now}");
    }
}

#[test]
fn go_vet_and_gofmt_findings_are_their_own() {
    if !aide_tests::oracle("go", "llm-lint against go vet and gofmt") {
        return;
    }
    let t = TestDir::new();
    t.write("go.mod", "module example.com/m\n\ngo 1.19\n");
    t.write(
        "main.go",
        "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ts := \"é\"\n\tfmt.Printf(\"%d %s\\n\", s, s)\n}\n",
    );
    t.write("b/b.go", "package b\n\nfunc F() int {\n  return y\n}\n");
    let v = lint(&t, &[], 1);
    // go vet's own: `# package` headers, JSON findings and type errors as text, on stderr.
    let out = Command::new("go").args(["vet", "-json", "./..."]).current_dir(t.root()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let root = t.root().canonicalize().unwrap().display().to_string();
    let mut theirs = BTreeSet::new();
    for line in stderr.lines() {
        let posn = line
            .trim()
            .strip_prefix("\"posn\": \"")
            .map(|p| p.trim_end_matches(['"', ',']))
            .or_else(|| line.strip_prefix("vet: ").and_then(|l| l.split(": ").next()));
        if let Some(posn) = posn {
            let mut p = posn.rsplitn(3, ':');
            let (column, line, file) = (p.next().unwrap(), p.next().unwrap(), p.next().unwrap());
            let file = file.strip_prefix(&format!("{root}/")).unwrap_or(file).to_string();
            theirs.insert((file, line.parse::<u64>().unwrap(), column.parse::<u64>().unwrap()));
        }
    }
    assert_eq!(theirs.len(), 2, "{stderr}");
    let ours: BTreeSet<(String, u64, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["checker"] == "go-vet")
        .map(|f| {
            // go counts bytes: the contract's column is in characters (no é before these).
            (f["path"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(ours, theirs);
    let unformatted: BTreeSet<String> = direct(&t, "gofmt", &["-l", "."]).lines().map(str::to_string).collect();
    let ours: BTreeSet<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["checker"] == "gofmt")
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ours, unformatted);
}
