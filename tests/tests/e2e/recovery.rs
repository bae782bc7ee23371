//! Recovering interrupted transforms: never another root's live journal, always finishing, a root moved after the crash, and the folders a rolled-back commit made.

use aide_tests::{TestDir, bin_dir};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::safety::{HeldCommit, journals, many_files, run_request, spawn_transform, states, states_but};

/// Issue 31: a `recover` on another root read a journal between its
/// creation and its lock as empty, and removed it; the commit it belonged
/// to then died mid-rename and its own root was never made whole.
#[test]
fn a_recover_on_another_root_never_takes_a_live_journal() {
    const FILES: usize = 20;
    let t = TestDir::new();
    let other = t.root().parent().unwrap().join("other-root");
    std::fs::create_dir_all(&other).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let looping = {
        let (stop, other, home) = (stop.clone(), other.clone(), t.home().to_path_buf());
        std::thread::spawn(move || {
            let mut runs = 0;
            while !stop.load(Ordering::Relaxed) {
                let status = Command::new(bin_dir().join("llm-transform"))
                    .args(["--root", other.to_str().unwrap(), "recover"])
                    .env("AIDE_HOME", &home)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
                runs += 1;
            }
            runs
        })
    };
    for trial in 0..6 {
        let request = many_files(&t, FILES);
        // The journal's create-to-lock window held open 30 ms, the renames 20 ms apart.
        let env = [
            ("AIDE_TEST_JOURNAL_LOCK_DELAY_US", "30000".to_string()),
            ("AIDE_TEST_RENAME_DELAY_US", "20000".to_string()),
        ];
        let mut child = spawn_transform(&t, &request, &env);
        let deadline = Instant::now() + Duration::from_secs(20);
        while states(&t, FILES).0 == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = child.kill();
        let _ = child.wait();
        let v: Value = t.cmd("llm-transform").arg("recover").json(0);
        let after = states(&t, FILES);
        assert!(after == (FILES, 0) || after == (0, FILES), "trial {trial}: {after:?} after recovery ({v})");
    }
    stop.store(true, Ordering::Relaxed);
    assert!(looping.join().unwrap() > 10, "the other root's recover barely ran");
}

