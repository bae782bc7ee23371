//! llm-shell's per-session keeper: one live bash between execs, replaced
//! from the saved state when it dies, gone with its session; and exec's stdin.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use aide_tests::TestDir;

use crate::shell::{exec, exec_args, new_session, shell};

fn session_dir(t: &TestDir, s: &str) -> PathBuf {
    t.home().join("shell/sessions").join(s)
}

fn keeper_pid(t: &TestDir, s: &str) -> u32 {
    std::fs::read_to_string(session_dir(t, s).join("keeper.pid")).unwrap().trim().parse().unwrap()
}

fn alive(pid: u32) -> bool {
    // A zombie is not alive: it only waits to be reaped.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

fn wait_until(what: &str, done: impl FnMut() -> bool) {
    aide_tests::eventually(what, Duration::from_secs(10), done);
}

#[test]
fn one_live_bash_serves_the_session_and_a_killed_keeper_loses_nothing_saved() {
    let t = TestDir::new();
    t.write("sub/.keep", "");
    let s = new_session(&t);
    let first = exec(&t, &s, "cd sub; export KEPT=yes; echo $$");
    let bash = first["stdout"].as_str().unwrap().trim().to_string();
    let again = exec(&t, &s, "echo $$ $KEPT");
    assert_eq!(again["stdout"].as_str().unwrap().trim(), format!("{bash} yes"), "one bash for both: {again}");
    let listed = shell(&t, &["session", "list"], 0);
    assert_eq!(listed["sessions"][0]["keeper_alive"], true, "{listed}");
    assert_eq!(shell(&t, &["session", "show", &s], 0)["keeper_alive"], true);

    // The socket only its owner may use, in a folder only its owner may enter.
    let dir = session_dir(&t, &s);
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::metadata(dir.join("keeper.sock")).unwrap().permissions().mode() & 0o777, 0o600);

    let keeper = keeper_pid(&t, &s);
    Command::new("kill").args(["-KILL", &keeper.to_string()]).status().unwrap();
    // Its bash goes with it (the shell's watcher sees the keeper's end of its lifeline close).
    let bash_pid: u32 = bash.parse().unwrap();
    wait_until("the keeper's bash to end", || !alive(bash_pid));
    assert_eq!(shell(&t, &["session", "list"], 0)["sessions"][0]["keeper_alive"], false);
    let after = exec(&t, &s, "echo $$ $KEPT; pwd");
    let out = after["stdout"].as_str().unwrap();
    assert!(out.starts_with(&format!("{} yes\n", after["stdout"].as_str().unwrap().split(' ').next().unwrap())));
    assert_ne!(out.split(' ').next().unwrap(), bash, "a new bash: {after}");
    assert!(out.contains(" yes\n") && out.trim_end().ends_with("/sub"), "the saved state came back: {after}");
    assert_ne!(keeper_pid(&t, &s), keeper);
}

