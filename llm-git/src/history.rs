//! `log`, `blame` and `show`: commits and who changed what, from git's own
//! machine formats (`--format` fields split by control characters, blame's
//! `--porcelain`).

use std::collections::HashMap;

use crate::diff;
use crate::error::GitError;
use crate::output::{BlameLine, BlameOutput, Commit, LogOutput, ShowOutput, Shown};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use aide_core::git::shown;

use crate::repo::{Repo, arg, literal, object, raw};

/// Commits shown by `log` when no limit is given.
pub const DEFAULT_LOG_LIMIT: usize = 20;

/// The fields of a commit, each ended by a unit separator; a commit ended
/// by a record separator (a message may hold anything but NUL). Times are
/// git's strict ISO 8601 in their own offsets (`%aI`, `%cI`).
const FORMAT: &str = "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%s%x1f%b%x1f%x1e";

fn commit_from(record: &str) -> Option<Commit> {
    let f: Vec<&str> = record.trim_start_matches('\n').split('\x1f').collect();
    let [commit, parents, author, author_email, time, committer, committer_email, commit_time, subject, body, ..] =
        f.as_slice()
    else {
        return None;
    };
    Some(Commit {
        commit: commit.to_string(),
        parents: parents.split(' ').filter(|p| !p.is_empty()).map(str::to_string).collect(),
        author: author.to_string(),
        author_email: author_email.to_string(),
        time: time.to_string(),
        committer: committer.to_string(),
        committer_email: committer_email.to_string(),
        commit_time: commit_time.to_string(),
        subject: subject.to_string(),
        body: body.trim_end_matches('\n').to_string(),
    })
}

fn commits(out: &[u8]) -> Vec<Commit> {
    String::from_utf8_lossy(out).split('\x1e').filter_map(commit_from).collect()
}

/// `log [REV] [--path P] [-n N]`: commits, newest first.
pub(crate) fn log(repo: &Repo, rev: Option<&str>, path: Option<&str>, limit: usize) -> Result<LogOutput, GitError> {
    let rev = rev.unwrap_or("HEAD");
    let count = format!("--max-count={}", limit.saturating_add(1));
    let mut args: Vec<OsString> = ["log", FORMAT, &count, "--end-of-options", rev, "--"].map(OsString::from).into();
    args.extend(path.map(literal));
    let out = match repo.run_at(&args, Some(rev)) {
        Ok(out) => out,
        // A repository with no commit yet has no history: not an error.
        Err(GitError::Unknown { .. } | GitError::Failed { .. }) if rev == "HEAD" && !repo.is_commit("HEAD")? => {
            return Ok(LogOutput { commits: Vec::new(), truncated: false });
        }
        Err(e) => return Err(e),
    };
    let mut found = commits(&out);
    let truncated = found.len() > limit;
    found.truncate(limit);
    Ok(LogOutput { commits: found, truncated })
}

/// One commit, checked to exist.
pub(crate) fn one_commit(repo: &Repo, rev: &str) -> Result<Commit, GitError> {
    let commit = repo.commit(rev)?;
    let out = repo.run(&["log", FORMAT, "--max-count=1", "--end-of-options", &commit, "--"])?;
    commits(&out).into_iter().next().ok_or_else(|| GitError::Unknown {
        what: "revision",
        given: rev.to_string(),
        stderr: String::new(),
    })
}

/// `blame PATH [--lines A:B] [--rev REV]`.
pub(crate) fn blame(repo: &Repo, path: &str, lines: Option<&str>, rev: Option<&str>) -> Result<BlameOutput, GitError> {
    // A textconv filter of the repository's would run a program: the file's own lines.
    let mut args: Vec<OsString> = vec!["blame".into(), "--porcelain".into(), "--no-textconv".into()];
    if let Some(spec) = lines {
        let (a, b) = line_range(spec)?;
        args.push(format!("-L{a},{b}").into());
    }
    if let Some(rev) = rev {
        args.push(repo.commit(rev)?.into());
    }
    args.push("--".into());
    args.push(raw(path));
    let ran = repo.ran(&args)?;
    if ran.status != 0 {
        if ran.stderr.contains("no such path") || ran.stderr.contains("No such file") {
            return Err(GitError::Unknown { what: "path", given: path.to_string(), stderr: ran.stderr });
        }
        return Err(GitError::Failed { command: shown(&args), status: ran.status, stderr: ran.stderr });
    }
    let mut lines = parse_blame(&ran.stdout);
    author_times(repo, &mut lines)?;
    Ok(BlameOutput { path: path.to_string(), rev: rev.map(str::to_string), lines })
}

