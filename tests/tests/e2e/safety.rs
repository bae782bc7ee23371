//! File-system safety under crashes and races: crash-atomic transforms,
//! deferred signals, lost updates, race-free confinement under symlink
//! swaps, `--follow` pruning, undo confined to its root, kept permissions,
//! special and odd files.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aide_tests::{TestDir, bin_dir};
use serde_json::{Value, json};

/// Every `.tmp` file under `dir`, recursively.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(temp_files(&p));
        } else if p.extension().is_some_and(|x| x == "tmp") {
            out.push(p);
        }
    }
    out
}

pub(crate) fn journals(t: &TestDir) -> usize {
    std::fs::read_dir(t.home().join("transform/journal")).map_or(0, |rd| rd.count())
}

/// Runs llm-transform on `request` and returns its JSON, asserting the exit code.
pub(crate) fn run_request(t: &TestDir, request: &Value, code: i32) -> Value {
    t.cmd("llm-transform").args(["--request", "-"]).stdin(request.to_string()).json(code)
}

/// Spawns llm-transform on `request` with extra environment, not waiting.
pub(crate) fn spawn_transform(t: &TestDir, request: &Value, env: &[(&str, String)]) -> Child {
    let mut cmd = aide_tests::default_signals(Command::new(bin_dir().join("llm-transform")));
    cmd.args(["--request", "-", "--json"])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .env_remove("AIDE_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).unwrap();
    child
}

/// `n` files `f/NNNN.txt` holding `marker` (1 KiB each), and the request
/// that patches every one from OLD to NEW.
pub(crate) fn many_files(t: &TestDir, n: usize) -> Value {
    let ops: Vec<Value> = (0..n)
        .map(|i| json!({ "op": "patch", "path": format!("f/{i:04}.txt"), "old_text": "OLD", "new_text": "NEW" }))
        .collect();
    reset(t, n);
    json!({ "operations": ops })
}

fn reset(t: &TestDir, n: usize) {
    for i in 0..n {
        t.write(&format!("f/{i:04}.txt"), format!("{i} OLD {}\n", "x".repeat(1000)));
    }
}

/// How many of the `n` files are new and how many old.
pub(crate) fn states(t: &TestDir, n: usize) -> (usize, usize) {
    states_but(t, n, &[])
}

/// A transform of `n` files held after its first rename (the renames are
/// on, termination signals deferred) until its gate is opened.
pub(crate) struct HeldCommit {
    pub(crate) child: Child,
    gate: PathBuf,
}

impl HeldCommit {
    /// Starts it and returns once the first file has its new content: the
    /// commit waits at `AIDE_TEST_RENAME_GATE` until [`HeldCommit::open`].
    pub(crate) fn start(t: &TestDir, n: usize) -> HeldCommit {
        let request = many_files(t, n);
        let gate = t.home().join("rename-gate");
        let child = spawn_transform(t, &request, &[("AIDE_TEST_RENAME_GATE", gate.display().to_string())]);
        aide_tests::eventually("the first rename", Duration::from_secs(120), || states(t, n).0 > 0);
        assert_eq!(states(t, n).0, 1, "held after the first rename");
        HeldCommit { child, gate }
    }

    /// Lets the renames go on.
    fn open(&self) {
        std::fs::write(&self.gate, "").unwrap();
    }
}

#[test]
fn a_transform_killed_anywhere_in_its_commit_is_made_whole_by_the_next_run() {
    const FILES: usize = 1000;
    let t = TestDir::new();
    let request = many_files(&t, FILES);
    // Renames slowed a little, so most kill points land among them.
    let slow = [("AIDE_TEST_RENAME_DELAY_US", "150".to_string())];
    let started = Instant::now();
    let whole = spawn_transform(&t, &request, &slow).wait_with_output().unwrap();
    let full = started.elapsed();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stdout));
    assert_eq!(states(&t, FILES), (FILES, 0));
    t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(0);
    assert_eq!(states(&t, FILES), (0, FILES));

    let mut mixed_seen = 0;
    // 20 kill points spread over the whole run (start-up, planning,
    // staging, renames); under load (the whole suite at once) the timings
    // drift, so then up to 5 more, each once the renames have begun.
    for trial in 0..25u64 {
        if trial >= 20 && mixed_seen > 0 {
            break;
        }
        reset(&t, FILES);
        let mut child = if trial < 20 {
            let at = full.mul_f64(((trial * 7 + 3) % 20) as f64 / 20.0 + 0.02);
            let child = spawn_transform(&t, &request, &slow);
            std::thread::sleep(at);
            child
        } else {
            HeldCommit::start(&t, FILES).child
        };
        let _ = child.kill();
        let _ = child.wait();
        let (new, old) = states(&t, FILES);
        if new > 0 && old > 0 {
            mixed_seen += 1;
        }
        // The next run (here: recover alone) finishes or rolls back.
        let v: Value = t.cmd("llm-transform").arg("recover").json(0);
        let after = states(&t, FILES);
        assert!(after == (FILES, 0) || after == (0, FILES), "trial {trial}: {after:?} after recovery ({v})");
        assert_eq!(temp_files(t.root()), Vec::<PathBuf>::new(), "trial {trial}: temporaries left");
        assert_eq!(journals(&t), 0, "trial {trial}");
        if let Some(r) = v["recovered"].as_array().and_then(|r| r.first()) {
            let expected = if after.0 == FILES { "completed" } else { "rolled_back" };
            assert_eq!(r["action"], expected, "trial {trial}: {v}");
            assert_eq!(r["conflicts"], json!([]));
        }
        if after.0 == FILES {
            // Undo works as for any transform.
            t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(0);
            assert_eq!(states(&t, FILES), (0, FILES), "trial {trial}: undo");
        } else if let Some(id) = v["recovered"][0]["execution_id"].as_str() {
            // Rolled back: the transform never happened, so it has no undo.
            let e: Value = t.cmd("llm-transform").args(["undo", id]).json(2);
            assert_eq!(e["error"]["code"], "not_found", "trial {trial}");
        }
    }
    assert!(mixed_seen > 0, "no kill landed among the renames; the test did not test recovery");
}

