//! `status`: git's porcelain v2 (`--porcelain=v2 --branch -z`), typed.

use crate::error::GitError;
use crate::output::{BranchState, EntryKind, StatusEntry, StatusOutput};
use crate::repo::{Repo, literal};

/// The status of the root (or of `paths` in it), untracked files each
/// listed, ignored ones left out.
pub fn status(repo: &Repo, paths: &[String]) -> Result<StatusOutput, GitError> {
    let mut args: Vec<String> =
        ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--"].map(String::from).into();
    if paths.is_empty() {
        args.push(".".into());
    } else {
        args.extend(paths.iter().map(|p| literal(p)));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = repo.run(&refs)?;
    Ok(parse(repo, &out))
}

/// Reads porcelain v2 with `-z`: NUL-ended records, a rename's old path in
/// the record after it.
pub fn parse(repo: &Repo, out: &[u8]) -> StatusOutput {
    let mut branch =
        BranchState { head: None, commit: None, upstream: None, ahead: None, behind: None, detached: false };
    let mut files = Vec::new();
    let mut records = out.split(|&b| b == 0).map(|r| String::from_utf8_lossy(r).into_owned());
    while let Some(record) = records.next() {
        if let Some(header) = record.strip_prefix("# ") {
            let (key, value) = header.split_once(' ').unwrap_or((header, ""));
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
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let entry = match kind_char {
            "1" => {
                let f: Vec<&str> = rest.splitn(8, ' ').collect();
                let [xy, sub, _, _, _, _, _, path] = f.as_slice() else { continue };
                tracked(repo, xy, sub, path, EntryKind::Changed, None)
            }
            "2" => {
                let f: Vec<&str> = rest.splitn(9, ' ').collect();
                let [xy, sub, _, _, _, _, _, score, path] = f.as_slice() else { continue };
                let from = records.next().unwrap_or_default();
                let kind = if score.starts_with('C') { EntryKind::Copied } else { EntryKind::Renamed };
                tracked(repo, xy, sub, path, kind, repo.local(&from))
            }
            "u" => {
                let f: Vec<&str> = rest.splitn(10, ' ').collect();
                let [xy, sub, _, _, _, _, _, _, _, path] = f.as_slice() else { continue };
                tracked(repo, xy, sub, path, EntryKind::Conflicted, None)
            }
            "?" | "!" => {
                let Some(path) = repo.local(rest) else { continue };
                let kind = if kind_char == "?" { EntryKind::Untracked } else { EntryKind::Ignored };
                Some(StatusEntry {
                    path,
                    kind,
                    index: kind_char.into(),
                    worktree: kind_char.into(),
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
    files.sort_by(|a: &StatusEntry, b| a.path.as_bytes().cmp(b.path.as_bytes()));
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
    path: &str,
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
