//! Benchmarks against the anchor tools, measured in one run: every command is
//! run interleaved with the others (so drift in machine load hits all of them
//! alike), wall time and peak RSS are taken per run (wait4), and the medians
//! are compared as ratios (ours / anchor; below 1.0 is faster).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{Result, say, workspace};

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
}

#[derive(Debug, Serialize)]
struct Measured {
    label: String,
    command: String,
    median_ms: f64,
    mean_ms: f64,
    min_ms: f64,
    max_ms: f64,
    peak_rss_mib: f64,
    exit_codes: Vec<i32>,
}

/// One run: wall time, peak RSS in KiB, exit code.
fn run_once(cmd: &Cmd) -> Result<(Duration, i64, i32)> {
    let start = Instant::now();
    let child = Command::new(&cmd.argv[0])
        .args(&cmd.argv[1..])
        .current_dir(&cmd.cwd)
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", cmd.argv[0]))?;
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
    for round in 0..warmup + runs {
        for (i, c) in cmds.iter().enumerate() {
            let (t, r, code) = run_once(c)?;
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

pub fn run(tool: &str, runs: usize, warmup: usize) -> Result<()> {
    match tool {
        "search" => bench_search(runs, warmup),
        "discover" => bench_discover(runs, warmup),
        "jobs" => bench_jobs(runs, warmup),
        "shell" => bench_shell(runs, warmup),
        "ast" => bench_ast(runs, warmup),
        "transform" => bench_transform(runs, warmup),
        other => {
            Err(format!("no benchmark for `{other}` yet (available: search, discover, jobs, shell, ast, transform)"))
        }
    }
}

fn require(program: &str, install: &str) -> Result<()> {
    let ok = Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if ok { Ok(()) } else { Err(format!("`{program}` is needed for this benchmark: {install}")) }
}

fn release_binary(package: &str, bin: &str) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    crate::run(&cargo, &["build", "--release", "--quiet", "-p", package])?;
    Ok(workspace().join("target/release").join(bin))
}

#[derive(Debug, Serialize)]
struct Case {
    name: String,
    /// For discovery: our first result and fzf's.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_results: Option<FirstResults>,
    /// Whether our match set equals ripgrep's, checked before timing.
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<Verification>,
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
    CorpusInfo { path: "target/corpus".into(), files, bytes }
}

/// The outcome of comparing our (path, line, byte_start, byte_end) set with rg's.
#[derive(Debug, Serialize)]
struct Verification {
    agrees: bool,
    matches: usize,
    only_ours: usize,
    only_rg: usize,
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

fn case(name: &str, cmds: Vec<Cmd>, runs: usize, warmup: usize) -> Result<Case> {
    say(&format!("bench: {name}"));
    let results = measure(&cmds, runs, warmup)?;
    let ours = results[0].median_ms;
    let ratios = results[1..].iter().map(|r| (r.label.clone(), round3(ours / r.median_ms.max(1e-9)))).collect();
    for r in &results {
        say(&format!("  {:<28} median {:>9.2} ms  peak {:>7.1} MiB", r.label, r.median_ms, r.peak_rss_mib));
    }
    Ok(Case { name: name.into(), first_results: None, verified: None, results, ratios })
}

fn bench_search(runs: usize, warmup: usize) -> Result<()> {
    require("rg", "apt-get install ripgrep")?;
    let ours = release_binary("llm-search", "llm-search")?;
    let corpus = crate::corpus::build(false)?;
    let home = workspace().join("target/bench/aide-home");
    let _ = std::fs::remove_dir_all(&home);
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
            ],
            runs,
            warmup,
        )?);
    }

    // Start-up: a 10-file tree, logging included.
    let small = workspace().join("target/bench/small-tree");
    let _ = std::fs::remove_dir_all(&small);
    std::fs::create_dir_all(&small).map_err(|e| e.to_string())?;
    for i in 0..10 {
        std::fs::write(small.join(format!("f{i}.rs")), format!("fn f{i}() {{}}\nstruct S{i};\n"))
            .map_err(|e| e.to_string())?;
    }
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
            let check = match (&c.verified, &c.first_results, i) {
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
    let doc_path = workspace().join("docs/BENCHMARKS.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|_| "# Benchmarks\n".into());
    let start = format!("<!-- bench:{}:start -->", report.tool);
    let end = format!("<!-- bench:{}:end -->", report.tool);
    let block = format!("{start}\n{md}{end}");
    let updated = match (doc.find(&start), doc.find(&end)) {
        (Some(s), Some(e)) if e > s => format!("{}{}{}", &doc[..s], block, &doc[e + end.len()..]),
        _ => format!("{doc}\n## {}\n\n{block}\n", report.tool),
    };
    std::fs::write(&doc_path, updated).map_err(|e| e.to_string())?;
    say(&format!("updated {}", doc_path.display()));
    Ok(())
}

/// Our first result and fzf's for one query.
#[derive(Debug, Serialize)]
struct FirstResults {
    ours: String,
    fzf: String,
    agree: bool,
}

fn first_line(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string())
}

