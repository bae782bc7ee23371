//! Issue 47, item 3 ("one name path"): the name path the outline prints is
//! the one llm-transform takes. On real code — tokio's `cfg_*!`-wrapped
//! runtime builder and globset (Cargo's registry), Go's flag package,
//! Python's email package — and small files written here (a tokio-like
//! macro case, Python, TypeScript, Java, C++), EVERY symbol the outline
//! prints (`llm-ast-search FILE --json`) is asked for by that name path,
//! `kind` left out:
//!
//! * `replace_block` with its own text (and `expected_old_block`) finds it
//!   and changes nothing;
//! * a name path printed more than once is `ambiguous`, its candidates
//!   listed with their kinds and lines; `line_hint` then picks each one;
//! * `replace_signature` of every function or method with a body replaces
//!   exactly the head the outline shows as its signature, up to its body,
//!   and nothing of the body; one without a body is refused as such;
//! * `insert_before_block` lands above the symbol (and its attached
//!   comments), below whatever comes before it; `patch` `within` it looks
//!   inside it; `rename_symbol` of a sample renames that symbol;
//! * `aide mcp`'s `ast_search` prints the same name paths, and its
//!   `transform` takes them the same way (a sample).
//!
//! All dry runs. Before the fix, `(*Command)/Name` was `no_match`, a method
//! of a `cfg_*!` body had "no body", and every block operation wanted `kind`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use aide_tests::mcp::McpClient;
use aide_tests::trees::registry_crate;
use aide_tests::{TestDir, oracle};
use serde::Deserialize;
use serde_json::{Value, json};

/// A symbol as the outline prints it.
#[derive(Debug, Clone, Deserialize)]
struct Sym {
    name: String,
    name_path: String,
    kind: String,
    node_kind: String,
    parent: Option<String>,
    line: usize,
    end_line: usize,
    byte_start: usize,
    byte_end: usize,
    signature: String,
}

#[derive(Debug, Deserialize)]
struct Outline {
    symbols: Vec<Sym>,
}

/// What a dry run would do.
#[derive(Debug, Deserialize)]
struct Transformed {
    operations: Vec<OpReport>,
    files: Vec<FileChange>,
    #[serde(default)]
    renames: Vec<Value>,
}

#[derive(Debug, Deserialize)]
struct OpReport {
    status: String,
    line: Option<usize>,
}

#[derive(Debug, Deserialize)]
struct FileChange {
    sites: Vec<Site>,
}

#[derive(Debug, Deserialize)]
struct Site {
    before: SiteSpan,
}

#[derive(Debug, Deserialize)]
struct SiteSpan {
    byte_start: usize,
    byte_end: usize,
}

/// One file of the tree under test.
struct Source {
    rel: String,
    bytes: Vec<u8>,
}

impl Source {
    fn python(&self) -> bool {
        self.rel.ends_with(".py")
    }

    fn text(&self, s: &Sym) -> String {
        String::from_utf8(self.bytes[s.byte_start..s.byte_end].to_vec()).unwrap()
    }

    /// The 1-based line that starts at byte `at`, if one does.
    fn line_starting_at(&self, at: usize) -> Option<usize> {
        (at == 0 || self.bytes.get(at.wrapping_sub(1)) == Some(&b'\n'))
            .then(|| 1 + self.bytes[..at].iter().filter(|&&b| b == b'\n').count())
    }
}

/// The outline's nodes that declare a function without a body.
const BODILESS: &[&str] = &[
    "method_signature",
    "function_signature",
    "abstract_method_signature",
    "method_elem",
    "function_signature_item",
    "annotation_type_element_declaration",
];

