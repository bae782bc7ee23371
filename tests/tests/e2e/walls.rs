//! Walls of the state and the runs themselves (issue 31): a poisoned
//! `$AIDE_HOME` never hangs a tool, a signal ends any run within a second,
//! and two files never share a path.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aide_tests::{TestDir, bin_dir};
use serde_json::{Value, json};

use crate::safety::run_request;

/// Runs `tool args` under `home`, in `cwd`; fails the test if it has not
/// ended within 10 s (then killed), and returns its exit code.
fn ends_in_time(tool: &str, args: &[&str], cwd: &Path, home: &Path) -> i32 {
    let mut child = Command::new(bin_dir().join(tool))
        .args(args)
        .current_dir(cwd)
        .env("AIDE_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tool} {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(path: &Path) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let _ = std::fs::remove_file(path);
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Issue 31: a FIFO or a link planted in `$AIDE_HOME` hung every tool that
/// read it (past SIGTERM), and a link to /dev/zero drove `aide log list` to 5 GB.
#[test]
fn a_poisoned_state_folder_never_hangs_a_tool() {
    let t = TestDir::new();
    t.write("a.txt", "alpha\n").write("big.txt", "alpha ".repeat(20_000));
    let (root, home) = (t.root(), t.home());
    t.cmd("llm-search").args(["--pattern", "alpha"]).expect_exit(0);
    let s: Value = t.cmd("llm-shell").args(["--json", "session", "new"]).json(0);
    let s = s["session_id"].as_str().unwrap().to_string();
    let session = home.join("shell/sessions").join(&s);

    mkfifo(&home.join("transform/journal/planted.json"));
    mkfifo(&home.join("transform/journal/x.1.json.writing"));
    assert_eq!(ends_in_time("llm-transform", &["recover"], root, home), 0);
    assert_ne!(ends_in_time("aide", &["doctor"], root, home), -1);
    t.write("p.txt", "old\n");
    let patch = json!({ "operations": [{ "op": "patch", "path": "p.txt", "old_text": "old", "new_text": "new" }] });
    // A FIFO where this file's lock goes: removed and the lock taken.
    let locks = home.join("transform/locks");
    std::fs::create_dir_all(&locks).unwrap();
    run_request(&t, &patch, 0);
    for entry in std::fs::read_dir(&locks).unwrap().flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    run_request(
        &t,
        &json!({ "operations": [{ "op": "patch", "path": "p.txt", "old_text": "new", "new_text": "old" }] }),
        0,
    );

    mkfifo(&home.join("cache/checksums"));
    assert_eq!(ends_in_time("llm-search", &["--pattern", "alpha"], root, home), 0);

    for name in ["meta.json", "state.sh"] {
        let saved = std::fs::read(session.join(name)).unwrap();
        mkfifo(&session.join(name));
        assert_eq!(ends_in_time("llm-shell", &["exec", "--session", &s, "--", "true"], root, home), 4, "{name}");
        std::fs::remove_file(session.join(name)).unwrap();
        std::fs::write(session.join(name), saved).unwrap();
    }
    mkfifo(&session.join("names"));
    assert_eq!(ends_in_time("llm-shell", &["exec", "--session", &s, "--", "true"], root, home), 0);

    let spool = home.join("log-spool");
    mkfifo(&spool.join("zz-fifo.json"));
    std::os::unix::fs::symlink("/dev/zero", spool.join("zz-zero.json")).unwrap();
    assert_eq!(ends_in_time("aide", &["log", "list"], root, home), 0);
    assert!(!spool.join("zz-fifo.json").exists() && !spool.join("zz-zero.json").exists(), "planted entries stay");
    // SQLite's own side files.
    let db =
        std::fs::read_dir(home).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "db"));
    if let Some(db) = db {
        let mut wal = db.into_os_string();
        wal.push("-wal");
        mkfifo(Path::new(&wal));
        assert_ne!(ends_in_time("aide", &["log", "list"], root, home), 0, "a FIFO beside the log is an error");
    }
}

/// Every tool ends within a second of SIGTERM or SIGINT, even in a run that
/// does not look at its cancel flag (held still by a test hook).
#[test]
fn a_signal_ends_a_run_within_a_second_whatever_it_is_doing() {
    use std::os::unix::process::ExitStatusExt;
    let t = TestDir::new();
    t.write("a.txt", "alpha\n");
    for signal in [rustix::process::Signal::TERM, rustix::process::Signal::INT] {
        let mut child = Command::new(bin_dir().join("llm-search"))
            .args(["--pattern", "alpha"])
            .current_dir(t.root())
            .env("AIDE_HOME", t.home())
            .env("AIDE_TEST_STALL_MS", "30000")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        rustix::process::kill_process(rustix::process::Pid::from_raw(child.id() as i32).unwrap(), signal).unwrap();
        let deadline = sent + Duration::from_secs(5);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{signal:?}: still running 5 s after the signal");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(sent.elapsed() < Duration::from_millis(2500), "{signal:?}: took {:?}", sent.elapsed());
        assert_eq!((status.code(), status.signal()), (Some(130), None), "{signal:?}");
    }
}

/// Issue 31: a file named `x\xff.rs` (a literal backslash) and one named
/// `x` + byte 0xFF + `.rs` were both reported as `x\xff.rs`, and an edit
/// made from one's match landed in the other. Each name has one spelling
/// now (the backslash doubled in the first), and edits land where they came from.
#[test]
fn two_files_never_share_a_path_and_edits_land_in_their_own() {
    use std::os::unix::ffi::OsStrExt;
    let t = TestDir::new();
    let literal = std::ffi::OsStr::new("x\\xff.txt");
    let stray = std::ffi::OsStr::from_bytes(b"x\xff.txt");
    std::fs::write(t.root().join(literal), "same\n").unwrap();
    std::fs::write(t.root().join(stray), "same\n").unwrap();
    let v: Value = t.cmd("llm-search").args(["--pattern", "same"]).json(0);
    let paths: Vec<&str> = v["matches"].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["x\\\\xff.txt", "x\\xff.txt"], "{v}");
    for (record, name, other) in [(0, literal, stray), (1, stray, literal)] {
        let request = json!({ "operations": [{ "op": "replace_matches", "matches": [v["matches"][record]], "replacement": "changed" }] });
        let applied = run_request(&t, &request, 0);
        assert_eq!(std::fs::read(t.root().join(name)).unwrap(), b"changed\n", "{applied}");
        assert_eq!(
            std::fs::read(t.root().join(other)).unwrap(),
            if record == 0 { &b"same\n"[..] } else { &b"changed\n"[..] }
        );
    }
    // Each spelling reads its own file.
    let r: Value = t.cmd("llm-read").args(["x\\\\xff.txt", "x\\xff.txt"]).json(0);
    let read: Vec<&str> = r["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(read, ["x\\\\xff.txt", "x\\xff.txt"], "{r}");
}
