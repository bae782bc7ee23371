//! rename_symbol end to end: free functions across files, methods by name path, refusals of ambiguous names and collisions, locals by scope, Java members, sites reported, references judged, doc comments, unresolved sites.

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::refactor::{error_code, read, rust_tree, transform};

fn rename(t: &TestDir, fields: Value, code: i32) -> Value {
    let mut op = json!({ "op": "rename_symbol" });
    for (k, v) in fields.as_object().unwrap() {
        op[k] = v.clone();
    }
    transform(t, json!({ "operations": [op] }), code)
}

fn sites(v: &Value) -> Vec<(String, usize, String, bool)> {
    v["renames"][0]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap() as usize,
                s["matched"].as_str().unwrap().to_string(),
                s["renamed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn rename_a_free_function_across_files_never_in_comments_or_strings() {
    let t = rust_tree();
    t.write("src/util.rs", "pub fn other() { let helper = 1; let _ = helper; }\n");
    let v = rename(&t, json!({ "name": "helper", "new_name": "assist" }), 0);
    let main = read(&t, "src/main.rs");
    assert!(main.contains("fn assist(x: u32)") && main.contains("assist(2), s"));
    assert!(main.contains("// helper is explained here") && main.contains("\"helper\""));
    // A local of that name elsewhere is another binding.
    assert_eq!(read(&t, "src/util.rs"), "pub fn other() { let helper = 1; let _ = helper; }\n");
    assert_eq!(v["renames"][0]["scope"], "free");
    assert_eq!(
        sites(&v),
        [("src/main.rs".into(), 4, "resolved".into(), true), ("src/main.rs".into(), 13, "resolved".into(), true)]
    );
    // Asked for, comments and strings follow.
    let v = rename(&t, json!({ "name": "assist", "new_name": "aid", "in_comments_and_strings": false }), 0);
    assert_eq!(v["renames"][0]["renamed"], 2);
    let t = rust_tree();
    rename(&t, json!({ "name": "helper", "new_name": "assist", "in_comments_and_strings": true }), 0);
    let main = read(&t, "src/main.rs");
    assert!(main.contains("// assist is explained here") && main.contains("\"assist\""));
}

#[test]
fn rename_a_method_by_name_path_follows_receivers() {
    let t = rust_tree();
    let v = rename(&t, json!({ "name": "Agent/step", "new_name": "advance" }), 0);
    assert!(read(&t, "src/agent.rs").contains("self.count + self.advance()"));
    assert!(read(&t, "src/agent.rs").contains("fn advance(&self)"));
    assert_eq!(v["renames"][0]["scope"], "member");
    assert!(sites(&v).iter().all(|s| s.2 == "resolved"));
    // Another type with a method of the same name: a receiver declared or
    // built as the owner is resolved (`let a = Agent::new()`), one of the
    // other type is not this method, one of unknown type is `unresolved`:
    // reported, not renamed.
    t.write(
        "src/other.rs",
        "pub struct Other;\nimpl Other {\n    pub fn run(&self) {}\n}\npub fn go(o: &Other) { o.run(); }\npub fn any(x: Box<dyn Fn()>) { x.run(); }\n",
    );
    // Left behind silently, the unresolved site could break the build with
    // `ok: true`: refused, each listed, nothing written.
    let refused = rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 3);
    assert_eq!(refused["error"]["code"], "unresolved_sites", "{refused}");
    let listed = &refused["error"]["details"]["sites"];
    assert_eq!((&listed[0]["path"], &listed[0]["line"]), (&json!("src/other.rs"), &json!(6)), "{refused}");
    assert_eq!(listed[0]["line_text"], "pub fn any(x: Box<dyn Fn()>) { x.run(); }");
    assert!(read(&t, "src/agent.rs").contains("pub fn run(&self)"), "nothing written");
    let v = rename(&t, json!({ "name": "Agent/run", "new_name": "execute", "skip_unresolved": true }), 0);
    assert!(read(&t, "src/agent.rs").contains("pub fn execute(&self)"));
    assert!(read(&t, "src/main.rs").contains("a.execute();"));
    assert!(read(&t, "src/other.rs").contains("o.run();") && read(&t, "src/other.rs").contains("x.run();"));
    assert_eq!(v["renames"][0]["unresolved"], 1);
    let listed: Vec<(String, usize, String)> = sites(&v).into_iter().map(|s| (s.0, s.1, s.2)).collect();
    assert_eq!(
        listed,
        [
            ("src/agent.rs".to_string(), 10, "resolved".to_string()),
            ("src/main.rs".to_string(), 10, "resolved".to_string()),
            ("src/other.rs".to_string(), 6, "unresolved".to_string()),
        ]
    );
    // The result still compiles where nothing was left ambiguous.
    let t = rust_tree();
    t.write("Cargo.toml", "[package]\nname = \"r\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 0);
    rename(&t, json!({ "name": "Agent/count", "new_name": "total" }), 0);
    let check = std::process::Command::new("cargo")
        .args(["check", "--quiet", "--offline"])
        .current_dir(t.root())
        .env("CARGO_TARGET_DIR", t.root().join("target"))
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(read(&t, "src/agent.rs").contains("Agent { total: 0 }"));
    assert!(read(&t, "src/agent.rs").contains("let count = 2;"), "a local of the same name stays");
}

#[test]
fn rename_refuses_ambiguous_names_and_collisions() {
    let t = rust_tree();
    t.write("src/util.rs", "pub fn helper() {}\n");
    let v = rename(&t, json!({ "name": "helper", "new_name": "assist" }), 3);
    assert_eq!(error_code(&v), "ambiguous");
    let listed: Vec<&str> =
        v["error"]["details"]["candidates"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(listed, ["src/main.rs", "src/util.rs"]);
    // A path picks one.
    rename(&t, json!({ "name": "helper", "new_name": "assist", "path": "src/util.rs" }), 0);
    assert_eq!(read(&t, "src/util.rs"), "pub fn assist() {}\n");
    // A sibling of the new name.
    let v = rename(&t, json!({ "name": "Agent/step", "new_name": "run" }), 3);
    assert_eq!(error_code(&v), "name_collision");
    assert_eq!(v["error"]["details"]["line"], 10);
    // A local whose scope already uses the new name.
    let v =
        rename(&t, json!({ "name": "count", "new_name": "self_count", "path": "src/agent.rs", "line_hint": 15 }), 0);
    assert_eq!(v["renames"][0]["scope"], "local");
    assert!(read(&t, "src/agent.rs").contains("let self_count = 2;\n        self_count * 2"));
    let v = rename(&t, json!({ "name": "no_such_name", "new_name": "x" }), 2);
    assert_eq!(error_code(&v), "not_found");
    let v = rename(&t, json!({ "name": "Agent/run", "new_name": "not valid" }), 2);
    assert_eq!(error_code(&v), "invalid_arguments");
}

#[test]
fn rename_locals_by_scope_in_python_javascript_and_go() {
    let t = TestDir::new();
    t.write(
        "m.py",
        "value = 10\n\ndef f(value):\n    return value + 1\n\ndef g():\n    return value\n\nclass K:\n    def run(self):\n        return self.run\n",
    );
    rename(&t, json!({ "name": "value", "new_name": "amount", "path": "m.py", "line_hint": 3 }), 0);
    assert_eq!(
        read(&t, "m.py"),
        "value = 10\n\ndef f(amount):\n    return amount + 1\n\ndef g():\n    return value\n\nclass K:\n    def run(self):\n        return self.run\n"
    );
    t.write("a.js", "const x = 1;\nfunction f(x) {\n  const y = x * 2;\n  return () => x + y;\n}\nconsole.log(x);\n");
    rename(&t, json!({ "name": "x", "new_name": "n", "path": "a.js", "line_hint": 2 }), 0);
    assert_eq!(
        read(&t, "a.js"),
        "const x = 1;\nfunction f(n) {\n  const y = n * 2;\n  return () => n + y;\n}\nconsole.log(x);\n"
    );
    t.write(
        "c.go",
        "package c\n\ntype Command struct{ Name string }\n\nfunc (c *Command) Title() string { return c.Name }\n\nfunc Use(c *Command) string { return c.Title() }\n",
    );
    let v = rename(&t, json!({ "name": "Command/Title", "new_name": "Heading" }), 0);
    assert_eq!(
        read(&t, "c.go"),
        "package c\n\ntype Command struct{ Name string }\n\nfunc (c *Command) Heading() string { return c.Name }\n\nfunc Use(c *Command) string { return c.Heading() }\n"
    );
    assert_eq!(v["renames"][0]["scope"], "member");
    if aide_tests::oracle("python3", "a renamed Python file still compiles") {
        let ok = std::process::Command::new("python3")
            .args(["-m", "py_compile", "m.py"])
            .current_dir(t.root())
            .status()
            .unwrap();
        assert!(ok.success());
    }
}

#[test]
fn java_members_are_renamed_through_implicit_this() {
    let t = TestDir::new();
    t.write(
        "A.java",
        "class A {\n    int size;\n    int size() { return size; }\n    int twice() { return size() * 2 + this.size; }\n}\nclass B {\n    int size() { return 0; }\n    int use(A a) { return size() + a.size(); }\n}\n",
    );
    let v = rename(&t, json!({ "name": "A/size", "new_name": "count", "line_hint": 3 }), 0);
    assert_eq!(
        read(&t, "A.java"),
        "class A {\n    int size;\n    int count() { return size; }\n    int twice() { return count() * 2 + this.size; }\n}\nclass B {\n    int size() { return 0; }\n    int use(A a) { return size() + a.count(); }\n}\n"
    );
    // `a` is declared an A; B's own size() is B's.
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
}

#[test]
fn every_edit_reports_its_sites_so_the_next_edit_needs_no_read() {
    let t = rust_tree();
    let v = rename(&t, json!({ "name": "Agent/count", "new_name": "total" }), 0);
    let file = v["files"].as_array().unwrap().iter().find(|f| f["path"] == "src/agent.rs").unwrap();
    let after = read(&t, "src/agent.rs");
    let sites = file["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 3);
    for s in sites {
        let (a, b) =
            (s["after"]["byte_start"].as_u64().unwrap() as usize, s["after"]["byte_end"].as_u64().unwrap() as usize);
        assert_eq!(&after[a..b], "total");
        assert_eq!(s["before"]["line"], s["after"]["line"]);
    }
    // Chain: a span edit at a reported site, guarded by checksum_after.
    let s = &sites[2];
    let edit = json!({ "edits": [{ "path": "src/agent.rs", "byte_start": s["after"]["byte_start"], "byte_end": s["after"]["byte_end"],
        "replacement": "sum", "checksum_before": file["checksum_after"] }] });
    transform(&t, edit, 0);
    assert!(read(&t, "src/agent.rs").contains("self.sum + self.step()"));
}

/// cobra's `--references Name` listed pflag's `flag.Name` fields: a name
/// path that names one definition now gets its uses, each saying how it
/// matched, and nothing that means another symbol.
#[test]
fn references_of_one_definition_are_judged_not_just_spelled_alike() {
    let t = TestDir::new();
    t.write(
        "command.go",
        "package cobra\n\ntype Command struct{ use string }\n\nfunc (c *Command) Name() string { return c.use }\n\nfunc (c *Command) Title() string { return \"cmd \" + c.Name() }\n",
    )
    .write(
        "flag.go",
        "package cobra\n\ntype Flag struct{ Name string }\n\nfunc show(f *Flag) string { return f.Name }\n\nfunc local() string { Name := \"x\"; return Name }\n\nfunc any(v interface{ Name() string }) string { return v.Name() }\n",
    );
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Command/Name", "--include-definition"]).json(0);
    assert_eq!(v["matching"], "definition");
    let got: Vec<(String, u64, String, String)> = v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["line"].as_u64().unwrap(),
                r["kind"].as_str().unwrap().to_string(),
                r["matched"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("command.go", 5, "definition", "resolved"),
        ("command.go", 7, "call", "resolved"),
        ("flag.go", 9, "call", "unresolved"),
    ];
    let expected: Vec<(String, u64, String, String)> =
        expected.iter().map(|(p, l, k, m)| (p.to_string(), *l, k.to_string(), m.to_string())).collect();
    assert_eq!(got, expected, "f.Name is a Flag's field; the local `Name` is another binding");
    // Text mode marks the doubtful site.
    let (text, _) = t.cmd("llm-ast-search").args(["--references", "Command/Name"]).expect_exit(0);
    assert!(text.contains("flag.go:9:58: [call] in any (unresolved): "), "{text}");
    // A bare name with several definitions: every use by name, all unresolved.
    let v: Value = t.cmd("llm-ast-search").args(["--references", "Name"]).json(0);
    assert_eq!(v["matching"], "by_name");
    assert!(v["references"].as_array().unwrap().iter().all(|r| r["matched"] == "unresolved"));
}

#[test]
fn doc_comments_that_name_the_symbol_follow_a_rename() {
    // Go: the doc comment begins with the name.
    let t = TestDir::new();
    t.write(
        "flag.go",
        "package flag\n\n// Parse reads the flags.\n// Parse is safe to call twice.\nfunc Parse() {}\n\n// Other mentions Parse but is not its doc.\nfunc Other() { Parse() }\n",
    );
    let v = rename(&t, json!({ "name": "Parse", "new_name": "ParseAll" }), 0);
    let go = read(&t, "flag.go");
    assert!(go.contains("// ParseAll reads the flags.\n// Parse is safe"), "only the first word of the doc: {go}");
    assert!(go.contains("// Other mentions Parse but") && go.contains("func Other() { ParseAll() }"), "{go}");
    let doc = sites(&v).into_iter().find(|s| s.1 == 3).unwrap();
    assert_eq!(doc.2, "resolved", "{v}");

    // Rust: intra-doc links to the symbol, bare or qualified, in ///, //!.
    let t = rust_tree();
    t.write(
        "src/lib.rs",
        "//! The [`Agent`] type and [`Agent::run`].\n/// Runs an [Agent]; see [`Agent::run()`], not [`Other::run`].\npub fn drive() {}\n",
    );
    rename(&t, json!({ "name": "Agent/run", "new_name": "execute" }), 0);
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("[`Agent::execute`]") && lib.contains("[`Agent::execute()`]"), "{lib}");
    assert!(lib.contains("[`Other::run`]"), "another type's method is not this one: {lib}");
    rename(&t, json!({ "name": "Agent", "new_name": "Robot" }), 0);
    let lib = read(&t, "src/lib.rs");
    assert!(lib.contains("//! The [`Robot`] type") && lib.contains("Runs an [Robot]"), "{lib}");
}

#[test]
fn unresolved_sites_are_renamed_or_skipped_only_when_asked() {
    let t = TestDir::new();
    t.write(
        "app.py",
        "class Blueprint:\n    def add_rule(self):\n        pass\n\nclass Flask:\n    def add_rule(self):\n        pass\n\ndef setup(app):\n    app.add_rule()\n",
    );
    let v = rename(&t, json!({ "name": "Blueprint/add_rule", "new_name": "add_route" }), 3);
    assert_eq!(v["error"]["code"], "unresolved_sites");
    assert_eq!(v["error"]["details"]["sites"][0]["line"], 10, "{v}");
    let v = rename(&t, json!({ "name": "Blueprint/add_rule", "new_name": "add_route", "include_unresolved": true }), 0);
    assert_eq!(v["renames"][0]["unresolved"], 0, "{v}");
    assert!(read(&t, "app.py").contains("app.add_route()"));
}
