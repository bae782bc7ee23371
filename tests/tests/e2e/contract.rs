//! The aide-core contract as every tool shows it: envelope, errors and exit
//! codes, requests, schema, formats, broken pipes.

use aide_tests::TestDir;
use aide_tests::wire::{Envelope, ErrorResult, SearchResult};
use serde_json::Value;

fn tree() -> TestDir {
    let t = TestDir::new();
    t.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n").write("src/lib.rs", "pub fn lib() {}\n");
    t
}

#[test]
fn envelope_has_the_contract_fields() {
    let t = tree();
    let env: Envelope<SearchResult> = t.cmd("llm-search").args(["--pattern", "fn"]).json(0);
    assert_eq!(env.tool, "llm-search");
    assert!(env.ok);
    assert_eq!(uuid_version(&env.execution_id), Some('7'));
    assert!(!env.version.is_empty());
    assert!(env.stats.elapsed_ms >= 0.0);
    assert_eq!(env.result.total_matches, 2);
}

fn uuid_version(id: &str) -> Option<char> {
    (id.len() == 36).then(|| id.chars().nth(14)).flatten()
}

#[test]
fn invalid_input_is_exit_2_with_code_and_hint_on_stdout_and_one_stderr_line() {
    let t = tree();
    let out = t.cmd("llm-search").args(["--pattern", "a(b", "--json"]).output();
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "invalid_pattern");
    assert_eq!(doc["error"]["details"]["column"], 2);
    assert!(doc["error"]["hint"].as_str().unwrap().contains("--fixed-strings"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("error[invalid_pattern]"));
}

