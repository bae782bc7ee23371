//! llm-read: numbered lines, exact ranges, checksums to edit against.

use aide_tests::TestDir;
use serde_json::Value;

fn read(t: &TestDir, args: &[&str], code: i32) -> Value {
    t.cmd("llm-read").args(args).json(code)
}

#[test]
fn text_mode_numbers_lines_like_cat_n() {
    let t = TestDir::new();
    t.write("a.txt", "alpha\nbeta\ngamma\n");
    let (out, _) = t.cmd("llm-read").args(["a.txt", "--lines", "2:3"]).expect_exit(0);
    // Under a header with the checksum an edit passes back (issue 33).
    let sum = "4fdbc441ea7b546100e086ac1e4fc5ae6749b7314311c99db05be450eca12996";
    assert_eq!(out, format!("==> a.txt <== lines 2-3 of 3, sha256 {sum}\n     2\tbeta\n     3\tgamma\n"));
}

#[test]
fn json_gives_range_offsets_and_the_sha256sum_checksum() {
    let t = TestDir::new();
    let body = "fn main() {\r\n    println!(\"hi\");\r\n}\r\n";
    t.write("src/main.rs", body);
    let v = read(&t, &["src/main.rs", "--offset", "1", "--limit", "1"], 0);
    let f = &v["files"][0];
    assert_eq!(f["content"], "    println!(\"hi\");\r\n");
    assert_eq!(
        (f["start_line"].as_u64(), f["end_line"].as_u64(), f["line_count"].as_u64()),
        (Some(2), Some(2), Some(3))
    );
    let (s, e) = (f["byte_start"].as_u64().unwrap() as usize, f["byte_end"].as_u64().unwrap() as usize);
    assert_eq!(&body[s..e], "    println!(\"hi\");\r\n");
    assert_eq!(
        (f["eol"].as_str(), f["bom"].as_bool(), f["final_newline"].as_bool()),
        (Some("crlf"), Some(false), Some(true))
    );
    assert_eq!(f["next_offset"], 2);
    let sum = std::process::Command::new("sha256sum").arg(t.root().join("src/main.rs")).output().unwrap();
    let expected = String::from_utf8_lossy(&sum.stdout).split_whitespace().next().unwrap().to_string();
    assert_eq!(f["checksum"], expected.as_str());
}

#[test]
fn several_files_one_unreadable_is_an_entry_not_a_failure() {
    let t = TestDir::new();
    t.write("ok.txt", "fine\n").write("bin.dat", b"\x00\x01".as_slice());
    let v = read(&t, &["ok.txt", "missing.txt", "bin.dat"], 1);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files[0]["ok"], true);
    assert_eq!((files[1]["ok"].as_bool(), files[1]["error"]["code"].as_str()), (Some(false), Some("not_found")));
    assert!(files[2]["error"]["message"].as_str().unwrap().contains("binary"));
    let e = read(&t, &["missing.txt"], 2);
    assert_eq!(e["error"]["code"], "not_found");
    let e = read(&t, &["../outside.txt"], 2);
    assert_eq!(e["error"]["code"], "path_outside_root");
}

#[test]
fn a_range_past_the_end_says_how_long_the_file_is() {
    let t = TestDir::new();
    let body: String = (1..=682).map(|i| format!("line {i}\n")).collect();
    t.write("long.txt", &body).write("short.txt", "a\nb\n").write("empty.txt", "");
    let (out, err) = t.cmd("llm-read").args(["long.txt", "--lines", "900:1000"]).expect_exit(3);
    assert!(out.is_empty() && err.contains("invalid_span") && err.contains("has 682 lines"), "{err}");
    let v: serde_json::Value = t.cmd("llm-read").args(["long.txt", "--offset", "682"]).json(3);
    assert_eq!(
        (v["error"]["code"].as_str(), v["error"]["details"]["line_count"].as_u64()),
        (Some("invalid_span"), Some(682))
    );
    // The last line, and an empty file read from its start, are not errors.
    let last: serde_json::Value = t.cmd("llm-read").args(["long.txt", "--lines", "682:700"]).json(0);
    assert_eq!(last["files"][0]["content"], "line 682\n");
    let empty: serde_json::Value = t.cmd("llm-read").args(["empty.txt"]).json(0);
    assert_eq!((empty["files"][0]["content"].as_str(), empty["files"][0]["line_count"].as_u64()), (Some(""), Some(0)));
    // With several files, the short one is an entry with the error, in text and JSON alike.
    let (text, _) = t.cmd("llm-read").args(["long.txt", "short.txt", "--lines", "600:601"]).expect_exit(1);
    assert!(text.contains("   600\tline 600") && text.contains("error[invalid_span]: short.txt has 2 lines"), "{text}");
    let v: serde_json::Value = t.cmd("llm-read").args(["long.txt", "short.txt", "--lines", "600:601"]).json(1);
    assert_eq!(v["files"][1]["error"]["code"], "invalid_span");
}
