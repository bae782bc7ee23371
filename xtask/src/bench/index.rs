//! Search at scale: llm-search through its index on the Linux kernel's
//! source (Debian's linux-source-6.12, in `~/.cache/aide-bench/kernel/`), against rg and
//! codesearch's csearch (trigram index from `cindex`) in the same run: the
//! index's build (time and size, against cindex), a selective pattern
//! repeated (from the command line, through its keeper, and through `aide
//! mcp`), a match-heavy one, and the first search after an edit. Then the
//! small-tree anchors measured in the same run: match-heavy `--json`
//! against rg, the outline against ast-grep, `exec` against `bash -c true`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use aide_tests::mcp::McpClient;
use serde_json::json;

use super::mcp::{measured, peak_rss_kib, timed_call};
use super::{Case, Cmd, Report, case, case_of, fresh_home, release_binary, require, run_once, write_report};
use crate::{Result, say, workspace};

/// Selective: a few files hold it. Match-heavy: most C files do.
const SELECTIVE: [&str; 2] = ["CONFIG_SLUB_DEBUG_ON", r"kmem_cache_alloc_node\("];
const MATCH_HEAVY: &str = "static inline";
/// The file edited before each "first search after an edit" (restored after).
const EDITED: &str = "mm/slub.c";

// Long because: one benchmark: each part's runs in the order BENCHMARKS.md prints them.
pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    require("rg", "apt-get install ripgrep")?;
    require_program("csearch", "apt-get install codesearch")?;
    let kernel = crate::corpus::kernel()?;
    let ours = release_binary("llm-search", "llm-search")?;
    let aide = release_binary("aide", "aide")?;
    let dir = workspace().join("target/bench/index");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let csearch_index = dir.join("csearchindex");
    let ours_s = ours.display().to_string();

    let mut cases = vec![build(&ours, &kernel, &csearch_index, runs.clamp(1, 3))?];

    // One keeper holds the kernel's index for every search after the build.
    let home = fresh_home("index")?;
    let home_s = home.display().to_string();
    let csearch_s = csearch_index.display().to_string();
    let keeper = |pattern: &str| {
        Cmd::new("llm-search --json (index in its keeper)", &[&ours_s, "--json", "-e", pattern], &kernel)
            .env("AIDE_HOME", &home_s)
            .env("AIDE_INDEX", "always")
    };
    let rg = |pattern: &str| Cmd::new("rg --json", &["rg", "--json", "--no-config", "-e", pattern], &kernel);
    let csearch =
        |pattern: &str| Cmd::new("csearch -n", &["csearch", "-n", pattern], &kernel).env("CSEARCHINDEX", &csearch_s);
    run_once(&keeper(SELECTIVE[0]))?;
    for pattern in SELECTIVE {
        let cold = Cmd::new("llm-search --json, no index", &[&ours_s, "--json", "-e", pattern], &kernel)
            .env("AIDE_HOME", &home_s)
            .env("AIDE_INDEX", "off");
        cases.push(case(
            &format!("kernel: selective `{pattern}`, repeated"),
            vec![keeper(pattern), rg(pattern), csearch(pattern), cold],
            runs,
            warmup,
        )?);
    }
    cases.push(through_mcp(&aide, &kernel, runs, warmup)?);
    cases.push(case(
        &format!("kernel: match-heavy `{MATCH_HEAVY}`"),
        vec![keeper(MATCH_HEAVY), rg(MATCH_HEAVY), csearch(MATCH_HEAVY)],
        runs.min(5),
        1,
    )?);
    cases.push(after_edit(&kernel, &keeper(SELECTIVE[0]), &rg(SELECTIVE[0]), runs)?);
    stop_keepers(&home);

    cases.extend(small_tree_anchors(runs, warmup)?);
    write_report(&Report::new("index", runs, warmup, &kernel, cases))
}

/// `csearch` has no `--version`: it is there when it prints its usage.
fn require_program(program: &str, install: &str) -> Result<()> {
    match Command::new(program).arg("-h").output() {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("`{program}` is needed for this benchmark: {install}")),
    }
}

