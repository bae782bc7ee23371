//! One small file per language: its imports and exports as written.

use aide_core::Lang;
use llm_ast_search::SourceFile;

use super::{ExportRule, FileImports, ImportKind, of_file};

fn read(lang: Lang, path: &str, text: &str) -> FileImports {
    let file = SourceFile::parse(path.to_string(), lang, text.as_bytes().to_vec()).expect("parses");
    of_file(&file)
}

/// (kind, module, names, alias) of each import.
fn imports(f: &FileImports) -> Vec<(ImportKind, String, Vec<String>, Option<String>)> {
    f.imports.iter().map(|i| (i.kind, i.module.clone(), i.names.clone(), i.alias.clone())).collect()
}

/// (name, kind) of each export.
fn exports(f: &FileImports) -> Vec<(String, String)> {
    f.exports.iter().map(|e| (e.name.clone(), e.kind.clone())).collect()
}

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| i.to_string()).collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn python_imports_and_public_names_or_all() {
    let text = "import os, numpy as np\nfrom . import sibling\nfrom a.b import c, d as e\nfrom m import *\n\ndef run():\n    import json\n\nclass Agent: pass\n_private = 1\nLIMIT, other = 1, 2\n";
    let f = read(Lang::Python, "m.py", text);
    use ImportKind::*;
    assert_eq!(
        imports(&f),
        vec![
            (Import, "os".into(), vec![], None),
            (Import, "numpy".into(), vec![], Some("np".into())),
            (From, ".".into(), s(&["sibling"]), None),
            (From, "a.b".into(), s(&["c", "d as e"]), None),
            (From, "m".into(), s(&["*"]), None),
            (Import, "json".into(), vec![], None),
        ]
    );
    assert_eq!(f.imports[0].span.line, 1);
    assert_eq!(f.exports_from, ExportRule::Language);
    assert_eq!(
        exports(&f),
        pairs(&[
            ("os", "Import"),
            ("np", "Import"),
            ("sibling", "Import"),
            ("c", "Import"),
            ("e", "Import"),
            ("run", "Function"),
            ("Agent", "Class"),
            ("LIMIT", "Variable"),
            ("other", "Variable"),
        ])
    );
    let with_all = read(Lang::Python, "m.py", "__all__ = ['run', \"Agent\"]\ndef run(): pass\ndef walk(): pass\n");
    assert_eq!(with_all.exports_from, ExportRule::All);
    assert!(with_all.exports_complete);
    assert_eq!(exports(&with_all), pairs(&[("run", "Function"), ("Agent", "Unknown")]));
}

/// json/encoder.py's `try: from _json import … except ImportError: … = None`:
/// names bound under module-level `if`/`try`/`with`/`for` are the module's;
/// a function's are not; an unconditional `del` removes one.
#[test]
fn python_names_bound_under_module_level_compound_statements_are_exported() {
    let text = "import sys\ntry:\n    import json\nexcept ImportError as err:\n    json = None\nif sys.version_info >= (3, 8):\n    def f(): pass\nelif sys.platform == 'x':\n    class C: pass\nelse:\n    g = h = 1\nwith open('x') as handle:\n    size: int = 1\n    hint: str\nfor item in []:\n    pass\nwhile False:\n    k += 1\ndef outer():\n    inner = 1\ndel item\nif True:\n    del sys\n";
    let f = read(Lang::Python, "m.py", text);
    assert_eq!(
        exports(&f),
        pairs(&[
            ("sys", "Import"),
            ("json", "Import"),
            ("f", "Function"),
            ("C", "Class"),
            ("g", "Variable"),
            ("h", "Variable"),
            ("handle", "Variable"),
            ("size", "Variable"),
            ("k", "Variable"),
            ("outer", "Function"),
        ])
    );
    // The first binding's place: the import, not `json = None`.
    assert_eq!(f.exports[1].span.line, 3);
    assert!(f.exports_complete);
    // bisect.py's `try: from _bisect import *`: names not written here.
    let star = read(
        Lang::Python,
        "m.py",
        "def insort(a, x): pass\ntry:\n    from _bisect import *\nexcept ImportError:\n    pass\n",
    );
    assert!(!star.exports_complete);
    assert_eq!(exports(&star), pairs(&[("insort", "Function")]));
}

