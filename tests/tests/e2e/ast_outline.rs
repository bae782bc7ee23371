//! llm-ast-search's outline held against universal-ctags, in every language and this repository, and items in macro bodies and behind conditions.

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::ast::{ast, fixture_tree, span_text};

/// Recall of universal-ctags' functions, methods, classes, structs, enums,
/// traits and interfaces by our outline, per ctags language, in `dir`.
fn ctags_recall(dir: &std::path::Path, ours: &Value) -> Vec<(String, usize, usize, Vec<String>)> {
    use std::collections::{BTreeMap, HashMap};
    let out = std::process::Command::new("ctags")
        .args(["-R", "--output-format=json", "--fields=+nKl", "--exclude=target", "--exclude=.git", "-f", "-", "."])
        .current_dir(dir)
        .output()
        .expect("universal-ctags is needed for the recall test (apt-get install universal-ctags)");
    let mut symbols: HashMap<(String, String), Vec<(u64, u64)>> = HashMap::new();
    for s in ours["symbols"].as_array().unwrap() {
        symbols
            .entry((s["path"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string()))
            .or_default()
            .push((s["line"].as_u64().unwrap(), s["end_line"].as_u64().unwrap()));
    }
    let mut per: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(tag) = serde_json::from_str::<Value>(line) else { continue };
        let (kind, language) = (tag["kind"].as_str().unwrap_or(""), tag["language"].as_str().unwrap_or(""));
        let counted = matches!(
            kind,
            "function" | "func" | "method" | "methodSpec" | "class" | "struct" | "enum" | "trait" | "interface"
        ) || (kind == "member" && language == "Python");
        let name = tag["name"].as_str().unwrap_or("");
        if !counted || ["__anon", "AnonymousFunction", "AnonymousClass"].iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let path = tag["path"].as_str().unwrap_or("").trim_start_matches("./").to_string();
        let line_no = tag["line"].as_u64().unwrap_or(0);
        let e = per.entry(language.to_string()).or_default();
        e.0 += 1;
        if symbols
            .get(&(path.clone(), name.to_string()))
            .is_some_and(|r| r.iter().any(|&(a, b)| a <= line_no && line_no <= b))
        {
            e.1 += 1;
        } else {
            e.2.push(format!("{path}:{line_no} {kind} {name}"));
        }
    }
    per.into_iter().map(|(l, (n, f, m))| (l, n, f, m)).collect()
}

#[test]
fn ctags_definitions_are_found_in_every_language_and_in_this_repository() {
    if !aide_tests::oracle("ctags", "llm-ast-search finds universal-ctags' definitions (ctags recall)") {
        return;
    }
    let t = fixture_tree();
    let ours = ast(&t, &[], 0);
    let recall = ctags_recall(t.root(), &ours);
    assert!(recall.len() >= 8, "ctags saw too few languages: {recall:?}");
    for (language, total, found, missed) in &recall {
        assert!(*found as f64 >= 0.95 * *total as f64, "{language}: {found}/{total}; missed {missed:?}");
    }
    // This repository's own Rust.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let ours: Value =
        t.cmd("llm-ast-search").args(["--root"]).arg(repo).args(["--language", "rust", "--max-filesize", "2M"]).json(0);
    for (language, total, found, missed) in ctags_recall(repo, &ours).iter().filter(|r| r.0 == "Rust") {
        assert!(*total > 500, "{language}: only {total} ctags symbols");
        assert!(
            *found as f64 >= 0.95 * *total as f64,
            "{language}: {found}/{total}; missed {:?}",
            &missed[..missed.len().min(10)]
        );
    }
}

/// tokio keeps much of its API inside `cfg_*! { … }` blocks: the items of
/// an item-position macro body are outlined, found and editable where they
/// stand; a body that is not items is counted, never silently dropped.
#[test]
fn items_inside_macro_bodies_are_outlined_found_and_editable() {
    let t = TestDir::new();
    let source = "pub struct Builder {\n    io: bool,\n}\n\nimpl Builder {\n    cfg_time! {\n        /// Enables the time driver.\n        pub fn enable_time(&mut self) -> &mut Self {\n            self\n        }\n    }\n}\n\ncfg_io_driver! {\n    impl Builder {\n        pub fn enable_io(&mut self) -> &mut Self {\n            self.io = true;\n            self\n        }\n    }\n\n    cfg_rt! {\n        pub enum UnhandledPanic { Ignore, ShutdownRuntime }\n    }\n}\n\nmacro_rules! m { ($($t:tt)*) => {} }\nm! { this is not + items }\n";
    t.write("builder.rs", source);
    let v = ast(&t, &["--symbols", "builder.rs"], 0);
    let paths: Vec<&str> = v["symbols"].as_array().unwrap().iter().map(|s| s["name_path"].as_str().unwrap()).collect();
    for wanted in ["impl Builder/enable_time", "impl Builder/enable_io", "UnhandledPanic", "UnhandledPanic/Ignore"] {
        assert!(paths.contains(&wanted), "{wanted} missing from {paths:?}");
    }
    // Spans are the file's own.
    let io = v["symbols"].as_array().unwrap().iter().find(|s| s["name"] == "enable_io").unwrap();
    assert!(span_text(source, io).starts_with("pub fn enable_io(&mut self)"), "{io}");
    assert_eq!(io["line"], 16);
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(diags.iter().any(|d| d["code"] == "macro_not_indexed"), "the m! body is counted: {v}");
    let v = ast(&t, &["--definitions", "enable_io"], 0);
    assert_eq!(v["definitions"][0]["name_path"], "impl Builder/enable_io", "{v}");
    // A use inside a macro body is a reference, enclosed by its function there.
    t.write("uses.rs", "fn helper() -> u32 { 1 }\ncfg_rt! {\n    pub fn uses() -> u32 { helper() }\n}\n");
    let v = ast(&t, &["--references", "helper", "uses.rs"], 0);
    assert_eq!((&v["references"][0]["line"], &v["references"][0]["enclosing"]), (&json!(3), &json!("uses")), "{v}");
    // A block edit inside a macro body lands there, re-indented.
    let request = json!({ "operations": [{ "op": "replace_block", "path": "builder.rs", "kind": "method", "name": "enable_io",
        "new_block": "pub fn enable_io(&mut self) -> &mut Self {\n    self.io = false;\n    self\n}" }] });
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).expect_exit(0);
    let after = std::fs::read_to_string(t.root().join("builder.rs")).unwrap();
    assert!(
        after.contains(
            "    impl Builder {\n        pub fn enable_io(&mut self) -> &mut Self {\n            self.io = false;\n"
        ),
        "{after}"
    );
}

