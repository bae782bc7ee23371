//! What a process aide starts inherits of aide's own: its three streams
//! and nothing else. A descriptor aide's caller handed down without
//! close-on-exec (a harness's pipe, make's jobserver, the MCP server's
//! protocol) would otherwise be held open by a command, a keeper or the
//! telemetry forwarder long after the run ended, and whoever waits for
//! that pipe's end would wait with it.

/// Marks every descriptor above stderr close-on-exec in the child of
/// `command`. Best effort before Linux 5.11 (no `close_range`).
#[allow(unsafe_code)]
pub fn inherit_only_stdio(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: close_range is one async-signal-safe system call made in the
    // forked child before exec; nothing is allocated.
    unsafe {
        command.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC);
            Ok(())
        });
    }
}
