//! The programs the tests run: aide's built binaries, outside oracles on PATH, and the processes they leave.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The directory holding the workspace's built binaries, building them once
/// per test process so the tests never run stale executables.
pub fn bin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    say_failures_inline();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        // target/<profile>/deps/e2e-hash -> target/<profile>
        let dir = exe.parent().and_then(Path::parent).expect("target profile dir").to_path_buf();
        let release = dir.file_name().is_some_and(|n| n == "release");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "--workspace", "--bins", "--manifest-path"]).arg(&manifest);
        if release {
            cmd.arg("--release");
        }
        if let Some(target) = dir.parent() {
            cmd.env("CARGO_TARGET_DIR", target);
        }
        let status = cmd.status().expect("running cargo build for the binaries");
        assert!(status.success(), "building the workspace binaries failed");
        dir
    })
}

/// `command` started in a session of its own, as MCP clients (the
/// official SDKs) and CI runners start a tool: not in the test run's
/// session, whose terminal and process group are the runner's.
#[allow(unsafe_code)]
pub fn own_session(mut command: Command) -> Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe and touches nothing of the parent's.
    // It fails only for a process group's leader: a test that gave the
    // command a group of its own keeps it.
    unsafe {
        command.pre_exec(|| {
            let _ = rustix::process::setsid();
            Ok(())
        });
    }
    command
}

/// `command` started with SIGINT and SIGTERM at their default action, as a
/// shell's foreground job has them: a test run started in the background
/// by a non-interactive shell inherits SIGINT ignored, and a tool keeps an
/// ignored signal ignored (as it should), which a test of what a signal
/// does must not take for the tool's doing.
#[allow(unsafe_code)]
pub fn default_signals(mut command: Command) -> Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal() is async-signal-safe and changes only the child's dispositions.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    command
}

/// Sends SIGKILL to the process group `pgid`.
///
/// Spelled `kill -s KILL -- -PGID` on purpose: procps-ng's `kill -9 -PGID`
/// parses the group as a signal and signals process group 9 instead, which
/// can take down unrelated processes.
pub fn kill_process_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Waits until `check` holds, asking every 20 ms; fails the test naming
/// `what` when it has not within `within`.
pub fn eventually(what: &str, within: std::time::Duration, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + within;
    while !check() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Pids of live processes whose command line contains `needle` (words
/// joined by spaces), read from /proc: `pgrep -f` without procps.
pub fn processes_with_cmdline(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        if line.contains(needle) && pid != std::process::id() {
            found.push(pid);
        }
    }
    found
}

/// Makes each failing test say why on the stream as it fails, one line
/// past the harness's capture (`FAILED test: where: what`), besides the
/// full report at the end: a CI log cut to its first and last lines still
/// shows the reasons next to the failures. Installed once per process.
pub fn say_failures_inline() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let test = std::thread::current().name().unwrap_or("?").to_string();
            let payload = info.payload();
            let said = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("(no message)");
            // A pretty-printed document in the message is one line here.
            let first: String = said.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(400).collect();
            let place = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            let line = format!("FAILED {test}: {place}: {first}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            report(info);
        }));
    });
}