#[test]
fn an_unfinished_commit_is_recovered_by_the_next_transform_too() {
    let t = TestDir::new();
    // Killed once the first file is new.
    let mut held = HeldCommit::start(&t, 50);
    let _ = held.child.kill();
    let _ = held.child.wait();
    let (new, _) = states(&t, 50);
    assert_eq!(new, 1, "killed after the first rename");
    t.write("other.txt", "a\n");
    let patch = json!({ "operations": [{ "op": "patch", "path": "other.txt", "old_text": "a", "new_text": "b" }] });
    // A dry run writes nothing: it only says a transform awaits recovery.
    let mut dry = patch.clone();
    dry["dry_run"] = json!(true);
    let d = run_request(&t, &dry, 0);
    assert_eq!(d["diagnostics"][0]["code"], "transform_pending", "{d}");
    assert_eq!(states(&t, 50).0, new, "the dry run wrote nothing");
    let v = run_request(&t, &patch, 0);
    assert_eq!(states(&t, 50), (50, 0));
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "transform_recovered", "{v}");
    assert!(d["message"].as_str().unwrap().contains("completed"), "{d}");
    assert_eq!(temp_files(t.root()), Vec::<PathBuf>::new());
}

#[test]
fn sigterm_and_sigint_during_the_renames_wait_for_the_tree_to_be_whole() {
    use std::os::unix::process::ExitStatusExt;
    for signal in [rustix::process::Signal::TERM, rustix::process::Signal::INT] {
        let t = TestDir::new();
        // The commit holds after its first rename until the signal is sent:
        // it lands among the renames however busy the machine is.
        let mut held = HeldCommit::start(&t, 100);
        let pid = rustix::process::Pid::from_raw(held.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
        held.open();
        let status = held.child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal.as_raw()), "{signal:?}: the signal still ends the process");
        assert_eq!(states(&t, 100), (100, 0), "{signal:?}: the renames were finished first");
        assert_eq!(journals(&t), 0);
        assert_eq!(temp_files(t.root()), Vec::<PathBuf>::new());
    }
}

