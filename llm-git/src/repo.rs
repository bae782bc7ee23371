//! The repository a request works in: git run in the root (through
//! [`aide_core::git::command`]), and paths turned between git's (relative
//! to the repository's top) and the contract's (relative to the root).

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

use aide_core::Root;

use crate::error::GitError;

/// A root inside a git repository.
pub struct Repo {
    /// The root, where git runs.
    pub dir: PathBuf,
    /// The root's path from the repository's top, with a trailing `/`
    /// (empty at the top): what git's top-relative paths start with.
    pub prefix: String,
}

/// What one git run gave.
pub struct Ran {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Repo {
    /// The repository holding `root`, or `not_a_repository`.
    pub fn open(root: &Root) -> Result<Repo, GitError> {
        let dir = root.path().to_path_buf();
        let probe = Repo { dir: dir.clone(), prefix: String::new() };
        // The top of a work tree (its `.git` folder, or a worktree's `.git`
        // file) needs no git run to find; a damaged one fails the command
        // that follows with `not_a_repository` all the same.
        if dir.join(".git").exists() && std::env::var_os("GIT_DIR").is_none() {
            return Ok(probe);
        }
        let ran = probe.ran(&["rev-parse", "--is-inside-work-tree", "--show-prefix"])?;
        if ran.status != 0 {
            return Err(GitError::NotARepository { dir: ".".into() });
        }
        let text = String::from_utf8_lossy(&ran.stdout).into_owned();
        let mut lines = text.lines();
        if lines.next() != Some("true") {
            return Err(GitError::NotARepository { dir: ".".into() });
        }
        let prefix = lines.next().unwrap_or("").to_string();
        Ok(Repo { dir, prefix })
    }

    /// Runs git with `args`; whatever it exits with.
    pub fn ran(&self, args: &[&str]) -> Result<Ran, GitError> {
        self.ran_with_input(args, None)
    }

    /// Runs git with `args`, writing `input` to its stdin.
    pub fn ran_with_input(&self, args: &[&str], input: Option<&[u8]>) -> Result<Ran, GitError> {
        let mut command = aide_core::git::command(&self.dir);
        command.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        if input.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = command.spawn().map_err(|e| GitError::Missing { reason: e.to_string() })?;
        // Written from a thread: git may fill its stdout before reading all of stdin.
        let writer = match (input, child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => {
                let bytes = bytes.to_vec();
                Some(std::thread::spawn(move || {
                    let _ = stdin.write_all(&bytes);
                }))
            }
            _ => None,
        };
        let out = child.wait_with_output().map_err(|e| GitError::Missing { reason: e.to_string() })?;
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        Ok(Ran::from(out))
    }

    /// Runs git; its stdout, or `git_failed` with its stderr.
    pub fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.run_at(args, None)
    }

    /// Runs git on the revision `rev`; one git does not know is
    /// `not_found`, found from git's own complaint (no run beforehand).
    pub fn run_at(&self, args: &[&str], rev: Option<&str>) -> Result<Vec<u8>, GitError> {
        self.ran(args)?.stdout_of(args, rev)
    }

    /// A top-relative path of git's as the root's (None: outside the root).
    pub fn local(&self, top_relative: &str) -> Option<String> {
        top_relative.strip_prefix(self.prefix.as_str()).map(str::to_string)
    }

    /// Whether `rev` names a commit.
    pub fn is_commit(&self, rev: &str) -> Result<bool, GitError> {
        let spec = format!("{rev}^{{commit}}");
        Ok(self.ran(&["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])?.status == 0)
    }

    /// `rev`, checked to name a commit (`not_found` otherwise).
    pub fn commit(&self, rev: &str) -> Result<String, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let ran = self.ran(&["rev-parse", "--verify", "--end-of-options", &spec])?;
        if ran.status != 0 {
            return Err(GitError::Unknown { what: "revision", given: rev.to_string(), stderr: ran.stderr });
        }
        Ok(String::from_utf8_lossy(&ran.stdout).trim().to_string())
    }

    /// The contents of several objects (`REV:./path`, `:./path`) in one
    /// `git cat-file --batch`: None for one that does not exist or is not
    /// a file.
    pub fn blobs(&self, specs: &[String]) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        if specs.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = Vec::new();
        for s in specs {
            input.extend_from_slice(s.as_bytes());
            input.push(b'\n');
        }
        let args = ["cat-file", "--batch"];
        let stdout = self.ran_with_input(&args, Some(&input))?.stdout_of(&args, None)?;
        let mut out = Vec::with_capacity(specs.len());
        let mut rest = &stdout[..];
        for _ in specs {
            let Some(eol) = rest.iter().position(|&b| b == b'\n') else { break };
            let header = String::from_utf8_lossy(&rest[..eol]).into_owned();
            rest = &rest[eol + 1..];
            let fields: Vec<&str> = header.split(' ').collect();
            match fields.as_slice() {
                [_, kind, size] => {
                    let size: usize = size.parse().unwrap_or(0);
                    let body = rest.get(..size).unwrap_or(rest).to_vec();
                    rest = rest.get(size + 1..).unwrap_or(&[]);
                    out.push((*kind == "blob").then_some(body));
                }
                // `<spec> missing` (or ambiguous): nothing follows.
                _ => out.push(None),
            }
        }
        out.resize(specs.len(), None);
        Ok(out)
    }
}

impl Ran {
    /// Its stdout if git succeeded; else why not: `not_a_repository`, an
    /// unknown `rev` (`not_found`, told from git's own complaint), or
    /// `git_failed` with git's stderr.
    fn stdout_of(self, args: &[&str], rev: Option<&str>) -> Result<Vec<u8>, GitError> {
        if self.status == 0 {
            return Ok(self.stdout);
        }
        let said = |s: &str| self.stderr.contains(s);
        if said("not a git repository") {
            return Err(GitError::NotARepository { dir: ".".into() });
        }
        if let Some(rev) = rev
            && (said("unknown revision") || said("bad revision") || said("bad object") || said("invalid object name"))
        {
            return Err(GitError::Unknown { what: "revision", given: rev.to_string(), stderr: self.stderr });
        }
        Err(GitError::Failed { command: args.join(" "), status: self.status, stderr: self.stderr })
    }
}

impl From<std::process::Output> for Ran {
    fn from(out: std::process::Output) -> Ran {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The tail: git's last lines say why.
        let lines: Vec<&str> = stderr.trim().lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        Ran { status: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: tail }
    }
}

/// A root-relative path as a pathspec git reads literally (no globbing).
pub fn literal(path: &str) -> String {
    format!(":(literal){path}")
}
