//! The flags an agent uses, held against `rg` on real code: copies of three
//! trees of different languages found on the machine (a Rust crate from
//! Cargo's registry, Python's standard library, Go's), each made a git
//! repository with an ignored folder and a hidden one. For every case the
//! match spans, the lines they cover and every context line (number and
//! text) must be rg's; pages joined must be the whole list; `aide mcp`'s
//! `search` must answer what the command line answers. Random flag sets
//! never panic (issue 47: `-A`/`-B` without `-C` panicked).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use aide_tests::mcp::McpClient;
use aide_tests::ripgrep::{RgReport, rg_report};
use aide_tests::wire::{Envelope, SearchMatch, SearchResult};
use aide_tests::{TestDir, Xorshift};
use serde_json::{Value, json};

/// A real tree copied into a git repository of its own.
struct RealTree {
    dir: TestDir,
    lang: &'static str,
}

/// The flags of one case, spelled as both llm-search and rg accept them, and
/// the same request as `aide mcp`'s `search` arguments.
struct Case {
    flags: Vec<String>,
    /// The same for rg: `-A`/`-B` and `-C` mixed are resolved first, as
    /// GNU grep and ripgrep 14 read them (an explicit side wins over `-C`
    /// whatever the order); Debian's ripgrep 13 let the last flag win.
    rg_flags: Vec<String>,
    arguments: Value,
}

impl Case {
    fn new(patterns: &[&str], flags: &[&str]) -> Case {
        let mut all: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
        for p in patterns {
            all.push("-e".into());
            all.push(p.to_string());
        }
        let side = |name: &str| flags.iter().position(|f| *f == name).map(|i| flags[i + 1].to_string());
        let mut rg_flags = all.clone();
        if let Some(both) = side("-C") {
            rg_flags = Vec::new();
            let mut words = all.iter();
            while let Some(w) = words.next() {
                if matches!(w.as_str(), "-A" | "-B" | "-C") {
                    words.next();
                } else {
                    rg_flags.push(w.clone());
                }
            }
            rg_flags.extend(["-B".into(), side("-B").unwrap_or(both.clone()), "-A".into(), side("-A").unwrap_or(both)]);
        }
        let mut arguments = json!({ "pattern": patterns, "max_line_len": 0 });
        let mut words = flags.iter();
        while let Some(flag) = words.next() {
            let mut value = || words.next().map(|v| v.to_string()).unwrap_or_default();
            let (field, v): (&str, Value) = match *flag {
                "-A" => ("after_context", json!(value().parse::<u64>().unwrap())),
                "-B" => ("before_context", json!(value().parse::<u64>().unwrap())),
                "-C" => ("context", json!(value().parse::<u64>().unwrap())),
                "-i" => ("ignore_case", json!(true)),
                "-S" => ("smart_case", json!(true)),
                "-w" => ("word", json!(true)),
                "-F" => ("fixed_strings", json!(true)),
                "-U" => ("multiline", json!(true)),
                "--hidden" => ("hidden", json!(true)),
                "--no-ignore" => ("no_ignore", json!(true)),
                "--max-depth" => ("max_depth", json!(value().parse::<u64>().unwrap())),
                "-g" => ("glob", json!([value()])),
                "-t" => ("type", json!([value()])),
                other => panic!("a case uses a flag the matrix does not map: {other}"),
            };
            match (arguments.get_mut(field), v) {
                (Some(Value::Array(have)), Value::Array(more)) => have.extend(more),
                (_, v) => arguments[field] = v,
            }
        }
        Case { flags: all, rg_flags, arguments }
    }

    fn refs(&self) -> Vec<&str> {
        self.flags.iter().map(String::as_str).collect()
    }

    fn rg_refs(&self) -> Vec<&str> {
        self.rg_flags.iter().map(String::as_str).collect()
    }
}

/// Where a language's real code lies on this machine, if it does.
fn source_of(lang: &str) -> Option<PathBuf> {
    match lang {
        // globset: a dependency of the workspace (through ignore), so its
        // source is in the registry wherever the tests were built.
        "rust" => aide_tests::trees::registry_crate("globset-"),
        "python" => {
            let out = Command::new("python3")
                .args(["-c", "import email, os; print(os.path.dirname(email.__file__))"])
                .output()
                .ok()?;
            out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        }
        "go" => {
            let out = Command::new("go").args(["env", "GOROOT"]).output().ok()?;
            let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            out.status.success().then(|| root.join("src/encoding/json"))
        }
        _ => None,
    }
}