#[test]
fn a_file_changed_by_another_program_mid_commit_aborts_the_transform() {
    let t = TestDir::new();
    t.write("a.txt", "one\ntwo\n");
    let request = json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "one", "new_text": "ONE" }] });
    let child = spawn_transform(&t, &request, &[("AIDE_TEST_PAUSE_BEFORE_VERIFY_MS", "1500".to_string())]);
    // Once the new version is staged, another program appends a line.
    let deadline = Instant::now() + Duration::from_secs(20);
    while temp_files(t.root()).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!temp_files(t.root()).is_empty(), "the transform never staged");
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(t.root().join("a.txt")).unwrap();
        f.write_all(b"three\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "conflict");
    assert_eq!(
        std::fs::read_to_string(t.root().join("a.txt")).unwrap(),
        "one\ntwo\nthree\n",
        "the appended line is kept"
    );
    assert_eq!(temp_files(t.root()), Vec::<PathBuf>::new());
    assert_eq!(journals(&t), 0);
    t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(2);
}

/// Swaps `root/d` (a folder) and `root/dl` (a symlink to `../victim`) as
/// fast as it can, until dropped.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

impl Swapper {
    fn start(root: &Path) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let (a, b, flag) = (root.join("d"), root.join("dl"), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut swaps = 0;
            while !flag.load(Ordering::Relaxed) {
                let cwd = rustix::fs::CWD;
                if rustix::fs::renameat_with(cwd, &a, cwd, &b, rustix::fs::RenameFlags::EXCHANGE).is_ok() {
                    swaps += 1;
                }
            }
            swaps
        });
        Swapper { stop, thread: Some(thread) }
    }

    fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().map_or(0, |t| t.join().unwrap())
    }
}

#[test]
fn symlink_swaps_never_lead_a_read_a_search_or_a_write_outside_the_root() {
    swap_loop(2000, None);
}

#[test]
fn without_openat2_the_component_walk_holds_under_swaps_too() {
    // As on Linux before 5.6, or in a sandbox that refuses openat2.
    swap_loop(300, Some(("AIDE_NO_OPENAT2", "1")));
}

fn swap_loop(runs: usize, env: Option<(&str, &str)>) {
    let t = TestDir::new();
    let victim = t.root().parent().unwrap().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("f.txt"), "SECRET inside\n").unwrap();
    t.write("d/f.txt", "inside\n");
    std::os::unix::fs::symlink("../victim", t.root().join("dl")).unwrap();
    let swapper = Swapper::start(t.root());
    let run = |tool: &str, args: &[&str], stdin: Option<String>| -> (Option<i32>, String) {
        let mut c = t.cmd(tool).args(args).args(["--json", "--no-log"]);
        if let Some((k, v)) = env {
            c = c.env(k, v);
        }
        if let Some(s) = stdin {
            c = c.stdin(s);
        }
        let out = c.output();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (mut read_ok, mut search_runs, mut writes) = (0, 0, 0);
    for i in 0..runs {
        let (code, out) = run("llm-read", &["d/f.txt"], None);
        assert!(!out.contains("SECRET"), "run {i}: llm-read returned the outside file: {out}");
        read_ok += usize::from(code == Some(0));
        if i % 2 == 0 {
            let (code, out) = run("llm-search", &["--pattern", "SECRET"], None);
            assert!(!out.contains("\"SECRET"), "run {i}: llm-search matched the outside file: {out}");
            assert_eq!(code, Some(1), "run {i}: the search ran and found nothing: {out}");
            search_runs += 1;
        }
        let (from, to) = if i % 2 == 0 { ("inside", "INSIDE") } else { ("INSIDE", "inside") };
        let request = json!({ "operations": [{ "op": "patch", "path": "d/f.txt", "old_text": from, "new_text": to }] });
        let (code, out) = run("llm-transform", &["--request", "-"], Some(request.to_string()));
        writes += usize::from(code == Some(0));
        assert_eq!(
            std::fs::read_to_string(victim.join("f.txt")).unwrap(),
            "SECRET inside\n",
            "run {i}: llm-transform wrote outside the root: {out}"
        );
    }
    let swaps = swapper.stop();
    assert!(swaps > runs as u64, "only {swaps} swaps: the race was not exercised");
    // The tools still worked between swaps.
    assert!(read_ok > 0 && writes > 0 && search_runs > 0, "reads {read_ok}, writes {writes}");
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1, "nothing was created outside the root");
}

