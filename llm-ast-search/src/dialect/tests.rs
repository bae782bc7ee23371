use super::*;
use aide_core::code;
use serde_json::json;

/// A backend that records what it was asked: the arguments come back
/// in the fields of its values.
struct Echo;

fn range(path: &str) -> Range {
    Range::new(path, Point { line: 1, column: 1 }, Point { line: 1, column: 1 })
}

impl Backend for Echo {
    fn definitions(&self, name: &str) -> Result<Vec<Definition>, AideError> {
        Ok(vec![Definition {
            name: name.into(),
            kind: SymbolKind::Function,
            name_path: name.into(),
            defined_at: range("d"),
        }])
    }
    fn references(&self, names: &[String]) -> Result<Vec<ReferenceSite>, AideError> {
        Ok(names
            .iter()
            .map(|n| ReferenceSite {
                range: range("r"),
                name: n.clone(),
                kind: RefKind::Usage,
                enclosing: None,
                text: String::new(),
            })
            .collect())
    }
    fn callers(&self, names: &[String]) -> Result<Vec<CallerSite>, AideError> {
        Ok(names
            .iter()
            .map(|n| CallerSite {
                range: range("c"),
                name: n.clone(),
                caller: Some(Definition {
                    name: format!("{n}_caller"),
                    kind: SymbolKind::Function,
                    name_path: format!("{n}_caller"),
                    defined_at: range("c"),
                }),
                matched: Resolution::NameOnly,
                engine: CodeEngine::Syntax,
                text: String::new(),
            })
            .collect())
    }
    fn search(&self, path: &str, pattern: &str, ext: Option<&str>) -> Result<Vec<SearchMatch>, AideError> {
        Ok(vec![SearchMatch { range: range(path), matched: pattern.into(), text: ext.unwrap_or("-").into() }])
    }
    fn lines(&self, path: &str, start: usize, end: usize) -> Result<LineRange, AideError> {
        Ok(LineRange { range: range(path), content: format!("{start}-{end}") })
    }
}

fn err(program: &str) -> AideError {
    run(program, &Echo).unwrap_err()
}

/// The value as JSON, as the tool prints it.
fn json_of(program: &str) -> serde_json::Value {
    serde_json::to_value(run(program, &Echo).unwrap()).unwrap()
}

#[test]
fn every_seed_program_runs() {
    assert_eq!(json_of("findDefinitions(`MyClass`)")[0]["name"], "MyClass");
    assert_eq!(json_of("findDefinition(`MyClass`)")[0]["name_path"], "MyClass");
    assert_eq!(json_of("findReferences(`validateToken`)")[0]["name"], "validateToken");
    let m = json_of("search(`src/auth.rs`, `async fn`)");
    assert_eq!(
        (&m[0]["path"], &m[0]["match"], &m[0]["text"]),
        (&json!("src/auth.rs"), &json!("async fn"), &json!("-"))
    );
    let m = json_of("search(`src`, `struct.*User`, `.rs`)");
    assert_eq!((&m[0]["path"], &m[0]["match"], &m[0]["text"]), (&json!("src"), &json!("struct.*User"), &json!(".rs")));
    assert_eq!(json_of(r"search(`tests`, `#\[test\]`)")[0]["match"], r"#\[test\]");
    let l = json_of("lines(`src/main.rs`, 10, 15)");
    assert_eq!((&l["path"], &l["content"]), (&json!("src/main.rs"), &json!("10-15")));
    let r = json_of("findReferences(findDefinition(`validateToken`))");
    assert_eq!((r[0]["name"].as_str(), r[0]["kind"].as_str()), (Some("validateToken"), Some("usage")));
}

#[test]
fn find_callers_takes_a_name_definitions_or_callers_whose_callers_it_finds() {
    let c = json_of("findCallers(`f`)");
    assert_eq!((&c[0]["name"], &c[0]["caller"]["name_path"]), (&json!("f"), &json!("f_caller")));
    assert_eq!((&c[0]["matched"], &c[0]["engine"]), (&json!("name_only"), &json!("syntax")));
    assert_eq!(json_of("findCallers(findDefinition(`g`))")[0]["name"], "g");
    assert_eq!(json_of("findCallers(findCallers(`f`))")[0]["name"], "f_caller", "the callers' callers");
    let e = err("findReferences(findCallers(`f`))");
    assert!(e.message.contains("must be a string or definitions, found callers"), "{}", e.message);
}

