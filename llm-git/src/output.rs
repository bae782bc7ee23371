//! What each command answers, and its text form.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

/// The branch a working tree is on, and how it stands with its upstream.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BranchState {
    /// The branch checked out; null when HEAD is detached.
    pub head: Option<String>,
    /// The commit HEAD names; null before the first commit.
    pub commit: Option<String>,
    pub upstream: Option<String>,
    /// Commits on the branch not on its upstream, and the other way.
    pub ahead: Option<u64>,
    pub behind: Option<u64>,
    pub detached: bool,
}

/// What kind of status entry a file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// Tracked, changed in the index or the working tree (or both).
    Changed,
    Renamed,
    Copied,
    /// A merge conflict.
    Conflicted,
    Untracked,
    Ignored,
}

/// One file of `status`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusEntry {
    pub path: String,
    pub kind: EntryKind,
    /// The index's and the working tree's status letters, as git's short
    /// format (`M` modified, `A` added, `D` deleted, `R` renamed, `C`
    /// copied, `T` type changed, `U` unmerged, `.` unchanged, `?` untracked).
    pub index: String,
    pub worktree: String,
    /// Changes are staged (the index differs from HEAD).
    pub staged: bool,
    /// The working tree differs from the index.
    pub unstaged: bool,
    /// A renamed or copied file's old path (null if outside the root).
    pub renamed_from: Option<String>,
    /// The path is a submodule.
    pub submodule: bool,
}

/// `status`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusOutput {
    pub branch: BranchState,
    pub files: Vec<StatusEntry>,
    pub staged: usize,
    pub unstaged: usize,
    pub untracked: usize,
    pub conflicted: usize,
    /// Nothing staged, changed, untracked or conflicted.
    pub clean: bool,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
    Copied,
}

/// One line of a hunk.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffLine {
    pub kind: LineKind,
    /// The line's text, without its line ending.
    pub text: String,
    /// Its line in the old file (context and removed lines).
    pub old_line: Option<usize>,
    /// Its line in the new file (context and added lines).
    pub line: Option<usize>,
    /// Its span in the new file's bytes, without the line ending (when the
    /// new file could be read).
    pub byte_start: Option<usize>,
    pub byte_end: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One hunk: `@@ -old_start,old_lines +new_start,new_lines @@ header`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hunk {
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    /// What git shows after the second `@@` (the enclosing function).
    pub header: String,
    pub lines: Vec<DiffLine>,
}

/// One file of a diff.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffFile {
    /// The new path (the old one of a deleted file).
    pub path: String,
    pub status: FileStatus,
    /// The old path of a renamed or copied file.
    pub old_path: Option<String>,
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    /// Similarity of a rename or copy, percent.
    pub similarity: Option<u32>,
    pub binary: bool,
    pub insertions: usize,
    pub deletions: usize,
    /// SHA-256 of the new file in the working tree, when the new side is
    /// the working tree (for llm-transform's `checksum_before`).
    pub checksum: Option<String>,
    pub hunks: Vec<Hunk>,
}

/// `diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffOutput {
    /// What was compared: `worktree` with `index`, `HEAD`…
    pub old: String,
    pub new: String,
    pub files: Vec<DiffFile>,
    pub insertions: usize,
    pub deletions: usize,
}

/// One commit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Commit {
    pub commit: String,
    pub parents: Vec<String>,
    pub author: String,
    pub author_email: String,
    /// The author's time in the author's own offset, as git's `%aI`
    /// (strict ISO 8601: `2026-07-07T00:20:39+02:00`).
    pub time: String,
    pub committer: String,
    pub committer_email: String,
    /// The committer's time in the committer's own offset, as git's `%cI`.
    pub commit_time: String,
    pub subject: String,
    /// The message after the subject (empty if none).
    pub body: String,
}

/// `log`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LogOutput {
    pub commits: Vec<Commit>,
    /// More commits remain past `limit`.
    pub truncated: bool,
}

