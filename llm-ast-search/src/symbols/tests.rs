//! The outline on small sources of every language.

use super::*;

fn outline_of(lang: Lang, src: &str) -> Vec<Symbol> {
    let tree = crate::language::parse(lang, src.as_bytes()).expect("parse");
    outline(lang, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()))
}

fn brief(symbols: &[Symbol]) -> Vec<String> {
    symbols.iter().map(|s| format!("{} {}", s.kind, s.name_path)).collect()
}

#[test]
fn kinds_parse_case_insensitively_with_short_forms() {
    assert_eq!("fn".parse::<SymbolKind>().unwrap(), SymbolKind::Function);
    assert_eq!("TYPE_ALIAS".parse::<SymbolKind>().unwrap(), SymbolKind::TypeAlias);
    assert_eq!("interface".parse::<SymbolKind>().unwrap(), SymbolKind::Interface);
    let err = "strcut".parse::<SymbolKind>().unwrap_err();
    assert!(err.hint.unwrap().contains("Struct"));
    assert_eq!(SymbolKind::TypeAlias.snake_name(), "type_alias");
}

#[test]
fn spans_slice_exactly_the_symbol() {
    let src = "struct A;\nimpl A {\n    fn run(&self) {}\n}\n";
    for s in outline_of(Lang::Rust, src) {
        let text = &src[s.span.byte_start..s.span.byte_end];
        assert!(text.contains(&s.name) || s.kind == SymbolKind::Impl, "{text}");
    }
}

#[test]
fn cpp_qualified_definitions_split_their_scope() {
    let src = "namespace ns { class K { void m(); }; }\nvoid ns::K::m() {}\n";
    let b = brief(&outline_of(Lang::Cpp, src));
    assert!(b.contains(&"Method ns/K/m".to_string()), "{b:?}");
    assert!(b.contains(&"Declaration ns/K/m".to_string()), "{b:?}");
}

/// File-scope variables, as universal-ctags lists them (its `variable`,
/// `externvar` and `member` kinds), never a function's locals.
#[test]
fn c_and_cpp_file_scope_variables_are_symbols_and_locals_are_not() {
    let src = "int g = 3;\nstatic int s;\nextern int e;\nint a = 1, *b, c[4];\nint (*fp)(int);\nint *maker(void);\nstruct point { int x; } origin;\n#ifdef X\nint cond;\n#endif\nint main(void) { int local = 2; static int kept; return local; }\n";
    for lang in [Lang::C, Lang::Cpp] {
        let b = brief(&outline_of(lang, src));
        let want = [
            "Static g",
            "Static s",
            "Declaration e",
            "Static a",
            "Static b",
            "Static c",
            "Static fp",
            "Declaration maker",
            "Static origin",
            "Struct point",
            "Field point/x",
            "Static cond",
            "Function main",
        ];
        assert_eq!(b, want, "{lang}");
    }
    let src = "namespace ns { int inner = 1; extern int ext; }\nextern \"C\" { int linked; }\nclass K { static int count; };\nint K::count = 0;\nauto f = [](int x) { int y = x; return y; };\n";
    let b = brief(&outline_of(Lang::Cpp, src));
    let want = [
        "Namespace ns",
        "Static ns/inner",
        "Declaration ns/ext",
        "Static linked",
        "Class K",
        "Field K/count",
        "Field K/count",
        "Static f",
    ];
    assert_eq!(b, want);
}