/// Each blamed commit's author time as git's `%aI` prints it, asked of
/// git in one run: porcelain blame gives seconds and an offset, and how
/// git writes a zero offset (`Z` or `+00:00`) depends on its version. A
/// line not yet committed keeps the time porcelain gave it.
fn author_times(repo: &Repo, lines: &mut [BlameLine]) -> Result<(), GitError> {
    let mut commits: Vec<&str> =
        lines.iter().map(|l| l.commit.as_str()).filter(|c| c.bytes().any(|b| b != b'0')).collect();
    commits.sort_unstable();
    commits.dedup();
    if commits.is_empty() {
        return Ok(());
    }
    let input: String = commits.iter().map(|c| format!("{c}\n")).collect();
    let args = ["log", "--no-walk=unsorted", "--stdin", "--format=%H%x1f%aI%x1e"];
    let ran = repo.ran_with_input(&args, Some(input.as_bytes()))?;
    if ran.status != 0 {
        return Err(GitError::Failed { command: args.join(" "), status: ran.status, stderr: ran.stderr });
    }
    let text = String::from_utf8_lossy(&ran.stdout);
    let times: HashMap<&str, &str> =
        text.split('\x1e').filter_map(|r| r.trim_start_matches('\n').split_once('\x1f')).collect();
    for line in lines {
        if let Some(time) = times.get(line.commit.as_str()) {
            line.time = time.to_string();
        }
    }
    Ok(())
}

/// `A:B` (1-based, inclusive) as git's `-L A,B`.
fn line_range(spec: &str) -> Result<(usize, usize), GitError> {
    let bad = |why| GitError::BadLines { spec: spec.to_string(), why };
    let (a, b) = spec.split_once(':').unwrap_or((spec, spec));
    let a: usize = a.trim().parse().map_err(|_| bad("not a line number"))?;
    let b: usize = b.trim().parse().map_err(|_| bad("not a line number"))?;
    if a == 0 || b < a {
        return Err(bad("lines are 1-based and the end is not before the start"));
    }
    Ok((a, b))
}

/// What porcelain blame says of a commit once, the first time it names it.
#[derive(Default, Clone)]
struct Meta {
    author: String,
    author_email: String,
    /// Seconds since the epoch and git's `+HHMM` offset.
    author_time: i64,
    author_tz: String,
    summary: String,
    filename: String,
}

fn parse_blame(out: &[u8]) -> Vec<BlameLine> {
    let mut metas: HashMap<String, Meta> = HashMap::new();
    let mut lines = Vec::new();
    let mut current: Option<(String, usize, usize)> = None;
    for bytes in out.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(bytes);
        if let Some(content) = text.strip_prefix('\t') {
            let Some((commit, original, line)) = current.take() else { continue };
            let meta = metas.get(&commit).cloned().unwrap_or_default();
            lines.push(BlameLine {
                line,
                commit,
                author: meta.author,
                author_email: meta.author_email,
                time: crate::when::iso_strict(meta.author_time, &meta.author_tz),
                summary: meta.summary,
                original_line: original,
                original_path: meta.filename,
                text: content.strip_suffix('\r').unwrap_or(content).to_string(),
            });
            continue;
        }
        let mut words = text.splitn(2, ' ');
        let (key, value) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        if key.len() == 40 && key.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut nums = value.split(' ').map(|n| n.parse::<usize>().unwrap_or(0));
            let (original, line) = (nums.next().unwrap_or(0), nums.next().unwrap_or(0));
            metas.entry(key.to_string()).or_default();
            current = Some((key.to_string(), original, line));
            continue;
        }
        let Some((commit, _, _)) = &current else { continue };
        let Some(meta) = metas.get_mut(commit) else { continue };
        match key {
            "author" => meta.author = value.to_string(),
            "author-mail" => meta.author_email = value.trim_start_matches('<').trim_end_matches('>').to_string(),
            "author-time" => meta.author_time = value.parse().unwrap_or(0),
            "author-tz" => meta.author_tz = value.to_string(),
            "summary" => meta.summary = value.to_string(),
            "filename" => {
                let named = aide_core::git::unquote_path_bytes(bytes.strip_prefix(b"filename ").unwrap_or(bytes));
                meta.filename = aide_core::text::path_name(&named);
            }
            _ => {}
        }
    }
    lines
}

