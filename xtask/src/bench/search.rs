//! llm-search against ripgrep (`rg --json`), with a check that both find the same matches.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use super::{Cmd, Report, case, first_line_ms, fresh_home, release_binary, require, small_tree, write_report};
use crate::{Result, say};

/// The outcome of comparing our (path, line, byte_start, byte_end) set with rg's.
#[derive(Debug, Serialize)]
pub(super) struct Verification {
    pub(super) agrees: bool,
    pub(super) matches: usize,
    pub(super) only_ours: usize,
    pub(super) only_rg: usize,
    /// Files we skip as UTF-16 (rg transcodes them), left out of the comparison.
    utf16_files_excluded: usize,
}

/// Runs llm-search and rg with the same pattern on `root` and compares.
fn verify_against_rg(ours: &Path, root: &Path, flags: &[&str], pattern: &str) -> Result<Verification> {
    use std::collections::BTreeSet;
    let mut args: Vec<&str> = vec!["--json", "--no-log", "--max-line-len", "0"];
    args.extend_from_slice(flags);
    args.extend(["--pattern", pattern]);
    let out = Command::new(ours).args(&args).current_dir(root).output().map_err(|e| e.to_string())?;
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("our output: {e}"))?;
    let utf16: BTreeSet<&str> = doc["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "unsupported_encoding")
        .filter_map(|d| d["path"].as_str())
        .collect();
    let mine: BTreeSet<aide_tests::ripgrep::Span> = doc["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| {
            Some((
                m["path"].as_str()?.to_string(),
                m["line"].as_u64()? as usize,
                m["byte_start"].as_u64()? as usize,
                m["byte_end"].as_u64()? as usize,
            ))
        })
        .collect();
    let mut rg_args: Vec<&str> = flags.to_vec();
    rg_args.extend(["--regexp", pattern]);
    let theirs: BTreeSet<_> =
        aide_tests::ripgrep::rg_spans(root, &rg_args).into_iter().filter(|s| !utf16.contains(s.0.as_str())).collect();
    let only_ours = mine.difference(&theirs).count();
    let only_rg = theirs.difference(&mine).count();
    for s in mine.symmetric_difference(&theirs).take(5) {
        say(&format!("  differs: {s:?}"));
    }
    Ok(Verification {
        agrees: only_ours == 0 && only_rg == 0,
        matches: mine.len(),
        only_ours,
        only_rg,
        utf16_files_excluded: utf16.len(),
    })
}

