//! `diff` (and the changes `show` lists): git's unified diff read into
//! files, hunks and lines, each line with its numbers, and each line of the
//! new file with its byte span there.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use aide_core::{LineIndex, Root};

use crate::error::GitError;
use crate::output::{DiffFile, DiffLine, DiffOutput, FileStatus, Hunk, LineKind};
use crate::repo::{Repo, literal, object, raw};

/// The options every diff is run with: git's own format, whatever the
/// user's configuration (prefixes, colour, external tools, renames).
const FORMAT: [&str; 7] =
    ["--no-color", "--no-ext-diff", "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/", "--relative"];

/// Where the new side of a diff is.
pub(crate) enum NewSide<'a> {
    /// The working tree: read beneath the root, with its checksum.
    Worktree(&'a Root),
    /// The index (`:./path`) or a revision (`REV:./path`).
    Object(String),
}

/// `diff [REV] [--staged] [-- PATHS]`: the working tree against the index
/// (or REV), or the index against HEAD (or REV) with `staged`.
pub(crate) fn diff(
    repo: &Repo,
    root: &Root,
    rev: Option<&str>,
    staged: bool,
    paths: &[String],
) -> Result<DiffOutput, GitError> {
    let mut args: Vec<OsString> = vec!["diff".into()];
    args.extend(FORMAT.map(OsString::from));
    if staged {
        args.push("--cached".into());
    }
    if let Some(rev) = rev {
        args.push("--end-of-options".into());
        args.push(rev.into());
    }
    args.push("--".into());
    args.extend(paths.iter().map(|p| literal(p)));
    let text = repo.run_at(&args, rev)?;
    let new = if staged { NewSide::Object(String::new()) } else { NewSide::Worktree(root) };
    let files = parse_and_locate(repo, &text, &new)?;
    let (old, new_name) = match (staged, rev) {
        (true, r) => (r.unwrap_or("HEAD").to_string(), "index".to_string()),
        (false, Some(r)) => (r.to_string(), "worktree".to_string()),
        (false, None) => ("index".to_string(), "worktree".to_string()),
    };
    Ok(totals(old, new_name, files))
}

/// The output with its totals.
pub(crate) fn totals(old: String, new: String, files: Vec<DiffFile>) -> DiffOutput {
    let insertions = files.iter().map(|f| f.insertions).sum();
    let deletions = files.iter().map(|f| f.deletions).sum();
    DiffOutput { old, new, files, insertions, deletions }
}

/// The changes a commit made (against its first parent; a root commit's
/// against nothing).
pub(crate) fn commit_changes(repo: &Repo, commit: &str) -> Result<Vec<DiffFile>, GitError> {
    let mut args: Vec<&str> = vec!["diff-tree", "-p", "-r", "--root", "--no-commit-id"];
    args.extend(FORMAT);
    args.extend(["--end-of-options", commit, "--"]);
    let text = repo.run(&args)?;
    parse_and_locate(repo, &text, &NewSide::Object(commit.to_string()))
}

/// Parses `text` and gives each new-side line its span in the new file.
fn parse_and_locate(repo: &Repo, text: &[u8], new: &NewSide<'_>) -> Result<Vec<DiffFile>, GitError> {
    let mut files = parse(text);
    match new {
        NewSide::Worktree(root) => {
            for f in files.iter_mut().filter(|f| f.status != FileStatus::Deleted && !f.binary) {
                let Ok(bytes) = root.read(std::path::Path::new(&raw(&f.path))) else { continue };
                f.checksum = Some(aide_core::checksum::sha256_hex(&bytes));
                locate(f, &bytes);
            }
        }
        NewSide::Object(rev) => {
            let wanted: Vec<usize> =
                (0..files.len()).filter(|&i| files[i].status != FileStatus::Deleted && !files[i].binary).collect();
            let specs: Vec<Vec<u8>> = wanted.iter().map(|&i| object(rev, &files[i].path)).collect();
            for (i, blob) in wanted.into_iter().zip(repo.blobs(&specs)?) {
                if let Some(bytes) = blob {
                    locate(&mut files[i], &bytes);
                }
            }
        }
    }
    Ok(files)
}

