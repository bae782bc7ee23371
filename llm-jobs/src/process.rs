//! Processes: liveness by pid *and* start time (a reused pid is never taken
//! for the job), and signal names. Group signalling is in aide-core.

use rustix::process::Signal;

/// A process's start time in clock ticks since boot (`/proc/PID/stat`, field 22).
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process `pid` that started at `start` still runs (zombies count as gone).
pub fn is_alive(pid: u32, start: u64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    let Some(close) = stat.rfind(')') else { return false };
    let mut fields = stat[close + 1..].split_whitespace();
    let state = fields.next().unwrap_or("");
    if state == "Z" || state == "X" {
        return false;
    }
    fields.nth(18).and_then(|s| s.parse::<u64>().ok()) == Some(start)
}

/// Parses a signal name (`TERM`, `SIGKILL`, `int`) or number.
pub fn parse_signal(s: &str) -> Option<Signal> {
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
pub fn job_group_alive(pgid: u32, leader_start: u64) -> bool {
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
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(close) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let zombie = matches!(fields.first(), Some(&"Z") | Some(&"X"));
        if !zombie && fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) {
            members.push((pid, fields.get(19).and_then(|s| s.parse().ok()).unwrap_or(0)));
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
    fn signals_parse() {
        assert_eq!(parse_signal("TERM"), Some(Signal::TERM));
        assert_eq!(parse_signal("sigkill"), Some(Signal::KILL));
        assert_eq!(parse_signal("9"), Some(Signal::KILL));
        assert_eq!(parse_signal("BOGUS"), None);
    }
}
