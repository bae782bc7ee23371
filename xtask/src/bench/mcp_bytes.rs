//! What a model reads (issue 49): the bytes of eight everyday calls through
//! `aide mcp` on flask — the text block and the structured content, the
//! compact form served by default and the whole document — against the
//! classic command that gives the same facts; and the bytes of the tool
//! definitions per toolset (what a model loads, and the whole `tools/list`).
//!
//! Flask is flask 3.1.0's sdist from PyPI (`pip download`), unpacked in
//! `target/corpus/flask-sdist/`, with a git history of its own made from it
//! (six commits of fixed authors and dates) for `git log`. Bytes do not
//! depend on the build, so the debug binary is measured.

use std::path::{Path, PathBuf};
use std::process::Command;

use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

use super::{fresh_home, replace_block};
use crate::{Result, say, workspace};

const FLASK: &str = "flask==3.1.0";
/// The target: each form at most this many times the classic bytes in median…
const MEDIAN_TARGET: f64 = 1.5;
/// …and no call above this.
const CALL_TARGET: f64 = 3.0;

/// One call and the classic command giving the same facts.
struct Call {
    label: &'static str,
    tool: &'static str,
    arguments: Value,
    classic: &'static str,
}

fn calls() -> Vec<Call> {
    vec![
        Call {
            label: "search `def url_for`",
            tool: "search",
            arguments: json!({ "pattern": "def url_for" }),
            classic: "rg -n 'def url_for'",
        },
        Call {
            label: "search `url_for` limit 20",
            tool: "search",
            arguments: json!({ "pattern": "url_for", "limit": 20 }),
            classic: "rg -n url_for | head -20",
        },
        Call {
            label: "read helpers.py 1:80",
            tool: "read",
            arguments: json!({ "paths": "src/flask/helpers.py", "lines": "1:80" }),
            classic: "cat -n src/flask/helpers.py | sed -n 1,80p",
        },
        Call {
            label: "outline helpers.py",
            tool: "ast_search",
            arguments: json!({ "paths": "src/flask/helpers.py" }),
            classic: "ctags -x src/flask/helpers.py",
        },
        Call {
            label: "references `url_for`",
            tool: "ast_search",
            arguments: json!({ "references": "url_for" }),
            classic: "rg -n -w url_for",
        },
        Call {
            label: "discover `blueprint`",
            tool: "discover",
            arguments: json!({ "query": "blueprint" }),
            classic: "fdfind blueprint",
        },
        Call { label: "shell_exec `ls`", tool: "shell_exec", arguments: json!({ "command": "ls" }), classic: "ls" },
        Call {
            label: "git log -5",
            tool: "git",
            arguments: json!({ "command": "log", "limit": 5 }),
            classic: "git log --oneline -5",
        },
    ]
}

/// What one call measured, in bytes.
struct Bytes {
    classic: usize,
    text: usize,
    structured: usize,
    full: usize,
}

pub(super) fn bench() -> Result<()> {
    for program in ["rg", "ctags", "fdfind", "git", "python3"] {
        super::require(program, "its distribution package")?;
    }
    let aide = debug_binary()?;
    let tree = flask()?;
    let home = fresh_home("mcp-bytes")?;
    // The default mode, said (the test client starts `--structured full` otherwise).
    let mut client = McpClient::start_binary(&aide, &tree, &home, &["--structured", "compact"]).handshake(json!({}));
    let mut rows = Vec::new();
    for call in calls() {
        let classic = classic_bytes(call.classic, &tree)?;
        let compact = client.call(call.tool, call.arguments.clone());
        let mut asked = call.arguments.clone();
        asked["detail"] = json!("full");
        let full = client.call(call.tool, asked);
        for result in [&compact, &full] {
            if result["isError"] != false {
                return Err(format!("{} failed: {result}", call.label));
            }
        }
        let text = compact["content"].as_array().into_iter().flatten().filter_map(|c| c["text"].as_str()).map(str::len);
        let bytes = Bytes {
            classic,
            text: text.sum(),
            structured: json_len(&compact["structuredContent"]),
            full: json_len(&full["structuredContent"]),
        };
        say(&format!(
            "  {:<28} classic {:>6}  text {:>6}  structured {:>6}  (whole document {:>6})",
            call.label, bytes.classic, bytes.text, bytes.structured, bytes.full
        ));
        rows.push((call, bytes));
    }
    drop(client);
    let mut md = table(&rows);
    md.push_str(&definitions(&aide, &tree, &home)?);
    replace_block("mcp-bytes", &md)?;
    say(&format!("updated {}", workspace().join("docs/BENCHMARKS.md").display()));
    Ok(())
}

/// Bytes of a value as it goes over the wire (compact JSON).
fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