/// Gives every line of `f` with a new line number its byte span in `new`.
fn locate(f: &mut DiffFile, new: &[u8]) {
    let index = LineIndex::new(new);
    for line in f.hunks.iter_mut().flat_map(|h| h.lines.iter_mut()) {
        if let Some(range) = line.line.and_then(|n| index.line_content_range(new, n)) {
            line.byte_start = Some(range.start);
            line.byte_end = Some(range.end);
        }
    }
}

/// A path git wrote in a header (maybe quoted), in the contract's spelling.
fn spelled(raw: &[u8]) -> String {
    name(aide_core::git::unquote_path_bytes(raw))
}

/// A path's bytes in the contract's spelling.
fn name(bytes: Vec<u8>) -> String {
    aide_core::text::escape_path(OsStr::from_bytes(&bytes), false).into_owned()
}

/// Reads git's unified diff (`diff --git` headers, extended headers, hunks);
/// names are read as bytes, so each is exact in the contract's spelling.
pub(crate) fn parse(text: &[u8]) -> Vec<DiffFile> {
    let mut files: Vec<DiffFile> = Vec::new();
    let mut old_line = 0usize;
    let mut new_line = 0usize;
    // Lines the current hunk still has, by its header's counts.
    let (mut old_left, mut new_left) = (0usize, 0usize);
    for bytes in text.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(bytes);
        let line = line.as_ref();
        if let Some(rest) = bytes.strip_prefix(b"diff --git ") {
            let (old, new) = aide_core::git::diff_header_paths_bytes(rest);
            let (old, new) = (name(old), name(new));
            files.push(DiffFile {
                path: new.clone(),
                status: FileStatus::Modified,
                old_path: (old != new).then_some(old),
                old_mode: None,
                new_mode: None,
                similarity: None,
                binary: false,
                insertions: 0,
                deletions: 0,
                checksum: None,
                hunks: Vec::new(),
            });
            continue;
        }
        let Some(f) = files.last_mut() else { continue };
        if old_left > 0 || new_left > 0 {
            let (kind, text) = match line.as_bytes().first() {
                Some(b'+') => (LineKind::Added, &line[1..]),
                Some(b'-') => (LineKind::Removed, &line[1..]),
                Some(b' ') => (LineKind::Context, &line[1..]),
                // An empty context line some tools write without its space.
                None => (LineKind::Context, ""),
                _ => continue,
            };
            let text = text.strip_suffix('\r').unwrap_or(text).to_string();
            let (old, new) = match kind {
                LineKind::Context => (Some(old_line), Some(new_line)),
                LineKind::Removed => (Some(old_line), None),
                LineKind::Added => (None, Some(new_line)),
            };
            if old.is_some() {
                old_line += 1;
                old_left = old_left.saturating_sub(1);
            }
            if new.is_some() {
                new_line += 1;
                new_left = new_left.saturating_sub(1);
            }
            match kind {
                LineKind::Added => f.insertions += 1,
                LineKind::Removed => f.deletions += 1,
                LineKind::Context => {}
            }
            if let Some(h) = f.hunks.last_mut() {
                h.lines.push(DiffLine { kind, text, old_line: old, line: new, byte_start: None, byte_end: None });
            }
            continue;
        }
        if let Some((old_start, old_lines, new_start, new_lines, header)) = hunk_header(line) {
            old_line = old_start;
            new_line = new_start;
            (old_left, new_left) = (old_lines, new_lines);
            f.hunks.push(Hunk { old_start, old_lines, new_start, new_lines, header, lines: Vec::new() });
        } else if let Some(mode) = line.strip_prefix("new file mode ") {
            f.status = FileStatus::Added;
            f.new_mode = Some(mode.to_string());
        } else if let Some(mode) = line.strip_prefix("deleted file mode ") {
            f.status = FileStatus::Deleted;
            f.old_mode = Some(mode.to_string());
        } else if let Some(mode) = line.strip_prefix("old mode ") {
            f.old_mode = Some(mode.to_string());
        } else if let Some(mode) = line.strip_prefix("new mode ") {
            f.new_mode = Some(mode.to_string());
        } else if let Some(p) = bytes.strip_prefix(b"rename from ") {
            f.status = FileStatus::Renamed;
            f.old_path = Some(spelled(p));
        } else if let Some(p) = bytes.strip_prefix(b"rename to ") {
            f.path = spelled(p);
        } else if let Some(p) = bytes.strip_prefix(b"copy from ") {
            f.status = FileStatus::Copied;
            f.old_path = Some(spelled(p));
        } else if let Some(p) = bytes.strip_prefix(b"copy to ") {
            f.path = spelled(p);
        } else if let Some(n) = line.strip_prefix("similarity index ") {
            f.similarity = n.trim_end_matches('%').parse().ok();
        } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
            f.binary = true;
        } else if let Some(p) = bytes.strip_prefix(b"+++ ")
            && let Some(new) = side(p, b"b/")
        {
            f.path = new;
        }
    }
    // A deleted file is named by its old path.
    for f in &mut files {
        if f.status == FileStatus::Deleted
            && let Some(old) = f.old_path.take()
        {
            f.path = old;
        }
    }
    files
}

