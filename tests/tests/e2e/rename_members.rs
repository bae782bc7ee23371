//! Renames without a language server that tell a method from a field of
//! the same name (issue 47): syntax says which a member access can be
//! (`x.f(…)`, `x.f`, `S { f: … }`), a receiver built by a chain of calls is
//! typed by the methods' declared return types, and a method name only one
//! type defines is that type's. Held against the compilers: `cargo check`
//! and `go build` pass after each rename.

use std::path::Path;
use std::process::Command;

use aide_tests::TestDir;
use serde_json::{Value, json};

fn read(t: &TestDir, rel: &str) -> String {
    std::fs::read_to_string(t.root().join(rel)).unwrap()
}

fn rename(t: &TestDir, fields: Value, code: i32) -> Value {
    let mut op = json!({ "op": "rename_symbol" });
    for (k, v) in fields.as_object().unwrap() {
        op[k] = v.clone();
    }
    let request = json!({ "operations": [op] }).to_string();
    t.cmd("llm-transform").args(["--request", "-"]).env("AIDE_LSP_RUST", "/nonexistent/ra").stdin(request).json(code)
}

/// `(line, matched)` of every site the rename changed.
fn renamed(v: &Value) -> Vec<(u64, String)> {
    v["renames"][0]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["renamed"] == true)
        .map(|s| (s["line"].as_u64().unwrap(), s["matched"].as_str().unwrap().to_string()))
        .collect()
}

/// `cargo check` of the crate at `dir`, offline, in its own target folder.
fn cargo_check(dir: &Path) {
    let out = Command::new("cargo")
        .args(["check", "--quiet", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo check: {}", String::from_utf8_lossy(&out.stderr));
}

const BUILDER: &str = "pub struct Options {
    pub sep: bool,
}

pub struct Builder {
    opts: Options,
}

impl Builder {
    pub fn new() -> Builder {
        Builder { opts: Options { sep: false } }
    }

    pub fn sep(&mut self, yes: bool) -> &mut Builder {
        self.opts.sep = yes;
        self
    }

    pub fn quiet(&mut self) -> &mut Self {
        self
    }

    pub fn build(&self) -> bool {
        self.opts.sep
    }
}

pub fn configure(b: &mut Builder) {
    b.sep(true);
}

fn made() -> Builder {
    Builder::new()
}

pub fn run() -> bool {
    let mut b = Builder::new();
    b.sep(false);
    let chained = Builder::new().quiet().sep(true).build();
    let mut m = made();
    m.sep(true);
    let o = Options { sep: chained };
    o.sep && (Options { sep: true }).sep
}
";

fn builder_crate() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write("Cargo.toml", "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    t.write("src/lib.rs", BUILDER);
    t
}

#[test]
fn a_method_and_a_field_of_one_name_are_renamed_apart_in_rust() {
    let t = builder_crate();
    let v = rename(&t, json!({ "name": "Builder/sep", "new_name": "separator" }), 0);
    assert_eq!(
        renamed(&v),
        [
            (14, "resolved".into()),  // the definition
            (29, "resolved".into()),  // a parameter typed `&mut Builder`
            (38, "resolved".into()),  // a local built by `Builder::new()`
            (39, "resolved".into()),  // a chain: `Builder::new()` → `quiet() -> &mut Self`
            (41, "name_only".into()), // `made()` is not read: the only method of the name
        ],
        "{v}"
    );
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("self.opts.sep = yes;") && lib.contains("o.sep && (Options { sep: true }).sep"), "{lib}");
    cargo_check(t.root());

    // The field, renamed: no call is a field in Rust.
    let t = builder_crate();
    let v = rename(&t, json!({ "name": "Options/sep", "new_name": "separated" }), 0);
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("pub fn sep(&mut self") && lib.contains("b.sep(true);") && lib.contains("m.sep(true);"));
    assert!(lib.contains("self.opts.separated = yes;") && lib.contains("Options { separated: chained }"), "{lib}");
    cargo_check(t.root());
}

#[test]
fn without_a_server_engine_lsp_and_auto_say_so() {
    for engine in ["lsp", "auto"] {
        let t = builder_crate();
        let v = rename(&t, json!({ "name": "Builder/sep", "new_name": "separator", "engine": engine }), 0);
        let codes: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
        assert!(codes.contains(&"lsp_unavailable"), "engine {engine}: {v}");
        assert_eq!(v["renames"][0]["engine"], "syntax", "{v}");

        // Refused, it still says why the server did not decide.
        let t = builder_crate();
        t.write("src/other.rs", "pub struct Other;\nimpl Other { pub fn sep(&self) {} }\npub fn any(x: &dyn std::any::Any) { unknown(x).sep(); }\n");
        let v = rename(&t, json!({ "name": "Builder/sep", "new_name": "separator", "engine": engine }), 3);
        assert_eq!(v["error"]["code"], "unresolved_sites", "{v}");
        let codes: Vec<&str> = v["error"]["details"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["code"].as_str())
            .collect();
        assert!(codes.contains(&"lsp_unavailable"), "engine {engine}, refused: {v}");
    }
}

#[test]
fn a_refusal_lists_its_sites_in_text() {
    let t = builder_crate();
    t.write(
        "src/other.rs",
        "pub struct Other;\nimpl Other { pub fn sep(&self) {} }\npub fn any() { unknown().sep(); }\n",
    );
    let request = json!({ "operations": [{ "op": "rename_symbol", "name": "Builder/sep", "new_name": "separator" }] });
    let out = t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).output();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("src/other.rs:3:"), "the site is listed: {text}");
    assert!(text.contains("unknown().sep()"), "with its line: {text}");
    // Over MCP the text a model reads lists them too.
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let reply = client.call("transform", json!({ "operations": request["operations"] }));
    assert_eq!(reply["isError"], true, "{reply}");
    let text = reply["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("src/other.rs:3:") && text.contains("unknown().sep()"), "{text}");
}

