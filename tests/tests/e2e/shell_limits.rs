//! llm-shell's limits: secrets kept out of output, risk caps that obfuscation cannot pass, exit statuses and traps, a killed shell taking its command along, and the default timeout.

use aide_tests::TestDir;
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::shell::{exec, exec_args, new_session, shell};

#[test]
fn env_output_does_not_leak_common_secret_names() {
    let t = TestDir::new();
    let root = t.root().display().to_string();
    let s = shell(
        &t,
        &[
            "session",
            "new",
            "--cwd",
            &root,
            "--env",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCY",
            "--env",
            "DB_PASSWORD=hunter2hunter2",
            "--env",
            "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
        ],
        0,
    )["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = exec(
        &t,
        &s,
        "env; printf -- '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B\\n-----END PRIVATE KEY-----\\n'",
    );
    let out = r["stdout"].as_str().unwrap();
    for secret in ["wJalrXUtnFEMI", "hunter2", "ghp_0123", "MIIEvQIBADANBgkqhkiG9w0B"] {
        assert!(!out.contains(secret), "{secret} leaks: {out}");
    }
    assert!(out.contains("DB_PASSWORD=[REDACTED]"), "{out}");
    assert!(r["redactions"].as_u64().unwrap() >= 4, "{r}");
    assert!(out.contains("PWD="), "the working directory is not a secret: {out}");
}

#[test]
fn max_risk_is_not_bypassed_by_obfuscation() {
    let t = TestDir::new();
    let s = new_session(&t);
    let encoded = "cm0gLXJmIGQ="; // base64 of `rm -rf d`
    let attempts = [
        "\\rm -rf d".to_string(),
        "command rm -rf d".into(),
        "bash -c \"rm -rf d\"".into(),
        "eval \"rm -rf d\"".into(),
        "x=rm; $x -rf d".into(),
        "$(echo rm) -rf d".into(),
        "r\"\"m -rf d".into(),
        format!("echo {encoded} | base64 -d | sh"),
        "python3 -c \"import shutil; shutil.rmtree('d')\"".into(),
        "perl -e 'use File::Path; rmtree(\"d\")'".into(),
        "env rm -rf d".into(),
        "find . -name d -exec rm -rf {} +".into(),
    ];
    for attempt in &attempts {
        t.write("d/keep.txt", "x");
        let v = shell(&t, &["exec", "--session", &s, "--max-risk", "low", "--", attempt], 3);
        assert_eq!(v["error"]["code"], "risk_denied", "{attempt}: {v}");
        assert!(t.root().join("d/keep.txt").exists(), "{attempt} ran");
    }
}

#[test]
fn output_before_a_background_child_is_never_lost() {
    let t = TestDir::new();
    let s = new_session(&t);
    let started = Instant::now();
    let r = exec(&t, &s, "sleep 30.3 & echo spawned");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r["stdout"], "spawned\n", "{r}");
    assert_eq!(r["background_output"], true, "{r}");
    for pid in aide_tests::processes_with_cmdline("sleep 30.3") {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    let plain = exec(&t, &s, "echo done");
    assert_eq!(plain["background_output"], false);
}

#[test]
fn a_commands_own_exit_trap_runs_and_the_state_is_still_saved() {
    let t = TestDir::new();
    t.write("sub/.keep", "");
    let s = new_session(&t);
    let r = exec(&t, &s, "set -u; trap 'echo bye from the trap' EXIT; cd sub; export KEPT=yes; set +u; exit 4");
    assert_eq!(r["exit_code"], 4);
    assert!(r["stdout"].as_str().unwrap().contains("bye from the trap"), "{r}");
    let r = exec(&t, &s, "echo \"$(basename \"$PWD\") $KEPT $UNSET_IS_FINE\"");
    assert_eq!(r["stdout"], "sub yes \n", "{r}");
    // Traps on other signals still work as bash's.
    let r = exec(&t, &s, "trap 'echo got usr1' USR1; kill -USR1 $$; trap - EXIT; echo after");
    assert_eq!(r["stdout"], "got usr1\nafter\n", "{r}");
}

