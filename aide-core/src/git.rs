//! git as the tools run it: the one place git is started ([`Git`], opened
//! on a repository, each run through [`Git::ran`] or [`Git::stdout`]), with
//! nothing the repository's own configuration names ever run ([`guard`])
//! and a work tree set elsewhere than its `.git` refused ([`place`]); the
//! files changed against a revision (`--changed`), for every tool that walks
//! or checks; git's quoted paths ([`quote`]), for llm-git and patches.

pub mod guard;
pub mod place;
pub mod quote;
mod ran;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use guard::{ConfigHook, Guard};
pub use place::Place;
pub use quote::{diff_header_paths, diff_header_paths_bytes, unquote_path, unquote_path_bytes};
pub use ran::{Ran, shown};

pub use crate::error::{OpenError, RunError};

use crate::error::AideError;

/// A repository the tools run git in: where the root stands in it, and the
/// settings every run carries.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    pub place: Place,
    guard: Guard,
}

impl Git {
    /// The repository holding `dir` (where git runs). Refused: no
    /// repository, a bare one, and a work tree set elsewhere than the
    /// folder its `.git` is in — before anything else runs.
    pub fn open(dir: &Path) -> Result<Git, OpenError> {
        let place = place::locate(dir, base(dir))?;
        let guard = Guard::read(dir, Some(&place.top), &base);
        Ok(Git { dir: dir.to_path_buf(), place, guard })
    }

    /// git in the root with every setting of [`guard`]: run it with the
    /// subcommand's arguments.
    pub fn command(&self) -> Command {
        let mut c = base(&self.dir);
        self.guard.apply(&mut c);
        c
    }

    /// The same repository, git run from the top of its work tree.
    pub fn at_top(&self) -> Git {
        Git { dir: self.place.top.clone(), ..self.clone() }
    }

    /// The keys of the repository's own configuration that were not honoured.
    pub fn ignored(&self) -> &[String] {
        &self.guard.ignored
    }

    /// The hooks the configuration defines (git runs none of them: llm-git
    /// runs those of its operations through the gate).
    pub fn config_hooks(&self) -> &[ConfigHook] {
        &self.guard.hooks
    }

    /// A path git gives relative to the top of the work tree, relative to
    /// the root instead, in the contract's spelling (`\xHH` for a byte
    /// that is not UTF-8); None when it lies outside the root.
    pub fn local(&self, top_relative: &[u8]) -> Option<String> {
        let rest = top_relative.strip_prefix(self.place.prefix.as_slice())?;
        Some(crate::text::path_name(rest))
    }
}

/// git in `dir` before any repository's settings are known: no pager, no
/// colour, paths unquoted where git allows, no optional locks (a read never
/// writes the index), no prompt, no network (every transport refused, no
/// lazy fetch of a partial clone's objects), `:` for an editor, stdin closed.
fn base(dir: &Path) -> Command {
    // git itself is trusted; what a repository could make it run is not
    // (see `guard`), and hooks run through the gate (llm-git).
    #[allow(clippy::disallowed_methods)]
    let mut c = Command::new("git");
    c.arg("--no-pager")
        .args(["-c", "core.quotePath=false", "-c", "color.ui=never", "-c", "core.pager=cat"])
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", ":")
        .env("GIT_SEQUENCE_EDITOR", ":")
        .env("GIT_ALLOW_PROTOCOL", "")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    c
}

/// Paths relative to `root` (which may lie inside the repository), in the
/// contract's spelling, of the files that differ from `rev` in the working
/// tree or the index, and the untracked ones git does not ignore; deleted
/// files left out.
pub fn changed_files(root: &Path, rev: &str) -> Result<BTreeSet<String>, AideError> {
    let git = Git::open(root)?;
    let ran = |args: &[&str]| -> Result<Vec<u8>, AideError> { Ok(git.stdout(args)?) };
    let diff = ran(&["diff", "--name-only", "-z", "--relative", "--no-renames", "--end-of-options", rev, "--"])?;
    let untracked = ran(&["ls-files", "--others", "--exclude-standard", "-z"])?;
    let mut out = BTreeSet::new();
    for name in diff.split(|&b| b == 0).chain(untracked.split(|&b| b == 0)) {
        let name = Path::new(OsStr::from_bytes(name));
        if !name.as_os_str().is_empty() && root.join(name).is_file() {
            out.insert(crate::root::to_slash(name));
        }
    }
    Ok(out)
}
