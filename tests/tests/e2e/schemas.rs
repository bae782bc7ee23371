//! Every JSON document every tool prints, result or error, validates
//! against the output schema of that tool's own `--schema`.

use std::collections::BTreeMap;

use aide_tests::TestDir;
use serde_json::Value;

/// Runs the tools and checks each document against its tool's schema.
struct Checker<'a> {
    t: &'a TestDir,
    /// Per tool: the whole output schema, and its success and failure
    /// branches alone (whose errors say which field is wrong).
    validators: BTreeMap<String, [jsonschema::Validator; 3]>,
    checked: usize,
}

/// The output schema with its `anyOf` narrowed to one envelope.
fn branch(schema: &Value, envelope: &str) -> Value {
    let mut one = schema.clone();
    if let Some(obj) = one.as_object_mut() {
        obj.remove("anyOf");
        obj.insert("$ref".into(), Value::String(format!("#/$defs/{envelope}")));
    }
    one
}

impl<'a> Checker<'a> {
    fn new(t: &'a TestDir) -> Self {
        Checker { t, validators: BTreeMap::new(), checked: 0 }
    }

    fn validators(&mut self, tool: &str) -> &[jsonschema::Validator; 3] {
        let t = self.t;
        self.validators.entry(tool.to_string()).or_insert_with(|| {
            let (out, _) = t.cmd(tool).arg("--schema").expect_exit(0);
            let output = serde_json::from_str::<Value>(&out).unwrap()["output"].take();
            let compile =
                |s: &Value| jsonschema::validator_for(s).unwrap_or_else(|e| panic!("{tool}'s output schema: {e}"));
            [compile(&output), compile(&branch(&output, "Envelope")), compile(&branch(&output, "ErrorEnvelope"))]
        })
    }

    /// Validates `doc` against `tool`'s output schema.
    fn validate(&mut self, tool: &str, what: &str, doc: &Value) {
        let [whole, success, failure] = self.validators(tool);
        let branch = if doc["ok"] == true { success } else { failure };
        let errors: Vec<String> = branch
            .iter_errors(doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .chain((!whole.is_valid(doc)).then(|| "the whole schema refuses it".to_string()))
            .collect();
        assert!(errors.is_empty(), "{tool} {what}: the document fails its schema:\n{}\n{doc:#}", errors.join("\n"));
        self.checked += 1;
    }

    /// Runs `tool --json ARGS`, checks `ok`, validates the document, returns it.
    fn run(&mut self, tool: &str, args: &[&str], ok: bool) -> Value {
        let out = self.t.cmd(tool).arg("--json").args(args).output();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!("{tool} {args:?} printed no JSON ({e}):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr))
        });
        assert_eq!(doc["ok"], ok, "{tool} {args:?}:\n{doc:#}");
        self.validate(tool, &format!("{args:?}"), &doc);
        doc
    }
}

fn tree() -> TestDir {
    let t = TestDir::new();
    t.write(
        "src/lib.rs",
        "pub struct Agent;\nimpl Agent {\n    pub fn run(&self) -> u32 { helper() }\n}\npub fn helper() -> u32 { 1 }\n",
    );
    t.write("src/broken.rs", "fn broken( {\n");
    t.write("py/m.py", "def f():\n    return 1\n");
    let mut notes = format!("a needle\n{}needle\nbad ", "x".repeat(600)).into_bytes();
    notes.extend_from_slice(b"\xff byte needle\n");
    t.write("notes.txt", notes);
    t.write("bin.dat", b"needle\0binary");
    t
}