/// One line of `blame`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BlameLine {
    pub line: usize,
    pub commit: String,
    pub author: String,
    pub author_email: String,
    /// The author's time in the author's own offset, as git's `%aI`.
    pub time: String,
    pub summary: String,
    /// Its line in that commit's version of the file.
    pub original_line: usize,
    /// The path in that commit (a file renamed since has its old name).
    pub original_path: String,
    pub text: String,
}

/// `blame`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BlameOutput {
    pub path: String,
    pub rev: Option<String>,
    pub lines: Vec<BlameLine>,
}

/// What `show` showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    Commit,
    File,
    Folder,
}

/// `show REV` (a commit and its changes) or `show REV:PATH` (a file's
/// content, or a folder's entries, at REV).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShowOutput {
    pub shown: Shown,
    pub rev: String,
    pub commit: Option<Commit>,
    /// The commit's changes against its first parent, a merge's too (as
    /// `git show --diff-merges=first-parent`); a root commit's are added.
    pub files: Option<Vec<DiffFile>>,
    pub path: Option<String>,
    /// A file's text (null if binary).
    pub content: Option<String>,
    pub size: Option<u64>,
    pub checksum: Option<String>,
    pub binary: Option<bool>,
    /// A folder's names (a folder's with a trailing `/`).
    pub entries: Option<Vec<String>>,
}

/// `add`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AddOutput {
    /// The files now staged among those named.
    pub added: Vec<StatusEntry>,
}

/// `commit`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommitOutput {
    pub committed: Commit,
    pub branch: Option<String>,
    pub files: usize,
    pub insertions: usize,
    pub deletions: usize,
}

/// One branch.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BranchInfo {
    pub name: String,
    pub commit: String,
    pub current: bool,
    pub upstream: Option<String>,
}

/// `branch`: the branches after it ran, and what it did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BranchOutput {
    pub branches: Vec<BranchInfo>,
    pub current: Option<String>,
    /// The branch created, if one was.
    pub created: Option<String>,
    /// The branch switched to, if one was.
    pub switched: Option<String>,
    /// The branch deleted, if one was, with the commit it pointed at.
    pub deleted: Option<DeletedBranch>,
}

/// A branch `branch --delete` removed: enough to make it again.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeletedBranch {
    pub name: String,
    /// The commit it pointed at (still in the repository until git prunes
    /// what nothing reaches).
    pub commit: String,
    /// It was merged into its upstream (or HEAD, when it had none); an
    /// unmerged one is deleted only with --force.
    pub merged: bool,
    /// The git command that makes it again: `git branch NAME COMMIT`.
    pub restore: String,
}

/// One file `restore` put back.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RestoredFile {
    pub path: String,
    pub checksum_before: Option<String>,
    pub checksum_after: Option<String>,
}

/// `restore`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RestoreOutput {
    pub restored: Vec<RestoredFile>,
    /// Unstaged only (`--staged`): the working tree is untouched.
    pub staged: bool,
    /// The undo command of the working-tree restore.
    pub undo: Option<String>,
}

/// The result of an llm-git run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum GitOutput {
    Status(StatusOutput),
    Diff(DiffOutput),
    Log(LogOutput),
    Blame(BlameOutput),
    Show(Box<ShowOutput>),
    Add(AddOutput),
    Commit(CommitOutput),
    Branch(BranchOutput),
    Restore(RestoreOutput),
}

