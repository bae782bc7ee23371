//! `aide doctor`: checks what the tools rely on and says how to fix each
//! miss.
//!
//! Each check is `ok`, `warn` (something optional is missing: only the test
//! suite, or one guard, needs it) or `fail` (a tool will not work, or state
//! needs repair). The run exits 0 unless a check fails, 3 if one does.

use std::path::{Path, PathBuf};

mod telemetry;

use schemars::JsonSchema;
use serde::Serialize;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Ok,
    /// Something optional is missing or worth knowing; the tools work.
    Warn,
    /// A tool will not work, or state needs repair.
    Fail,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "fail",
        }
    }
}

/// One check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Check {
    /// What was checked: a program (`bash`), or `aide_home`, `log`, `jobs`,
    /// `transform_journals`, `transform_locks`, `shell_sessions`, `telemetry`.
    pub name: String,
    pub status: CheckStatus,
    /// What was found: a version, a path and size, a count.
    pub detail: String,
    /// Which tools rely on it.
    pub needed_by: String,
    /// How to fix a miss; absent when the check is ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn new(name: &str, needed_by: &str, status: CheckStatus, detail: String) -> Check {
        Check { name: name.into(), status, detail, needed_by: needed_by.into(), fix: None }
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        if self.status != CheckStatus::Ok {
            self.fix = Some(fix.into());
        }
        self
    }
}

/// The report: every check, and whether none failed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DoctorReport {
    /// True when no check failed (warnings allowed): the exit status is 0.
    pub healthy: bool,
    pub checks: Vec<Check>,
}

/// A program the tools run, and what to do when it is missing.
struct Program {
    name: &'static str,
    needed_by: &'static str,
    required: bool,
    fix: &'static str,
}

const PROGRAMS: &[Program] = &[
    Program {
        name: "bash",
        needed_by: "llm-shell and llm-jobs (every command runs in bash)",
        required: true,
        fix: "install bash (Debian: apt-get install bash)",
    },
    Program {
        name: "git",
        needed_by: "llm-shell compare (a worktree per revision); the test suite",
        required: true,
        fix: "install git (Debian: apt-get install git)",
    },
    Program {
        name: "rustfmt",
        needed_by: "llm-transform's rustfmt guard on Rust files",
        required: false,
        fix: "rustup component add rustfmt",
    },
    Program {
        name: "cargo",
        needed_by: "llm-lint's cargo and clippy checkers, llm-transform --verify cargo",
        required: false,
        fix: "install Rust with rustup (https://rustup.rs)",
    },
    Program {
        name: "rg",
        needed_by: "only the test suite (ripgrep is llm-search's oracle)",
        required: false,
        fix: "apt-get install ripgrep",
    },
    Program {
        name: "ctags",
        needed_by: "only the test suite (universal-ctags is llm-ast-search's oracle)",
        required: false,
        fix: "apt-get install universal-ctags",
    },
];

/// A log or job database larger than this is worth a warning.
const LARGE_DATABASE: u64 = 1 << 30;

/// Runs every check; `fix` also removes the lock files nobody holds.
pub(crate) fn doctor(fix: bool) -> DoctorReport {
    let mut checks: Vec<Check> = PROGRAMS.iter().map(check_program).collect();
    let home = aide_core::home::aide_home();
    checks.push(check_home(&home));
    checks.push(check_log(&home));
    checks.push(check_database("jobs", "llm-jobs (the job table)", &llm_jobs::database_path(), "no job spawned yet"));
    checks.push(check_journals());
    checks.push(check_locks(fix));
    checks.push(check_sessions());
    checks.push(check_language_servers());
    checks.push(check_indexes());
    checks.push(check_sandbox(&home));
    checks.push(check_configuration());
    checks.push(telemetry::check_telemetry(&home));
    checks.extend(aide_checkers::CHECKERS.iter().map(check_checker));
    let healthy = checks.iter().all(|c| c.status != CheckStatus::Fail);
    DoctorReport { healthy, checks }
}

