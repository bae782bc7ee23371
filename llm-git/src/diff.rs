//! `diff` (and the changes `show` lists): git's unified diff read into
//! files, hunks and lines, each line with its numbers, and each line of the
//! new file with its byte span there.

use std::ffi::OsString;

use aide_core::text::path_name;
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
    let files = parse_and_locate(repo, &text, "diff", &new)?;
    let (old, new_name) = match (staged, rev) {
        (true, r) => (r.unwrap_or("HEAD").to_string(), "index".to_string()),
        (false, Some(r)) => (r.to_string(), "worktree".to_string()),
        (false, None) => ("index".to_string(), "worktree".to_string()),
    };
    Ok(totals(old, new_name, files))
}

/// How a merge commit's changes are read: against its first parent, what
/// the merge brought into its branch (`git show --diff-merges=first-parent`).
pub(crate) const FIRST_PARENT: &str = "--diff-merges=first-parent";

/// The output with its totals.
pub(crate) fn totals(old: String, new: String, files: Vec<DiffFile>) -> DiffOutput {
    let insertions = files.iter().map(|f| f.insertions).sum();
    let deletions = files.iter().map(|f| f.deletions).sum();
    DiffOutput { old, new, files, insertions, deletions }
}

/// The changes a commit made (against its first parent, a merge's too:
/// diff-tree alone shows a merge as changing nothing; a root commit's
/// against nothing).
pub(crate) fn commit_changes(repo: &Repo, commit: &str) -> Result<Vec<DiffFile>, GitError> {
    let mut args: Vec<&str> = vec!["diff-tree", "-p", "-r", "--root", "--no-commit-id", FIRST_PARENT];
    args.extend(FORMAT);
    args.extend(["--end-of-options", commit, "--"]);
    let text = repo.run(&args)?;
    parse_and_locate(repo, &text, "diff-tree", &NewSide::Object(commit.to_string()))
}

/// Parses `text` and gives each new-side line its span in the new file.
fn parse_and_locate(
    repo: &Repo,
    text: &[u8],
    command: &'static str,
    new: &NewSide<'_>,
) -> Result<Vec<DiffFile>, GitError> {
    let mut files = parse(text, command)?;
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

/// Reads git's unified diff into files, hunks and numbered lines; names
/// are read as bytes, so each is exact in the contract's spelling.
pub(crate) fn parse(text: &[u8], command: &'static str) -> Result<Vec<DiffFile>, GitError> {
    let files = aide_diff::read(text).map_err(|source| GitError::Unreadable { command, source })?;
    Ok(files.iter().map(file).collect())
}

fn file(read: &aide_diff::FileDiff) -> DiffFile {
    use aide_diff::Status as S;
    let name = |bytes: Option<Vec<u8>>| bytes.map(|b| path_name(&b));
    let (old, new) = (name(read.old_path()), name(read.new_path()));
    let status = match read.status() {
        S::Added => FileStatus::Added,
        S::Deleted => FileStatus::Deleted,
        S::Modified => FileStatus::Modified,
        S::Renamed => FileStatus::Renamed,
        S::Copied => FileStatus::Copied,
    };
    // A deleted file is named by its old path; a moved one shows both.
    let path = new.clone().or(old.clone()).unwrap_or_default();
    let old_path = old.filter(|o| new.is_some() && *o != path);
    let hunks: Vec<Hunk> = read.hunks.iter().map(hunk).collect();
    let count = |kind| hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind == kind).count();
    DiffFile {
        path,
        status,
        old_path,
        old_mode: read.old_mode().map(str::to_string),
        new_mode: read.new_mode().map(str::to_string),
        similarity: read.similarity(),
        binary: read.binary(),
        insertions: count(LineKind::Added),
        deletions: count(LineKind::Removed),
        checksum: None,
        hunks,
    }
}

/// A hunk with each line's numbers on both sides.
fn hunk(read: &aide_diff::Hunk) -> Hunk {
    let (mut old_line, mut new_line) = (read.old_start, read.new_start);
    let lines = read
        .lines
        .iter()
        .map(|l| {
            let text = String::from_utf8_lossy(&l.text);
            let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
            let (kind, old, new) = match l.kind {
                aide_diff::LineKind::Context => (LineKind::Context, Some(old_line), Some(new_line)),
                aide_diff::LineKind::Removed => (LineKind::Removed, Some(old_line), None),
                aide_diff::LineKind::Added => (LineKind::Added, None, Some(new_line)),
            };
            old_line += usize::from(old.is_some());
            new_line += usize::from(new.is_some());
            DiffLine { kind, text, old_line: old, line: new, byte_start: None, byte_end: None }
        })
        .collect();
    Hunk {
        old_start: read.old_start,
        old_lines: read.old_lines,
        new_start: read.new_start,
        new_lines: read.new_lines,
        header: read.section.clone(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_reads_into_files_hunks_and_numbered_lines() {
        let text = b"diff --git a/src/a b.rs b/src/a b.rs\nindex 1..2 100644\n--- a/src/a b.rs\n+++ b/src/a b.rs\n@@ -1,3 +1,3 @@ fn main\n one\n-two\n+TWO\n three\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3..0\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\ndiff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\ndiff --git a/img.png b/img.png\nnew file mode 100644\nindex 0..4\nBinary files /dev/null and b/img.png differ\n";
        let files = parse(text, "diff").unwrap();
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
        let mut files = parse(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n+c\n", "diff").unwrap();
        locate(&mut files[0], b"b\r\nc");
        let spans: Vec<(Option<usize>, Option<usize>)> =
            files[0].hunks[0].lines.iter().map(|l| (l.byte_start, l.byte_end)).collect();
        assert_eq!(spans, [(None, None), (Some(0), Some(1)), (Some(3), Some(4))]);
    }
}