#[test]
fn a_killed_llm_shell_takes_its_command_with_it() {
    // TERM, INT and HUP are caught; KILL cannot be, and the wrapper's
    // watcher sees llm-shell's end of its stdin pipe close without "done".
    let t = TestDir::new();
    let s = new_session(&t);
    for signal in ["TERM", "INT", "HUP", "KILL"] {
        // Unique to this run, so nothing left by another run is counted.
        let marker = format!("sleep 4{}.{}", signal.len(), std::process::id());
        let mut child = Command::new(aide_tests::bin_dir().join("llm-shell"))
            .args(["exec", "--session", &s, "--", &format!("{marker} & {marker}")])
            .env("AIDE_HOME", t.home())
            .current_dir(t.root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let up = Instant::now() + Duration::from_secs(10);
        // llm-shell itself (its argv holds the marker) and the two sleeps.
        while aide_tests::processes_with_cmdline(&marker).len() < 3 && Instant::now() < up {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(aide_tests::processes_with_cmdline(&marker).len(), 3, "the command did not start");
        Command::new("kill").args(["-s", signal, &child.id().to_string()]).status().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "{signal}: llm-shell must die of the signal");
        let gone = Instant::now() + Duration::from_secs(10);
        while !aide_tests::processes_with_cmdline(&marker).is_empty() && Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(aide_tests::processes_with_cmdline(&marker).is_empty(), "{signal} left the command running");
    }
}

/// Each destructive form of issue 32, run under `--max-risk low` in a fresh
/// workspace: refused, and the data left whole. Each twin beside it runs.
#[test]
fn max_risk_low_is_an_allow_list_that_refuses_every_destructive_form() {
    let destructive = [
        "{rm,-rf,d}",
        "/bin/r[m] -rf d",
        "/???/?m -rf d",
        "sh <<< 'rm -rf d'",
        "python3 <<'EOF'\nimport shutil; shutil.rmtree('d')\nEOF",
        "git clean -fdx",
        "git -C . clean -fdx",
        "git -c core.pager=cat clean -fdx",
        "cp /dev/null d/keep.txt",
        "mv -f d/other.txt d/keep.txt",
        "cd d && : > keep.txt",
        "perl -i -pe 's/keep/gone/' d/keep.txt",
        "sed -i 's/keep/gone/' d/keep.txt",
        "echo gone | tee d/keep.txt",
        "env -iS 'rm -rf d'",
        "awk 'BEGIN{system(\"rm -rf d\")}'",
        "[[ $(rm -rf d) ]]",
        "x=$(rm -rf d)",
        "coproc rm -rf d",
        "trap 'rm -rf d' EXIT",
        "source <(echo 'rm -rf d')",
        "tar --remove-files -cf x.tar d",
        "git config core.fsmonitor 'rm -rf d' && git status",
        "BASH_ENV=./evil.sh bash -c true",
        "taskset -c 0 rm -rf d",
        "flock /tmp/aide-issue32.lock rm -rf d",
        "script -qc 'rm -rf d' /dev/null",
        "echo gone >& d/keep.txt",
        "{ echo gone; } > d/keep.txt",
        "for f in $(rm -rf d); do :; done",
        "cat <<EOF\n$(rm -rf d)\nEOF",
        "find d -delete",
        "ls d | xargs rm -rf",
    ];
    let twins = [
        "echo {a,b}",
        "ls /bin/l[s]",
        "cat <<< 'rm -rf d'",
        "cat <<'EOF'\n$(rm -rf d)\nEOF",
        "git status --short",
        "cat d/keep.txt",
        "sed 's/keep/gone/' d/keep.txt",
        "echo fine | tee /dev/null",
        "awk '{print $1}' d/keep.txt",
        "x=$(ls d)",
        "[[ -f d/keep.txt ]]",
        "cat <(ls d)",
        "git config --get core.fsmonitor || true",
        "find d -name '*.txt'",
        "find d -name '*.txt' | xargs wc -l",
        "env -i ls d",
    ];
    let t = TestDir::new();
    t.git_init();
    let s = new_session(&t);
    for attempt in destructive {
        t.write("d/keep.txt", "keep\n").write("d/other.txt", "other\n");
        let v = shell(&t, &["exec", "--session", &s, "--max-risk", "low", "--", attempt], 3);
        assert_eq!(v["error"]["code"], "risk_denied", "{attempt}: {v}");
        assert!(!v["error"]["details"]["risk_reasons"].as_array().unwrap().is_empty(), "{attempt}: {v}");
        let kept = std::fs::read_to_string(t.root().join("d/keep.txt")).unwrap_or_default();
        assert_eq!(kept, "keep\n", "{attempt} ran");
    }
    for twin in twins {
        t.write("d/keep.txt", "keep\n");
        let v = exec_args(&t, &["--session", &s, "--max-risk", "low", "--", twin]);
        assert_eq!(v["exit_code"], 0, "{twin}: {v}");
    }
}

#[test]
fn names_an_earlier_exec_defined_are_not_read_only_later() {
    let t = TestDir::new();
    t.write("d/keep.txt", "keep\n");
    let s = new_session(&t);
    // Set up without a limit: an alias, a function and a script named like read-only commands.
    exec(
        &t,
        &s,
        "shopt -s expand_aliases; alias ls='rm -rf d'; cat() { rm -rf d; }; mkdir -p bin; \
         printf '#!/bin/sh\\nrm -rf d\\n' > bin/wc; chmod +x bin/wc; export PATH=$PWD/bin:$PATH",
    );
    for (attempt, why) in [
        ("ls", "defined in this session"),
        ("cat d/keep.txt", "defined in this session"),
        ("wc -l d/keep.txt", "outside the system's program folders"),
    ] {
        let v = shell(&t, &["exec", "--session", &s, "--max-risk", "low", "--", attempt], 3);
        assert_eq!(v["error"]["code"], "risk_denied", "{attempt}: {v}");
        assert!(v["error"]["details"]["risk_reasons"][0].as_str().unwrap().contains(why), "{attempt}: {v}");
        assert!(t.root().join("d/keep.txt").exists(), "{attempt} ran");
    }
    let v = exec_args(&t, &["--session", &s, "--max-risk", "low", "--", "grep -c keep d/keep.txt"]);
    assert_eq!(v["stdout"], "1\n");
}

#[test]
fn output_is_redacted_before_it_is_cut_and_session_values_are_known() {
    let t = TestDir::new();
    let s = new_session(&t);
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    // The token straddles the head/tail cut at every position around it.
    for pad in 0..12 {
        let command = format!("printf '%{pad}s' ''; echo {token}; printf '%40s\\n' ''");
        let v = exec_args(&t, &["--session", &s, "--max-output", "40", "--", &command]);
        let out = v["stdout"].as_str().unwrap();
        for i in 0..token.len() - 5 {
            assert!(!out.contains(&token[i..i + 6]), "pad {pad}: part of the token shows: {out:?}");
        }
    }
    // A session's own secret values, wherever they show.
    let env_session: Value = shell(&t, &["session", "new", "--env", "DB_PASSWORD=zq9Secret77", "--verbose"], 0);
    let s2 = env_session["session_id"].as_str().unwrap();
    assert_eq!(env_session["environment"]["DB_PASSWORD"], "[REDACTED]", "session new echoes it: {env_session}");
    // Issue 33: without --verbose, `session new` says how many, not what.
    let quiet: Value = shell(&t, &["session", "new", "--env", "DB_PASSWORD=zq9Secret77"], 0);
    assert!(quiet.get("environment").is_none(), "{quiet}");
    assert!(quiet["environment_count"].as_u64().unwrap() >= 1, "{quiet}");
    assert!(serde_json::to_string(&quiet).unwrap().len() < 1000, "{quiet}");
    let v = exec(&t, s2, "echo $DB_PASSWORD; export API_TOKEN=fresh-tok-123; echo \"x${API_TOKEN}x\" >&2");
    assert_eq!((v["stdout"].as_str(), v["stderr"].as_str()), (Some("[REDACTED]\n"), Some("x[REDACTED]x\n")), "{v}");
    let shown = shell(&t, &["session", "show", s2], 0);
    assert_eq!(shown["environment"]["DB_PASSWORD"], "[REDACTED]");
    assert_eq!(shown["environment"]["API_TOKEN"], "[REDACTED]");
    let raw = shell(&t, &["session", "show", s2, "--no-redact"], 0);
    assert_eq!(raw["environment"]["DB_PASSWORD"], "zq9Secret77");
    let raw = exec_args(&t, &["--session", s2, "--no-redact", "--", "echo $DB_PASSWORD"]);
    assert_eq!(raw["stdout"], "zq9Secret77\n");
}

/// Issue 33: a failed command's text starts with its exit status, so a
/// reader that skims or stops early still sees it; a success does not.
#[test]
fn a_failed_commands_text_starts_with_its_exit_status() {
    let t = TestDir::new();
    let (text, _) = t.cmd("llm-shell").args(["exec", "--", "echo out; echo err >&2; exit 4"]).expect_exit(4);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..3], ["[exit 4]", "out", "err"], "{text}");
    assert!(lines[3].starts_with("[exit 4, "), "{text}");
    let (text, _) = t.cmd("llm-shell").args(["exec", "--", "echo fine"]).expect_exit(0);
    assert!(text.starts_with("fine\n"), "{text}");
}