impl GitOutput {
    /// Every file name it gives (for the diagnostics of names that are not UTF-8), each once.
    pub fn paths(&self) -> Vec<&str> {
        fn status(files: &[StatusEntry]) -> Vec<&str> {
            files.iter().flat_map(|f| std::iter::once(f.path.as_str()).chain(f.renamed_from.as_deref())).collect()
        }
        fn diff(files: &[DiffFile]) -> Vec<&str> {
            files.iter().flat_map(|f| std::iter::once(f.path.as_str()).chain(f.old_path.as_deref())).collect()
        }
        let mut paths = match self {
            GitOutput::Status(s) => status(&s.files),
            GitOutput::Add(a) => status(&a.added),
            GitOutput::Diff(d) => diff(&d.files),
            GitOutput::Show(s) => {
                let mut paths = s.files.as_deref().map(diff).unwrap_or_default();
                paths.extend(s.entries.iter().flatten().map(|e| e.trim_end_matches('/')));
                paths
            }
            GitOutput::Blame(b) => b.lines.iter().map(|l| l.original_path.as_str()).collect(),
            GitOutput::Restore(r) => r.restored.iter().map(|f| f.path.as_str()).collect(),
            GitOutput::Log(_) | GitOutput::Commit(_) | GitOutput::Branch(_) => Vec::new(),
        };
        paths.sort_unstable();
        paths.dedup();
        paths
    }
}

impl Render for GitOutput {
    // Long because: one arm per command's output, each printing its fields in order.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            GitOutput::Status(s) => {
                let b = &s.branch;
                let head = b.head.as_deref().unwrap_or("(detached)");
                write!(w, "on {head}")?;
                if let Some(u) = &b.upstream {
                    write!(w, " ⇄ {u} (+{} -{})", b.ahead.unwrap_or(0), b.behind.unwrap_or(0))?;
                }
                writeln!(w)?;
                for f in &s.files {
                    write!(w, "{}{} ", f.index, f.worktree)?;
                    w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                    if let Some(from) = &f.renamed_from {
                        write!(w, " (from {})", aide_core::text::escape_controls(from))?;
                    }
                    writeln!(w)?;
                }
                let summary = if s.clean {
                    "clean".to_string()
                } else {
                    format!(
                        "{} staged, {} unstaged, {} untracked, {} conflicted",
                        s.staged, s.unstaged, s.untracked, s.conflicted
                    )
                };
                w.paint(Paint::Dim, summary)?;
                writeln!(w)?;
            }
            GitOutput::Diff(d) => {
                write_files(w, &d.files)?;
                w.paint(
                    Paint::Dim,
                    format_args!("{} files, +{} -{} ({} → {})", d.files.len(), d.insertions, d.deletions, d.old, d.new),
                )?;
                writeln!(w)?;
            }
            GitOutput::Log(l) => {
                for c in &l.commits {
                    write_commit_line(w, c)?;
                }
                if l.truncated {
                    w.paint(Paint::Dim, format_args!("[more: raise {}]", w.voice().arg("limit")))?;
                    writeln!(w)?;
                }
            }
            GitOutput::Blame(b) => {
                // Names whole, padded to the longest shown.
                let width = b.lines.iter().map(|l| l.author.chars().count()).max().unwrap_or(0);
                for l in &b.lines {
                    w.paint(Paint::Dim, format_args!("{} {:<width$} ", short(&l.commit), l.author))?;
                    w.paint(Paint::LineNumber, format_args!("{:>6}", l.line))?;
                    writeln!(w, "\t{}", with_tabs(&l.text))?;
                }
            }
            GitOutput::Show(s) => match s.shown {
                Shown::Commit => {
                    if let Some(c) = &s.commit {
                        write_commit_line(w, c)?;
                        if !c.body.is_empty() {
                            writeln!(w, "\n{}\n", c.body.trim_end())?;
                        }
                    }
                    write_files(w, s.files.as_deref().unwrap_or_default())?;
                }
                Shown::File => match &s.content {
                    Some(text) => w.write_all(text.as_bytes())?,
                    None => writeln!(w, "(binary, {} bytes)", s.size.unwrap_or(0))?,
                },
                Shown::Folder => {
                    for e in s.entries.as_deref().unwrap_or_default() {
                        writeln!(w, "{}", aide_core::text::escape_controls(e))?;
                    }
                }
            },
            GitOutput::Add(a) => {
                for f in &a.added {
                    writeln!(w, "staged {}", aide_core::text::escape_controls(&f.path))?;
                }
            }
            GitOutput::Commit(c) => {
                write_commit_line(w, &c.committed)?;
                w.paint(
                    Paint::Dim,
                    format_args!(
                        "{} file{} changed, +{} -{}",
                        c.files,
                        if c.files == 1 { "" } else { "s" },
                        c.insertions,
                        c.deletions
                    ),
                )?;
                writeln!(w)?;
            }
            GitOutput::Branch(b) => {
                if let Some(d) = &b.deleted {
                    let merged = if d.merged { "" } else { ", unmerged" };
                    writeln!(w, "deleted {} (was {}{merged}); restore: {}", d.name, short(&d.commit), d.restore)?;
                }
                for br in &b.branches {
                    write!(w, "{} {} {}", if br.current { "*" } else { " " }, short(&br.commit), br.name)?;
                    if let Some(u) = &br.upstream {
                        write!(w, " ⇄ {u}")?;
                    }
                    writeln!(w)?;
                }
            }
            GitOutput::Restore(r) => {
                for f in &r.restored {
                    writeln!(
                        w,
                        "{} {}",
                        if r.staged { "unstaged" } else { "restored" },
                        aide_core::text::escape_controls(&f.path)
                    )?;
                }
                if let Some(undo) = &r.undo {
                    writeln!(w, "undo: {undo}")?;
                }
            }
        }
        Ok(())
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// A line of a file as text mode shows it: tabs as tabs, as git shows
/// them; every other control character escaped (a line holding ESC or CR
/// must not drive the terminal or overwrite what was printed).
fn with_tabs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\t') {
        return aide_core::text::escape_controls(text);
    }
    text.split('\t').map(aide_core::text::escape_controls).collect::<Vec<_>>().join("\t").into()
}