/// `show REV` (a commit and its changes) or `show REV:PATH` (a file's
/// content, a folder's names).
pub(crate) fn show(repo: &Repo, spec: &str) -> Result<ShowOutput, GitError> {
    if let Some((rev, path)) = spec.split_once(':') {
        return show_object(repo, rev, path);
    }
    let commit = one_commit(repo, spec)?;
    let files = diff::commit_changes(repo, &commit.commit)?;
    Ok(ShowOutput {
        shown: Shown::Commit,
        rev: spec.to_string(),
        commit: Some(commit),
        files: Some(files),
        path: None,
        content: None,
        size: None,
        checksum: None,
        binary: None,
        entries: None,
    })
}

fn show_object(repo: &Repo, rev: &str, path: &str) -> Result<ShowOutput, GitError> {
    let rev_name = if rev.is_empty() { "the index".to_string() } else { rev.to_string() };
    if !rev.is_empty() {
        repo.commit(rev)?;
    }
    let wanted = arg(object(rev, path));
    let kind = repo.ran(&[OsStr::new("cat-file"), OsStr::new("-t"), &wanted])?;
    let unknown =
        || GitError::Unknown { what: "path", given: format!("{path} in {rev_name}"), stderr: kind.stderr.clone() };
    if kind.status != 0 {
        return Err(unknown());
    }
    let mut out = ShowOutput {
        shown: Shown::File,
        rev: rev.to_string(),
        commit: None,
        files: None,
        path: Some(path.to_string()),
        content: None,
        size: None,
        checksum: None,
        binary: None,
        entries: None,
    };
    match String::from_utf8_lossy(&kind.stdout).trim() {
        "tree" => {
            let listing =
                repo.run(&[OsStr::new("ls-tree"), OsStr::new("-z"), OsStr::new("--end-of-options"), &wanted])?;
            out.shown = Shown::Folder;
            out.entries = Some(
                listing
                    .split(|&b| b == 0)
                    .filter(|r| !r.is_empty())
                    .filter_map(|r| {
                        let tab = r.iter().position(|&b| b == b'\t')?;
                        let (meta, name) = (String::from_utf8_lossy(&r[..tab]), &r[tab + 1..]);
                        let name = aide_core::text::path_name(name);
                        let folder = meta.split(' ').nth(1) == Some("tree");
                        Some(if folder { format!("{name}/") } else { name })
                    })
                    .collect(),
            );
        }
        "blob" => {
            let spec = wanted.as_bytes().to_vec();
            let bytes = repo.blobs(std::slice::from_ref(&spec))?.pop().flatten().ok_or_else(unknown)?;
            let binary = aide_core::text::non_text(&bytes).is_some();
            out.size = Some(bytes.len() as u64);
            out.checksum = Some(aide_core::checksum::sha256_hex(&bytes));
            out.binary = Some(binary);
            out.content = (!binary).then(|| String::from_utf8_lossy(&bytes).into_owned());
        }
        _ => return Err(unknown()),
    }
    Ok(out)
}