#[test]
fn follow_prunes_links_that_leave_the_root_and_detects_loops() {
    let t = TestDir::new();
    t.write("src/a.txt", "needle\n");
    let outside = t.root().parent().unwrap().join("elsewhere");
    for i in 0..200 {
        std::fs::create_dir_all(outside.join(format!("d{i}"))).unwrap();
        std::fs::write(outside.join(format!("d{i}/x.txt")), "needle\n").unwrap();
    }
    std::os::unix::fs::symlink(&outside, t.root().join("out")).unwrap();
    std::os::unix::fs::symlink("/", t.root().join("slash")).unwrap();
    std::os::unix::fs::symlink("..", t.root().join("src/up")).unwrap();
    std::os::unix::fs::symlink("src", t.root().join("inner")).unwrap();
    let v: Value = t.cmd("llm-search").args(["--pattern", "needle", "--follow"]).json(0);
    let paths: Vec<&str> = v["matches"].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["inner/a.txt", "src/a.txt"], "{v}");
    let diags: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["path"].as_str().unwrap_or("")))
        .collect();
    let outside_root: Vec<&str> = diags.iter().filter(|(c, _)| *c == "outside_root").map(|(_, p)| *p).collect();
    assert_eq!(outside_root, ["out", "slash"], "one diagnostic per pruned link: {diags:?}");
    assert!(diags.iter().any(|(c, _)| *c == "symlink_loop"), "the loop is named: {diags:?}");
    // Issue 31: the loop's message named absolute paths; the output's paths are the root's.
    let root = t.root().canonicalize().unwrap().display().to_string();
    for d in v["diagnostics"].as_array().unwrap() {
        assert!(!d["message"].as_str().unwrap().contains(&root), "an absolute path in {d}");
    }
}

#[test]
fn undo_acts_only_on_its_own_root() {
    let t = TestDir::new();
    let other = t.root().parent().unwrap().join("other");
    std::fs::create_dir_all(&other).unwrap();
    t.write("a.txt", "old\n");
    let patch = json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "old", "new_text": "new" }] });
    let v = run_request(&t, &patch, 0);
    let id = v["execution_id"].as_str().unwrap().to_string();
    // From another root: --last counts that root's transforms (none)…
    let e: Value = t.cmd("llm-transform").arg("--root").arg(&other).args(["undo", "--last", "1"]).json(2);
    assert_eq!(e["error"]["code"], "invalid_arguments");
    // …and a named transform of this root is refused, naming its root.
    let e: Value = t.cmd("llm-transform").arg("--root").arg(&other).args(["undo", &id]).json(3);
    assert_eq!(e["error"]["code"], "conflict");
    assert!(e["error"]["hint"].as_str().unwrap().contains(t.root().canonicalize().unwrap().to_str().unwrap()), "{e}");
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "new\n");
    t.cmd("llm-transform").args(["undo", "--last", "1"]).expect_exit(0);
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "old\n");
}

#[test]
fn files_keep_their_mode_owner_and_group_and_paths_ending_in_a_slash_are_refused() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let t = TestDir::new();
    t.write("ro.txt", "old\n");
    let path = t.root().join("ro.txt");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let patch = json!({ "operations": [{ "op": "patch", "path": "ro.txt", "old_text": "old", "new_text": "new" }] });
    let e = run_request(&t, &patch, 4);
    assert_eq!(e["error"]["code"], "permission_denied");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
    let mut asked = patch.clone();
    asked["allow_read_only"] = json!(true);
    run_request(&t, &asked, 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);

    if rustix::process::geteuid().is_root() {
        t.write("owned.txt", "old\n");
        let owned = t.root().join("owned.txt");
        std::os::unix::fs::chown(&owned, Some(4242), Some(4343)).unwrap();
        let patch =
            json!({ "operations": [{ "op": "patch", "path": "owned.txt", "old_text": "old", "new_text": "new" }] });
        run_request(&t, &patch, 0);
        let m = std::fs::metadata(&owned).unwrap();
        assert_eq!((m.uid(), m.gid()), (4242, 4343), "owner and group are kept");
    } else {
        eprintln!("owner/group check needs root (chown to another user); not run here");
    }

    let write = json!({ "operations": [{ "op": "write", "path": "made/", "content": "x" }] });
    let e = run_request(&t, &write, 2);
    assert_eq!(e["error"]["code"], "invalid_arguments");
    assert!(!t.root().join("made").exists());
}

