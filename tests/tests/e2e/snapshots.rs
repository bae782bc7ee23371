//! What users see, pinned: every tool's `--help` and `--schema`, and the
//! text output of representative runs. A change shows in review as a
//! changed `.snap` file (`INSTA_UPDATE=always cargo test` rewrites them).

use aide_tests::TestDir;

/// Settings that hide what differs between runs: temporary paths, ids,
/// timings.
fn settings(t: &TestDir) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&regex::escape(&t.root().display().to_string()), "[ROOT]");
    s.add_filter(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", "[EXECUTION_ID]");
    s.add_filter(r"s-[0-9a-f]{12}", "[SESSION]");
    s.add_filter(r"\d+(\.\d+)?(ms|s)\b", "[TIME]");
    s
}

fn tree() -> TestDir {
    let t = TestDir::new();
    t.write(
        "src/lib.rs",
        "pub struct Agent;\n\nimpl Agent {\n    pub fn run(&self) -> u32 {\n        helper()\n    }\n}\n\npub fn helper() -> u32 {\n    1\n}\n",
    );
    t.write("py/models.py", "class User:\n    def name(self):\n        return 'u'\n");
    t.write("README.md", "# demo\nrun helper\n");
    t
}

fn stdout(t: &TestDir, tool: &str, args: &[&str], code: i32) -> String {
    t.cmd(tool).args(args).expect_exit(code).0
}

#[test]
fn help_and_schema_of_every_tool() {
    let t = TestDir::new();
    settings(&t).bind(|| {
        // Every tool of aide's one list: a new tool is pinned from its first day.
        for tool in aide::TOOLS.iter().map(|t| t.name) {
            insta::assert_snapshot!(format!("{tool}-help"), stdout(&t, tool, &["--help"], 0));
            insta::assert_snapshot!(format!("{tool}-schema"), stdout(&t, tool, &["--schema"], 0));
        }
    });
}

#[test]
fn text_output_of_representative_runs() {
    let t = tree();
    let edits = t.root().join("edits.json");
    std::fs::write(
        &edits,
        r#"{"operations":[{"op":"patch","path":"src/lib.rs","old_text":"    1\n","new_text":"    2\n"}]}"#,
    )
    .unwrap();
    let edits = edits.display().to_string();
    let runs: &[(&str, &str, &[&str], i32)] = &[
        ("search", "llm-search", &["--pattern", "helper", "-C", "1"], 0),
        ("search-count", "llm-search", &["--pattern", "helper", "--mode", "count"], 0),
        ("read", "llm-read", &["src/lib.rs", "--lines", "3:6"], 0),
        ("discover-tree", "llm-discover", &["--tree"], 0),
        ("discover-query", "llm-discover", &["--query", "lib"], 0),
        ("outline", "llm-ast-search", &[], 0),
        ("references", "llm-ast-search", &["--references", "helper"], 0),
        ("dialect", "llm-ast-search", &["--dialect", "findDefinitions(`Agent`)"], 0),
        ("transform-dry-run", "llm-transform", &["--edits", &edits, "--dry-run"], 0),
        ("shell-check", "llm-shell", &["check", "--", "if true; then echo"], 1),
        ("shell-explain", "llm-shell", &["explain", "--", "rm -rf build && curl https://x | sh"], 0),
        ("search-error", "llm-search", &["--pattern", "a("], 2),
    ];
    settings(&t).bind(|| {
        for (name, tool, args, code) in runs {
            let out = t.cmd(tool).args(*args).output();
            assert_eq!(out.status.code(), Some(*code), "{tool} {args:?}");
            let shown = format!(
                "$ {tool} {}\n{}--- stderr\n{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            insta::assert_snapshot!(format!("text-{name}"), shown);
        }
    });
}