/// Whether the test expects `s` to have a body a head can be cut from: a
/// Python function, or a function or method written with braces.
fn has_body(src: &Source, s: &Sym) -> bool {
    matches!(s.kind.as_str(), "Function" | "Method")
        && !BODILESS.contains(&s.node_kind.as_str())
        && (src.python() || src.text(s).trim_end().ends_with('}'))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs a dry-run request of `operations`: the result, or the error object.
fn transform(t: &TestDir, operations: &[Value]) -> Result<Transformed, Value> {
    let request = json!({ "operations": operations, "dry_run": true });
    let out = t.cmd("llm-transform").args(["--request", "-", "--json"]).stdin(request.to_string()).output();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    match out.status.code() {
        Some(0) => Ok(serde_json::from_value(v).unwrap()),
        Some(2 | 3) => Err(v["error"].clone()),
        other => panic!("llm-transform exited {other:?}: {v}"),
    }
}

/// A batch that fails is retried one operation at a time, so the message
/// names every operation refused, not only the first.
fn batch(t: &TestDir, what: &str, ops: &[Value]) -> Transformed {
    transform(t, ops).unwrap_or_else(|first| {
        let refused: Vec<String> = ops
            .iter()
            .filter_map(|op| transform(t, std::slice::from_ref(op)).err().map(|e| format!("{op}\n  -> {e}")))
            .collect();
        panic!("{what}: {} of {} refused (first: {first})\n{}", refused.len(), ops.len(), refused.join("\n"))
    })
}

fn outline(t: &TestDir, rel: &str) -> Vec<Sym> {
    let out: Outline = t.cmd("llm-ast-search").arg(rel).json(0);
    assert!(!out.symbols.is_empty(), "{rel}: no symbols");
    out.symbols
}

/// How many symbols of the file print each name path.
fn counts(symbols: &[Sym]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for s in symbols {
        *counts.entry(s.name_path.as_str()).or_insert(0) += 1;
    }
    counts
}

/// An operation on `s` by its printed name path: no kind, and a line only
/// when the name path is printed more than once.
fn op_on(src: &Source, s: &Sym, dup: bool, op: &str, fields: Value) -> Value {
    let mut v = json!({ "op": op, "path": src.rel, "name": s.name_path });
    if dup {
        v["line_hint"] = json!(s.line);
    }
    v.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    v
}

/// Every symbol's own text put back: found, and nothing changes.
fn replace_block_finds_every_symbol(t: &TestDir, src: &Source, symbols: &[Sym]) {
    let dup = counts(symbols);
    let ops: Vec<Value> = symbols
        .iter()
        .map(|s| {
            let text = src.text(s);
            op_on(
                src,
                s,
                dup[s.name_path.as_str()] > 1,
                "replace_block",
                json!({ "new_block": text, "expected_old_block": text }),
            )
        })
        .collect();
    let done = batch(t, &format!("{}: replace_block by name path", src.rel), &ops);
    for (s, r) in symbols.iter().zip(&done.operations) {
        assert_eq!(
            (r.line, r.status.as_str()),
            (Some(s.line), "no_op"),
            "{}: {} replaced by its own text",
            src.rel,
            s.name_path
        );
    }
}

/// A name path printed twice is refused with each candidate's kind and line.
fn duplicates_are_ambiguous_with_kinds_and_lines(t: &TestDir, src: &Source, symbols: &[Sym]) -> usize {
    let mut groups = 0;
    for (name_path, n) in counts(symbols).into_iter().filter(|&(_, n)| n > 1) {
        groups += 1;
        let op = json!({ "op": "replace_block", "path": src.rel, "name": name_path, "new_block": "x" });
        let error =
            transform(t, &[op]).err().unwrap_or_else(|| panic!("{}: `{name_path}` ({n} symbols) was taken", src.rel));
        assert_eq!(error["code"], "ambiguous", "{}: {error}", src.rel);
        let mut listed: Vec<(String, u64)> = error["details"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["kind"].as_str().unwrap().to_string(), c["line"].as_u64().unwrap()))
            .collect();
        let mut printed: Vec<(String, u64)> =
            symbols.iter().filter(|s| s.name_path == name_path).map(|s| (s.kind.clone(), s.line as u64)).collect();
        listed.sort();
        printed.sort();
        assert_eq!(listed, printed, "{}: `{name_path}`'s candidates", src.rel);
        let message = error["message"].as_str().unwrap();
        assert!(printed.iter().all(|(kind, _)| message.contains(&format!("{kind} {name_path}"))), "{message}");
        assert!(error["hint"].as_str().unwrap().contains("line_hint"), "{error}");
    }
    groups
}

