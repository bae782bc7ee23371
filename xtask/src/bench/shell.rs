//! llm-shell exec in a session against `bash -c`: from the command line
//! (logged and `--no-log`) and through `aide mcp` (one server, calls timed
//! at the client), all against `bash -c true` in the same run.

use std::process::Command;
use std::time::Instant;

use aide_tests::mcp::McpClient;
use serde_json::json;

use super::{
    Cmd, Measured, Report, case, case_of, fresh_home, output_of, release_binary, round3, run_once, write_report,
};
use crate::{Result, say, workspace};

fn summary(label: &str, command: &str, mut times: Vec<f64>) -> Measured {
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times.get((times.len() * q / 100).min(times.len().saturating_sub(1))).copied().unwrap_or(0.0);
    Measured {
        label: label.into(),
        command: command.into(),
        median_ms: round3(at(50)),
        p95_ms: round3(at(95)),
        mean_ms: round3(times.iter().sum::<f64>() / times.len().max(1) as f64),
        min_ms: round3(times.first().copied().unwrap_or(0.0)),
        max_ms: round3(times.last().copied().unwrap_or(0.0)),
        peak_rss_mib: 0.0,
        exit_codes: vec![0],
    }
}

/// `shell_exec {command: "true"}` through one `aide mcp` server, against
/// `bash -c true` spawned between its calls.
fn through_mcp(
    session: &str,
    dir: &std::path::Path,
    home: &std::path::Path,
    runs: usize,
    warmup: usize,
) -> Result<super::Case> {
    let aide = release_binary("aide", "aide")?;
    let mut client = McpClient::start_binary(&aide, dir, home, &[]).handshake(json!({}));
    let bash = Cmd::new("bash -c", &["bash", "-c", "true"], dir);
    let (mut calls, mut spawned) = (Vec::new(), Vec::new());
    for round in 0..warmup + runs.max(20) {
        let start = Instant::now();
        let result = client.call("shell_exec", json!({ "session": session, "command": "true" }));
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        if result["isError"] != false {
            return Err(format!("shell_exec failed: {result}"));
        }
        let (t, _, _) = run_once(&bash)?;
        if round >= warmup {
            calls.push(ms);
            spawned.push(t.as_secs_f64() * 1000.0);
        }
    }
    Ok(case_of(
        "exec overhead through `aide mcp`: `true`",
        vec![
            summary("aide mcp shell_exec --session", "shell_exec {session, command: true}", calls),
            summary("bash -c", "bash -c true", spawned),
        ],
    ))
}

/// A new session of llm-shell in `dir`: its id.
fn new_session(ours: &std::path::Path, dir: &std::path::Path, home: &std::path::Path) -> Result<String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let out =
        output_of(Command::new(ours).env("AIDE_HOME", home).args(["--json", "session", "new", "--cwd"]).arg(dir))?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    Ok(v["session_id"].as_str().ok_or("no session id")?.to_string())
}

/// `exec -- true` on a live session against `bash -c true`, as a
/// small-tree anchor (`cargo xtask bench index`).
pub(super) fn exec_case(home: &std::path::Path, runs: usize, warmup: usize) -> Result<super::Case> {
    let ours = release_binary("llm-shell", "llm-shell")?;
    let dir = workspace().join("target/bench/shell");
    let session = new_session(&ours, &dir, home)?;
    let ours_s = ours.display().to_string();
    case(
        "small-tree anchor: exec on a live session, `true`",
        vec![
            Cmd::new("llm-shell exec --session", &[&ours_s, "exec", "--session", &session, "--", "true"], &dir)
                .env("AIDE_HOME", &home.display().to_string()),
            Cmd::new("bash -c", &["bash", "-c", "true"], &dir),
        ],
        runs.max(20),
        warmup,
    )
}

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-shell", "llm-shell")?;
    let dir = workspace().join("target/bench/shell");
    let home = fresh_home("shell")?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let session = new_session(&ours, &dir, &home)?;

    let mut cases = Vec::new();
    for (name, command) in
        [("trivial command `true`", "true"), ("interpreter start `python3 -c pass`", "python3 -c pass")]
    {
        cases.push(case(
            &format!("exec overhead: {name}"),
            vec![
                Cmd::new("llm-shell exec --session", &[&ours_s, "exec", "--session", &session, "--", command], &dir)
                    .env("AIDE_HOME", &home_s),
                Cmd::new(
                    "llm-shell --no-log exec --session",
                    &[&ours_s, "--no-log", "exec", "--session", &session, "--", command],
                    &dir,
                )
                .env("AIDE_HOME", &home_s),
                Cmd::new("bash -c", &["bash", "-c", command], &dir),
            ],
            runs.max(20),
            warmup,
        )?);
    }
    cases.push(through_mcp(&session, &dir, &home, runs, warmup)?);
    // compare on a tiny command: the current tree against its own HEAD.
    let repo = workspace();
    let mut compare = case(
        "compare --baseline HEAD --command true --iterations 10",
        vec![
            Cmd::new(
                "llm-shell compare",
                &[&ours_s, "compare", "--baseline", "HEAD", "--command", "true", "--iterations", "10", "--warmup", "1"],
                &repo,
            )
            .env("AIDE_HOME", &home_s),
        ],
        3,
        1,
    )?;
    let out = output_of(Command::new(&ours).env("AIDE_HOME", &home).current_dir(&repo).args([
        "--json",
        "compare",
        "--baseline",
        "HEAD",
        "--command",
        "true",
        "--iterations",
        "10",
    ]))?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    say(&format!(
        "  compare HEAD vs HEAD: improvement {}%, Welch p {}, significant {}",
        v["improvement_percent"], v["welch_p_value"], v["significant"]
    ));
    compare.name = format!(
        "compare HEAD against itself, `true` ×10 (improvement {}%, Welch p {}, significant: {})",
        v["improvement_percent"], v["welch_p_value"], v["significant"]
    );
    cases.push(compare);
    write_report(&Report::new("shell", runs, warmup, &dir, cases))
}
