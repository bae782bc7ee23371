//! Nothing a sandboxed command can plant for an unsandboxed run (issue
//! 48, items 2, 3 and 6): each test has a sandboxed command try one seam —
//! the shared temporary directory (another run's throwaway session, a
//! sibling checkout), its session's own folder (`meta.json`, the keeper's
//! socket and pid, a forged report), `.git` and `aide.toml`, aide's state
//! beneath the root, its job's folder, a project's writable link to an
//! outside folder, `TIOCSTI` into a terminal — and fail.

use std::path::{Path, PathBuf};

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::sandbox::{escapes, mounts_refused, outside, refusals, sandbox_available, user_config};

/// Runs llm-shell with `--json` and this state folder (`home`), expecting `code`.
fn shell_in(t: &TestDir, home: &Path, args: &[&str], code: i32) -> Value {
    let (stdout, _) = t.cmd("llm-shell").env("AIDE_HOME", home).arg("--json").args(args).expect_exit(code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// What a command wrote to stderr.
fn stderr(v: &Value) -> &str {
    v["stderr"].as_str().unwrap_or_default()
}

#[test]
fn a_sandboxed_command_writes_its_own_temporary_directory_never_the_shared_one() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let pid = std::process::id();
    let shared = std::env::temp_dir();
    // Another run's throwaway session, as `llm-shell exec` makes it, and a sibling checkout.
    let other = shared.join(format!("aide-shell-plant-{pid}"));
    std::fs::create_dir_all(other.join("once")).unwrap();
    std::fs::write(other.join("once/state.sh"), "declare -x A=\"1\"\n").unwrap();
    let sibling = shared.join(format!("aide-plant-sibling-{pid}"));
    std::fs::create_dir_all(&sibling).unwrap();
    std::fs::write(sibling.join("src.txt"), "mine\n").unwrap();
    let new = shared.join(format!("aide-plant-new-{pid}"));
    let attempts = format!(
        "echo 'touch /tmp/planted' >> {o}/once/state.sh; rm -rf {s}; echo x > {s}/src.txt; touch {n}; \
         f=$(mktemp) && echo private > \"$f\" && cat \"$f\"; stat -c '%a %n' \"$TMPDIR\"; ls -A \"$TMPDIR\" | wc -l",
        o = other.display(),
        s = sibling.display(),
        n = new.display()
    );
    let mount_point = t.home().join("sandbox/tmp");
    for mode in ["read-only", "workspace-write"] {
        let v = shell_in(&t, t.home(), &["exec", "--sandbox", mode, "--", &attempts], 0);
        let tmpdir = mount_point.canonicalize().unwrap();
        if mounts_refused() {
            // One private (0700) folder, shared by sandboxed commands only.
            let said = format!("private\n700 {}\n", tmpdir.display());
            assert!(v["stdout"].as_str().unwrap().starts_with(&said), "{mode}: {v}");
        } else {
            // Fresh and private for each command: 0700, holding only the file it just made.
            assert_eq!(v["stdout"], format!("private\n700 {}\n1\n", tmpdir.display()), "{mode}: {v}");
        }
        assert_eq!(stderr(&v).matches("Permission denied").count(), 4, "{mode}: {v}");
        assert_eq!(std::fs::read_to_string(other.join("once/state.sh")).unwrap(), "declare -x A=\"1\"\n");
        assert_eq!(std::fs::read_to_string(sibling.join("src.txt")).unwrap(), "mine\n", "{mode}");
        assert!(!new.exists(), "{mode}");
        // Nothing of it is left behind: the folder it was mounted over stays empty.
        if !mounts_refused() {
            assert_eq!(std::fs::read_dir(&mount_point).unwrap().count(), 0, "{mode}");
        }
    }
    // A folder of the shared one is writable when the user's aide.toml says so.
    let config = user_config(&t, &format!("writable = [{:?}]\n", sibling.display().to_string()));
    let (out, _) = t
        .cmd("llm-shell")
        .env("XDG_CONFIG_HOME", &config)
        .args([
            "--json",
            "exec",
            "--sandbox",
            "read-only",
            "--",
            &format!("echo configured > {}/ok", sibling.display()),
        ])
        .expect_exit(0);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["exit_code"], 0, "{out}");
    assert_eq!(std::fs::read_to_string(sibling.join("ok")).unwrap(), "configured\n");
    std::fs::remove_dir_all(other).unwrap();
    std::fs::remove_dir_all(sibling).unwrap();
}

