//! aide mcp's search index (`AIDE_INDEX=always`): after every kind of
//! change to the tree, a search through the index answers byte for byte as
//! llm-search's walk of the tree does, and `aide doctor` shows the index
//! and the searches it answered.

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};
use std::path::Path;

/// The searches held to a walk's answer: literals, case, alternation, a
/// class, fixed strings, a pattern too short to index, paths, a page in
/// path order, files and counts.
fn searches() -> Vec<Value> {
    vec![
        json!({ "pattern": "alpha" }),
        json!({ "pattern": "BETA", "ignore_case": true }),
        json!({ "pattern": "gam+a|delta" }),
        json!({ "pattern": "fn [a-z_]+\\(" }),
        json!({ "pattern": "a.b", "fixed_strings": true }),
        json!({ "pattern": "a" }),
        json!({ "pattern": "alpha", "paths": ["src"] }),
        json!({ "pattern": "alpha", "limit": 2 }),
        json!({ "pattern": "alpha", "mode": "files" }),
        json!({ "pattern": "alpha|beta", "mode": "count" }),
        json!({ "pattern": "Ünï", "ignore_case": true }),
    ]
}

/// A document without what differs from run to run.
fn settled(mut doc: Value) -> Value {
    if let Some(o) = doc.as_object_mut() {
        o.remove("execution_id");
        // What the walk skipped stays: the index must say it too.
        if let Some(stats) = o.get_mut("stats").and_then(Value::as_object_mut) {
            stats.retain(|k, _| k == "skipped");
        }
    }
    doc
}

fn walked(t: &TestDir, search: &Value) -> Value {
    let out = t.cmd("llm-search").args(["--json", "--request", "-"]).stdin(search.to_string()).output();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    settled(serde_json::from_slice(&out.stdout).expect("llm-search's json"))
}

fn indexed(mcp: &mut McpClient, search: &Value) -> Value {
    let result = mcp.call("search", search.clone());
    settled(result["structuredContent"].clone())
}

fn tree() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write(".gitignore", "ignored/\n*.log\n");
    t.write("ignored/skip.txt", "alpha in an ignored folder\n");
    t.write("debug.log", "alpha in a log\n");
    t.write(".hidden/h.txt", "alpha hidden\n");
    t.write("src/main.rs", "fn main() {\n    let alpha = beta();\n}\n\nfn beta() -> u32 { 42 }\n");
    t.write("src/crlf.rs", "fn crlf_one() {}\r\nalpha\r\n");
    t.write("docs/unicode.md", "Ünïcödé alpha wörds\n日本語 beta テキスト\n");
    t.write("data/latin1.txt", b"caf\xe9 alpha na\xefve\n\xff\xfe beta bytes\n".as_slice());
    t.write("data/binary.bin", b"alpha\x00\x01\x02beta".as_slice());
    t.write("dotted.txt", "a.b and axb\n");
    for i in 0..12 {
        t.write(&format!("many/f{i:02}.txt"), format!("line {i} gamma\nalpha {i}\n"));
    }
    // Links a walk skips and says so: one whose target comes later, at the root.
    std::os::unix::fs::symlink("../top.txt", t.root().join("many/to-top")).unwrap();
    std::os::unix::fs::symlink("../dotted.txt", t.root().join("src/to-dotted")).unwrap();
    t
}

/// A change made to the tree at its root.
type Change = Box<dyn Fn(&Path)>;

/// The changes an agent makes: edits (one of the same size at once),
/// files and folders made, deleted and renamed, an ignore file changed.
fn changes() -> Vec<(&'static str, Change)> {
    let write = |rel: &'static str, text: &'static str| -> Change {
        Box::new(move |root: &Path| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        })
    };
    vec![
        ("an edit", write("src/main.rs", "fn main() {\n    delta();\n}\n")),
        ("an edit of the same size at once", write("src/main.rs", "fn main() {\n    alpha();\n}\n")),
        ("a new file", write("src/new.rs", "fn alpha_new() {}\n")),
        ("a new folder", write("fresh/deep/x.txt", "gamma alpha\n")),
        ("a new file at the root", write("top.txt", "alpha at the top\n")),
        ("a new file the ignore file leaves out", write("src/trace.log", "alpha in a new log\n")),
        ("a deletion", Box::new(|root: &Path| std::fs::remove_file(root.join("many/f03.txt")).unwrap())),
        (
            "a rename",
            Box::new(|root: &Path| std::fs::rename(root.join("many/f04.txt"), root.join("src/moved.txt")).unwrap()),
        ),
        ("a folder removed", Box::new(|root: &Path| std::fs::remove_dir_all(root.join("fresh")).unwrap())),
        (
            "a link made",
            Box::new(|root: &Path| std::os::unix::fs::symlink("main.rs", root.join("src/to-main")).unwrap()),
        ),
        ("a link removed", Box::new(|root: &Path| std::fs::remove_file(root.join("src/to-dotted")).unwrap())),
        ("an ignore file changed", write(".gitignore", "*.log\n")),
        ("a file made binary", write("dotted.txt", "a.b\u{0}alpha\n")),
        ("git's exclude file changed", write(".git/info/exclude", "dotted.txt\n")),
    ]
}