/// os.py and socket.py build `__all__` in steps, some conditional, some
/// from values read at run time.
#[test]
fn python_all_built_in_steps_with_the_kinds_of_its_names() {
    let text = "import os\n__all__ = ['a', 'B']\n__all__ += ['c']\n__all__.extend(('os', 'gone'))\nif os.name == 'posix':\n    __all__.append('d')\n__all__.remove('gone')\ndef a(): pass\nclass B: pass\nc = 1\ntry:\n    from _d import d\nexcept ImportError:\n    pass\n";
    let f = read(Lang::Python, "m.py", text);
    assert_eq!(f.exports_from, ExportRule::All);
    assert!(f.exports_complete);
    assert_eq!(
        exports(&f),
        pairs(&[("a", "Function"), ("B", "Class"), ("c", "Variable"), ("os", "Import"), ("d", "Import")])
    );
    let dynamic =
        read(Lang::Python, "m.py", "import token\n__all__ = token.__all__ + ['tokenize']\ndef tokenize(): pass\n");
    assert!(!dynamic.exports_complete);
    assert_eq!(exports(&dynamic), pairs(&[("tokenize", "Function")]));
    let extended = read(Lang::Python, "m.py", "__all__ = ['x']\n__all__.extend(name for name in dir())\nx = 1\n");
    assert!(!extended.exports_complete);
    // A fresh assignment starts over.
    let again = read(Lang::Python, "m.py", "__all__ = ['x']\n__all__.extend(f())\n__all__ = ('y',)\ny = 1\n");
    assert!(again.exports_complete);
    assert_eq!(exports(&again), pairs(&[("y", "Variable")]));
}

#[test]
fn rust_uses_mods_and_pub_items() {
    let text = "use std::collections::{HashMap, HashSet as Set};\nuse crate::a::b;\nuse super::*;\nmod engine;\npub mod output;\nmod inline { }\nextern crate alloc;\npub use engine::{run, Engine as E};\npub fn f() {}\npub(crate) fn g() {}\nfn h() {}\npub struct S;\nimpl S { pub fn m(&self) {} }\n#[macro_export]\n/// Doc.\nmacro_rules! shown { () => {} }\nmacro_rules! hidden { () => {} }\n";
    let f = read(Lang::Rust, "lib.rs", text);
    use ImportKind::*;
    assert_eq!(
        imports(&f),
        vec![
            (Use, "std::collections".into(), s(&["HashMap", "HashSet as Set"]), None),
            (Use, "crate::a".into(), s(&["b"]), None),
            (Use, "super".into(), s(&["*"]), None),
            (Mod, "engine".into(), vec![], None),
            (Mod, "output".into(), vec![], None),
            (ExternCrate, "alloc".into(), vec![], None),
            (Use, "engine".into(), s(&["run", "Engine as E"]), None),
        ]
    );
    assert_eq!(
        exports(&f),
        pairs(&[
            ("output", "Module"),
            ("run", "Reexport"),
            ("E", "Reexport"),
            ("f", "Function"),
            ("S", "Struct"),
            ("shown", "Macro")
        ])
    );
}

