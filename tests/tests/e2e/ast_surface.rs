//! The outline of a folder or of several files: by default its exported
//! surface (each file's exported top-level names, by kind, with their start
//! lines); one file, `--all`, `--kind`, `--name` and `--depth` list every
//! symbol; JSON holds every symbol, top-level ones marked `exported`. And
//! the exported names held against ast-grep's where the two rules agree.

use std::collections::BTreeSet;

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize)]
struct Outline {
    symbols: Vec<Sym>,
    total: usize,
}

#[derive(Debug, Deserialize)]
struct Sym {
    path: String,
    name_path: String,
    depth: usize,
    exported: Option<bool>,
}

fn tree() -> TestDir {
    let t = TestDir::new();
    t.write(
        "src/lib.rs",
        "pub struct Agent;\n\nimpl Agent {\n    pub fn run(&self) {}\n}\n\npub fn helper() {}\npub fn helper2() {}\nfn private() {}\npub(crate) const LIMIT: u32 = 3;\n",
    );
    t.write("src/inner.rs", "fn only_private() {}\n");
    t.write("py/models.py", "class User:\n    def name(self):\n        return 'u'\n\ndef _hidden():\n    pass\n");
    t.write("web/app.ts", "export function start() {}\nfunction local() {}\nexport class Server {}\n");
    t
}

const SURFACE: &str = "py/models.py\n  class User:1\nsrc/lib.rs\n  struct Agent:1\n  fn helper:7 helper2:8\n  const LIMIT:10\nweb/app.ts\n  fn start:1\n  class Server:3\n(exported top-level symbols only: 5 other top-level symbols and members not shown; --all lists every symbol)\n";

#[test]
fn a_folder_outlines_to_its_exported_surface_a_file_to_every_symbol() {
    let t = tree();
    let (text, _) = t.cmd("llm-ast-search").expect_exit(0);
    assert_eq!(text, SURFACE);
    // Several files are a surface too; a file with nothing exported is left out, path and all.
    let (two, _) = t.cmd("llm-ast-search").args(["src/lib.rs", "src/inner.rs"]).expect_exit(0);
    assert_eq!(
        two,
        "src/lib.rs\n  struct Agent:1\n  fn helper:7 helper2:8\n  const LIMIT:10\n(exported top-level symbols only: 3 other top-level symbols and members not shown; --all lists every symbol)\n"
    );
    // One file: every symbol, as before.
    let (one, _) = t.cmd("llm-ast-search").arg("src/lib.rs").expect_exit(0);
    assert_eq!(
        one,
        "src/lib.rs\n  Struct Agent [1-1]\n  Impl impl Agent [3-5]\n    Method impl Agent/run [4-4]\n  Function helper [7-7]\n  Function helper2 [8-8]\n  Function private [9-9]\n  Constant LIMIT [10-10]\n"
    );
    // Asking for symbols lists them all, exported or not.
    let (all, _) = t.cmd("llm-ast-search").args(["--all", "src"]).expect_exit(0);
    assert!(all.contains("Function private [9-9]") && all.contains("src/inner.rs\n  Function only_private"), "{all}");
    let (functions, _) = t.cmd("llm-ast-search").args(["--kind", "function", "src"]).expect_exit(0);
    assert_eq!(
        functions,
        "src/inner.rs\n  Function only_private [1-1]\nsrc/lib.rs\n  Function helper [7-7]\n  Function helper2 [8-8]\n  Function private [9-9]\n"
    );
    let (top, _) = t.cmd("llm-ast-search").args(["--depth", "1", "py"]).expect_exit(0);
    assert_eq!(top, "py/models.py\n  Class User [1-3]\n  Function _hidden [5-6]\n");
    let (named, _) = t.cmd("llm-ast-search").args(["--name", "private"]).expect_exit(0);
    // An exact name is the best match: `only_private` only contains it.
    assert_eq!(named, "src/lib.rs\n  Function private [9-9]\n");
    // `--compact` is a way of writing every symbol: a folder stays a surface unless `--all`.
    let (compact, _) = t.cmd("llm-ast-search").arg("--compact").expect_exit(0);
    assert_eq!(compact, SURFACE);
    let (compact_all, _) = t.cmd("llm-ast-search").args(["--compact", "--all", "py"]).expect_exit(0);
    assert_eq!(compact_all, "py/models.py\n  class User:1-3 {name:2}\n  fn _hidden:5\n");
    // Paged by symbols, as the JSON is: the surface of the page, the rest after it.
    let (page, _) = t.cmd("llm-ast-search").args(["--limit", "3"]).expect_exit(0);
    assert_eq!(
        page,
        "py/models.py\n  class User:1\n(exported top-level symbols only: 1 other top-level symbol and members not shown; --all lists every symbol)\n… at least 1 more (--offset 3)\n"
    );
}

#[test]
fn the_json_holds_every_symbol_top_level_ones_marked_exported() {
    let t = tree();
    let outline: Outline = t.cmd("llm-ast-search").json(0);
    assert_eq!(outline.total, 14);
    assert_eq!(outline.symbols.len(), 14);
    let exported: Vec<(&str, &str)> = outline
        .symbols
        .iter()
        .filter(|s| s.exported == Some(true))
        .map(|s| (s.path.as_str(), s.name_path.as_str()))
        .collect();
    assert_eq!(
        exported,
        [
            ("py/models.py", "User"),
            ("src/lib.rs", "Agent"),
            ("src/lib.rs", "helper"),
            ("src/lib.rs", "helper2"),
            ("src/lib.rs", "LIMIT"),
            ("web/app.ts", "start"),
            ("web/app.ts", "Server"),
        ]
    );
    for s in &outline.symbols {
        assert_eq!(s.exported.is_some(), s.depth == 1, "top-level symbols say, nested ones do not: {s:?}");
    }
    // `--all` changes the text only.
    let all: serde_json::Value = t.cmd("llm-ast-search").arg("--all").json(0);
    let plain: serde_json::Value = t.cmd("llm-ast-search").json(0);
    assert_eq!(all["symbols"], plain["symbols"]);
}