/// The path of a `+++` line: None for /dev/null (a deleted file keeps the
/// header's name).
fn side(raw: &[u8], prefix: &[u8]) -> Option<String> {
    let raw = raw.split(|&b| b == b'\t').next().unwrap_or(raw);
    let path = aide_core::git::unquote_path_bytes(raw);
    if path == b"/dev/null" {
        return None;
    }
    Some(name(path.strip_prefix(prefix).unwrap_or(&path).to_vec()))
}

/// `@@ -a[,b] +c[,d] @@ header`.
fn hunk_header(line: &str) -> Option<(usize, usize, usize, usize, String)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, header) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some((old_start, old_lines, new_start, new_lines, header.trim_start().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_reads_into_files_hunks_and_numbered_lines() {
        let text = b"diff --git a/src/a b.rs b/src/a b.rs\nindex 1..2 100644\n--- a/src/a b.rs\n+++ b/src/a b.rs\n@@ -1,3 +1,3 @@ fn main\n one\n-two\n+TWO\n three\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3..0\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\ndiff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\ndiff --git a/img.png b/img.png\nnew file mode 100644\nindex 0..4\nBinary files /dev/null and b/img.png differ\n";
        let files = parse(text);
        assert_eq!(files.len(), 5);
        let a = &files[0];
        assert_eq!((a.path.as_str(), a.status, a.insertions, a.deletions), ("src/a b.rs", FileStatus::Modified, 1, 1));
        let h = &a.hunks[0];
        assert_eq!((h.old_start, h.old_lines, h.new_start, h.new_lines, h.header.as_str()), (1, 3, 1, 3, "fn main"));
        let numbers: Vec<(Option<usize>, Option<usize>)> = h.lines.iter().map(|l| (l.old_line, l.line)).collect();
        assert_eq!(numbers, [(Some(1), Some(1)), (Some(2), None), (None, Some(2)), (Some(3), Some(3))]);
        assert_eq!((files[1].path.as_str(), files[1].status), ("gone.txt", FileStatus::Deleted));
        assert_eq!(
            (files[2].path.as_str(), files[2].old_path.as_deref(), files[2].status, files[2].similarity),
            ("new.txt", Some("old.txt"), FileStatus::Renamed, Some(90))
        );
        assert_eq!((files[3].old_mode.as_deref(), files[3].new_mode.as_deref()), (Some("100644"), Some("100755")));
        assert!(files[4].binary && files[4].status == FileStatus::Added);
    }

    #[test]
    fn a_new_side_line_gets_its_span_in_the_new_file() {
        let mut files = parse(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n+c\n");
        locate(&mut files[0], b"b\r\nc");
        let spans: Vec<(Option<usize>, Option<usize>)> =
            files[0].hunks[0].lines.iter().map(|l| (l.byte_start, l.byte_end)).collect();
        assert_eq!(spans, [(None, None), (Some(0), Some(1)), (Some(3), Some(4))]);
    }
}
