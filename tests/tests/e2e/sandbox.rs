//! Sandboxed commands try to get out, every way a command can: a symlink,
//! `/proc/self/root`, a hard link, a child process, a background job, a
//! terminal, a job of llm-jobs, a keeper that is not sandboxed, and the
//! host's loopback services under `--network off`. Zero escapes.
//!
//! The writable side of these tests is the test's root, under the
//! temporary directory; the outside is a folder outside the temporary
//! directory (`/var/tmp`, else Cargo's target directory when that is not
//! inside it), so that no test root is ever the outside. What a sandboxed
//! command could plant for an unconfined run is tried in `plant`.

use std::net::TcpListener;
use std::path::PathBuf;

use aide_tests::TestDir;
use serde_json::{Value, json};

use crate::shell::shell;

/// A folder outside the temporary directory, outside every test root
/// (a checkout under `/tmp` has its target directory inside it: not there).
pub(crate) fn outside(name: &str) -> PathBuf {
    let temp = std::env::temp_dir().canonicalize().unwrap_or_else(|_| std::env::temp_dir());
    let base = [PathBuf::from("/var/tmp"), PathBuf::from(env!("CARGO_TARGET_TMPDIR"))]
        .into_iter()
        .filter_map(|b| b.canonicalize().ok())
        .find(|b| !b.starts_with(&temp))
        .expect("a folder outside the temporary directory for the sandbox tests");
    let dir = base.join(format!("aide-sandbox-outside-{}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("victim.txt"), "untouched\n").unwrap();
    dir
}

/// What is in `dir` besides the victim, and whether the victim changed: each an escape.
pub(crate) fn escapes(dir: &std::path::Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "victim.txt")
        .collect();
    if std::fs::read_to_string(dir.join("victim.txt")).unwrap() != "untouched\n" {
        found.push("victim.txt changed".into());
    }
    found.sort();
    found
}

/// Whether sandboxes here are Landlock's rules alone because no mount can
/// be made (this test runs inside another sandbox, as some CI runners do):
/// then a protected path is refused with `EACCES`, not `EROFS`, a writable
/// root holding `.git` gets no new top-level entry, and the temporary
/// directory is one folder shared by sandboxed commands. Said once, visibly.
pub(crate) fn mounts_refused() -> bool {
    static REFUSED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REFUSED.get_or_init(|| {
        let t = TestDir::new();
        let out = t.cmd("aide").args(["doctor", "--json"]).output();
        let refused = String::from_utf8_lossy(&out.stdout).contains("no mount can be made here");
        if refused {
            // Straight to the stream, past the test harness's capture, as skips are.
            let note =
                "NOTE: no mount can be made here: the sandbox tests check Landlock's rules alone (see aide doctor)\n";
            let _ = std::io::Write::write_all(&mut std::io::stderr(), note.as_bytes());
        }
        refused
    })
}

/// How many of a sandboxed command's writes were refused in `text`: by a
/// read-only mount, or where no mount can be made, by Landlock.
pub(crate) fn refusals(text: &str) -> usize {
    text.matches("Read-only file system").count() + text.matches("Permission denied").count()
}

pub(crate) fn sandbox_available() -> bool {
    aide_tests::sandbox_here("sandboxed commands")
}

#[test]
fn a_workspace_write_command_writes_its_root_and_nothing_outside_it() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("workspace");
    let o = out.display();
    std::os::unix::fs::symlink(out.join("victim.txt"), t.root().join("link")).unwrap();
    let attempts = [
        format!("echo x > {o}/direct"),
        format!("echo x >> {o}/victim.txt"),
        "echo x >> link".to_string(),
        format!("echo x > /proc/self/root{o}/proc"),
        format!("ln {o}/victim.txt hard && echo x >> hard"),
        format!("mkdir {o}/dir"),
        format!("rm -f {o}/victim.txt"),
        format!("mv {o}/victim.txt moved"),
        format!("bash -c 'echo x > {o}/child'"),
        format!("(sleep 0.2; echo x > {o}/late) & wait"),
        format!("python3 -c 'open(\"{o}/python\", \"w\")' 2>/dev/null; true"),
    ];
    let line = attempts.join("; ") + "; echo inside > inside.txt";
    let v = shell(&t, &["exec", "--sandbox", "workspace-write", "--", &line], 0);
    assert_eq!(v["sandbox"], json!({"mode": "workspace-write", "network": "on"}), "{v}");
    assert!(v["stderr"].as_str().unwrap().contains("Permission denied"), "{v}");
    assert_eq!(escapes(&out), Vec::<String>::new(), "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join("inside.txt")).unwrap(), "inside\n", "the root is writable");
    // Not sandboxed, the same first write goes through: the test can tell.
    let v = shell(&t, &["exec", "--", &format!("echo x > {o}/direct")], 0);
    assert_eq!(v["sandbox"], json!({"mode": "off", "network": "on"}));
    assert_eq!(escapes(&out), ["direct"]);
}

#[test]
fn root_without_the_right_to_map_every_group_still_gets_its_sandbox() {
    // Root whose runner took CAP_SETGID away may map only its own group:
    // the user namespace is made with the maps it can write.
    let setpriv_runs = std::process::Command::new("setpriv").arg("--help").output().is_ok_and(|o| o.status.success());
    if !rustix::process::getuid().is_root() || !setpriv_runs || !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("no-setgid");
    let mut run = t.cmd("llm-shell");
    let helper = std::mem::replace(&mut run.cmd, aide_tests::own_session(std::process::Command::new("setpriv")));
    run.cmd
        .args(["--bounding-set=-setgid", "--inh-caps=-setgid"])
        .arg(helper.get_program())
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env("XDG_CONFIG_HOME", t.home().join("config"));
    let line = format!("echo x > {}/direct; echo inside > inside.txt", out.display());
    let (stdout, _) = run.args(["--json", "exec", "--sandbox", "workspace-write", "--", &line]).expect_exit(0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["exit_code"], 0, "{v}");
    assert!(v["stderr"].as_str().unwrap().contains("Permission denied"), "{v}");
    assert_eq!(escapes(&out), Vec::<String>::new(), "{v}");
    assert_eq!(std::fs::read_to_string(t.root().join("inside.txt")).unwrap(), "inside\n");
}

#[test]
fn read_only_writes_only_its_own_temporary_directory() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("read-only");
    let o = out.display();
    let shared = std::env::temp_dir().join(format!("aide-sandbox-{}", std::process::id()));
    let line = format!(
        "echo x > {o}/direct; echo x > inside; echo x > {}; echo ok > \"$TMPDIR/mine\" && cat \"$TMPDIR/mine\"; \
         cat {o}/victim.txt",
        shared.display()
    );
    let v = shell(&t, &["exec", "--sandbox", "read-only", "--", &line], 0);
    assert_eq!(v["stdout"], "ok\nuntouched\n", "its TMPDIR is writable, reading is allowed: {v}");
    assert_eq!(v["stderr"].as_str().unwrap().matches("Permission denied").count(), 3, "{v}");
    assert_eq!(escapes(&out), Vec::<String>::new());
    assert!(!shared.exists() && !t.root().join("inside").exists());
}

