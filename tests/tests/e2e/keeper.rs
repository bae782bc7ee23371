//! llm-shell's per-session keeper: one live bash between execs, replaced
//! from the saved state when it dies, gone with its session; and exec's stdin.
//! Keepers know their callers: sandboxed callers racing to look unconfined
//! are all refused, and a socket or pid left in a keeper's folder is not
//! taken for the keeper's.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use aide_tests::TestDir;
use serde_json::json;

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

/// A sandboxed caller that makes its request and is gone (reaped) before
/// the keeper looks at it: `N` of them at once. Each socket is made, and
/// handed to a child that sends the request (the file REQUEST, `@I@` its
/// number) and writes the answer into ANSWERS, before a short-lived process
/// connects it and exits at once. A keeper that took a caller it could not
/// read for an unconfined one ran its command (5 of 5 in the report that
/// found it).
const RACE: &str = r#"
import os, signal, socket, sys, time
sock, request, answers, n = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3], int(sys.argv[4])

def hold(s, i, go):
    os.read(go, 1)
    try:
        s.getpeername()
    except OSError:
        os._exit(0)  # Not connected: the connecting process said why.
    s.settimeout(30)
    got = b""
    try:
        s.sendall(request.replace("@I@", str(i)).encode())
        while got.count(b"\n") < 2:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError as e:
        got += ("(error %s)" % e).encode()
    with open("%s/%d.tmp" % (answers, i), "wb") as f:
        f.write(got)
    os.rename("%s/%d.tmp" % (answers, i), "%s/%d" % (answers, i))
    os._exit(0)

sockets = []
for i in range(n):
    s = socket.socket(socket.AF_UNIX)
    go_read, go_write = os.pipe()
    if os.fork() == 0:
        hold(s, i, go_read)
    os.close(go_read)
    sockets.append((s, go_write))
# Children are reaped as they exit: no zombie is left for the keeper to read.
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
for i, (s, go) in enumerate(sockets):
    p = os.fork()
    if p == 0:
        try:
            s.connect(sock)
        except OSError as e:
            with open("%s/%d" % (answers, i), "w") as f:
                f.write("(could not connect: %s)" % e)
        os._exit(0)
    try:
        os.waitpid(p, 0)
    except ChildProcessError:
        pass
    s.close()
    os.write(go, b"g")
    os.close(go)
deadline = time.time() + 120
while len([a for a in os.listdir(answers) if not a.endswith(".tmp")]) < n and time.time() < deadline:
    time.sleep(0.05)
"#;

