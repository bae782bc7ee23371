//! The detaching launcher every keeper starts through (a session's shell,
//! a language server, a job's supervisor): `TOOL LAUNCH ARG` starts `TOOL
//! KEEP ARG` and exits at once, so the keeper is orphaned to init and nobody
//! has to reap it, and the caller waits only for the launcher.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// The words of a tool's hidden keeper commands.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// Starts the keeper detached and exits.
    pub launch: &'static str,
    /// Is the keeper.
    pub keep: &'static str,
}

/// Starts the keeper `executable` serves as `words.keep arg`, through its
/// launcher, and waits for the launcher only.
#[allow(clippy::disallowed_methods)] // aide's own executable, unsandboxed for an unsandboxed caller
pub fn start(executable: &Path, words: Words, arg: &OsStr) -> std::io::Result<()> {
    let mut launcher = Command::new(executable);
    launcher.arg(words.launch).arg(arg).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    aide_core::child::inherit_only_stdio(&mut launcher);
    let status = launcher.status()?;
    if status.success() { Ok(()) } else { Err(std::io::Error::other(format!("the launcher exited with {status}"))) }
}

/// Runs a tool's hidden keeper commands, None for any other command line:
/// as the launcher, starts this executable as the keeper (in `/`, holding
/// no folder busy, its streams closed) and returns 0 (4 if it could not);
/// as the keeper, returns what `keep` does with the argument (2 without one).
pub fn run(words: Words, keep: impl FnOnce(&OsStr) -> i32) -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    let which = args.next()?;
    let which = which.to_str()?;
    if which != words.keep && which != words.launch {
        return None;
    }
    let Some(arg) = args.next() else { return Some(2) };
    if which == words.keep {
        return Some(keep(&arg));
    }
    let Ok(exe) = std::env::current_exe() else { return Some(4) };
    Some(if keeper(&exe, words, &arg).spawn().is_ok() { 0 } else { 4 })
}

/// The command that is the keeper `executable` serves as `words.keep arg`:
/// in `/` (holding no folder busy), its streams closed, inheriting no
/// other descriptor of its caller's (a pipe someone waits on would stay
/// open for the keeper's whole life).
#[allow(clippy::disallowed_methods)] // aide's own executable, as its keeper
pub fn keeper(executable: &Path, words: Words, arg: &OsStr) -> Command {
    let mut command = Command::new(executable);
    command.arg(words.keep).arg(arg).current_dir("/").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    aide_core::child::inherit_only_stdio(&mut command);
    command
}
