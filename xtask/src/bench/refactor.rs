//! Refactoring across a tree against the anchors, in one run: a regex
//! replacement over 1,000 files (sd, fastmod), a structural rewrite of a
//! real crate (ast-grep `-U`), and the rename of a widely used symbol in a
//! real crate, checked by `cargo check`. Each case first checks that the
//! tools leave the same bytes (or, for the rename, a tree that compiles).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::transform::{EditTree, measure_restoring};
use super::{Case, Cmd, Report, case_of, fresh_home, release_binary, require, write_report};
use crate::{Result, say, workspace};

/// fastmod (crates.io only): on PATH, or installed into `target/bench/tools` on first use.
fn fastmod() -> Result<String> {
    let root = workspace().join("target/bench/tools");
    super::anchor("fastmod", &root.join("bin/fastmod"), || {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        crate::run(&cargo, &["install", "--quiet", "--locked", "fastmod", "--root", &root.display().to_string()])
    })
}

/// Runs `cmd` once on the restored tree and returns the files it left.
fn result_of(tree: &EditTree, cmd: &Cmd) -> Result<Vec<Vec<u8>>> {
    tree.restore()?;
    let (_, _, code) = super::run_once(cmd)?;
    if code != 0 {
        return Err(format!("{} exited {code}", cmd.label));
    }
    Ok(tree.contents())
}

/// Files that differ between two results, by path.
fn differing(tree: &EditTree, a: &[Vec<u8>], b: &[Vec<u8>]) -> Vec<String> {
    tree.files.iter().zip(a.iter().zip(b)).filter(|(_, (x, y))| x != y).map(|((rel, _), _)| rel.clone()).collect()
}

/// A request file for `operations`, in the bench folder.
fn request_file(dir: &Path, name: &str, operations: serde_json::Value) -> Result<String> {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::json!({ "operations": operations }).to_string()).map_err(|e| e.to_string())?;
    Ok(path.display().to_string())
}

pub(super) fn bench(runs: usize, _warmup: usize) -> Result<()> {
    require("sd", "apt-get install sd")?;
    let fastmod = fastmod()?;
    let ast_grep = super::ast::ast_grep()?;
    let ours = release_binary("llm-transform", "llm-transform")?.display().to_string();
    let dir = workspace().join("target/bench/refactor");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let home = fresh_home("refactor")?.display().to_string();
    let corpus = crate::corpus::build(false)?;
    let cases = vec![
        regex_case(&dir, &ours, &home, &fastmod, runs)?,
        rewrite_case(&dir, &corpus, &ours, &home, &ast_grep, runs)?,
        rename_case(&dir, &corpus, &ours, &home, runs)?,
    ];
    write_report(&Report::new("refactor", runs, 0, &corpus, cases))
}

/// `needle_N(` → `pinned_N(` in 1,000 generated files (10,000 replacements).
fn regex_case(dir: &Path, ours: &str, home: &str, fastmod: &str, runs: usize) -> Result<Case> {
    let tree = EditTree::new(&dir.join("regex-tree"), 1000, 10)?;
    let tree_dir = tree.dir.clone();
    let request = request_file(
        dir,
        "regex.json",
        serde_json::json!([{ "op": "replace_regex", "pattern": r"needle_(\d+)\(", "replacement": "pinned_${1}(" }]),
    )?;
    let mut sd: Vec<String> = vec!["sd".into(), r"needle_(\d+)\(".into(), "pinned_${1}(".into()];
    sd.extend(tree.files.iter().map(|(rel, _)| rel.clone()));
    let sd: Vec<&str> = sd.iter().map(String::as_str).collect();
    let cmds = [
        Cmd::new("llm-transform replace_regex", &[ours, "--json", "--request", &request], &tree_dir)
            .env("AIDE_HOME", home),
        Cmd::new("sd REGEX REPLACEMENT <1,000 files>", &sd, &tree_dir),
        Cmd::new(
            "fastmod --accept-all REGEX REPLACEMENT",
            &[fastmod, "--accept-all", r"needle_(\d+)\(", "pinned_${1}("],
            &tree_dir,
        ),
    ];
    let ours_result = result_of(&tree, &cmds[0])?;
    let sd_result = result_of(&tree, &cmds[1])?;
    let fastmod_result = result_of(&tree, &cmds[2])?;
    let (vs_sd, vs_fastmod) =
        (differing(&tree, &ours_result, &sd_result), differing(&tree, &ours_result, &fastmod_result));
    let changed = differing(&tree, &ours_result, &tree.files.iter().map(|(_, b)| b.clone()).collect::<Vec<_>>()).len();
    say(&format!(
        "  regex: {changed} files changed; differ from sd: {}, from fastmod: {}",
        vs_sd.len(),
        vs_fastmod.len()
    ));
    let name = format!(
        "replace_regex over 1,000 files, 10,000 replacements ({changed} files changed; same bytes as sd: {}, as fastmod: {})",
        vs_sd.is_empty(),
        vs_fastmod.is_empty()
    );
    say(&format!("bench: {name}"));
    Ok(case_of(&name, measure_restoring(&tree, &cmds, runs)?))
}