#[test]
fn fifos_are_refused_or_skipped_never_waited_on() {
    let t = TestDir::new();
    t.write("src/a.rs", "fn a() {}\n").write("note.txt", "needle\n");
    for name in ["pipe.txt", "src/pipe.rs"] {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            t.root().join(name),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
    }
    let e: Value = t.cmd("llm-read").arg("pipe.txt").json(2);
    assert_eq!(e["error"]["code"], "not_a_regular_file");
    // Met in a walk, a FIFO is never opened (it would block): counted as skipped.
    let v: Value = t.cmd("llm-search").args(["--pattern", "needle"]).json(0);
    assert_eq!(v["stats"]["skipped"]["not_a_regular_file"], 2, "{v}");
    assert_eq!(v["total_matches"], 1, "{v}");
    let v: Value = t.cmd("llm-ast-search").args(["--symbols", "src"]).json(0);
    assert_eq!(v["stats"]["skipped"]["not_a_regular_file"], 1, "{v}");
    let e: Value = t.cmd("llm-ast-search").args(["--symbols", "src/pipe.rs"]).json(2);
    assert_eq!(e["error"]["code"], "not_a_regular_file");
    let patch = json!({ "operations": [{ "op": "patch", "path": "pipe.txt", "old_text": "a", "new_text": "b" }] });
    let e = run_request(&t, &patch, 2);
    assert_eq!(e["error"]["code"], "not_a_regular_file");
}

#[test]
fn a_two_gigabyte_sparse_file_is_read_in_bounded_memory() {
    let t = TestDir::new();
    t.write("big.txt", "hello\n".repeat(2000));
    let f = std::fs::OpenOptions::new().write(true).open(t.root().join("big.txt")).unwrap();
    f.set_len(2 << 30).unwrap();
    // Under a 1 GiB address-space limit, reading the whole file would fail.
    let out = Command::new("bash")
        .args(["-c", "ulimit -v 1048576 && exec \"$0\" big.txt --lines 2:3 --json --no-log"])
        .arg(bin_dir().join("llm-read"))
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &v["files"][0];
    assert_eq!(f["content"], "hello\nhello\n");
    assert_eq!(f["size_bytes"], 2u64 << 30);
    assert_eq!((f["byte_start"].as_u64(), f["byte_end"].as_u64()), (Some(6), Some(18)));
}

#[test]
fn a_pre_image_over_the_undo_cap_is_not_kept_and_its_undo_is_refused() {
    let t = TestDir::new();
    t.write("a.txt", format!("old\n{}", "x".repeat(5000)));
    let patch = json!({ "operations": [{ "op": "patch", "path": "a.txt", "old_text": "old", "new_text": "new" }] });
    let v: Value = t
        .cmd("llm-transform")
        .args(["--request", "-"])
        .env("AIDE_UNDO_MAX_BYTES", "1000")
        .stdin(patch.to_string())
        .json(0);
    assert_eq!(v["diagnostics"][0]["code"], "undo_not_kept", "{v}");
    assert!(std::fs::read_to_string(t.root().join("a.txt")).unwrap().starts_with("new\n"));
    let e: Value = t.cmd("llm-transform").args(["undo", "--last", "1"]).json(3);
    assert_eq!(e["error"]["code"], "conflict");
    assert!(std::fs::read_to_string(t.root().join("a.txt")).unwrap().starts_with("new\n"), "nothing was changed");
}