fn check_program(p: &Program) -> Check {
    let program =
        if p.name == "cargo" { std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()) } else { p.name.into() };
    let found =
        if program.contains('/') { Some(PathBuf::from(&program)) } else { aide_gate::program::on_path(&program) };
    let missing = if p.required { CheckStatus::Fail } else { CheckStatus::Warn };
    let Some(path) = found else {
        return Check::new(p.name, p.needed_by, missing, "not found on PATH".into()).fix(p.fix);
    };
    let version = aide_gate::Launch::new("version check", &path, std::env::temp_dir())
        .arg("--version")
        .timeout(Some(std::time::Duration::from_secs(10)))
        .run()
        .ok()
        .filter(|o| o.status.success() && !o.timed_out)
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(str::to_string));
    match version {
        Some(v) => Check::new(p.name, p.needed_by, CheckStatus::Ok, format!("{v} ({})", path.display())),
        None => Check::new(p.name, p.needed_by, missing, format!("{} does not run (--version failed)", path.display()))
            .fix(p.fix),
    }
}

/// A checker llm-lint runs where a project uses it: installed or not
/// (never a failure: a project that does not use it needs nothing).
fn check_checker(c: &aide_checkers::Checker) -> Check {
    let name = format!("lint_{}", c.name);
    let needed_by = format!("llm-lint and llm-transform --verify, for {} projects that use {}", c.language, c.name);
    let here = std::env::current_dir().unwrap_or_default();
    match c.program(&here) {
        Some(path) => Check::new(&name, &needed_by, CheckStatus::Ok, format!("installed ({})", path.display())),
        None => Check::new(&name, &needed_by, CheckStatus::Warn, "not installed".into()).fix(c.install),
    }
}

/// The settings aide.toml gives runs in the current directory, each with
/// where it came from, and what a project's file asked for in vain.
fn check_configuration() -> Check {
    const NEEDED_BY: &str = "every tool (aide.toml: the project's, then the user's)";
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let config = match aide_config::load(&dir) {
        Ok(c) => c,
        Err(e) => {
            return Check::new("configuration", NEEDED_BY, CheckStatus::Fail, e.message.into())
                .fix("correct the file (docs/CONTRACT.md, \"Configuration\", lists the keys)");
        }
    };
    let settings: Vec<String> =
        config.described().into_iter().map(|(key, value, from)| format!("{key} = {value} ({from})")).collect();
    let mut detail = settings.join("; ");
    if config.ignored.is_empty() {
        return Check::new("configuration", NEEDED_BY, CheckStatus::Ok, detail);
    }
    detail.push_str(&format!("; ignored: {}", config.ignored.join("; ")));
    Check::new("configuration", NEEDED_BY, CheckStatus::Warn, detail)
        .fix("set it in your own aide.toml (~/.config/aide/aide.toml) or with a flag")
}

