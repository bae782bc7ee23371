//! llm-search behaviour an agent relies on.

use aide_tests::TestDir;
use aide_tests::wire::{Envelope, SearchResult};

pub(crate) fn search(t: &TestDir, args: &[&str], code: i32) -> Envelope<SearchResult> {
    t.cmd("llm-search").args(args).json(code)
}

fn spans(r: &SearchResult) -> Vec<(String, usize, usize)> {
    r.matches.iter().map(|m| (m.path.clone(), m.byte_start, m.byte_end)).collect()
}

#[test]
fn matches_are_sorted_by_path_bytes_then_offset() {
    let t = TestDir::new();
    t.write("b.txt", "x x\n").write("a/z.txt", "x\n").write("a.txt", "x\n").write("B.txt", "x\n");
    let r = search(&t, &["--pattern", "x"], 0).result;
    let got: Vec<_> = r.matches.iter().map(|m| (m.path.as_str(), m.byte_start)).collect();
    assert_eq!(got, [("B.txt", 0), ("a.txt", 0), ("a/z.txt", 0), ("b.txt", 0), ("b.txt", 2)]);
}

#[test]
fn spans_lines_and_unicode_columns_are_exact() {
    let t = TestDir::new();
    let text = "héllo wörld\r\n日本 wörld\nno newline wörld";
    t.write("u.txt", text);
    let r = search(&t, &["--pattern", "wörld"], 0).result;
    assert_eq!(r.matches.len(), 3);
    for m in &r.matches {
        assert_eq!(&text.as_bytes()[m.byte_start..m.byte_end], "wörld".as_bytes());
        assert_eq!(m.text, "wörld");
    }
    let pos: Vec<_> = r.matches.iter().map(|m| (m.line, m.column, m.end_line, m.end_column)).collect();
    assert_eq!(pos, [(1, 7, 1, 12), (2, 4, 2, 9), (3, 12, 3, 17)]);
    assert_eq!(r.matches[0].line_text, "héllo wörld", "CR is not part of the shown line");
    assert_eq!(r.matches[2].line_text, "no newline wörld");
}

#[test]
fn context_is_given_per_match_even_when_shared() {
    let t = TestDir::new();
    t.write("c.txt", "one\ntwo\nhit a\nhit b\nfive\nsix\n");
    let r = search(&t, &["--pattern", "hit", "-C", "1"], 0).result;
    assert_eq!(r.matches[0].context_before, ["two"]);
    assert_eq!(r.matches[0].context_after, ["hit b"]);
    assert_eq!(r.matches[1].context_before, ["hit a"]);
    assert_eq!(r.matches[1].context_after, ["five"]);
    let r = search(&t, &["--pattern", "one", "-B", "3", "-A", "2"], 0).result;
    assert!(r.matches[0].context_before.is_empty());
    assert_eq!(r.matches[0].context_after, ["two", "hit a"]);
}

#[test]
fn limit_offset_and_next_offset_page_through_the_sorted_list() {
    let t = TestDir::new();
    t.write("a.txt", "m\nm\nm\n").write("b.txt", "m\nm\n");
    let all = search(&t, &["--pattern", "m"], 0).result;
    assert_eq!((all.total_matches, all.truncated, all.next_offset), (5, false, None));
    assert!(all.totals_exact);
    // The page is full and a third match in a.txt shows more remain: the
    // search stops there, its totals a lower bound, and says so.
    let p1 = search(&t, &["--pattern", "m", "--limit", "2"], 0).result;
    let got = (p1.matches.len(), p1.total_matches, p1.files_searched, p1.truncated, p1.next_offset, p1.totals_exact);
    assert_eq!(got, (2, 3, 1, true, Some(2), false));
    let p2 = search(&t, &["--pattern", "m", "--limit", "2", "--offset", "2"], 0).result;
    assert_eq!((p2.total_matches, p2.truncated, p2.totals_exact), (5, true, false));
    let p3 = search(&t, &["--pattern", "m", "--limit", "2", "--offset", "4"], 0).result;
    assert_eq!((p3.next_offset, p3.total_matches, p3.totals_exact), (None, 5, true));
    let (text, _) = t.cmd("llm-search").args(["--pattern", "m", "--limit", "2"]).expect_exit(0);
    assert!(text.ends_with("[truncated: 2 of at least 3 matches shown; continue with --offset 2]\n"), "{text}");
    let paged: Vec<_> = [p1, p2, p3].iter().flat_map(spans).collect();
    assert_eq!(paged, spans(&all));
}

