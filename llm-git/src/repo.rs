//! The repository a request works in: git run in the root (through
//! [`aide_core::git::Git`]: nothing the repository's own configuration
//! names runs, and a work tree set elsewhere is refused), and paths turned
//! between git's (bytes, relative to the work tree's top) and the
//! contract's (relative to the root, `\xHH` for a byte that is not UTF-8).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use aide_core::Root;
use aide_core::git::{Git, Place, Ran, shown};

use crate::error::GitError;

/// A root inside a git repository.
pub(crate) struct Repo {
    git: Git,
    /// The root, where git runs.
    pub dir: PathBuf,
}

impl Repo {
    /// The repository holding `root`: `not_a_repository`, or
    /// `path_outside_root` for a work tree set elsewhere, before anything runs.
    pub(crate) fn open(root: &Root) -> Result<Repo, GitError> {
        let dir = root.path().to_path_buf();
        Ok(Repo { git: Git::open(&dir)?, dir })
    }

    /// Where the root stands in its repository.
    pub(crate) fn place(&self) -> &Place {
        &self.git.place
    }

    /// The hooks the configuration defines (`hook.<name>.command`).
    pub(crate) fn config_hooks(&self) -> &[aide_core::git::ConfigHook] {
        self.git.config_hooks()
    }

    /// The keys of the repository's own configuration git ran without.
    pub(crate) fn ignored(&self) -> &[String] {
        self.git.ignored()
    }

    /// Runs git with `args`; whatever it exits with.
    pub(crate) fn ran<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Ran, GitError> {
        self.ran_with(args, None, &[])
    }

    /// Runs git with `args`, writing `input` to its stdin.
    pub(crate) fn ran_with_input<S: AsRef<OsStr>>(&self, args: &[S], input: Option<&[u8]>) -> Result<Ran, GitError> {
        self.ran_with(args, input, &[])
    }

    /// Runs git with `args`, `input` on its stdin and `env` added.
    pub(crate) fn ran_with<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        input: Option<&[u8]>,
        env: &[(&str, OsString)],
    ) -> Result<Ran, GitError> {
        self.git.ran(args, input, env).map_err(|e| GitError::Missing { reason: e.to_string() })
    }

    /// Runs git; its stdout, or `git_failed` with its stderr.
    pub(crate) fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, GitError> {
        self.run_at(args, None)
    }

    /// Runs git on the revision `rev`; one git does not know is
    /// `not_found`, found from git's own complaint (no run beforehand).
    pub(crate) fn run_at<S: AsRef<OsStr>>(&self, args: &[S], rev: Option<&str>) -> Result<Vec<u8>, GitError> {
        stdout_of(self.ran(args)?, args, rev)
    }

    /// A top-relative path of git's as the root's, spelled as the contract
    /// spells names (None: outside the root).
    pub(crate) fn local(&self, top_relative: &[u8]) -> Option<String> {
        self.git.local(top_relative)
    }

    /// A top-relative path of git's, spelled, wherever it lies (for saying
    /// which path is outside the root).
    pub(crate) fn spelled(top_relative: &[u8]) -> String {
        aide_core::text::path_name(top_relative)
    }

    /// Whether `rev` names a commit.
    pub(crate) fn is_commit(&self, rev: &str) -> Result<bool, GitError> {
        let spec = format!("{rev}^{{commit}}");
        Ok(self.ran(&["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])?.status == 0)
    }

    /// `rev`, checked to name a commit (`not_found` otherwise).
    pub(crate) fn commit(&self, rev: &str) -> Result<String, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let ran = self.ran(&["rev-parse", "--verify", "--end-of-options", &spec])?;
        if ran.status != 0 {
            return Err(GitError::Unknown { what: "revision", given: rev.to_string(), stderr: ran.stderr });
        }
        Ok(String::from_utf8_lossy(&ran.stdout).trim().to_string())
    }

    /// The contents of several objects (`REV:./path`, `:./path`, as bytes)
    /// in one `git cat-file --batch`: None for one that does not exist or
    /// is not a file.
    pub(crate) fn blobs(&self, specs: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        if specs.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = Vec::new();
        for s in specs {
            input.extend_from_slice(s);
            input.push(b'\n');
        }
        let args = ["cat-file", "--batch"];
        let stdout = stdout_of(self.ran_with_input(&args, Some(&input))?, &args, None)?;
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

/// Its stdout if git succeeded; else why not: `not_a_repository`, an
/// unknown `rev` (`not_found`, told from git's own complaint), or
/// `git_failed` with git's stderr.
pub(crate) fn stdout_of<S: AsRef<OsStr>>(ran: Ran, args: &[S], rev: Option<&str>) -> Result<Vec<u8>, GitError> {
    if ran.status == 0 {
        return Ok(ran.stdout);
    }
    let said = |s: &str| ran.stderr.contains(s);
    if said("not a git repository") {
        return Err(GitError::NotARepository { dir: ".".into() });
    }
    if let Some(rev) = rev
        && (said("unknown revision") || said("bad revision") || said("bad object") || said("invalid object name"))
    {
        return Err(GitError::Unknown { what: "revision", given: rev.to_string(), stderr: ran.stderr });
    }
    Err(GitError::Failed { command: shown(args), status: ran.status, stderr: ran.stderr })
}

/// The name a path in the contract's spelling stands for (`\xHH` a byte,
/// `\\` a backslash), as git takes it.
pub(crate) fn raw(path: &str) -> OsString {
    aide_core::text::unescape_path(path).unwrap_or_else(|| OsString::from(path))
}

/// A root-relative path (in the contract's spelling) as a pathspec git
/// reads literally (no globbing).
pub(crate) fn literal(path: &str) -> OsString {
    let mut spec = OsString::from(":(literal)");
    spec.push(raw(path));
    spec
}

/// An object name `REV:./path` (`:./path`: the index's) for a root-relative path in the contract's spelling.
pub(crate) fn object(rev: &str, path: &str) -> Vec<u8> {
    let mut spec = format!("{rev}:./").into_bytes();
    spec.extend_from_slice(raw(path.trim_start_matches("./")).as_bytes());
    spec
}

/// Bytes as an argument.
pub(crate) fn arg(bytes: Vec<u8>) -> OsString {
    OsString::from_vec(bytes)
}
