//! llm-git against git itself on this repository (a real history), in one
//! run: what the typing costs over git's own machine format for status, a
//! diff across ten commits (with every new-side line located), 200 commits
//! of log, and the blame of a large file.

use super::{Cmd, Report, case, fresh_home, release_binary, write_report};
use crate::{Result, workspace};

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-git", "llm-git")?;
    let repo = workspace();
    let home = fresh_home("git-home")?;
    let (ours_s, home_s) = (ours.display().to_string(), home.display().to_string());
    let blamed = "llm-ast-search/src/dialect.rs";
    let log_format = "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%cn%x1f%ce%x1f%ct%x1f%s%x1f%b%x1f%x1e";
    let pairs: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        ("status", vec!["status"], vec!["git", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]),
        ("diff HEAD~10", vec!["diff", "HEAD~10"], vec!["git", "diff", "--no-color", "-M", "HEAD~10"]),
        ("log -n 200", vec!["log", "-n", "200"], vec!["git", "log", "--max-count=200", log_format]),
        ("blame", vec!["blame", blamed], vec!["git", "blame", "--porcelain", blamed]),
    ];
    let mut cases = Vec::new();
    for (name, ours_args, git_args) in pairs {
        let mut with_json: Vec<&str> = vec![&ours_s, "--json"];
        with_json.extend(&ours_args);
        let mut no_log: Vec<&str> = vec![&ours_s, "--json", "--no-log"];
        no_log.extend(&ours_args);
        cases.push(case(
            &format!("{name}: llm-git against git's own format"),
            vec![
                Cmd::new("llm-git", &with_json, &repo).env("AIDE_HOME", &home_s),
                Cmd::new("llm-git --no-log", &no_log, &repo).env("AIDE_HOME", &home_s),
                Cmd::new("git", &git_args, &repo),
            ],
            runs,
            warmup,
        )?);
    }
    write_report(&Report::new("git", runs, warmup, &repo, cases))
}