/// `$X.unwrap()` → `$X.expect("checked")` over a real crate.
fn rewrite_case(dir: &Path, corpus: &Path, ours: &str, home: &str, ast_grep: &str, runs: usize) -> Result<Case> {
    let source = crate_dir(corpus, "tokio-1.43.0")?;
    let tree = EditTree::copy_of(&source, &dir.join("rewrite-tree"))?;
    let tree_dir = tree.dir.clone();
    let query = "(call_expression function: (field_expression value: (_) @x field: (field_identifier) @m (#eq? @m \"unwrap\")) arguments: (arguments) @args (#eq? @args \"()\")) @call";
    let request = request_file(
        dir,
        "rewrite.json",
        serde_json::json!([{ "op": "rewrite", "language": "rust", "query": query, "template": "${x}.expect(\"checked\")" }]),
    )?;
    let cmds = [
        Cmd::new("llm-transform rewrite", &[ours, "--json", "--request", &request], &tree_dir).env("AIDE_HOME", home),
        Cmd::new(
            "ast-grep run -p '$X.unwrap()' -r … -U",
            &[ast_grep, "run", "-l", "rust", "-p", "$X.unwrap()", "-r", "$X.expect(\"checked\")", "-U", "."],
            &tree_dir,
        ),
    ];
    let ours_result = result_of(&tree, &cmds[0])?;
    let theirs = result_of(&tree, &cmds[1])?;
    let differ = differing(&tree, &ours_result, &theirs);
    let original: Vec<Vec<u8>> = tree.files.iter().map(|(_, b)| b.clone()).collect();
    let changed = differing(&tree, &ours_result, &original).len();
    say(&format!(
        "  rewrite: {changed} files changed; differ from ast-grep: {} {:?}",
        differ.len(),
        differ.iter().take(3).collect::<Vec<_>>()
    ));
    // Where matches nest (`x.unwrap().err().unwrap()`), ast-grep rewrites
    // the outer one only; ours rewrites both. Run ast-grep again on its own
    // result until nothing changes: then the trees must be equal.
    let mut again = theirs.clone();
    for _ in 0..8 {
        super::run_once(&cmds[1])?;
        let next = tree.contents();
        if next == again {
            break;
        }
        again = next;
    }
    // ast-grep also indents the blank lines of a multi-line `$X` it moves;
    // ours leaves every byte outside the match as it was.
    let blank_lines_emptied = |files: &[Vec<u8>]| -> Vec<Vec<u8>> {
        files
            .iter()
            .map(|f| {
                let text = String::from_utf8_lossy(f);
                let lines: Vec<&str> = text.split('\n').map(|l| if l.trim().is_empty() { "" } else { l }).collect();
                lines.join("\n").into_bytes()
            })
            .collect()
    };
    let nested_only = differing(&tree, &blank_lines_emptied(&ours_result), &blank_lines_emptied(&again)).is_empty();
    let name = format!(
        "rewrite `$X.unwrap()` → `$X.expect(\"checked\")` in tokio 1.43.0 ({changed} files changed; same bytes as ast-grep -U in {} of them, the other {} hold nested matches ast-grep rewrites outer first — equal once ast-grep is rerun to a fixed point, but for the blank lines it indents: {nested_only})",
        changed - differ.len(),
        differ.len()
    );
    say(&format!("bench: {name}"));
    Ok(case_of(&name, measure_restoring(&tree, &cmds, runs)?))
}