#[test]
fn bad_flags_are_invalid_arguments_even_before_parsing() {
    let t = tree();
    let e: ErrorResult = t.cmd("llm-search").args(["--no-such-flag"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    let (stdout, stderr) = t.cmd("llm-search").args(["--no-such-flag"]).expect_exit(2);
    assert!(stdout.is_empty(), "text mode prints errors on stderr only");
    assert!(stderr.contains("invalid_arguments"));
}

#[test]
fn no_pattern_is_a_clear_error() {
    let t = tree();
    let e: ErrorResult = t.cmd("llm-search").json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.hint.unwrap().contains("--pattern"));
}

#[test]
fn request_json_mirrors_flags_and_accepts_the_seed_shape() {
    let t = tree();
    let root = t.root().display().to_string();
    let req = serde_json::json!({ "pattern": "fn", "root": root, "file_glob": ["**/main.rs"] }).to_string();
    let from_stdin: Envelope<SearchResult> = t.cmd("llm-search").args(["--request", "-"]).stdin(req.clone()).json(0);
    let by_flags: Envelope<SearchResult> =
        t.cmd("llm-search").args(["--pattern", "fn", "--root", &root, "--glob", "**/main.rs"]).json(0);
    assert_eq!(from_stdin.result, by_flags.result);
    assert_eq!(from_stdin.result.matches.len(), 1);
    std::fs::write(t.home().with_file_name("req.json"), &req).unwrap();
    let from_file: Envelope<SearchResult> =
        t.cmd("llm-search").arg("--request").arg(t.home().with_file_name("req.json")).json(0);
    assert_eq!(from_file.result, by_flags.result);
}

#[test]
fn request_json_refuses_unknown_fields_bad_json_and_mixing_with_flags() {
    let t = tree();
    let e: ErrorResult = t.cmd("llm-search").args(["--request", "-"]).stdin(r#"{"patern":"fn"}"#).json(2);
    assert_eq!(e.error.code, "invalid_request");
    assert!(e.error.hint.unwrap().contains("did you mean `pattern`"));
    let e: ErrorResult = t.cmd("llm-search").args(["--request", "-"]).stdin("{not json").json(2);
    assert_eq!(e.error.code, "invalid_request");
    let e: ErrorResult =
        t.cmd("llm-search").args(["--request", "-", "--pattern", "x"]).stdin(r#"{"pattern":"fn"}"#).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.message.contains("--pattern"));
}

#[test]
fn schema_describes_request_and_output() {
    let t = tree();
    let (stdout, _) = t.cmd("llm-search").arg("--schema").expect_exit(0);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let req_props = doc["request"]["properties"].as_object().unwrap();
    for field in ["pattern", "root", "glob", "hidden", "limit", "offset", "mode"] {
        assert!(req_props.contains_key(field), "request schema lacks {field}");
    }
    // The output is the whole document: the envelope with the result, or with the error.
    let defs = &doc["output"]["$defs"];
    let out_props = defs["Envelope"]["properties"].as_object().unwrap();
    for field in ["tool", "execution_id", "ok", "matches", "total_matches", "truncated", "next_offset", "diagnostics"] {
        assert!(out_props.contains_key(field), "output schema lacks {field}");
    }
    let err_props = defs["ErrorEnvelope"]["properties"].as_object().unwrap();
    assert!(err_props.contains_key("error") && !err_props.contains_key("matches"));
}

#[test]
fn jsonl_is_one_record_per_line_then_a_summary() {
    let t = tree();
    let (stdout, _) = t.cmd("llm-search").args(["--pattern", "fn", "--jsonl"]).expect_exit(0);
    let lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["type"], "match");
    assert_eq!(lines[0]["path"], "src/lib.rs");
    assert_eq!(lines[2]["type"], "summary");
    assert_eq!(lines[2]["total_matches"], 2);
    assert!(lines[2].get("matches").is_none());
}

#[test]
fn pretty_output_is_the_same_document() {
    let t = tree();
    let (pretty, _) = t.cmd("llm-search").args(["--pattern", "fn", "--pretty"]).expect_exit(0);
    let (compact, _) = t.cmd("llm-search").args(["--pattern", "fn", "--json"]).expect_exit(0);
    let mut a: Value = serde_json::from_str(&pretty).unwrap();
    let mut b: Value = serde_json::from_str(&compact).unwrap();
    assert!(pretty.lines().count() > 10);
    for v in [&mut a, &mut b] {
        v["execution_id"] = Value::Null;
        v["stats"] = Value::Null;
    }
    assert_eq!(a, b);
}

#[test]
fn broken_pipe_is_success() {
    let t = TestDir::new();
    let body: String = (0..20_000).map(|i| format!("match line {i}\n")).collect();
    t.write("big.txt", body);
    let bin = aide_tests::bin_dir().join("llm-search");
    let script = format!("'{}' --pattern match | head -n 1; exit ${{PIPESTATUS[0]}}", bin.display());
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn paths_outside_the_root_are_refused() {
    let t = tree();
    let e: ErrorResult = t.cmd("llm-search").args(["--pattern", "x", "--root", "/definitely/not/here"]).json(2);
    assert_eq!(e.error.code, "not_found");
}

#[test]
fn help_and_version_exit_zero() {
    let t = tree();
    let (stdout, _) = t.cmd("llm-search").arg("--help").expect_exit(0);
    assert!(stdout.contains("--pattern"));
    let (stdout, _) = t.cmd("llm-search").arg("--version").expect_exit(0);
    assert!(stdout.starts_with("llm-search "));
}

#[test]
fn every_tool_prints_its_schema_and_takes_a_json_request() {
    let t = tree();
    for tool in aide::TOOLS.iter().map(|t| t.name) {
        let (stdout, _) = t.cmd(tool).arg("--schema").expect_exit(0);
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(doc["tool"], tool);
        assert!(doc["request"].is_object() && doc["output"].is_object(), "{tool}");
    }
    // A subcommand tool, by request.
    let (stdout, _) =
        t.cmd("llm-jobs").args(["--request", "-", "--json"]).stdin(r#"{"command": {"list": {}}}"#).expect_exit(0);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["total_count"], 0);
    let (stdout, _) = t
        .cmd("llm-shell")
        .args(["--request", "-", "--json"])
        .stdin(r#"{"command": {"check": {"command": "echo hi | wc -c"}}}"#)
        .expect_exit(0);
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap()["valid"], true);
    let e: ErrorResult =
        t.cmd("llm-jobs").args(["--request", "-", "--json", "list"]).stdin(r#"{"command": {"list": {}}}"#).json(2);
    assert!(e.error.message.contains("subcommand"), "{}", e.error.message);
}

#[test]
fn every_tool_help_starts_with_its_own_description() {
    let t = tree();
    for tool in aide::TOOLS.iter().map(|t| t.name) {
        let (help, _) = t.cmd(tool).arg("--help").expect_exit(0);
        let first = help.lines().next().unwrap_or("");
        // Not the request struct's doc comment, which clap would put there.
        assert!(!first.is_empty() && !first.contains("the same fields as"), "{tool}: help starts with {first:?}");
    }
}

#[test]
fn text_output_escapes_control_characters_in_names_and_content() {
    let t = aide_tests::TestDir::new();
    let evil = "evil\nsrc/forged.rs:1:1: fn forged() {}\x1b[2J.rs";
    t.write(evil, "fn needle() {}\n");
    t.write("plain.rs", "fn needle() { let s = \"\x1b]0;pwned\x07\"; }\n");
    let runs: [&[&str]; 5] = [
        &["llm-search", "--pattern", "needle"],
        &["llm-search", "--pattern", "needle", "--mode", "files"],
        &["llm-discover", "--query", "evil"],
        &["llm-ast-search", "--definitions", "needle"],
        &["llm-discover", "--tree"],
    ];
    for run in runs {
        let out = t.cmd(run[0]).args(&run[1..]).output();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains('\x1b') && !stdout.contains('\x07'), "{run:?} printed a raw escape: {stdout:?}");
        assert!(!stdout.lines().any(|l| l.starts_with("src/forged.rs")), "{run:?} let a name forge a line: {stdout}");
        assert!(
            stdout.contains("evil\\n") || run[0] == "llm-ast-search" && !stdout.contains("evil"),
            "{run:?}: {stdout}"
        );
    }
    // JSON keeps the name exactly.
    let v: serde_json::Value = t.cmd("llm-search").args(["--pattern", "needle", "--mode", "files"]).json(0);
    assert!(v["files"].as_array().unwrap().iter().any(|f| f["path"] == evil), "{v}");
}

#[test]
fn input_nested_too_deep_is_refused_not_a_crash() {
    let t = aide_tests::TestDir::new();
    t.write("a.rs", "fn a() {}\n");
    let deep_shell = format!("echo {}x{}", "$(echo ".repeat(10_000), ")".repeat(10_000));
    let deep_ifs = format!("{}true{}", "if true; then ".repeat(1_000), "; fi".repeat(1_000));
    for (args, what) in [
        (vec!["check", "--", deep_shell.as_str()], "check"),
        (vec!["explain", "--", deep_shell.as_str()], "explain"),
        (vec!["explain", "--", deep_ifs.as_str()], "explain of nested ifs"),
        (vec!["exec", "--max-risk", "low", "--", deep_shell.as_str()], "exec --max-risk"),
    ] {
        let (stdout, _) = t.cmd("llm-shell").arg("--json").args(&args).expect_exit(2);
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["error"]["code"], "input_too_deep", "{what}: {}", v["error"]);
    }
    let deep_query = format!("{}identifier{} @x", "(".repeat(50_000), ")".repeat(50_000));
    let v: serde_json::Value = t.cmd("llm-ast-search").args(["--language", "rust", "--query", &deep_query]).json(2);
    assert_eq!(v["error"]["code"], "input_too_deep");
    let deep_program = format!("{}`a.rs`{}", "lines(".repeat(100_000), ", 1, 1)".repeat(100_000));
    t.write("deep.json", serde_json::json!({ "dialect": deep_program }).to_string());
    let v: serde_json::Value = t.cmd("llm-ast-search").args(["--request", "deep.json"]).json(2);
    assert_eq!(v["error"]["code"], "input_too_deep");
}

/// Issue 31: `--timeout 1e300` and `wait --timeout 1e308` panicked
/// (`internal`) making a Duration; every such number is checked instead.
#[test]
fn numbers_too_large_for_a_duration_are_invalid_arguments_not_panics() {
    let t = TestDir::new();
    for (tool, args) in [
        ("llm-shell", vec!["exec", "--timeout", "1e300", "--", "true"]),
        ("llm-jobs", vec!["wait", "--all", "--timeout", "1e308"]),
        ("llm-jobs", vec!["kill", "1", "--grace", "1e300"]),
        ("llm-jobs", vec!["spawn", "--timeout", "1e300", "--", "true"]),
    ] {
        let out = t.cmd(tool).arg("--json").args(&args).output();
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{tool} {args:?}: {e}"));
        assert_eq!(out.status.code(), Some(2), "{tool} {args:?}: {v}");
        assert_eq!(v["error"]["code"], "invalid_arguments", "{tool} {args:?}: {v}");
    }
}

/// docs/CONTRACT.md's vocabulary table is the one the code keeps
/// (`aide_core::vocabulary`): the same names, meanings and old names, in
/// order. `aide mcp` gives the same list in its instructions.
#[test]
fn the_contracts_vocabulary_is_the_codes() {
    let contract = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/CONTRACT.md")).unwrap();
    let section = contract.split("## Vocabulary").nth(1).unwrap().split("\n## ").next().unwrap();
    let rows: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect();
    let terms = aide_core::vocabulary::TERMS;
    assert_eq!(rows.len(), terms.len(), "{rows:?}");
    for (row, term) in rows.iter().zip(terms) {
        assert_eq!(row[0], format!("`{}`", term.name));
        assert_eq!(row[1], term.meaning, "{}", term.name);
        let old: Vec<String> = term.old_names.iter().map(|o| format!("`{o}`")).collect();
        assert_eq!(row.get(2).map(String::as_str).unwrap_or(""), old.join(", "), "{}", term.name);
    }
}

/// Old request names keep working, each said in a `deprecated_name`
/// diagnostic; the current name says nothing.
#[test]
fn old_request_names_still_work_and_say_so() {
    let t = TestDir::new();
    t.write("a.txt", "alpha\n");
    t.write("old.json", r#"{"path": ["a.txt"]}"#).write("new.json", r#"{"paths": ["a.txt"]}"#);
    let old: Value = t.cmd("llm-read").args(["--request", "old.json"]).json(0);
    let new: Value = t.cmd("llm-read").args(["--request", "new.json"]).json(0);
    assert_eq!(old["files"], new["files"]);
    assert_eq!(old["diagnostics"][0]["code"], "deprecated_name", "{old}");
    assert!(old["diagnostics"][0]["message"].as_str().unwrap().contains("write `paths`"));
    assert_eq!(new["diagnostics"], serde_json::json!([]));
}

/// CONTRACT's Toolsets bullet names every group of the catalogue and, for
/// each, exactly its operations (by name, or a family as `shell_*`).
#[test]
fn the_contract_lists_every_toolset_with_its_operations() {
    let contract = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/CONTRACT.md")).unwrap();
    let start = contract.find("* **Toolsets**").expect("CONTRACT has a Toolsets bullet");
    let bullet = &contract[start..];
    let bullet = &bullet[..bullet[2..].find("\n* ").map_or(bullet.len(), |e| e + 2)];
    let bullet = bullet.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut groups: Vec<&str> = aide::catalogue::operations().map(|op| op.group.name()).collect();
    groups.dedup();
    groups.sort_unstable();
    groups.dedup();
    for group in groups {
        let head = format!("`{group}` (");
        let at = bullet.find(&head).unwrap_or_else(|| panic!("CONTRACT's Toolsets leave out the group `{group}`"));
        let listed = &bullet[at + head.len()..];
        let listed: Vec<&str> = listed[..listed.find(')').unwrap()].split(',').map(str::trim).collect();
        let ops: Vec<&str> =
            aide::catalogue::operations().filter(|op| op.group.name() == group).map(|op| op.name).collect();
        for op in &ops {
            let family = op.split_once('_').map(|(head, _)| format!("{head}_*"));
            assert!(
                listed.contains(op) || family.as_deref().is_some_and(|f| listed.contains(&f)),
                "CONTRACT's `{group}` toolset leaves out {op}"
            );
        }
        for name in &listed {
            let matches = |op: &&str| match name.strip_suffix('*') {
                Some(prefix) => op.starts_with(prefix),
                None => op == name,
            };
            assert!(ops.iter().any(matches), "CONTRACT's `{group}` toolset names {name}, not an operation of it");
        }
    }
}
