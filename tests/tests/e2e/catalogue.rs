//! `aide tools`: every tool's operations, with the names, effects and gates
//! the MCP server will serve, and each operation really is a command of its
//! tool.

use aide_tests::TestDir;
use serde_json::Value;

fn operations(tools: &Value) -> Vec<(String, Value)> {
    let mut all = Vec::new();
    for tool in tools["tools"].as_array().unwrap() {
        let ops = tool["operations"].as_array().unwrap();
        assert!(!ops.is_empty(), "{} lists no operation", tool["name"]);
        for op in ops {
            all.push((tool["name"].as_str().unwrap().to_string(), op.clone()));
        }
    }
    all
}

#[test]
fn tools_lists_every_operation_with_its_effects_and_gate() {
    let t = TestDir::new();
    let (out, _) = t.cmd("aide").args(["tools", "--json"]).expect_exit(0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let ops = operations(&doc);
    let find = |name: &str| ops.iter().find(|(_, op)| op["name"] == name).map(|(_, op)| op.clone()).unwrap();

    let search = find("search");
    assert_eq!(search["gate"], "auto");
    assert_eq!(search["command"], "llm-search");
    assert_eq!(search["effects"]["read_only"], true);

    let exec = find("shell_exec");
    assert_eq!((exec["gate"].as_str(), exec["command"].as_str()), (Some("gated"), Some("llm-shell exec")));
    assert_eq!(
        (exec["effects"]["open_world"].as_bool(), exec["effects"]["read_only"].as_bool()),
        (Some(true), Some(false))
    );

    let transform = find("transform");
    assert_eq!(
        (transform["gate"].as_str(), transform["effects"]["destructive"].as_bool()),
        (Some("gated"), Some(true))
    );
    assert_eq!(find("transform_undo")["command"], "llm-transform undo");
    assert_eq!(find("shell_session_close")["command"], "llm-shell session rm");
    assert_eq!(find("log_show")["gate"], "auto");
    assert_eq!(find("ide_operation")["command"], "llm-ast-search --dialect");

    // Every read-only operation that stays on this machine is auto, and only those.
    for (_, op) in &ops {
        let local_read = op["effects"]["read_only"] == true && op["effects"]["open_world"] == false;
        assert_eq!(op["gate"] == "auto", local_read, "{}", op["name"]);
    }

    // Text mode shows each operation under its tool.
    let (text, _) = t.cmd("aide").args(["tools"]).expect_exit(0);
    assert!(
        text.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["jobs_wait", "auto", "llm-jobs", "wait"])
    );
}

#[test]
fn every_operation_is_a_real_command_of_its_tool() {
    let t = TestDir::new();
    let doc: Value = serde_json::from_str(&t.cmd("aide").args(["tools", "--json"]).expect_exit(0).0).unwrap();
    for (tool, op) in operations(&doc) {
        let words: Vec<&str> = op["command"].as_str().unwrap().split_whitespace().skip(1).collect();
        match words.as_slice() {
            // A mode flag: the tool's help must offer it.
            [flag] if flag.starts_with("--") => {
                let (help, _) = t.cmd(&tool).args(["--help"]).expect_exit(0);
                assert!(help.contains(flag), "{tool} --help does not offer {flag}");
            }
            // An operation over several subcommands (`status|diff`): each is one.
            [.., last] if last.contains('|') => {
                for choice in last.split('|') {
                    let mut args: Vec<&str> = words[..words.len() - 1].to_vec();
                    args.extend([choice, "--help"]);
                    t.cmd(&tool).args(&args).expect_exit(0);
                }
            }
            words => {
                let mut args: Vec<&str> = words.to_vec();
                args.push("--help");
                t.cmd(&tool).args(&args).expect_exit(0);
            }
        }
    }
}