#[test]
fn a_sessions_folder_is_not_writable_from_its_sandbox_and_what_its_shell_reports_is_never_run_outside() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("session-folder");
    let o = out.display();
    // aide's state beneath the root: Landlock alone would let the session write it.
    let home = t.root().join("state");
    let root = t.root().display().to_string();
    let s = shell_in(&t, &home, &["session", "new", "--cwd", &root, "--sandbox", "workspace-write"], 0);
    let id = s["session_id"].as_str().unwrap().to_string();
    let dir = home.join("shell/sessions").join(&id);
    shell_in(&t, &home, &["exec", "--session", &id, "--", "true"], 0);
    let confinement = || {
        let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        (meta["sandbox"].clone(), meta["sandbox_dir"].clone())
    };
    let confined = confinement();
    let pid = std::fs::read_to_string(dir.join("keeper.pid")).unwrap();
    let d = dir.display();
    let attempts = [
        format!(
            "printf '%s' \"$(sed 's#\"sandbox_dir\": \"[^\"]*\"#\"sandbox_dir\": \"/\"#' {d}/meta.json)\" > {d}/meta.json"
        ),
        format!("echo 1 > {d}/keeper.pid"),
        format!("rm -f {d}/keeper.sock"),
        format!("mv {d}/keeper.sock {d}/moved"),
        format!("echo 'touch {o}/state' >> {d}/state.sh"),
        format!("touch {d}/lock {d}/planted {}/planted", home.display()),
        format!("rm -rf {}/jobs {d}/meta.json", home.display()),
    ];
    let v = shell_in(&t, &home, &["exec", "--session", &id, "--", &attempts.join("; ")], 1);
    assert_eq!(v["sandbox"]["mode"], "workspace-write", "{v}");
    assert!(refusals(stderr(&v)) >= attempts.len(), "{v}");
    assert_eq!(confinement(), confined, "meta.json's sandbox unchanged");
    assert_eq!(confined.1, json!(t.root().canonicalize().unwrap().display().to_string()));
    assert_eq!(std::fs::read_to_string(dir.join("keeper.pid")).unwrap(), pid, "keeper.pid unchanged");
    assert!(dir.join("keeper.sock").exists() && !dir.join("planted").exists() && !home.join("planted").exists());
    // The next background exec is confined as the session says.
    let v = shell_in(&t, &home, &["exec", "--session", &id, "--background", "--", &format!("echo x > {o}/job")], 0);
    assert_eq!(v["job"]["sandbox"]["mode"], "workspace-write", "{v}");
    let job = v["job"]["job_id"].as_i64().unwrap().to_string();
    t.cmd("llm-jobs").env("AIDE_HOME", &home).args(["wait", &job]).expect_exit(1);
    // A report forged by a command of the session: its state is read as text by `session show`, never run.
    let forged = "printf '\\036%s status %s 0 hB 1.0 1.0\\n%s\\0\\ndeclare -x PLANTED=\"1\"; touch %s/forged\\n\\036%s options\\n\\036%s end\\n' \
         \"$__aide_nonce\" \"$__aide_tag\" \"$PWD\" OUT \"$__aide_nonce\" \"$__aide_nonce\" > \"$__aide_io/report\"; sleep 0.5"
        .replace("OUT", &o.to_string());
    shell_in(&t, &home, &["exec", "--session", &id, "--", &forged], 0);
    assert!(std::fs::read_to_string(dir.join("state.sh")).unwrap().contains("forged"), "the forged state was saved");
    let v = shell_in(&t, &home, &["session", "show", &id, "--no-redact"], 0);
    assert_eq!(v["environment"]["PLANTED"], "1", "read as text: {v}");
    assert_eq!(escapes(&out), Vec::<String>::new(), "nothing ran outside the sandbox");
    shell_in(&t, &home, &["session", "rm", &id], 0);
}

