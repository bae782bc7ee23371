//! llm-jobs pause, resume and send: a paused job's whole process group is
//! stopped (state `T`) and goes on when resumed, a job stopped from outside
//! shows as paused, kill ends a paused job, and send writes a running job's
//! stdin as given. Every condition is polled for with a deadline, never
//! assumed after a sleep.

use aide_tests::TestDir;
use serde::Deserialize;
use serde_json::Value;

use crate::jobs::{eventually, group_members, jobs, spawn};

/// What `pause` and `resume` answer.
#[derive(Debug, Deserialize)]
struct Switched {
    job_id: i64,
    status: String,
    previous_status: String,
    pid: u64,
}

/// What `send` answers.
#[derive(Debug, Deserialize)]
struct Sent {
    job_id: i64,
    bytes_sent: usize,
    stdin_closed: bool,
    status: String,
}

/// A job as `status` and `list` show it.
#[derive(Debug, Deserialize)]
struct Job {
    id: i64,
    pid: Option<u64>,
    status: String,
    signal: Option<i32>,
}

#[derive(Debug, Deserialize)]
struct Listed {
    jobs: Vec<Job>,
    active_count: usize,
}

#[derive(Debug, Deserialize)]
struct Waited {
    jobs: Vec<WaitedJob>,
    timed_out: bool,
}

#[derive(Debug, Deserialize)]
struct WaitedJob {
    status: String,
}

#[derive(Debug, Deserialize)]
struct Failure {
    error: ErrorBody,
}

#[derive(Debug, Deserialize)]
struct ErrorBody {
    code: String,
    hint: Option<String>,
    details: Option<Value>,
}

fn typed<T: serde::de::DeserializeOwned>(t: &TestDir, args: &[&str], code: i32) -> T {
    let v = jobs(t, args, code);
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{args:?} answered another shape ({e}): {v}"))
}

fn job(t: &TestDir, id: i64) -> Job {
    #[derive(Deserialize)]
    struct One {
        job: Job,
    }
    typed::<One>(t, &["status", &id.to_string()], 0).job
}

/// The state letter of each live process of group `pgid` (`/proc/PID/stat` field 3).
fn states(pgid: u64) -> Vec<char> {
    let state = |pid: u64| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..].trim_start().chars().next()
    };
    group_members(pgid).into_iter().filter_map(state).collect()
}

/// The counter a job writes, once it has written one.
fn counter(t: &TestDir) -> Option<u64> {
    std::fs::read_to_string(t.root().join("count")).ok()?.trim().parse().ok()
}

/// A job counting in `count`, its children started and stopped in turn.
const COUNTING: &str = "i=0; while :; do i=$((i+1)); echo $i > count.tmp; mv count.tmp count; sleep 0.05; done";

#[test]
fn pause_stops_the_whole_group_and_resume_lets_it_go_on() {
    let t = TestDir::new();
    let id = spawn(&t, &[], COUNTING);
    eventually("the counter to start", || counter(&t).is_some_and(|c| c >= 2));

    let paused: Switched = typed(&t, &["pause", &id.to_string()], 0);
    assert_eq!((paused.job_id, paused.status.as_str(), paused.previous_status.as_str()), (id, "Paused", "Running"));
    let pgid = paused.pid;
    // Every process of the group is stopped: the counter cannot move.
    eventually("every process of the group to be stopped", || {
        let s = states(pgid);
        !s.is_empty() && s.iter().all(|&c| c == 'T')
    });
    let before = counter(&t).unwrap();
    assert_eq!(job(&t, id).status, "Paused");
    let listed: Listed = typed(&t, &["list", "--status", "paused"], 0);
    assert_eq!((listed.jobs.len(), listed.active_count), (1, 1), "{listed:?}");
    assert_eq!(listed.jobs[0].id, id);
    assert!(states(pgid).iter().all(|&c| c == 'T'), "still stopped");
    assert_eq!(counter(&t), Some(before), "a paused job wrote");
    // Pausing again changes nothing, and says so.
    let again: Switched = typed(&t, &["pause", &id.to_string()], 0);
    assert_eq!((again.status.as_str(), again.previous_status.as_str()), ("Paused", "Paused"));

    let resumed: Switched = typed(&t, &["resume", &id.to_string()], 0);
    assert_eq!((resumed.status.as_str(), resumed.previous_status.as_str()), ("Running", "Paused"));
    eventually("the counter to go on", || counter(&t).is_some_and(|c| c > before));
    assert_eq!(job(&t, id).status, "Running");
    jobs(&t, &["kill", &id.to_string(), "--signal", "KILL"], 0);
}

