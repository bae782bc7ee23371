//! Processes: liveness by pid *and* start time (a reused pid is never taken
//! for the job), and signal names. Group signalling is in aide-core.

use rustix::process::Signal;

/// What `/proc/PID/stat` says of a process that the jobs need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    /// A zombie, or dead: gone for every purpose here.
    gone: bool,
    /// Stopped by a signal (state `T`: SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU).
    stopped: bool,
    pgid: u32,
    /// Clock ticks since boot (field 22).
    start: u64,
}

/// Reads and parses `/proc/PID/stat` (the file at `path`).
fn stat(path: &std::path::Path) -> Option<Stat> {
    let text = std::fs::read_to_string(path).ok()?;
    parse_stat(&text)
}

/// The command name may hold spaces and parentheses: fields follow the
/// last ')'; field 3 is the state, 5 the process group, 22 the start time.
fn parse_stat(text: &str) -> Option<Stat> {
    let fields: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    Some(Stat {
        gone: matches!(fields.first(), Some(&"Z") | Some(&"X")),
        stopped: fields.first() == Some(&"T"),
        pgid: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

fn stat_of(pid: u32) -> Option<Stat> {
    stat(std::path::Path::new(&format!("/proc/{pid}/stat")))
}

/// A process's start time in clock ticks since boot.
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    stat_of(pid).map(|s| s.start)
}

/// Whether the process `pid` that started at `start` still runs (zombies count as gone).
pub(crate) fn is_alive(pid: u32, start: u64) -> bool {
    stat_of(pid).is_some_and(|s| !s.gone && s.start == start)
}

/// Whether the process `pid` that started at `start` is stopped by a
/// signal (a paused job's leader): alive, its state `T`.
pub(crate) fn is_stopped(pid: u32, start: u64) -> bool {
    stat_of(pid).is_some_and(|s| !s.gone && s.start == start && s.stopped)
}

/// Whether `signal` stops a process or continues it rather than ending it.
/// Returns `Some(true)` for CONT, `Some(false)` for the stopping ones.
pub(crate) fn pauses(signal: Signal) -> Option<bool> {
    match signal {
        Signal::CONT => Some(true),
        Signal::STOP | Signal::TSTP | Signal::TTIN | Signal::TTOU => Some(false),
        _ => None,
    }
}

/// Parses a signal name (`TERM`, `SIGKILL`, `int`) or number.
pub(crate) fn parse_signal(s: &str) -> Option<Signal> {
    let upper = s.trim().to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    let sig = match name {
        "HUP" | "1" => Signal::HUP,
        "INT" | "2" => Signal::INT,
        "QUIT" | "3" => Signal::QUIT,
        "KILL" | "9" => Signal::KILL,
        "USR1" | "10" => Signal::USR1,
        "USR2" | "12" => Signal::USR2,
        "TERM" | "15" => Signal::TERM,
        "CONT" | "18" => Signal::CONT,
        "STOP" | "19" => Signal::STOP,
        "TSTP" | "20" => Signal::TSTP,
        "TTIN" | "21" => Signal::TTIN,
        "TTOU" | "22" => Signal::TTOU,
        _ => return None,
    };
    Some(sig)
}

/// Whether the process group a job's command led (`pgid`, whose leader
/// started at `leader_start`) still has members that are the job's own: the
/// leader itself with its recorded start time, or — the leader gone —
/// members that started no earlier than it did (a group id is only reused
/// once every member of the old group is gone, so an older member means an
/// unrelated group).
pub(crate) fn job_group_alive(pgid: u32, leader_start: u64) -> bool {
    if is_alive(pgid, leader_start) {
        return true;
    }
    if start_time(pgid).is_some() {
        return false; // the pid now belongs to another process
    }
    group_members(pgid).iter().any(|&(_, start)| start >= leader_start)
}

/// Live (non-zombie) members of process group `pgid`, with their start times.
fn group_members(pgid: u32) -> Vec<(u32, u64)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut members = Vec::new();
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Some(s) = stat(&entry.path().join("stat")) else { continue };
        if !s.gone && s.pgid == pgid {
            members.push((pid, s.start));
        }
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_is_alive_and_a_wrong_start_time_is_not() {
        let me = std::process::id();
        let start = start_time(me).unwrap();
        assert!(is_alive(me, start));
        assert!(!is_alive(me, start + 1));
        assert!(!is_alive(u32::MAX - 1, start));
    }

    #[test]
    fn a_stat_line_parses_past_a_name_with_spaces_and_parentheses() {
        let line = "42 (a (weird) name) S 1 40 40 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0";
        assert_eq!(parse_stat(line), Some(Stat { gone: false, stopped: false, pgid: 40, start: 12345 }));
        let stopped = "42 (x) T 1 40 40 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0";
        assert!(parse_stat(stopped).unwrap().stopped);
        let zombie = "42 (x) Z 1 40 40 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0";
        assert!(parse_stat(zombie).unwrap().gone);
        assert_eq!(parse_stat("42 (x) S"), None);
    }

    #[test]
    fn signals_parse() {
        assert_eq!(parse_signal("TERM"), Some(Signal::TERM));
        assert_eq!(parse_signal("sigkill"), Some(Signal::KILL));
        assert_eq!(parse_signal("9"), Some(Signal::KILL));
        assert_eq!(parse_signal("BOGUS"), None);
        assert_eq!(parse_signal("tstp").and_then(pauses), Some(false));
        assert_eq!(parse_signal("SIGCONT").and_then(pauses), Some(true));
        assert_eq!(parse_signal("19").and_then(pauses), Some(false));
        assert_eq!(parse_signal("TERM").and_then(pauses), None);
    }
}