#[test]
fn names_that_are_not_utf8_are_shown_escaped_and_accepted_back() {
    use std::os::unix::ffi::OsStrExt;
    let t = TestDir::new();
    let raw = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(t.root().join(raw), "needle\n").unwrap();
    let v: Value = t.cmd("llm-search").args(["--pattern", "needle"]).json(0);
    assert_eq!(v["matches"][0]["path"], "caf\\xe9.txt", "{v}");
    assert!(
        v["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "lossy_utf8" && d["path"] == "caf\\xe9.txt"),
        "{v}"
    );
    let r: Value = t.cmd("llm-read").arg("caf\\xe9.txt").json(0);
    assert_eq!(r["files"][0]["content"], "needle\n");
    assert_eq!(r["files"][0]["path"], "caf\\xe9.txt");
    let patch =
        json!({ "operations": [{ "op": "patch", "path": "caf\\xe9.txt", "old_text": "needle", "new_text": "pin" }] });
    run_request(&t, &patch, 0);
    assert_eq!(std::fs::read(t.root().join(raw)).unwrap(), b"pin\n");
}

#[test]
fn an_absolute_path_inside_the_root_is_shown_relative() {
    let t = TestDir::new();
    t.write("src/a.txt", "x\n");
    let abs = t.root().canonicalize().unwrap().join("src/a.txt");
    let v: Value = t.cmd("llm-read").arg(&abs).json(0);
    assert_eq!(v["files"][0]["path"], "src/a.txt");
}

#[test]
fn a_hundred_thousand_span_edits_of_one_file_apply_in_one_pass() {
    let t = TestDir::new();
    let body: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
    t.write("f.txt", &body);
    let sum = {
        let v: Value = t.cmd("llm-read").args(["f.txt", "--limit", "1"]).json(0);
        v["files"][0]["checksum"].as_str().unwrap().to_string()
    };
    let mut offset = 0;
    let edits: Vec<Value> = (0..100_000)
        .map(|i| {
            let e =
                json!({ "byte_start": offset, "byte_end": offset + 4, "replacement": "LINE", "checksum_before": sum });
            offset += format!("line {i}\n").len();
            e
        })
        .collect();
    t.write("edits.json", json!({ "edits": edits }).to_string());
    let v: Value = t.cmd("llm-transform").args(["--file", "f.txt", "--edits", "edits.json"]).json(0);
    assert_eq!(v["applied"], 100_000);
    assert_eq!(v["files"][0]["lines_added"], 100_000);
    assert_eq!(std::fs::read_to_string(t.root().join("f.txt")).unwrap(), body.replace("line", "LINE"));
}

#[test]
fn a_file_being_transformed_is_locked_and_a_finished_transform_leaves_no_lock_file() {
    let t = TestDir::new();
    let locks = || std::fs::read_dir(t.home().join("transform/locks")).map_or(0, |rd| rd.count());
    let mut slow = HeldCommit::start(&t, 50);
    // Each file's lock is a range of one table: no file a path.
    assert_eq!(locks(), 0, "no lock file while the commit runs");
    // Another transform of one of its files is refused while it runs.
    let second =
        json!({ "operations": [{ "op": "patch", "path": "f/0049.txt", "old_text": "49 ", "new_text": "mine " }] });
    let e = run_request(&t, &second, 3);
    assert_eq!(e["error"]["code"], "conflict", "{e}");
    assert!(e["error"]["details"]["path"].as_str().unwrap().ends_with("f/0049.txt"), "{e}");
    slow.open();
    assert!(slow.child.wait().unwrap().success());
    assert_eq!(states(&t, 50), (50, 0));
    // Let go: nothing left behind, and the next transform of the file takes it.
    assert_eq!(locks(), 0);
    run_request(&t, &second, 0);
    assert_eq!(locks(), 0);
    assert!(std::fs::read_to_string(t.root().join("f/0049.txt")).unwrap().starts_with("mine NEW"));
}

/// [`states`], leaving out the files numbered in `skip`.
pub(crate) fn states_but(t: &TestDir, n: usize, skip: &[usize]) -> (usize, usize) {
    let (mut new, mut old) = (0, 0);
    for i in (0..n).filter(|i| !skip.contains(i)) {
        let body = std::fs::read_to_string(t.root().join(format!("f/{i:04}.txt"))).unwrap();
        if body.contains("NEW") {
            new += 1;
        } else if body.contains("OLD") {
            old += 1;
        }
    }
    (new, old)
}