/// The vendored crate `name` of the corpus.
fn crate_dir(corpus: &Path, name: &str) -> Result<PathBuf> {
    let dir = corpus.join("crates").join(name);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("{} is not in the corpus (cargo xtask corpus --force)", dir.display()))
    }
}

/// Renames regex-syntax's `Span` (used all over its parser) and checks the
/// crate still builds: `cargo check -p regex-syntax` of the corpus's own
/// manifest and lock file, offline, against a copy of the vendored crates
/// in which regex-syntax is the renamed tree.
fn rename_case(dir: &Path, corpus: &Path, ours: &str, home: &str, runs: usize) -> Result<Case> {
    const CRATE: &str = "regex-syntax-0.8.11";
    let source = crate_dir(corpus, CRATE)?;
    let vendor = dir.join("rename-vendor");
    let _ = std::fs::remove_dir_all(&vendor);
    std::fs::create_dir_all(&vendor).map_err(|e| e.to_string())?;
    let mut tree = EditTree::copy_of(&source, &vendor.join(CRATE))?;
    // Cargo checks vendored files against this list; the renamed ones differ.
    for (rel, body) in &mut tree.files {
        if rel == ".cargo-checksum.json" {
            let mut sums: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
            sums["files"] = serde_json::json!({});
            *body = sums.to_string().into_bytes();
        }
    }
    tree.restore()?;
    for entry in std::fs::read_dir(corpus.join("crates")).map_err(|e| e.to_string())?.flatten() {
        if entry.file_name() != CRATE {
            std::os::unix::fs::symlink(entry.path(), vendor.join(entry.file_name())).map_err(|e| e.to_string())?;
        }
    }
    let tree_dir = tree.dir.clone();
    let request = request_file(
        dir,
        "rename.json",
        serde_json::json!([{ "op": "rename_symbol", "name": "Span", "path": "src/ast/mod.rs", "new_name": "SourceSpan" }]),
    )?;
    let cmd =
        Cmd::new("llm-transform rename_symbol Span → SourceSpan", &[ours, "--json", "--request", &request], &tree_dir)
            .env("AIDE_HOME", home);
    tree.restore()?;
    let out = Command::new(ours)
        .args(["--json", "--request", &request])
        .current_dir(&tree_dir)
        .env("AIDE_HOME", home)
        .output()
        .map_err(|e| e.to_string())?;
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("rename output: {e}"))?;
    let report = &doc["renames"][0];
    let (renamed, unresolved) = (report["renamed"].as_u64().unwrap_or(0), report["unresolved"].as_u64().unwrap_or(0));
    let files = doc["files"].as_array().map_or(0, Vec::len);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let vendored = format!("source.vendored.directory={:?}", vendor.display().to_string());
    let check = Command::new(&cargo)
        .args(["check", "--quiet", "--offline", "-p", "regex-syntax", "--manifest-path"])
        .arg(workspace().join("xtask/corpus/Cargo.toml"))
        .args(["--config", "source.crates-io.replace-with=\"vendored\"", "--config", &vendored])
        .env("CARGO_TARGET_DIR", dir.join("rename-target"))
        .output()
        .map_err(|e| e.to_string())?;
    let compiles = check.status.success();
    if !compiles {
        say(&format!("  cargo check after the rename failed:\n{}", String::from_utf8_lossy(&check.stderr)));
    }
    let name = format!(
        "rename_symbol `Span` → `SourceSpan` in regex-syntax 0.8.11 ({renamed} sites in {files} files, {unresolved} unresolved; cargo check after it: {})",
        if compiles { "passes" } else { "FAILS" }
    );
    say(&format!("bench: {name}"));
    Ok(case_of(&name, measure_restoring(&tree, &[cmd], runs)?))
}