/// aho-corasick's lib.rs re-exports through nested groups: every name is
/// its own import and export, never a group's text.
#[test]
fn rust_nested_use_groups_are_opened() {
    let text = "pub use crate::{\n    ahocorasick::{AhoCorasick, FindIter},\n    util::{\n        error::{BuildError, MatchError as E},\n        primitives::PatternID,\n        search::*,\n    },\n    dfa,\n};\nuse foo as bar;\n";
    let f = read(Lang::Rust, "lib.rs", text);
    use ImportKind::*;
    assert_eq!(
        imports(&f),
        vec![
            (Use, "crate::ahocorasick".into(), s(&["AhoCorasick", "FindIter"]), None),
            (Use, "crate::util::error".into(), s(&["BuildError", "MatchError as E"]), None),
            (Use, "crate::util::primitives".into(), s(&["PatternID"]), None),
            (Use, "crate::util::search".into(), s(&["*"]), None),
            (Use, "crate".into(), s(&["dfa"]), None),
            (Use, "foo".into(), s(&["foo as bar"]), None),
        ]
    );
    let names: Vec<String> = exports(&f).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["AhoCorasick", "FindIter", "BuildError", "E", "PatternID", "*", "dfa"]);
}

#[test]
fn javascript_and_typescript_imports_and_exports() {
    let text = "import React, { useState as us, useEffect } from 'react';\nimport * as path from \"path\";\nimport './side.css';\nconst fs = require('fs');\nexport { a, b as c } from './lib';\nexport * from './all';\nexport function run() {}\nexport const x = 1, y = 2;\nexport class K {}\nexport default K;\nfunction hidden() {}\nexports.legacy = hidden;\n";
    for lang in [Lang::JavaScript, Lang::TypeScript, Lang::Tsx] {
        let f = read(lang, "m.js", text);
        use ImportKind::*;
        assert_eq!(
            imports(&f),
            vec![
                (Import, "react".into(), s(&["React", "useState as us", "useEffect"]), None),
                (Import, "path".into(), s(&["* as path"]), None),
                (Import, "./side.css".into(), vec![], None),
                (Require, "fs".into(), vec![], None),
                (Reexport, "./lib".into(), s(&["a", "b as c"]), None),
                (Reexport, "./all".into(), s(&["*"]), None),
            ],
            "{lang}"
        );
        assert_eq!(
            exports(&f),
            pairs(&[
                ("a", "Reexport"),
                ("c", "Reexport"),
                ("*", "Reexport"),
                ("run", "Function"),
                ("x", "Variable"),
                ("y", "Variable"),
                ("K", "Class"),
                ("default", "Default"),
                ("legacy", "Variable"),
            ]),
            "{lang}"
        );
    }
}

#[test]
fn dynamic_imports_and_requires_of_computed_specifiers_are_imports() {
    let text = "async function load(lang) {\n  const m = await import('./m.js');\n  const l = await import(`./locale/${lang}.js`);\n  const t = import(`./plain.js`);\n  const r = require(name);\n}\n";
    for lang in [Lang::JavaScript, Lang::TypeScript, Lang::Tsx] {
        let f = read(lang, "m.js", text);
        use ImportKind::*;
        assert_eq!(
            imports(&f),
            vec![
                (DynamicImport, "./m.js".into(), vec![], None),
                (DynamicImport, "`./locale/${lang}.js`".into(), vec![], None),
                (DynamicImport, "./plain.js".into(), vec![], None),
                (Require, "name".into(), vec![], None),
            ],
            "{lang}"
        );
    }
}

#[test]
fn whole_module_exports_are_the_default() {
    let ts = read(Lang::TypeScript, "m.ts", "class Api {}\nexport = Api;\n");
    assert_eq!(exports(&ts), pairs(&[("default", "Default")]));
    let js = read(Lang::JavaScript, "m.js", "function api() {}\nmodule.exports = api;\n");
    assert_eq!(exports(&js), pairs(&[("default", "Default")]));
}

