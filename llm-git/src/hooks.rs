//! The hooks of llm-git's own operations, run as git runs them —
//! `pre-commit`, `prepare-commit-msg`, `commit-msg` and `post-commit` around
//! a commit, `post-checkout` after a branch switch: those the configuration
//! defines (git 2.54's `hook.<name>.command`, a shell command, in the order
//! git reads them), then the hooks folder's (`core.hooksPath` or
//! `.git/hooks`; a file without `#!` through `/bin/sh`, as git falls back
//! to), in the top of the work tree, with
//! git's arguments and environment — but through the gate
//! ([`aide_gate`]): with a timeout that ends the hook's whole process
//! tree, the run's cancellation, the execution log, and inside the sandbox
//! `aide mcp` imposes. git itself runs with hooks off, so nothing runs a
//! hook any other way. Hooks of other events these operations would
//! trigger (`reference-transaction`, `post-index-change`) are not run, and
//! said so.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use aide_core::envelope::{Diagnostic, diag};
use aide_core::tool::Context;
use aide_gate::Launch;

use crate::error::GitError;
use crate::repo::Repo;

/// How long a hook may run before its process tree is taken down.
pub(crate) const HOOK_TIMEOUT: Duration = Duration::from_secs(600);

/// The hooks of a repository, as git finds them.
pub(crate) struct Hooks<'a> {
    repo: &'a Repo,
    ctx: &'a Context,
    timeout: Duration,
}

/// What a hook is run with beyond its arguments.
#[derive(Default)]
pub(crate) struct HookRun<'a> {
    pub args: Vec<OsString>,
    pub env: Vec<(&'static str, OsString)>,
    /// A folder the hook may write even in a sandbox (the message file's).
    pub writable: Option<&'a Path>,
}

