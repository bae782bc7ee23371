//! What git says of a tree, read through git itself: the files changed
//! against a revision (`--changed`), for every tool that walks or checks;
//! git's own process (`command`) and its quoted paths (`unquote_path`), for
//! llm-git and llm-transform's patches.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{AideError, code};

/// git in `dir`, as the tools run it: no pager, no colour, paths unquoted
/// where git allows, no optional locks (a read never writes the index), no
/// prompt for credentials, stdin closed.
pub fn command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.args(["-c", "core.quotePath=false", "-c", "color.ui=never", "-c", "core.pager=cat"])
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    c
}

/// A path as git writes it in a diff header or a non-`-z` listing: quoted
/// (C escapes, octal bytes) when it holds unusual bytes, else itself.
pub fn unquote_path(path: &str) -> String {
    let Some(inner) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else { return path.to_string() };
    let mut bytes = Vec::new();
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'a') => bytes.push(0x07),
            Some(b'b') => bytes.push(0x08),
            Some(b'f') => bytes.push(0x0c),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'v') => bytes.push(0x0b),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = chars.peek() {
                        value = value * 8 + u32::from(n - b'0');
                        chars.next();
                    }
                }
                bytes.push(u8::try_from(value).unwrap_or(b'?'));
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The two paths of a `diff --git a/X b/Y` header (after `diff --git `),
/// each maybe quoted, without their `a/` and `b/`. Unquoted names with
/// spaces are split where both halves name the same path (no rename); a
/// rename's names come from its `rename from/to` lines anyway.
pub fn diff_header_paths(rest: &str) -> (String, String) {
    if rest.starts_with('"') {
        // "a/x" "b/y" or "a/x" b/y
        if let Some(end) = find_closing_quote(rest) {
            let old = unquote_path(&rest[..=end]);
            let new = unquote_path(rest[end + 1..].trim_start());
            return (strip(&old, "a/"), strip(&new, "b/"));
        }
    }
    if rest.ends_with('"')
        && let Some(start) = rest.rfind(" \"")
    {
        let old = rest[..start].to_string();
        let new = unquote_path(&rest[start + 1..]);
        return (strip(&old, "a/"), strip(&new, "b/"));
    }
    // `a/P b/P`: the same path twice.
    let n = rest.len().saturating_sub(3) / 2;
    if rest.len() >= 3 && rest.len() % 2 == 1 && rest.get(2..2 + n) == rest.get(n + 5..) {
        let p = rest[2..2 + n].to_string();
        return (p.clone(), p);
    }
    match rest.split_once(" b/") {
        Some((a, b)) => (strip(a, "a/"), b.to_string()),
        None => (rest.to_string(), rest.to_string()),
    }
}

fn strip(path: &str, prefix: &str) -> String {
    path.strip_prefix(prefix).unwrap_or(path).to_string()
}

fn find_closing_quote(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Runs git in `dir`; its stdout, or an error naming git's complaint.
pub fn run(dir: &Path, args: &[&str]) -> Result<Vec<u8>, AideError> {
    let out = Command::new("git").args(args).current_dir(dir).stdin(Stdio::null()).output().map_err(|e| {
        AideError::new(code::IO_ERROR, format!("git {}: {e}", args.join(" ")))
            .with_hint("--changed and --baseline need git on PATH")
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(AideError::new(code::INVALID_ARGUMENTS, format!("git {}: {stderr}", args.join(" ")))
            .with_hint("--changed and --baseline need a git repository and a revision in it"));
    }
    Ok(out.stdout)
}

/// Paths relative to `root` (which may lie inside the repository) of the
/// files that differ from `rev` in the working tree or the index, and the
/// untracked ones git does not ignore; deleted files left out.
pub fn changed_files(root: &Path, rev: &str) -> Result<BTreeSet<String>, AideError> {
    let mut out = BTreeSet::new();
    let diff = run(root, &["diff", "--name-only", "-z", "--relative", "--no-renames", rev, "--"])?;
    let untracked = run(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for name in diff.split(|&b| b == 0).chain(untracked.split(|&b| b == 0)) {
        let Ok(name) = std::str::from_utf8(name) else { continue };
        if !name.is_empty() && root.join(name).is_file() {
            out.insert(name.to_string());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_header_names_both_sides_spaces_and_quotes_included() {
        assert_eq!(diff_header_paths("a/x y.txt b/x y.txt"), ("x y.txt".into(), "x y.txt".into()));
        assert_eq!(diff_header_paths("a/old b/new"), ("old".into(), "new".into()));
        assert_eq!(diff_header_paths("\"a/t\\tab\" \"b/t\\tab\""), ("t\tab".into(), "t\tab".into()));
    }

    #[test]
    fn quoted_paths_read_back_as_git_wrote_them() {
        assert_eq!(unquote_path("plain.txt"), "plain.txt");
        assert_eq!(unquote_path("\"a\\tb\\\\c\\\"d\""), "a\tb\\c\"d");
        assert_eq!(unquote_path("\"caf\\303\\251.txt\""), "café.txt");
    }
}