#[test]
fn a_job_stopped_from_outside_is_paused_and_kill_ends_it() {
    let t = TestDir::new();
    let id = spawn(&t, &[], COUNTING);
    let pid = job(&t, id).pid.expect("a running job has a pid");
    let stopped = std::process::Command::new("kill").args(["-STOP", &pid.to_string()]).status().unwrap();
    assert!(stopped.success());
    eventually("the job to show as paused", || job(&t, id).status == "Paused");

    // A wait on it follows its timeout, and says it is paused.
    let waited: Waited = typed(&t, &["wait", &id.to_string(), "--timeout", "0.3"], 1);
    assert!(waited.timed_out);
    assert_eq!(waited.jobs[0].status, "Paused");
    let (text, _) = t.cmd("llm-jobs").args(["wait", &id.to_string(), "--timeout", "0.1"]).expect_exit(1);
    assert!(text.contains(&format!("llm-jobs resume {id}")), "{text}");

    // kill's STOP is refused, pointing to pause and resume; nothing is signalled.
    let refused: Failure = typed(&t, &["kill", &id.to_string(), "--signal", "STOP"], 2);
    assert_eq!(refused.error.code, "invalid_arguments");
    assert!(refused.error.hint.unwrap_or_default().contains(&format!("llm-jobs pause {id}")));
    let refused: Failure = typed(&t, &["kill", &id.to_string(), "--signal", "CONT"], 2);
    assert_eq!(refused.error.code, "invalid_arguments");
    assert_eq!(job(&t, id).status, "Paused");

    // TERM reaches a stopped group: CONT follows it.
    let killed = jobs(&t, &["kill", &id.to_string(), "--grace", "10"], 0);
    assert_eq!((killed["status"].as_str(), killed["signal"].as_i64()), (Some("Killed"), Some(15)), "{killed}");
    let ended = job(&t, id);
    assert_eq!((ended.status.as_str(), ended.signal), ("Killed", Some(15)));
    eventually("the group to be gone", || group_members(pid).is_empty());
}

