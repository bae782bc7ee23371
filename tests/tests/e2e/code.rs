//! llm-code against outside oracles and hand-built trees: its Python
//! cyclomatic numbers equal radon's on real modules of the standard
//! library, function by function; `aide mcp`'s code_* tools answer what
//! the command line does.

use std::collections::BTreeMap;
use std::process::Command;

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

/// `llm-code ARGS --json` in the tree, with its exit status checked.
pub(crate) fn code(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-code").args(args).json(code)
}

/// Standard-library modules of the Python that runs radon, found at run
/// time: (name in the tree, text).
fn stdlib_modules() -> Vec<(String, String)> {
    stdlib_modules_named(&[
        "json/decoder.py",
        "json/encoder.py",
        "argparse.py",
        "textwrap.py",
        "shlex.py",
        "csv.py",
        "configparser.py",
        "difflib.py",
        "tarfile.py",
        "email/_header_value_parser.py",
    ])
}

/// The standard library's modules of these paths (those this Python has),
/// each named by its path with `/` as `_`.
pub(crate) fn stdlib_modules_named(wanted: &[&str]) -> Vec<(String, String)> {
    let out = Command::new("python3")
        .args(["-c", "import os, json; print(os.path.dirname(os.path.dirname(json.__file__)))"])
        .output()
        .expect("python3 runs");
    let lib = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let modules: Vec<(String, String)> = wanted
        .iter()
        .filter_map(|rel| {
            let text = std::fs::read_to_string(lib.join(rel)).ok()?;
            Some((rel.replace('/', "_"), text))
        })
        .collect();
    assert!(modules.len() * 2 > wanted.len(), "too few standard-library modules found under {}", lib.display());
    modules
}

/// Every function, method and closure radon reports in a file, by (name,
/// line), with its complexity.
fn radon_functions(blocks: &Value, out: &mut BTreeMap<(String, u64), u64>) {
    for block in blocks.as_array().into_iter().flatten() {
        if matches!(block["type"].as_str(), Some("function" | "method")) {
            let key = (block["name"].as_str().unwrap().to_string(), block["lineno"].as_u64().unwrap());
            out.insert(key, block["complexity"].as_u64().unwrap());
        }
        for nested in ["closures", "methods", "inner_classes"] {
            radon_functions(&block[nested], out);
        }
    }
}