fn write_commit_line(w: &mut TextOut<'_>, c: &Commit) -> io::Result<()> {
    w.paint(Paint::Dim, format_args!("{} {} {} ", short(&c.commit), c.time.get(..10).unwrap_or(&c.time), c.author))?;
    writeln!(w, "{}", aide_core::text::escape_controls(&c.subject))
}

/// A diff as `git diff` prints it, but with each file's status first.
fn write_files(w: &mut TextOut<'_>, files: &[DiffFile]) -> io::Result<()> {
    for f in files {
        let status = match f.status {
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Modified => "modified",
            FileStatus::Renamed => "renamed",
            FileStatus::Copied => "copied",
        };
        write!(w, "{status} ")?;
        w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
        if let Some(old) = &f.old_path {
            write!(w, " (from {})", aide_core::text::escape_controls(old))?;
        }
        if f.binary {
            write!(w, " (binary)")?;
        }
        writeln!(w, " +{} -{}", f.insertions, f.deletions)?;
        for h in &f.hunks {
            let header = format!("@@ -{},{} +{},{} @@", h.old_start, h.old_lines, h.new_start, h.new_lines);
            w.paint(Paint::Hunk, header)?;
            if !h.header.is_empty() {
                write!(w, " {}", with_tabs(&h.header))?;
            }
            writeln!(w)?;
            for l in &h.lines {
                let text = with_tabs(&l.text);
                match l.kind {
                    LineKind::Context => writeln!(w, " {text}")?,
                    LineKind::Added => {
                        w.paint(Paint::Good, format_args!("+{text}"))?;
                        writeln!(w)?;
                    }
                    LineKind::Removed => {
                        w.paint(Paint::Bad, format_args!("-{text}"))?;
                        writeln!(w)?;
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lines_tabs_stay_and_other_controls_are_escaped() {
        assert_eq!(with_tabs("a\tb\t"), "a\tb\t");
        assert_eq!(with_tabs("\tx\x1b[2J\ry\u{202e}"), "\tx\\x1b[2J\\ry\\u{202e}");
        assert_eq!(with_tabs("plain"), "plain");
    }
}
