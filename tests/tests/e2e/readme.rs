//! The README's examples, verbatim: every `$ command` of each tool's section
//! runs, in order, in the small project the README describes, and every
//! output line the README shows must be what the command prints. A command
//! that shows no output must still succeed (exit 0 or 1).

use std::path::Path;
use std::process::Command;

use aide_tests::TestDir;

/// One `$ command` of the README and the output lines shown under it.
#[derive(Debug)]
struct Example {
    /// The README line the command starts on.
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The examples of the `### {section}` part of the README.
fn examples(readme: &str, section: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_section = false;
    let mut in_block = false;
    let mut lines = readme.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if let Some(title) = line.strip_prefix("### ") {
            in_section = title.trim() == section;
            continue;
        }
        if line.starts_with("## ") {
            in_section = false;
        }
        if !in_section {
            continue;
        }
        if line.starts_with("```") {
            in_block = !in_block && line == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            let mut command = command.to_string();
            // A command that bash finds unfinished (an open quote) goes on on the next line.
            while !complete(&command) {
                let Some((_, next)) = lines.next() else { break };
                command.push('\n');
                command.push_str(next);
            }
            out.push(Example { line: i + 1, command, expected: Vec::new() });
        } else if let Some(last) = out.last_mut() {
            last.expected.push(line.to_string());
        }
    }
    out
}

/// Whether bash parses `command` as complete.
fn complete(command: &str) -> bool {
    Command::new("bash").arg("-n").arg("-c").arg(command).output().is_ok_and(|o| o.status.success())
}

/// Whether `actual` is `expected`, where `<pid>`, `<id>`, `<sha256>`,
/// `<ms>` and `<dir>` stand for any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    const HOLES: [&str; 5] = ["<pid>", "<id>", "<sha256>", "<ms>", "<dir>"];
    let mut pieces: Vec<&str> = vec![expected];
    for hole in HOLES {
        pieces = pieces.iter().flat_map(|p| p.split(hole)).collect();
    }
    if pieces.len() == 1 {
        return expected == actual;
    }
    let mut rest = actual;
    for (n, piece) in pieces.iter().enumerate() {
        if n == 0 {
            let Some(r) = rest.strip_prefix(piece) else { return false };
            rest = r;
        } else if n == pieces.len() - 1 {
            return rest.len() > piece.len() && rest.ends_with(piece);
        } else {
            let Some(at) = rest.get(1..).and_then(|r| r.find(piece)) else { return false };
            rest = &rest[1 + at + piece.len()..];
        }
    }
    true
}

/// The small Rust project the README's examples run in, committed on `main`.
fn demo_project() -> TestDir {
    let t = TestDir::new();
    t.write("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n");
    t.write(".gitignore", "target/\n");
    let main = "fn main() {\n    let agent = agent::Agent::new();\n    println!(\"{}\", agent.run());\n}\n\nmod agent;\nmod vector;\n";
    t.write("src/main.rs", main);
    t.write(
        "src/agent/mod.rs",
        "//! The agent.\n\n/// Runs tasks.\npub struct Agent;\n\n#[allow(non_snake_case)]\npub fn validateToken(token: &str) -> bool {\n    !token.is_empty()\n}\n\nimpl Agent {\n    pub fn run(&self) -> bool {\n        validateToken(\"abc\")\n    }\n}\n\nimpl Agent {\n    pub fn new() -> Self {\n        Agent\n    }\n}\n",
    );
    t.write(
        "src/vector.rs",
        "pub fn dot(a: &[f64], b: &[f64]) -> f64 {\n    a.iter().zip(b).map(|(x, y)| x * y).sum()\n}\n",
    );
    t.write("benches/vector_bench.rs", "// TODO: a benchmark\nfn main() {}\n");
    // The span edit of the llm-transform example: `agent.run()` → `agent.run() && true`.
    let at = main.find("agent.run()").unwrap() + "agent.run()".len();
    let sum = {
        let v: serde_json::Value = t.cmd("llm-read").args(["src/main.rs", "--no-log"]).json(0);
        v["files"][0]["checksum"].as_str().unwrap().to_string()
    };
    t.write(
        "edits.json",
        serde_json::json!({ "edits": [{ "byte_start": at, "byte_end": at, "replacement": " && true", "checksum_before": sum }] })
            .to_string(),
    );
    t.git(&["init", "-q", "-b", "main"]).git(&["add", "-A"]).git(&["commit", "-q", "-m", "demo"]);
    t
}