#[test]
fn a_go_field_key_is_never_a_method_of_the_same_name() {
    let t = TestDir::new();
    t.git_init();
    t.write("go.mod", "module m\n\ngo 1.19\n");
    t.write(
        "main.go",
        "package main\n\ntype Flag struct{ Name string }\n\ntype Command struct{ use string }\n\nfunc (c *Command) Name() string { return c.use }\n\nfunc main() {\n\tf := Flag{Name: \"x\"}\n\tc := &Command{}\n\tprintln(f.Name, c.Name())\n}\n",
    );
    let v = rename(&t, json!({ "name": "Command/Name", "new_name": "Title" }), 0);
    assert_eq!(renamed(&v), [(7, "resolved".into()), (12, "resolved".into())], "{v}");
    let main = read(&t, "main.go");
    assert!(main.contains("Flag{Name: \"x\"}") && main.contains("println(f.Name, c.Title())"), "{main}");
    if aide_tests::oracle("go", "a Go method renamed apart from a field builds (rename_members)") {
        let cache = t.home().join("go-cache");
        let out = Command::new("go")
            .args(["build", "-o", "/dev/null", "."])
            .current_dir(t.root())
            .env("GOCACHE", &cache)
            .env("GOFLAGS", "-mod=mod")
            .output()
            .unwrap();
        assert!(out.status.success(), "go build: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// ripgrep's globset (from Cargo's registry): `GlobBuilder::literal_separator`
/// beside `GlobOptions`'s field `literal_separator` was refused with 12
/// unresolved sites.
#[test]
fn globset_builder_method_renamed_apart_from_its_options_field() {
    let Some(source) = aide_tests::trees::registry_crate("globset-") else {
        aide_tests::skip("cargo", "globset's source in Cargo's registry (rename_members)");
        return;
    };
    let t = TestDir::new();
    aide_tests::trees::copy_tree(&source, t.root());
    t.git_init();
    let before = read(&t, "src/glob.rs");
    let v = rename(&t, json!({ "name": "GlobBuilder/literal_separator", "new_name": "literal_separators" }), 0);
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    let after = read(&t, "src/glob.rs");
    let count = |s: &str, what: &str| s.matches(what).count();
    assert_eq!(count(&after, "opts.literal_separator"), count(&before, "opts.literal_separator"), "field reads stay");
    assert_eq!(count(&after, "literal_separator: false"), 1, "the field's initializer stays");
    assert_eq!(
        count(&after, "builder.literal_separators(litsep)"),
        count(&before, "builder.literal_separator(litsep)")
    );
    assert!(after.contains("pub fn literal_separators(&mut self, yes: bool)"));
    // The crate still builds: `cargo check` offline, with what it needs
    // only (no features, optional or dev-dependencies: those may not be in
    // the registry, and `cargo check` builds no tests).
    t.write("Cargo.toml", required_only(&read(&t, "Cargo.toml")));
    // The workspace's lock: the versions its build left in the registry.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(lock, t.root().join("Cargo.lock")).unwrap();
    cargo_check(t.root());
}

/// A published manifest less its `[features]`, benches, optional and
/// dev-dependencies: each `[section]` kept or dropped whole.
fn required_only(manifest: &str) -> String {
    let mut sections: Vec<String> = vec![String::new()];
    for line in manifest.lines() {
        if line.starts_with('[') {
            sections.push(String::new());
        }
        let last = sections.last_mut().unwrap();
        last.push_str(line);
        last.push('\n');
    }
    sections
        .into_iter()
        .filter(|s| {
            let head = s.lines().next().unwrap_or_default();
            let dropped = ["[features]", "[[bench]]", "[dev-dependencies", "[[test]]", "[[example]]"];
            !dropped.iter().any(|d| head.starts_with(d)) && !s.contains("optional = true")
        })
        .collect()
}

/// CPython's own `email` package and its test suite (1,600 tests), copied
/// from the machine's Python: a method renamed across both, every call
/// followed, and the suite still passes.
#[test]
fn a_python_method_renamed_across_the_email_package_passes_its_suite() {
    if !aide_tests::oracle("python3", "CPython's email suite after a rename (rename_members)") {
        return;
    }
    let stdlib = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
        .unwrap();
    let stdlib = std::path::PathBuf::from(String::from_utf8_lossy(&stdlib.stdout).trim());
    if !stdlib.join("test/test_email/test_email.py").is_file() {
        aide_tests::skip("python3", "CPython's test.test_email (this Python ships without its test suite)");
        return;
    }
    let t = TestDir::new();
    for (from, to) in [("email", "email"), ("test/test_email", "test/test_email"), ("test/support", "test/support")] {
        std::fs::create_dir_all(t.root().join(to)).unwrap();
        aide_tests::trees::copy_tree(&stdlib.join(from), &t.root().join(to));
    }
    std::fs::copy(stdlib.join("test/__init__.py"), t.root().join("test/__init__.py")).unwrap();
    t.git_init();
    let suite = |t: &TestDir| {
        Command::new("python3")
            .args(["-m", "unittest", "test.test_email"])
            .current_dir(t.root())
            .env("PYTHONPATH", t.root())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap()
    };
    assert!(suite(&t).status.success(), "the copied suite passes before the rename");
    let v = rename(&t, json!({ "name": "Message/get_content_type", "new_name": "content_type_of" }), 0);
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    let code = read(&t, "email/message.py");
    assert!(code.contains("def content_type_of(self):") && !code.contains("def get_content_type("));
    let after = suite(&t);
    assert!(after.status.success(), "the suite after the rename: {}", String::from_utf8_lossy(&after.stderr));
}