/// The new head of `s`: its signature as the outline prints it, marked so
/// it differs, still valid code (later operations of the batch parse it).
fn new_head(src: &Source, s: &Sym) -> Option<String> {
    let sig = &s.signature;
    // A shortened signature, or one with a line comment, is not the head on one line.
    if sig.chars().count() >= 195 || (if src.python() { sig.contains('#') } else { sig.contains("//") }) {
        return None;
    }
    Some(if src.python() { format!("{}:", sig.replacen("def ", "def  ", 1)) } else { format!("/*np*/ {sig}") })
}

/// Every function's head replaced, bottom-up: each replaced span starts at
/// the symbol, reads as its signature, and ends where its body starts.
fn replace_signature_cuts_every_head(t: &TestDir, src: &Source, symbols: &[Sym]) -> usize {
    let dup = counts(symbols);
    let mut functions: Vec<(&Sym, String)> =
        symbols.iter().filter(|s| has_body(src, s)).filter_map(|s| new_head(src, s).map(|h| (s, h))).collect();
    functions.sort_by_key(|(s, _)| std::cmp::Reverse(s.byte_start));
    if functions.is_empty() {
        return 0;
    }
    let ops: Vec<Value> = functions
        .iter()
        .map(|(s, head)| {
            op_on(src, s, dup[s.name_path.as_str()] > 1, "replace_signature", json!({ "new_block": head }))
        })
        .collect();
    let done = batch(t, &format!("{}: replace_signature by name path", src.rel), &ops);
    let sites = &done.files[0].sites;
    for ((s, _), r) in functions.iter().zip(&done.operations) {
        let what = format!("{}: replace_signature of {} (line {})", src.rel, s.name_path, s.line);
        assert_eq!((r.line, r.status.as_str()), (Some(s.line), "applied"), "{what}");
        let site = sites
            .iter()
            .find(|site| site.before.byte_start == s.byte_start)
            .unwrap_or_else(|| panic!("{what}: no site starts at the symbol"));
        let (head_end, end) = (site.before.byte_end, s.byte_end);
        assert!(head_end < end, "{what}: the replaced span runs to the symbol's end");
        let head = String::from_utf8_lossy(&src.bytes[s.byte_start..head_end]).into_owned();
        let body = String::from_utf8_lossy(&src.bytes[head_end..end]).into_owned();
        if src.python() {
            assert!(collapse(&head).starts_with(&s.signature) && head.contains(':'), "{what}: the head is {head:?}");
            assert!(body.starts_with(['\n', '\r']), "{what}: the body {body:?} starts on the head's line");
        } else {
            assert_eq!(collapse(&head), s.signature, "{what}: the head is not the signature");
            assert!(body.trim_start().starts_with('{'), "{what}: what follows the head is not the body: {body:?}");
        }
    }
    functions.len()
}

/// Functions without a body are refused as such (a few per file).
fn bodiless_functions_are_refused(t: &TestDir, src: &Source, symbols: &[Sym]) {
    let dup = counts(symbols);
    let bodiless = symbols
        .iter()
        .filter(|s| matches!(s.kind.as_str(), "Function" | "Method") && !has_body(src, s))
        .filter(|s| !src.text(s).trim_end().ends_with('}'));
    for s in bodiless.take(3) {
        let op = op_on(src, s, dup[s.name_path.as_str()] > 1, "replace_signature", json!({ "new_block": "x" }));
        let error =
            transform(t, &[op]).err().unwrap_or_else(|| panic!("{}: {} has a head to replace?", src.rel, s.name_path));
        assert_eq!(error["code"], "no_match", "{error}");
        assert!(error["message"].as_str().unwrap().contains("has no body"), "{error}");
    }
}

