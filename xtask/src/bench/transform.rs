//! llm-transform against sd: a batch of span edits, a replacement across 1,000 files, and
//! sequential single-edit invocations.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::{Cmd, Measured, Report, case_of, fresh_home, release_binary, require, run_once, summarize, write_report};
use crate::{Result, say, workspace};

/// The transform benchmark's tree: `files` files with `per_file` lines
/// holding the token `needle_N` each, restored from `pristine` before every run.
pub(super) struct EditTree {
    pub(super) dir: PathBuf,
    pub(super) files: Vec<(String, Vec<u8>)>,
}

impl EditTree {
    pub(super) fn new(dir: &Path, files: usize, per_file: usize) -> Result<EditTree> {
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

    /// A copy of the files of `src` (every regular file, recursively) at `dir`.
    pub(super) fn copy_of(src: &Path, dir: &Path) -> Result<EditTree> {
        let _ = std::fs::remove_dir_all(dir);
        let mut files = Vec::new();
        let mut stack = vec![src.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?.flatten() {
                let path = e.path();
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(path);
                } else if ft.is_file() {
                    let rel = path.strip_prefix(src).map_err(|e| e.to_string())?.display().to_string();
                    files.push((rel, std::fs::read(&path).map_err(|e| e.to_string())?));
                }
            }
        }
        files.sort();
        let tree = EditTree { dir: dir.to_path_buf(), files };
        tree.restore()?;
        Ok(tree)
    }

    /// The files as they are now, in the order of `files`.
    pub(super) fn contents(&self) -> Vec<Vec<u8>> {
        self.files.iter().map(|(rel, _)| std::fs::read(self.dir.join(rel)).unwrap_or_default()).collect()
    }

    pub(super) fn restore(&self) -> Result<()> {
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
pub(super) fn measure_restoring(tree: &EditTree, cmds: &[Cmd], runs: usize) -> Result<Vec<Measured>> {
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

// Long because: one benchmark: its corpus, each anchor's runs and the table, in the order BENCHMARKS.md prints them.
pub(super) fn bench(runs: usize, _warmup: usize) -> Result<()> {
    require("sd", "cargo install sd")?;
    let ours = release_binary("llm-transform", "llm-transform")?;
    let dir = workspace().join("target/bench/transform");
    let home = fresh_home("transform")?;
    let tree_dir = dir.join("tree");
    let tree = EditTree::new(&tree_dir, 1000, 10)?;
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
