use super::*;
use crate::catalogue::operations;

fn binding(name: &str) -> Binding {
    let op = operations().find(|o| o.name == name).unwrap();
    Binding::new(op).unwrap()
}

#[test]
fn every_operation_binds_to_its_tool() {
    for op in operations() {
        let b = Binding::new(op).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.input_schema.get("type"), Some(&json!("object")), "{}", op.name);
        assert!(b.fields.contains(PAGE_OFFSET), "{}", op.name);
    }
}

#[test]
fn arguments_nest_under_the_subcommand() {
    let args = json!({ "command": "true", "session": "s1" });
    let got = binding("shell_exec").request(args.as_object().unwrap().clone()).unwrap();
    assert_eq!(got, json!({ "command": { "exec": { "command": "true", "session": "s1" } } }));
    let got = binding("shell_session_new").request(Map::new()).unwrap();
    assert_eq!(got, json!({ "command": { "session": { "action": { "new": {} } } } }));
    let got = binding("shell_session_list").request(Map::new()).unwrap();
    assert_eq!(got, json!({ "command": { "session": { "action": "list" } } }));
    let got = binding("transform_undo").request(json!({ "last": 1, "root": "r" }).as_object().unwrap().clone());
    assert_eq!(got.unwrap(), json!({ "command": { "undo": { "last": 1 } }, "root": "r" }));
    let got = binding("ide_operation").request(json!({ "program": "p" }).as_object().unwrap().clone());
    assert_eq!(got.unwrap(), json!({ "dialect": "p" }));
}

#[test]
fn an_operation_over_several_subcommands_nests_under_the_chosen_one() {
    let git = binding("git");
    let got = git.request(json!({ "command": "diff", "staged": true, "root": "r" }).as_object().unwrap().clone());
    assert_eq!(got.unwrap(), json!({ "command": { "diff": { "staged": true } }, "root": "r" }));
    // A field of another subcommand is refused, naming what this one takes.
    let e = git.request(json!({ "command": "log", "staged": true }).as_object().unwrap().clone()).unwrap_err();
    assert_eq!(e.code, aide_core::code::INVALID_REQUEST);
    assert!(e.hint.as_deref().unwrap_or("").contains("`log` takes"), "{:?}", e.hint);
    let e = git.request(json!({ "command": "stat" }).as_object().unwrap().clone()).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["closest"], "status");
    let props = git.input_schema["properties"].as_object().unwrap();
    assert_eq!(props["command"]["enum"], json!(["status", "diff", "log", "blame", "show"]));
    assert_eq!(git.input_schema["required"], json!(["command"]));
    // The log records the subcommand chosen.
    let argv = git.argv(json!({ "command": "blame" }).as_object().unwrap());
    assert_eq!(argv, ["llm-git", "blame"]);
}

#[test]
fn an_unknown_arguments_known_fields_are_the_ones_the_schema_shows() {
    for op in operations() {
        let b = Binding::new(op).unwrap();
        let e = b.request(json!({ "no_such_argument": 1 }).as_object().unwrap().clone()).unwrap_err();
        let hint = e.hint.unwrap_or_default();
        let listed = hint.rsplit("known fields: ").next().unwrap_or("");
        let listed: BTreeSet<String> = listed.split(", ").filter(|f| !f.is_empty()).map(str::to_string).collect();
        assert_eq!(listed, b.shown, "{}: {hint}", op.name);
        let shown = b.input_schema["properties"].as_object().unwrap();
        assert!(listed.iter().all(|f| shown.contains_key(f)), "{}: {hint}", op.name);
    }
    let hint = binding("search").request(json!({ "x": 1 }).as_object().unwrap().clone()).unwrap_err().hint;
    for internal in ["file_glob", "patterns", "threads", "max_output_bytes"] {
        assert!(!hint.as_deref().unwrap_or("").contains(internal), "{internal}: {hint:?}");
    }
}

#[test]
fn an_unknown_argument_names_the_closest_field() {
    let e = binding("search").request(json!({ "patern": "x" }).as_object().unwrap().clone()).unwrap_err();
    assert_eq!(e.code, aide_core::code::INVALID_REQUEST);
    assert!(e.hint.as_deref().unwrap_or("").contains("did you mean `pattern`"), "{:?}", e.hint);
}