/// The tree of `lang`, or a visible skip when the machine has none.
fn real_tree(lang: &'static str, oracle: &str) -> Option<RealTree> {
    if !aide_tests::oracle(oracle, &format!("llm-search against rg on real {lang} code (search_matrix)")) {
        return None;
    }
    let Some(source) = source_of(lang).filter(|s| s.is_dir()) else {
        aide_tests::skip(oracle, &format!("no {lang} source tree found for search_matrix"));
        return None;
    };
    let dir = TestDir::new();
    dir.git_init();
    aide_tests::trees::copy_tree(&source, dir.root());
    // Something for --no-ignore and --hidden to change: a copy of the tree's
    // first file in an ignored folder and in a hidden one.
    let first = std::fs::read_dir(dir.root())
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .min()
        .expect("a file in the tree");
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read(&first).unwrap();
    dir.write(&format!("vendored/{name}"), &text);
    dir.write(&format!(".hidden/{name}"), &text);
    dir.write(".gitignore", "vendored/\n");
    Some(RealTree { dir, lang })
}

/// The cases for a tree: every context combination, case, word, fixed
/// strings, multiline, glob, type, hidden, no-ignore and depth, alone and
/// mixed.
fn cases(lang: &str) -> Vec<Case> {
    let (word, capital, frequent, two_lines, ext, type_name) = match lang {
        "rust" => ("glob", "Glob", "fn ", r"fn \w+\(\n", "*.rs", "rust"),
        "python" => ("return", "Message", "def ", r"def \w+\(self\):\n", "*.py", "py"),
        _ => ("return", "Decoder", "func ", r"\{\n\s*return", "*.go", "go"),
    };
    let mut out = Vec::new();
    for context in [
        &[][..],
        &["-A", "1"],
        &["-B", "1"],
        &["-A", "2"],
        &["-B", "3"],
        &["-C", "1"],
        &["-A", "2", "-B", "1"],
        &["-A", "0", "-B", "2"],
        &["-A", "3", "-C", "1"],
        &["-C", "2", "-B", "0"],
    ] {
        out.push(Case::new(&[frequent], context));
    }
    out.push(Case::new(&[word], &["-w", "-A", "1"]));
    out.push(Case::new(&[&word.to_uppercase()], &["-i", "-B", "1"]));
    out.push(Case::new(&[capital], &["-S"]));
    out.push(Case::new(&[word], &["-S", "-w", "-C", "1"]));
    out.push(Case::new(&["(", "."], &["-F", "-A", "1"]));
    out.push(Case::new(&[two_lines], &["-U"]));
    out.push(Case::new(&[two_lines], &["-U", "-A", "1", "-B", "2"]));
    out.push(Case::new(&[frequent], &["-g", ext, "-B", "1"]));
    out.push(Case::new(&[frequent], &["-g", "!*test*", "-A", "1"]));
    out.push(Case::new(&[word], &["-t", type_name, "-w"]));
    out.push(Case::new(&[word], &["--hidden", "-A", "1"]));
    out.push(Case::new(&[word], &["--no-ignore", "-B", "1"]));
    out.push(Case::new(&[word], &["--hidden", "--no-ignore", "--max-depth", "1", "-C", "1"]));
    out.push(Case::new(&[frequent, word], &["--max-depth", "1", "-A", "1", "-i"]));
    out
}

fn search(t: &TestDir, flags: &[&str]) -> SearchResult {
    let out = t.cmd("llm-search").args(flags).args(["--json", "--max-line-len", "0"]).output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "llm-search {flags:?}: {stderr}");
    let env: Envelope<SearchResult> = serde_json::from_slice(&out.stdout).expect("our json");
    env.result
}

/// The last line a match covers (a match ending at a line's start ends on
/// the line before).
fn last_line(m: &SearchMatch) -> usize {
    if m.end_line > m.line && m.end_column == 1 { m.end_line - 1 } else { m.end_line }
}

/// Our matches as rg reports them: spans, covered lines, and context lines
/// (each match's own context, joined, less the lines that are matched).
fn as_rg_reports(matches: &[SearchMatch]) -> RgReport {
    let mut report = RgReport::default();
    for m in matches {
        report.matches.insert((m.path.clone(), m.line, m.byte_start, m.byte_end));
        for n in m.line..=last_line(m) {
            report.matched_lines.insert((m.path.clone(), n));
        }
    }
    let mut context = BTreeSet::new();
    for m in matches {
        let before = m.context_before.iter().enumerate();
        for (i, text) in before {
            context.insert((m.path.clone(), m.line - m.context_before.len() + i, text.clone()));
        }
        for (i, text) in m.context_after.iter().enumerate() {
            context.insert((m.path.clone(), last_line(m) + 1 + i, text.clone()));
        }
    }
    report.context = context.into_iter().filter(|(p, n, _)| !report.matched_lines.contains(&(p.clone(), *n))).collect();
    report
}