#[test]
fn pausing_a_queued_or_ended_job_is_a_conflict() {
    let t = TestDir::new();
    jobs(&t, &["group", "set", "one", "--parallel", "1"], 0);
    let first = spawn(&t, &["--group", "one"], "sleep 30");
    let queued = spawn(&t, &["--group", "one"], "sleep 30");
    for verb in ["pause", "resume", "send"] {
        let mut args = vec![verb.to_string(), queued.to_string()];
        if verb == "send" {
            args.extend(["--text".into(), "x".into()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let refused: Failure = typed(&t, &args, 3);
        assert_eq!(refused.error.code, "conflict", "{verb}");
        assert_eq!(refused.error.details.unwrap()["status"], "Queued", "{verb}");
    }
    // A paused job keeps its slot: the queued one stays queued.
    typed::<Switched>(&t, &["pause", &first.to_string()], 0);
    assert_eq!(job(&t, queued).status, "Queued");
    jobs(&t, &["kill", &first.to_string(), "--signal", "KILL"], 0);
    jobs(&t, &["kill", &queued.to_string(), "--signal", "KILL"], 0);
    let refused: Failure = typed(&t, &["pause", &first.to_string()], 3);
    assert_eq!(refused.error.details.unwrap()["status"], "Killed");
    // Resuming a running job changes nothing.
    let running = spawn(&t, &[], "sleep 30");
    let same: Switched = typed(&t, &["resume", &running.to_string()], 0);
    assert_eq!((same.status.as_str(), same.previous_status.as_str()), ("Running", "Running"));
    jobs(&t, &["kill", &running.to_string(), "--signal", "KILL"], 0);
}

/// A job's stdout as `logs` reads it, once it has ended.
fn stdout_after_end(t: &TestDir, id: i64) -> String {
    let waited: Waited = typed(t, &["wait", &id.to_string(), "--timeout", "60"], 0);
    assert_eq!(waited.jobs[0].status, "Done");
    jobs(t, &["logs", &id.to_string(), "--stream", "stdout"], 0)["content"].as_str().unwrap().to_string()
}

#[test]
fn send_writes_to_a_jobs_stdin_as_given() {
    let t = TestDir::new();
    let id = spawn(&t, &[], "read line; echo got:$line");
    // No newline is added: `read` still waits for the end of its line.
    let sent: Sent = typed(&t, &["send", &id.to_string(), "--text", "hello"], 0);
    assert_eq!((sent.job_id, sent.bytes_sent, sent.stdin_closed, sent.status.as_str()), (id, 5, false, "Running"));
    let (text, _) = t.cmd("llm-jobs").args(["send", &id.to_string(), "--text", " there"]).expect_exit(0);
    assert!(text.contains("no newline"), "{text}");
    assert_eq!(job(&t, id).status, "Running");
    typed::<Sent>(&t, &["send", &id.to_string(), "--text", "\n"], 0);
    assert_eq!(stdout_after_end(&t, id), "got:hello there\n");

    // Several lines at once: head takes the first.
    let id = spawn(&t, &[], "head -n 1");
    let sent: Sent = typed(&t, &["send", &id.to_string(), "--text", "first\nsecond\n"], 0);
    assert_eq!(sent.bytes_sent, 13);
    assert_eq!(stdout_after_end(&t, id), "first\n");

    // The caller's stdin, then end of file: cat ends.
    let id = spawn(&t, &[], "cat; echo end");
    let (out, _) =
        t.cmd("llm-jobs").args(["--json", "send", &id.to_string(), "--stdin", "--eof"]).stdin("a\nb").expect_exit(0);
    let sent: Sent = serde_json::from_str(&out).unwrap();
    assert_eq!((sent.bytes_sent, sent.stdin_closed), (3, true));
    assert_eq!(stdout_after_end(&t, id), "a\nbend\n");
    // Ended: nothing more is taken.
    let refused: Failure = typed(&t, &["send", &id.to_string(), "--text", "x"], 3);
    assert_eq!(refused.error.details.unwrap()["status"], "Done");

    // A paused job takes input into its pipe and reads it once resumed.
    let id = spawn(&t, &[], "read line; echo got:$line");
    typed::<Switched>(&t, &["pause", &id.to_string()], 0);
    let sent: Sent = typed(&t, &["send", &id.to_string(), "--text", "later\n"], 0);
    assert_eq!(sent.status, "Paused");
    typed::<Switched>(&t, &["resume", &id.to_string()], 0);
    assert_eq!(stdout_after_end(&t, id), "got:later\n");

    // A job spawned without a stdin pipe reads end of file, and takes no input.
    let id = spawn(&t, &["--no-stdin"], "cat; sleep 30");
    let refused: Failure = typed(&t, &["send", &id.to_string(), "--text", "x"], 2);
    assert_eq!(refused.error.code, "invalid_arguments");
    // Nothing to send is refused before the job is looked at.
    assert_eq!(typed::<Failure>(&t, &["send", &id.to_string()], 2).error.code, "invalid_arguments");
    jobs(&t, &["kill", &id.to_string(), "--signal", "KILL"], 0);

    // A command that closed its stdin: what is sent is refused.
    let id = spawn(&t, &[], "exec 0<&-; sleep 30");
    eventually("the command to close its stdin", || {
        let Some(pid) = job(&t, id).pid else { return false };
        std::fs::read_link(format!("/proc/{pid}/fd/0")).is_err()
    });
    let refused: Failure = typed(&t, &["send", &id.to_string(), "--text", "x"], 3);
    assert_eq!(refused.error.code, "conflict");
    jobs(&t, &["kill", &id.to_string(), "--signal", "KILL"], 0);
}

#[test]
fn a_sandboxed_command_cannot_write_to_another_jobs_stdin() {
    if !aide_tests::sandbox_here("a job's stdin refusing a sandboxed caller")
        || !aide_tests::oracle("python3", "a sandboxed job poking another's socket")
    {
        return;
    }
    let t = TestDir::new();
    let target = spawn(&t, &[], "cat");
    let socket = t.home().join(format!("jobs/{target}/keeper.sock"));
    eventually("the target's stdin to be served", || socket.exists());
    // The socket answers this uid; the supervisor proves the caller's confinement.
    t.write(
        "poke.py",
        format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\n\
             s.sendall(b'{{\"bytes\": 5, \"eof\": true}}\\nevil\\n')\nprint(s.recv(200).decode())\n",
            socket.display().to_string()
        ),
    );
    let poker = spawn(&t, &["--sandbox", "workspace-write"], "python3 poke.py");
    let waited = jobs(&t, &["wait", &poker.to_string(), "--timeout", "60"], 0);
    assert!(waited["jobs"][0]["stdout"].as_str().unwrap().contains(r#""outcome":"refused""#), "{waited}");
    typed::<Sent>(&t, &["send", &target.to_string(), "--eof"], 0);
    assert_eq!(stdout_after_end(&t, target), "", "the sandboxed command's bytes reached the job");
}
