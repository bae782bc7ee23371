//! Start-up: every tool's `--json` run on a 10-file tree, logged (the
//! default), against `rg --json` on the same tree, and against itself with
//! OpenTelemetry export on toward a blackholed endpoint (issue 53: export
//! costs a run a few milliseconds at most). Target (issue 16, item
//! 5): each within 1 ms of rg's median. `--check` measures again and fails
//! when a tool's ratio to rg is more than [`ALLOWANCE`] times the ratio
//! recorded in docs/BENCHMARKS.md (a ratio measured in one run travels
//! between machines far better than milliseconds do).

use super::{Case, Cmd, Report, case, fresh_home, release_binary, require, small_tree, write_report};
use crate::{Result, say, workspace};

/// How much worse than recorded a ratio may get before the check fails:
/// noise on a shared machine stays well under it, a real regression not.
const ALLOWANCE: f64 = 2.0;

/// An OTLP endpoint nobody answers: TEST-NET-1 (RFC 5737), never routed.
const BLACKHOLE: &str = "http://192.0.2.1:4318";

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let (tree, cases) = measure(runs, warmup)?;
    write_report(&Report::new("startup", runs.max(50), warmup.max(5), &tree, cases))
}

pub(super) fn check(runs: usize, warmup: usize) -> Result<()> {
    let doc = std::fs::read_to_string(workspace().join("docs/BENCHMARKS.md")).map_err(|e| e.to_string())?;
    let recorded = recorded_ratios(&doc);
    if recorded.is_empty() {
        return Err("docs/BENCHMARKS.md has no start-up figures: run `cargo xtask bench startup` first".into());
    }
    let (_, cases) = measure(runs, warmup)?;
    let mut regressions = Vec::new();
    for c in &cases {
        let tool = tool_of(&c.name);
        let Some(now) = c.ratios.iter().find(|(l, _)| l == "rg --json").map(|(_, r)| *r) else { continue };
        let Some(&(_, then)) = recorded.iter().find(|(t, _)| *t == tool) else {
            say(&format!("  {tool}: no recorded figure, not checked"));
            continue;
        };
        let verdict = if now > then * ALLOWANCE { "REGRESSED" } else { "ok" };
        say(&format!("  {tool:<16} ratio to rg {now:.2} (recorded {then:.2}): {verdict}"));
        if now > then * ALLOWANCE {
            regressions.push(format!("{tool}: {now:.2}× rg against {then:.2}× recorded"));
        }
    }
    if regressions.is_empty() {
        say(&format!("start-up: every tool within {ALLOWANCE}× of its recorded ratio to rg"));
        Ok(())
    } else {
        Err(format!("start-up regressed past {ALLOWANCE}× the recorded ratio: {}", regressions.join("; ")))
    }
}

/// A case's tool: the first word of its name (`llm-search --json …`).
fn tool_of(name: &str) -> &str {
    name.split_whitespace().next().unwrap_or(name)
}