#[test]
fn an_indexed_search_answers_as_a_walk_after_every_kind_of_change() {
    let t = tree();
    let index = Path::new("always");
    let aide = aide_tests::bin_dir().join("aide");
    let mut mcp =
        McpClient::start_with_env(&aide, t.root(), t.home(), &[], &[("AIDE_INDEX", index)]).handshake(json!({}));
    let mut answered = 0;
    let mut check = |mcp: &mut McpClient, after: &str| {
        for search in searches() {
            assert_eq!(indexed(mcp, &search), walked(&t, &search), "{search} after {after}");
            answered += 1;
        }
    };
    check(&mut mcp, "the first search");
    for (what, change) in changes() {
        change(t.root());
        check(&mut mcp, what);
    }
    // The index answered every search: aide doctor says so while the server runs.
    let detail = indexes_held(&t);
    assert!(detail.contains("ready") && searches_answered(&detail) == answered, "{answered} searches: {detail}");
}

/// What `aide doctor` says of the indexes held now.
fn indexes_held(t: &TestDir) -> String {
    let doctor: Value = t.cmd("aide").arg("doctor").json(0);
    let checks = doctor["result"]["checks"].as_array().or(doctor["checks"].as_array()).cloned().unwrap_or_default();
    let detail = checks
        .iter()
        .find(|c| c["name"] == "search_indexes")
        .map(|c| c["detail"].as_str().unwrap_or_default().to_string());
    detail.unwrap_or_else(|| panic!("no search_indexes check: {doctor}"))
}

/// The searches the indexes answered, summed (one index a root and paths:
/// the searches of `src` have their own).
fn searches_answered(detail: &str) -> usize {
    detail
        .split("; ")
        .filter_map(|held| held.split(", ").find_map(|part| part.strip_suffix(" searches answered")))
        .map(|n| n.parse::<usize>().unwrap_or(0))
        .sum()
}

fn cli_search(t: &TestDir, index: &str, search: &Value) -> Value {
    let out = t
        .cmd("llm-search")
        .env("AIDE_INDEX", index)
        .args(["--json", "--request", "-"])
        .stdin(search.to_string())
        .output();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    settled(serde_json::from_slice(&out.stdout).expect("llm-search's json"))
}

/// The command line (`AIDE_INDEX=always`) asks the root's keeper which
/// files can match, and answers as the walk does after every change.
#[test]
fn the_command_line_asks_the_roots_keeper_and_answers_as_a_walk() {
    let t = tree();
    let mut answered = 0;
    let mut check = |after: &str| {
        for search in searches() {
            assert_eq!(cli_search(&t, "always", &search), cli_search(&t, "off", &search), "{search} after {after}");
            answered += 1;
        }
    };
    check("the first search");
    for (what, change) in changes() {
        change(t.root());
        check(what);
    }
    let detail = indexes_held(&t);
    assert!(detail.contains("ready") && searches_answered(&detail) == answered, "{answered} searches: {detail}");
}

/// By default a search that walks a tree of 2,000 files or more starts
/// the root's keeper, whose index answers the searches after it.
#[test]
fn a_large_tree_gets_a_keeper_after_its_first_search() {
    let t = TestDir::new();
    for i in 0..2_000 {
        t.write(&format!("d{:02}/f{i:04}.txt", i % 40), format!("line {i}\n"));
    }
    t.write("d07/target.txt", "needle here\n");
    let search = json!({ "pattern": "needle" });
    let walked = cli_search(&t, "off", &search);
    // Each search that walks starts the keeper if none runs (one that could
    // not start in time, on a busy machine, is started by the next).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        assert_eq!(cli_search(&t, "auto", &search), walked, "a search while the index is built");
        if indexes_held(&t).contains("ready") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no index after 120 s: {}", indexes_held(&t));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let before = searches_answered(&indexes_held(&t));
    t.write("d08/new.txt", "a needle too\n");
    let walked = cli_search(&t, "off", &search);
    assert_eq!(walked["files_searched"], 2_002);
    assert_eq!(cli_search(&t, "auto", &search), walked, "through the keeper's index");
    assert_eq!(searches_answered(&indexes_held(&t)), before + 1, "{}", indexes_held(&t));
}