/// The surface walks the top level alone, yet misses nothing it shows: a
/// C++ namespace's exported members, the items of a Rust macro body at the
/// top level; and what it leaves out is counted the same when paging makes
/// it walk every symbol.
#[test]
fn the_surface_keeps_namespace_members_and_macro_items_and_counts_top_level_symbols() {
    let t = TestDir::new();
    t.write(
        "net.cpp",
        "namespace net {\nint connect();\nstatic int hidden() { return 0; }\n}\nstatic int local = 1;\n",
    );
    t.write(
        "rt.rs",
        "macro_rules! cfg_rt { ($($i:item)*) => { $($i)* } }\ncfg_rt! {\n    pub fn spawn() {}\n    fn quiet() {}\n}\npub fn run() {\n    pub struct Inner;\n}\n",
    );
    let (text, _) = t.cmd("llm-ast-search").expect_exit(0);
    assert_eq!(
        text,
        "net.cpp\n  decl net/connect:2\nrt.rs\n  fn spawn:3 run:6\n(exported top-level symbols only: 4 other top-level symbols and members not shown; --all lists every symbol)\n"
    );
    // Paging walks every symbol; the note counts the same top-level ones.
    let (paged, _) = t.cmd("llm-ast-search").args(["--limit", "100"]).expect_exit(0);
    assert_eq!(paged, text);
}

#[test]
fn over_mcp_the_text_block_is_the_surface_and_the_structured_result_every_symbol() {
    let t = tree();
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let result = client.call("ast_search", json!({ "symbols": true }));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, SURFACE.replace("--all lists", "all: true lists"), "{result:#}");
    // Compact structured content leaves `false` out: absent is not exported there.
    let structured = result["structuredContent"].to_string();
    assert!(structured.contains("only_private") && structured.contains("\"exported\""), "{structured}");
    // One file: the compact outline of every symbol.
    let one = client.call("ast_search", json!({ "symbols": true, "paths": ["src/lib.rs"] }));
    assert_eq!(
        one["content"][0]["text"],
        "src/lib.rs\n  struct Agent:1\n  impl Agent:3-5 {run:4}\n  fn helper:7  fn helper2:8  fn private:9  const LIMIT:10\n"
    );
}

/// The exported top-level names of a Rust, a TypeScript and a Java file,
/// against `ast-grep outline --items exports` where the two rules agree:
/// Rust's functions, structs, enums, traits and modules with a `pub…`
/// visibility, TypeScript's exported functions, classes, interfaces, type
/// aliases, enums and constants, Java's public types. By design they differ
/// elsewhere: ast-grep lists Rust's `pub use` and TypeScript's `export { … }`
/// and `export … from` as items (they define nothing: not outline symbols),
/// lists an impl's `pub` methods as items (ours are members of their impl),
/// and has no rule for Rust's type aliases and macros; it counts every Go
/// and Python top-level name and every C and C++ function exported, where
/// ours follows each language's rule (a capital letter, `_` and `__all__`,
/// `static`).
#[test]
fn exported_names_are_ast_greps_where_the_rules_agree() {
    if !aide_tests::oracle("ast-grep", "the outline's exported names against ast-grep outline --items exports") {
        return;
    }
    let t = TestDir::new();
    t.write(
        "lib.rs",
        "pub fn open() {}\nfn close() {}\npub(crate) fn shared() {}\npub struct Door;\nstruct Wall;\npub enum State { Open }\npub trait Lock {}\npub mod keys {}\nmod hidden {}\nimpl Door { pub fn knock(&self) {} }\n",
    );
    t.write(
        "app.ts",
        "export function start() {}\nfunction local() {}\nexport class Server {}\nclass Helper {}\nexport interface Options {}\ninterface Internal {}\nexport type Id = string;\nexport enum Mode { A }\nexport const LIMIT = 3;\nconst hidden = 1;\n",
    );
    t.write(
        "Shop.java",
        "public class Shop {\n    public void sell() {}\n}\n\nclass Stock {}\n\ninterface Ledger {}\n",
    );
    let ours: Outline = t.cmd("llm-ast-search").json(0);
    let ours: BTreeSet<(String, String)> =
        ours.symbols.into_iter().filter(|s| s.exported == Some(true)).map(|s| (s.path, s.name_path)).collect();
    let out = std::process::Command::new("ast-grep")
        .args(["outline", "--items", "exports", "--json=compact", "."])
        .current_dir(t.root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut theirs = BTreeSet::new();
    for file in files.as_array().unwrap() {
        let path = file["path"].as_str().unwrap().trim_start_matches("./").to_string();
        for item in file["items"].as_array().unwrap() {
            theirs.insert((path.clone(), item["name"].as_str().unwrap().to_string()));
        }
    }
    // ast-grep 0.51 also lists an impl's `pub` methods as items of their
    // own; ours are their impl's members (JSON depth 2, `--all` in text).
    let only_theirs: Vec<_> = theirs.difference(&ours).collect();
    assert_eq!(only_theirs, [&("lib.rs".to_string(), "knock".to_string())], "{theirs:?}");
    assert!(ours.is_subset(&theirs), "{ours:?}\n{theirs:?}");
    assert_eq!(ours.len(), 13, "{ours:?}");
}
