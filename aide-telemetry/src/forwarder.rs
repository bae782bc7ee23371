//! The forwarder: one detached process per export folder (the `aide`
//! executable's hidden `__aide_otel_forward DIR`) that sends the spooled
//! spans. A run only spools its record and, when no forwarder holds the
//! folder's lock, starts one without waiting for it, so a run never waits
//! on the network and the exporter's code never loads in a tool's process.
//!
//! An export folder is one set of settings ([`crate::settings::Settings::key`]),
//! and its forwarder is started with the environment of a run that asked
//! for exactly those: a run with another endpoint or credentials is never
//! sent by it. The folders live under `$AIDE_HOME/otel`, which no sandboxed
//! command can see (aide-gate mounts an empty folder over it), so no
//! confined command can hold a forwarder's lock and stop the export.

use std::path::{Path, PathBuf};

/// The hidden words of the `aide` executable that launch and are the forwarder.
pub const WORDS: aide_keeper::detach::Words =
    aide_keeper::detach::Words { launch: "__aide_otel_launch", keep: "__aide_otel_forward" };

/// The executable that forwards.
pub const FORWARDER: &str = "aide";

/// The lock a running forwarder of the export folder `dir` holds for its whole life.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join("forwarder.lock")
}

/// Whether a forwarder runs for the export folder `dir` now.
pub fn running(dir: &Path) -> bool {
    aide_core::fsutil::lock_held(&lock_path(dir))
}

/// How long a forwarder just started is given to take its lock before
/// another run starts one again.
const STARTING: std::time::Duration = std::time::Duration::from_secs(5);

/// Why a run's span was not handed to a forwarder.
pub const NO_EXECUTABLE: &str = "the aide executable is not found: no forwarder can start";

/// Makes sure a forwarder will send what is spooled in the export folder
/// `dir`: starts one when none holds the lock and none was started in the
/// last few seconds. The run does not wait for it (a forwarder is a large
/// program to load); a thread reaps it should it end while this process
/// still runs (`aide mcp`). A forwarder that is about to leave looks at the
/// spool again after letting go of its lock, so a record spooled while it
/// left is not stranded. Errors are the caller's to ignore, never to fail
/// a run with (NotFound: no `aide` executable, see [`NO_EXECUTABLE`]).
pub fn wake(dir: &Path, settings: &crate::settings::Settings) -> std::io::Result<()> {
    if running(dir) {
        return Ok(());
    }
    let stamp = dir.join("forwarder.started");
    let recent =
        std::fs::metadata(&stamp).and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age < STARTING));
    if recent {
        return Ok(());
    }
    let executable = aide_gate::program::find_executable(FORWARDER)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, NO_EXECUTABLE))?;
    std::fs::write(&stamp, b"")?;
    let child = start(&executable, dir, &settings.from_file)?;
    std::thread::spawn(move || {
        let mut child = child;
        let _ = child.wait();
    });
    Ok(())
}

/// Starts the forwarder of `dir` as the keepers start (in `/`, its streams
/// closed, no descriptor of the caller's), in a process group of its own
/// (a Ctrl-C at the run's terminal is not its), with `from_file`: what the
/// user's aide.toml sets and the environment does not, for the exporter,
/// which reads the variables.
fn start(executable: &Path, dir: &Path, from_file: &[(&str, String)]) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    aide_keeper::detach::keeper(executable, WORDS, dir.as_os_str())
        .envs(from_file.iter().map(|(k, v)| (k, v)))
        .process_group(0)
        .spawn()
}

/// Takes the forwarder's lock of the export folder `dir`: None when another
/// forwarder holds it (this one then has nothing to do).
pub fn hold(dir: &Path) -> std::io::Result<Option<std::fs::File>> {
    aide_core::fsutil::private_dir(dir)?;
    let file =
        aide_core::fsutil::private_file().read(true).write(true).create(true).truncate(false).open(lock_path(dir))?;
    let file = aide_core::fsutil::regular(file)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