#[test]
fn a_sessions_sandbox_holds_for_its_commands_jobs_and_terminals_and_cannot_be_changed() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("session");
    let o = out.display();
    let root = t.root().display().to_string();
    let s = shell(&t, &["session", "new", "--cwd", &root, "--sandbox", "workspace-write"], 0);
    let id = s["session_id"].as_str().unwrap().to_string();
    // A command, then one after `cd` out of the root: the sandbox stays where it started.
    let v = shell(&t, &["exec", "--session", &id, "--", &format!("cd {o}; echo x > cd")], 1);
    assert_eq!(v["sandbox"]["mode"], "workspace-write", "{v}");
    // A background job of the session, from where the shell now is.
    let v = shell(&t, &["exec", "--session", &id, "--background", "--", &format!("echo x > {o}/job; pwd")], 0);
    assert_eq!(v["job"]["sandbox"]["mode"], "workspace-write", "{v}");
    let job = v["job"]["job_id"].as_i64().unwrap().to_string();
    let (_, _) = t.cmd("llm-jobs").args(["wait", &job]).expect_exit(0);
    let (logs, _) = t.cmd("llm-jobs").args(["logs", &job]).expect_exit(0);
    assert!(logs.contains("Permission denied") && logs.contains(&o.to_string()), "it ran where the shell was: {logs}");
    // A terminal of the session.
    let v = shell(&t, &["term", "start", "--session", &id, "--", &format!("echo x > {o}/term; echo done")], 0);
    let term = v["terminal_id"].as_str().unwrap().to_string();
    let v = shell(&t, &["term", "read", &term, "--wait-for", "done", "--timeout", "10"], 0);
    let screen: String = v["screen"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(screen.contains("Permission denied"), "{v}");
    // Nothing lifts it: another sandbox for the session is refused, nothing run.
    let v = shell(&t, &["exec", "--session", &id, "--sandbox", "off", "--", &format!("echo x > {o}/off")], 2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");
    assert_eq!(escapes(&out), Vec::<String>::new());
}

#[test]
fn a_sandboxed_command_cannot_ask_an_unsandboxed_keeper_or_job_to_write_for_it() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("keeper");
    let o = out.display();
    let open = crate::shell::new_session(&t);
    shell(&t, &["exec", "--session", &open, "--", "true"], 0);
    let bin = aide_tests::bin_dir().display().to_string();
    let line = format!(
        "{bin}/llm-shell exec --session {open} -- 'echo x > {o}/keeper'; \
         {bin}/llm-jobs spawn -- 'echo x > {o}/job' && sleep 1; \
         {bin}/llm-shell term start --session {open} -- 'echo x > {o}/term'; sleep 1"
    );
    let v = shell(&t, &["exec", "--sandbox", "workspace-write", "--", &line], 0);
    assert_eq!(escapes(&out), Vec::<String>::new(), "{v}");
    // The keeper says why, in words the caller can act on.
    assert!(
        v["stderr"].as_str().unwrap().contains("error[not_allowed]: a sandboxed command cannot use the shell"),
        "{v}"
    );
}

