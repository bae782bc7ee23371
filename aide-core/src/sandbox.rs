//! Sandboxed commands: what a command may write, and whether it reaches
//! the network, enforced by the kernel for it and every process it starts.
//!
//! * `--sandbox workspace-write`: reading is allowed everywhere; writing
//!   (creating, removing, renaming, truncating) only beneath the command's
//!   root or working directory, the temporary directory and the configured
//!   paths. `read-only`: writing only in the temporary directory. Landlock
//!   enforces it ([`landlock`]); a denial reaches the command as an
//!   ordinary `EACCES` (`EXDEV` for a link or rename across the line).
//!   Signals to processes outside the sandbox and abstract UNIX sockets
//!   made outside it are refused too, where the kernel has Landlock's
//!   scopes (ABI 6), and so are pathname UNIX sockets outside the writable
//!   paths where it can tell (ABI 9).
//! * `--network off`: the command runs in a network namespace of its own,
//!   with only a loopback interface: nothing outside it is reachable, not
//!   even the host's loopback services (`ENETUNREACH`, `ECONNREFUSED`).
//!
//! A sandbox is entered by the hidden helper of the running executable
//! (`TOOL __aide_sandbox SPEC -- PROGRAM ARGS…`, dispatched first thing in
//! `main` by [`run_internal_command`]): it makes its own namespaces, applies
//! the Landlock rules to itself with `no_new_privs` (which nothing started
//! after can lift), and then executes the program. A kernel that cannot
//! enforce what was asked is found before anything runs ([`Sandbox::check`]:
//! `sandbox_unavailable`), and the helper itself fails closed — it never
//! runs the program unconfined.
//!
//! What it does not do: unless aide.toml gives `readable` paths, it does
//! not hide anything from reading (secrets outside the root are readable
//! in `workspace-write`); it does not limit
//! memory, processes or time, and a hard link made before the command ran
//! from inside a writable path to a file outside it writes that file.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::AideError;

/// The helper's command word.
pub const HELPER: &str = "__aide_sandbox";

/// The exit status of a helper that could not set the sandbox up (the
/// program did not run): the shell's "command not executable".
pub const SETUP_FAILED: i32 = 126;

/// What a command may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// No file-system sandbox.
    #[default]
    Off,
    /// Writes only in the temporary directory.
    ReadOnly,
    /// Writes beneath the root (or working directory), the temporary
    /// directory and configured paths.
    WorkspaceWrite,
}

impl SandboxMode {
    /// Its name, as flags, JSON and aide.toml write it.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }

    /// How much it confines: off < workspace-write < read-only.
    pub fn strictness(self) -> u8 {
        match self {
            SandboxMode::Off => 0,
            SandboxMode::WorkspaceWrite => 1,
            SandboxMode::ReadOnly => 2,
        }
    }
}

/// Whether a command reaches the network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    #[default]
    On,
    /// A network namespace of its own: loopback only.
    Off,
}

impl Network {
    /// Its name, as flags, JSON and aide.toml write it.
    pub fn name(self) -> &'static str {
        match self {
            Network::On => "on",
            Network::Off => "off",
        }
    }
}

/// The sandbox a command ran in, as its result says it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SandboxUsed {
    pub mode: SandboxMode,
    pub network: Network,
}

/// The flags that ask for a sandbox, flattened into each command-running
/// request (`exec`, `session new`, `term start`, `llm-jobs spawn`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SandboxArgs {
    /// What the command may write: `off`, `read-only` (the temporary
    /// directory only) or `workspace-write` (also beneath its working
    /// directory). Enforced by Landlock for it and all it starts; default
    /// off (in `aide mcp`, the server's: workspace-write).
    #[arg(long, value_enum, value_name = "MODE", hide_possible_values = true)]
    pub sandbox: Option<SandboxMode>,
    /// `off`: the command runs in a network namespace of its own, loopback
    /// only (default on).
    #[arg(long, value_enum, value_name = "on|off", hide_possible_values = true)]
    pub network: Option<Network>,
}

impl SandboxArgs {
    /// What was asked, or `fallback` for what was not.
    pub fn or(self, fallback: SandboxUsed) -> SandboxUsed {
        SandboxUsed { mode: self.sandbox.unwrap_or(fallback.mode), network: self.network.unwrap_or(fallback.network) }
    }
}

impl SandboxUsed {
    /// The sandbox of this mode and network for a command working in `work_dir`.
    pub fn sandbox(self, work_dir: &Path, extra: &[PathBuf]) -> Sandbox {
        Sandbox::new(self.mode, self.network, work_dir, extra)
    }

    /// Whether it confines nothing.
    pub fn is_off(self) -> bool {
        self.mode == SandboxMode::Off && self.network == Network::On
    }
}