/// (tool, ratio to rg) from the start-up table of BENCHMARKS.md: a case's
/// first row names it, the `rg --json` row under it holds the ratio.
fn recorded_ratios(doc: &str) -> Vec<(&str, f64)> {
    let (Some(start), Some(end)) = (doc.find("<!-- bench:startup:start -->"), doc.find("<!-- bench:startup:end -->"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut tool = None;
    for row in doc.get(start..end).unwrap_or("").lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // ["", case, check, command, median, rss, ratio, ""]
        let [_, name, _, command, _, _, ratio, ..] = cells.as_slice() else { continue };
        if !name.is_empty() {
            tool = Some(tool_of(name));
        } else if *command == "`rg --json`"
            && let (Some(t), Ok(r)) = (tool, ratio.parse::<f64>())
        {
            out.push((t, r));
        }
    }
    out
}

fn measure(runs: usize, warmup: usize) -> Result<(std::path::PathBuf, Vec<Case>)> {
    require("rg", "apt-get install ripgrep")?;
    let home = fresh_home("startup")?;
    let home = home.display().to_string();
    let otel_home = fresh_home("startup-otel")?.display().to_string();
    let tree = small_tree("startup/tree")?;
    let request = tree.join("request.json");
    std::fs::write(
        &request,
        r#"{"operations": [{"op": "patch", "path": "f0.rs", "old_text": "fn f0", "new_text": "fn g0"}], "dry_run": true}"#,
    )
    .map_err(|e| e.to_string())?;
    let request = request.display().to_string();
    // The tree is a repository of one commit, for llm-git.
    crate::run("git", &["-C", &tree.display().to_string(), "init", "-q"])?;
    crate::run(
        "git",
        &[
            "-C",
            &tree.display().to_string(),
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
    )?;
    let mut tools: Vec<(String, Vec<String>)> = Vec::new();
    for listed in aide::TOOLS {
        let args = probe(listed.name, &request).ok_or_else(|| format!("no start-up probe for {}", listed.name))?;
        let exe = release_binary(listed.name, listed.name)?.display().to_string();
        tools.push((exe, args.into_iter().map(str::to_string).collect()));
    }
    let mut cases = Vec::new();
    for (exe, args) in &tools {
        let name = std::path::Path::new(exe).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut argv: Vec<&str> = vec![exe];
        argv.extend(args.iter().map(String::as_str));
        let label = format!("{name} {}", args.join(" "));
        // The same run exporting its span to an endpoint that never answers
        // (a non-routable address: connections hang until their timeout):
        // the run must cost the same, its span left to the forwarder.
        let exporting = Cmd::new(&format!("{label} (OTel on, endpoint blackholed)"), &argv, &tree)
            .env("AIDE_HOME", &otel_home)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", BLACKHOLE)
            .env("OTEL_EXPORTER_OTLP_TIMEOUT", "2000");
        cases.push(case(
            &label,
            vec![
                Cmd::new(&label, &argv, &tree).env("AIDE_HOME", &home),
                Cmd::new("rg --json", &["rg", "--json", "--no-config", "fn"], &tree),
                exporting,
            ],
            runs.max(50),
            warmup.max(5),
        )?);
    }
    Ok((tree, cases))
}

/// The run each tool's start-up is measured by: a small real request on
/// the start-up tree (None for a tool without one, which the test below
/// refuses: every tool of the catalogue is measured).
fn probe<'a>(tool: &str, transform_request: &'a str) -> Option<Vec<&'a str>> {
    Some(match tool {
        "llm-search" => vec!["--json", "--pattern", "fn"],
        "llm-read" => vec!["--json", "f0.rs"],
        "llm-ast-search" => vec!["--json", "f0.rs"],
        "llm-discover" => vec!["--json", "--query", "f0"],
        "llm-transform" => vec!["--json", "--request", transform_request],
        "llm-shell" => vec!["--json", "check", "--", "true"],
        "llm-jobs" => vec!["--json", "list"],
        "llm-lint" => vec!["--json", "--checker", "syntax", "f0.rs"],
        "llm-git" => vec!["--json", "status"],
        "llm-deps" => vec!["--json", "list"],
        "llm-code" => vec!["--json", "metrics", "f0.rs"],
        "aide" => vec!["--json", "log", "list", "--limit", "1"],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_tool_of_the_catalogue_has_a_start_up_probe() {
        for listed in aide::TOOLS {
            assert!(super::probe(listed.name, "r.json").is_some(), "{} has no start-up probe", listed.name);
        }
    }

    use super::*;

    #[test]
    fn recorded_ratios_are_read_per_tool_from_the_table() {
        let doc = "x\n<!-- bench:startup:start -->\n| case | check | command | median ms | peak RSS MiB | ratio (ours / this) |\n|---|---|---|---:|---:|---:|\n\
                   | llm-read --json f0.rs |  | `llm-read --json f0.rs` | 2.13 | 7.0 | — |\n|  |  | `rg --json` | 5.00 | 6.8 | 0.43 |\n\
                   | aide --json log list |  | `aide --json log list` | 2.68 | 8.8 | — |\n|  |  | `rg --json` | 4.67 | 6.8 | 0.57 |\n\
                   <!-- bench:startup:end -->\n";
        assert_eq!(recorded_ratios(doc), [("llm-read", 0.43), ("aide", 0.57)]);
        assert!(recorded_ratios("no table").is_empty());
    }
}
