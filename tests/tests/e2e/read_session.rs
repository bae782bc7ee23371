//! `llm-read --session ID` (and `read`'s `session` over MCP): relative
//! paths start from where the session's last `cd` left its shell, and stay
//! confined to the root.

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::shell::{exec, new_session, shell};

fn read(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-read").args(args).json(code)
}

/// A tree with `file.txt` at the top and in `sub/`, and a session cd'ed into `sub`.
fn in_sub() -> (TestDir, String) {
    let t = TestDir::new();
    t.write("file.txt", "top\n").write("sub/file.txt", "inner\n").write("outside/x.txt", "x\n");
    let id = new_session(&t);
    assert_eq!(exec(&t, &id, "cd sub")["exit_code"], 0);
    (t, id)
}

#[test]
fn relative_paths_start_from_the_sessions_working_directory() {
    let (t, id) = in_sub();
    let v = read(&t, &["--session", &id, "file.txt"], 0);
    let f = &v["files"][0];
    assert_eq!((&f["path"], &f["content"]), (&json!("sub/file.txt"), &json!("inner\n")), "{v}");
    // `..` climbs from there, still inside the root; the same path without a session is the top's.
    assert_eq!(read(&t, &["--session", &id, "../file.txt"], 0)["files"][0]["content"], "top\n");
    assert_eq!(read(&t, &["file.txt"], 0)["files"][0]["content"], "top\n");
    // Leaving the root by letters is refused as ever.
    let v = read(&t, &["--session", &id, "../../file.txt"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");
    shell(&t, &["session", "rm", &id], 0);
}

#[test]
fn a_session_outside_the_root_and_an_unknown_one_are_refused() {
    let (t, id) = in_sub();
    // The root is `sub/..`'s sibling: the session's directory lies outside it.
    let other = t.root().join("outside").display().to_string();
    let v = read(&t, &["--root", &other, "--session", &id, "x.txt"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");
    assert_eq!(v["error"]["details"]["session_id"], id.as_str());
    let v = read(&t, &["--session", "s-nosuchsession", "file.txt"], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("llm-shell session list"), "{v}");
    shell(&t, &["session", "rm", &id], 0);
}

#[test]
fn read_takes_a_session_over_mcp() {
    let (t, id) = in_sub();
    let mut client = crate::mcp::server(&t);
    let v = crate::mcp::output_validators(&mut client);
    let doc = crate::mcp::checked_call(&mut client, &v, "read", json!({ "paths": ["file.txt"], "session": id }), false);
    assert!(doc.to_string().contains("inner"), "{doc}");
    let doc = crate::mcp::checked_call(&mut client, &v, "read", json!({ "paths": ["f"], "session": "s-none" }), true);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    assert!(doc["error"]["hint"].as_str().unwrap().contains("shell_session_list"), "{doc}");
    shell(&t, &["session", "rm", &id], 0);
}