#[test]
fn typescript_type_exports_have_their_kinds() {
    let text = "export type Id = string;\nexport interface Shape { area(): number }\nexport enum Color { Red }\nexport abstract class Base {}\nexport namespace NS { export const inner = 1; }\nexport declare function declared(): void;\nexport type { Id as Key } from './ids';\nexport function* gen() {}\nexport default interface Props { id: Id }\nconst local = 3;\nfunction run() {}\nimport { helper } from './h';\nexport { local as renamed, run, helper, missing };\nexport * as lib from './lib';\n";
    for lang in [Lang::TypeScript, Lang::Tsx] {
        let f = read(lang, "m.ts", text);
        assert_eq!(
            exports(&f),
            pairs(&[
                ("Id", "TypeAlias"),
                ("Shape", "Interface"),
                ("Color", "Enum"),
                ("Base", "Class"),
                ("NS", "Namespace"),
                ("declared", "Function"),
                ("Key", "Reexport"),
                ("gen", "Function"),
                ("default", "Interface"),
                ("renamed", "Variable"),
                ("run", "Function"),
                ("helper", "Import"),
                ("missing", "Unknown"),
                ("lib", "Reexport"),
            ]),
            "{lang}"
        );
    }
}

#[test]
fn c_and_cpp_includes_and_what_is_not_static() {
    let text = "#include <stdio.h>\n#include \"local.h\"\nstatic int hidden(void) { return 0; }\nint shown(int a) { return a; }\nint declared(void);\nstruct point { int x; };\n";
    for lang in [Lang::C, Lang::Cpp] {
        let f = read(lang, "a.c", text);
        use ImportKind::*;
        assert_eq!(
            imports(&f),
            vec![(SystemInclude, "stdio.h".into(), vec![], None), (Include, "local.h".into(), vec![], None)],
            "{lang}"
        );
        let names: Vec<String> = exports(&f).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, s(&["shown", "declared", "point"]), "{lang}");
    }
    // Variables: non-static ones are offered, `extern` ones declared.
    let text = "int g = 3;\nstatic int s;\nextern int e;\nint a, *b;\nint f(void) { int local; return local; }\n";
    for lang in [Lang::C, Lang::Cpp] {
        let f = read(lang, "a.c", text);
        assert_eq!(
            exports(&f),
            pairs(&[("g", "Static"), ("e", "Declaration"), ("a", "Static"), ("b", "Static"), ("f", "Function")]),
            "{lang}"
        );
    }
    // C++: a const object and an anonymous namespace's names are internal.
    let text = "const int N = 1;\nconst char *p;\nchar *const q = nullptr;\nextern const int M = 2;\nnamespace { int hidden; }\nnamespace ns { int shown; }\n";
    let f = read(Lang::Cpp, "a.cpp", text);
    assert_eq!(exports(&f), pairs(&[("p", "Static"), ("M", "Static"), ("ns/shown", "Static")]));
}

#[test]
fn java_imports_and_public_types() {
    let text = "package p;\nimport java.util.List;\nimport java.util.*;\nimport static java.lang.Math.max;\npublic class A { public void m() {} }\nclass B {}\n";
    let f = read(Lang::Java, "A.java", text);
    use ImportKind::*;
    assert_eq!(
        imports(&f),
        vec![
            (Import, "java.util.List".into(), vec![], None),
            (Import, "java.util".into(), s(&["*"]), None),
            (StaticImport, "java.lang.Math.max".into(), vec![], None),
        ]
    );
    assert_eq!(exports(&f), pairs(&[("A", "Class")]));
}

#[test]
fn go_imports_and_capitalised_names() {
    let text = "package p\n\nimport (\n\t\"fmt\"\n\tf \"os\"\n)\nimport \"strings\"\n\nfunc Run() {}\nfunc hidden() {}\ntype Agent struct{}\nfunc (a *Agent) Do() {}\nfunc (a *Agent) undo() {}\nconst Limit = 3\n";
    let f = read(Lang::Go, "p.go", text);
    use ImportKind::*;
    assert_eq!(
        imports(&f),
        vec![
            (Import, "fmt".into(), vec![], None),
            (Import, "os".into(), vec![], Some("f".into())),
            (Import, "strings".into(), vec![], None),
        ]
    );
    let names: Vec<String> = exports(&f).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"Run".to_string()) && names.contains(&"Agent".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("Do")) && names.contains(&"Limit".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("hidden") || n.ends_with("undo")), "{names:?}");
}