impl std::fmt::Display for SandboxUsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sandbox {}, network {}", self.mode.name(), self.network.name())
    }
}

/// A sandbox to run commands in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandbox {
    pub mode: SandboxMode,
    pub network: Network,
    /// Absolute paths writable beneath.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Where reading is allowed, when not everywhere: beneath these, the
    /// system's folders ([`SYSTEM_READABLE`]) and the writable paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readable: Option<Vec<PathBuf>>,
}

/// What a command needs to read to run at all (programs, libraries, the
/// system's configuration, devices, `/proc`): readable whatever the list.
pub const SYSTEM_READABLE: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/dev", "/proc", "/sys",
    "/run",
];

impl Sandbox {
    /// A sandbox of `mode` and `network` whose writable paths are the
    /// temporary directory and `extra` (what the tool itself must write
    /// there, such as a session's folder), and in `workspace-write`
    /// `work_dir` too.
    pub fn new(mode: SandboxMode, network: Network, work_dir: &Path, extra: &[PathBuf]) -> Sandbox {
        let mut writable = vec![std::env::temp_dir()];
        if mode == SandboxMode::WorkspaceWrite {
            writable.push(work_dir.to_path_buf());
        }
        writable.extend(extra.iter().cloned());
        Sandbox { mode, network, writable, readable: None }
    }

    /// The same, reading only beneath `readable` (aide.toml's list) and
    /// `work_dir`, besides the system's folders and the writable paths;
    /// None: reading everywhere.
    pub fn reading(mut self, readable: Option<Vec<PathBuf>>, work_dir: &Path) -> Sandbox {
        self.readable = readable.map(|mut list| {
            list.push(work_dir.to_path_buf());
            list
        });
        self
    }

    /// What the result says of it.
    pub fn used(&self) -> SandboxUsed {
        SandboxUsed { mode: self.mode, network: self.network }
    }

    /// Whether it confines nothing.
    pub fn is_off(&self) -> bool {
        self.used().is_off()
    }

    /// Refuses (`sandbox_unavailable`) a sandbox this kernel cannot
    /// enforce, found by entering it once in a probe (once per process and
    /// kind: Landlock, and a network namespace).
    pub fn check(&self) -> Result<(), AideError> {
        static FILES: OnceLock<Result<(), String>> = OnceLock::new();
        static NETWORK: OnceLock<Result<(), String>> = OnceLock::new();
        let mut probes: Vec<(&OnceLock<Result<(), String>>, Sandbox)> = Vec::new();
        if self.mode != SandboxMode::Off {
            probes.push((&FILES, Sandbox { mode: SandboxMode::ReadOnly, ..Sandbox::default() }));
        }
        if self.network == Network::Off {
            probes.push((&NETWORK, Sandbox { network: Network::Off, ..Sandbox::default() }));
        }
        for (cache, probe) in probes {
            if let Err(why) = cache.get_or_init(|| probe.probe()) {
                return Err(unavailable(why));
            }
        }
        Ok(())
    }

    /// Enters the sandbox in a child of this executable and reports how it went.
    fn probe(&self) -> Result<(), String> {
        let output = self
            .command_with(OsStr::new("--probe"))
            .map_err(|e| e.message)?
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("the sandbox helper did not start: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            let said = String::from_utf8_lossy(&output.stderr).trim().to_string();
            Err(if said.is_empty() { format!("the sandbox helper exited with {}", output.status) } else { said })
        }
    }

    /// A command that runs `program` in this sandbox (the caller adds its
    /// arguments, environment and stdio); `program` itself when it is off.
    /// Refused (`sandbox_unavailable`) where this kernel cannot enforce it,
    /// as [`Sandbox::check`] finds.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Result<Command, AideError> {
        if self.is_off() {
            return Ok(Command::new(program));
        }
        self.check()?;
        let mut command = self.command_with(OsStr::new("--"))?;
        command.arg(program);
        Ok(command)
    }

    fn command_with(&self, separator: &OsStr) -> Result<Command, AideError> {
        let exe = std::env::current_exe().map_err(|e| unavailable(&format!("this executable is not found: {e}")))?;
        let spec = serde_json::to_string(self).map_err(|e| AideError::internal(e.to_string()))?;
        let mut command = Command::new(exe);
        command.arg(HELPER).arg(spec).arg(separator);
        Ok(command)
    }
}

fn unavailable(why: &str) -> AideError {
    AideError::new(crate::code::SANDBOX_UNAVAILABLE, format!("this kernel cannot enforce the sandbox: {why}"))
        .with_hint(
            "`aide doctor` says which sandbox modes this machine supports; --sandbox off --network on runs unconfined",
        )
}