fn assert_same(what: &str, ours: &RgReport, rg: &RgReport) {
    assert_eq!(
        ours.matches,
        rg.matches,
        "{what}: match spans differ\nonly ours: {:?}\nonly rg: {:?}",
        ours.matches.difference(&rg.matches).take(5).collect::<Vec<_>>(),
        rg.matches.difference(&ours.matches).take(5).collect::<Vec<_>>()
    );
    assert_eq!(ours.matched_lines, rg.matched_lines, "{what}: matched lines differ");
    assert_eq!(
        ours.context,
        rg.context,
        "{what}: context lines differ\nonly ours: {:?}\nonly rg: {:?}",
        ours.context.difference(&rg.context).take(5).collect::<Vec<_>>(),
        rg.context.difference(&ours.context).take(5).collect::<Vec<_>>()
    );
}

/// Every case on `tree`: rg's answer on the command line, the same pages
/// joined, and the same through `aide mcp`.
fn check_tree(tree: &RealTree) {
    let t = &tree.dir;
    let mut client = McpClient::initialized(t.root(), t.home(), &[], json!({}));
    for (i, case) in cases(tree.lang).iter().enumerate() {
        let what = format!("{} case {i} {:?}", tree.lang, case.flags);
        let expected = rg_report(t.root(), &case.rg_refs());
        assert!(!expected.matches.is_empty(), "{what}: rg found nothing; the case is meant to match");
        let whole = search(t, &case.refs());
        assert_same(&what, &as_rg_reports(&whole.matches), &expected);

        // Pages of 7 joined are the whole list, record for record.
        let mut paged: Vec<SearchMatch> = Vec::new();
        let mut offset = 0;
        loop {
            let (limit, from) = ("7".to_string(), offset.to_string());
            let mut flags = case.refs();
            flags.extend(["--limit", &limit, "--offset", &from]);
            let page = search(t, &flags);
            paged.extend(page.matches);
            match page.next_offset {
                Some(next) if next > offset => offset = next,
                _ => break,
            }
            if paged.len() >= 28 {
                break;
            }
        }
        assert_eq!(paged[..], whole.matches[..paged.len()], "{what}: pages differ from the whole list");

        // aide mcp's search answers the same matches and context.
        let reply = client.call("search", case.arguments.clone());
        let matches: Vec<SearchMatch> = serde_json::from_value(reply["structuredContent"]["matches"].clone())
            .unwrap_or_else(|e| panic!("{what}: aide mcp's search: {e}\n{}", reply["content"]));
        let mcp_spans: Vec<_> =
            matches.iter().map(|m| (&m.path, m.byte_start, &m.context_before, &m.context_after)).collect();
        let cli_spans: Vec<_> =
            whole.matches.iter().map(|m| (&m.path, m.byte_start, &m.context_before, &m.context_after)).collect();
        assert_eq!(mcp_spans[..], cli_spans[..mcp_spans.len()], "{what}: aide mcp differs from the command line");
        assert!(!mcp_spans.is_empty(), "{what}: aide mcp found nothing");
    }
}

#[test]
fn rust_code_searched_as_rg_does_with_every_flag() {
    if let Some(tree) = real_tree("rust", "rg") {
        check_tree(&tree);
    }
}

#[test]
fn python_code_searched_as_rg_does_with_every_flag() {
    if !aide_tests::oracle("python3", "search_matrix's Python tree") {
        return;
    }
    if let Some(tree) = real_tree("python", "rg") {
        check_tree(&tree);
    }
}

#[test]
fn go_code_searched_as_rg_does_with_every_flag() {
    if !aide_tests::oracle("go", "search_matrix's Go tree") {
        return;
    }
    if let Some(tree) = real_tree("go", "rg") {
        check_tree(&tree);
    }
}

/// Issue 47's reproducer: two matches inside one `-A`/`-B` window panicked.
#[test]
fn after_or_before_context_alone_gives_each_match_its_own_lines() {
    let t = TestDir::new();
    t.write("two.py", "def a():\ndef b():\n");
    let after = search(&t, &["-e", "def ", "-A", "1"]);
    let got: Vec<(usize, Vec<String>, Vec<String>)> =
        after.matches.into_iter().map(|m| (m.line, m.context_before, m.context_after)).collect();
    assert_eq!(got, [(1, vec![], vec!["def b():".to_string()]), (2, vec![], vec![])]);
    let before = search(&t, &["-e", "def ", "-B", "1"]);
    let got: Vec<(usize, Vec<String>, Vec<String>)> =
        before.matches.into_iter().map(|m| (m.line, m.context_before, m.context_after)).collect();
    assert_eq!(got, [(1, vec![], vec![]), (2, vec!["def a():".to_string()], vec![])]);
}

