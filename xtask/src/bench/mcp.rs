//! `aide mcp`'s warm state: the first and the second outline (and
//! references) call on an unchanged crate of the corpus through one server,
//! against spawning `llm-ast-search` for each call. Each round starts fresh
//! servers, so every first call parses from scratch (the OS page cache is
//! warm for all three alike).

use std::time::Instant;

use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

use super::{Cmd, Measured, Report, case_of, fresh_home, release_binary, round3, run_once, write_report};
use crate::{Result, say};

/// The crate measured: real code of a common size (≈5 MiB, 350 files).
const CRATE: &str = "tokio-1.43.0";

/// One call's wall time through the server, in milliseconds.
pub(super) fn timed_call(client: &mut McpClient, tool: &str, arguments: Value) -> Result<f64> {
    let start = Instant::now();
    let result = client.call(tool, arguments);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if result["isError"] != false {
        return Err(format!("{tool} failed: {result}"));
    }
    Ok(ms)
}

/// The server's peak resident memory so far, in KiB (`VmHWM`).
pub(super) fn peak_rss_kib(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

pub(super) fn measured(label: &str, command: &str, mut times: Vec<f64>, peak_kib: i64) -> Measured {
    times.sort_by(f64::total_cmp);
    let median = match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    };
    Measured {
        label: label.into(),
        command: command.into(),
        median_ms: round3(median),
        p95_ms: round3(times.get((times.len() * 95 / 100).min(times.len().saturating_sub(1))).copied().unwrap_or(0.0)),
        mean_ms: round3(times.iter().sum::<f64>() / times.len().max(1) as f64),
        min_ms: round3(times.first().copied().unwrap_or(0.0)),
        max_ms: round3(times.last().copied().unwrap_or(0.0)),
        peak_rss_mib: round3(peak_kib as f64 / 1024.0),
        exit_codes: vec![0],
    }
}

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let aide = release_binary("aide", "aide")?;
    let cli = release_binary("llm-ast-search", "llm-ast-search")?;
    let corpus = crate::corpus::build(false)?;
    let tree = corpus.join("crates").join(CRATE);
    if !tree.is_dir() {
        return Err(format!("{} is missing from the corpus", tree.display()));
    }
    let home = fresh_home("mcp")?;
    let calls: [(&str, Value, Vec<&str>); 2] = [
        ("outline", json!({ "symbols": true }), vec!["--symbols"]),
        ("references of `new`", json!({ "references": "new" }), vec!["--references", "new"]),
    ];
    let mut cases = Vec::new();
    for (what, arguments, flags) in calls {
        say(&format!("bench: {CRATE} {what}"));
        let (mut first, mut second, mut spawned) = (Vec::new(), Vec::new(), Vec::new());
        let (mut server_peak, mut cli_peak) = (0, 0);
        let mut argv = vec![cli.display().to_string(), "--json".into()];
        argv.extend(flags.iter().map(|f| f.to_string()));
        let argv_refs: Vec<&str> = argv.iter().map(String::as_str).collect();
        let cmd = Cmd::new("llm-ast-search, one process per call", &argv_refs, &tree)
            .env("AIDE_HOME", &home.display().to_string());
        for round in 0..warmup + runs {
            let mut client = McpClient::start_binary(&aide, &tree, &home, &[]).handshake(json!({}));
            let cold = timed_call(&mut client, "ast_search", arguments.clone())?;
            let warm = timed_call(&mut client, "ast_search", arguments.clone())?;
            server_peak = server_peak.max(peak_rss_kib(client.pid()));
            drop(client);
            let (t, rss, code) = run_once(&cmd)?;
            cli_peak = cli_peak.max(rss);
            if code != 0 {
                return Err(format!("{} exited {code}", argv.join(" ")));
            }
            if round >= warmup {
                first.push(cold);
                second.push(warm);
                spawned.push(t.as_secs_f64() * 1000.0);
            }
        }
        let results = vec![
            // The server's peak covers both calls (it holds the parsed files).
            measured("mcp ast_search, second call", &format!("ast_search {arguments}"), second, server_peak),
            measured("mcp ast_search, first call", &format!("ast_search {arguments}"), first, server_peak),
            measured(&cmd.label, &argv.join(" "), spawned, cli_peak),
        ];
        cases.push(case_of(&format!("{CRATE}: {what}"), results));
    }
    write_report(&Report::new("mcp", runs, warmup, &corpus, cases))?;
    Ok(())
}