/// Runs `n` racing callers from a sandbox, each asking `request` (a line;
/// `@I@` its number) of the keeper listening on `socket`: what each read
/// back, or why it could not connect.
fn race_callers(t: &TestDir, socket: &std::path::Path, request: &str, n: usize) -> Vec<String> {
    t.write("race.py", RACE);
    t.write("request.json", format!("{request}\n"));
    std::fs::create_dir(t.root().join("answers")).unwrap();
    let line = format!("python3 race.py {} request.json answers {n}", socket.display());
    let v = shell(t, &["exec", "--sandbox", "workspace-write", "--timeout", "600", "--", &line], 0);
    let answers: Vec<String> = std::fs::read_dir(t.root().join("answers"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(answers.len(), n, "every caller answered: {v}");
    answers
}

/// The racers' answers that are not `refused` (nor a connection refused
/// before any request), with a count for the report.
#[allow(clippy::print_stderr)] // the race's tally, for whoever runs it by hand
fn served(n: usize, answers: Vec<String>, refused: impl Fn(&serde_json::Value) -> bool) -> Vec<String> {
    let first = |a: &str| a.lines().next().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    let unreached = answers.iter().filter(|a| a.starts_with("(could not connect")).count();
    let served: Vec<String> = answers
        .into_iter()
        .filter(|a| !a.starts_with("(could not connect") && !first(a).is_some_and(|v| refused(&v)))
        .collect();
    eprintln!(
        "{n} racing callers: {} refused, {unreached} could not connect, {} served",
        n - unreached - served.len(),
        served.len()
    );
    served
}

fn sandbox_and_python() -> bool {
    if !crate::sandbox::sandbox_available() {
        return false;
    }
    if !aide_tests::have("python3") {
        aide_tests::skip("python3", "callers racing a keeper");
        return false;
    }
    true
}

/// Runs `n` racing callers from a sandbox against an unsandboxed session's
/// keeper: none may be served (no command of theirs runs, each is refused
/// or could not connect), and the keeper still serves its own caller.
fn race(n: usize) {
    if !sandbox_and_python() {
        return;
    }
    let t = TestDir::new();
    let out = crate::sandbox::outside("keeper-race");
    let s = new_session(&t);
    exec(&t, &s, "true");
    let socket = session_dir(&t, &s).join("keeper.sock");
    let order = json!({"exec": {"command": format!("echo won > {}/won-@I@", out.display()), "stdin": null,
                                "timeout_ms": 10000, "max_output": 4096, "redact": false}});
    let answers = race_callers(&t, &socket, &order.to_string(), n);
    let served = served(n, answers, |a| a["failed"]["code"] == "not_allowed");
    assert_eq!(crate::sandbox::escapes(&out), Vec::<String>::new());
    assert!(served.is_empty(), "served: {served:?}");
    assert_eq!(exec(&t, &s, "echo mine")["stdout"], "mine\n");
}

/// 64 racing callers on every run; `AIDE_KEEPER_RACES=1000` makes it the
/// issue's thousand, for a report (about a minute).
#[test]
fn sandboxed_callers_gone_before_the_keeper_looks_are_all_refused() {
    if !aide_tests::sandbox_here("sandboxed callers of a keeper") {
        return;
    }
    race(std::env::var("AIDE_KEEPER_RACES").ok().and_then(|n| n.parse().ok()).unwrap_or(64));
}

/// A language server's keeper shares the proof: racing sandboxed callers
/// get no answer of the server kept outside their sandbox.
#[test]
fn sandboxed_callers_racing_a_language_servers_keeper_are_all_refused() {
    if !aide_tests::sandbox_here("sandboxed callers of a keeper") {
        return;
    }
    if !sandbox_and_python() || !aide_tests::oracle("pyright-langserver", "a language server's keeper") {
        return;
    }
    let t = TestDir::new();
    t.write("app.py", "class Flask:\n    def add_rule(self) -> None: ...\n\nFlask().add_rule()\n");
    let v: serde_json::Value =
        t.cmd("llm-ast-search").args(["--references", "Flask/add_rule", "--engine", "lsp"]).json(0);
    assert_eq!(v["engine"], "lsp", "{v}");
    let keeper = std::fs::read_dir(t.home().join("lsp")).unwrap().flatten().next().unwrap().path();
    let question = json!({"method": "workspace/symbol", "params": {"query": "Flask@I@"}, "open": []});
    let answers = race_callers(&t, &keeper.join("keeper.sock"), &question.to_string(), 16);
    let served = served(16, answers, |a| {
        a["failed"]["message"].as_str().is_some_and(|m| m.contains("cannot ask a language server kept outside"))
    });
    assert!(served.is_empty(), "served: {served:?}");
}

/// A stranger's server: answers every request with made-up output, until
/// the `stop` file appears.
const STRANGER: &str = r#"
import os, socket, sys, time
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.bind(path + ".new")
s.listen(16)
os.rename(path + ".new", path)
s.settimeout(0.1)
end = time.time() + 120
while not os.path.exists("stop") and time.time() < end:
    try:
        c, _ = s.accept()
    except OSError:
        continue
    c.settimeout(1)
    try:
        c.recv(65536)
        c.sendall(b'{"accepted":null}\n{"failed":{"code":"internal","message":"made up by a stranger","hint":null,"details":null}}\n')
    except OSError:
        pass
    c.close()
"#;

/// A server started from a sandbox, its socket put where a keeper's is
/// (the walls of the session folder refuse that to a sandbox itself: here
/// the test stands in for a plant that got through), and another pid
/// written into keeper.pid: no caller takes the stranger for the keeper,
/// where no keeper lives a real one takes its place, and `session rm`
/// ends the keeper that holds the session, not the pid the file names.
#[test]
fn a_socket_or_pid_left_in_a_keepers_folder_is_not_taken_for_the_keeper() {
    if !crate::sandbox::sandbox_available() {
        return;
    }
    if !aide_tests::have("python3") {
        aide_tests::skip("python3", "a stranger's server on a keeper's socket");
        return;
    }
    let t = TestDir::new();
    t.write("stranger.py", STRANGER);
    let strangers = "python3 stranger.py a.sock & python3 stranger.py b.sock & wait";
    let mut sandboxed = t
        .cmd("llm-shell")
        .args(["exec", "--sandbox", "workspace-write", "--timeout", "150", "--", strangers])
        .cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the strangers to listen", || t.root().join("a.sock").exists() && t.root().join("b.sock").exists());

    // A live keeper whose socket was replaced: refused, with why; nothing made up.
    let s = new_session(&t);
    exec(&t, &s, "true");
    let keeper = keeper_pid(&t, &s);
    std::fs::rename(t.root().join("a.sock"), session_dir(&t, &s).join("keeper.sock")).unwrap();
    let v = shell(&t, &["exec", "--session", &s, "--", "echo real"], 3);
    assert_eq!(v["error"]["code"], "conflict", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("not trusted") && !message.contains("made up"), "{v}");

    // `session rm` ends the keeper, not the process keeper.pid now names.
    let mut victim = Command::new("sleep").arg("300").spawn().unwrap();
    std::fs::write(session_dir(&t, &s).join("keeper.pid"), format!("{}\n", victim.id())).unwrap();
    shell(&t, &["session", "rm", &s], 0);
    assert!(!alive(keeper), "the keeper ended");
    assert!(victim.try_wait().unwrap().is_none(), "the process keeper.pid named lives on");
    victim.kill().unwrap();
    victim.wait().unwrap();

    // No keeper: a stranger on the socket is replaced by a real keeper.
    let s = new_session(&t);
    std::fs::rename(t.root().join("b.sock"), session_dir(&t, &s).join("keeper.sock")).unwrap();
    assert_eq!(exec(&t, &s, "echo real")["stdout"], "real\n");

    t.write("stop", "");
    sandboxed.wait().unwrap();
}
