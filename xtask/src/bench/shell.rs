//! llm-shell exec in a session against `bash -c`.

use std::process::Command;

use super::{Cmd, Report, case, fresh_home, output_of, release_binary, write_report};
use crate::{Result, say, workspace};

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-shell", "llm-shell")?;
    let dir = workspace().join("target/bench/shell");
    let home = fresh_home("shell")?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let out =
        output_of(Command::new(&ours).env("AIDE_HOME", &home).args(["--json", "session", "new", "--cwd"]).arg(&dir))?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let session = v["session_id"].as_str().ok_or("no session id")?.to_string();

    let mut cases = Vec::new();
    for (name, command) in
        [("trivial command `true`", "true"), ("interpreter start `python3 -c pass`", "python3 -c pass")]
    {
        cases.push(case(
            &format!("exec overhead: {name}"),
            vec![
                Cmd::new("llm-shell exec --session", &[&ours_s, "exec", "--session", &session, "--", command], &dir)
                    .env("AIDE_HOME", &home_s),
                Cmd::new("bash -c", &["bash", "-c", command], &dir),
            ],
            runs.max(20),
            warmup,
        )?);
    }
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
