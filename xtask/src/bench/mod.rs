//! Benchmarks against the anchor tools, measured in one run: every command is
//! run interleaved with the others (so drift in machine load hits all of them
//! alike), wall time and peak RSS are taken per run (wait4), and the medians
//! are compared as ratios (ours / anchor; below 1.0 is faster).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{Result, say, workspace};

// One module per tool; the harness (measuring, the report) is here.
mod ast;
mod discover;
mod git;
mod index;
mod jobs;
mod lint;
mod log;
mod lsp;
mod mcp;
mod mcp_bytes;
mod refactor;
mod search;
mod shell;
mod startup;
mod transform;

use search::Verification;

#[derive(Debug, Clone)]
struct Cmd {
    label: String,
    argv: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
}

impl Cmd {
    fn new(label: &str, argv: &[&str], cwd: &Path) -> Cmd {
        Cmd {
            label: label.into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: cwd.to_path_buf(),
            env: Vec::new(),
        }
    }

    fn env(mut self, k: &str, v: &str) -> Cmd {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Spawns the command, stdin and stderr null, stdout as given.
    fn spawn(&self, stdout: Stdio) -> Result<std::process::Child> {
        let mut command = Command::new(&self.argv[0]);
        // Worked out once: spawning is inside the time measured.
        static UNDONE: std::sync::OnceLock<Vec<(String, Option<String>)>> = std::sync::OnceLock::new();
        for (key, value) in UNDONE.get_or_init(cargo_run_environment) {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command
            .args(&self.argv[1..])
            .current_dir(&self.cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", self.argv[0]))
    }
}

/// What `cargo xtask` (a `cargo run`) adds to the environment, undone for
/// the commands measured, which run as a user's shell runs them: cargo's
/// `CARGO_*` variables removed, and `LD_LIBRARY_PATH` without the folders
/// cargo put first (the build's and the toolchain's), the dynamic loader
/// otherwise trying each of them for every library of every dynamically
/// linked tool (ours, rg) and of none that is linked statically (csearch).
fn cargo_run_environment() -> Vec<(String, Option<String>)> {
    let target = workspace().join("target");
    let toolchains = std::env::var("RUSTUP_HOME").map(|h| PathBuf::from(h).join("toolchains")).ok();
    let mut changes: Vec<(String, Option<String>)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("CARGO_") && k != "CARGO_HOME" || k == "CARGO")
        .map(|(k, _)| (k, None))
        .collect();
    if let Ok(paths) = std::env::var("LD_LIBRARY_PATH") {
        let users: Vec<&str> = paths
            .split(':')
            .filter(|p| {
                let p = Path::new(p);
                !p.starts_with(&target) && toolchains.as_ref().is_none_or(|t| !p.starts_with(t))
            })
            .collect();
        let value = (!users.is_empty()).then(|| users.join(":"));
        changes.push(("LD_LIBRARY_PATH".into(), value));
    }
    changes
}

#[derive(Debug, Serialize)]
struct Measured {
    label: String,
    command: String,
    median_ms: f64,
    /// The 95th percentile: what a caller waits for once in twenty runs.
    p95_ms: f64,
    mean_ms: f64,
    min_ms: f64,
    max_ms: f64,
    peak_rss_mib: f64,
    exit_codes: Vec<i32>,
}

/// One run: wall time, peak RSS in KiB, exit code.
fn run_once(cmd: &Cmd) -> Result<(Duration, i64, i32)> {
    let start = Instant::now();
    let child = cmd.spawn(Stdio::null())?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped; the pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    if r < 0 {
        return Err(format!("wait4 failed for {}", cmd.label));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    Ok((elapsed, usage.ru_maxrss, code))
}

/// Runs every command `warmup + runs` times, interleaved.
fn measure(cmds: &[Cmd], runs: usize, warmup: usize) -> Result<Vec<Measured>> {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cmds.len()];
    let mut rss: Vec<i64> = vec![0; cmds.len()];
    let mut codes: Vec<Vec<i32>> = vec![Vec::new(); cmds.len()];
    // On a terminal, a progress line past the first second (the tools' own).
    let line = aide_core::progress::ProgressLine::new("xtask bench");
    let progress = line.sink();
    let total = ((warmup + runs) * cmds.len()) as u64;
    let mut done = 0;
    for round in 0..warmup + runs {
        for (i, c) in cmds.iter().enumerate() {
            let (t, r, code) = run_once(c)?;
            done += 1;
            progress.report(aide_core::tool::Progress { done, total: Some(total) });
            if round >= warmup {
                times[i].push(t.as_secs_f64() * 1000.0);
                rss[i] = rss[i].max(r);
                if !codes[i].contains(&code) {
                    codes[i].push(code);
                }
            }
        }
    }
    Ok(summarize(cmds, times, rss, codes))
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Measures `tool` and compares with the recorded figures, without
/// rewriting them: an error on a large regression.
pub(crate) fn check(tool: &str, runs: usize, warmup: usize) -> Result<()> {
    match tool {
        "startup" => startup::check(runs, warmup),
        other => Err(format!("no regression check for `{other}` (available: startup)")),
    }
}

/// Every benchmark, by the name `cargo xtask bench NAME` takes (the README
/// lists the same names; a test holds them equal).
/// A benchmark: timed runs and warm-up runs per command.
type Bench = fn(usize, usize) -> Result<()>;

pub(crate) const BENCHES: &[(&str, Bench)] = &[
    ("search", search::bench),
    ("index", index::bench),
    ("discover", discover::bench),
    ("jobs", jobs::bench),
    ("shell", shell::bench),
    ("lint", lint::bench),
    ("git", git::bench),
    ("lsp", lsp::bench),
    ("ast", ast::bench),
    ("transform", transform::bench),
    ("mcp", mcp::bench),
    ("mcp-bytes", |_, _| mcp_bytes::bench()),
    ("refactor", refactor::bench),
    ("log", log::bench),
    ("startup", startup::bench),
];

pub(crate) fn run(tool: &str, runs: usize, warmup: usize) -> Result<()> {
    match BENCHES.iter().find(|(name, _)| *name == tool) {
        Some((_, bench)) => bench(runs, warmup),
        None => {
            let names: Vec<&str> = BENCHES.iter().map(|(name, _)| *name).collect();
            Err(format!("no benchmark for `{tool}` yet (available: {})", names.join(", ")))
        }
    }
}

/// An anchor tool: `program` on PATH, else `local` (installed there by
/// `install` on first use).
fn anchor(program: &str, local: &Path, install: impl FnOnce() -> Result<()>) -> Result<String> {
    let ok = |p: &str| Command::new(p).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if ok(program) {
        return Ok(program.into());
    }
    let local = local.display().to_string();
    if !ok(&local) {
        install()?;
    }
    if ok(&local) { Ok(local) } else { Err(format!("could not install {program}")) }
}

fn require(program: &str, install: &str) -> Result<()> {
    let ok = Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if ok { Ok(()) } else { Err(format!("`{program}` is needed for this benchmark: {install}")) }
}

/// An empty `AIDE_HOME` for one benchmark (`target/bench/<name>/aide-home`):
/// the execution log and undo data of earlier runs weigh on no measurement.
fn fresh_home(name: &str) -> Result<PathBuf> {
    let home = workspace().join("target/bench").join(name).join("aide-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    Ok(home)
}

/// A fresh 10-file Rust tree at `target/bench/<name>`, for start-up cases:
/// each file holds `fn fN() {}` and `struct SN;`.
fn small_tree(name: &str) -> Result<PathBuf> {
    let tree = workspace().join("target/bench").join(name);
    let _ = std::fs::remove_dir_all(&tree);
    std::fs::create_dir_all(&tree).map_err(|e| e.to_string())?;
    for i in 0..10 {
        std::fs::write(tree.join(format!("f{i}.rs")), format!("fn f{i}() {{}}\nstruct S{i};\n"))
            .map_err(|e| e.to_string())?;
    }
    Ok(tree)
}

/// The release build of `package`'s binary `bin`. Every tool's binaries
/// are built together, once per xtask run: built one package at a time,
/// each would unify the workspace's features its own way and rebuild the
/// shared crates (about ten minutes a benchmark on 2 cores).
fn release_binary(package: &str, bin: &str) -> Result<PathBuf> {
    static BUILT: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let words = [
                "build",
                "--release",
                "--quiet",
                "--workspace",
                "--bins",
                "--exclude",
                "xtask",
                "--exclude",
                "aide-tests",
            ];
            crate::run(&cargo, &words)
        })
        .clone()
        .map_err(|e| format!("building {package}'s release binaries: {e}"))?;
    Ok(workspace().join("target/release").join(bin))
}

#[derive(Debug, Serialize)]
pub(super) struct Case {
    pub(super) name: String,
    /// For discovery: our first result and fzf's.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_results: Option<FirstResults>,
    /// Whether our match set equals ripgrep's, checked before timing.
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<Verification>,
    /// A measure beside the time, per command label (the "check" column).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) notes: Vec<(String, String)>,
    results: Vec<Measured>,
    /// ours median / anchor median, per anchor label.
    ratios: Vec<(String, f64)>,
}

#[derive(Debug, Serialize)]
struct Report {
    tool: String,
    date: String,
    cores: usize,
    runs: usize,
    warmup: usize,
    corpus: CorpusInfo,
    cases: Vec<Case>,
}

impl Report {
    fn new(tool: &str, runs: usize, warmup: usize, corpus: &Path, cases: Vec<Case>) -> Report {
        Report {
            tool: tool.into(),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            runs,
            warmup,
            corpus: corpus_info(corpus),
            cases,
        }
    }
}

#[derive(Debug, Serialize)]
struct CorpusInfo {
    path: String,
    files: usize,
    bytes: u64,
}

fn corpus_info(root: &Path) -> CorpusInfo {
    let mut files = 0;
    let mut bytes = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                files += 1;
                bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    let shown = root.strip_prefix(workspace()).unwrap_or(root).display().to_string();
    CorpusInfo { path: shown, files, bytes }
}

fn case(name: &str, cmds: Vec<Cmd>, runs: usize, warmup: usize) -> Result<Case> {
    say(&format!("bench: {name}"));
    let results = measure(&cmds, runs, warmup)?;
    let ours = results[0].median_ms;
    let ratios = results[1..].iter().map(|r| (r.label.clone(), round3(ours / r.median_ms.max(1e-9)))).collect();
    for r in &results {
        say(&format!("  {:<28} median {:>9.2} ms  peak {:>7.1} MiB", r.label, r.median_ms, r.peak_rss_mib));
    }
    Ok(Case { name: name.into(), first_results: None, verified: None, notes: Vec::new(), results, ratios })
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn write_report(report: &Report) -> Result<()> {
    let out_dir = workspace().join("target/bench");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    let path = out_dir.join(format!("{}.json", report.tool));
    std::fs::write(&path, json).map_err(|e| e.to_string())?;
    say(&format!("wrote {}", path.display()));

    let mut md = format!(
        "Measured {} on {} cores; corpus: {} files, {:.0} MiB; {} timed runs after {} warm-up runs, interleaved.\n\
         Reproduce: `cargo xtask bench {}`.\n\n\
         | case | check | command | median ms | peak RSS MiB | ratio (ours / this) |\n|---|---|---|---:|---:|---:|\n",
        report.date,
        report.cores,
        report.corpus.files,
        report.corpus.bytes as f64 / (1 << 20) as f64,
        report.runs,
        report.warmup,
        report.tool
    );
    for c in &report.cases {
        for (i, r) in c.results.iter().enumerate() {
            let ratio = if i == 0 {
                String::from("—")
            } else {
                c.ratios.iter().find(|(l, _)| *l == r.label).map(|(_, x)| format!("{x:.2}")).unwrap_or_default()
            };
            let name = if i == 0 { c.name.as_str() } else { "" };
            let note = c.notes.iter().find(|(l, _)| *l == r.label).map(|(_, n)| n.clone());
            let check = match (&c.verified, &c.first_results, i) {
                _ if note.is_some() => note.unwrap_or_default(),
                // The log's targets are on the tail as well as the median.
                _ if report.tool == "log" => format!("p95 {:.2} ms", r.p95_ms),
                (Some(v), _, 0) if v.agrees => format!("same matches as rg ({})", v.matches),
                (Some(v), _, 0) => format!("DIFFERS from rg ({} only ours, {} only rg)", v.only_ours, v.only_rg),
                (_, Some(f), 0) if f.agree => format!("same first result as fzf: `{}`", f.ours),
                (_, Some(f), 0) => format!("first: ours `{}`, fzf `{}`", f.ours, f.fzf),
                _ => String::new(),
            };
            md.push_str(&format!(
                "| {} | {} | `{}` | {:.2} | {:.1} | {ratio} |\n",
                cell(name),
                cell(&check),
                cell(&r.label),
                r.median_ms,
                r.peak_rss_mib
            ));
        }
    }
    replace_block(&report.tool, &md)?;
    say(&format!("updated {}", workspace().join("docs/BENCHMARKS.md").display()));
    Ok(())
}

/// Puts `md` between `tool`'s markers in docs/BENCHMARKS.md (a new
/// section at the end when they are not there yet).
fn replace_block(tool: &str, md: &str) -> Result<()> {
    let doc_path = workspace().join("docs/BENCHMARKS.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|_| "# Benchmarks\n".into());
    let start = format!("<!-- bench:{tool}:start -->");
    let end = format!("<!-- bench:{tool}:end -->");
    let block = format!("{start}\n{md}{end}");
    let updated = match (doc.find(&start), doc.find(&end)) {
        (Some(s), Some(e)) if e > s => format!("{}{}{}", &doc[..s], block, &doc[e + end.len()..]),
        _ => format!("{doc}\n## {tool}\n\n{block}\n"),
    };
    std::fs::write(&doc_path, updated).map_err(|e| e.to_string())
}

/// Our first result and fzf's for one query.
#[derive(Debug, Serialize)]
struct FirstResults {
    ours: String,
    fzf: String,
    agree: bool,
}

/// Median milliseconds from spawning `cmd` to the first line of its
/// stdout, and to its end, over `runs` runs.
fn first_line_ms(cmd: &Cmd, runs: usize) -> Result<(f64, f64)> {
    use std::io::{BufRead, BufReader, Read};
    let mut first = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut child = cmd.spawn(Stdio::piped())?;
        let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut line = Vec::new();
        out.read_until(b'\n', &mut line).map_err(|e| e.to_string())?;
        first.push(start.elapsed().as_secs_f64() * 1000.0);
        std::io::copy(&mut out.by_ref(), &mut std::io::sink()).map_err(|e| e.to_string())?;
        child.wait().map_err(|e| e.to_string())?;
        whole.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok((round3(median(&mut first)), round3(median(&mut whole))))
}

fn output_of(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn summarize(cmds: &[Cmd], times: Vec<Vec<f64>>, rss: Vec<i64>, codes: Vec<Vec<i32>>) -> Vec<Measured> {
    cmds.iter()
        .enumerate()
        .map(|(i, c)| {
            let mut t = times[i].clone();
            t.sort_by(f64::total_cmp);
            let median = if t.is_empty() {
                0.0
            } else if t.len() % 2 == 1 {
                t[t.len() / 2]
            } else {
                (t[t.len() / 2 - 1] + t[t.len() / 2]) / 2.0
            };
            Measured {
                label: c.label.clone(),
                command: c.argv.join(" "),
                median_ms: round3(median),
                p95_ms: round3(t.get((t.len() * 95 / 100).min(t.len().saturating_sub(1))).copied().unwrap_or(0.0)),
                mean_ms: round3(t.iter().sum::<f64>() / t.len().max(1) as f64),
                min_ms: round3(t.first().copied().unwrap_or(0.0)),
                max_ms: round3(t.last().copied().unwrap_or(0.0)),
                peak_rss_mib: round3(rss[i] as f64 / 1024.0),
                exit_codes: codes[i].clone(),
            }
        })
        .collect()
}

fn case_of(name: &str, results: Vec<Measured>) -> Case {
    let ours = results[0].median_ms;
    let ratios = results[1..].iter().map(|r| (r.label.clone(), round3(ours / r.median_ms.max(1e-9)))).collect();
    for r in &results {
        say(&format!("  {:<40} median {:>9.2} ms  peak {:>7.1} MiB", r.label, r.median_ms, r.peak_rss_mib));
    }
    Case { name: name.into(), first_results: None, verified: None, notes: Vec::new(), results, ratios }
}

#[cfg(test)]
mod tests {
    /// The README's development section names every benchmark, and only those.
    #[test]
    fn the_readme_lists_every_benchmark() {
        let readme = std::fs::read_to_string(super::workspace().join("README.md")).unwrap();
        let line = readme.lines().find(|l| l.starts_with("* `cargo xtask bench ") && l.contains('|')).unwrap();
        let listed = line.trim_start_matches("* `cargo xtask bench ").split('`').next().unwrap();
        let mut listed: Vec<&str> = listed.split('|').collect();
        let mut benches: Vec<&str> = super::BENCHES.iter().map(|(name, _)| *name).collect();
        listed.sort_unstable();
        benches.sort_unstable();
        assert_eq!(listed, benches, "README.md's `cargo xtask bench` line");
    }
}