/// A command that never ends does not hang its caller: without --timeout,
/// exec ends it after aide.toml's `exec_timeout` (here half a second), the
/// whole tree with it, and says `timed_out` with the limit it ran under.
/// A session's exec and the MCP tool alike; --timeout overrides it.
#[test]
fn exec_without_a_timeout_is_ended_by_the_configured_default() {
    if !aide_tests::sandbox_here("aide mcp's sandbox") {
        return;
    }
    let t = TestDir::new();
    t.write("aide.toml", "exec_timeout = 0.5\n");
    let tree = "echo begun; (sleep 31.9; echo child) & sleep 31.9";
    let once = exec_args(&t, &["--", tree]);
    assert_eq!((&once["timed_out"], &once["timeout_ms"]), (&Value::from(true), &Value::from(500)), "{once}");
    assert!(once["stdout"].as_str().unwrap().contains("begun"), "{once}");
    let s = new_session(&t);
    let in_session = exec(&t, &s, tree);
    assert_eq!((&in_session["timed_out"], &in_session["timeout_ms"]), (&Value::from(true), &Value::from(500)));
    assert_eq!(exec(&t, &s, "echo alive")["stdout"], "alive\n", "the session lives on");
    // The text form says it too, with the limit.
    let (text, _) = t.cmd("llm-shell").args(["exec", "--", "sleep 31.9"]).expect_exit(124);
    assert!(text.contains("timed out after 0.5 s"), "{text}");
    // Over MCP, where no flag is given.
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], serde_json::json!({}));
    let r = client.call("shell_exec", serde_json::json!({ "command": "sleep 31.9" }));
    let r = &r["structuredContent"];
    assert_eq!((&r["timed_out"], &r["timeout_ms"]), (&Value::from(true), &Value::from(500)), "{r}");
    drop(client);
    aide_tests::eventually("every sleep of the trees ended", Duration::from_secs(10), || {
        aide_tests::processes_with_cmdline("sleep 31.9").is_empty()
    });
    // A call's own --timeout wins over the default.
    let given = exec_args(&t, &["--timeout", "30", "--", "sleep 1; echo done"]);
    assert_eq!(
        (&given["timed_out"], &given["timeout_ms"], &given["stdout"]),
        (&Value::from(false), &Value::from(30_000), &Value::from("done\n"))
    );
}