#[test]
fn several_expressions_comments_and_json_strings() {
    let v = json_of("// two\nfindDefinitions(\"A\\u0042\");\nlines('x', 1, 1);");
    assert_eq!(v[0][0]["name"], "AB");
    assert_eq!(v[1]["content"], "1-1");
}

proptest::proptest! {
    /// No program, however broken, panics: it runs or is an `invalid_program` (or a backend error).
    #[test]
    fn any_text_is_a_value_or_an_error(program in r#"[a-zA-Z(),;`'"0-9 \n/\\é#]{0,40}"#) {
        if let Err(e) = run(&program, &Echo) {
            proptest::prop_assert!(!e.message.is_empty());
        }
    }

    /// Any characters at all (multi-byte, control, a newline in a
    /// string, a number past i64) are a value or an error with a place.
    #[test]
    fn any_characters_are_a_value_or_an_error(program in "(?s).{0,120}") {
        if let Err(e) = run(&program, &Echo) {
            proptest::prop_assert!(!e.message.is_empty());
        }
    }

    /// Programs built from the grammar, nested and with any string
    /// contents, parse; running them never panics.
    #[test]
    fn programs_of_the_grammar_parse(program in grammar()) {
        proptest::prop_assert!(parse(&program).is_ok(), "{program}");
        let _ = run(&program, &Echo);
    }
}

/// A program of the grammar: calls of any name (known or not) with
/// strings of any characters but the backtick, integers that fit i64,
/// nested calls, separated by `;`.
fn grammar() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        "[^`]{0,12}".prop_map(|s| format!("`{s}`")),
        "[0-9]{1,18}",
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
    ];
    let expr = leaf.prop_recursive(4, 24, 3, |inner| {
        ("[a-zA-Z_][a-zA-Z0-9_]{0,14}", proptest::collection::vec(inner, 0..4))
            .prop_map(|(name, args)| format!("{name}({})", args.join(", ")))
    });
    proptest::collection::vec(expr, 1..4).prop_map(|exprs| exprs.join(";\n"))
}

#[test]
fn typos_get_the_closest_function() {
    let e = err("findDefintions(`X`)");
    assert_eq!(e.code, code::INVALID_PROGRAM);
    assert!(e.message.contains("unknown function `findDefintions`") && e.message.contains("1:1"), "{}", e.message);
    assert!(e.hint.unwrap().contains("did you mean `findDefinitions`"));
}

#[test]
fn errors_point_at_the_position_and_say_what_was_expected() {
    let e = err("findDefinitions(`X`");
    assert!(e.message.contains("expected `,` or `)`") && e.message.contains("1:20"), "{}", e.message);
    let e = err("lines(`a`, `b`, 3)");
    assert!(
        e.message.contains("argument `start` of `lines` must be an integer, found a string (at 1:12)"),
        "{}",
        e.message
    );
    let e = err("search(`a`)");
    assert!(e.message.contains("`search` takes 2 or 3 arguments, got 1"), "{}", e.message);
    let e = err("findDefinitions(`a`) findReferences(`b`)");
    assert!(e.message.contains("expected `;` or the end of the program, found `findReferences`"), "{}", e.message);
    let e = err("findDefinitions(MyClass)");
    assert!(e.message.contains("expected `(` after the function name `MyClass`"), "{}", e.message);
    let e = err("findDefinitions(`unterminated)");
    assert!(e.message.contains("unterminated string") && e.message.contains("1:17"), "{}", e.message);
    let e = err("lines(`a`, 5, 2)");
    assert!(e.message.contains("not a range"), "{}", e.message);
    let e = err("findReferences(lines(`a`, 1, 2))");
    assert!(e.message.contains("must be a string or definitions, found a line range"), "{}", e.message);
    assert!(err("  ").message.contains("empty"));
    assert!(err("find#").message.contains("unexpected character `#`"));
}