/// The helper: when this process was started as `TOOL __aide_sandbox SPEC
/// -- PROGRAM ARGS…`, enters the sandbox and executes the program (never
/// returning unless it fails: the status then is [`SETUP_FAILED`], with
/// why on stderr); `--probe` instead of `--` only enters it. None for any
/// other command line. Call it first in `main`, before any thread starts.
pub fn run_internal_command() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(HELPER)) {
        return None;
    }
    let fail = |why: String| {
        crate::envelope::stderr_line(&format!("aide sandbox: {why}"));
        Some(SETUP_FAILED)
    };
    let Some(spec) = args.next().and_then(|s| s.into_string().ok()) else { return fail("no sandbox given".into()) };
    let sandbox: Sandbox = match serde_json::from_str(&spec) {
        Ok(s) => s,
        Err(e) => return fail(format!("not a sandbox: {e}")),
    };
    let probe = match args.next() {
        Some(s) if s == "--probe" => true,
        Some(s) if s == "--" => false,
        _ => return fail("expected -- and a program".into()),
    };
    let argv: Vec<OsString> = args.collect();
    if !probe && argv.is_empty() {
        return fail("no program to run".into());
    }
    if let Err(why) = enter(&sandbox) {
        return fail(why);
    }
    if probe {
        return Some(0);
    }
    let error = std::os::unix::process::CommandExt::exec(Command::new(&argv[0]).args(&argv[1..]));
    crate::envelope::stderr_line(&format!("aide sandbox: {}: {error}", argv[0].to_string_lossy()));
    Some(if error.kind() == std::io::ErrorKind::NotFound { 127 } else { SETUP_FAILED })
}

/// Puts this process (single-threaded) into `sandbox`: the network
/// namespace first (making it needs privileges Landlock's `no_new_privs`
/// would not take away, but clearer first), then the file-system rules.
fn enter(sandbox: &Sandbox) -> Result<(), String> {
    if sandbox.network == Network::Off {
        network_namespace()?;
    }
    if sandbox.mode != SandboxMode::Off {
        landlock_rules(sandbox)?;
    }
    Ok(())
}

/// A user namespace (mapping this uid and gid to themselves) holding a
/// network namespace whose loopback interface is up.
#[allow(unsafe_code)]
fn network_namespace() -> Result<(), String> {
    let (uid, gid) = (rustix::process::getuid().as_raw(), rustix::process::getgid().as_raw());
    // SAFETY: unshare takes flags only; this process is single-threaded (the helper runs first in main).
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } != 0 {
        return Err(format!("no user and network namespace: {}", std::io::Error::last_os_error()));
    }
    let write = |file: &str, text: String| std::fs::write(file, text).map_err(|e| format!("{file}: {e}"));
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    loopback_up()
}

/// Brings `lo` up in this network namespace (it starts down).
#[allow(unsafe_code)]
fn loopback_up() -> Result<(), String> {
    // SAFETY: a plain socket and two ioctls on a zeroed, NUL-terminated ifreq.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(format!("no socket for the loopback: {}", std::io::Error::last_os_error()));
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            request.ifr_name[i] = *b as libc::c_char;
        }
        let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            result = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let error = std::io::Error::last_os_error();
        libc::close(fd);
        if result != 0 {
            return Err(format!("the loopback interface did not come up: {error}"));
        }
    }
    Ok(())
}

/// The devices a command writes to in the normal course (a terminal, the
/// null device), never block devices or the rest of `/dev`.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// Landlock: read and execute everywhere (or beneath the readable
/// paths); every file-system right beneath
/// the writable paths and the temporary directory; writing (not creating)
/// the devices above; signals and abstract sockets scoped to the sandbox.
fn landlock_rules(sandbox: &Sandbox) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
        path_beneath_rules,
    };
    let abi = ABI::V9;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let device = AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev | read;
    // A path that does not exist has nothing beneath it to allow.
    let writable: Vec<&PathBuf> = sandbox.writable.iter().filter(|p| p.exists()).collect();
    let readable: Vec<PathBuf> = match &sandbox.readable {
        None => vec![PathBuf::from("/")],
        Some(list) => SYSTEM_READABLE
            .iter()
            .map(PathBuf::from)
            .chain(list.iter().cloned())
            .chain(writable.iter().map(|p| p.to_path_buf()))
            .filter(|p| p.exists())
            .collect(),
    };
    let devices: Vec<&str> = DEVICES.iter().copied().filter(|d| Path::new(d).exists()).collect();
    let err = |e: landlock::RulesetError| e.to_string();
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(err)?
        .scope(Scope::from_all(abi))
        .map_err(err)?
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(&readable, read))
        .map_err(err)?
        .add_rules(path_beneath_rules(&devices, device))
        .map_err(err)?
        .add_rules(path_beneath_rules(writable, all))
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs {
        return Err("Landlock is not enforced by this kernel".into());
    }
    Ok(())
}