/// Writes a deterministic tree of `n` empty files with realistic names.
fn generated_tree(dir: &Path, n: usize) -> Result<()> {
    const WORDS: &[&str] = &[
        "agent", "api", "auth", "buffer", "cache", "client", "config", "core", "data", "db", "engine", "event",
        "handler", "http", "index", "io", "lexer", "main", "model", "net", "parser", "query", "render", "router",
        "server", "service", "session", "store", "stream", "task", "test", "token", "util", "vector", "view", "worker",
    ];
    const EXT: &[&str] = &["rs", "py", "ts", "tsx", "go", "java", "c", "h", "md", "json"];
    let done = dir.join(".complete");
    if done.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    for i in 0..n {
        let depth = 1 + next(4);
        let mut p = dir.to_path_buf();
        for _ in 0..depth {
            p.push(WORDS[next(WORDS.len())]);
        }
        std::fs::create_dir_all(&p).map_err(|e| e.to_string())?;
        let name = format!("{}_{}_{i}.{}", WORDS[next(WORDS.len())], WORDS[next(WORDS.len())], EXT[next(EXT.len())]);
        std::fs::write(p.join(name), "").map_err(|e| e.to_string())?;
    }
    std::fs::write(done, "").map_err(|e| e.to_string())
}

fn bench_discover(runs: usize, warmup: usize) -> Result<()> {
    require("fdfind", "apt-get install fd-find")?;
    require("fzf", "apt-get install fzf")?;
    let ours = release_binary("llm-discover", "llm-discover")?;
    let corpus = crate::corpus::build(false)?;
    let generated = workspace().join("target/bench/discover-200k");
    say("generating 200,000 paths (once)");
    generated_tree(&generated, 200_000)?;
    let home = workspace().join("target/bench/aide-home-discover");
    let _ = std::fs::remove_dir_all(&home);
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();

    let sets: &[(&str, &Path, &[&str])] = &[
        (
            "corpus",
            &corpus,
            &[
                "mod.rs",
                "serde_json lib",
                "django views",
                "tokio runtime",
                "readme",
                "lodash.js",
                "express router",
                "Cargo.toml",
            ],
        ),
        ("200k paths", &generated, &["vector", "parser lexer", "agmod", "session_store", "handler.go", "rtr"]),
    ];
    let mut cases = Vec::new();
    for (set, dir, queries) in sets {
        for q in *queries {
            let fzf = format!("fdfind --type f . | fzf --filter '{q}' --scheme=path");
            let mut c = case(
                &format!("{set}: `{q}`"),
                vec![
                    Cmd::new("llm-discover --json", &[&ours_s, "--json", "--query", q], dir).env("AIDE_HOME", &home_s),
                    Cmd::new("fdfind | fzf --filter", &["bash", "-c", &fzf], dir),
                ],
                runs,
                warmup,
            )?;
            let ours_first =
                first_line(Command::new(&ours).args(["--no-log", "--limit", "1", "--query", q]).current_dir(dir))?;
            let ours_first = ours_first.split("  ").next().unwrap_or("").to_string();
            let fzf_first = first_line(Command::new("bash").args(["-c", &fzf]).current_dir(dir))?;
            say(&format!("  first: ours {ours_first} / fzf {fzf_first}"));
            c.first_results = Some(FirstResults { agree: ours_first == fzf_first, ours: ours_first, fzf: fzf_first });
            cases.push(c);
        }
    }
    write_report(&Report::new("discover", runs, warmup, &corpus, cases))
}