/// Random sets of the flags above (and paging, modes, captures) never make
/// llm-search panic or fail other than as a refused request.
#[test]
fn random_flag_sets_never_panic() {
    let t = TestDir::new();
    t.git_init();
    t.write(".gitignore", "ignored/\n");
    t.write("a.py", "def a():\n    return 1\ndef b():\n\n    return 2\r\ndef c(): pass");
    t.write("src/lib.rs", "fn x() {}\nfn y() {}\n// fn z\nfn w() {\n}\n");
    t.write("ignored/i.rs", "fn i() {}\n");
    t.write(".h/h.go", "func h() {\n\treturn\n}\n");
    t.write("bin.dat", b"fn \x00 fn\n".as_slice());
    let words: &[&[&str]] = &[
        &["-A", "0"],
        &["-A", "1"],
        &["-A", "3"],
        &["-B", "0"],
        &["-B", "1"],
        &["-B", "4"],
        &["-C", "0"],
        &["-C", "2"],
        &["-i"],
        &["-S"],
        &["-w"],
        &["-F"],
        &["-U"],
        &["--multiline-dotall"],
        &["--hidden"],
        &["--no-ignore"],
        &["--max-depth", "0"],
        &["--max-depth", "1"],
        &["-g", "*.py"],
        &["-g", "!src/**"],
        &["-t", "rust"],
        &["--limit", "1"],
        &["--limit", "0"],
        &["--offset", "2"],
        &["--offset", "99"],
        &["--mode", "files"],
        &["--mode", "count"],
        &["--captures"],
        &["--max-line-len", "3"],
        &["--max-output-bytes", "300"],
        &["-j", "1"],
        &["--jsonl"],
    ];
    let patterns = ["def |fn ", r"(\w+)\(\)", "^$", r"\n", "", "return", "(?m)$", "a.b", "é"];
    let mut rng = Xorshift(0x005e_ed47);
    for round in 0..120 {
        let mut args: Vec<&str> = vec!["-e", patterns[rng.below(patterns.len() as u64) as usize]];
        for _ in 0..rng.below(6) {
            args.extend_from_slice(words[rng.below(words.len() as u64) as usize]);
        }
        let json = !args.contains(&"--jsonl");
        let mut cmd = t.cmd("llm-search").args(&args);
        if json {
            cmd = cmd.arg("--json");
        }
        let out = cmd.output();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("round {round}: llm-search {args:?}\nstdout: {stdout}\nstderr: {stderr}");
        assert!(matches!(out.status.code(), Some(0..=2)), "{what}");
        assert!(!stdout.contains("\"internal\"") && !stderr.contains("panicked"), "{what}");
        if json {
            let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: {e}"));
            if out.status.code() == Some(2) {
                assert_eq!(doc["ok"], false, "{what}");
            }
        }
    }
}

/// `-A`/`-B` mixed with `-C`, in either order: an explicit side wins over
/// `-C`, as GNU grep (and ripgrep 14) read them.
#[test]
fn mixed_context_flags_read_as_grep_reads_them() {
    if !aide_tests::oracle("grep", "mixed -A/-B/-C against GNU grep (search_matrix)") {
        return;
    }
    let t = TestDir::new();
    t.write("ctx.txt", "a\nb\nc\nX\nd\ne\nf\ng\n");
    for flags in [&["-A", "3", "-C", "1"], &["-C", "1", "-A", "3"], &["-B", "0", "-C", "2"], &["-C", "2", "-B", "0"]] {
        let grep = Command::new("grep").args(flags).args(["X", "ctx.txt"]).current_dir(t.root()).output().unwrap();
        let lines: Vec<String> = String::from_utf8_lossy(&grep.stdout).lines().map(str::to_string).collect();
        let at = lines.iter().position(|l| l == "X").expect("grep prints the match");
        let mut args = flags.to_vec();
        args.extend(["-e", "X"]);
        let ours = search(&t, &args);
        let m = &ours.matches[0];
        assert_eq!((&m.context_before[..], &m.context_after[..]), (&lines[..at], &lines[at + 1..]), "{flags:?}");
    }
}
