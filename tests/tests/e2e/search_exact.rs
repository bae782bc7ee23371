//! What llm-search guarantees of each answer: the checksum of the very bytes searched, the same matches from either walk, a cost bounded by the file on long lines, and bidi controls escaped in text.

use aide_tests::TestDir;

use crate::search::search;

#[test]
fn a_remembered_checksum_is_never_the_checksum_of_another_version() {
    // Large files' checksums are remembered between runs, keyed on the
    // file's identity and change times, and only once the file has settled.
    let t = TestDir::new();
    let mut big = String::new();
    while big.len() < 300 * 1024 {
        big.push_str("needle in a long file, line after line\n");
    }
    t.write("big.txt", &big);
    t.write("small.txt", "needle\n");
    let checksum_of = |t: &TestDir| {
        // Both walks: in path order (a page), and parallel (the whole result).
        let page = search(t, &["--pattern", "needle", "--limit", "1"], 0).result;
        let whole = search(t, &["--pattern", "needle"], 0).result;
        assert_eq!((page.matches[0].path.as_str(), whole.matches[0].path.as_str()), ("big.txt", "big.txt"));
        assert_eq!(page.matches[0].checksum, whole.matches[0].checksum);
        whole.matches[0].checksum.clone()
    };
    let cache = t.home().join("cache/checksums");
    let remembers = |sum: &str| {
        let raw: Vec<u8> = (0..32).map(|i| u8::from_str_radix(&sum[i * 2..i * 2 + 2], 16).unwrap()).collect();
        std::fs::read(&cache).is_ok_and(|bytes| bytes.windows(32).any(|w| w == raw.as_slice()))
    };
    // Just written: searched, hashed, and not remembered (when the runs
    // ended before the file could settle: a loaded machine may be slower).
    let written = std::time::Instant::now();
    let first = checksum_of(&t);
    assert_eq!(first, aide_core::checksum::sha256_hex(big.as_bytes()));
    if written.elapsed() + std::time::Duration::from_millis(100) < aide_core::checksum::cache::SETTLED {
        assert!(!remembers(&first));
    }
    // Settled: remembered, and given again while the file stays as it is.
    std::thread::sleep(aide_core::checksum::cache::SETTLED + std::time::Duration::from_millis(200));
    assert_eq!(checksum_of(&t), first);
    assert!(remembers(&first));
    assert_eq!(checksum_of(&t), first);
    // The same size and modification time, other bytes (as a tool that
    // restores mtimes leaves it): the change time moved, so it is hashed.
    let path = t.root().join("big.txt");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let changed = big.replacen("long", "LONG", 1);
    std::fs::write(&path, &changed).unwrap();
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), big.len() as u64);
    assert_eq!(checksum_of(&t), aide_core::checksum::sha256_hex(changed.as_bytes()));
}

#[test]
fn a_large_file_gets_the_checksum_of_its_bytes_and_every_match() {
    let t = TestDir::new();
    // Over the size a search copies for its checksum: searched again, hashed as read.
    let mut big = String::from("needle at the start\n");
    while big.len() < 700 * 1024 {
        big.push_str("filler line without the word\n");
    }
    big.push_str("needle at the end\n");
    t.write("big.txt", &big);
    // With a NUL byte far past its only match: the rest is read for the checksum.
    let mut binary = b"needle first\n".to_vec();
    binary.resize(600 * 1024, b'x');
    binary.push(0);
    binary.extend_from_slice(b"needle after the NUL\n");
    t.write("bin.dat", &binary);
    t.write("small.txt", "needle\n");
    let r = search(&t, &["--pattern", "needle"], 0).result;
    let got: Vec<(&str, usize)> = r.matches.iter().map(|m| (m.path.as_str(), m.byte_start)).collect();
    assert_eq!(
        got,
        [("big.txt", 0), ("big.txt", big.len() - "needle at the end\n".len()), ("bin.dat", 0), ("small.txt", 0)]
    );
    for m in &r.matches {
        let bytes = std::fs::read(t.root().join(&m.path)).unwrap();
        assert_eq!(m.checksum, aide_core::checksum::sha256_hex(&bytes), "{}", m.path);
    }
    // Streamed (JSONL) the same.
    let (jsonl, _) = t.cmd("llm-search").args(["--pattern", "needle", "--jsonl"]).expect_exit(0);
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["checksum"], r.matches[0].checksum);
}

