//! `llm-git branch NAME --delete [--force]` (and `git_write` over MCP) held
//! to git itself: after a delete git lists no such branch and still knows
//! the commit the answer reports; an unmerged branch is refused without
//! force and git still lists it; the branch checked out and an unknown one
//! are refused.

use std::process::Command;

use aide_tests::TestDir;
use serde_json::{Value, json};

/// git's answer in the root, as trimmed text, and whether it succeeded.
fn git(t: &TestDir, args: &[&str]) -> (bool, String) {
    let out = Command::new("git").args(args).current_dir(t.root()).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A repository on `main` with `merged` (at main's commit) and `side` (one
/// commit main does not have).
fn repo() -> (TestDir, String) {
    let t = TestDir::new();
    t.git_init();
    t.git(&["checkout", "-q", "-b", "main"]);
    t.write("a.txt", "a\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.git(&["branch", "merged"]).git(&["checkout", "-q", "-b", "side"]);
    t.write("a.txt", "side\n").git(&["commit", "-qam", "side"]);
    let side = git(&t, &["rev-parse", "side"]).1;
    t.git(&["checkout", "-q", "main"]);
    (t, side)
}

fn llm_git(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-git").args(args).json(code)
}

#[test]
fn a_merged_branch_is_deleted_and_the_answer_can_make_it_again() {
    let (t, _) = repo();
    let at = git(&t, &["rev-parse", "merged"]).1;
    let v = llm_git(&t, &["branch", "merged", "--delete"], 0);
    let deleted = &v["deleted"];
    assert_eq!(
        (&deleted["name"], &deleted["commit"], &deleted["merged"]),
        (&json!("merged"), &json!(at), &json!(true))
    );
    assert_eq!(deleted["restore"], format!("git branch merged {at}"));
    // git itself: no such branch now, the commit is still there, and the restore line makes it again.
    assert_eq!(git(&t, &["branch", "--list", "merged"]), (true, String::new()));
    assert_eq!(git(&t, &["rev-parse", "--verify", &format!("{at}^{{commit}}")]), (true, at.clone()));
    assert!(v["branches"].as_array().unwrap().iter().all(|b| b["name"] != "merged"), "{v}");
    let words: Vec<&str> = deleted["restore"].as_str().unwrap().split(' ').skip(1).collect();
    assert!(git(&t, &words).0);
    assert_eq!(git(&t, &["rev-parse", "merged"]).1, at);
}

#[test]
fn an_unmerged_branch_is_refused_without_force_and_deleted_with_it() {
    let (t, side) = repo();
    let v = llm_git(&t, &["branch", "side", "--delete"], 3);
    assert_eq!(v["error"]["code"], "conflict", "{v}");
    assert_eq!(
        (&v["error"]["details"]["reason"], &v["error"]["details"]["commit"]),
        (&json!("unmerged"), &json!(side))
    );
    assert!(v["error"]["hint"].as_str().unwrap().contains("--force"), "{v}");
    assert_eq!(git(&t, &["branch", "--list", "side"]).1, "side");
    let v = llm_git(&t, &["branch", "side", "--delete", "--force"], 0);
    assert_eq!((&v["deleted"]["commit"], &v["deleted"]["merged"]), (&json!(side), &json!(false)), "{v}");
    assert_eq!(git(&t, &["branch", "--list", "side"]), (true, String::new()));
    assert_eq!(git(&t, &["rev-parse", "--verify", &side]), (true, side.clone()));
}

#[test]
fn the_current_an_unknown_and_a_mixed_request_are_refused() {
    let (t, _) = repo();
    let v = llm_git(&t, &["branch", "main", "--delete", "--force"], 3);
    assert_eq!((&v["error"]["code"], &v["error"]["details"]["reason"]), (&json!("conflict"), &json!("checked_out")));
    assert_eq!(git(&t, &["branch", "--show-current"]).1, "main");
    let v = llm_git(&t, &["branch", "nope", "--delete"], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    // --force alone, or a delete with a create, through a request (flags refuse them at parse time).
    let asked = |branch: Value| -> Value {
        let request = json!({ "command": { "branch": branch } }).to_string();
        t.cmd("llm-git").args(["--request", "-"]).stdin(request).json(2)
    };
    let v = asked(json!({ "name": "merged", "force": true }));
    assert!(v["error"]["message"].as_str().unwrap().contains("--force is only for --delete"), "{v}");
    let v = asked(json!({ "name": "merged", "delete": true, "create": true }));
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    assert_eq!(git(&t, &["branch", "--list", "merged"]).1, "merged");
}

#[test]
fn git_write_deletes_over_mcp_in_its_own_words() {
    let (t, side) = repo();
    let mut client = crate::mcp::server(&t);
    let v = crate::mcp::output_validators(&mut client);
    let doc = crate::mcp::checked_call(
        &mut client,
        &v,
        "git_write",
        json!({ "command": "branch", "name": "side", "delete": true }),
        true,
    );
    assert_eq!(doc["error"]["code"], "conflict", "{doc}");
    assert!(doc["error"]["hint"].as_str().unwrap().contains("force: true"), "{doc}");
    assert_eq!(git(&t, &["branch", "--list", "side"]).1, "side");
    let doc = crate::mcp::checked_call(
        &mut client,
        &v,
        "git_write",
        json!({ "command": "branch", "name": "side", "delete": true, "force": true }),
        false,
    );
    assert_eq!(doc["deleted"]["commit"], side, "{doc}");
    assert_eq!(git(&t, &["branch", "--list", "side"]), (true, String::new()));
}