/// The index built from nothing: our keeper's first search (a walk, the
/// index, a second walk for what changed meanwhile, the search), against
/// `cindex` writing its index afresh; each one's size beside its time.
fn build(ours: &Path, kernel: &Path, csearch_index: &Path, runs: usize) -> Result<Case> {
    say("bench: kernel: the index built from nothing");
    let ours_s = ours.display().to_string();
    let (mut ours_times, mut cindex_times) = (Vec::new(), Vec::new());
    let (mut ours_peak, mut cindex_peak) = (0, 0);
    let (mut memory, mut files) = (0u64, 0u64);
    for _ in 0..runs {
        let home = fresh_home("index-build")?;
        let first = Cmd::new("llm-search (keeper's first search)", &[&ours_s, "--json", "-e", SELECTIVE[0]], kernel)
            .env("AIDE_HOME", &home.display().to_string())
            .env("AIDE_INDEX", "always");
        let (t, _, code) = run_once(&first)?;
        if code > 1 {
            return Err(format!("llm-search exited {code}"));
        }
        ours_times.push(t.as_secs_f64() * 1000.0);
        let (held_memory, held_files, keeper_pid) = held(&home)?;
        (memory, files) = (held_memory, held_files);
        ours_peak = ours_peak.max(peak_rss_kib(keeper_pid));
        stop_keepers(&home);

        let _ = std::fs::remove_file(csearch_index);
        let cindex = Cmd::new("cindex (afresh)", &["cindex", &kernel.display().to_string()], kernel)
            .env("CSEARCHINDEX", &csearch_index.display().to_string());
        let (t, rss, code) = run_once(&cindex)?;
        if code != 0 {
            return Err(format!("cindex exited {code}"));
        }
        cindex_times.push(t.as_secs_f64() * 1000.0);
        cindex_peak = cindex_peak.max(rss);
    }
    let cindex_bytes = std::fs::metadata(csearch_index).map_err(|e| e.to_string())?.len();
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let ours_label = "llm-search: keeper's first search, index built";
    let mut built = case_of(
        "kernel: the index built from nothing",
        vec![
            measured(ours_label, "AIDE_INDEX=always llm-search -e CONFIG_SLUB_DEBUG_ON", ours_times, ours_peak),
            measured("cindex", "cindex <kernel>", cindex_times, cindex_peak),
        ],
    );
    built.notes.push((
        ours_label.into(),
        format!(
            "{files} files; index {:.0} MiB in memory ({:.2}× cindex's file)",
            mib(memory),
            memory as f64 / cindex_bytes as f64
        ),
    ));
    built.notes.push(("cindex".into(), format!("index file {:.0} MiB", mib(cindex_bytes))));
    Ok(built)
}