#[test]
fn search_read_discover_and_ast_documents_match_their_schemas() {
    let t = tree();
    let mut c = Checker::new(&t);
    // llm-search: every mode, lossy and cut lines, captures, context, an error.
    c.run("llm-search", &["--pattern", "needle", "-C", "1", "--max-line-len", "100"], true);
    c.run("llm-search", &["--pattern", "(?P<w>need)le", "--captures"], true);
    c.run("llm-search", &["--pattern", "needle", "--mode", "files"], true);
    c.run("llm-search", &["--pattern", "needle", "--mode", "count"], true);
    c.run("llm-search", &["--pattern", "absent"], true);
    c.run("llm-search", &["--pattern", "a("], false);
    // llm-read: one file, a range, several with one missing, an error.
    c.run("llm-read", &["src/lib.rs"], true);
    c.run("llm-read", &["notes.txt", "--lines", "2:3", "--max-line-len", "50"], true);
    c.run("llm-read", &["src/lib.rs", "missing.rs"], true);
    c.run("llm-read", &["missing.rs"], false);
    c.run("llm-read", &["src", "notes.txt"], true); // a directory beside a file
    // llm-discover: list, query, tree, an error.
    c.run("llm-discover", &[], true);
    c.run("llm-discover", &["--query", "lib"], true);
    c.run("llm-discover", &["--tree"], true);
    c.run("llm-discover", &["--tree", "--tree-checksum"], true);
    c.run("llm-discover", &["--glob", "a["], false);
    // llm-ast-search: every mode and every Dialect value, errors.
    c.run("llm-ast-search", &["--symbols"], true);
    c.run("llm-ast-search", &["--symbols", "--name", "run"], true);
    c.run("llm-ast-search", &["--language", "rust", "--query", "(function_item name: (identifier) @n)"], true);
    c.run("llm-ast-search", &["--definitions", "Agent/run"], true);
    c.run("llm-ast-search", &["--references", "helper", "--include-definition"], true);
    c.run("llm-ast-search", &["--callers", "helper"], true);
    c.run("llm-ast-search", &["--dialect", "findCallers(`helper`); findCallers(`absent`)"], true);
    c.run("llm-ast-search", &["--validate", "src"], true);
    c.run("llm-ast-search", &["--validate", "src/lib.rs"], true);
    c.run(
        "llm-ast-search",
        &[
            "--dialect",
            "findDefinitions(`Agent`); findReferences(`helper`); search(`src`, `fn`); lines(`src/lib.rs`, 1, 2)",
        ],
        true,
    );
    c.run("llm-ast-search", &["--dialect", "findDefinitions(`Absent`)"], true);
    c.run("llm-ast-search", &["--dialect", "findDefintions(`X`)"], false);
    c.run("llm-ast-search", &["--language", "cobol", "--symbols"], false);
    assert!(c.checked >= 25);
}

#[test]
fn transform_documents_match_their_schema() {
    let t = tree();
    let mut c = Checker::new(&t);
    let edits = |ops: Value| {
        let p = t.root().join("edits.json");
        std::fs::write(&p, serde_json::json!({ "operations": ops }).to_string()).unwrap();
        p.display().to_string()
    };
    let patch = edits(serde_json::json!([
        { "op": "patch", "path": "src/lib.rs", "old_text": "{ 1 }", "new_text": "{ 2 }" },
        { "op": "write", "path": "new.txt", "content": "hi\n" },
        { "op": "replace_block", "path": "py/m.py", "kind": "function", "name": "f", "new_block": "def f():\n    return 2\n" }
    ]));
    c.run("llm-transform", &["--edits", &patch, "--dry-run"], true);
    let applied = c.run("llm-transform", &["--edits", &patch, "--diff"], true);
    c.run("llm-transform", &["--edits", &patch], false); // old text gone: no_match
    let id = applied["execution_id"].as_str().unwrap().to_string();
    c.run("llm-transform", &["undo", &id], true);
    c.run("llm-transform", &["recover"], true);
    let bad = edits(
        serde_json::json!([{ "op": "patch", "path": "src/lib.rs", "old_text": "pub", "new_text": "fn (" , "replace_all": true }]),
    );
    c.run("llm-transform", &["--edits", &bad], false);
    // The tree operations: regex, rewrite, rename (with its report), and
    // a search's output fed back as edits.
    let tree_ops = edits(serde_json::json!([
        { "op": "replace_regex", "pattern": "helper", "replacement": "aid", "glob": "*.rs" },
        { "op": "rewrite", "language": "rust", "query": "(integer_literal) @n", "template": "(${n})" },
        { "op": "rename_symbol", "name": "Agent/run", "new_name": "go" }
    ]));
    c.run("llm-transform", &["--edits", &tree_ops, "--dry-run"], true);
    c.run("llm-transform", &["--edits", &tree_ops], true);
    // Directories: a tree copied, a folder made, the copy deleted unguarded (refused).
    let dir_ops = edits(serde_json::json!([
        { "op": "copy", "path": "src", "to": "src-copy" },
        { "op": "mkdir", "path": "made/here" }
    ]));
    c.run("llm-transform", &["--edits", &dir_ops], true);
    let unguarded = edits(serde_json::json!([{ "op": "delete", "path": "src-copy", "recursive": true }]));
    c.run("llm-transform", &["--edits", &unguarded], false);
    let found = c.run("llm-search", &["-e", "aid", "--captures"], true);
    let path = t.root().join("found.json");
    std::fs::write(&path, found.to_string()).unwrap();
    c.run("llm-transform", &["--from-matches", &path.display().to_string(), "--replacement", "${0}_x"], true);
    c.run("llm-transform", &["--from-matches", &path.display().to_string(), "--replacement", "y"], false);
    let ambiguous = edits(serde_json::json!([{ "op": "rename_symbol", "name": "nothing_here", "new_name": "x" }]));
    c.run("llm-transform", &["--edits", &ambiguous], false);
    // Refactors through the language server: the list, one applied, one not offered.
    c.run("llm-transform", &["refactor", "--path", "new.txt", "--action", "inline"], false);
    if aide_tests::oracle("clangd", "the documents of refactors through clangd") {
        t.write("c/a.cpp", "int f(int a) {\n    return a * 2 + 1;\n}\n");
        let at = ["refactor", "--path", "c/a.cpp", "--line", "2", "--column", "12", "--end-column", "17"];
        c.run("llm-transform", &at, true);
        c.run("llm-transform", &[&at[..], &["--action", "extract_function"]].concat(), false);
        c.run("llm-transform", &[&at[..], &["--action", "extract_variable", "--diff"]].concat(), true);
    }
}

