//! llm-discover: the file an agent means comes first, deterministically.

use aide_tests::TestDir;
use aide_tests::wire::{DiscoverResult, Envelope, ErrorResult};

const TREE: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "src/vector.rs",
    "src/vector_ops.rs",
    "src/agent/mod.rs",
    "src/agent/model.rs",
    "src/agent/runner.rs",
    "src/net/client.rs",
    "src/net/server.rs",
    "src/net/mod.rs",
    "src/parser/lexer.rs",
    "src/parser/mod.rs",
    "src/parser/ast.rs",
    "src/config.rs",
    "src/domain.rs",
    "src/utils/string_utils.rs",
    "docs/maintenance.md",
    "docs/architecture.md",
    "docs/README.md",
    "tests/integration_test.rs",
    "tests/parser_test.rs",
    "benches/vector_bench.rs",
    "Cargo.toml",
    "README.md",
    "build.rs",
    "web/src/App.tsx",
    "web/src/components/Button.tsx",
    "web/src/components/ButtonGroup.tsx",
    "web/package.json",
    "scripts/deploy.sh",
    ".github/workflows/ci.yml",
];

fn tree() -> TestDir {
    let t = TestDir::new();
    for p in TREE {
        t.write(p, format!("// {p}\n"));
    }
    t
}

fn discover(t: &TestDir, args: &[&str], code: i32) -> DiscoverResult {
    let env: Envelope<DiscoverResult> = t.cmd("llm-discover").args(args).json(code);
    env.result
}