/// The memory and files of the index the keeper under `home` holds, and its pid.
fn held(home: &Path) -> Result<(u64, u64, u32)> {
    for entry in std::fs::read_dir(home.join("indexes")).map_err(|e| format!("no index status: {e}"))?.flatten() {
        let Some(pid) = entry.path().file_stem().and_then(|s| s.to_str()).and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let held: serde_json::Value = serde_json::from_slice(&std::fs::read(entry.path()).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        if let Some(index) = held.as_array().and_then(|a| a.iter().find(|h| h["state"] == "ready")) {
            return Ok((index["memory_bytes"].as_u64().unwrap_or(0), index["files"].as_u64().unwrap_or(0), pid));
        }
    }
    Err(format!("no ready index under {}", home.display()))
}

/// Ends the keepers started under `home` (TERM, then waits for them to go).
fn stop_keepers(home: &Path) {
    for entry in std::fs::read_dir(home.join("search")).into_iter().flatten().flatten() {
        let pid =
            std::fs::read_to_string(entry.path().join("keeper.pid")).ok().and_then(|p| p.trim().parse::<i32>().ok());
        if let Some(pid) = pid {
            // SAFETY: kill has no memory preconditions; the pid is the keeper's own.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let until = Instant::now() + std::time::Duration::from_secs(10);
            while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    }
}

/// A selective search through `aide mcp` (`AIDE_INDEX=always`): the
/// server's first call builds the index, the next ones are timed.
fn through_mcp(aide: &Path, kernel: &Path, runs: usize, warmup: usize) -> Result<Case> {
    say("bench: kernel: through aide mcp");
    let home = fresh_home("index-mcp")?;
    let always = Path::new("always");
    let mut client =
        McpClient::start_with_env(aide, kernel, &home, &[], &[("AIDE_INDEX", always)]).handshake(json!({}));
    let arguments = json!({ "pattern": SELECTIVE[0] });
    let first = timed_call(&mut client, "search", arguments.clone())?;
    let mut times = Vec::new();
    for round in 0..warmup + runs {
        let t = timed_call(&mut client, "search", arguments.clone())?;
        if round >= warmup {
            times.push(t);
        }
    }
    let peak = peak_rss_kib(client.pid());
    drop(client);
    let label = "aide mcp search (index in the server)";
    let mut c = case_of(
        &format!("kernel: selective `{}` through aide mcp, repeated", SELECTIVE[0]),
        vec![measured(label, &format!("search {arguments}"), times, peak)],
    );
    c.notes.push((label.into(), format!("first call, index built: {first:.0} ms")));
    Ok(c)
}

/// Restores the edited file however the benchmark ends.
struct Restore {
    path: PathBuf,
    original: Vec<u8>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.path, &self.original);
    }
}

/// The first search after an edit: each round appends a line to
/// [`EDITED`], then times our search (its index re-reads the file) and rg.
fn after_edit(kernel: &Path, ours: &Cmd, rg: &Cmd, runs: usize) -> Result<Case> {
    say("bench: kernel: the first search after an edit");
    let path = kernel.join(EDITED);
    let restore = Restore { original: std::fs::read(&path).map_err(|e| e.to_string())?, path };
    let (mut ours_times, mut rg_times) = (Vec::new(), Vec::new());
    for round in 0..runs.max(5) {
        let mut edited = restore.original.clone();
        edited.extend_from_slice(format!("/* edit {round}: CONFIG_SLUB_DEBUG_ON */\n").as_bytes());
        std::fs::write(&restore.path, &edited).map_err(|e| e.to_string())?;
        let (t, _, _) = run_once(ours)?;
        ours_times.push(t.as_secs_f64() * 1000.0);
        let (t, _, _) = run_once(rg)?;
        rg_times.push(t.as_secs_f64() * 1000.0);
    }
    drop(restore);
    Ok(case_of(
        &format!("kernel: the first search after an edit of {EDITED}"),
        vec![
            measured(&ours.label, &ours.argv.join(" "), ours_times, 0),
            measured(&rg.label, &rg.argv.join(" "), rg_times, 0),
        ],
    ))
}

/// The small-tree anchors, measured in the same run as the kernel's.
fn small_tree_anchors(runs: usize, warmup: usize) -> Result<Vec<Case>> {
    let corpus = crate::corpus::build(false)?;
    let search = release_binary("llm-search", "llm-search")?.display().to_string();
    let home = fresh_home("index-anchors")?;
    let home_s = home.display().to_string();
    let mut cases = vec![case(
        "small-tree anchor: match-heavy `--json -w unsafe` (corpus)",
        vec![
            Cmd::new("llm-search --json", &[&search, "--json", "-w", "-e", "unsafe"], &corpus)
                .env("AIDE_HOME", &home_s),
            Cmd::new("rg --json", &["rg", "--json", "--no-config", "-w", "-e", "unsafe"], &corpus),
        ],
        runs,
        warmup,
    )?];
    cases.push(super::ast::outline_case(&corpus, &home_s, runs, warmup)?);
    cases.push(super::shell::exec_case(&home, runs, warmup)?);
    Ok(cases)
}