#[test]
fn a_limit_stops_the_search_early_and_the_same_way_every_time() {
    let t = TestDir::new();
    for i in 0..300 {
        t.write(&format!("d{}/f{i:03}.txt", i % 9), "hit\n");
    }
    // A link the walk reports (not followed) far past the page: not in a stopped run's diagnostics.
    #[cfg(unix)]
    std::os::unix::fs::symlink(t.root().join("d0"), t.root().join("zz-link")).unwrap();
    let runs: Vec<SearchResult> = ["1", "2", "8"]
        .iter()
        .map(|threads| {
            let env = search(&t, &["--pattern", "hit", "--limit", "3", "--threads", threads], 0);
            assert!(env.diagnostics.is_empty(), "{:?}", env.diagnostics);
            env.result
        })
        .collect();
    let paths: Vec<&str> = runs[0].matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["d0/f000.txt", "d0/f009.txt", "d0/f018.txt"]);
    assert_eq!((runs[0].files_searched, runs[0].total_matches, runs[0].totals_exact), (4, 4, false));
    assert!(runs.iter().all(|r| *r == runs[0]), "the same result whatever the threads");
    let whole = search(&t, &["--pattern", "hit"], 0);
    assert_eq!((whole.result.files_searched, whole.result.totals_exact), (300, true));
    // The link is counted, not warned.
    assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
    assert_eq!(whole.stats.skipped.symlink_not_followed, 1);
}

#[test]
fn max_output_bytes_cuts_at_a_whole_match_and_says_so() {
    let t = TestDir::new();
    t.write("a.txt", "match\n".repeat(50));
    let env = search(&t, &["--pattern", "match", "--max-output-bytes", "1000"], 0);
    let r = &env.result;
    assert!(r.truncated && !r.matches.is_empty() && r.matches.len() < 50);
    assert_eq!(r.next_offset, Some(r.matches.len()));
    let bytes: usize = r.matches.len() * serde_json::to_string(&serde_json::json!(null)).unwrap().len();
    assert!(bytes < 1000);
    assert!(env.diagnostics.iter().any(|d| d.code == "output_truncated"));
}

#[test]
fn files_and_count_modes_share_the_schema() {
    let t = TestDir::new();
    t.write("a.txt", "x x\nx\n").write("b.txt", "y\n").write("c.txt", "x\n");
    let f = search(&t, &["--pattern", "x", "--mode", "files"], 0).result;
    assert!(f.matches.is_empty());
    let files: Vec<_> = f.files.iter().map(|f| (f.path.as_str(), f.matches, f.lines)).collect();
    assert_eq!(files, [("a.txt", 3, 2), ("c.txt", 1, 1)]);
    assert_eq!((f.total_matches, f.files_with_matches, f.files_searched), (4, 2, 3));
    let (text, _) = t.cmd("llm-search").args(["--pattern", "x", "--mode", "count"]).expect_exit(0);
    assert_eq!(text, "a.txt:3\nc.txt:1\ntotal: 4 matches on 3 lines in 2 of 3 files\n");
}

#[test]
fn text_mode_is_editor_clickable() {
    let t = TestDir::new();
    t.write("src/a.rs", "fn main() {}\n  fn helper() {}\n");
    let (text, _) = t.cmd("llm-search").args(["--pattern", "fn"]).expect_exit(0);
    assert_eq!(text, "src/a.rs:1:1: fn main() {}\nsrc/a.rs:2:3:   fn helper() {}\n");
}

