//! Start-up: every tool's `--json` run on a 10-file tree, logged (the
//! default), against `rg --json` on the same tree. Target (issue 16, item
//! 5): each within 1 ms of rg's median.

use super::{Cmd, Report, case, fresh_home, release_binary, require, small_tree, write_report};
use crate::Result;

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    require("rg", "apt-get install ripgrep")?;
    let home = fresh_home("startup")?;
    let home = home.display().to_string();
    let tree = small_tree("startup/tree")?;
    let request = tree.join("request.json");
    std::fs::write(
        &request,
        r#"{"operations": [{"op": "patch", "path": "f0.rs", "old_text": "fn f0", "new_text": "fn g0"}], "dry_run": true}"#,
    )
    .map_err(|e| e.to_string())?;
    let request = request.display().to_string();
    let bin = |package: &str| release_binary(package, package).map(|p| p.display().to_string());
    let tools: Vec<(String, Vec<String>)> = vec![
        (bin("llm-search")?, vec!["--json", "--pattern", "fn"]),
        (bin("llm-read")?, vec!["--json", "f0.rs"]),
        (bin("llm-ast-search")?, vec!["--json", "f0.rs"]),
        (bin("llm-discover")?, vec!["--json", "--query", "f0"]),
        (bin("llm-transform")?, vec!["--json", "--request", &request]),
        (bin("llm-shell")?, vec!["--json", "check", "--", "true"]),
        (bin("llm-jobs")?, vec!["--json", "list"]),
        (bin("aide")?, vec!["--json", "log", "list", "--limit", "1"]),
    ]
    .into_iter()
    .map(|(exe, args)| (exe, args.into_iter().map(str::to_string).collect()))
    .collect();
    let mut cases = Vec::new();
    for (exe, args) in &tools {
        let name = std::path::Path::new(exe).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut argv: Vec<&str> = vec![exe];
        argv.extend(args.iter().map(String::as_str));
        let label = format!("{name} {}", args.join(" "));
        cases.push(case(
            &label,
            vec![
                Cmd::new(&label, &argv, &tree).env("AIDE_HOME", &home),
                Cmd::new("rg --json", &["rg", "--json", "--no-config", "fn"], &tree),
            ],
            runs.max(50),
            warmup.max(5),
        )?);
    }
    write_report(&Report::new("startup", runs.max(50), warmup.max(5), &tree, cases))
}