/// Which sandbox modes this kernel enforces (each entered once, in a
/// probe), its Landlock ABI and what that leaves unconfined.
fn check_sandbox(home: &Path) -> Check {
    use aide_gate::sandbox::{Network, Sandbox, SandboxMode};
    const NEEDED_BY: &str = "--sandbox and --network of llm-shell and llm-jobs, and aide mcp's default sandbox";
    let probe =
        |mode, network| Sandbox::new(mode, network, Path::new("/"), &[]).check().err().map(|e| String::from(e.message));
    let files = probe(SandboxMode::ReadOnly, Network::On);
    let network = probe(SandboxMode::Off, Network::Off);
    let said = |what: &str, failed: &Option<String>| match failed {
        None => format!("{what}: enforced"),
        Some(why) => format!("{what}: unavailable ({why})"),
    };
    let mut detail = format!(
        "{}; {}",
        said("read-only and workspace-write (Landlock, user and mount namespaces)", &files),
        said("network off (user and network namespaces)", &network)
    );
    if let Some(abi) = aide_gate::sandbox::landlock_abi() {
        let sockets = if abi < 9 { ", nor connecting to another program's pathname UNIX socket (ABI 9)" } else { "" };
        detail.push_str(&format!(
            "; Landlock ABI {abi}: metadata outside the writable paths (chmod, chown, utimes, xattrs) is not confined{sockets}"
        ));
    }
    if let Some(why) = Sandbox::mounts_refused() {
        detail.push_str(&format!(
            "; no mount can be made here ({why}: this process runs inside another sandbox, or under a policy that \
             refuses mounts), so Landlock's rules alone keep \
             aide's state ({}), the user's aide configuration and every writable path's .git and aide.toml \
             read-only: a writable root holding one creates, removes and renames nothing at its top level, and \
             sandboxed commands share one TMPDIR, {}, which nothing unconfined uses",
            home.display(),
            aide_gate::sandbox::temp_mount_point().display()
        ));
    } else if files.is_none() {
        detail.push_str(&format!(
            "; each sandboxed command's TMPDIR is a file system of its own at {}; aide's state ({}), the user's aide \
             configuration and every writable path's .git and aide.toml are read-only inside",
            aide_gate::sandbox::temp_mount_point().display(),
            home.display()
        ));
    }
    if files.is_some() || network.is_some() {
        return Check::new("sandbox", NEEDED_BY, CheckStatus::Warn, detail)
            .fix("a kernel with Landlock enabled (lsm=…,landlock) and unprivileged user namespaces");
    }
    Check::new("sandbox", NEEDED_BY, CheckStatus::Ok, detail)
}

fn check_home(home: &Path) -> Check {
    const NEEDED_BY: &str = "every tool: the execution log, sessions, jobs, undo data";
    let probe = home.join(format!(".doctor-{}", std::process::id()));
    let written = aide_core::fsutil::private_dir(home).and_then(|()| std::fs::write(&probe, b"probe"));
    let _ = std::fs::remove_file(&probe);
    match written {
        Ok(()) => Check::new("aide_home", NEEDED_BY, CheckStatus::Ok, format!("{} is writable", home.display())),
        Err(e) => Check::new("aide_home", NEEDED_BY, CheckStatus::Fail, format!("{}: {e}", home.display()))
            .fix(format!("make {} writable (chmod u+rwx), or set AIDE_HOME to a writable folder", home.display())),
    }
}

fn check_log(home: &Path) -> Check {
    let mut check =
        check_database("log", "aide log, and every tool's run record", &home.join("log.db"), "no run logged yet");
    let waiting = aide_log::spooled(home);
    if waiting > 0 {
        check.detail.push_str(&format!("; {waiting} run(s) in the spool, moved in by the next `aide log`"));
    }
    if aide_log::disabled_by_env() {
        check.detail.push_str("; logging is off (AIDE_LOG=off)");
    }
    check
}

/// Integrity and size of the SQLite database at `path`.
fn check_database(name: &str, needed_by: &str, path: &Path, when_absent: &str) -> Check {
    if !path.exists() {
        return Check::new(name, needed_by, CheckStatus::Ok, format!("{when_absent} ({})", path.display()));
    }
    let move_aside = format!(
        "move the damaged file aside (mv {0} {0}.damaged); the next run starts a new one, and the old one can be salvaged with sqlite3's .recover",
        path.display()
    );
    match aide_log::store::health(path) {
        Err(e) => Check::new(name, needed_by, CheckStatus::Fail, format!("{}: cannot be read: {e}", path.display()))
            .fix(move_aside),
        Ok(h) if !h.problems.is_empty() => Check::new(
            name,
            needed_by,
            CheckStatus::Fail,
            format!(
                "{}: integrity check failed: {}",
                path.display(),
                h.problems.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
            ),
        )
        .fix(move_aside),
        Ok(h) => {
            let detail = format!("{}: integrity ok, {}", path.display(), human_bytes(h.bytes));
            if h.bytes > LARGE_DATABASE {
                let fix = if name == "log" {
                    "aide log prune --keep 1000 (or set AIDE_LOG_MAX_RUNS / AIDE_LOG_MAX_AGE)"
                } else {
                    "llm-jobs rm the finished jobs you no longer need"
                };
                Check::new(name, needed_by, CheckStatus::Warn, format!("{detail}, larger than 1 GiB")).fix(fix)
            } else {
                Check::new(name, needed_by, CheckStatus::Ok, detail)
            }
        }
    }
}

