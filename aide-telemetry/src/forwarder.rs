//! The forwarder: one detached process per `$AIDE_HOME` (the `aide`
//! executable's hidden `__aide_otel_forward`) that sends the spooled spans.
//! A run only spools its record and, when no forwarder holds the lock,
//! starts one without waiting for it, so a run never waits on the network
//! and the exporter's code never loads in a tool's process.

use std::path::{Path, PathBuf};

/// The hidden words of the `aide` executable that launch and are the forwarder.
pub const WORDS: aide_keeper::detach::Words =
    aide_keeper::detach::Words { launch: "__aide_otel_launch", keep: "__aide_otel_forward" };

/// The executable that forwards.
pub const FORWARDER: &str = "aide";

/// The lock a running forwarder holds for its whole life.
pub fn lock_path(home: &Path) -> PathBuf {
    crate::record::telemetry_dir(home).join("forwarder.lock")
}

/// Whether a forwarder runs for `home` now.
pub fn running(home: &Path) -> bool {
    aide_core::fsutil::lock_held(&lock_path(home))
}

/// How long a forwarder just started is given to take its lock before
/// another run starts one again.
const STARTING: std::time::Duration = std::time::Duration::from_secs(5);

/// Makes sure a forwarder will send what is spooled under `home`: starts
/// one when none holds the lock and none was started in the last few
/// seconds. The run does not wait for it (a forwarder is a large program to
/// load); a thread reaps it should it end while this process still runs
/// (`aide mcp`). A forwarder that is about to leave looks at the spool
/// again after letting go of its lock, so a record spooled while it left
/// is not stranded. Errors are the caller's to ignore, never to fail a run
/// with: the record stays spooled for the next forwarder.
pub fn wake(home: &Path, settings: &crate::settings::Settings) -> std::io::Result<()> {
    if running(home) {
        return Ok(());
    }
    let stamp = crate::record::telemetry_dir(home).join("forwarder.started");
    let recent =
        std::fs::metadata(&stamp).and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age < STARTING));
    if recent {
        return Ok(());
    }
    std::fs::write(&stamp, b"")?;
    let executable = aide_gate::program::find_executable(FORWARDER)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "the aide executable is not found"))?;
    let child = start(&executable, home, &settings.from_file)?;
    std::thread::spawn(move || {
        let mut child = child;
        let _ = child.wait();
    });
    Ok(())
}

/// Starts the forwarder for `home`, in `/`, its streams closed, in a
/// process group of its own (a Ctrl-C at the run's terminal is not its).
#[allow(clippy::disallowed_methods)] // aide's own executable, unsandboxed: it only reads the spool and sends
/// `from_file`: what the user's aide.toml sets and the environment does
/// not, for the exporter, which reads the variables.
fn start(executable: &Path, home: &Path, from_file: &[(&str, String)]) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    std::process::Command::new(executable)
        .arg(WORDS.keep)
        .arg(home)
        .envs(from_file.iter().map(|(k, v)| (k, v)))
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
}

/// Takes the forwarder's lock for `home`: None when another forwarder holds
/// it (this one then has nothing to do).
pub fn hold(home: &Path) -> std::io::Result<Option<std::fs::File>> {
    aide_core::fsutil::private_dir(&crate::record::telemetry_dir(home))?;
    let file =
        aide_core::fsutil::private_file().read(true).write(true).create(true).truncate(false).open(lock_path(home))?;
    let file = aide_core::fsutil::regular(file)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