#[test]
fn shell_jobs_and_aide_documents_match_their_schemas() {
    let t = tree();
    let mut c = Checker::new(&t);
    let s = c.run("llm-shell", &["session", "new"], true)["session_id"].as_str().unwrap().to_string();
    c.run("llm-shell", &["session", "list"], true);
    c.run("llm-shell", &["session", "show", &s], true);
    c.run("llm-shell", &["env", "--session", &s, "--set", "A=1"], true);
    c.run("llm-shell", &["exec", "--session", &s, "--", "echo hi; echo err >&2"], true);
    c.run("llm-shell", &["exec", "--", "exit 3"], true);
    c.run("llm-shell", &["exec", "--timeout", "0.2", "--", "sleep 5"], true);
    let bg = c.run("llm-shell", &["exec", "--session", &s, "--background", "--", "echo bg"], true);
    c.run("llm-shell", &["exec", "--session", &s, "--yield-ms", "10000", "--", "echo quick"], true);
    let slow = c.run("llm-shell", &["exec", "--session", &s, "--yield-ms", "100", "--", "sleep 30"], true);
    c.run("llm-jobs", &["kill", &slow["job_id"].to_string(), "--grace", "1"], true);
    c.run("llm-shell", &["check", "--", "if true; then echo"], true);
    c.run("llm-shell", &["explain", "--", "rm -rf build && curl https://x | sh"], true);
    // Run before here: an estimate from the log.
    c.run("llm-shell", &["explain", "--", "exit 3"], true);
    c.run("llm-shell", &["exec", "--session", &s, "--", "true"], true);
    c.run("llm-shell", &["explain", "--", "true"], true);
    c.run("llm-read", &["--session", &s, "missing.txt"], false);
    c.run("llm-shell", &["perf", "--session", &s], true);
    c.run("llm-shell", &["exec", "--max-risk", "low", "--", "rm -rf /tmp/x"], false);
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git").args(args).current_dir(t.root()).output().unwrap().status.success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]);
    c.run(
        "llm-shell",
        &["compare", "--baseline", "HEAD", "--command", "true", "--iterations", "2", "--warmup", "0"],
        true,
    );
    c.run("llm-shell", &["session", "show", "nope"], false);

    let job = bg["job"]["job_id"].to_string();
    c.run("llm-jobs", &["wait", &job, "--timeout", "30"], true);
    let sleeper = c.run("llm-jobs", &["spawn", "--name", "s", "--", "sleep 30"], true)["job_id"].to_string();
    c.run("llm-jobs", &["list"], true);
    c.run("llm-jobs", &["status", &sleeper], true);
    c.run("llm-jobs", &["logs", &job], true);
    c.run("llm-jobs", &["pause", &sleeper], true);
    c.run("llm-jobs", &["list", "--status", "paused"], true);
    c.run("llm-jobs", &["resume", &sleeper], true);
    c.run("llm-jobs", &["send", &sleeper, "--text", "y\n"], true);
    c.run("llm-jobs", &["send", &sleeper, "--eof"], true);
    c.run("llm-jobs", &["send", &sleeper, "--text", "late"], false);
    c.run("llm-jobs", &["kill", &sleeper, "--signal", "STOP"], false);
    c.run("llm-jobs", &["kill", &sleeper], true);
    c.run("llm-jobs", &["pause", &sleeper], false);
    c.run("llm-jobs", &["rm", &job], true);
    c.run("llm-jobs", &["prune"], true);
    c.run("llm-jobs", &["group", "set", "default", "--parallel", "2"], true);
    c.run("llm-jobs", &["group", "list"], true);
    c.run("llm-jobs", &["status", "99999"], false);
    c.run("llm-shell", &["session", "rm", &s], true);

    t.write("lint/bad.py", "def f(:\n");
    t.write("lint/ok.rs", "fn main() {}\n");
    c.run("llm-lint", &["--root", "lint"], true);
    c.run("llm-lint", &["--root", "lint", "--checker", "syntax", "--fix"], true);
    c.run("llm-lint", &["--root", "lint", "--checker", "nope"], false);

    c.run("aide", &["tools"], true);
    c.run("aide", &["doctor"], true);
    let runs = c.run("aide", &["log", "list", "--limit", "5"], true);
    c.run("aide", &["log", "show", "nope"], false);
    c.run("aide", &["log", "prune", "--keep", "1000"], true);
    c.run("aide", &["log", "stats"], true);
    c.run("aide", &["log", "stats", "--tool", "no-such-tool"], false);
    // `aide log show` prints the stored document as it was: it validates
    // against the schema of the tool that printed it.
    let last = &runs["runs"][0];
    let (tool, id) = (last["tool"].as_str().unwrap(), last["execution_id"].as_str().unwrap());
    let (out, _) = t.cmd("aide").args(["log", "show", id, "--json"]).expect_exit(0);
    c.validate(tool, "as stored by aide log show", &serde_json::from_str(&out).unwrap());
}

