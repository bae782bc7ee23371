//! The execution log's cost to a run: `llm-search --json` on a 10-file tree
//! logged against `--no-log` (and rg), idle and with 8 other processes
//! logging at the same time. Targets (issue 16): a logged median within
//! 0.5 ms of `--no-log`, p95 within 3 ms.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{Cmd, Report, case, fresh_home, release_binary, small_tree, write_report};
use crate::{Result, say};

/// Processes logging alongside the measured runs.
const CONCURRENT: usize = 8;

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-search", "llm-search")?;
    let ours = ours.display().to_string();
    let home = fresh_home("log")?;
    let home = home.display().to_string();
    let tree = small_tree("log/tree")?;
    let cmds = || {
        vec![
            Cmd::new("llm-search --json (logged)", &[&ours, "--json", "--pattern", "fn"], &tree)
                .env("AIDE_HOME", &home),
            Cmd::new("llm-search --json --no-log", &[&ours, "--json", "--no-log", "--pattern", "fn"], &tree),
            Cmd::new("rg --json", &["rg", "--json", "--no-config", "fn"], &tree),
        ]
    };
    let runs = runs.max(200);
    let mut cases = vec![case("idle: 10-file tree, `fn`", cmds(), runs, warmup.max(10))?];

    // Eight more processes logging into the same AIDE_HOME, back to back.
    let stop = Arc::new(AtomicBool::new(false));
    let background_runs = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..CONCURRENT)
        .map(|_| {
            let (stop, count) = (stop.clone(), background_runs.clone());
            let (ours, home, tree) = (ours.clone(), home.clone(), tree.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let ran = std::process::Command::new(&ours)
                        .args(["--json", "--pattern", "fn"])
                        .current_dir(&tree)
                        .env("AIDE_HOME", &home)
                        .stdout(std::process::Stdio::null())
                        .status();
                    if ran.is_err() {
                        break;
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let busy = case(&format!("{CONCURRENT} other processes logging at once"), cmds(), runs, warmup.max(10));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.join();
    }
    cases.push(busy?);
    say(&format!("  ({} background runs logged meanwhile)", background_runs.load(Ordering::Relaxed)));
    let db = std::path::Path::new(&home).join("log.db");
    say(&format!("  log.db after the bench: {} bytes", std::fs::metadata(&db).map_or(0, |m| m.len())));
    write_report(&Report::new("log", runs, warmup, &tree, cases))
}
