//! llm-discover against `fdfind | fzf --filter`: ranked file discovery on the corpus and a generated tree.

use std::path::Path;
use std::process::Command;

use super::{Cmd, FirstResults, Report, case, fresh_home, release_binary, require, write_report};
use crate::{Result, say, workspace};

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

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    require("fdfind", "apt-get install fd-find")?;
    require("fzf", "apt-get install fzf")?;
    let ours = release_binary("llm-discover", "llm-discover")?;
    let corpus = crate::corpus::build(false)?;
    let generated = workspace().join("target/bench/discover-200k");
    say("generating 200,000 paths (once)");
    generated_tree(&generated, 200_000)?;
    let home = fresh_home("discover")?;
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