impl<'a> Hooks<'a> {
    pub(crate) fn new(repo: &'a Repo, ctx: &'a Context) -> Hooks<'a> {
        Hooks { repo, ctx, timeout: HOOK_TIMEOUT }
    }

    /// The hooks folder's hook called `name`, if there is one git would
    /// run: an executable file.
    fn in_folder(&self, name: &str) -> Option<PathBuf> {
        let path = self.repo.place().hooks.join(name);
        let meta = std::fs::metadata(&path).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(path)
    }

    /// What runs for the event `name`, in git's order: each configured
    /// hook's command, then the hooks folder's file.
    fn programs(&self, name: &str) -> Vec<(PathBuf, Vec<OsString>)> {
        let mut out: Vec<(PathBuf, Vec<OsString>)> = self
            .repo
            .config_hooks()
            .iter()
            .filter(|h| h.events.iter().any(|e| e == name))
            .map(|h| {
                // As git runs a configured command: `sh -c '<command> "$@"' <command> <args>`.
                let mut script = h.command.clone();
                script.push(" \"$@\"");
                (PathBuf::from("/bin/sh"), vec!["-c".into(), script, h.command.clone()])
            })
            .collect();
        if let Some(path) = self.in_folder(name) {
            out.push(match starts_as_a_program(&path) {
                true => (path, Vec::new()),
                // git runs a file the kernel will not (no `#!`) with /bin/sh.
                false => (PathBuf::from("/bin/sh"), vec![path.into_os_string()]),
            });
        }
        out
    }

    /// Whether anything runs for the event `name` (nothing read from the files).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.repo.config_hooks().iter().any(|h| h.events.iter().any(|e| e == name)) || self.in_folder(name).is_some()
    }

    /// Runs what the event `name` has, one after another, stopping at the
    /// first that fails; Ok(None) when there is none, `hook_failed` when
    /// one exits non-zero, `timeout`, `cancelled`.
    pub(crate) fn run(&self, name: &'static str, how: HookRun<'_>) -> Result<Option<()>, GitError> {
        let programs = self.programs(name);
        if programs.is_empty() {
            return Ok(None);
        }
        for (program, leading) in programs {
            self.run_one(name, &program, &leading, &how)?;
        }
        Ok(Some(()))
    }

    fn run_one(
        &self,
        name: &'static str,
        program: &Path,
        leading: &[OsString],
        how: &HookRun<'_>,
    ) -> Result<(), GitError> {
        let top = &self.repo.place().top;
        let mut launch = Launch::new("hook", program, top)
            .args(leading)
            .args(&how.args)
            .env("GIT_PREFIX", prefix(self.repo))
            .timeout(Some(self.timeout))
            .cancel(&self.ctx.cancel)
            .logged_under(&self.ctx.execution_id);
        for (key, value) in &how.env {
            launch = launch.env(key, value);
        }
        if let Some(dir) = how.writable {
            launch = launch.writable([dir.to_path_buf()]);
        }
        let ran = launch.run().map_err(|e| GitError::Start(e.into()))?;
        if ran.cancelled {
            return Err(GitError::Cancelled);
        }
        let tail = |bytes: &[u8]| -> String {
            let text = String::from_utf8_lossy(bytes);
            let lines: Vec<&str> = text.trim_end().lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        };
        if ran.timed_out {
            return Err(GitError::HookTimedOut { hook: name, seconds: self.timeout.as_secs() });
        }
        if !ran.status.success() {
            return Err(GitError::HookFailed {
                hook: name,
                exit_code: ran.exit_code(),
                stdout: tail(&ran.stdout),
                stderr: tail(&ran.stderr),
            });
        }
        Ok(())
    }

    /// Runs a hook that comes after the change (`post-commit`,
    /// `post-checkout`): its failure cannot undo the change, so it is a
    /// diagnostic, as git only reports it.
    pub(crate) fn run_after(&self, name: &'static str, how: HookRun<'_>, diagnostics: &mut Vec<Diagnostic>) {
        if let Err(e) = self.run(name, how) {
            diagnostics.push(Diagnostic::new(diag::HOOK_FAILED, format!("{e}; the change stands")));
        }
    }

    /// A diagnostic for each hook among `names` git would have run and
    /// llm-git does not.
    pub(crate) fn not_run(&self, names: &[&str], diagnostics: &mut Vec<Diagnostic>) {
        for name in names.iter().filter(|n| self.has(n)) {
            diagnostics.push(Diagnostic::new(
                diag::HOOK_NOT_RUN,
                format!("the {name} hook was not run: llm-git runs only the hooks of commits and branch switches"),
            ));
        }
    }
}

/// Whether the kernel runs `path` itself: it starts with `#!` or is an ELF
/// binary (anything else gets Exec format error, and git runs it with sh).
fn starts_as_a_program(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    head[..read].starts_with(b"#!") || head[..read] == *b"\x7fELF"
}

/// The root's path from the top, as git gives hooks `GIT_PREFIX`.
fn prefix(repo: &Repo) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(repo.place().prefix.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)] // git init for the test's repository, not a program of aide's
    fn a_hook_past_its_timeout_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("git").args(["init", "-q"]).current_dir(dir.path()).status().unwrap();
        assert!(ok.success());
        let hook = dir.path().join(".git/hooks/pre-commit");
        // A child of its own that holds the hook's output open: the gate takes the whole group down.
        std::fs::write(&hook, "#!/bin/sh\nsleep 120 &\nsleep 120\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let root = aide_core::Root::new(dir.path()).unwrap();
        let repo = Repo::open(&root).unwrap();
        let ctx = Context::new("test");
        let hooks = Hooks { timeout: Duration::from_secs(1), ..Hooks::new(&repo, &ctx) };
        let started = std::time::Instant::now();
        let ran = hooks.run("pre-commit", HookRun::default());
        assert!(matches!(ran, Err(GitError::HookTimedOut { hook: "pre-commit", .. })), "{:?}", ran.err());
        assert!(started.elapsed() < Duration::from_secs(60), "waited {:?}", started.elapsed());
        assert!(matches!(hooks.run("post-commit", HookRun::default()), Ok(None)), "no such hook: nothing runs");
    }
}