/// Kills a 30-file transform once its renames have begun; the journal's id.
fn crash_mid_rename(t: &TestDir) -> String {
    let mut held = HeldCommit::start(t, 30);
    let _ = held.child.kill();
    let _ = held.child.wait();
    let (new, old) = states(t, 30);
    assert!(new > 0 && old > 0, "the kill missed the renames: {new} new, {old} old");
    let journal = std::fs::read_dir(t.home().join("transform/journal")).unwrap().flatten().next().unwrap();
    journal.path().file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn recovery_always_finishes_and_never_blocks_the_root() {
    // A journalled file became a FIFO, another a link out of the root: the
    // rest is completed, those two are named (the link as changed by
    // someone else, the FIFO as not restorable), and the journal is cleared.
    let t = TestDir::new();
    crash_mid_rename(&t);
    let fifo = t.root().join("f/0029.txt");
    std::fs::remove_file(&fifo).unwrap();
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let link = t.root().join("f/0028.txt");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", &link).unwrap();
    let v: Value = t.cmd("llm-transform").arg("recover").json(0);
    let r = &v["recovered"][0];
    assert_eq!(r["action"], "completed", "{v}");
    let unrestored: Vec<&str> =
        r["unrestored"].as_array().unwrap().iter().map(|u| u["path"].as_str().unwrap()).collect();
    assert_eq!(unrestored, ["f/0029.txt"], "{v}");
    assert_eq!(r["conflicts"], json!(["f/0028.txt"]), "{v}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is left as it is");
    assert_eq!(journals(&t), 0, "the journal is cleared");
    assert_eq!(states_but(&t, 30, &[28, 29]), (28, 0));
    // The root is not blocked: the next transform runs.
    t.write("other.txt", "a\n");
    let patch = json!({ "operations": [{ "op": "patch", "path": "other.txt", "old_text": "a", "new_text": "b" }] });
    run_request(&t, &patch, 0);

    // The journalled folder itself removed by the user.
    let t = TestDir::new();
    crash_mid_rename(&t);
    std::fs::remove_dir_all(t.root().join("f")).unwrap();
    let v: Value = t.cmd("llm-transform").arg("recover").json(0);
    assert_eq!(v["recovered"][0]["unrestored"].as_array().unwrap().len(), 30, "{v}");
    assert_eq!(journals(&t), 0);
    t.write("other.txt", "a\n");
    run_request(&t, &patch, 0);
}

#[test]
fn a_root_moved_after_the_crash_is_recovered_by_its_journal() {
    let t = TestDir::new();
    let id = crash_mid_rename(&t);
    let moved = t.root().parent().unwrap().join("moved-root");
    std::fs::rename(t.root(), &moved).unwrap();
    let run = |args: &[&str]| -> Value {
        let out = Command::new(bin_dir().join("llm-transform"))
            .arg("--json")
            .args(["--root", moved.to_str().unwrap()])
            .args(args)
            .env("AIDE_HOME", t.home())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Not this root's journal by its recorded path: left for its own root.
    assert_eq!(run(&["recover"])["recovered"], json!([]));
    let doctor = Command::new(bin_dir().join("aide"))
        .arg("doctor")
        .current_dir(&moved)
        .env("AIDE_HOME", t.home())
        .output()
        .unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(doctor.contains(&format!("--journal {id}")), "{doctor}");
    let v = run(&["recover", "--journal", &id]);
    assert_eq!(v["recovered"][0]["action"], "completed", "{v}");
    assert_eq!(journals(&t), 0);
    for i in 0..30 {
        assert!(std::fs::read_to_string(moved.join(format!("f/{i:04}.txt"))).unwrap().contains("NEW"), "file {i}");
    }
    let missing = run(&["recover", "--journal", &id]);
    assert_eq!(missing["error"]["code"], "not_found", "{missing}");
}

#[test]
fn rollbacks_remove_the_folders_the_commit_made() {
    let t = TestDir::new();
    t.write("kept.txt", "OLD\n");
    let request = json!({ "operations": [
        { "op": "write", "path": "new/deep/er/a.txt", "content": "a\n", "create_dirs": true },
        { "op": "write", "path": "new/b.txt", "content": "b\n", "create_dirs": true },
        { "op": "patch", "path": "kept.txt", "old_text": "OLD", "new_text": "NEW" },
    ]});
    // Killed after staging, before any rename: recovery rolls back.
    let mut child = spawn_transform(&t, &request, &[("AIDE_TEST_PAUSE_BEFORE_VERIFY_MS", "3000".to_string())]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !t.root().join("new/deep/er").is_dir() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    let _ = child.kill();
    let _ = child.wait();
    let v: Value = t.cmd("llm-transform").arg("recover").json(0);
    assert_eq!(v["recovered"][0]["action"], "rolled_back", "{v}");
    assert!(!t.root().join("new").exists(), "the folders the commit made are left: {v}");
    assert_eq!(std::fs::read_to_string(t.root().join("kept.txt")).unwrap(), "OLD\n");
    // A write failure rolled back in-process removes them too.
    let e = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .env("AIDE_TEST_FAIL_AFTER_WRITES", "1")
        .stdin(request.to_string())
        .json::<Value>(4);
    assert_eq!(e["error"]["code"], "io_error", "{e}");
    assert!(!t.root().join("new").exists(), "an in-process rollback left the folders");
    // A folder that held something before stays.
    t.write("new/own.txt", "mine\n");
    t.cmd("llm-transform")
        .args(["--request", "-"])
        .env("AIDE_TEST_FAIL_AFTER_WRITES", "1")
        .stdin(request.to_string())
        .json::<Value>(4);
    assert!(t.root().join("new/own.txt").exists());
    assert!(!t.root().join("new/deep").exists());
}