/// Text inserted before each symbol (bottom-up) lands above it, after its
/// parent's first line and after the sibling before it: never outside the
/// body it is in (a `cfg_*!` impl's method), never above a field whose
/// trailing comment ends the line before.
fn insert_before_lands_above_each_symbol(t: &TestDir, src: &Source, symbols: &[Sym], every: usize) {
    let dup = counts(symbols);
    // The line below which the insertion must be.
    let floor = |s: &Sym| {
        let parent = symbols.iter().filter(|p| Some(&p.name_path) == s.parent.as_ref());
        let parent = parent.filter(|p| p.byte_start <= s.byte_start && s.byte_end <= p.byte_end).map(|p| p.line);
        let before = symbols.iter().filter(|o| o.parent == s.parent && o.byte_end <= s.byte_start).map(|o| o.end_line);
        parent.chain(before).max().unwrap_or(0)
    };
    let mut targets: Vec<(&Sym, usize)> =
        symbols.iter().step_by(every).map(|s| (s, floor(s))).filter(|(s, floor)| *floor < s.line).collect();
    targets.sort_by_key(|(s, _)| std::cmp::Reverse(s.byte_start));
    let snippet = if src.python() { "# np" } else { "// np" };
    let ops: Vec<Value> = targets
        .iter()
        .map(|(s, _)| {
            op_on(src, s, dup[s.name_path.as_str()] > 1, "insert_before_block", json!({ "snippet": snippet }))
        })
        .collect();
    let done = batch(t, &format!("{}: insert_before_block by name path", src.rel), &ops);
    let starts: Vec<usize> = done.files[0].sites.iter().map(|site| site.before.byte_start).collect();
    for (s, floor) in &targets {
        let at = starts.iter().copied().filter(|&a| a <= s.byte_start).max();
        let line = at.and_then(|a| src.line_starting_at(a));
        assert!(
            line.is_some_and(|l| *floor < l && l <= s.line),
            "{}: inserted before {} (lines {}-{}) at line {line:?}, not after line {floor}",
            src.rel,
            s.name_path,
            s.line,
            s.end_line
        );
    }
}

/// `patch` `within` each symbol of a unique name path finds its first line.
fn patch_within_each_symbol(t: &TestDir, src: &Source, symbols: &[Sym]) {
    let dup = counts(symbols);
    let targets: Vec<(&Sym, String)> = symbols
        .iter()
        .filter(|s| dup[s.name_path.as_str()] == 1)
        .filter_map(|s| {
            let text = src.text(s);
            let first = text.lines().next()?.to_string();
            (first.trim().len() > 2 && text.matches(&first).count() == 1).then_some((s, first))
        })
        .collect();
    let ops: Vec<Value> = targets
        .iter()
        .map(|(s, first)| json!({ "op": "patch", "path": src.rel, "within": s.name_path, "old_text": first, "new_text": first }))
        .collect();
    let done = batch(t, &format!("{}: patch within a name path", src.rel), &ops);
    for ((s, _), r) in targets.iter().zip(&done.operations) {
        assert_eq!(r.line, Some(s.line), "{}: within {}", src.rel, s.name_path);
    }
}