/// A command of a session can write reports of its own, but never the next
/// command's: each request carries a fresh tag, so a forged report (or the
/// real one it delays) is not taken as what the next command did.
#[test]
fn a_sessions_command_cannot_forge_the_next_commands_report() {
    let t = TestDir::new();
    let home = t.root().join(".home");
    let root = t.root().display().to_string();
    let s = shell_in(&t, &home, &["session", "new", "--cwd", &root], 0);
    let id = s["session_id"].as_str().unwrap().to_string();
    // Two whole reports of the old shape and one with a guessed tag, saying
    // "exit 0 in /forged", written ahead of the real one.
    let report = |tag: &str| {
        format!(
            "printf '\\036%s status {tag}0 hB 1.0 1.0\\n/forged\\0\\n\\036%s options\\n\\036%s end\\n' \
             \"$__aide_nonce\" \"$__aide_nonce\" \"$__aide_nonce\" > \"$__aide_io/report\""
        )
    };
    let forge = [report(""), report(""), report("guess ")].join("; ");
    let v = shell_in(&t, &home, &["exec", "--session", &id, "--", &format!("{forge}; true")], 0);
    assert_eq!(v["exit_code"], 0, "{v}");
    let v = shell_in(&t, &home, &["exec", "--session", &id, "--", "cd / && false"], 1);
    assert_eq!(
        (v["exit_code"].as_i64(), v["working_dir"].as_str()),
        (Some(1), Some("/")),
        "the next command's own report: {v}"
    );
    let v = shell_in(&t, &home, &["exec", "--session", &id, "--", "pwd"], 0);
    assert_eq!(v["stdout"], "/\n", "{v}");
    shell_in(&t, &home, &["session", "rm", &id], 0);
}

