//! llm-jobs: jobs outlive their caller, report exactly how they ended, and
//! obey dependencies and group limits.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aide_tests::TestDir;
use serde_json::Value;

/// Runs llm-jobs with `--json` first (after `--` it would join the command).
pub(crate) fn jobs(t: &TestDir, args: &[&str], code: i32) -> Value {
    let (stdout, _) = t.cmd("llm-jobs").arg("--json").args(args).expect_exit(code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

pub(crate) fn spawn(t: &TestDir, extra: &[&str], command: &str) -> i64 {
    let mut args = vec!["spawn"];
    args.extend_from_slice(extra);
    args.extend(["--", command]);
    jobs(t, &args, 0)["job_id"].as_i64().expect("job_id")
}

pub(crate) fn status(t: &TestDir, id: i64) -> Value {
    jobs(t, &["status", &id.to_string()], 0)["job"].clone()
}

fn wait_one(t: &TestDir, id: i64, code: i32) -> Value {
    jobs(t, &["wait", &id.to_string(), "--timeout", "60"], code)["jobs"][0].clone()
}

/// Processes whose process group is `pgid`.
pub(crate) fn group_members(pgid: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u64>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(close) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.first() != Some(&"Z") && fields.get(2).and_then(|g| g.parse::<u64>().ok()) == Some(pgid) {
            out.push(pid);
        }
    }
    out
}

pub(crate) fn eventually(what: &str, check: impl FnMut() -> bool) {
    aide_tests::eventually(what, Duration::from_secs(30), check);
}

#[test]
fn spawn_returns_at_once_and_wait_reports_exit_code_and_output() {
    let t = TestDir::new();
    let started = Instant::now();
    let spawned =
        jobs(&t, &["spawn", "--name", "greet", "--", "echo out; echo err >&2; sleep 0.3; echo $LLM_JOB_ID"], 0);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(spawned["status"], "Running");
    assert!(spawned["pid"].as_u64().is_some());
    assert!(spawned["started_at"].as_str().unwrap().ends_with('Z'));
    let id = spawned["job_id"].as_i64().unwrap();
    let done = wait_one(&t, id, 0);
    assert_eq!(done["status"], "Done");
    assert_eq!(done["exit_code"], 0);
    assert_eq!(done["stdout"], format!("out\n{id}\n"));
    assert_eq!(done["stderr"], "err\n");
    let failed = spawn(&t, &[], "echo nope >&2; exit 7");
    let w = wait_one(&t, failed, 1);
    assert_eq!((w["status"].as_str(), w["exit_code"].as_i64()), (Some("Failed"), Some(7)));
}

#[test]
fn a_job_survives_its_spawning_process_being_killed() {
    let t = TestDir::new();
    let bin = aide_tests::bin_dir().join("llm-jobs");
    let script =
        format!("'{}' spawn --json -- 'sleep 1; echo survived > survived.txt' > spawned.json; sleep 60", bin.display());
    let mut parent = Command::new("setsid")
        .args(["bash", "-c", &script])
        .current_dir(t.root())
        .env("AIDE_HOME", t.home())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let spawned = t.root().join("spawned.json");
    eventually("the job to be spawned", || std::fs::read_to_string(&spawned).is_ok_and(|s| s.contains("job_id")));
    // Kill the spawning shell and everything in its session.
    aide_tests::kill_process_group(parent.id());
    let _ = parent.kill();
    let _ = parent.wait();
    let id =
        serde_json::from_str::<Value>(&std::fs::read_to_string(&spawned).unwrap()).unwrap()["job_id"].as_i64().unwrap();
    let w = wait_one(&t, id, 0);
    assert_eq!(w["status"], "Done");
    assert_eq!(std::fs::read_to_string(t.root().join("survived.txt")).unwrap(), "survived\n");
}

#[test]
fn wait_with_timeout_leaves_the_job_running() {
    let t = TestDir::new();
    let id = spawn(&t, &[], "sleep 30");
    let v = jobs(&t, &["wait", &id.to_string(), "--timeout", "0.2"], 1);
    assert_eq!(v["timed_out"], true);
    assert_eq!(v["jobs"][0]["status"], "Running");
    assert_eq!(status(&t, id)["status"], "Running");
    jobs(&t, &["kill", &id.to_string(), "--signal", "KILL"], 0);
}

#[test]
fn kill_takes_down_the_whole_process_tree() {
    let t = TestDir::new();
    let id = spawn(&t, &[], "sleep 100 & sleep 100 & bash -c 'sleep 100' & wait");
    let pid = status(&t, id)["pid"].as_u64().unwrap();
    eventually("the children to start", || group_members(pid).len() >= 4);
    let k = jobs(&t, &["kill", &id.to_string(), "--grace", "2"], 0);
    assert_eq!(k["status"], "Killed");
    assert_eq!(k["signal"], 15);
    eventually("the group to be gone", || group_members(pid).is_empty());
    let again = jobs(&t, &["kill", &id.to_string()], 0);
    assert_eq!(again["already_finished"], true);
}

#[test]
fn a_killed_supervisor_turns_the_job_lost() {
    let t = TestDir::new();
    let id = spawn(&t, &[], "sleep 100");
    let job = status(&t, id);
    let supervisor = job["supervisor_pid"].as_u64().unwrap();
    let pid = job["pid"].as_u64().unwrap();
    Command::new("kill").args(["-s", "KILL", &supervisor.to_string()]).status().unwrap();
    eventually("the job to be Lost", || status(&t, id)["status"] == "Lost");
    let lost = status(&t, id);
    assert!(lost["reason"].as_str().unwrap().contains("supervisor"));
    // Its command outlived the supervisor, and says so; kill stops it.
    assert_eq!(lost["processes_alive"], true, "{lost}");
    assert!(!group_members(pid).is_empty());
    let k = jobs(&t, &["kill", &id.to_string(), "--grace", "1"], 0);
    assert_eq!(
        (k["lost_processes_signalled"].as_bool(), k["already_finished"].as_bool()),
        (Some(true), Some(false)),
        "{k}"
    );
    eventually("the orphaned group to be gone", || group_members(pid).is_empty());
    assert_eq!(status(&t, id)["processes_alive"], false);
    let again = jobs(&t, &["kill", &id.to_string()], 0);
    assert_eq!(
        (again["lost_processes_signalled"].as_bool(), again["already_finished"].as_bool()),
        (Some(false), Some(true))
    );
}

#[test]
fn dependencies_wait_and_failed_dependencies_fail() {
    let t = TestDir::new();
    let first = spawn(&t, &[], "sleep 0.5; echo first >> order.txt");
    let second = spawn(&t, &["--after", &first.to_string()], "echo second >> order.txt");
    let queued = status(&t, second);
    assert_eq!(queued["status"], "Queued");
    assert!(queued["reason"].as_str().unwrap().contains(&format!("#{first}")));
    assert_eq!(wait_one(&t, second, 0)["status"], "Done");
    assert_eq!(std::fs::read_to_string(t.root().join("order.txt")).unwrap(), "first\nsecond\n");

    let bad = spawn(&t, &[], "exit 1");
    let dependent = spawn(&t, &["--after", &bad.to_string()], "echo never > never.txt");
    let w = wait_one(&t, dependent, 1);
    assert_eq!(w["status"], "Failed");
    assert!(w["reason"].as_str().unwrap().contains(&format!("dependency #{bad} ended Failed")), "{w}");
    assert!(!t.root().join("never.txt").exists());
}

#[test]
fn group_limits_hold() {
    let t = TestDir::new();
    jobs(&t, &["group", "set", "serial", "--parallel", "1"], 0);
    let cmd = "echo start $(date +%s%N) >> log.txt; sleep 0.3; echo end $(date +%s%N) >> log.txt";
    let ids: Vec<i64> = (0..3).map(|_| spawn(&t, &["--group", "serial"], cmd)).collect();
    let mut args = vec!["wait".to_string()];
    args.extend(ids.iter().map(i64::to_string));
    args.extend(["--timeout".into(), "60".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    jobs(&t, &args, 0);
    let log = std::fs::read_to_string(t.root().join("log.txt")).unwrap();
    let kinds: Vec<&str> = log.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(
        kinds,
        ["start", "end", "start", "end", "start", "end"],
        "jobs of a parallel-1 group overlapped:\n{log}"
    );
    let groups = jobs(&t, &["group", "list"], 0);
    let serial = groups["groups"].as_array().unwrap().iter().find(|g| g["name"] == "serial").unwrap().clone();
    assert_eq!((serial["parallel"].as_i64(), serial["running"].as_u64()), (Some(1), Some(0)));
}

#[test]
fn fifty_concurrent_spawns_get_distinct_ids_and_recorded_ends() {
    let t = TestDir::new();
    let bin = aide_tests::bin_dir().join("llm-jobs");
    let children: Vec<_> = (0..50)
        .map(|i| {
            Command::new(&bin)
                .args(["spawn", "--json", "--", &format!("echo {i}")])
                .current_dir(t.root())
                .env("AIDE_HOME", t.home())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = Vec::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        ids.push(v["job_id"].as_i64().unwrap());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 50);
    let mut args = vec!["wait".to_string(), "--timeout".into(), "120".into()];
    args.extend(ids.iter().map(i64::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = jobs(&t, &args, 0);
    let ends: Vec<_> = v["jobs"].as_array().unwrap().iter().filter(|j| j["status"] == "Done").collect();
    assert_eq!(ends.len(), 50);
    let list = jobs(&t, &["list"], 0);
    assert_eq!((list["total_count"].as_u64(), list["active_count"].as_u64()), (Some(50), Some(0)));
}

#[test]
fn logs_by_stream_tail_and_offset() {
    let t = TestDir::new();
    let id = spawn(&t, &[], "printf 'a\\nb\\nc\\n'; printf 'E\\n' >&2");
    wait_one(&t, id, 0);
    let s = id.to_string();
    assert_eq!(jobs(&t, &["logs", &s, "--stream", "stdout"], 0)["content"], "a\nb\nc\n");
    assert_eq!(jobs(&t, &["logs", &s, "--stream", "stderr"], 0)["content"], "E\n");
    assert_eq!(jobs(&t, &["logs", &s, "--stream", "stdout", "--tail", "1"], 0)["content"], "c\n");
    let first = jobs(&t, &["logs", &s, "--stream", "stdout", "--since-offset", "2"], 0);
    assert_eq!((first["content"].as_str(), first["next_offset"].as_u64()), (Some("b\nc\n"), Some(6)));
    let merged = jobs(&t, &["logs", &s], 0)["content"].as_str().unwrap().to_string();
    assert_eq!(merged.len(), 8);
    // --follow waits for the end.
    let id = spawn(&t, &[], "echo one; sleep 0.3; echo two");
    let (text, _) = t.cmd("llm-jobs").args(["logs", &id.to_string(), "--follow", "--stream", "stdout"]).expect_exit(0);
    assert_eq!(text, "one\ntwo\n");
}

#[test]
fn timeouts_and_output_caps_are_recorded() {
    let t = TestDir::new();
    let id = spawn(&t, &["--timeout", "0.3"], "sleep 30");
    let w = wait_one(&t, id, 1);
    assert_eq!(w["status"], "TimedOut");
    let id = spawn(&t, &["--max-output", "10"], "head -c 1000 /dev/zero | tr '\\0' x");
    wait_one(&t, id, 0);
    let job = status(&t, id);
    assert_eq!((job["stdout_bytes"].as_i64(), job["dropped_bytes"].as_i64()), (Some(10), Some(990)));
}

#[test]
fn rm_refuses_active_jobs_and_prune_removes_finished() {
    let t = TestDir::new();
    let running = spawn(&t, &[], "sleep 30");
    assert_eq!(jobs(&t, &["rm", &running.to_string()], 3)["error"]["code"], "conflict");
    let done = spawn(&t, &[], "true");
    wait_one(&t, done, 0);
    let pruned = jobs(&t, &["prune"], 0);
    assert_eq!(pruned["removed"], serde_json::json!([done]));
    jobs(&t, &["rm", &running.to_string(), "--force"], 0);
    assert_eq!(jobs(&t, &["list"], 0)["total_count"], 0);
    assert_eq!(jobs(&t, &["status", "999"], 2)["error"]["code"], "not_found");
}

#[test]
fn several_words_after_dashes_are_an_argv_kept_literally() {
    let t = TestDir::new();
    let words = crate::shell::literal_words();
    let out = t.cmd("llm-jobs").args(["--json", "spawn", "--", "printf", "%q\\n"]).args(&words).output();
    let spawned: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = spawned["job_id"].as_i64().unwrap_or_else(|| panic!("{spawned}"));
    let job = wait_one(&t, id, 0);
    assert_eq!(job["stdout"].as_str().unwrap(), crate::shell::quoted_by_bash(&words), "{job}");
    assert!(!t.root().join("pwned").exists(), "a word was run as code");

    // The issue's reproduction: `bash -c 'sleep …; python3 …'` used to run `bash -c sleep`.
    let id =
        jobs(&t, &["spawn", "--", "bash", "-c", "sleep 0.1; echo \"second; command\""], 0)["job_id"].as_i64().unwrap();
    assert_eq!(wait_one(&t, id, 0)["stdout"], "second; command\n");

    // One word is a shell line.
    let id = spawn(&t, &[], "echo one; echo two");
    assert_eq!(wait_one(&t, id, 0)["stdout"], "one\ntwo\n");

    // In JSON: `argv` or `command`, never a list under `command`.
    let argv = t
        .cmd("llm-jobs")
        .args(["--json", "--request", "-"])
        .stdin(r#"{"command": {"spawn": {"argv": ["printf", "[%s]", "a b", "*"]}}}"#)
        .expect_exit(0)
        .0;
    let id = serde_json::from_str::<Value>(&argv).unwrap()["job_id"].as_i64().unwrap();
    assert_eq!(wait_one(&t, id, 0)["stdout"], "[a b][*]");
    let (list, _) = t
        .cmd("llm-jobs")
        .args(["--json", "--request", "-"])
        .stdin(r#"{"command": {"spawn": {"command": ["printf", "x"]}}}"#)
        .expect_exit(2);
    assert!(list.contains("argv"), "{list}");
}

#[test]
fn job_output_is_redacted_on_every_path_that_returns_it() {
    let t = TestDir::new();
    let print = "echo AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCY; echo DB_PASSWORD=hunter2hunter2 >&2; \
                 printf 'Authorization: Bearer abcdefghijklmnop123\\n'";
    let id = spawn(&t, &[], print);
    let waited = wait_one(&t, id, 0);
    let both = format!("{}{}", waited["stdout"], waited["stderr"]);
    for secret in ["wJalrXUtnFEMI", "hunter2", "abcdefghijklmnop123"] {
        assert!(!both.contains(secret), "wait leaks {secret}: {waited}");
    }
    assert_eq!(waited["redactions"], 3, "{waited}");
    let logs = jobs(&t, &["logs", &id.to_string()], 0);
    assert!(!logs["content"].as_str().unwrap().contains("hunter2"), "{logs}");
    assert_eq!(logs["redactions"], 3, "{logs}");
    let (followed, _) = t.cmd("llm-jobs").args(["logs", &id.to_string(), "--follow"]).expect_exit(0);
    assert!(followed.contains("DB_PASSWORD=[REDACTED]") && !followed.contains("hunter2"), "{followed}");
    let (tail, _) =
        t.cmd("llm-jobs").args(["logs", &id.to_string(), "--tail", "1", "--stream", "stdout"]).expect_exit(0);
    assert!(!tail.contains("abcdefghijklmnop123"), "{tail}");
    let raw = jobs(&t, &["logs", &id.to_string(), "--no-redact"], 0);
    assert!(raw["content"].as_str().unwrap().contains("hunter2hunter2"), "{raw}");
}

#[test]
fn misplaced_request_and_empty_waits_are_clear() {
    let t = TestDir::new();
    // --request after the subcommand used to be taken as the command to run.
    let v = jobs(&t, &["spawn", "--request", "f.json"], 2);
    assert!(v["error"]["message"].as_str().unwrap().contains("before the subcommand"), "{v}");
    assert_eq!(jobs(&t, &["list"], 0)["total_count"], 0, "nothing was spawned");
    // Waiting for every job when there is none: an empty, successful wait.
    let v = jobs(&t, &["wait", "--all"], 0);
    assert_eq!((v["jobs"].as_array().map(Vec::len), v["timed_out"].as_bool()), (Some(0), Some(false)));
}

#[test]
fn no_page_of_a_jobs_output_shows_part_of_a_secret() {
    let t = TestDir::new();
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let id = spawn(&t, &[], &format!("echo start; echo AWS_SECRET_ACCESS_KEY={secret}; echo key AKIAIOSFODNN7EXAMPLE"));
    wait_one(&t, id, 0);
    let whole = jobs(&t, &["logs", &id.to_string()], 0);
    let end = whole["next_offset"].as_u64().unwrap();
    for offset in 0..=end + 2 {
        let page = jobs(&t, &["logs", &id.to_string(), "--since-offset", &offset.to_string()], 0);
        let content = page["content"].as_str().unwrap();
        for i in 0..secret.len() - 5 {
            assert!(!content.contains(&secret[i..i + 6]), "offset {offset} shows part of the key: {content:?}");
        }
        assert!(!content.contains("IOSFODNN7"), "offset {offset}: {content:?}");
        // Offsets are into what is shown: each page is the tail of the whole.
        assert!(whole["content"].as_str().unwrap().ends_with(content), "offset {offset}");
    }
    // The raw output keeps its own offsets.
    let raw = jobs(&t, &["logs", &id.to_string(), "--no-redact"], 0);
    assert!(raw["content"].as_str().unwrap().contains(secret));
}

#[test]
fn a_running_job_shows_nothing_of_a_half_printed_token() {
    let t = TestDir::new();
    let id =
        spawn(&t, &[], "printf 'ready\\nghp_0123456789abcdef'; sleep 2; printf 'ghijklmnopqrstuvwxyzAB\\nafter\\n'");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let page = jobs(&t, &["logs", &id.to_string()], 0);
        if page["content"] == "ready\n" {
            assert_eq!(page["status"], "Running", "{page}");
            break;
        }
        assert!(!page["content"].as_str().unwrap().contains("ghp_"), "{page}");
        assert!(Instant::now() < deadline, "never saw the first line: {page}");
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_one(&t, id, 0);
    let page = jobs(&t, &["logs", &id.to_string()], 0);
    assert_eq!(page["content"], "ready\n[REDACTED]\nafter\n", "{page}");
}

#[test]
fn commands_are_redacted_in_list_status_and_spawn() {
    let t = TestDir::new();
    let (out, _) = t
        .cmd("llm-jobs")
        .args([
            "--json",
            "spawn",
            "--env",
            "DB_PASSWORD=zq9Secret77",
            "--",
            "echo token=abcdef123 $DB_PASSWORD zq9Secret77",
        ])
        .expect_exit(0);
    let spawned: Value = serde_json::from_str(&out).unwrap();
    let id = spawned["job_id"].as_i64().unwrap();
    let expected = "echo token=[REDACTED] $DB_PASSWORD [REDACTED]";
    assert_eq!(spawned["command"], expected);
    assert_eq!(status(&t, id)["command"], expected);
    assert_eq!(jobs(&t, &["list"], 0)["jobs"][0]["command"], expected);
    let (text, _) = t.cmd("llm-jobs").args(["list"]).expect_exit(0);
    assert!(!text.contains("abcdef123") && !text.contains("zq9Secret77"), "{text}");
    // The job's own secret values are known to its output's redaction.
    assert_eq!(wait_one(&t, id, 0)["stdout"], "token=[REDACTED] [REDACTED] [REDACTED]\n");
}