#[test]
fn ranking_table_puts_the_meant_file_first() {
    let t = tree();
    let cases: &[(&str, &str)] = &[
        ("vector", "src/vector.rs"),
        ("main", "src/main.rs"),
        ("agmod", "src/agent/mod.rs"),
        ("lexer", "src/parser/lexer.rs"),
        ("Cargo.toml", "Cargo.toml"),
        ("readme", "README.md"),
        ("docs/readme", "docs/README.md"),
        ("button", "web/src/components/Button.tsx"),
        ("ButtonGroup", "web/src/components/ButtonGroup.tsx"),
        ("netcli", "src/net/client.rs"),
        ("parser test", "tests/parser_test.rs"),
        ("deploy", "scripts/deploy.sh"),
        ("arch", "docs/architecture.md"),
        ("srvr", "src/net/server.rs"),
        ("mod.rs", "src/net/mod.rs"),
        ("app", "web/src/App.tsx"),
        ("strutil", "src/utils/string_utils.rs"),
        ("build", "build.rs"),
        ("config", "src/config.rs"),
        ("'model", "src/agent/model.rs"),
        ("^src/net", "src/net/mod.rs"),
        ("vec .rs$ !test", "src/vector.rs"),
        ("bench", "benches/vector_bench.rs"),
        ("maint", "docs/maintenance.md"),
    ];
    let mut failures = Vec::new();
    for (query, expected) in cases {
        let r = discover(&t, &["--query", query], 0);
        let got = r.results.first().map(|f| f.path.as_str()).unwrap_or("");
        if got != *expected {
            failures.push(format!(
                "{query:?}: expected {expected}, got {got} ({:?})",
                r.results.iter().take(3).map(|f| (&f.path, f.score, &f.reason)).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn main_prefers_the_source_file_over_a_longer_name() {
    let t = tree();
    let r = discover(&t, &["--query", "main"], 0);
    let order: Vec<_> = r.results.iter().map(|f| (f.path.as_str(), f.reason.as_str())).collect();
    assert_eq!(order[0], ("src/main.rs", "exact_basename"));
    assert_eq!(order[1], ("docs/maintenance.md", "basename_prefix"));
    for pair in r.results.windows(2) {
        assert!(pair[0].score >= pair[1].score);
        assert!(pair[0].score <= 1.0 && pair[1].score > 0.0);
    }
}

#[test]
fn matched_positions_and_reasons_are_reported() {
    let t = tree();
    let r = discover(&t, &["--query", "vector"], 0);
    let top = &r.results[0];
    assert_eq!(top.matched, [4, 5, 6, 7, 8, 9]);
    assert_eq!(top.kind, "file");
    assert!(!top.reason_text.is_empty());
    let exact = discover(&t, &["--query", "src/vector.rs"], 0);
    assert_eq!((exact.results[0].score, exact.results[0].reason.as_str()), (1.0, "exact_path"));
}

#[test]
fn same_order_and_scores_across_runs_and_thread_counts() {
    let t = TestDir::new();
    for i in 0..400 {
        t.write(&format!("pkg{}/mod{}/file_{i}.rs", i % 13, i % 7), "x");
    }
    let run = |threads: &str| {
        let r = discover(&t, &["--query", "mod fil", "--limit", "1000", "--threads", threads], 0);
        serde_json::to_string(&r.results.iter().map(|f| (&f.path, f.score, &f.reason)).collect::<Vec<_>>()).unwrap()
    };
    let first = run("1");
    for threads in ["2", "4", "1", "8"] {
        assert_eq!(run(threads), first);
    }
}

#[test]
fn listing_without_query_is_sorted_by_path_with_limit_and_paging() {
    let t = tree();
    let r = discover(&t, &["--glob", "src/**/*.rs"], 0);
    assert_eq!(r.mode, "list");
    let paths: Vec<_> = r.results.iter().map(|f| f.path.clone()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert_eq!(r.total, 16);
    let page = discover(&t, &["--glob", "src/**/*.rs", "--limit", "5", "--offset", "5"], 0);
    assert_eq!(page.results.iter().map(|f| f.path.clone()).collect::<Vec<_>>(), paths[5..10]);
    assert_eq!((page.truncated, page.next_offset), (true, Some(10)));
    // The seed's glob tool shape.
    let req = r#"{"pattern": "src/**/*.rs"}"#;
    let env: Envelope<DiscoverResult> = t.cmd("llm-discover").args(["--request", "-"]).stdin(req).json(0);
    assert_eq!(env.result.total, 16);
}

#[test]
fn types_hidden_and_directories() {
    let t = tree();
    let dirs = discover(&t, &["--type", "dir", "--query", "parser"], 0);
    assert_eq!(dirs.results[0].path, "src/parser");
    assert!(dirs.results.iter().all(|f| f.kind == "dir"));
    let py = discover(&t, &["--type", "typescript", "--type", "tsx"], 0);
    assert_eq!(py.total, 3);
    assert!(discover(&t, &["--query", "ci.yml"], 1).results.is_empty());
    let hidden = discover(&t, &["--query", "ci.yml", "--hidden"], 0);
    assert_eq!(hidden.results[0].path, ".github/workflows/ci.yml");
}

#[test]
fn tree_shows_structure_and_counts() {
    let t = TestDir::new();
    t.write("src/main.rs", "fn main() {}\n").write("src/net/mod.rs", "").write("README.md", "hi\n");
    let r = discover(&t, &["--tree"], 0);
    assert_eq!(r.mode, "tree");
    assert_eq!(
        r.tree.as_deref(),
        Some(".\n├── src/\n│   ├── net/\n│   │   └── mod.rs\n│   └── main.rs\n└── README.md\n")
    );
    assert_eq!((r.files, r.directories, r.total_size), (Some(3), Some(2), Some(16)));
    let shallow = discover(&t, &["--tree", "--max-depth", "1"], 0);
    assert_eq!(shallow.tree.as_deref(), Some(".\n├── src/\n└── README.md\n"));
    let (text, _) = t.cmd("llm-discover").args(["--tree"]).expect_exit(0);
    assert!(text.ends_with("2 directories, 3 files, 16 bytes\n"), "{text}");
}

#[test]
fn text_mode_is_one_path_per_line_with_score() {
    let t = tree();
    let (text, _) = t.cmd("llm-discover").args(["--query", "lexer"]).expect_exit(0);
    assert_eq!(text.lines().next(), Some("src/parser/lexer.rs  0.9705 exact_basename"));
}

#[test]
fn bad_queries_and_no_match() {
    let t = tree();
    let e: ErrorResult = t.cmd("llm-discover").args(["--query", "   "]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    let e: ErrorResult = t.cmd("llm-discover").args(["--tree", "--query", "x"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    let none = discover(&t, &["--query", "zzzzqqq"], 1);
    assert_eq!(none.total, 0);
}

#[test]
fn camel_case_queries_find_files_named_with_separators() {
    let t = TestDir::new();
    t.write("src/app.router.js", "")
        .write("lib/app_router.py", "")
        .write("web/AppRouter.ts", "")
        .write("src/apple.rs", "");
    let v: serde_json::Value = t.cmd("llm-discover").args(["--query", "appRouter"]).json(0);
    let mut paths: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    paths.sort();
    assert_eq!(paths, ["lib/app_router.py", "src/app.router.js", "web/AppRouter.ts"]);
}

#[test]
fn operator_only_queries_name_the_right_cause() {
    let t = TestDir::new();
    t.write("a.rs", "");
    for q in ["'", "^$", "^"] {
        let v: serde_json::Value = t.cmd("llm-discover").args(["--query", q]).json(2);
        assert!(v["error"]["message"].as_str().unwrap().contains("no characters to look for"), "{q}: {v}");
    }
    let v: serde_json::Value = t.cmd("llm-discover").args(["--query", "!test"]).json(2);
    assert!(v["error"]["message"].as_str().unwrap().contains("only negated"), "{v}");
}

/// `--changed[=REV]`: search, ast-search and discover walk only the files
/// git says changed (staged or not, untracked included), in a root that
/// may lie inside the repository; against an older revision, more.
#[test]
fn changed_keeps_every_walking_tool_to_what_git_says_changed() {
    let t = TestDir::new();
    t.git(&["init", "-q"]);
    t.write("src/a.rs", "fn a() { needle(); }\n");
    t.write("src/b.rs", "fn b() { needle(); }\n");
    t.write("src/gone.rs", "fn gone() { needle(); }\n");
    t.write(".gitignore", "ignored.rs\n");
    t.git(&["add", "-A"]).git(&["commit", "-qm", "one"]);
    t.write("src/a.rs", "fn a() { needle(); }\nfn a2() {}\n");
    t.git(&["add", "-A"]).git(&["commit", "-qm", "two"]);
    t.write("src/b.rs", "fn b() { needle(); needle(); }\n");
    t.write("src/new.rs", "fn new() { needle(); }\n");
    t.write("ignored.rs", "fn ignored() { needle(); }\n");
    std::fs::remove_file(t.root().join("src/gone.rs")).unwrap();
    let paths = |v: &serde_json::Value, field: &str| -> Vec<String> {
        let mut p: Vec<String> =
            v[field].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap().to_string()).collect();
        p.dedup();
        p
    };
    let search: serde_json::Value = t.cmd("llm-search").args(["-e", "needle", "--changed"]).json(0);
    assert_eq!(paths(&search, "matches"), ["src/b.rs", "src/new.rs"]);
    let found: serde_json::Value = t.cmd("llm-discover").args(["--changed"]).json(0);
    assert_eq!(paths(&found, "results"), ["src/b.rs", "src/new.rs"]);
    let outline: serde_json::Value = t.cmd("llm-ast-search").args(["--symbols", "--changed"]).json(0);
    let named: Vec<&str> = outline["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(named, ["b", "new"], "{outline}");
    // Against the first commit, a.rs changed too; from inside src/, paths are the root's.
    let older: serde_json::Value =
        t.cmd("llm-search").args(["-e", "needle", "--changed=HEAD~1", "--root", "src"]).json(0);
    assert_eq!(paths(&older, "matches"), ["a.rs", "b.rs", "new.rs"]);
    // Not a revision: a clear error.
    let v: serde_json::Value = t.cmd("llm-search").args(["-e", "needle", "--changed=nope"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
}