/// A pueue daemon of its own, in a temporary directory, for the jobs benchmark.
struct Pueue {
    config: PathBuf,
    daemon: std::process::Child,
}

impl Pueue {
    fn start(dir: &Path) -> Result<Pueue> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let config = dir.join("pueue.yml");
        let d = dir.display();
        std::fs::write(
            &config,
            format!(
                "shared:\n  pueue_directory: {d}\n  runtime_directory: {d}\n  use_unix_socket: true\n  unix_socket_path: {d}/pueue.socket\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let daemon = Command::new("pueued")
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting pueued: {e}"))?;
        let p = Pueue { config, daemon };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !p.cmd(&["status"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success()) {
            if Instant::now() > deadline {
                return Err("pueued did not come up".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Let every task run at once, as llm-jobs does by default.
        let _ = p.cmd(&["parallel", "0"]).stdout(Stdio::null()).status();
        Ok(p)
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("pueue");
        c.arg("--config").arg(&self.config).args(args);
        c
    }
}

impl Drop for Pueue {
    fn drop(&mut self) {
        let _ = self.cmd(&["shutdown"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// Median delay (ms) between a job's last command and `wait` returning,
/// over `runs` jobs. `start` spawns the job and returns its id; `wait` waits for it.
fn end_to_wait_delay(
    runs: usize,
    end_file: &Path,
    start: &dyn Fn(&str) -> Result<String>,
    wait: &dyn Fn(&str) -> Result<()>,
) -> Result<f64> {
    let mut delays = Vec::new();
    for _ in 0..runs {
        let _ = std::fs::remove_file(end_file);
        let id = start(&format!("sleep 0.3; date +%s%N > '{}'", end_file.display()))?;
        wait(&id)?;
        let returned = now_ns();
        let ended: i128 = std::fs::read_to_string(end_file)
            .map_err(|e| format!("job end marker: {e}"))?
            .trim()
            .parse()
            .map_err(|e| format!("job end marker: {e}"))?;
        delays.push((returned - ended) as f64 / 1e6);
    }
    delays.sort_by(f64::total_cmp);
    Ok(round3(delays[delays.len() / 2]))
}

fn output_of(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn bench_jobs(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-jobs", "llm-jobs")?;
    let dir = workspace().join("target/bench/jobs");
    let home = dir.join("aide-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let pueue = match Pueue::start(&dir.join("pueue")) {
        Ok(p) => Some(p),
        Err(e) => {
            say(&format!("pueue unavailable ({e}); install it with `cargo install pueue` to compare"));
            None
        }
    };

    let mut spawn_cmds =
        vec![Cmd::new("llm-jobs spawn", &[&ours_s, "--json", "spawn", "--", "true"], &dir).env("AIDE_HOME", &home_s)];
    if let Some(p) = &pueue {
        let config = p.config.display().to_string();
        spawn_cmds.push(Cmd::new("pueue add", &["pueue", "--config", &config, "add", "--", "true"], &dir));
    }
    let mut spawn_case = case("spawn latency: `true`", spawn_cmds, runs.max(20), warmup)?;

    let end_file = dir.join("ended");
    let ours_delay = end_to_wait_delay(
        runs,
        &end_file,
        &|cmd| {
            let out = output_of(Command::new(&ours).env("AIDE_HOME", &home).args(["--json", "spawn", "--", cmd]))?;
            let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
            Ok(v["job_id"].to_string())
        },
        &|id| output_of(Command::new(&ours).env("AIDE_HOME", &home).args(["wait", id])).map(|_| ()),
    )?;
    say(&format!("  end-to-wait delay: llm-jobs {ours_delay:.2} ms"));
    let mut delay_results = vec![Measured {
        label: "llm-jobs wait".into(),
        command: "llm-jobs spawn -- 'sleep 0.3; …' && llm-jobs wait ID".into(),
        median_ms: ours_delay,
        mean_ms: ours_delay,
        min_ms: ours_delay,
        max_ms: ours_delay,
        peak_rss_mib: 0.0,
        exit_codes: vec![0],
    }];
    let mut delay_ratios = Vec::new();
    if let Some(p) = &pueue {
        let pueue_delay = end_to_wait_delay(
            runs,
            &end_file,
            &|cmd| output_of(&mut p.cmd(&["add", "--print-task-id", "--", cmd])),
            &|id| output_of(&mut p.cmd(&["wait", id])).map(|_| ()),
        )?;
        say(&format!("  end-to-wait delay: pueue {pueue_delay:.2} ms"));
        delay_ratios.push(("pueue wait".to_string(), round3(ours_delay / pueue_delay.max(1e-9))));
        delay_results.push(Measured {
            label: "pueue wait".into(),
            command: "pueue add -- 'sleep 0.3; …' && pueue wait ID".into(),
            median_ms: pueue_delay,
            mean_ms: pueue_delay,
            min_ms: pueue_delay,
            max_ms: pueue_delay,
            peak_rss_mib: 0.0,
            exit_codes: vec![0],
        });
    }
    spawn_case.name = "spawn latency: `true` (the command's own wall time)".into();
    let delay_case = Case {
        name: "delay from a job's end to `wait` returning (median)".into(),
        first_results: None,
        verified: None,
        results: delay_results,
        ratios: delay_ratios,
    };
    drop(pueue);
    write_report(&Report::new("jobs", runs, warmup, &dir, vec![spawn_case, delay_case]))
}

fn bench_shell(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-shell", "llm-shell")?;
    let dir = workspace().join("target/bench/shell");
    let home = dir.join("aide-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
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

/// `ast-grep` (the npm package `@ast-grep/cli`): on PATH, or installed into
/// `target/anchors` on first use. Never `sg`, which is shadow's on Debian.
fn ast_grep() -> Result<String> {
    let ok = |p: &str| Command::new(p).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if ok("ast-grep") {
        return Ok("ast-grep".into());
    }
    let prefix = workspace().join("target/anchors");
    let local = prefix.join("node_modules/.bin/ast-grep").display().to_string();
    if !ok(&local) {
        crate::run("npm", &["install", "--silent", "--prefix", &prefix.display().to_string(), "@ast-grep/cli"])?;
    }
    if ok(&local) { Ok(local) } else { Err("could not install @ast-grep/cli with npm".into()) }
}

/// ctags' kinds that the recall check counts: functions, methods, classes,
/// structs, enums, traits and interfaces (Python's methods are `member`).
fn counted_ctags_kind(kind: &str, language: &str) -> bool {
    matches!(kind, "function" | "func" | "method" | "methodSpec" | "class" | "struct" | "enum" | "trait" | "interface")
        || (kind == "member" && language == "Python")
}

/// Our language of a path, by extension (as aide_core::Lang).
fn language_of(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1;
    Some(match ext {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "c" | "h" => "c",
        "cpp" | "cc" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "java" => "java",
        "go" => "go",
        _ => return None,
    })
}

#[derive(Debug, Serialize)]
struct Recall {
    language: String,
    ctags_symbols: usize,
    found: usize,
    recall_percent: f64,
    /// Misses that are ctags "functions" named in ALL_CAPS: top-level macro
    /// invocations (`CTL_RO_NL_GEN(…)`) that ctags reads as definitions.
    macro_like_misses: usize,
    /// Recall without those.
    recall_without_macro_like_percent: f64,
    missed_examples: Vec<String>,
}

/// A name in ALL_CAPS (with at least one letter), as macros are written.
fn all_caps(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_lowercase())
}

/// Recall of ctags' definitions by our symbol outline, per language: a ctags
/// tag counts as found when we have a symbol of the same name in the same
/// file whose line range contains the tag's line.
fn ctags_recall(ours: &Path, corpus: &Path) -> Result<Vec<Recall>> {
    use std::collections::{BTreeMap, HashMap};
    use std::io::BufRead;
    say("recall: running ctags");
    let ctags = Command::new("ctags")
        .args(["-R", "--output-format=json", "--fields=+nKl", "-f", "-"])
        .args(["--languages=C,C++,Go,Java,JavaScript,Python,Rust,TypeScript", "."])
        .current_dir(corpus)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("ctags: {e}"))?;
    say("recall: running llm-ast-search");
    let mut child = Command::new(ours)
        .args(["--jsonl", "--no-log"])
        .current_dir(corpus)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut symbols: HashMap<(String, String), Vec<(u64, u64)>> = HashMap::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| e.to_string())?;
        let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        if v["type"] != "symbol" {
            continue;
        }
        let (Some(path), Some(name)) = (v["path"].as_str(), v["name"].as_str()) else { continue };
        let range = (v["line"].as_u64().unwrap_or(0), v["end_line"].as_u64().unwrap_or(0));
        symbols.entry((path.to_string(), name.to_string())).or_default().push(range);
    }
    child.wait().map_err(|e| e.to_string())?;
    let mut per_language: BTreeMap<&str, (usize, usize, Vec<String>, usize)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&ctags.stdout).lines() {
        let Ok(tag) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(path), Some(name), Some(kind)) = (tag["path"].as_str(), tag["name"].as_str(), tag["kind"].as_str())
        else {
            continue;
        };
        let language = tag["language"].as_str().unwrap_or("");
        // ctags names anonymous things itself (`__anon…`, `AnonymousFunction…`): not definitions.
        if !counted_ctags_kind(kind, language)
            || ["__anon", "AnonymousFunction", "AnonymousClass"].iter().any(|p| name.starts_with(p))
        {
            continue;
        }
        // Binned by ctags' own language (a `.h` header is C or C++ by its content for both tools).
        let Some(ours_lang) = language_of(path).map(|by_ext| match language {
            "C++" => "cpp",
            "C" => "c",
            _ => by_ext,
        }) else {
            continue;
        };
        let line_no = tag["line"].as_u64().unwrap_or(0);
        let path = path.trim_start_matches("./").to_string();
        let entry = per_language.entry(ours_lang).or_default();
        entry.0 += 1;
        let found = symbols
            .get(&(path.clone(), name.to_string()))
            .is_some_and(|ranges| ranges.iter().any(|&(a, b)| a <= line_no && line_no <= b));
        if found {
            entry.1 += 1;
        } else {
            if matches!(kind, "function" | "func") && all_caps(name) {
                entry.3 += 1;
            }
            if entry.2.len() < 8 {
                entry.2.push(format!("{path}:{line_no} {kind} {name}"));
            }
        }
    }
    Ok(per_language
        .into_iter()
        .map(|(language, (total, found, missed, macro_like))| {
            let recall = round3(100.0 * found as f64 / total.max(1) as f64);
            let without = round3(100.0 * found as f64 / (total - macro_like).max(1) as f64);
            say(&format!(
                "  recall {language:<11} {found:>7} / {total:>7} = {recall:.2}% ({without:.2}% without {macro_like} macro-like)"
            ));
            Recall {
                language: language.into(),
                ctags_symbols: total,
                found,
                recall_percent: recall,
                macro_like_misses: macro_like,
                recall_without_macro_like_percent: without,
                missed_examples: missed,
            }
        })
        .collect())
}

#[derive(Debug, Serialize)]
struct OutlineSize {
    files: String,
    ours_symbols: usize,
    ast_grep_items: usize,
    ours_text_bytes: usize,
    ours_json_bytes: usize,
    ast_grep_text_bytes: usize,
    ast_grep_json_bytes: usize,
}

fn stdout_bytes(cmd: &mut Command) -> Result<Vec<u8>> {
    Ok(cmd.stderr(Stdio::null()).output().map_err(|e| e.to_string())?.stdout)
}

fn outline_size(ours: &Path, sg: &str, corpus: &Path, files: &str) -> Result<OutlineSize> {
    let ours_text = stdout_bytes(Command::new(ours).args(["--no-log", files]).current_dir(corpus))?;
    let ours_json = stdout_bytes(Command::new(ours).args(["--no-log", "--json", files]).current_dir(corpus))?;
    let sg_text = stdout_bytes(Command::new(sg).args(["outline", "--color", "never", files]).current_dir(corpus))?;
    let sg_json = stdout_bytes(Command::new(sg).args(["outline", "--json=compact", files]).current_dir(corpus))?;
    let ours_symbols =
        serde_json::from_slice::<serde_json::Value>(&ours_json).ok().and_then(|v| v["total"].as_u64()).unwrap_or(0)
            as usize;
    fn count(items: &serde_json::Value) -> usize {
        items.as_array().map_or(0, |a| a.iter().map(|i| 1 + count(&i["members"])).sum())
    }
    let ast_grep_items = serde_json::from_slice::<serde_json::Value>(&sg_json)
        .ok()
        .and_then(|v| v.as_array().map(|files| files.iter().map(|f| count(&f["items"])).sum()))
        .unwrap_or(0);
    let size = OutlineSize {
        files: files.into(),
        ours_symbols,
        ast_grep_items,
        ours_text_bytes: ours_text.len(),
        ours_json_bytes: ours_json.len(),
        ast_grep_text_bytes: sg_text.len(),
        ast_grep_json_bytes: sg_json.len(),
    };
    say(&format!("  outline {files}: {size:?}"));
    Ok(size)
}

fn bench_ast(runs: usize, warmup: usize) -> Result<()> {
    require("ctags", "apt-get install universal-ctags")?;
    let sg = ast_grep()?;
    let ours = release_binary("llm-ast-search", "llm-ast-search")?;
    let corpus = crate::corpus::build(false)?;
    let home = workspace().join("target/bench/aide-home");
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let crates = corpus.join("crates");

    let mut cases = Vec::new();
    let rule = "id: f\nlanguage: rust\nrule:\n  kind: function_item\n";
    cases.push(case(
        "Rust corpus: every function definition",
        vec![
            Cmd::new(
                "llm-ast-search --query (function_item) @f",
                &[&ours_s, "--json", "--language", "rust", "--query", "(function_item) @f"],
                &crates,
            )
            .env("AIDE_HOME", &home_s),
            Cmd::new(
                "ast-grep scan --inline-rules kind: function_item",
                &[&sg, "scan", "--inline-rules", rule, "--json=compact"],
                &crates,
            ),
        ],
        runs,
        warmup,
    )?);
    cases.push(case(
        "Rust corpus: every call `$X.unwrap()`",
        vec![
            Cmd::new(
                "llm-ast-search --query (method call unwrap)",
                &[
                    &ours_s,
                    "--json",
                    "--language",
                    "rust",
                    "--query",
                    "(call_expression function: (field_expression field: (field_identifier) @m) (#eq? @m \"unwrap\")) @call",
                ],
                &crates,
            )
            .env("AIDE_HOME", &home_s),
            Cmd::new("ast-grep run -p $X.unwrap()", &[&sg, "run", "--lang", "rust", "-p", "$X.unwrap()", "--json=compact"], &crates),
        ],
        runs,
        warmup,
    )?);
    cases.push(case(
        "Rust corpus: symbol outline",
        vec![
            Cmd::new("llm-ast-search --language rust (outline, text)", &[&ours_s, "--language", "rust"], &crates)
                .env("AIDE_HOME", &home_s),
            Cmd::new("ast-grep outline --lang rust", &[&sg, "outline", "--lang", "rust", "--color", "never"], &crates),
        ],
        runs.min(5),
        1,
    )?);
    let sizes = ["crates/serde_json-1.0.140", "python/flask-3.1.0-py3-none-any", "debian/go/net/http", "debian/java"]
        .iter()
        .filter(|f| corpus.join(f).exists())
        .map(|f| outline_size(&ours, &sg, &corpus, f))
        .collect::<Result<Vec<_>>>()?;
    let recall = ctags_recall(&ours, &corpus)?;
    let extra = serde_json::json!({ "ctags_recall": recall, "outline_sizes": sizes });
    std::fs::create_dir_all(workspace().join("target/bench")).map_err(|e| e.to_string())?;
    std::fs::write(
        workspace().join("target/bench/ast-extra.json"),
        serde_json::to_string_pretty(&extra).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    write_report(&Report::new("ast", runs, warmup, &corpus, cases))?;
    append_ast_tables(&recall, &sizes)
}

/// Adds the recall and outline-size tables inside the ast section.
fn append_ast_tables(recall: &[Recall], sizes: &[OutlineSize]) -> Result<()> {
    let mut md = String::from(
        "\nRecall of universal-ctags' functions, methods, classes, structs, enums, traits and interfaces:\n\n\
         | language | ctags symbols | found | recall | missed ALL_CAPS ctags \"functions\" (macro invocations) | recall without them |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in recall {
        md.push_str(&format!(
            "| {} | {} | {} | {:.2}% | {} | {:.2}% |\n",
            r.language,
            r.ctags_symbols,
            r.found,
            r.recall_percent,
            r.macro_like_misses,
            r.recall_without_macro_like_percent
        ));
    }
    md.push_str(
        "\nOutline size on the same files (bytes; ours lists every nested symbol, ast-grep top-level items and members):\n\n\
         | files | our symbols | ast-grep items | ours text | ours --json | ast-grep text | ast-grep --json=compact | ours text / ast-grep json | bytes per symbol: ours text, ours json, ast-grep json |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for s in sizes {
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {:.2} | {:.0}, {:.0}, {:.0} |\n",
            s.files,
            s.ours_symbols,
            s.ast_grep_items,
            s.ours_text_bytes,
            s.ours_json_bytes,
            s.ast_grep_text_bytes,
            s.ast_grep_json_bytes,
            s.ours_text_bytes as f64 / s.ast_grep_json_bytes.max(1) as f64,
            s.ours_text_bytes as f64 / s.ours_symbols.max(1) as f64,
            s.ours_json_bytes as f64 / s.ours_symbols.max(1) as f64,
            s.ast_grep_json_bytes as f64 / s.ast_grep_items.max(1) as f64
        ));
    }
    let doc_path = workspace().join("docs/BENCHMARKS.md");
    let doc = std::fs::read_to_string(&doc_path).map_err(|e| e.to_string())?;
    let end = "<!-- bench:ast:end -->";
    let updated = doc.replacen(end, &format!("{md}{end}"), 1);
    std::fs::write(&doc_path, updated).map_err(|e| e.to_string())
}

/// The transform benchmark's tree: `files` files with `per_file` lines
/// holding the token `needle_N` each, restored from `pristine` before every run.
struct EditTree {
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
}

impl EditTree {
    fn new(dir: &Path, files: usize, per_file: usize) -> Result<EditTree> {
        let _ = std::fs::remove_dir_all(dir);
        let mut out = Vec::new();
        for f in 0..files {
            let rel = format!("src/m{:02}/f{f:04}.rs", f % 50);
            let mut body = String::new();
            for l in 0..per_file {
                body.push_str(&format!("fn item_{l}() -> u32 {{ needle_{l}(1) + {f} }}\n"));
            }
            out.push((rel, body.into_bytes()));
        }
        let tree = EditTree { dir: dir.to_path_buf(), files: out };
        tree.restore()?;
        Ok(tree)
    }

    fn restore(&self) -> Result<()> {
        for (rel, body) in &self.files {
            let p = self.dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&p, body).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Span edits renaming every `needle_` to `pinned_`, with checksums.
    fn span_edits(&self) -> serde_json::Value {
        let mut edits = Vec::new();
        for (rel, body) in &self.files {
            let sum = aide_core::checksum::sha256_hex(body);
            let text = String::from_utf8_lossy(body);
            for (at, _) in text.match_indices("needle_") {
                edits.push(serde_json::json!({ "path": rel, "byte_start": at, "byte_end": at + 7,
                    "replacement": "pinned_", "checksum_before": sum }));
            }
        }
        serde_json::json!({ "edits": edits })
    }
}

/// Times `cmds` interleaved, restoring the tree (untimed) before each run.
fn measure_restoring(tree: &EditTree, cmds: &[Cmd], runs: usize) -> Result<Vec<Measured>> {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cmds.len()];
    let mut rss = vec![0i64; cmds.len()];
    let mut codes: Vec<Vec<i32>> = vec![Vec::new(); cmds.len()];
    for _ in 0..runs {
        for (i, c) in cmds.iter().enumerate() {
            tree.restore()?;
            let (t, r, code) = run_once(c)?;
            times[i].push(t.as_secs_f64() * 1000.0);
            rss[i] = rss[i].max(r);
            if !codes[i].contains(&code) {
                codes[i].push(code);
            }
        }
    }
    Ok(summarize(cmds, times, rss, codes))
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
    Case { name: name.into(), first_results: None, verified: None, results, ratios }
}

fn bench_transform(runs: usize, _warmup: usize) -> Result<()> {
    require("sd", "cargo install sd")?;
    let ours = release_binary("llm-transform", "llm-transform")?;
    let dir = workspace().join("target/bench/transform");
    let home = dir.join("aide-home");
    let tree_dir = dir.join("tree");
    let tree = EditTree::new(&tree_dir, 1000, 10)?;
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    let edits_path = dir.join("edits.json");
    std::fs::write(&edits_path, tree.span_edits().to_string()).map_err(|e| e.to_string())?;
    let ours_s = ours.display().to_string();
    let home_s = home.display().to_string();
    let edits_s = edits_path.display().to_string();
    let mut sd_args: Vec<String> = vec!["sd".into(), "needle_".into(), "pinned_".into()];
    sd_args.extend(tree.files.iter().map(|(rel, _)| rel.clone()));
    let sd_refs: Vec<&str> = sd_args.iter().map(String::as_str).collect();

    say("bench: 10,000 span edits over 1,000 files, one request");
    let batch = measure_restoring(
        &tree,
        &[
            Cmd::new("llm-transform --edits (10,000 span edits)", &[&ours_s, "--json", "--edits", &edits_s], &tree_dir)
                .env("AIDE_HOME", &home_s),
            Cmd::new("sd needle_ pinned_ <1,000 files>", &sd_refs, &tree_dir),
        ],
        runs,
    )?;
    // Check both produce the same tree.
    tree.restore()?;
    run_once(&Cmd::new("ours", &[&ours_s, "--edits", &edits_s], &tree_dir).env("AIDE_HOME", &home_s))?;
    let ours_tree: Vec<Vec<u8>> =
        tree.files.iter().map(|(rel, _)| std::fs::read(tree_dir.join(rel)).unwrap_or_default()).collect();
    tree.restore()?;
    run_once(&Cmd::new("sd", &sd_refs, &tree_dir))?;
    let sd_tree: Vec<Vec<u8>> =
        tree.files.iter().map(|(rel, _)| std::fs::read(tree_dir.join(rel)).unwrap_or_default()).collect();
    let same = ours_tree == sd_tree;
    say(&format!("  same result as sd: {same}"));
    let mut batch_case =
        case_of(&format!("10,000 span edits over 1,000 files in one request (same bytes as sd: {same})"), batch);
    batch_case.verified = None;

    // 1,000 sequential invocations: one edit each (ours: a span edit with its checksum).
    say("bench: 1,000 sequential single-edit invocations");
    let single_dir = dir.join("single");
    std::fs::create_dir_all(&single_dir).map_err(|e| e.to_string())?;
    for (i, (_, body)) in tree.files.iter().enumerate() {
        let edit = serde_json::json!({ "edits": [{ "byte_start": 0, "byte_end": 2, "replacement": "fn",
            "checksum_before": aide_core::checksum::sha256_hex(body) }] });
        std::fs::write(single_dir.join(format!("{i}.json")), edit.to_string()).map_err(|e| e.to_string())?;
    }
    let mut ours_seq = Vec::new();
    let mut sd_seq = Vec::new();
    let rounds = runs.clamp(1, 3);
    for _ in 0..rounds {
        for which in 0..2 {
            tree.restore()?;
            let start = Instant::now();
            for (i, (rel, _)) in tree.files.iter().enumerate() {
                let status = if which == 0 {
                    Command::new(&ours)
                        .args(["--json", "--file", rel, "--edits"])
                        .arg(single_dir.join(format!("{i}.json")))
                        .current_dir(&tree_dir)
                        .env("AIDE_HOME", &home)
                        .stdout(Stdio::null())
                        .status()
                } else {
                    Command::new("sd").args(["-F", "fn item_0", "fn item_0", rel]).current_dir(&tree_dir).status()
                };
                status.map_err(|e| e.to_string())?;
            }
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            if which == 0 { ours_seq.push(ms) } else { sd_seq.push(ms) }
        }
    }
    let seq_cmds = [
        Cmd::new("1,000 × llm-transform --file F --edits E", &[&ours_s], &tree_dir),
        Cmd::new("1,000 × sd -F OLD NEW F", &["sd"], &tree_dir),
    ];
    let seq = summarize(&seq_cmds, vec![ours_seq, sd_seq], vec![0, 0], vec![vec![0], vec![0]]);
    let seq_case = case_of("1,000 sequential single-edit invocations, one per file (total wall time)", seq);
    write_report(&Report::new("transform", runs, 0, &tree_dir, vec![batch_case, seq_case]))
}