#[test]
fn the_ordered_and_the_parallel_walk_find_the_same_matches_and_diagnostics() {
    // JSONL walks in path order, JSON in parallel and sorts: on a tree with
    // ignore files, hidden and unreadable folders, links and odd names, the
    // records, totals and diagnostics must be the same.
    let t = TestDir::new();
    t.git_init();
    t.write(".gitignore", "ignored/\n*.log\n")
        .write("ignored/x.txt", "hit\n")
        .write("a.log", "hit\n")
        .write(".hidden/h.txt", "hit\n")
        .write("a-b/x.txt", "hit\n")
        .write("a.txt", "hit hit\n")
        .write("a/x.txt", "hit\n")
        .write("a/b/c/d/deep.txt", "hit\n")
        .write("sub/.ignore", "skip.txt\n")
        .write("sub/skip.txt", "hit\n")
        .write("sub/keep.txt", "hit\n")
        .write("bin.dat", b"hit\0binary".as_slice())
        .write("Z.txt", "hit\n")
        .write("_u.txt", "hit\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::os::unix::fs::symlink(t.root().join("a"), t.root().join("link-to-a")).unwrap();
        std::os::unix::fs::symlink(t.root().join("nowhere"), t.root().join("dangling")).unwrap();
        std::os::unix::fs::symlink("/", t.root().join("to-root")).unwrap();
        // A loop, once followed.
        std::os::unix::fs::symlink("..", t.root().join("a/b/up")).unwrap();
        t.write("locked/x.txt", "hit\n");
        std::fs::set_permissions(t.root().join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    for extra in [&[][..], &["--follow"], &["--hidden", "--glob", "!.git/"], &["--max-depth", "2"], &["--no-ignore"]] {
        let mut args = vec!["--pattern", "hit"];
        args.extend_from_slice(extra);
        let (json, _) = t.cmd("llm-search").args(&args).arg("--json").expect_exit(0);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let (jsonl, _) = t.cmd("llm-search").args(&args).arg("--jsonl").expect_exit(0);
        let lines: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let (summary, records) = lines.split_last().unwrap();
        let records: Vec<serde_json::Value> = records
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().shift_remove("type");
                r
            })
            .collect();
        assert_eq!(&records, json["matches"].as_array().unwrap(), "{extra:?}");
        for field in ["total_matches", "total_lines", "files_searched", "files_with_matches", "diagnostics"] {
            assert_eq!(summary[field], json[field], "{extra:?}: {field}");
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(t.root().join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Issue 31: every match on one long line recounted the line (a 256 KiB
/// line took 9.8 s, 512 KiB 81 s), and `-C 1000000000` looked up every line
/// number of the context for every match. Both now cost what the file has.
#[test]
fn a_long_line_of_many_matches_and_a_huge_context_cost_what_the_file_has() {
    let t = TestDir::new();
    // 10,000 matches on one 70 KB line, with two-byte characters between them.
    let unit = "é ab ";
    t.write("long.txt", format!("{}\n", unit.repeat(10_000)));
    let r = search(&t, &["--pattern", "b", "--max-output-bytes", "0"], 0).result;
    assert_eq!(r.total_matches, 10_000);
    for (i, m) in r.matches.iter().enumerate().step_by(997) {
        // Each unit is 5 characters, 6 bytes; `b` is its 4th character.
        assert_eq!((m.line, m.column, m.byte_start), (1, i * 5 + 4, i * 6 + 4), "match {i}");
        assert!(m.line_text.starts_with("é ab é ab"), "{}", &m.line_text[..20]);
    }
    for i in 0..50 {
        t.write(&format!("c/{i:02}.txt"), format!("before\nx{i}\nafter\n"));
    }
    let r = search(&t, &["--pattern", "^x", "-C", "1000000000", "--glob", "c/*"], 0).result;
    assert_eq!(r.matches.len(), 50);
    assert!(r.matches.iter().all(|m| m.context_before == ["before"] && m.context_after == ["after"]));
}

/// Issue 31: a right-to-left override in a name was printed raw in text
/// mode, so `evil<U+202E>txt.rs` read as `evilsr.txt`. Text escapes it (and
/// the other bidi controls, in lines too); JSON keeps the exact name.
#[test]
fn bidi_controls_are_escaped_in_text_and_exact_in_json() {
    let t = TestDir::new();
    t.write("evil\u{202e}txt.rs", "alpha \u{2066}hidden\u{2069}\n");
    let (text, _) = t.cmd("llm-search").args(["--pattern", "alpha"]).expect_exit(0);
    assert_eq!(text, "evil\\u{202e}txt.rs:1:1: alpha \\u{2066}hidden\\u{2069}\n");
    let r = search(&t, &["--pattern", "alpha"], 0).result;
    assert_eq!(r.matches[0].path, "evil\u{202e}txt.rs");
}