#[test]
fn network_off_reaches_no_service_of_the_host_not_even_on_loopback() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let v = shell(&t, &["exec", "--", &connect], 0);
    assert_eq!(v["stdout"], "connected\n", "{v}");
    let v = shell(&t, &["exec", "--network", "off", "--", &connect], 1);
    assert_eq!(v["sandbox"], json!({"mode": "off", "network": "off"}));
    assert!(v["stderr"].as_str().unwrap().contains("Connection refused"), "{v}");
    // A job too, and everything it starts.
    let (out, _) = t
        .cmd("llm-jobs")
        .args(["spawn", "--json", "--network", "off", "--", &format!("bash -c '{connect}'")])
        .expect_exit(0);
    let job: Value = serde_json::from_str(&out).unwrap();
    let id = job["job_id"].as_i64().unwrap().to_string();
    let (waited, _) = t.cmd("llm-jobs").args(["wait", "--json", &id]).expect_exit(1);
    assert!(!waited.contains("\"exit_code\":0"), "{waited}");
    drop(listener);
}

#[test]
fn aide_mcp_sandboxes_shell_and_job_calls_and_no_call_can_choose_its_own() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("mcp");
    let o = out.display();
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let r = client.call("shell_exec", json!({"command": format!("echo x > {o}/mcp; echo y > inside.txt")}));
    let doc = &r["structuredContent"];
    assert_eq!(doc["sandbox"], json!({"mode": "workspace-write", "network": "on"}), "{r}");
    assert!(t.root().join("inside.txt").is_file());
    let r = client.call("shell_exec", json!({"command": "true", "sandbox": "off"}));
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["structuredContent"]["error"]["code"], "invalid_arguments");
    let r = client.call("jobs_spawn", json!({"command": format!("echo x > {o}/job")}));
    assert_eq!(r["structuredContent"]["sandbox"]["mode"], "workspace-write", "{r}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(escapes(&out), Vec::<String>::new());
    // The operator chooses: a server started with --network off.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &["--network", "off"], json!({}));
    let r = client.call("shell_exec", json!({"command": format!("exec 3<>/dev/tcp/127.0.0.1/{port}")}));
    assert_eq!(r["structuredContent"]["sandbox"]["network"], "off", "{r}");
    assert_ne!(r["structuredContent"]["exit_code"], 0, "{r}");
}

#[test]
fn aide_doctor_says_which_modes_the_kernel_enforces() {
    let t = TestDir::new();
    let out = t.cmd("aide").args(["doctor", "--json"]).output();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "sandbox").cloned().unwrap();
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("read-only and workspace-write (Landlock, user and mount namespaces): "), "{detail}");
    assert!(detail.contains("network off (user and network namespaces): "), "{detail}");
    // What the kernel leaves unconfined, and what every sandbox keeps read-only, are said.
    if check["status"] == "ok" {
        assert!(detail.contains("Landlock ABI ") && detail.contains("(chmod, chown, utimes, xattrs)"), "{detail}");
        assert!(detail.contains(&format!("aide's state ({})", t.home().display())), "{detail}");
        let kept = if mounts_refused() {
            "every writable path's .git and aide.toml read-only: a writable root holding one creates, removes and \
             renames nothing at its top level"
        } else {
            "every writable path's .git and aide.toml are read-only inside"
        };
        assert!(detail.contains(kept), "{detail}");
    }
}

