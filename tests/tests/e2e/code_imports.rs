//! llm-code's imports and exports against the languages' own readers:
//! Python's `ast` on standard-library modules (imports, the names a module
//! binds, `__all__` as it is built), universal-ctags on C and C++ globals,
//! the TypeScript compiler on TypeScript's imports and exports; and its
//! refusals name the argument at fault.

use std::collections::BTreeMap;
use std::process::Command;

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

use crate::code::{code, stdlib_modules_named};

/// What Python's own `ast` says of each module: its imports (line, kind,
/// module, names, alias); the names it binds at module level (at any depth
/// of its `if`/`try`/`with`/`for`/`while`/`match`, not in a def or class),
/// each at its first binding, less those an unconditional module-level
/// `del` removes; and its `__all__` as those statements build it.
const AST_ORACLE: &str = r#"
import ast, json, sys

def inner(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    lists = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody")]
    lists += [h.body for h in getattr(stmt, "handlers", None) or []]
    lists += [c.body for c in getattr(stmt, "cases", None) or []]
    return [s for l in lists for s in l]

def module_statements(tree):
    out, todo = [], [(s, True) for s in tree.body]
    while todo:
        stmt, top = todo.pop()
        out.append((stmt, top))
        todo.extend((s, False) for s in inner(stmt))
    return sorted(out, key=lambda p: (p[0].lineno, p[0].col_offset))

def names(target, out):
    if isinstance(target, ast.Name):
        out.append(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            names(e, out)
    elif isinstance(target, ast.Starred):
        names(target.value, out)
    return out

def bound(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [(stmt.name, "Function")]
    if isinstance(stmt, ast.ClassDef):
        return [(stmt.name, "Class")]
    if isinstance(stmt, ast.Assign):
        return [(n, "Variable") for t in stmt.targets for n in names(t, [])]
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return [(n, "Variable") for n in names(stmt.target, [])]
    if isinstance(stmt, ast.AugAssign):
        return [(n, "Variable") for n in names(stmt.target, [])]
    if isinstance(stmt, ast.Import):
        return [(a.asname or a.name.split(".")[0], "Import") for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom):
        return [(a.asname or a.name, "Import") for a in stmt.names if a.name != "*"]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [(n, "Variable") for n in names(stmt.target, [])]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [(n, "Variable") for i in stmt.items if i.optional_vars for n in names(i.optional_vars, [])]
    return []

def is_all(node):
    return isinstance(node, ast.Name) and node.id == "__all__"

def strings(value, state):
    if isinstance(value, (ast.List, ast.Tuple)):
        for e in value.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                state["names"].append(e.value)
            else:
                state["dynamic"] = True
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        strings(value.left, state)
        strings(value.right, state)
    else:
        state["dynamic"] = True

def read(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                imports.append([node.lineno, "import", a.name, [], a.asname])
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names_ = [a.name + (" as " + a.asname if a.asname else "") for a in node.names]
            imports.append([node.lineno, "from", module, names_, None])
    live, all_ = {}, None
    for stmt, top in module_statements(tree):
        if isinstance(stmt, ast.Delete):
            if top:
                for t in stmt.targets:
                    for n in names(t, []):
                        live.pop(n, None)
            continue
        for name, kind in bound(stmt):
            live.setdefault(name, kind)
        value = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_all(stmt.targets[0]):
            value = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and is_all(stmt.target) and stmt.value is not None:
            value = stmt.value
        if value is not None:
            all_ = {"names": [], "dynamic": False}
            strings(value, all_)
        elif all_ is not None and isinstance(stmt, ast.AugAssign) and is_all(stmt.target):
            strings(stmt.value, all_)
        elif all_ is not None and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            f, args = stmt.value.func, stmt.value.args
            if isinstance(f, ast.Attribute) and is_all(f.value):
                literal = bool(args) and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)
                if f.attr == "extend" and args:
                    strings(args[0], all_)
                elif f.attr == "append":
                    all_["names"].append(args[0].value) if literal else all_.update(dynamic=True)
                elif f.attr == "remove":
                    if not literal:
                        all_["dynamic"] = True
                    elif args[0].value in all_["names"]:
                        all_["names"].remove(args[0].value)
    public = sorted([n, k] for n, k in live.items() if not n.startswith("_"))
    star = any(isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names) for s, _ in module_statements(tree))
    exported = None
    if all_ is not None:
        exported = {"names": [[n, live.get(n, "Unknown")] for n in all_["names"]], "complete": not all_["dynamic"]}
    return {"imports": sorted(imports, key=json.dumps), "public": public, "complete": not star, "all": exported}

print(json.dumps({path: read(path) for path in sys.argv[1:]}))
"#;

/// Modules that bind names under `try`/`if` (json/encoder.py's
/// `try: from _json import … except ImportError: … = None`, bisect.py's
/// `try: from _bisect import *`, selectors.py's `if 'KqueueSelector' in
/// globals()`), without `__all__`, and modules that build
/// `__all__` in steps (os.py, socket.py, pickle.py, token.py: `.extend`,
/// `.append`, some conditional, some of values read at run time;
/// tokenize.py: `token.__all__ + […]`).
const MODULES: &[&str] = &[
    "json/decoder.py",
    "json/encoder.py",
    "json/scanner.py",
    "argparse.py",
    "textwrap.py",
    "shlex.py",
    "csv.py",
    "difflib.py",
    "tarfile.py",
    "os.py",
    "socket.py",
    "pickle.py",
    "token.py",
    "tokenize.py",
    "threading.py",
    "subprocess.py",
    "bisect.py",
    "stat.py",
    "hmac.py",
    "selectors.py",
    "platform.py",
    "uuid.py",
];

// Long because: one oracle comparison, Python's ast run over the modules, and each file's imports, bindings and __all__ held to it.
#[test]
fn python_imports_bindings_and_all_equal_what_pythons_ast_reads() {
    if !aide_tests::oracle("python3", "llm-code imports against Python's ast") {
        return;
    }
    let t = TestDir::new();
    let modules = stdlib_modules_named(MODULES);
    for (name, text) in &modules {
        t.write(name, text);
    }
    let names: Vec<&str> = modules.iter().map(|(n, _)| n.as_str()).collect();
    let out = Command::new("python3").arg("-c").arg(AST_ORACLE).args(&names).current_dir(t.root()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let oracle: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = code(&t, &["imports", "--language", "python"], 0);
    let files = ours["files"].as_array().unwrap();
    assert_eq!(files.len(), modules.len());
    let (mut imports_compared, mut alls, mut incomplete, mut publics) = (0, 0, 0, 0);
    for file in files {
        let path = file["path"].as_str().unwrap();
        let mut got: Vec<Value> = file["imports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| json!([i["line"], i["kind"], i["module"], i["names"], i["alias"]]))
            .collect();
        got.sort_by_key(|v| v.to_string());
        let mut want: Vec<Value> = oracle[path]["imports"].as_array().unwrap().clone();
        want.sort_by_key(|v| v.to_string());
        assert_eq!(got, want, "{path}");
        imports_compared += got.len();
        let exported: Vec<Value> =
            file["exports"].as_array().unwrap().iter().map(|e| json!([e["name"], e["kind"]])).collect();
        match oracle[path]["all"].as_object() {
            Some(all) => {
                assert_eq!(file["exports_from"], "all", "{path}");
                assert_eq!(&Value::Array(exported), &all["names"], "{path}: __all__ in order, with each name's kind");
                assert_eq!(file["exports_complete"], all["complete"], "{path}");
                alls += 1;
                incomplete += usize::from(all["complete"] == false);
            }
            None => {
                assert_eq!(file["exports_from"], "language", "{path}");
                let mut sorted = exported.clone();
                sorted.sort_by_key(|v| v.to_string());
                let mut want = oracle[path]["public"].as_array().unwrap().clone();
                want.sort_by_key(|v| v.to_string());
                assert_eq!(sorted, want, "{path}: the public names it binds at module level");
                assert_eq!(
                    file["exports_complete"], oracle[path]["complete"],
                    "{path}: a star import binds unseen names"
                );
                publics += 1;
            }
        }
    }
    assert!(imports_compared > 100, "only {imports_compared} imports compared");
    assert!(alls >= 8 && incomplete >= 3 && publics >= 5, "{alls} __all__, {incomplete} incomplete, {publics} public");
    // json/encoder.py's `try: from _json import …` names are its own.
    let encoder = files.iter().find(|f| f["path"] == "json_encoder.py").unwrap();
    let has = |name: &str| encoder["exports"].as_array().unwrap().iter().any(|e| e["name"] == name);
    assert!(has("c_encode_basestring_ascii") && has("c_make_encoder"), "{encoder}");

    let mut client = McpClient::initialized(t.root(), t.home(), &["--structured", "full"], json!({}));
    let called = client.call("code_imports", json!({ "language": "python", "limit": 2 }));
    assert_eq!(called["structuredContent"]["files"].as_array().map(Vec::len), Some(2), "{called}");
    assert_eq!(called["structuredContent"]["files"][0], files[0]);
}

/// C and C++ globals in every form universal-ctags reads: several a
/// declaration, pointers, arrays, function pointers, under `#ifdef`, in
/// namespaces and `extern "C"`, `static` ones, `extern` ones.
const C_SOURCE: &str = "#include <stdio.h>\nint g = 3;\nstatic int s;\nextern int e;\nint a = 1, b = 2;\nint *p, arr[4];\nconst char *names[] = {\"x\"};\nint f(void);\nint (*fp)(int);\nstruct point { int x; } origin;\ntypedef int T;\n#ifdef X\nint cond = 1;\n#endif\nint main(void) { int local = 2; static int kept; return local + kept; }\n";
const CPP_SOURCE: &str = "int g = 3;\nnamespace ns { int inner = 1; extern int ext; static int hidden; }\nextern \"C\" { int linked; }\nclass K { static int count; };\nauto lam = [](int x) { int y = x; return y; };\nint run() { int local = 0; return local; }\n";

// Long because: one oracle comparison, ctags' variables read, then the outline's and the exports' held to them.
#[test]
fn c_and_cpp_globals_are_outlined_and_exported_as_universal_ctags_lists_them() {
    if !aide_tests::oracle("ctags", "C and C++ globals against universal-ctags") {
        return;
    }
    let t = TestDir::new();
    t.write("g.c", C_SOURCE);
    t.write("g.cpp", CPP_SOURCE);
    let out = Command::new("ctags")
        .args(["--output-format=json", "--fields=+n", "--kinds-C=+x", "--kinds-C++=+x", "-o", "-", "g.c", "g.cpp"])
        .current_dir(t.root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // (path, name, line) → (outline kind, offered to other files).
    let mut theirs: BTreeMap<(String, String, u64), (&str, bool)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let tag: Value = serde_json::from_str(line).unwrap();
        let kind = match tag["kind"].as_str() {
            Some("variable") => "Static",
            Some("externvar") => "Declaration",
            _ => continue,
        };
        let name = match tag["scope"].as_str() {
            Some(scope) => format!("{scope}/{}", tag["name"].as_str().unwrap()),
            None => tag["name"].as_str().unwrap().to_string(),
        };
        // ctags marks what only its file sees (`static`) with `file`.
        let key = (tag["path"].as_str().unwrap().to_string(), name, tag["line"].as_u64().unwrap());
        theirs.insert(key, (kind, tag["file"] != true));
    }
    assert!(theirs.len() >= 15, "ctags listed too few globals: {theirs:?}");

    let outline: Value = t.cmd("llm-ast-search").args(["g.c", "g.cpp"]).json(0);
    let mut ours: BTreeMap<(String, String, u64), String> = BTreeMap::new();
    for s in outline["symbols"].as_array().unwrap() {
        let kind = s["kind"].as_str().unwrap();
        // Prototypes are Declarations too; ctags' prototypes are not asked for.
        let prototype = kind == "Declaration" && s["signature"].as_str().unwrap().contains('(');
        if (kind == "Static" || kind == "Declaration") && !prototype {
            let key = (s["path"].as_str().unwrap().to_string(), s["name_path"].as_str().unwrap().to_string());
            ours.insert((key.0, key.1, s["line"].as_u64().unwrap()), kind.to_string());
        }
    }
    let want: BTreeMap<_, String> = theirs.iter().map(|(k, (kind, _))| (k.clone(), kind.to_string())).collect();
    assert_eq!(ours, want, "the outline's globals are ctags' variables and extern variables");

    // Exports: the globals other files may use, those ctags does not mark `file`.
    let imports = code(&t, &["imports", "g.c", "g.cpp"], 0);
    let mut exported: Vec<(String, String, u64)> = Vec::new();
    for file in imports["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        for e in file["exports"].as_array().unwrap() {
            exported.push((path.to_string(), e["name"].as_str().unwrap().to_string(), e["line"].as_u64().unwrap()));
        }
    }
    // The globals among them (not the functions, types, prototypes).
    exported.retain(|k| theirs.contains_key(k));
    exported.sort();
    let offered: Vec<_> = theirs.iter().filter(|(_, (_, offered))| *offered).map(|(k, _)| k.clone()).collect();
    assert_eq!(exported, offered, "exported globals are ctags' non-file-scoped ones");
}

/// TypeScript in the forms the compiler reads: static, type-only,
/// `import = require`, re-exports, dynamic `import()`, and every kind of
/// declaration exported, directly, by default or by `export { … }`.
const TS_SOURCE: &str = "import React, { useState as us } from 'react';\nimport * as path from \"path\";\nimport './side.css';\nimport fs = require('fs');\nimport type { Thing } from './types';\nexport { a, b as c } from './lib';\nexport type { Id as Key } from './ids';\nexport type Id = string;\nexport interface Shape { area(): number }\nexport enum Color { Red }\nexport const enum Flag { On }\nexport abstract class Base {}\nexport namespace NS { export const inner = 1; }\nexport declare function declared(): void;\nexport function* gen() {}\nexport const x = 1, y = 2;\nexport let z: number;\nexport default interface Props { id: Id }\nconst local = 3;\nfunction helper() { return local; }\nexport { local as renamed, helper };\nexport * as tools from './tools';\nasync function load(lang: string): Promise<unknown[]> {\n  const m = await import('./m.js');\n  const l = await import(`./locale/${lang}.js`);\n  return [m, l, us, path, fs, React];\n}\n";
/// JavaScript's CommonJS `require` and a dynamic `import()`.
const JS_SOURCE: &str = "const fs = require('fs');\nconst { join } = require(\"path\");\nasync function later() {\n  const plugin = await import('./plugin.js');\n  return plugin;\n}\nmodule.exports = { later, fs, join };\n";

/// The kinds a `.d.ts` file `tsc --declaration` wrote declares its exports
/// with, one top-level statement a line: (name, kind).
fn declared_exports(dts: &str) -> Vec<(String, String)> {
    let declaration = regex::Regex::new(
        r"^export (default )?(?:declare )?(?:abstract )?(?:const )?(enum|class|interface|type|namespace|function|const|let|var) (.*)$",
    )
    .unwrap();
    let clause = regex::Regex::new(r"^export (?:type )?\{ (.*) \}( from .*)?;$").unwrap();
    let local = regex::Regex::new(r"^declare (?:const|let|var|function|class) (\w+)").unwrap();
    let name = regex::Regex::new(r"^\w+").unwrap();
    let namespace = regex::Regex::new(r"^export \* as (\w+) from ").unwrap();
    let kind_of = |word: &str| match word {
        "enum" => "Enum",
        "class" => "Class",
        "interface" => "Interface",
        "type" => "TypeAlias",
        "namespace" => "Namespace",
        "function" => "Function",
        _ => "Variable",
    };
    let mut locals = BTreeMap::new();
    for line in dts.lines() {
        if let Some(c) = local.captures(line) {
            let word = line.split_whitespace().nth(1).unwrap_or("");
            locals.insert(c[1].to_string(), kind_of(word));
        }
    }
    let mut out = Vec::new();
    for line in dts.lines() {
        if let Some(c) = namespace.captures(line) {
            out.push((c[1].to_string(), "Reexport".to_string()));
        } else if let Some(c) = clause.captures(line) {
            for specifier in c[1].split(", ") {
                let (from, to) = specifier.split_once(" as ").unwrap_or((specifier, specifier));
                let kind = if c.get(2).is_some() { "Reexport" } else { locals.get(from).copied().unwrap_or("Unknown") };
                out.push((to.to_string(), kind.to_string()));
            }
        } else if let Some(c) = declaration.captures(line) {
            let kind = kind_of(&c[2]);
            if c.get(1).is_some() {
                out.push(("default".to_string(), kind.to_string()));
            } else if kind == "Variable" {
                // `x = 1, y = 2;`: each declarator's name.
                for part in c[3].split(", ") {
                    out.push((name.find(part).unwrap().as_str().to_string(), kind.to_string()));
                }
            } else {
                out.push((name.find(&c[3]).unwrap().as_str().to_string(), kind.to_string()));
            }
        }
    }
    out
}

// Long because: two oracle runs of tsc (its module resolutions, its declaration file) and each held to llm-code's answer.
#[test]
fn typescript_imports_and_export_kinds_equal_what_tsc_reads() {
    if !aide_tests::oracle("tsc", "llm-code imports against the TypeScript compiler") {
        return;
    }
    let t = TestDir::new();
    t.write("m.ts", TS_SOURCE);
    t.write("c.js", JS_SOURCE);
    // Every module the compiler resolves, by file: imports of every kind,
    // `import()` and (in JavaScript) `require` with a literal specifier.
    let out = Command::new("tsc")
        .args(["--traceResolution", "--noEmit", "--allowJs", "--skipLibCheck", "m.ts", "c.js"])
        .current_dir(t.root())
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&out.stdout);
    let resolving = regex::Regex::new(r"^======== Resolving module '([^']+)' from '([^']+)'\. ========$").unwrap();
    let mut theirs: Vec<(String, String)> = trace
        .lines()
        .filter_map(|l| resolving.captures(l))
        .map(|c| (c[2].rsplit('/').next().unwrap().to_string(), c[1].to_string()))
        .collect();
    theirs.sort();
    theirs.dedup();
    assert!(theirs.len() >= 10, "tsc resolved too little: {trace}");

    let ours = code(&t, &["imports"], 0);
    let files = ours["files"].as_array().unwrap();
    let mut got: Vec<(String, String)> = Vec::new();
    for file in files {
        let path = file["path"].as_str().unwrap();
        for i in file["imports"].as_array().unwrap() {
            let module = i["module"].as_str().unwrap();
            // A computed specifier is not resolved; TypeScript's `require` is a call.
            if module.starts_with('`') || (path.ends_with(".ts") && i["kind"] == "require") {
                continue;
            }
            got.push((path.to_string(), module.to_string()));
        }
    }
    got.sort();
    got.dedup();
    assert_eq!(got, theirs, "the modules tsc resolves are llm-code's imports");
    let kinds = |path: &str| -> Vec<String> {
        let file = files.iter().find(|f| f["path"] == path).unwrap();
        file["imports"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(kinds("c.js"), ["require", "require", "dynamic_import"], "{ours}");
    assert_eq!(kinds("m.ts").iter().filter(|k| *k == "dynamic_import").count(), 2, "{ours}");

    // The declaration file tsc writes says each export's kind.
    let out = Command::new("tsc")
        .args(["--declaration", "--emitDeclarationOnly", "--skipLibCheck", "--outDir", "types", "m.ts"])
        .current_dir(t.root())
        .output()
        .unwrap();
    let dts = std::fs::read_to_string(t.root().join("types/m.d.ts"))
        .unwrap_or_else(|e| panic!("tsc wrote no m.d.ts ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let mut want = declared_exports(&dts);
    want.sort();
    let m = files.iter().find(|f| f["path"] == "m.ts").unwrap();
    let mut exported: Vec<(String, String)> = m["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["kind"].as_str().unwrap().to_string()))
        .collect();
    exported.sort();
    assert!(want.len() >= 15, "{dts}");
    assert_eq!(exported, want, "tsc's declarations:\n{dts}");
}

/// A path or language the request gets wrong is refused naming the
/// argument, on the command line and over MCP.
#[test]
fn bad_paths_and_languages_are_refused_naming_the_argument() {
    let t = TestDir::new();
    t.write("a.py", "def f():\n    return 1\n");
    let v: Value = t.cmd("llm-code").args(["metrics", "missing/"]).json(2);
    assert_eq!(
        (v["error"]["code"].as_str(), v["error"]["details"]["field"].as_str()),
        (Some("not_found"), Some("paths")),
        "{v}"
    );
    let v: Value = t.cmd("llm-code").args(["imports", "../outside.py"]).json(2);
    assert_eq!(v["error"]["details"]["field"], "paths", "{v}");
    let v: Value = t.cmd("llm-code").args(["duplicates", "--language", "cobol"]).json(2);
    assert_eq!(
        (v["error"]["code"].as_str(), v["error"]["details"]["field"].as_str()),
        (Some("unknown_language"), Some("language")),
        "{v}"
    );
    assert!(v["error"]["hint"].as_str().unwrap().contains("python"), "{v}");

    let mut client = McpClient::initialized(t.root(), t.home(), &["--structured", "full"], json!({}));
    let called = client.call("code_metrics", json!({ "paths": "missing/" }));
    assert_eq!(called["structuredContent"]["error"]["details"]["field"], "paths", "{called}");
    let called = client.call("code_imports", json!({ "language": "cobol" }));
    assert_eq!(called["structuredContent"]["error"]["details"]["field"], "language", "{called}");
}