// Long because: one oracle comparison, the modules copied, radon's blocks read, and every function held to them.
#[test]
fn python_cyclomatic_complexity_equals_radons_on_the_standard_library() {
    if !aide_tests::oracle("radon", "llm-code metrics against radon cc") {
        return;
    }
    let t = TestDir::new();
    let modules = stdlib_modules();
    for (name, text) in &modules {
        t.write(name, text);
    }
    let metrics = code(&t, &["metrics"], 0);
    let mut ours: BTreeMap<(String, String, u64), u64> = BTreeMap::new();
    for f in metrics["functions"].as_array().unwrap() {
        let key = (
            f["path"].as_str().unwrap().to_string(),
            f["name"].as_str().unwrap().to_string(),
            f["line"].as_u64().unwrap(),
        );
        ours.insert(key, f["cyclomatic"].as_u64().unwrap());
    }
    let mut compared = 0;
    for (name, _) in &modules {
        let out = Command::new("radon").args(["cc", "-j", "-s", name]).current_dir(t.root()).output().unwrap();
        assert!(out.status.success(), "radon cc {name}: {}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut theirs = BTreeMap::new();
        radon_functions(&report[name.as_str()], &mut theirs);
        assert!(!theirs.is_empty(), "radon found no function in {name}: {report}");
        for ((function, line), complexity) in theirs {
            let key = (name.clone(), function.clone(), line);
            assert_eq!(ours.get(&key), Some(&complexity), "{name}:{line} {function}: radon says {complexity}");
            compared += 1;
        }
    }
    assert!(compared > 500, "only {compared} functions compared");
    // Every file is totalled, in path order.
    let paths: Vec<&str> =
        metrics["file_totals"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert_eq!(paths.len(), modules.len());
    // A file's cyclomatic is its function records' summed, as radon's blocks.
    for total in metrics["file_totals"].as_array().unwrap() {
        let records = metrics["functions"].as_array().unwrap().iter().filter(|f| f["path"] == total["path"]);
        let (count, sum) = records.fold((0, 0), |(n, s), f| (n + 1, s + f["cyclomatic"].as_u64().unwrap()));
        assert_eq!((total["functions"].as_u64(), total["cyclomatic"].as_u64()), (Some(count), Some(sum)), "{total}");
        assert!(total["module_cyclomatic"].as_u64().unwrap() >= 1, "{total}");
    }
}

/// A small tree of several languages, the same measures from the command
/// line and from `aide mcp`.
#[test]
fn metrics_sort_filter_page_and_answer_the_same_over_mcp() {
    let t = TestDir::new();
    t.write(
        "src/a.py",
        "def simple(x):\n    return x\n\ndef branchy(a, b):\n    if a and b:\n        for x in a:\n            if x:\n                return x\n    return None\n",
    );
    t.write(
        "src/b.rs",
        "fn f(v: Option<u8>) -> u8 {\n    match v {\n        Some(x) if x > 1 => x,\n        _ => 0,\n    }\n}\n",
    );
    t.write("src/c.go", "package c\n\nfunc G(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n");
    let all = code(&t, &["metrics"], 0);
    let names: Vec<&str> =
        all["functions"].as_array().unwrap().iter().map(|f| f["name_path"].as_str().unwrap()).collect();
    assert_eq!(names, ["simple", "branchy", "f", "G"], "{all}");
    let branchy = &all["functions"][1];
    assert_eq!(
        (branchy["cyclomatic"].as_u64(), branchy["cognitive"].as_u64(), branchy["nesting"].as_u64()),
        (Some(5), Some(7), Some(3))
    );
    assert_eq!(branchy["parameters"], 2);
    // Rust: 1 + two arms + a guard; Go: 1 + if.
    assert_eq!(
        (all["functions"][2]["cyclomatic"].as_u64(), all["functions"][3]["cyclomatic"].as_u64()),
        (Some(4), Some(2))
    );

    let top = code(&t, &["metrics", "--sort", "cyclomatic", "--limit", "2"], 0);
    let top_names: Vec<&str> =
        top["functions"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(top_names, ["branchy", "f"], "{top}");
    assert_eq!((top["total"].as_u64(), top["next_offset"].as_u64()), (Some(4), Some(2)));
    let complex = code(&t, &["metrics", "--min-cyclomatic", "3", "src"], 0);
    assert_eq!(complex["total"], 2, "{complex}");
    // Nothing complex enough: exit 1, as grep.
    code(&t, &["metrics", "--min-cyclomatic", "50"], 1);

    let mut client = McpClient::initialized(t.root(), t.home(), &["--structured", "full"], json!({}));
    let called = client.call("code_metrics", json!({ "sort": "cyclomatic", "limit": 2 }));
    let over_mcp = &called["structuredContent"];
    assert_eq!(over_mcp["functions"], top["functions"], "{called}");
    assert_eq!(over_mcp["file_totals"], top["file_totals"]);
}

/// The text of a place of a duplicate, read from the tree.
fn place_text(t: &TestDir, place: &Value) -> String {
    let text = std::fs::read(t.root().join(place["path"].as_str().unwrap())).unwrap();
    let (start, end) = (place["byte_start"].as_u64().unwrap() as usize, place["byte_end"].as_u64().unwrap() as usize);
    String::from_utf8_lossy(&text[start..end]).into_owned()
}

// Long because: one planted copy, its two places read back byte for byte, a third joining the clone, and the unrelated code around it checked absent.
#[test]
fn duplicates_find_a_renamed_copy_with_both_places_and_nothing_unrelated() {
    let t = TestDir::new();
    let original = "def summarise(orders, threshold):\n    total = 0\n    count = 0\n    for order in orders:\n        if order.amount > threshold and not order.cancelled:\n            total += order.amount * 2\n            count += 1\n        elif order.amount < 0:\n            raise ValueError(\"negative amount\")\n    return {\"total\": total, \"count\": count}\n";
    // The same structure, every name and literal changed, a comment added.
    let copy = "def tally(items, limit):\n    acc = 0\n    n = 0\n    for it in items:  # each one\n        if it.value > limit and not it.void:\n            acc += it.value * 3\n            n += 1\n        elif it.value < 0:\n            raise KeyError(\"bad value\")\n    return {\"sum\": acc, \"n\": n}\n";
    let unrelated = "import sys\n\n\ndef main(argv):\n    parser = make_parser()\n    while argv:\n        arg = argv.pop()\n        print(arg, file=sys.stderr)\n    with open(\"x\") as f:\n        return [line.strip() for line in f if line]\n";
    t.write("shop/orders.py", format!("import os\n\n{original}"));
    t.write(
        "shop/legacy/tally.py",
        format!("# old code\nVERSION = 2\n\n\n{copy}\n\ndef other():\n    return VERSION\n"),
    );
    t.write("tools/cli.py", unrelated);
    t.write("src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n");
    let found = code(&t, &["duplicates", "--min-tokens", "40", "--min-lines", "5"], 0);
    let clones = found["duplicates"].as_array().unwrap();
    assert_eq!(clones.len(), 1, "{found}");
    let clone = &clones[0];
    let places = clone["places"].as_array().unwrap();
    assert_eq!(places.len(), 2, "{clone}");
    let (first, second) = (&places[0], &places[1]);
    assert_eq!(first["path"], "shop/legacy/tally.py", "path order: {clone}");
    assert_eq!(second["path"], "shop/orders.py");
    assert_eq!((first["line"].as_u64(), first["end_line"].as_u64()), (Some(5), Some(14)));
    assert_eq!((second["line"].as_u64(), second["end_line"].as_u64()), (Some(3), Some(12)));
    assert_eq!(place_text(&t, first), copy.trim_end());
    assert_eq!(place_text(&t, second), original.trim_end());
    assert_eq!(clone["lines"], 10);
    assert!(clone["tokens"].as_u64().unwrap() >= 40);
    let checksum = |p: &str| aide_core::checksum::sha256_hex(&std::fs::read(t.root().join(p)).unwrap());
    assert_eq!(second["checksum"].as_str().unwrap(), checksum("shop/orders.py"));

    // A third copy joins the same clone: one record of three places, not
    // three pairs.
    t.write("tools/again.py", format!("\n{}", copy.replace("tally", "again")));
    let three = code(&t, &["duplicates", "--min-tokens", "40", "--min-lines", "5"], 0);
    assert_eq!(three["duplicates"].as_array().map(Vec::len), Some(1), "{three}");
    let paths: Vec<&str> =
        three["duplicates"][0]["places"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["shop/legacy/tally.py", "shop/orders.py", "tools/again.py"], "{three}");
    std::fs::remove_file(t.root().join("tools/again.py")).unwrap();

    // Above the copy's size, nothing: exit 1. Below the floor: refused.
    code(&t, &["duplicates", "--min-tokens", "500"], 1);
    let refused = t.cmd("llm-code").args(["duplicates", "--min-tokens", "3"]).json::<Value>(2);
    assert_eq!(refused["error"]["code"], "invalid_arguments", "{refused}");

    let mut client = McpClient::initialized(t.root(), t.home(), &["--structured", "full"], json!({}));
    let called = client.call("code_duplicates", json!({ "min_tokens": 40, "min_lines": 5 }));
    assert_eq!(called["structuredContent"]["duplicates"], found["duplicates"], "{called}");
}