/// The user's configuration folder for a test: `XDG_CONFIG_HOME`.
pub(crate) fn user_config(t: &TestDir, text: &str) -> PathBuf {
    let dir = t.home().join("config");
    std::fs::create_dir_all(dir.join("aide")).unwrap();
    std::fs::write(dir.join("aide/aide.toml"), text).unwrap();
    dir
}

#[test]
fn aide_toml_sets_the_defaults_and_a_project_cannot_loosen_the_users() {
    if !sandbox_available() {
        return;
    }
    let t = TestDir::new();
    let out = outside("config");
    let o = out.display();
    let nowhere = t.home().join("no-config");
    // The project's file turns the sandbox on for every command that does not say.
    t.write("aide.toml", "sandbox = \"workspace-write\"\nnetwork = \"off\"\n");
    let v: Value = serde_json::from_str(
        &t.cmd("llm-shell")
            .env("XDG_CONFIG_HOME", &nowhere)
            .args(["--json", "exec", "--", &format!("echo x > {o}/project")])
            .expect_exit(1)
            .0,
    )
    .unwrap();
    assert_eq!(v["sandbox"], json!({"mode": "workspace-write", "network": "off"}), "{v}");
    // A flag overrides it.
    let (out_json, _) = t
        .cmd("llm-shell")
        .env("XDG_CONFIG_HOME", &nowhere)
        .args(["--json", "exec", "--network", "on", "--", "true"])
        .expect_exit(0);
    assert_eq!(serde_json::from_str::<Value>(&out_json).unwrap()["sandbox"]["network"], "on");
    // Reading too, where the file lists where: the root and the system's folders, nothing else.
    t.write("aide.toml", "sandbox = \"workspace-write\"\nreadable = []\n");
    t.write("mine.txt", "mine\n");
    let (read_json, _) = t
        .cmd("llm-shell")
        .env("XDG_CONFIG_HOME", &nowhere)
        .args(["--json", "exec", "--", &format!("cat mine.txt /etc/hostname > /dev/null && cat {o}/victim.txt")])
        .expect_exit(1);
    let v: Value = serde_json::from_str(&read_json).unwrap();
    assert!(v["stderr"].as_str().unwrap().contains("victim.txt: Permission denied"), "{v}");
    // The user holds read-only; the project's `off` is ignored, and doctor says so.
    let config = user_config(&t, "sandbox = \"read-only\"\n");
    t.write("aide.toml", "sandbox = \"off\"\nwritable = [\"/etc\"]\n");
    let (j, _) =
        t.cmd("llm-jobs").env("XDG_CONFIG_HOME", &config).args(["--json", "spawn", "--", "true"]).expect_exit(0);
    assert_eq!(serde_json::from_str::<Value>(&j).unwrap()["sandbox"]["mode"], "read-only", "{j}");
    let doctor = t.cmd("aide").env("XDG_CONFIG_HOME", &config).args(["doctor", "--json"]).output();
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let check = doctor["checks"].as_array().unwrap().iter().find(|c| c["name"] == "configuration").cloned().unwrap();
    let detail = check["detail"].as_str().unwrap();
    assert_eq!(check["status"], "warn", "{check}");
    assert!(detail.contains("sandbox = read-only") && detail.contains("cannot loosen"), "{detail}");
    assert!(detail.contains("writable \"/etc\" lies outside the project"), "{detail}");
    // aide mcp: a project's `off` does not undo the server's workspace-write; the user's policy holds.
    let aide = aide_tests::bin_dir().join("aide");
    let mcp = |config: &std::path::Path| {
        aide_tests::mcp::McpClient::start_with_env(&aide, t.root(), t.home(), &[], &[("XDG_CONFIG_HOME", config)])
            .handshake(json!({}))
    };
    t.write("aide.toml", "sandbox = \"off\"\n");
    let r = mcp(&nowhere).call("shell_exec", json!({"command": "true"}));
    assert_eq!(r["structuredContent"]["sandbox"]["mode"], "workspace-write", "{r}");
    let config = user_config(&t, "allow = \"auto\"\n");
    let mut client = mcp(&config);
    let listed = client.request("tools/list", json!({}));
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"shell_exec") && names.contains(&"read"), "{names:?}");
    // A file that does not parse stops every tool, naming the file and line.
    t.write("aide.toml", "sandbox = \"everything\"\n");
    let (e, _) =
        t.cmd("llm-shell").env("XDG_CONFIG_HOME", &nowhere).args(["--json", "exec", "--", "true"]).expect_exit(2);
    let e: Value = serde_json::from_str(&e).unwrap();
    assert_eq!(e["error"]["code"], "invalid_request", "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("aide.toml:1"), "{e}");
    assert_eq!(escapes(&out), Vec::<String>::new());
}
