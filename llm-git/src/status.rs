//! `status`: git's porcelain v2 (`--porcelain=v2 --branch -z`), typed.

use std::ffi::OsString;

use crate::error::GitError;
use crate::output::{BranchState, EntryKind, StatusEntry, StatusOutput};
use crate::repo::{Repo, literal};

/// The status of the root (or of `paths` in it), untracked files each
/// listed, ignored ones left out.
pub(crate) fn status(repo: &Repo, paths: &[String]) -> Result<StatusOutput, GitError> {
    let mut args: Vec<OsString> =
        ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--"].map(OsString::from).into();
    if paths.is_empty() {
        args.push(".".into());
    } else {
        args.extend(paths.iter().map(|p| literal(p)));
    }
    let out = repo.run(&args)?;
    Ok(parse(repo, &out))
}

/// Reads porcelain v2 with `-z`: NUL-ended records, a rename's old path in
/// the record after it.
pub(crate) fn parse(repo: &Repo, out: &[u8]) -> StatusOutput {
    let mut branch =
        BranchState { head: None, commit: None, upstream: None, ahead: None, behind: None, detached: false };
    let mut files = Vec::new();
    let mut records = out.split(|&b| b == 0);
    while let Some(record) = records.next() {
        if let Some(header) = record.strip_prefix(b"# ") {
            let header = String::from_utf8_lossy(header);
            let (key, value) = header.split_once(' ').unwrap_or((&header, ""));
            match key {
                "branch.oid" if value != "(initial)" => branch.commit = Some(value.to_string()),
                "branch.head" if value == "(detached)" => branch.detached = true,
                "branch.head" => branch.head = Some(value.to_string()),
                "branch.upstream" => branch.upstream = Some(value.to_string()),
                "branch.ab" => {
                    let mut parts = value.split(' ');
                    branch.ahead = parts.next().and_then(|a| a.trim_start_matches('+').parse().ok());
                    branch.behind = parts.next().and_then(|b| b.trim_start_matches('-').parse().ok());
                }
                _ => {}
            }
            continue;
        }
        let (kind_char, rest) = record.split_at(record.len().min(1));
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        // Fields before the path are ASCII; the path is bytes, whatever they are.
        let fields = |n: usize| -> Vec<&[u8]> { rest.splitn(n, |&b| b == b' ').collect() };
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let entry = match kind_char {
            b"1" => {
                let f = fields(8);
                let [xy, sub, _, _, _, _, _, path] = f.as_slice() else { continue };
                tracked(repo, &text(xy), &text(sub), path, EntryKind::Changed, None)
            }
            b"2" => {
                let f = fields(9);
                let [xy, sub, _, _, _, _, _, score, path] = f.as_slice() else { continue };
                let from = records.next().unwrap_or_default();
                let kind = if score.starts_with(b"C") { EntryKind::Copied } else { EntryKind::Renamed };
                tracked(repo, &text(xy), &text(sub), path, kind, repo.local(from))
            }
            b"u" => {
                let f = fields(10);
                let [xy, sub, _, _, _, _, _, _, _, path] = f.as_slice() else { continue };
                tracked(repo, &text(xy), &text(sub), path, EntryKind::Conflicted, None)
            }
            b"?" | b"!" => {
                let Some(path) = repo.local(rest) else { continue };
                let kind_char = text(kind_char);
                let kind = if kind_char == "?" { EntryKind::Untracked } else { EntryKind::Ignored };
                Some(StatusEntry {
                    path,
                    kind,
                    index: kind_char.clone(),
                    worktree: kind_char,
                    staged: false,
                    unstaged: false,
                    renamed_from: None,
                    submodule: false,
                })
            }
            _ => None,
        };
        files.extend(entry);
    }
    files.sort_by(|a: &StatusEntry, b| aide_core::ordering::cmp_path(&a.path, &b.path));
    let count = |f: fn(&StatusEntry) -> bool| files.iter().filter(|e| f(e)).count();
    let staged = count(|e| e.staged);
    let unstaged = count(|e| e.unstaged);
    let untracked = count(|e| e.kind == EntryKind::Untracked);
    let conflicted = count(|e| e.kind == EntryKind::Conflicted);
    StatusOutput { branch, clean: files.is_empty(), files, staged, unstaged, untracked, conflicted }
}

fn tracked(
    repo: &Repo,
    xy: &str,
    sub: &str,
    path: &[u8],
    kind: EntryKind,
    renamed_from: Option<String>,
) -> Option<StatusEntry> {
    let path = repo.local(path)?;
    let mut letters = xy.chars();
    let index = letters.next().unwrap_or('.').to_string();
    let worktree = letters.next().unwrap_or('.').to_string();
    let conflicted = kind == EntryKind::Conflicted;
    Some(StatusEntry {
        path,
        kind,
        staged: index != "." && !conflicted,
        unstaged: worktree != "." && !conflicted,
        index,
        worktree,
        renamed_from,
        submodule: sub.starts_with('S'),
    })
}
