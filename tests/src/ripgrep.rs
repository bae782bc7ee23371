//! ripgrep as an oracle: the match set `rg --json` reports, for differential
//! tests and for the benchmark's correctness check.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// (path relative to the searched directory, line of the match start,
/// byte_start, byte_end).
pub type Span = (String, usize, usize, usize);

/// The matches `rg --json ARGS` reports when run in `root`.
pub fn rg_spans(root: &Path, args: &[&str]) -> BTreeSet<Span> {
    rg_report(root, args).matches
}

/// What `rg --json` printed for one search, line by line: every match's
/// span, every line a match covers, and every context line with its text
/// (terminator removed, bytes that are not UTF-8 shown lossily).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RgReport {
    pub matches: BTreeSet<Span>,
    pub matched_lines: BTreeSet<(String, usize)>,
    pub context: BTreeSet<(String, usize, String)>,
}

/// [`RgReport`] of `rg --json ARGS` run in `root`.
pub fn rg_report(root: &Path, args: &[&str]) -> RgReport {
    assert!(
        crate::programs::have("rg"),
        "ripgrep (rg) is required for the differential tests: apt-get install ripgrep"
    );
    let out = Command::new("rg")
        .args(["--json", "--no-config", "--no-messages"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("run rg");
    let mut report = RgReport::default();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("rg json");
        let kind = v["type"].as_str().unwrap_or_default();
        if kind != "match" && kind != "context" {
            continue;
        }
        let d = &v["data"];
        let Some(path) = d["path"]["text"].as_str() else { continue };
        let path = path.trim_start_matches("./").to_string();
        let first_line = d["line_number"].as_u64().expect("line") as usize;
        let lines = match d["lines"]["text"].as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => base64_decode(d["lines"]["bytes"].as_str().expect("bytes")),
        };
        if kind == "context" {
            report.context.insert((path, first_line, line_text(&lines)));
            continue;
        }
        let covered = lines.split(|&b| b == b'\n').count() - usize::from(lines.ends_with(b"\n"));
        for n in first_line..first_line + covered.max(1) {
            report.matched_lines.insert((path.clone(), n));
        }
        let base = d["absolute_offset"].as_u64().expect("offset") as usize;
        for sm in d["submatches"].as_array().expect("submatches") {
            let s = sm["start"].as_u64().expect("start") as usize;
            let e = sm["end"].as_u64().expect("end") as usize;
            let line = first_line + lines[..s].iter().filter(|&&b| b == b'\n').count();
            report.matches.insert((path.clone(), line, base + s, base + e));
        }
    }
    report
}

/// A line's text without its terminator (`\n` or `\r\n`), shown lossily.
pub fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Standard base64, as rg uses for bytes that are not UTF-8.
fn base64_decode(s: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
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
            n |= value(c) << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_roundtrip_of_known_values() {
        assert_eq!(super::base64_decode("Zm9vYmFy"), b"foobar");
        assert_eq!(super::base64_decode("Zm9vYg=="), b"foob");
        assert_eq!(super::base64_decode("/w=="), [0xFF]);
    }
}