/// Runs the examples of each section in order, in one bash per section (so
/// `S=$(…)` carries to the next line), and checks them.
fn run_sections(sections: &[&str]) {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let t = demo_project();
    let scratch = tempfile::tempdir().unwrap();
    for section in sections {
        let examples = examples(&readme, section);
        assert!(!examples.is_empty(), "no examples under ### {section}");
        if examples.iter().any(|e| e.command.contains("jq "))
            && !aide_tests::oracle("jq", &format!("README {section} examples"))
        {
            continue;
        }
        if *section == "llm-lint" && !aide_tests::oracle("shellcheck", "README llm-lint examples") {
            continue;
        }
        let mut script = String::from("set +e\n");
        for (i, e) in examples.iter().enumerate() {
            let out = scratch.path().join(format!("{section}.{i}"));
            script.push_str(&format!(
                "{{ {}\n}} > '{}.out' 2> '{}.err'; echo $? > '{}.rc'\n",
                e.command,
                out.display(),
                out.display(),
                out.display()
            ));
        }
        let path = format!("{}:{}", aide_tests::bin_dir().display(), std::env::var("PATH").unwrap_or_default());
        let status = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(t.root())
            .env("PATH", path)
            .env("AIDE_HOME", t.home())
            .env_remove("AIDE_LOG")
            .status()
            .unwrap();
        assert!(status.success(), "the {section} script itself failed:\n{script}");
        for (i, e) in examples.iter().enumerate() {
            let out = scratch.path().join(format!("{section}.{i}"));
            let read = |ext: &str| std::fs::read_to_string(format!("{}.{ext}", out.display())).unwrap_or_default();
            let (stdout, stderr, rc) = (read("out"), read("err"), read("rc"));
            let context = format!(
                "README.md:{} ({section}): $ {}\nexit {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
                e.line,
                e.command,
                rc.trim()
            );
            assert!(matches!(rc.trim(), "0" | "1"), "the example failed: {context}");
            if e.expected.is_empty() {
                continue;
            }
            let actual: Vec<&str> = stdout.lines().collect();
            let same = actual.len() == e.expected.len()
                && e.expected.iter().zip(&actual).all(|(want, got)| line_matches(want, got));
            assert!(same, "the README shows other output:\n{}\n---\n{context}", e.expected.join("\n"));
        }
    }
}

#[test]
fn readme_examples_of_the_read_and_search_tools_run_verbatim() {
    run_sections(&["llm-search", "llm-read", "llm-ast-search", "llm-code", "llm-discover"]);
}

#[test]
fn readme_examples_of_the_editing_tools_run_verbatim() {
    run_sections(&["llm-transform", "aide"]);
}

#[test]
fn readme_examples_of_the_checking_tool_run_verbatim() {
    run_sections(&["llm-lint"]);
}

#[test]
fn readme_examples_of_the_git_tool_run_verbatim() {
    run_sections(&["llm-git", "llm-deps"]);
}

#[test]
fn readme_examples_of_the_process_tools_run_verbatim() {
    run_sections(&["llm-jobs", "llm-shell"]);
}

#[test]
fn placeholders_match_any_text_and_nothing_else_does() {
    assert!(line_matches("job 1 Running pid <pid>: x", "job 1 Running pid 123: x"));
    assert!(!line_matches("job 1 Running pid <pid>: x", "job 1 Running pid : x"));
    assert!(line_matches("[exit 0, <ms> ms, in <dir>]", "[exit 0, 6.2 ms, in /tmp/x/src]"));
    assert!(!line_matches("a <id>", "b 1"));
    assert!(line_matches("plain", "plain") && !line_matches("plain", "plain "));
}