fn check_journals() -> Check {
    const NEEDED_BY: &str = "llm-transform (a commit that died is finished or rolled back)";
    let interrupted = llm_transform::journal::interrupted();
    if interrupted.is_empty() {
        return Check::new("transform_journals", NEEDED_BY, CheckStatus::Ok, "no interrupted transform".into());
    }
    let named: Vec<String> = interrupted
        .iter()
        .map(|i| match &i.root {
            Some(r) if i.unverified => format!(
                "{} under {} (an unverified edit: its run died while checking it; recovery undoes it)",
                i.execution_id,
                r.display()
            ),
            Some(r) => format!("{} under {}", i.execution_id, r.display()),
            None => format!("{} (unreadable journal)", i.execution_id),
        })
        .collect();
    let fixes: Vec<String> = interrupted
        .iter()
        .filter_map(|i| i.root.as_ref().map(|r| (&i.execution_id, r)))
        .map(|(id, r)| {
            if r.is_dir() {
                format!(
                    "llm-transform recover --root {}",
                    aide_core::command::quote_word(r.as_os_str().as_encoded_bytes())
                )
            } else {
                // The root is gone from where the commit ran: recover it where it is now.
                format!("llm-transform recover --root NEW_PLACE --journal {id}")
            }
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let fix = if fixes.is_empty() {
        "remove the unreadable journal files named above".to_string()
    } else {
        format!("{} (any llm-transform run on that root also recovers first)", fixes.join("; "))
    };
    Check::new(
        "transform_journals",
        NEEDED_BY,
        CheckStatus::Fail,
        format!("{} interrupted transform(s): {}", interrupted.len(), named.join(", ")),
    )
    .fix(fix)
}

fn check_locks(fix: bool) -> Check {
    let removed = if fix { llm_transform::disk::remove_unheld_locks() } else { 0 };
    let (total, held) = llm_transform::disk::lock_files();
    let mut detail = if total == held {
        format!("{held} held by a running transform")
    } else {
        format!(
            "{held} held by a running transform, {} left by one that died or an older version (inert: a lock dies with its process)",
            total - held
        )
    };
    if fix {
        detail.push_str(&format!("; removed {removed}"));
    }
    let check =
        Check::new("transform_locks", "llm-transform (one transform at a time per file)", CheckStatus::Ok, detail);
    // Inert, but worth tidying once they pile up.
    if total.saturating_sub(held) > 1000 {
        Check { status: CheckStatus::Warn, ..check }.fix("aide doctor --fix")
    } else {
        check
    }
}

/// Which language server `--engine lsp|auto` would use for each language,
/// and the keepers holding one warm now.
fn check_language_servers() -> Check {
    use aide_core::Lang;
    const NEEDED_BY: &str = "llm-ast-search and llm-transform with --engine lsp|auto (optional)";
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for lang in [Lang::Python, Lang::TypeScript, Lang::Rust, Lang::Go, Lang::C, Lang::Java] {
        match llm_ast_search::lsp::server_for(lang) {
            Some(spec) => found.push(format!("{}: {}", lang.name(), spec.argv.join(" "))),
            None => missing.push(lang.name()),
        }
    }
    let mut detail = if found.is_empty() { "none found".to_string() } else { found.join("; ") };
    if !missing.is_empty() && !found.is_empty() {
        detail.push_str(&format!("; none for {}", missing.join(", ")));
    }
    let keepers = llm_ast_search::lsp::keeper::running();
    if !keepers.is_empty() {
        let shown: Vec<String> = keepers
            .iter()
            .map(|(held, pid)| {
                format!("{} ({}, pid {pid})", held.root.display(), held.spec.argv.first().map_or("", String::as_str))
            })
            .collect();
        detail.push_str(&format!("; kept warm: {}", shown.join(", ")));
    }
    if found.is_empty() {
        return Check::new("language_servers", NEEDED_BY, CheckStatus::Warn, detail)
            .fix("npm install -g pyright typescript-language-server typescript; apt-get install clangd; rustup component add rust-analyzer");
    }
    Check::new("language_servers", NEEDED_BY, CheckStatus::Ok, detail)
}

/// The search indexes running `aide mcp` servers and llm-search's keepers
/// hold: each tree's files, bytes read and memory held, and the searches
/// it answered.
fn check_indexes() -> Check {
    const NEEDED_BY: &str =
        "repeated searches of large trees: aide mcp's own indexes (--index), llm-search's keepers (AIDE_INDEX)";
    let held = llm_search::indexed::held_by_processes();
    let shown: Vec<String> = held
        .iter()
        .flat_map(|(pid, indexes)| {
            indexes.iter().map(move |h| {
                format!(
                    "{} (pid {pid}): {}, {} files, {} bytes read, {} bytes of memory, {} searches answered{}",
                    h.root,
                    h.state,
                    h.files,
                    h.bytes_indexed,
                    h.memory_bytes,
                    h.searches,
                    if h.watching || h.state != "ready" { "" } else { ", not watched (each search walks)" }
                )
            })
        })
        .collect();
    let detail = if shown.is_empty() { "none held".to_string() } else { shown.join("; ") };
    Check::new("search_indexes", NEEDED_BY, CheckStatus::Ok, detail)
}

fn check_sessions() -> Check {
    const NEEDED_BY: &str = "llm-shell sessions";
    let sessions = llm_shell::session::list().unwrap_or_default();
    let damaged = llm_shell::session::damaged();
    let mut busy = Vec::new();
    let mut gone = Vec::new();
    for meta in &sessions {
        if let Ok(s) = llm_shell::session::open(&meta.session_id) {
            if s.is_busy() {
                busy.push(meta.session_id.clone());
            }
            if !Path::new(&meta.working_dir).is_dir() {
                gone.push(meta.session_id.clone());
            }
        }
    }
    let mut detail = format!("{} session(s)", sessions.len());
    let keepers = llm_shell::keeper::running();
    if !keepers.is_empty() {
        let shown: Vec<String> =
            keepers.iter().map(|(id, terminals)| format!("{id} ({terminals} terminal(s))")).collect();
        detail.push_str(&format!(", with a live keeper: {}", shown.join(", ")));
    }
    let orphans = llm_shell::keeper::orphan_shells();
    if !busy.is_empty() {
        detail.push_str(&format!(", running a command now: {}", busy.join(", ")));
    }
    if gone.is_empty() && damaged.is_empty() && orphans.is_empty() {
        return Check::new("shell_sessions", NEEDED_BY, CheckStatus::Ok, detail);
    }
    let mut fixes = Vec::new();
    if !orphans.is_empty() {
        let pids: Vec<String> = orphans.iter().map(u32::to_string).collect();
        detail.push_str(&format!(", session shells no keeper holds (orphans): pids {}", pids.join(", ")));
        fixes.push(format!("kill {}", pids.join(" ")));
    }
    if !gone.is_empty() {
        detail.push_str(&format!(", whose working folder is gone: {}", gone.join(", ")));
        fixes.extend(gone.iter().map(|id| format!("llm-shell session rm {id}")));
    }
    if !damaged.is_empty() {
        let shown: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
        detail.push_str(&format!(", damaged (no readable meta.json): {}", shown.join(", ")));
        fixes.extend(
            damaged
                .iter()
                .map(|p| format!("rm -r {}", aide_core::command::quote_word(p.as_os_str().as_encoded_bytes()))),
        );
    }
    Check::new("shell_sessions", NEEDED_BY, CheckStatus::Warn, detail).fix(fixes.join("; "))
}

fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