// Long because: one benchmark: its corpus, each anchor's runs and the table, in the order BENCHMARKS.md prints them.
pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    require("rg", "apt-get install ripgrep")?;
    let ours = release_binary("llm-search", "llm-search")?;
    let corpus = crate::corpus::build(false)?;
    let home = fresh_home("search")?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();

    let patterns: &[(&str, &[&str])] = &[
        ("literal `fn main`", &["fn main"]),
        ("rare literal `ZeroDivisionError`", &["ZeroDivisionError"]),
        ("regex `fn\\s+\\w+_test`", &[r"fn\s+\w+_test"]),
        ("case-insensitive `-i deprecated`", &["-i", "deprecated"]),
        ("word `-w unsafe`", &["-w", "unsafe"]),
        ("unicode class `\\p{Greek}+`", &[r"\p{Greek}+"]),
    ];
    // Time every case first, verify afterwards: a child's peak RSS starts at
    // its parent's (ru_maxrss survives exec), so the parent must stay small
    // while it spawns timed runs.
    let mut cases = Vec::new();
    for (name, args) in patterns {
        let (flags, pattern) = args.split_at(args.len() - 1);
        let mut our_args: Vec<&str> = vec![&ours_s, "--json"];
        our_args.extend_from_slice(flags);
        our_args.extend(["--pattern", pattern[0]]);
        let mut rg: Vec<&str> = vec!["rg", "--json", "--no-config"];
        rg.extend_from_slice(flags);
        rg.extend(["--regexp", pattern[0]]);
        let mut rg_sorted = rg.clone();
        rg_sorted.insert(2, "--sort=path");
        cases.push(case(
            &format!("corpus: {name}"),
            vec![
                Cmd::new("llm-search --json", &our_args, &corpus).env("AIDE_HOME", &home_s),
                Cmd::new("rg --json", &rg, &corpus),
                Cmd::new("rg --json --sort path", &rg_sorted, &corpus),
                // A tree searched for the first time: every matched file hashed.
                Cmd::new("llm-search --json, checksum cache off", &our_args, &corpus)
                    .env("AIDE_HOME", &home_s)
                    .env("AIDE_CHECKSUM_CACHE", "off"),
            ],
            runs,
            warmup,
        )?);
    }

    // Streaming: JSONL prints each file's matches once every earlier file
    // is done; --limit stops the search once its page is full. Beside the
    // time, how long until the first record, median of a few runs.
    for (name, flags, pattern) in
        [("dense `-w unsafe`", &["-w"][..], "unsafe"), ("sparse `fn main`", &[][..], "fn main")]
    {
        let mut jsonl: Vec<&str> = vec![&ours_s, "--jsonl"];
        jsonl.extend_from_slice(flags);
        jsonl.extend(["--pattern", pattern]);
        let mut limited: Vec<&str> = vec![&ours_s, "--json", "--limit", "20"];
        limited.extend_from_slice(flags);
        limited.extend(["--pattern", pattern]);
        let mut rg: Vec<&str> = vec!["rg", "--json", "--no-config"];
        rg.extend_from_slice(flags);
        rg.extend(["--regexp", pattern]);
        let rg = Cmd::new("rg --json", &rg, &corpus);
        let cmds = vec![Cmd::new("llm-search --jsonl", &jsonl, &corpus).env("AIDE_HOME", &home_s), rg.clone()];
        let mut c = case(&format!("streaming: {name}"), cmds.clone(), runs, warmup)?;
        for cmd in &cmds {
            let (first, whole) = first_line_ms(cmd, runs.clamp(3, 7))?;
            let note = format!("first record at {first:.1} ms ({:.0}% of {whole:.0} ms)", 100.0 * first / whole);
            say(&format!("  {:<28} {note}", cmd.label));
            c.notes.push((cmd.label.clone(), note));
        }
        cases.push(c);
        let limit = Cmd::new("llm-search --json --limit 20", &limited, &corpus).env("AIDE_HOME", &home_s);
        cases.push(case(&format!("first page: {name}"), vec![limit, rg], runs, warmup)?);
    }

    // Start-up: a 10-file tree, logging included.
    let small = small_tree("small-tree")?;
    cases.push(case(
        "start-up: 10-file tree, `fn`",
        vec![
            Cmd::new("llm-search --json (logged)", &[&ours_s, "--json", "--pattern", "fn"], &small)
                .env("AIDE_HOME", &home_s),
            Cmd::new("rg --json", &["rg", "--json", "--no-config", "fn"], &small),
            Cmd::new("llm-search --json --no-log", &[&ours_s, "--json", "--no-log", "--pattern", "fn"], &small),
        ],
        runs.max(30),
        warmup.max(5),
    )?);

    for ((name, args), measured) in patterns.iter().zip(cases.iter_mut()) {
        let (flags, pattern) = args.split_at(args.len() - 1);
        let v = verify_against_rg(&ours, &corpus, flags, pattern[0])?;
        say(&format!(
            "verify {name}: {} ({} matches, {} only ours, {} only rg)",
            if v.agrees { "same matches as rg" } else { "DIFFERS from rg" },
            v.matches,
            v.only_ours,
            v.only_rg
        ));
        measured.verified = Some(v);
    }

    write_report(&Report::new("search", runs, warmup, &corpus, cases))
}