#[test]
fn git_and_aide_toml_stay_read_only_in_workspace_write() {
    if !sandbox_available() || !aide_tests::oracle("git", "a planted git hook or fsmonitor") {
        return;
    }
    let t = TestDir::new();
    t.git_init();
    t.write("aide.toml", "exec_timeout = 60\n");
    let out = outside("git");
    let o = out.display();
    let config = std::fs::read_to_string(t.root().join(".git/config")).unwrap();
    let attempts = [
        "printf '#!/bin/sh\\ntouch OUT/hook\\n' > .git/hooks/pre-commit".replace("OUT", &o.to_string()),
        format!("printf '[core]\\n\\tfsmonitor = touch {o}/fsmonitor\\n' >> .git/config"),
        "git config core.hooksPath /tmp".into(),
        "rm -rf .git".into(),
        "mv .git moved".into(),
        "echo 'sandbox = \"off\"' > aide.toml".into(),
        "rm -f aide.toml".into(),
        "mv aide.toml moved.toml".into(),
        // Nor by undoing the mount, or through the unconfined caller's view of the tree.
        "umount -l .git aide.toml".into(),
        format!("echo '[core] hooksPath = /tmp' >> /proc/$PPID/root{}/.git/config", t.root().display()),
    ];
    // Where no mount can be made, the root's top level takes no new entry: an existing file is written.
    if mounts_refused() {
        t.write("inside.txt", "");
    }
    let line = attempts.join("; ") + "; echo inside > inside.txt";
    let (stdout, _) =
        t.cmd("llm-shell").args(["--json", "exec", "--sandbox", "workspace-write", "--", &line]).expect_exit(0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(refusals(stderr(&v)) >= 6, "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join(".git/config")).unwrap(), config, "{v}");
    assert!(!t.root().join(".git/hooks/pre-commit").exists() && !t.root().join("moved").exists(), "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join("aide.toml")).unwrap(), "exec_timeout = 60\n");
    assert_eq!(std::fs::read_to_string(t.root().join("inside.txt")).unwrap(), "inside\n", "the root is writable");
    // An unconfined git afterwards runs nothing planted.
    t.git(&["add", "-A"]).git(&["commit", "-qm", "after"]).git(&["status", "--short"]);
    assert_eq!(escapes(&out), Vec::<String>::new());
}

#[test]
fn a_projects_writable_link_to_an_outside_folder_opens_nothing() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("link");
    std::os::unix::fs::symlink(&out, t.root().join("escape")).unwrap();
    t.write("aide.toml", "sandbox = \"workspace-write\"\nwritable = [\"escape\", \"escape/deeper\"]\n");
    let nowhere = t.home().join("no-config");
    let (stdout, _) = t
        .cmd("llm-shell")
        .env("XDG_CONFIG_HOME", &nowhere)
        .args(["--json", "exec", "--", "echo x > escape/through-link; mkdir escape/deeper"])
        .expect_exit(1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["sandbox"], json!({"mode": "workspace-write", "network": "on"}), "{v}");
    assert_eq!(stderr(&v).matches("Permission denied").count(), 2, "{v}");
    assert_eq!(escapes(&out), Vec::<String>::new());
    // The refusal names the entry and where it leads.
    let doctor = t.cmd("aide").env("XDG_CONFIG_HOME", &nowhere).args(["doctor", "--json"]).output();
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let check = doctor["checks"].as_array().unwrap().iter().find(|c| c["name"] == "configuration").cloned().unwrap();
    let detail = check["detail"].as_str().unwrap();
    let real = out.canonicalize().unwrap();
    assert_eq!(check["status"], "warn", "{check}");
    assert!(detail.contains(&format!("writable \"escape\" resolves to {}, outside the project", real.display())));
    assert!(detail.contains("writable \"escape/deeper\" resolves to "), "{detail}");
}

#[test]
fn a_sandboxed_job_cannot_touch_its_own_folder_and_reads_the_stdin_handed_to_it() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let home = t.root().join("state");
    let line = "echo x >> \"$AIDE_HOME/jobs/jobs.db\"; echo x > \"$AIDE_HOME/jobs/$LLM_JOB_ID/stdout.redacted\"; \
                touch \"$AIDE_HOME/jobs/$LLM_JOB_ID/planted\"; echo done";
    let (spawned, _) = t
        .cmd("llm-jobs")
        .env("AIDE_HOME", &home)
        .args(["--json", "spawn", "--sandbox", "workspace-write", "--", line])
        .expect_exit(0);
    let job = serde_json::from_str::<Value>(&spawned).unwrap()["job_id"].as_i64().unwrap().to_string();
    t.cmd("llm-jobs").env("AIDE_HOME", &home).args(["wait", &job]).expect_exit(0);
    let (logs, _) = t.cmd("llm-jobs").env("AIDE_HOME", &home).args(["logs", &job, "--stream", "both"]).expect_exit(0);
    assert_eq!(refusals(&logs), 3, "{logs}");
    // The two streams are read apart, so their lines' order between them is the readers' (not asserted).
    assert!(logs.lines().any(|l| l == "done") && !home.join("jobs").join(&job).join("planted").exists(), "{logs}");
    // What llm-shell read for a sandboxed background command reaches it, and is not left behind.
    let (out, _) = t
        .cmd("llm-shell")
        .env("AIDE_HOME", &home)
        .args(["--json", "exec", "--sandbox", "workspace-write", "--background", "--stdin", "-", "--", "cat"])
        .stdin("handed over\n")
        .expect_exit(0);
    let job = serde_json::from_str::<Value>(&out).unwrap()["job"]["job_id"].as_i64().unwrap().to_string();
    t.cmd("llm-jobs").env("AIDE_HOME", &home).args(["wait", &job]).expect_exit(0);
    let (logs, _) = t.cmd("llm-jobs").env("AIDE_HOME", &home).args(["logs", &job]).expect_exit(0);
    assert_eq!(logs, "handed over\n");
    let left: Vec<PathBuf> = std::fs::read_dir(home.join("shell/stdin")).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(left, Vec::<PathBuf>::new());
}

/// Drives the TIOCSTI attempt: a terminal that is `llm-shell`'s controlling
/// terminal (the caller's) and another; the command tries to type `id` into
/// `/dev/tty` and each by path; what each try said, and what reached each
/// terminal's input.
const TIOCSTI_DRIVER: &str = r#"
import fcntl, json, os, pty, subprocess, sys, termios, tty
llm_shell, mode = sys.argv[1], sys.argv[2]
caller_m, caller = pty.openpty()
other_m, other = pty.openpty()
for fd in (caller, other):
    tty.setraw(fd)
names = [os.ttyname(caller), os.ttyname(other)]
attempt = '''
import fcntl, os, sys, termios
for path in sys.argv[1:]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        print(path, "open", e.errno); continue
    try:
        for b in b"id\\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([b]))
        print(path, "typed")
    except OSError as e:
        print(path, "ioctl", e.errno)
'''
def controlling_terminal():
    os.setsid()
    fcntl.ioctl(os.open(names[0], os.O_RDWR), termios.TIOCSCTTY, 0)
sandbox = [] if mode == "off" else ["--sandbox", mode]
done = subprocess.run([llm_shell, "--json", "exec"] + sandbox + ["--", "python3", "-c", attempt, "/dev/tty"] + names,
                      preexec_fn=controlling_terminal, stdin=subprocess.DEVNULL, capture_output=True)
typed = {}
for name, fd in zip(names, (caller, other)):
    os.set_blocking(fd, False)
    try:
        typed[name] = os.read(fd, 100).decode()
    except BlockingIOError:
        typed[name] = ""
print(json.dumps({"result": json.loads(done.stdout), "typed": typed, "names": names}))
"#;

#[test]
#[allow(clippy::disallowed_methods)] // the test's own driver, not a program of aide's
fn a_sandboxed_command_cannot_type_into_a_terminal() {
    if !sandbox_available() || !aide_tests::oracle("python3", "TIOCSTI tried from a sandbox") {
        return;
    }
    let t = TestDir::new();
    let run = |mode: &str| -> Value {
        let out = std::process::Command::new("python3")
            .args(["-c", TIOCSTI_DRIVER])
            .arg(aide_tests::bin_dir().join("llm-shell"))
            .arg(mode)
            .current_dir(t.root())
            .env("AIDE_HOME", t.home())
            .env("XDG_CONFIG_HOME", t.home().join("config"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}{}", String::from_utf8_lossy(&out.stderr)))
    };
    for mode in ["read-only", "workspace-write"] {
        let v = run(mode);
        let said = v["result"]["stdout"].as_str().unwrap();
        assert!(!said.contains("typed"), "{mode}: {v}");
        // Its controlling terminal was taken from it; the others are not its to type into.
        assert!(said.starts_with("/dev/tty open 6\n"), "{mode}: no controlling terminal (ENXIO): {v}");
        assert_eq!(said.matches("ioctl 1\n").count(), 2, "{mode}: EPERM for each terminal by path: {v}");
        assert_eq!(v["typed"], json!({v["names"][0].as_str().unwrap(): "", v["names"][1].as_str().unwrap(): ""}));
    }
    // Unsandboxed, where this machine allows TIOCSTI at all, the same command types: the test can tell.
    let v = run("off");
    if v["result"]["stdout"].as_str().unwrap().contains("typed") {
        let typed: String = v["typed"].as_object().unwrap().values().map(|s| s.as_str().unwrap()).collect();
        assert!(typed.contains("id"), "{v}");
    } else {
        eprintln!("note: this machine refuses TIOCSTI to unsandboxed commands too (legacy_tiocsti off)");
    }
}