#[test]
fn text_mode_prints_a_line_once_and_warnings_once_per_code() {
    let t = TestDir::new();
    t.write("src/a.rs", "let foo = foo + foo;\nfoo\n");
    // Matches, then a NUL byte: the search of each stopped mid-way, which
    // changes the answer, so it is warned (once for the three).
    // (the NUL byte past the searcher's first buffer, where it is first seen).
    let late_nul = format!("foo\n{}\x00\x01 foo", "x\n".repeat(50_000));
    for name in ["a.dat", "b.dat", "c.dat"] {
        t.write(name, &late_nul);
    }
    // Binary from the start: skipped as rg skips them, counted, never warned.
    t.write("d.bin", b"\x00\x01 foo").write("e.bin", b"\x00 foo");
    let (text, stderr) = t.cmd("llm-search").args(["--pattern", "foo"]).expect_exit(0);
    assert!(text.starts_with("a.dat:1:1: foo\n"), "{text}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("llm-search: warning[binary_stopped]: 3 files, first a.dat: "), "{stderr}");
    assert!(stderr.trim_end().ends_with("(--json lists them)"), "{stderr}");
    // --quiet: not even that; --json still lists every match and file.
    let (_, stderr) = t.cmd("llm-search").args(["--pattern", "foo", "--quiet"]).expect_exit(0);
    assert_eq!(stderr, "");
    let r = search(&t, &["--pattern", "foo"], 0);
    assert_eq!(r.result.total_matches, 7);
    assert_eq!(r.diagnostics.len(), 3);
    assert_eq!(r.stats.skipped.binary_file, 2);
}

#[test]
fn a_mistyped_flag_gets_a_did_you_mean_and_a_missing_argument_is_named() {
    let t = TestDir::new();
    let e: aide_tests::wire::ErrorResult = t.cmd("llm-search").args(["--patern", "x"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.hint.unwrap().contains("'--pattern'"));
    let e: aide_tests::wire::ErrorResult = t.cmd("llm-read").json(2);
    assert!(e.error.message.contains("<PATH>"), "{}", e.error.message);
}

#[test]
fn grep_options_behave_as_in_ripgrep() {
    let t = TestDir::new();
    t.write("a.txt", "Foo foo FOO foobar a.b axb\n");
    let count = |args: &[&str]| search(&t, args, 0).result.total_matches;
    assert_eq!(count(&["--pattern", "foo"]), 2);
    assert_eq!(count(&["--pattern", "foo", "-i"]), 4);
    assert_eq!(count(&["--pattern", "foo", "--smart-case"]), 4);
    assert_eq!(count(&["--pattern", "Foo", "--smart-case"]), 1);
    assert_eq!(count(&["--pattern", "foo", "-i", "--word"]), 3);
    assert_eq!(count(&["--pattern", "a.b"]), 2);
    assert_eq!(count(&["--pattern", "a.b", "--fixed-strings"]), 1);
    assert_eq!(count(&["-e", "FOO", "-e", "axb"]), 2);
}

#[test]
fn multiline_matches_span_lines() {
    let t = TestDir::new();
    t.write("m.txt", "start\nfoo\nbar\nend\n");
    let e: aide_tests::wire::ErrorResult = t.cmd("llm-search").args(["--pattern", r"foo\nbar"]).json(2);
    assert_eq!(e.error.code, "invalid_pattern");
    assert!(e.error.hint.unwrap().contains("--multiline"));
    let r = search(&t, &["--pattern", r"foo\nbar", "--multiline"], 0).result;
    let m = &r.matches[0];
    assert_eq!((m.line, m.end_line, m.byte_start, m.byte_end), (2, 3, 6, 13));
    assert_eq!(m.line_text, "foo\nbar");
    let r = search(&t, &["--pattern", "foo.bar", "--multiline", "--multiline-dotall"], 0).result;
    assert_eq!(r.total_matches, 1);
}

#[test]
fn captures_report_group_spans_and_names() {
    let t = TestDir::new();
    t.write("a.rs", "let total = 42;\n");
    let r = search(&t, &["--pattern", r"let (?P<name>\w+) = (\d+)", "--captures"], 0).result;
    let caps = r.matches[0].captures.as_ref().unwrap();
    let got: Vec<_> = caps.iter().map(|c| (c.index, c.name.as_deref(), c.text.as_deref(), c.byte_start)).collect();
    assert_eq!(
        got,
        [
            (0, None, Some("let total = 42"), Some(0)),
            (1, Some("name"), Some("total"), Some(4)),
            (2, None, Some("42"), Some(12))
        ]
    );
}

#[test]
fn long_lines_are_cut_with_a_marker_but_spans_stay_exact() {
    let t = TestDir::new();
    let line = format!("{}needle{}\n", "a".repeat(300), "b".repeat(300));
    t.write("long.txt", &line);
    let r = search(&t, &["--pattern", "needle", "--max-line-len", "100"], 0).result;
    let m = &r.matches[0];
    assert!(m.line_truncated);
    assert!(m.line_text.ends_with("…[+506 chars]"), "{}", m.line_text);
    assert_eq!((m.byte_start, m.byte_end, m.column), (300, 306, 301));
}

#[test]
fn invalid_utf8_is_shown_lossily_with_exact_offsets() {
    let t = TestDir::new();
    t.write("bad.txt", b"ok \xff\xfe needle here\n".as_slice());
    let r = search(&t, &["--pattern", "needle"], 0).result;
    let m = &r.matches[0];
    assert_eq!((m.byte_start, m.byte_end), (6, 12));
    assert_eq!(m.column, 7, "each of the two invalid bytes is a sequence of its own: one column each");
    assert!(m.lossy);
    assert!(m.line_text.contains('\u{FFFD}'));
}

#[test]
fn skipped_files_are_reported_never_silent() {
    let t = TestDir::new();
    t.write("bin.dat", b"needle\x00binary".as_slice());
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("needle\n".encode_utf16().flat_map(u16::to_le_bytes));
    t.write("wide.txt", utf16);
    t.write("big.txt", format!("needle\n{}", "x".repeat(5000)));
    t.write("ok.txt", "needle\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(t.root().join("missing"), t.root().join("dangling")).unwrap();
    let env = search(&t, &["--pattern", "needle", "--max-filesize", "1K"], 0);
    let codes: Vec<_> = env.diagnostics.iter().map(|d| (d.code.as_str(), d.path.as_deref().unwrap_or(""))).collect();
    // What could hold a match the answer leaves out is warned.
    assert!(codes.contains(&("unsupported_encoding", "wide.txt")), "{codes:?}");
    assert!(codes.contains(&("file_too_large", "big.txt")), "{codes:?}");
    assert_eq!(codes.len(), 2, "{codes:?}");
    // Binary files and broken links are skipped as rg skips them: counted.
    assert_eq!(env.stats.skipped.binary_file, 1);
    #[cfg(unix)]
    assert_eq!(env.stats.skipped.broken_symlink, 1);
    assert_eq!(spans(&env.result), [("ok.txt".to_string(), 0, 6)]);
}

#[test]
fn ignore_rules_hidden_globs_and_types() {
    let t = TestDir::new();
    t.git_init();
    t.write(".gitignore", "target/\n")
        .write("target/x.rs", "hit\n")
        .write(".hidden/x.rs", "hit\n")
        .write("src/a.rs", "hit\n")
        .write("src/b.py", "hit\n")
        .write("docs/c.rs", "hit\n");
    let paths = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["--pattern", "hit"];
        a.extend_from_slice(args);
        search(&t, &a, 0).result.matches.into_iter().map(|m| m.path).collect()
    };
    assert_eq!(paths(&[]), ["docs/c.rs", "src/a.rs", "src/b.py"]);
    // As ripgrep, --hidden includes .git itself; agents exclude it with a glob.
    assert_eq!(paths(&["--hidden", "--glob", "!.git/"]), [".hidden/x.rs", "docs/c.rs", "src/a.rs", "src/b.py"]);
    assert_eq!(paths(&["--no-ignore"]), ["docs/c.rs", "src/a.rs", "src/b.py", "target/x.rs"]);
    assert_eq!(paths(&["--glob", "*.rs", "--glob", "!docs/"]), ["src/a.rs"]);
    assert_eq!(paths(&["--type", "python"]), ["src/b.py"]);
    let e: aide_tests::wire::ErrorResult = t.cmd("llm-search").args(["--pattern", "x", "--type", "cobol"]).json(2);
    assert_eq!(e.error.code, "unknown_language");
}

#[test]
fn no_match_exits_one_with_an_empty_result() {
    let t = TestDir::new();
    t.write("a.txt", "nothing here\n");
    let r = search(&t, &["--pattern", "needle"], 1).result;
    assert_eq!((r.total_matches, r.files_searched), (0, 1));
}

#[test]
fn match_ids_are_stable_and_output_identical_across_runs_and_thread_counts() {
    let t = TestDir::new();
    for i in 0..60 {
        t.write(&format!("d{}/f{i}.txt", i % 7), format!("alpha {i}\nbeta\nalpha again {i}\n"));
    }
    let run = |threads: &str| {
        let (out, _) =
            t.cmd("llm-search").args(["--pattern", "alpha", "-C", "1", "--threads", threads, "--json"]).expect_exit(0);
        let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["execution_id"] = serde_json::Value::Null;
        v["stats"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    let first = run("1");
    for threads in ["1", "2", "4", "8", "2"] {
        assert_eq!(run(threads), first, "threads={threads}");
    }
}

#[test]
fn max_output_bytes_counts_the_format_printed_and_the_note_says_the_total() {
    let t = TestDir::new();
    let body: String = (0..200).map(|i| format!("let value_{i} = compute({i});\n")).collect();
    t.write("a.rs", &body);
    // Text: the printed match lines stay under the budget, and the note says how many in all.
    let (text, _) = t.cmd("llm-search").args(["--pattern", "value_", "--max-output-bytes", "300"]).expect_exit(0);
    let (lines, note): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| !l.starts_with("[truncated"));
    let printed: usize = lines.iter().map(|l| l.len() + 1).sum();
    assert!(printed <= 300 && printed > 200, "{printed} bytes: {text}");
    assert_eq!(
        note,
        [format!("[truncated: {} of 200 matches shown; continue with --offset {}]", lines.len(), lines.len()).as_str()]
    );
    // JSON: the match records stay under the budget; text lines are shorter, so text shows more per page.
    let v: serde_json::Value = t.cmd("llm-search").args(["--pattern", "value_", "--max-output-bytes", "300"]).json(0);
    let records = v["matches"].as_array().unwrap();
    let json_bytes: usize = records.iter().map(|m| m.to_string().len() + 1).sum();
    assert!(
        json_bytes <= 300 && records.len() < lines.len(),
        "{} JSON records vs {} text lines",
        records.len(),
        lines.len()
    );
    let diag = v["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "output_truncated").unwrap();
    assert!(diag["message"].as_str().unwrap().contains(&format!("{} of 200", records.len())), "{diag}");
}

#[test]
fn every_page_advances_or_says_why_it_cannot() {
    let t = TestDir::new();
    t.write("a.txt", format!("{}\nshort x\n", "x".repeat(400)));
    // --limit 0 would hand back the offset it was given: refused.
    let v: serde_json::Value = t.cmd("llm-search").args(["--pattern", "x", "--limit", "0"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_arguments");
    for tool in [
        &["llm-ast-search", "--limit", "0"][..],
        &["llm-discover", "--limit", "0"],
        &["llm-read", "a.txt", "--limit", "0"],
    ] {
        t.cmd(tool[0]).args(&tool[1..]).expect_exit(2);
    }
    // One match larger than the budget is still shown, and the page advances.
    let v: serde_json::Value =
        t.cmd("llm-search").args(["--pattern", "x+", "--max-output-bytes", "50", "--max-line-len", "0"]).json(0);
    assert_eq!(v["matches"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["next_offset"], 1);
}

#[test]
fn threads_and_pattern_sizes_are_bounded() {
    let t = TestDir::new();
    t.write("a.txt", "needle\n");
    let v: serde_json::Value = t.cmd("llm-search").args(["--pattern", "needle", "--threads", "100000"]).json(0);
    assert_eq!(v["total_matches"], 1);
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "threads_capped"), "{v}");
    let v: serde_json::Value = t.cmd("llm-ast-search").args(["--threads", "100000"]).json(1);
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "threads_capped"), "{v}");
    // A pattern over 1 MiB is refused before it is compiled.
    let huge = "a".repeat((1 << 20) + 1);
    t.write("p.json", serde_json::json!({ "pattern": huge }).to_string());
    let v: serde_json::Value = t.cmd("llm-search").args(["--request", "p.json"]).json(2);
    assert_eq!(v["error"]["code"], "invalid_pattern", "{}", v["error"]);
}

#[test]
fn matches_before_a_binary_byte_do_not_depend_on_the_file_searched_before() {
    // b.txt: a needle per line for 70 KB, then a NUL: the matches before it are kept.
    let mut b = Vec::new();
    while b.len() < 70_000 {
        b.extend_from_slice(b"a needle in a haystack, line after line\n");
    }
    b.extend_from_slice(b"\0 binary from here\n");
    let alone = TestDir::new();
    alone.write("b.txt", &b);
    let expected = search(&alone, &["--pattern", "needle", "-j", "1"], 0).result.total_matches;
    assert!(expected > 1000, "{expected}");
    // a.txt, searched first on the same thread, has one 300 KB line: the
    // searcher's buffer grew for it, and must not make b.txt's first read
    // reach its NUL before any match is seen.
    let t = TestDir::new();
    t.write("a.txt", format!("{} needle\n", "x".repeat(300_000)));
    t.write("b.txt", &b);
    for args in [vec!["--pattern", "needle", "-j", "1"], vec!["--pattern", "needle", "-j", "1", "--limit", "1"]] {
        let r = search(&t, &args, 0).result;
        assert_eq!(r.total_matches, expected + 1, "{args:?}");
    }
    // JSONL, whose records are cut from the same result, agrees.
    let (jsonl, _) = t.cmd("llm-search").args(["--pattern", "needle", "-j", "1", "--jsonl"]).expect_exit(0);
    let summary: serde_json::Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
    assert_eq!(summary["total_matches"], expected + 1);
}

// Long because: one comparison per output form of the same search.
#[test]
fn streamed_text_and_jsonl_are_what_the_collected_search_prints() {
    let t = TestDir::new();
    for i in 0..12 {
        t.write(&format!("src/m{i:02}.rs"), format!("fn a{i}() {{ foo(); foo(); }}\n// foo\nlet x = 1;\nfoo\n"));
    }
    t.write("bin.dat", b"foo\0binary");
    t.write("z.txt", "no match here\n");
    // --max-output-bytes makes the search collect everything before printing.
    let collected = ["--max-output-bytes", "1000000000"];
    // A --limit stops the streamed search once more matches are certain:
    // its totals (and the footer saying them) are a lower bound, the rest
    // is the same.
    let strip = |s: &str, limited: bool| -> String {
        s.lines()
            .filter(|l| !(limited && l.contains("[truncated: ")))
            .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
                Ok(mut v) if v["type"] == "summary" => {
                    let mut unstable = vec!["execution_id", "stats"];
                    if limited {
                        unstable.extend(["total_matches", "total_lines", "files_searched", "files_with_matches"]);
                        unstable.extend(["totals_exact", "diagnostics"]);
                    }
                    for field in unstable {
                        v[field] = serde_json::Value::Null;
                    }
                    v.to_string()
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for args in [
        vec!["--pattern", "foo"],
        vec!["--pattern", "foo", "-C", "1", "--offset", "5", "--limit", "9"],
        vec!["--pattern", "foo", "--limit", "3", "--color", "always"],
        vec!["--pattern", "foo", "--offset", "1000"],
    ] {
        let limited = args.contains(&"--limit");
        let (streamed, _) = t.cmd("llm-search").args(&args).expect_exit(0);
        let (whole, _) = t.cmd("llm-search").args(&args).args(collected).expect_exit(0);
        assert_eq!(strip(&streamed, limited), strip(&whole, limited), "text {args:?}");
        let (streamed, _) = t.cmd("llm-search").args(&args).arg("--jsonl").expect_exit(0);
        let (whole, _) = t.cmd("llm-search").args(&args).arg("--jsonl").args(collected).expect_exit(0);
        assert_eq!(strip(&streamed, limited), strip(&whole, limited), "jsonl {args:?}");
    }
    // A streamed run is logged whole: its page of matches is in the log.
    let (jsonl, _) = t.cmd("llm-search").args(["--pattern", "foo", "--limit", "4", "--jsonl"]).expect_exit(0);
    let summary: serde_json::Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
    let id = summary["execution_id"].as_str().unwrap();
    let (stored, _) = t.cmd("aide").args(["log", "show", id, "--json"]).expect_exit(0);
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["matches"].as_array().unwrap().len(), 4, "{stored}");
    assert_eq!(stored["total_matches"], summary["total_matches"]);
    // The very document a --json run of the same request prints.
    let (json, _) = t.cmd("llm-search").args(["--pattern", "foo", "--limit", "4", "--json"]).expect_exit(0);
    let mut json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut stored = stored;
    for doc in [&mut json, &mut stored] {
        doc["execution_id"] = serde_json::Value::Null;
        doc["stats"] = serde_json::Value::Null;
    }
    assert_eq!(stored, json);
    // A streamed page over what the log keeps is not held for it: the run
    // is logged by size, as any oversized result, and printed whole.
    // (Text prints a line with two matches once.)
    for (format, lines) in [("--jsonl", 48), ("--color=never", 36)] {
        let (out, _) = t
            .cmd("llm-search")
            .args(["--pattern", "foo", format])
            .env("AIDE_LOG_MAX_RESULT_BYTES", "2000")
            .expect_exit(0);
        assert_eq!(out.lines().filter(|l| l.contains("foo")).count(), lines, "{out}");
        let runs: serde_json::Value =
            serde_json::from_str(&t.cmd("aide").args(["log", "list", "--limit", "1", "--json"]).expect_exit(0).0)
                .unwrap();
        let run = &runs["runs"][0];
        assert_eq!(run["result_capped"], true, "{run}");
        assert!(run["result_bytes"].as_u64().unwrap() > 2000, "{run}");
    }
}

#[test]
fn a_compact_json_document_is_the_one_the_structs_give_printed_and_logged_whole() {
    // Compact --json serializes each file's matches where they are found
    // and splices them into the document; --pretty builds it from the
    // structs. Both must be the same document, and the log must keep the
    // very bytes printed.
    let t = TestDir::new();
    for i in 0..12 {
        t.write(&format!("src/m{i:02}.rs"), format!("fn a{i}() {{ foo(); foo(); }}\n// foo\nlet x = 1;\nfoo\n"));
    }
    t.write("quote.txt", "a \"foo\" \\ foo\tbar\n");
    t.write("z.txt", "no match here\n");
    for args in [
        vec!["--pattern", "foo"],
        vec!["--pattern", "f(o)o", "--captures", "-C", "1"],
        // A page: searched in path order, cut inside a file's records.
        vec!["--pattern", "foo", "--offset", "3", "--limit", "6"],
        vec!["--pattern", "foo", "--offset", "2", "--limit", "1", "-C", "1"],
        vec!["--pattern", "nothing-matches-this"],
    ] {
        let found = if args.contains(&"nothing-matches-this") { 1 } else { 0 };
        let (compact, _) = t.cmd("llm-search").args(&args).arg("--json").expect_exit(found);
        let (pretty, _) = t.cmd("llm-search").args(&args).arg("--pretty").expect_exit(found);
        let printed: serde_json::Value = serde_json::from_str(&compact).unwrap();
        let mut from_structs: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        from_structs["execution_id"] = printed["execution_id"].clone();
        from_structs["stats"] = printed["stats"].clone();
        assert_eq!(compact.trim_end(), from_structs.to_string(), "{args:?}");
        let id = printed["execution_id"].as_str().unwrap();
        let (stored, _) = t.cmd("aide").args(["log", "show", id, "--json"]).expect_exit(0);
        assert_eq!(stored.trim_end(), compact.trim_end(), "{args:?}");
    }
    // Over what the log keeps: printed whole, logged by its size.
    let (compact, _) = t
        .cmd("llm-search")
        .args(["--pattern", "foo", "--json"])
        .env("AIDE_LOG_MAX_RESULT_BYTES", "2000")
        .expect_exit(0);
    let printed: serde_json::Value = serde_json::from_str(&compact).unwrap();
    assert_eq!(printed["matches"].as_array().unwrap().len(), 50, "{compact}");
    let runs: serde_json::Value =
        serde_json::from_str(&t.cmd("aide").args(["log", "list", "--limit", "1", "--json"]).expect_exit(0).0).unwrap();
    let run = &runs["runs"][0];
    assert_eq!(run["result_capped"], true, "{run}");
    assert_eq!(run["result_bytes"].as_u64().unwrap(), compact.trim_end().len() as u64, "{run}");
}