/// What hides definitions in the other languages is looked through:
/// Python's module-level `if TYPE_CHECKING:` and `try:`, TypeScript's
/// `declare module`, namespaces and `declare global`, C's preprocessor
/// branches.
#[test]
fn definitions_behind_conditions_and_declarations_are_outlined_in_every_language() {
    let t = TestDir::new();
    t.write("a.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    class Hidden:\n        def m(self): pass\ntry:\n    def fast(): pass\nexcept ImportError:\n    def slow(): pass\n");
    t.write("b.ts", "declare module \"foo\" {\n  export function bar(): void;\n}\nnamespace NS {\n  export namespace Deep { export class K {} }\n}\ndeclare global { interface Window { w: number } }\n");
    t.write("c.c", "#ifdef _WIN32\nint win_only(void) { return 1; }\n#else\nint posix_only(void) { return 2; }\n#endif\n#if defined(X)\nstruct S { int a; };\n#endif\n");
    let v = ast(&t, &["--symbols"], 0);
    let paths: Vec<&str> = v["symbols"].as_array().unwrap().iter().map(|s| s["name_path"].as_str().unwrap()).collect();
    for wanted in ["Hidden/m", "fast", "slow", "\"foo\"/bar", "NS/Deep/K", "Window/w", "win_only", "posix_only", "S/a"]
    {
        assert!(paths.contains(&wanted), "{wanted} missing from {paths:?}");
    }
}

/// What Python's own `ast` says a module defines at module level (its
/// statements and those of its `if`/`try`/`with`/`for`/`while`/`match`
/// at any depth, not a def's or class's): its functions and classes, and
/// its constants (an UPPER_CASE name assigned alone): (line, kind, name).
const AST_TOP_LEVEL: &str = r#"
import ast, json, sys

def inner(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    lists = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody")]
    lists += [h.body for h in getattr(stmt, "handlers", None) or []]
    lists += [c.body for c in getattr(stmt, "cases", None) or []]
    return [s for l in lists for s in l]

out = {}
for path in sys.argv[1:]:
    todo, found = list(ast.parse(open(path, encoding="utf-8").read()).body), []
    while todo:
        stmt = todo.pop()
        todo.extend(inner(stmt))
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append([stmt.name, "Function"])
        elif isinstance(stmt, ast.ClassDef):
            found.append([stmt.name, "Class"])
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            name = target.id if isinstance(target, ast.Name) else ""
            if any(c.isupper() for c in name) and not any(c.islower() for c in name):
                found.append([name, "Constant"])
    out[path] = sorted(found)
print(json.dumps(out))
"#;

/// Python's module-level definitions, however deep in the module's own
/// `if`/`try` they stand (`if sys.platform == "win32": SEP = "\\"`), are
/// the outline's top-level symbols: held against Python's `ast` on
/// standard-library modules.
#[test]
fn python_module_level_definitions_equal_what_pythons_ast_reads() {
    if !aide_tests::oracle("python3", "the Python outline against Python's ast") {
        return;
    }
    let t = TestDir::new();
    let modules = crate::code::stdlib_modules_named(&[
        "os.py",
        "socket.py",
        "json/encoder.py",
        "platform.py",
        "tarfile.py",
        "subprocess.py",
        "selectors.py",
    ]);
    for (name, text) in &modules {
        t.write(name, text);
    }
    let names: Vec<&str> = modules.iter().map(|(n, _)| n.as_str()).collect();
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(AST_TOP_LEVEL)
        .args(&names)
        .current_dir(t.root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let oracle: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = ast(&t, &["--language", "python"], 0);
    let mut compared = 0;
    for (name, _) in &modules {
        let mut got: Vec<Value> = ours["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["path"] == name.as_str() && s["depth"] == 1)
            .filter(|s| matches!(s["kind"].as_str(), Some("Function" | "Class" | "Constant")))
            .map(|s| json!([s["name"], s["kind"]]))
            .collect();
        got.sort_by_key(|v| v.to_string());
        let mut want = oracle[name.as_str()].as_array().unwrap().clone();
        want.sort_by_key(|v| v.to_string());
        assert_eq!(got, want, "{name}");
        compared += got.len();
    }
    assert!(compared > 200, "only {compared} definitions compared");
}
