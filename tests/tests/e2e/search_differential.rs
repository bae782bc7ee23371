//! Differential tests: llm-search reports the same (path, line, byte_start,
//! byte_end) set as `rg --json` for a suite of patterns on a generated tree
//! with Unicode, CRLF, invalid UTF-8, long lines, ignored and hidden files.

use std::collections::BTreeSet;

use aide_tests::TestDir;
use aide_tests::ripgrep::{Span, rg_spans};
use aide_tests::wire::{Envelope, SearchResult};

fn our_spans(t: &TestDir, args: &[&str]) -> BTreeSet<Span> {
    let out = t.cmd("llm-search").args(args).args(["--json", "--max-line-len", "0"]).output();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let env: Envelope<SearchResult> = serde_json::from_slice(&out.stdout).expect("our json");
    env.result.matches.into_iter().map(|m| (m.path, m.line, m.byte_start, m.byte_end)).collect()
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
    t.write("src/lib.rs", "pub struct User { name: String }\npub struct UserId(u64);\nimpl User {\n    pub fn new() -> Self { Self { name: String::new() } }\n}\n");
    t.write("src/crlf.rs", "fn crlf_one() {}\r\nfn crlf_two() {}\r\nfoo\r\nbar\r\n");
    t.write("src/no_newline.py", "def foo():\n    return 'café'\n# foo at end");
    t.write("docs/unicode.md", "Ünïcödé foo wörds\nΑλφα βήτα foo γάμμα\n日本語 foo テキスト\nemoji 🦀 foo 🦀\n");
    t.write("data/latin1.txt", b"caf\xe9 foo na\xefve\n\xff\xfe foo bytes\nplain foo\n".as_slice());
    t.write("data/long.txt", format!("{}foo{}\nshort foo\n", "x".repeat(5000), "y".repeat(5000)));
    t.write("data/binary.bin", b"foo\x00\x01\x02foo".as_slice());
    t.write("deep/a/b/c/d/e.txt", "foo\nbar\nfoo bar\nFOO BAR\na.b axb a.b\nFoo Bar baz\n");
    for i in 0..30 {
        t.write(&format!("many/f{i:02}.txt"), format!("line {i} foo\nbar {i}\nfoo{i} foobar\n"));
    }
    t
}

#[test]
fn same_matches_as_ripgrep_for_a_suite_of_patterns() {
    if !aide_tests::oracle("rg", "llm-search reports ripgrep's match set (search_differential)") {
        return;
    }
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
        assert!(!expected.is_empty(), "rg found nothing for {flags:?} {patterns:?}; the suite is meant to match");
        assert_eq!(
            got,
            expected,
            "case {flags:?} {patterns:?}: ours vs rg\nonly ours: {:?}\nonly rg: {:?}",
            got.difference(&expected).collect::<Vec<_>>(),
            expected.difference(&got).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_path_named_is_searched_as_ripgrep_searches_it() {
    if !aide_tests::oracle("rg", "llm-search searches the paths it is given as ripgrep does") {
        return;
    }
    let t = generated_tree();
    t.write("debug.log", "foo in a log\n");
    // A file named is searched though it is ignored, hidden, or left out by
    // a glob or a type; a folder named is walked though it is ignored, its
    // filters applying beneath it; --max-depth counts from the path named.
    let cases: &[&[&str]] = &[
        &["debug.log"],
        &["ignored"],
        &["ignored/skip.rs"],
        &[".hidden/h.rs"],
        &["--glob", "*.py", "src/main.rs"],
        &["--type", "python", "src/main.rs"],
        &["src/main.rs", "ignored", "debug.log"],
        &["--max-depth", "1", "src"],
        &["src", "src/main.rs"],
    ];
    for case in cases {
        let mut ours = vec!["--pattern", r"fn|foo"];
        ours.extend_from_slice(case);
        // ripgrep's name for the type is its own.
        let mut rg = vec!["--regexp", r"fn|foo"];
        rg.extend(case.iter().map(|a| if *a == "python" { "py" } else { *a }));
        let expected = rg_spans(t.root(), &rg);
        assert!(!expected.is_empty(), "rg found nothing for {case:?}");
        assert_eq!(our_spans(&t, &ours), expected, "case {case:?}: ours vs rg");
    }
    // Paths given in any order stream in path order (a folder's files as
    // `dir/…`, after `dir-x`), as the whole tree's do.
    t.write("a/b.rs", "foo\n").write("a-c/z.rs", "foo\n").write("a-b.rs", "foo\n");
    let (text, _) = t.cmd("llm-search").args(["--pattern", "foo", "a", "a-c", "a-b.rs"]).expect_exit(0);
    let order: Vec<&str> = text.lines().filter_map(|l| l.split(':').next()).collect();
    assert_eq!(order, ["a-b.rs", "a-c/z.rs", "a/b.rs"], "{text}");
}