/// `rename_symbol` of a sample of functions, by name path.
fn rename_takes_the_name_path(t: &TestDir, src: &Source, symbols: &[Sym]) {
    let dup = counts(symbols);
    let identifier = |n: &str| {
        n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let functions: Vec<&Sym> = symbols
        .iter()
        .filter(|s| {
            matches!(s.kind.as_str(), "Function" | "Method") && dup[s.name_path.as_str()] == 1 && identifier(&s.name)
        })
        .collect();
    for s in functions.iter().step_by(functions.len().div_ceil(2).max(1)) {
        let op = json!({ "op": "rename_symbol", "name": s.name_path, "new_name": format!("{}_np", s.name),
            "path": src.rel, "glob": src.rel, "skip_unresolved": true });
        let done = transform(t, &[op]).unwrap_or_else(|e| panic!("{}: rename_symbol {}: {e}", src.rel, s.name_path));
        assert_eq!(done.renames[0]["name_path"], s.name_path.as_str(), "{}", src.rel);
    }
}

/// `aide mcp`: ast_search prints the CLI's name paths; transform takes a
/// sample of them as the CLI does.
fn mcp_agrees(client: &mut McpClient, src: &Source, symbols: &[Sym]) {
    let outline =
        client.call("ast_search", json!({ "symbols": true, "paths": [src.rel], "max_output_chars": 100_000_000 }));
    let printed: Vec<&str> = outline["structuredContent"]["symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: {outline}", src.rel))
        .iter()
        .map(|s| s["name_path"].as_str().unwrap())
        .collect();
    assert_eq!(printed, symbols.iter().map(|s| s.name_path.as_str()).collect::<Vec<_>>(), "{}", src.rel);
    let dup = counts(symbols);
    for s in symbols.iter().step_by(symbols.len().div_ceil(6).max(1)) {
        let text = src.text(s);
        let mut ops = vec![op_on(
            src,
            s,
            dup[s.name_path.as_str()] > 1,
            "replace_block",
            json!({ "new_block": text, "expected_old_block": text }),
        )];
        if has_body(src, s)
            && let Some(head) = new_head(src, s)
        {
            ops.push(op_on(src, s, dup[s.name_path.as_str()] > 1, "replace_signature", json!({ "new_block": head })));
        }
        let result = client.call("transform", json!({ "operations": ops, "dry_run": true }));
        assert_ne!(result["isError"], true, "{}: {}: {result}", src.rel, s.name_path);
        let doc = &result["structuredContent"];
        for report in doc["operations"].as_array().unwrap() {
            assert_eq!(report["line"], s.line, "{}: {}: {doc}", src.rel, s.name_path);
        }
    }
}

/// The files under test: real ones where the machine has them, and the
/// ones written here.
fn sources() -> Vec<Source> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    match registry_crate("tokio-1.") {
        Some(tokio) => {
            found.push(("rust/tokio/builder.rs".into(), tokio.join("src/runtime/builder.rs")));
            found.push(("rust/tokio/async_read_ext.rs".into(), tokio.join("src/io/util/async_read_ext.rs")));
        }
        None => aide_tests::skip("tokio", "name paths of tokio's cfg_*! macro bodies (not in Cargo's registry)"),
    }
    match registry_crate("globset-") {
        Some(globset) => found.push(("rust/globset/lib.rs".into(), globset.join("src/lib.rs"))),
        None => aide_tests::skip("globset", "name paths of globset (not in Cargo's registry)"),
    }
    if oracle("go", "name paths of Go's standard library (flag)") {
        let out = Command::new("go").args(["env", "GOROOT"]).output().unwrap();
        let goroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        found.push(("go/flag.go".into(), goroot.join("src/flag/flag.go")));
    }
    if oracle("python3", "name paths of Python's email package") {
        let out = Command::new("python3")
            .args(["-c", "import email, os; print(os.path.dirname(email.__file__))"])
            .output()
            .unwrap();
        let email = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        found.push(("py/headerregistry.py".into(), email.join("headerregistry.py")));
        found.push(("py/message.py".into(), email.join("message.py")));
    }
    let mut sources: Vec<Source> = found
        .into_iter()
        .map(|(rel, from)| Source {
            rel,
            bytes: std::fs::read(&from).unwrap_or_else(|e| panic!("{}: {e}", from.display())),
        })
        .collect();
    for (rel, text) in WRITTEN {
        sources.push(Source { rel: rel.to_string(), bytes: text.as_bytes().to_vec() });
    }
    sources
}

