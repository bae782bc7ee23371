//! Differential tests: llm-search reports the same (path, line, byte_start,
//! byte_end) set as `rg --json` for a suite of patterns on a generated tree
//! with Unicode, CRLF, invalid UTF-8, long lines, ignored and hidden files.

use std::collections::BTreeSet;
use std::process::Command;

use aide_tests::TestDir;
use aide_tests::wire::{Envelope, SearchResult};
use serde_json::Value;

type Span = (String, usize, usize, usize);

/// The match set ripgrep reports.
fn rg_spans(root: &std::path::Path, args: &[&str]) -> BTreeSet<Span> {
    assert!(
        aide_tests::have("rg"),
        "ripgrep (rg) is required for the differential tests: apt-get install ripgrep"
    );
    let out = Command::new("rg")
        .args(["--json", "--no-config", "--no-messages"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("run rg");
    let mut set = BTreeSet::new();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("rg json");
        if v["type"] != "match" {
            continue;
        }
        let d = &v["data"];
        let path = d["path"]["text"]
            .as_str()
            .expect("utf-8 path")
            .trim_start_matches("./")
            .to_string();
        let base = d["absolute_offset"].as_u64().expect("offset") as usize;
        let first_line = d["line_number"].as_u64().expect("line") as usize;
        let lines = d["lines"]["text"]
            .as_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_else(|| {
                use std::io::Read;
                let b64 = d["lines"]["bytes"].as_str().expect("bytes");
                let mut out = Vec::new();
                base64_decode(b64)
                    .as_slice()
                    .read_to_end(&mut out)
                    .expect("decode");
                out
            });
        for sm in d["submatches"].as_array().expect("submatches") {
            let s = sm["start"].as_u64().expect("start") as usize;
            let e = sm["end"].as_u64().expect("end") as usize;
            let line = first_line + lines[..s].iter().filter(|&&b| b == b'\n').count();
            set.insert((path.clone(), line, base + s, base + e));
        }
    }
    set
}

fn our_spans(t: &TestDir, args: &[&str]) -> BTreeSet<Span> {
    let out = t
        .cmd("llm-search")
        .args(args)
        .args(["--json", "--max-line-len", "0"])
        .output();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let env: Envelope<SearchResult> = serde_json::from_slice(&out.stdout).expect("our json");
    env.result
        .matches
        .into_iter()
        .map(|m| (m.path, m.line, m.byte_start, m.byte_end))
        .collect()
}

fn base64_decode(s: &str) -> Vec<u8> {
    let table = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a' + 26),
            b'0'..=b'9' => u32::from(c - b'0' + 52),
            b'+' => 62,
            _ => 63,
        }
    };
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= table(c) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

fn generated_tree() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.write(".gitignore", "ignored/\n*.log\n");
    t.write("ignored/skip.rs", "fn ignored_fn() {}\n");
    t.write("debug.log", "foo in a log\n");
    t.write(".hidden/h.rs", "fn hidden() { foo }\n");
    t.write(
        "src/main.rs",
        "use std::io;\n\nfn main() {\n    let foo = bar();\n    println!(\"{foo}\");\n}\n\nfn bar() -> u32 { 42 }\n",
    );
    t.write("src/lib.rs", "pub struct User { name: String }\npub struct UserId(u64);\nimpl User {\n    pub fn new() -> Self { todo!() }\n}\n");
    t.write(
        "src/crlf.rs",
        "fn crlf_one() {}\r\nfn crlf_two() {}\r\nfoo\r\nbar\r\n",
    );
    t.write(
        "src/no_newline.py",
        "def foo():\n    return 'café'\n# foo at end",
    );
    t.write(
        "docs/unicode.md",
        "Ünïcödé foo wörds\nΑλφα βήτα foo γάμμα\n日本語 foo テキスト\nemoji 🦀 foo 🦀\n",
    );
    t.write(
        "data/latin1.txt",
        b"caf\xe9 foo na\xefve\n\xff\xfe foo bytes\nplain foo\n".as_slice(),
    );
    t.write(
        "data/long.txt",
        format!("{}foo{}\nshort foo\n", "x".repeat(5000), "y".repeat(5000)),
    );
    t.write("data/binary.bin", b"foo\x00\x01\x02foo".as_slice());
    t.write(
        "deep/a/b/c/d/e.txt",
        "foo\nbar\nfoo bar\nFOO BAR\na.b axb a.b\nFoo Bar baz\n",
    );
    for i in 0..30 {
        t.write(
            &format!("many/f{i:02}.txt"),
            format!("line {i} foo\nbar {i}\nfoo{i} foobar\n"),
        );
    }
    t
}

#[test]
fn same_matches_as_ripgrep_for_a_suite_of_patterns() {
    let t = generated_tree();
    // (flags, patterns): flags are spelled as both tools accept them.
    let suite: &[(&[&str], &[&str])] = &[
        (&[], &["foo"]),
        (&[], &[r"fn\s+\w+"]),
        (&["-i"], &["FOO"]),
        (&["--smart-case"], &["foo"]),
        (&["--smart-case"], &["Foo"]),
        (&["-w"], &["foo"]),
        (&["-F"], &["a.b"]),
        (&["-F"], &["{foo}"]),
        (&[], &[r"\w+"]),
        (&[], &[r"é|ö|🦀"]),
        (&[], &[r"\p{Greek}+"]),
        (&[], &["(?-u:\\xff)"]),
        (&[], &["^fn"]),
        (&[], &["bar$"]),
        (&["-U"], &[r"foo\nbar"]),
        (&["-U"], &[r"foo\r\nbar"]),
        (&[], &["User", "bar"]),
        (&["-F"], &["foo", "a.b"]),
        (&["--hidden"], &["foo"]),
        (&["--no-ignore"], &["foo"]),
        (&["--glob", "*.rs"], &["fn"]),
        (&["--glob", "!many/"], &["foo"]),
        (&["-w", "-i"], &["foo|bar"]),
    ];
    for (flags, patterns) in suite {
        let mut ours: Vec<&str> = flags.to_vec();
        let mut rg: Vec<&str> = flags.to_vec();
        for p in *patterns {
            ours.extend(["--pattern", p]);
            rg.extend(["--regexp", p]);
        }
        let expected = rg_spans(t.root(), &rg);
        let got = our_spans(&t, &ours);
        assert!(
            !expected.is_empty(),
            "rg found nothing for {flags:?} {patterns:?}; the suite is meant to match"
        );
        assert_eq!(
            got,
            expected,
            "case {flags:?} {patterns:?}: ours vs rg\nonly ours: {:?}\nonly rg: {:?}",
            got.difference(&expected).collect::<Vec<_>>(),
            expected.difference(&got).collect::<Vec<_>>()
        );
    }
}