fn ratio(ours: usize, classic: usize) -> f64 {
    ours as f64 / classic.max(1) as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The eight-call table, the medians and whether the targets are met.
fn table(rows: &[(Call, Bytes)]) -> String {
    let mut md = format!(
        "Measured {} on flask 3.1.0 (sdist); bytes of stdout, of the text block and of the structured content \
         (compact JSON) of one `aide mcp` call. Reproduce: `cargo xtask bench mcp-bytes`.\n\n\
         | call | classic command | classic | text | structured | × classic | whole document (`detail: \"full\"`) |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
        humantime::format_rfc3339_seconds(std::time::SystemTime::now())
    );
    for (call, b) in rows {
        md.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {:.1} / {:.1} | {} |\n",
            call.label,
            call.classic.replace('|', "\\|"),
            b.classic,
            b.text,
            b.structured,
            ratio(b.text, b.classic),
            ratio(b.structured, b.classic),
            b.full
        ));
    }
    let verdict = |name: &str, of: &dyn Fn(&Bytes) -> usize| {
        let ratios: Vec<f64> = rows.iter().map(|(_, b)| ratio(of(b), b.classic)).collect();
        let (m, worst) = (median(ratios.clone()), ratios.iter().copied().fold(0.0, f64::max));
        let met = m <= MEDIAN_TARGET && worst <= CALL_TARGET;
        format!(
            "- {name}: median {m:.2}× the classic bytes, the largest {worst:.2}× — {} (≤ {MEDIAN_TARGET}× in median, \
             no call above {CALL_TARGET}×)\n",
            if met { "met" } else { "NOT met" }
        )
    };
    md.push('\n');
    md.push_str(&verdict("text", &|b| b.text));
    md.push_str(&verdict("structured (compact)", &|b| b.structured));
    md.push_str(&verdict("whole document", &|b| b.full));
    md
}

/// The bytes of the tool definitions, per toolset: what a model loads
/// (name, description, input schema) and the whole `tools/list`.
fn definitions(aide: &Path, tree: &Path, home: &Path) -> Result<String> {
    use clap::ValueEnum;
    let mut md = String::from(
        "\nTool definitions per toolset (`aide mcp --tools GROUP`), compact JSON: what a model loads (name, \
         description, input schema; Claude Code shows no more) and the whole `tools/list` with the output \
         schemas.\n\n| toolset | tools | a model loads | tools/list |\n|---|---:|---:|---:|\n",
    );
    let groups: Vec<&str> = aide_core::operation::Group::value_variants().iter().map(|g| g.name()).collect();
    for group in groups.iter().copied().chain(["all"]) {
        let mut client = McpClient::start_binary(aide, tree, home, &["--structured", "compact", "--tools", group])
            .handshake(json!({}));
        let listed = client.request("tools/list", json!({}));
        let tools = listed["result"]["tools"].as_array().cloned().ok_or_else(|| format!("tools/list: {listed}"))?;
        let loaded: Vec<Value> = tools
            .iter()
            .map(|t| json!({ "name": t["name"], "description": t["description"], "input_schema": t["inputSchema"] }))
            .collect();
        md.push_str(&format!(
            "| {group} | {} | {} | {} |\n",
            tools.len(),
            json_len(&Value::Array(loaded)),
            json_len(&Value::Array(tools))
        ));
    }
    Ok(md)
}

/// Bytes of what the classic command prints in `tree`.
fn classic_bytes(command: &str, tree: &Path) -> Result<usize> {
    let out = Command::new("bash")
        .args(["-c", command])
        .current_dir(tree)
        .output()
        .map_err(|e| format!("running {command}: {e}"))?;
    if out.stdout.is_empty() {
        return Err(format!("`{command}` printed nothing: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout.len())
}

fn debug_binary() -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    crate::run(&cargo, &["build", "--quiet", "-p", "aide"])?;
    Ok(workspace().join("target/debug/aide"))
}

/// Flask's sdist, unpacked, with a git history made from it; built once.
fn flask() -> Result<PathBuf> {
    let base = crate::corpus::dir().join("flask-sdist");
    let tree = base.join("flask-3.1.0");
    if base.join(".complete").exists() {
        return Ok(tree);
    }
    if base.exists() {
        std::fs::remove_dir_all(&base).map_err(|e| format!("removing {}: {e}", base.display()))?;
    }
    std::fs::create_dir_all(&base).map_err(|e| e.to_string())?;
    let step = |cmd: &mut Command| -> Result<()> {
        let status = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
        if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed: {status}")) }
    };
    say(&format!("bench: downloading {FLASK} (sdist) into {}", base.display()));
    step(
        Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d"])
            .arg(&base)
            .arg(FLASK),
    )?;
    step(Command::new("tar").arg("xzf").arg("flask-3.1.0.tar.gz").current_dir(&base))?;
    // A history of its own: one commit per part of the tree, fixed authors
    // and dates, so `git log` prints the same bytes on every machine.
    let git = |args: &[&str], day: usize| -> Result<()> {
        let date = format!("2024-11-{:02}T12:00:00Z", 8 + day);
        step(
            Command::new("git")
                .args(["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"])
                .args(args)
                .current_dir(&tree)
                .env("GIT_AUTHOR_NAME", "Flask Bench")
                .env("GIT_AUTHOR_EMAIL", "bench@example.com")
                .env("GIT_COMMITTER_NAME", "Flask Bench")
                .env("GIT_COMMITTER_EMAIL", "bench@example.com")
                .env("GIT_AUTHOR_DATE", &date)
                .env("GIT_COMMITTER_DATE", &date),
        )
    };
    git(&["init", "--quiet"], 0)?;
    let parts = [
        ("src", "add the flask package"),
        ("tests", "add the test suite"),
        ("docs", "add the documentation"),
        ("examples", "add the examples"),
        ("requirements", "pin the development requirements"),
        (".", "add the project files"),
    ];
    for (day, (part, subject)) in parts.iter().enumerate() {
        git(&["add", "--", part], day)?;
        git(&["commit", "--quiet", "-m", subject], day)?;
    }
    std::fs::write(base.join(".complete"), "").map_err(|e| e.to_string())?;
    Ok(tree)
}