#[test]
fn every_printed_name_path_is_taken_by_every_symbol_operation() {
    let t = TestDir::new();
    let sources = sources();
    for src in &sources {
        t.write(&src.rel, &src.bytes);
    }
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let (mut symbols_seen, mut heads, mut ambiguous) = (0, 0, 0);
    for src in &sources {
        let symbols = outline(&t, &src.rel);
        symbols_seen += symbols.len();
        replace_block_finds_every_symbol(&t, src, &symbols);
        ambiguous += duplicates_are_ambiguous_with_kinds_and_lines(&t, src, &symbols);
        heads += replace_signature_cuts_every_head(&t, src, &symbols);
        bodiless_functions_are_refused(&t, src, &symbols);
        // Every symbol of the files written here, every fourth of the real ones.
        let every = if WRITTEN.iter().any(|(rel, _)| *rel == src.rel) { 1 } else { 4 };
        insert_before_lands_above_each_symbol(&t, src, &symbols, every);
        patch_within_each_symbol(&t, src, &symbols);
        rename_takes_the_name_path(&t, src, &symbols);
        mcp_agrees(&mut client, src, &symbols);
    }
    // The cases the issue names are among them.
    assert!(
        symbols_seen > 150 && heads > 60 && ambiguous >= 8,
        "{symbols_seen} symbols, {heads} heads, {ambiguous} ambiguous"
    );
}

/// The reports' cases, one by one: the name paths a new user was refused.
#[test]
fn the_reported_name_paths_work() {
    let t = TestDir::new();
    t.write(
        "cmd.go",
        "package main\n\ntype Command struct{ name string }\n\nfunc (c *Command) Name() string {\n\treturn c.name\n}\n",
    );
    t.write("rt.rs", WRITTEN[0].1);
    let names: Vec<String> = outline(&t, "cmd.go").into_iter().map(|s| s.name_path).collect();
    assert!(names.contains(&"(*Command)/Name".to_string()), "{names:?}");
    let done = transform(
        &t,
        &[json!({ "op": "replace_signature", "path": "cmd.go", "name": "(*Command)/Name",
        "new_block": "func (c *Command) Name() (n string)" })],
    )
    .unwrap();
    assert_eq!(done.operations[0].line, Some(5));
    let done = transform(
        &t,
        &[json!({ "op": "replace_signature", "path": "rt.rs", "name": "impl Builder/enable_io",
        "new_block": "pub fn enable_io(&mut self, on: bool) -> &mut Self" })],
    )
    .unwrap();
    let site = &done.files[0].sites[0].before;
    assert_eq!(&WRITTEN[0].1[site.byte_start..site.byte_end], "pub fn enable_io(&mut self) -> &mut Self");
    // Kind may still be given, and picks among what a name path alone leaves open.
    let error =
        transform(&t, &[json!({ "op": "replace_block", "path": "rt.rs", "name": "impl Builder", "new_block": "x" })])
            .unwrap_err();
    assert_eq!(error["code"], "ambiguous");
    let done = transform(&t, &[json!({ "op": "replace_block", "path": "rt.rs", "kind": "field", "name": "Builder/enable_io", "new_block": "enable_io: u8" })]).unwrap();
    assert_eq!(done.operations[0].line, Some(12));
}

/// Small files of the languages the machine has no real code of, and the
/// shapes the real files may lack: a tokio-like crate's macro bodies
/// (nested, with docs and attributes), Python properties and decorators,
/// TypeScript accessors, overloads and arrow members, Java constructors
/// and records, C++ out-of-line members, operators and templates.
const WRITTEN: &[(&str, &str)] = &[
    ("rust/cfg_macros.rs", include_str!("name_paths/cfg_macros.rs")),
    ("py/shapes.py", include_str!("name_paths/shapes.py")),
    ("ts/shapes.ts", include_str!("name_paths/shapes.ts")),
    ("java/Shapes.java", include_str!("name_paths/Shapes.java")),
    ("cpp/shapes.cpp", include_str!("name_paths/shapes.cpp")),
];