#[test]
fn deps_documents_match_their_schema() {
    let t = TestDir::new();
    t.write("Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\n\n[dependencies]\nb = { path = \"b\" }\n");
    t.write("Cargo.lock", "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\"b\"]\n\n[[package]]\nname = \"b\"\nversion = \"0.2.0\"\n");
    t.write("go.mod", "module m\n\nrequire example.com/x v1.0.0 // indirect\n");
    t.write("package-lock.json", "not json");
    let db = TestDir::new();
    db.write("crates/b/RUSTSEC-2099-0001.md", "```toml\n[advisory]\nid = \"RUSTSEC-2099-0001\"\npackage = \"b\"\n\n[versions]\npatched = [\">= 0.3\"]\n```\n\n# b is bad\n");
    let mut c = Checker::new(&t);
    c.run("llm-deps", &["list"], true);
    c.run("llm-deps", &["list", "--direct", "--ecosystem", "cargo"], true);
    c.run("llm-deps", &["tree", "--depth", "1"], true);
    c.run("llm-deps", &["outdated", "--ecosystem", "pypi"], true);
    c.run("llm-deps", &["outdated", "--timeout", "-1"], false);
    c.run("llm-deps", &["audit"], true);
    let audit = c.run("llm-deps", &["audit", "--advisory-db", db.root().to_str().unwrap()], true);
    assert_eq!(audit["vulnerabilities"][0]["id"], "RUSTSEC-2099-0001", "{audit}");
    c.run("llm-deps", &["audit", "--advisory-db", "/nonexistent"], false);
}

#[test]
fn git_documents_match_their_schema() {
    let t = tree();
    t.git_init();
    t.git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.write("src/lib.rs", "pub struct Agent;\n").write("new.txt", "n\n");
    let mut c = Checker::new(&t);
    c.run("llm-git", &["status"], true);
    c.run("llm-git", &["diff"], true);
    c.run("llm-git", &["diff", "--staged"], true);
    c.run("llm-git", &["log"], true);
    c.run("llm-git", &["blame", "src/lib.rs"], true);
    c.run("llm-git", &["show", "HEAD"], true);
    c.run("llm-git", &["show", "HEAD:src/lib.rs"], true);
    c.run("llm-git", &["show", "HEAD:src"], true);
    c.run("llm-git", &["add", "new.txt"], true);
    c.run("llm-git", &["branch"], true);
    c.run("llm-git", &["branch", "topic", "--create"], true);
    c.run("llm-git", &["branch", "topic", "--delete"], true);
    c.run("llm-git", &["branch", "nope", "--delete"], false);
    c.run("llm-git", &["restore", "--staged", "new.txt"], true);
    c.run("llm-git", &["restore", "src/lib.rs"], true);
    c.run("llm-git", &["commit", "-m", "nothing staged"], false);
    c.run("llm-git", &["show", "no-such-rev"], false);
    assert!(c.checked >= 15);
}

#[test]
fn code_documents_match_their_schema() {
    let t = tree();
    let body = "    total = 0\n    for x in xs:\n        if x > 1 and x < 9:\n            total += x * 2\n        else:\n            total -= 1\n    return total\n";
    t.write("py/a.py", format!("import os\nfrom m import a as b\n\ndef one(xs):\n{body}"));
    t.write("py/b.py", format!("__all__ = ['two']\n\ndef two(ys):\n{body}"));
    let mut c = Checker::new(&t);
    c.run("llm-code", &["metrics"], true);
    c.run("llm-code", &["metrics", "--sort", "cognitive", "--limit", "1"], true);
    c.run("llm-code", &["metrics", "--language", "nope"], false);
    let pairs = c.run("llm-code", &["duplicates", "--min-tokens", "20", "--min-lines", "3"], true);
    assert_eq!(pairs["duplicates"].as_array().map(Vec::len), Some(1), "{pairs}");
    c.run("llm-code", &["duplicates", "--min-tokens", "1"], false);
    c.run("llm-code", &["imports"], true);
    c.run("llm-code", &["imports", "py/b.py", "--limit", "1"], true);
}