#[test]
fn a_keeper_killed_mid_command_answers_command_lost_and_takes_the_command_along() {
    let t = TestDir::new();
    let s = new_session(&t);
    exec(&t, &s, "export BEFORE=1");
    let marker = format!("sleep 47.{}", std::process::id());
    let mut command = t.cmd("llm-shell").args([
        "--json",
        "exec",
        "--session",
        &s,
        "--",
        &format!("export DURING=1; {marker} & {marker}"),
    ]);
    let child = command.cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    wait_until("the command to start", || aide_tests::processes_with_cmdline(&marker).len() >= 2);
    Command::new("kill").args(["-KILL", &keeper_pid(&t, &s).to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "command_lost", "{v}");
    wait_until("the command's processes to end", || aide_tests::processes_with_cmdline(&marker).is_empty());
    // The state is the one saved before the command.
    let r = exec(&t, &s, "echo ${BEFORE:-unset} ${DURING:-unset}");
    assert_eq!(r["stdout"], "1 unset\n", "{r}");
}

#[test]
fn an_idle_keeper_exits_and_session_rm_ends_the_keeper_and_what_it_started() {
    let t = TestDir::new();
    let root = t.root().display().to_string();
    let s = shell(&t, &["session", "new", "--cwd", &root, "--keeper-idle", "1"], 0)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    exec(&t, &s, "export X=1");
    let keeper = keeper_pid(&t, &s);
    wait_until("the idle keeper to exit", || !alive(keeper));
    assert_eq!(exec(&t, &s, "echo $X")["stdout"], "1\n", "a new keeper from the saved state");

    let s = new_session(&t);
    let marker = format!("sleep 48.{}", std::process::id());
    let r = exec(&t, &s, &format!("{marker} >/dev/null 2>&1 & echo started"));
    assert_eq!(r["stdout"], "started\n");
    assert_eq!(aide_tests::processes_with_cmdline(&marker).len(), 1, "the background child lives on after exec");
    let keeper = keeper_pid(&t, &s);
    shell(&t, &["session", "rm", &s], 0);
    assert!(!alive(keeper), "session rm ended the keeper");
    wait_until("the session's background child to end", || aide_tests::processes_with_cmdline(&marker).is_empty());
    assert!(!session_dir(&t, &s).exists());
}

#[test]
fn stdin_comes_from_a_file_or_from_llm_shells_own_stdin() {
    let t = TestDir::new();
    t.write("in.txt", "line one\nline two\n");
    let s = new_session(&t);
    let r = exec_args(&t, &["--session", &s, "--stdin", "in.txt", "--", "read first; echo \"got $first\"; wc -l"]);
    assert_eq!(r["stdout"], "got line one\n1\n", "{r}");
    // Without --stdin, a command reads nothing (and does not wait for a person).
    let r = exec(&t, &s, "read x; echo \"rc=$? x=[$x]\"");
    assert_eq!(r["stdout"], "rc=1 x=[]\n");
    // `-`: what llm-shell itself reads, in a session and in a throwaway shell.
    for args in [vec!["--session", s.as_str()], vec![]] {
        let out = t
            .cmd("llm-shell")
            .args(["--json", "exec"])
            .args(&args)
            .args(["--stdin", "-", "--", "tr a-z A-Z"])
            .stdin(b"piped in\n".to_vec())
            .output();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["stdout"], "PIPED IN\n", "{v}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(session_dir(&t, &s))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("stdin."))
        .collect();
    assert!(leftovers.is_empty(), "the piped stdin is not kept: {leftovers:?}");
    let v = shell(&t, &["exec", "--session", &s, "--stdin", "missing.txt", "--", "cat"], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
}

/// `aide doctor` names the sessions whose keeper runs (with their
/// terminals), and a session shell no keeper holds, with the fix.
#[test]
fn doctor_lists_live_keepers_and_orphaned_session_shells() {
    let t = TestDir::new();
    let doctor_line = |t: &TestDir| -> serde_json::Value {
        let doc: serde_json::Value = t.cmd("aide").args(["doctor"]).json(0);
        doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "shell_sessions").cloned().unwrap()
    };
    let s = new_session(&t);
    exec(&t, &s, "true");
    shell(&t, &["term", "start", "--session", &s, "--", "sleep 60"], 0);
    let check = doctor_line(&t);
    assert_eq!(check["status"], "ok", "{check}");
    assert!(check["detail"].as_str().unwrap().contains(&format!("with a live keeper: {s} (1 terminal(s))")), "{check}");

    // A session's shell left running with no keeper and no command holding it.
    let idle = new_session(&t);
    let script = session_dir(&t, &idle).join("shell.sh");
    let mut orphan =
        Command::new("bash").args(["-c", "sleep 60; :", "orphan"]).arg(&script).stdout(Stdio::null()).spawn().unwrap();
    let pid = orphan.id();
    let check = doctor_line(&t);
    assert_eq!(check["status"], "warn", "{check}");
    assert!(check["detail"].as_str().unwrap().contains(&format!("(orphans): pids {pid}")), "{check}");
    assert!(check["fix"].as_str().unwrap().contains(&format!("kill {pid}")), "{check}");
    orphan.kill().unwrap();
    orphan.wait().unwrap();
    assert_eq!(doctor_line(&t)["status"], "ok");
}
