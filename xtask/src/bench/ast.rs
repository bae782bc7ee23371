//! llm-ast-search against ast-grep (a structural query, the outline's time and size) and
//! universal-ctags (recall of the outline).

use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

use super::{Cmd, Report, case, fresh_home, release_binary, require, round3, write_report};
use crate::{Result, say, workspace};

/// `ast-grep` (the npm package `@ast-grep/cli`): on PATH, or installed into
/// `target/anchors` on first use. Never `sg`, which is shadow's on Debian.
pub(super) fn ast_grep() -> Result<String> {
    let prefix = workspace().join("target/anchors");
    super::anchor("ast-grep", &prefix.join("node_modules/.bin/ast-grep"), || {
        crate::run("npm", &["install", "--silent", "--prefix", &prefix.display().to_string(), "@ast-grep/cli"])
    })
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

// Long because: one measurement against ctags: the tags read, matched and counted in one pass a reader follows.
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

/// The Rust corpus's symbol outline, ours (text) against ast-grep's: each
/// one's default for a folder, the exported top-level names by kind (ours
/// with their lines).
fn outline(ours: &str, sg: &str, crates: &Path, home: &str, runs: usize) -> Result<super::Case> {
    case(
        "Rust corpus: symbol outline",
        vec![
            Cmd::new(
                "llm-ast-search --language rust (outline, text: exported names)",
                &[ours, "--language", "rust"],
                crates,
            )
            .env("AIDE_HOME", home),
            Cmd::new("ast-grep outline --lang rust", &[sg, "outline", "--lang", "rust", "--color", "never"], crates),
        ],
        runs.min(5),
        1,
    )
}

/// The outline as a small-tree anchor (`cargo xtask bench index`): its
/// time on the Rust corpus, and its text's bytes beside ast-grep's on one crate.
pub(super) fn outline_case(corpus: &Path, home: &str, runs: usize, _warmup: usize) -> Result<super::Case> {
    let sg = ast_grep()?;
    let ours = release_binary("llm-ast-search", "llm-ast-search")?;
    let mut c = outline(&ours.display().to_string(), &sg, &corpus.join("crates"), home, runs)?;
    let size = outline_size(&ours, &sg, corpus, &serde_json_folder(corpus)?)?;
    c.name = format!(
        "small-tree anchor: symbol outline (Rust corpus; text of serde_json: ours {} bytes, ast-grep {} bytes)",
        size.ours_text_bytes, size.ast_grep_text_bytes
    );
    Ok(c)
}

/// The corpus's serde_json folder (`crates/serde_json-…`), whatever version the lock pins.
fn serde_json_folder(corpus: &Path) -> Result<String> {
    let name = std::fs::read_dir(corpus.join("crates"))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("serde_json-"))
        .max()
        .ok_or("the corpus has no serde_json crate")?;
    Ok(format!("crates/{name}"))
}

// Long because: one benchmark: its corpus, each anchor's runs and the table, in the order BENCHMARKS.md prints them.
pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    require("ctags", "apt-get install universal-ctags")?;
    let sg = ast_grep()?;
    let ours = release_binary("llm-ast-search", "llm-ast-search")?;
    let corpus = crate::corpus::build(false)?;
    let home = fresh_home("ast")?;
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
    cases.push(outline(&ours_s, &sg, &crates, &home_s, runs)?);
    // --limit stops parsing once the page is certain (issue 16, item 1).
    cases.push(case(
        "whole corpus: where `main` is defined, first page",
        vec![
            Cmd::new(
                "llm-ast-search --definitions main --limit 5",
                &[&ours_s, "--json", "--definitions", "main", "--limit", "5"],
                &corpus,
            )
            .env("AIDE_HOME", &home_s),
            Cmd::new(
                "llm-ast-search --definitions main (every one)",
                &[&ours_s, "--json", "--definitions", "main"],
                &corpus,
            )
            .env("AIDE_HOME", &home_s),
        ],
        runs.min(3),
        1,
    )?);
    let serde_json = serde_json_folder(&corpus)?;
    let sizes = [serde_json.as_str(), "python/flask-3.1.0-py3-none-any", "debian/go/net/http", "debian/java"]
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
        "\nOutline size on the same files (bytes; the texts are each tool's default for a folder: ours each file's \
         exported top-level names by kind with their start lines, ast-grep's its exported top-level names by kind; \
         the JSON documents list every symbol, ours nested, ast-grep's top-level items and members):\n\n\
         | files | our symbols | ast-grep items | ours text | ours --json | ast-grep text | ast-grep --json=compact | ours text / ast-grep text | bytes per symbol: ours json, ast-grep json |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for s in sizes {
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {:.2} | {:.0}, {:.0} |\n",
            s.files,
            s.ours_symbols,
            s.ast_grep_items,
            s.ours_text_bytes,
            s.ours_json_bytes,
            s.ast_grep_text_bytes,
            s.ast_grep_json_bytes,
            s.ours_text_bytes as f64 / s.ast_grep_text_bytes.max(1) as f64,
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