#[test]
fn leading_start_includes_attributes_doc_comments_and_decorators() {
    let src = "fn a() {}\n\n/// Doc.\n#[inline]\nfn b() {}\n";
    let tree = crate::language::parse(Lang::Rust, src.as_bytes()).unwrap();
    let symbols = outline(Lang::Rust, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
    let b = symbols.iter().find(|s| s.name == "b").unwrap();
    assert_eq!(&src[leading_start(Lang::Rust, &tree, src.as_bytes(), b)..], "/// Doc.\n#[inline]\nfn b() {}\n");
    let src = "x = 1\n\n@decorator\ndef f():\n    pass\n";
    let tree = crate::language::parse(Lang::Python, src.as_bytes()).unwrap();
    let symbols = outline(Lang::Python, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
    let f = symbols.iter().find(|s| s.name == "f").unwrap();
    assert_eq!(&src[leading_start(Lang::Python, &tree, src.as_bytes(), f)..], "@decorator\ndef f():\n    pass\n");
    // The comment ending the line above is that line's, not the next field's (Go's flag.Flag).
    let src =
        "package p\n\ntype Flag struct {\n\tValue string // value as set\n\t// the default\n\tDefValue string\n}\n";
    let tree = crate::language::parse(Lang::Go, src.as_bytes()).unwrap();
    let symbols = outline(Lang::Go, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
    let def = symbols.iter().find(|s| s.name == "DefValue").unwrap();
    assert_eq!(&src[leading_start(Lang::Go, &tree, src.as_bytes(), def)..], "// the default\n\tDefValue string\n}\n");
}

/// An item of a macro body (tokio's `cfg_rt! { impl Builder { … } }`) has
/// its head, body and attributes where the file has them, at every depth.
#[test]
fn items_of_macro_bodies_have_bodies_and_attributes() {
    let src = "cfg_rt! {\n    impl Builder {\n        /// Doc.\n        #[inline]\n        pub fn enable_io(&mut self) -> &mut Self {\n            self\n        }\n    }\n}\nmod m {\n    cfg_a! { cfg_b! { fn deep(a: u8) { a; } } }\n}\n";
    let tree = crate::language::parse(Lang::Rust, src.as_bytes()).unwrap();
    let symbols = outline(Lang::Rust, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
    let find = |path: &str| symbols.iter().find(|s| &*s.name_path == path).unwrap_or_else(|| panic!("{path}"));
    let io = find("impl Builder/enable_io");
    let head_end = body_start(Lang::Rust, &tree, src.as_bytes(), io).unwrap();
    assert_eq!(&src[io.span.byte_start..head_end], "pub fn enable_io(&mut self) -> &mut Self ");
    assert!(src[leading_start(Lang::Rust, &tree, src.as_bytes(), io)..].starts_with("/// Doc.\n        #[inline]\n"));
    let deep = find("m/deep");
    let head_end = body_start(Lang::Rust, &tree, src.as_bytes(), deep).unwrap();
    assert_eq!(&src[deep.span.byte_start..head_end], "fn deep(a: u8) ");
    let builder = find("impl Builder");
    assert_eq!(body_start(Lang::Rust, &tree, src.as_bytes(), builder), Some(src.find("{\n        ///").unwrap()));
}

/// A function given to a name has the function's body: its head is the
/// name and the function's parameters, as its signature shows.
#[test]
fn functions_given_to_names_have_their_bodies() {
    let src = "const f = (a: number): string => {\n  return '';\n};\nclass K {\n  h = async (e) => { e; };\n}\n";
    let tree = crate::language::parse(Lang::TypeScript, src.as_bytes()).unwrap();
    let symbols = outline(Lang::TypeScript, "f", src.as_bytes(), &tree, &LineIndex::new(src.as_bytes()));
    for (path, head) in [("f", "f = (a: number): string =>"), ("K/h", "h = async (e) =>")] {
        let s = symbols.iter().find(|s| &*s.name_path == path).unwrap();
        let end = body_start(Lang::TypeScript, &tree, src.as_bytes(), s).unwrap();
        assert_eq!(src[s.span.byte_start..end].trim_end(), head);
        assert_eq!(s.signature, head);
    }
}

#[test]
fn older_javascript_idioms_are_symbols() {
    let src = "var Action = (function (_super) {\n  function Action() {}\n  Action.prototype.run = function () {};\n  return Action;\n})(Base);\nvar api = { get: function () {}, 'put': () => 1 };\nexports.make = function make() {};\n";
    let b = brief(&outline_of(Lang::JavaScript, src));
    for want in [
        "Class Action",
        "Function Action/Action",
        "Method Action/Action/run",
        "Method get",
        "Method put",
        "Function make",
    ] {
        assert!(b.contains(&want.to_string()), "{want} not in {b:?}");
    }
}

#[test]
fn cpp_specializations_are_named_by_their_template() {
    let b = brief(&outline_of(Lang::Cpp, "template <typename R>\nclass Action<R()> { void f(); };\n"));
    assert_eq!(b[0], "Class Action");
}

#[test]
fn the_kind_table_changes_nothing() {
    let samples: [(Lang, &str); 9] = [
        (
            Lang::Rust,
            "mod m { pub struct S { a: u8 } impl S { fn f() {} } trait T { fn g(); } }\nconst C: u8 = 1;\nmacro_rules! m { () => {} }\nunion U { a: u8 }\nenum E { A }\ntype X = u8;\nstatic S2: u8 = 0;\n",
        ),
        (Lang::Python, "X = 1\nclass A:\n    y = 2\n    def f(self):\n        def g(): pass\n"),
        (
            Lang::JavaScript,
            "class A { m() {} f = 1 }\nfunction g() {}\nconst h = () => 1;\nvar o = { k: function () {} };\nA.prototype.p = function () {};\nconst X = 2;\n",
        ),
        (
            Lang::TypeScript,
            "interface I { a: string; m(): void; new (): I }\ntype T = I;\nenum E { A, B = 1 }\nnamespace N { export function f() {} }\nabstract class C { abstract m(): void; x = 1 }\n",
        ),
        (Lang::Tsx, "function V() { return <div/>; }\nclass B { r() {} }\n"),
        (
            Lang::C,
            "#define M 1\n#define F(x) x\ntypedef struct { int a; } P;\nstruct s { int b; };\nunion u { int c; };\nenum e { X };\nint p(void);\nint f(void) { return 0; }\n",
        ),
        (
            Lang::Cpp,
            "namespace n { class K { void m(); int x; }; template <typename T> struct S {}; using A = int; }\nvoid n::K::m() {}\n",
        ),
        (
            Lang::Java,
            "class A { int x; A() {} void m() {} interface I { int C = 1; void n(); } enum E { X } record R(int a) {} @interface Q { int v(); } }\n",
        ),
        (
            Lang::Go,
            "package p\ntype S struct { A int }\ntype I interface { M() }\ntype T = int\nconst C = 1\nvar V = 2\nfunc F() {}\nfunc (s *S) G() {}\n",
        ),
    ];
    for (lang, src) in samples {
        let tree = crate::language::parse(lang, src.as_bytes()).unwrap();
        let index = LineIndex::new(src.as_bytes());
        let fast = outline(lang, "f", src.as_bytes(), &tree, &index);
        let parsed =
            Parsed { lang, path: "f", source: src.as_bytes(), tree: &tree, index: &index, checksum: "".into() };
        let slow = outline_with(&parsed, None, OutlineOptions::default());
        assert!(fast.len() >= 3, "{lang}: {:?}", brief(&fast));
        assert_eq!(brief(&fast), brief(&slow), "{lang}");
    }
    // Every listed kind exists in a grammar that shares the list (a misspelt one would never match).
    for lang in Lang::ALL {
        let family: &[Lang] = match lang {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &[Lang::JavaScript, Lang::TypeScript, Lang::Tsx],
            Lang::C | Lang::Cpp => &[Lang::C, Lang::Cpp],
            _ => std::slice::from_ref(&lang),
        };
        let rules = lang::family(lang);
        for kind in rules.definition_kinds.iter().chain(rules.opaque_kinds) {
            let known = family.iter().any(|&l| {
                let language = crate::language::grammar(l);
                (0..language.node_kind_count() as u16).any(|id| language.node_kind_for_id(id) == Some(*kind))
            });
            assert!(known, "{lang}: no node kind {kind}");
        }
        assert!(
            {
                let t = kind_tables(lang);
                t.definition.iter().any(|&b| b) && t.opaque.iter().any(|&b| b)
            },
            "{lang}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(64))]
    /// Whatever the bytes, every language's outline, kind lookups and
    /// leading starts stay inside the file and never panic.
    #[test]
    fn any_bytes_outline_without_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
        for lang in Lang::ALL {
            let tree = crate::language::parse(lang, &bytes).unwrap();
            let index = LineIndex::new(&bytes);
            for s in outline(lang, "f", &bytes, &tree, &index) {
                proptest::prop_assert!(s.span.byte_start <= s.span.byte_end && s.span.byte_end <= bytes.len());
                proptest::prop_assert!(leading_start(lang, &tree, &bytes, &s) <= s.span.byte_start);
                let body = body_start(lang, &tree, &bytes, &s);
                proptest::prop_assert!(body.is_none_or(|b| s.span.byte_start < b && b <= s.span.byte_end));
            }
        }
    }
}

#[test]
fn name_matching_tiers() {
    let src = "struct Agent;\nimpl Agent {\n    fn run(&self) {}\n    fn runner(&self) {}\n}\n";
    let all = outline_of(Lang::Rust, src);
    let (hits, how) = filter_by_name(all.clone(), "run");
    assert_eq!((brief(&hits), how), (vec!["Method impl Agent/run".to_string()], Some(NameMatch::Exact)));
    let (hits, how) = filter_by_name(all.clone(), "Agent/run");
    assert_eq!((hits.len(), how), (1, Some(NameMatch::PathSuffix)));
    let (hits, how) = filter_by_name(all, "unne");
    assert_eq!((brief(&hits), how), (vec!["Method impl Agent/runner".to_string()], Some(NameMatch::Substring)));
}

/// An impl with generics, or of a trait, is named by its bare type: the
/// name path a model writes (`TextDiff/from_lines`, `TextDiff::from_lines`)
/// finds the method.
#[test]
fn impls_with_generics_or_traits_match_their_bare_type() {
    let src = "struct S<T>(T);\ntrait Tr { fn m(&self); }\nimpl<T> Tr for S<T> { fn m(&self) {} }\n\
               impl<'a> S<&'a str> { fn g() {} }\nimpl<T: Fn(u8) -> u8> S<T> { fn h() {} }\n";
    let all = outline_of(Lang::Rust, src);
    for (query, found) in [
        ("S/g", "Method impl S<&'a str>/g"),
        ("S::g", "Method impl S<&'a str>/g"),
        ("S/m", "Method impl Tr for S<T>/m"),
        ("S/h", "Method impl S<T>/h"),
    ] {
        let (hits, how) = filter_by_name(all.clone(), query);
        assert_eq!((brief(&hits), how), (vec![found.to_string()], Some(NameMatch::PathSuffix)), "{query}");
    }
    let (hits, _) = filter_by_name(all.clone(), "Tr/m");
    assert_eq!(brief(&hits), ["Method Tr/m"], "the trait's own declaration, by its name path");
    // `S/*`: the members of S's impls, whatever their generics; `Tr/*`: the trait's own.
    let (hits, how) = filter_by_name(all.clone(), "S/*");
    assert_eq!(
        (brief(&hits), how),
        (
            vec![
                "Method impl Tr for S<T>/m".to_string(),
                "Method impl S<&'a str>/g".to_string(),
                "Method impl S<T>/h".to_string()
            ],
            Some(NameMatch::PathSuffix)
        )
    );
    let (hits, how) = filter_by_name(all.clone(), "Tr/*");
    assert_eq!((brief(&hits), how), (vec!["Method Tr/m".to_string()], Some(NameMatch::Exact)));
    assert_eq!(filter_by_name(all, "Nothing/*").0.len(), 0);
    // A segment that only starts with the letters `impl` is a name, not an impl.
    assert_eq!(bare_name_path("implement/impl ns::K<T>/run"), "implement/K/run");
}

/// A class's members by `Class/*`, in Python, nested classes included.
#[test]
fn a_class_members_are_named_by_its_path_and_a_star() {
    let src = "class Context:\n    def a(self):\n        pass\n    class Inner:\n        def b(self):\n            pass\n\ndef f():\n    pass\n";
    let all = outline_of(Lang::Python, src);
    let (hits, how) = filter_by_name(all.clone(), "Context/*");
    assert_eq!(brief(&hits), ["Method Context/a", "Class Context/Inner"], "{how:?}");
    let (hits, _) = filter_by_name(all, "Inner/*");
    assert_eq!(brief(&hits), ["Method Context/Inner/b"]);
}

/// Module-level constants bound under `if`/`try` are the module's, as
/// those at its top are; a function's are not.
#[test]
fn python_constants_under_module_level_compound_statements_are_outlined() {
    let src = "import sys\nLIMIT = 1\nif sys.platform == 'win32':\n    SEP = '\\\\'\nelse:\n    SEP = '/'\ntry:\n    MAX = 3\nexcept ImportError:\n    pass\ndef f():\n    LOCAL = 2\n    if LOCAL:\n        INNER = 1\nclass K:\n    FIELD = 1\n";
    let b = brief(&outline_of(Lang::Python, src));
    assert_eq!(
        b,
        ["Constant LIMIT", "Constant SEP", "Constant SEP", "Constant MAX", "Function f", "Class K", "Field K/FIELD"]
    );
}

/// Go's `var a, B = 1, 2` and `const X, y = 1, 2` define each name.
#[test]
fn go_specs_of_several_names_define_each() {
    let src = "package p\n\nvar a, B = 1, 2\nconst (\n\tX, y = 1, 2\n\tZ = 3\n)\nfunc f() { var local, other = 1, 2; _ = local; _ = other }\n";
    let b = brief(&outline_of(Lang::Go, src));
    assert_eq!(b, ["Static a", "Static B", "Constant X", "Constant y", "Constant Z", "Function f"]);
}
