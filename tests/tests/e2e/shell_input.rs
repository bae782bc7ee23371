//! Any command text is read, never a panic (issue 48, item 5): words of
//! any characters and numbers before redirections too large for a file
//! descriptor, through `check`, `explain` and `exec --max-risk`.

use aide_tests::TestDir;
use serde_json::Value;

/// `llm-shell SUBCOMMAND --json [FLAGS] -- COMMAND`, its document.
fn shell(t: &TestDir, subcommand: &str, flags: &[&str], command: &str) -> Value {
    let out = t.cmd("llm-shell").arg(subcommand).arg("--json").args(flags).args(["--", command]).output();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{subcommand} {command}: {e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn non_ascii_words_are_checked_explained_and_rated() {
    let t = TestDir::new();
    for command in ["echo héllo wörld", "grep -r 'ö' . | sort > ä.txt", "echo $(ls ü) `echo 🦀`", "x=é; echo ${x:0:1}"]
    {
        let checked = shell(&t, "check", &[], command);
        assert_eq!(checked["valid"], true, "{command}: {checked}");
        let explained = shell(&t, "explain", &[], command);
        assert!(explained["overall_risk"].is_string(), "{command}: {explained}");
    }
    // `--max-risk` rates the command before it runs: every non-ASCII
    // command was refused as a panic.
    let ran = shell(&t, "exec", &["--max-risk", "low"], "echo é");
    assert_eq!(ran["stdout"], "é\n", "{ran}");
}

#[test]
fn a_number_too_large_for_a_descriptor_is_a_parse_error_not_a_panic() {
    let t = TestDir::new();
    let command = "cat 99999999999999999999<x";
    let checked = shell(&t, "check", &[], command);
    assert_eq!(checked["valid"], false, "{checked}");
    assert!(checked["error"].as_str().unwrap().contains("file descriptor"), "{checked}");
    let explained = shell(&t, "explain", &[], command);
    assert_eq!(explained["error"]["code"], "invalid_arguments", "{explained}");
}