/// The default is two minutes, shown in --help and the schema; a
/// project's aide.toml may shorten it, never lengthen it (aide doctor
/// says what it ignored and where each value came from).
#[test]
fn the_exec_default_timeout_is_documented_and_a_project_cannot_lengthen_it() {
    let t = TestDir::new();
    let default = aide_config::DEFAULT_EXEC_TIMEOUT;
    assert_eq!(exec_args(&t, &["--", "true"])["timeout_ms"], (default * 1000.0) as u64);
    let (help, _) = t.cmd("llm-shell").args(["exec", "--help"]).expect_exit(0);
    assert!(help.contains(&format!("(default {default})")) && help.contains("exec_timeout"), "{help}");
    let (schema, _) = t.cmd("llm-shell").arg("--schema").expect_exit(0);
    assert!(schema.contains(&format!("Seconds before it is ended (default {default})")), "{schema}");

    t.write("aide.toml", "exec_timeout = 600\n");
    assert_eq!(exec_args(&t, &["--", "true"])["timeout_ms"], (default * 1000.0) as u64, "not lengthened");
    let doctor: Value = t.cmd("aide").args(["doctor"]).json(0);
    let check = doctor["checks"].as_array().unwrap().iter().find(|c| c["name"] == "configuration").unwrap();
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("exec_timeout = {default} s (default)")), "{detail}");
    assert!(detail.contains("exec_timeout = 600 is looser"), "{detail}");
    t.write("aide.toml", "exec_timeout = 0\n");
    let v = shell(&t, &["exec", "--", "true"], 2);
    assert_eq!(v["error"]["code"], "invalid_request", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("aide.toml:1: exec_timeout"), "{v}");
}
