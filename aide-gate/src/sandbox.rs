//! Sandboxed commands: what a command may write, and whether it reaches
//! the network, enforced by the kernel for it and every process it starts.
//!
//! * `--sandbox workspace-write`: reading is allowed everywhere; writing
//!   (creating, removing, renaming, truncating) only beneath the command's
//!   root or working directory, its private temporary directory and the
//!   configured paths. `read-only`: writing only in its private temporary
//!   directory (and the configured paths). Landlock enforces it
//!   ([`landlock`]); a denial reaches the command as an ordinary `EACCES`
//!   (`EXDEV` for a link or rename across the line). Signals to processes
//!   outside the sandbox and abstract UNIX sockets made outside it are
//!   refused too, where the kernel has Landlock's scopes (ABI 6), and so
//!   are pathname UNIX sockets outside the writable paths where it can
//!   tell (ABI 9).
//! * Nothing a sandboxed command writes is trusted later by an unconfined
//!   run: the command runs in a user and mount namespace of its own, where
//!   aide's state folder, the user's aide configuration, and every writable
//!   path's `.git` and `aide.toml` are mounted read-only (`EROFS`), and its
//!   temporary directory (`TMPDIR`) is a file system of its own (tmpfs,
//!   0700) mounted over `$AIDE_HOME/sandbox/tmp`, gone with the command's
//!   last process, instead of the shared `/tmp`. In that user namespace it
//!   holds no capability over the host (no `TIOCSTI` into another
//!   terminal, no device nodes, no mounts), and it is detached from a
//!   controlling terminal it inherited.
//! * Where no mount can be made (inside another sandbox that refuses
//!   them, or one fails), the same from Landlock's rules alone
//!   ([`carve`]): a writable path holding a protected one gets no new
//!   top-level entry, and the temporary directory is the mount point's
//!   folder, shared.
//! * `--network off`: the command runs in a network namespace of its own,
//!   with only a loopback interface: nothing outside it is reachable, not
//!   even the host's loopback services (`ENETUNREACH`, `ECONNREFUSED`).
//!
//! A sandbox is entered by the hidden helper of the running executable
//! (`TOOL __aide_sandbox SPEC -- PROGRAM ARGS…`, dispatched first thing in
//! `main` by [`run_internal_command`]): it makes its namespaces and mounts
//! ([`enter`]), applies the Landlock rules to itself with `no_new_privs`
//! (which nothing started after can lift, and under which no mount can be
//! undone), and then executes the program. A kernel that cannot enforce
//! what was asked is found before anything runs ([`Sandbox::check`]:
//! `sandbox_unavailable`), and the helper itself fails closed — it never
//! runs the program unconfined.
//!
//! What it does not do: unless aide.toml gives `readable` paths, it does
//! not hide anything from reading (secrets outside the root are readable
//! in `workspace-write`); no Landlock ABI confines metadata (`chmod`,
//! `chown`, `utimes`, extended attributes outside the writable paths); it
//! does not limit memory, processes or time, and a hard link made before
//! the command ran from inside a writable path to a file outside it writes
//! that file.

mod carve;
mod enter;
mod mounts;
mod rules;
mod sys;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use aide_core::AideError;
pub use aide_core::sandbox::{Network, SandboxArgs, SandboxMode, SandboxUsed};

/// What a probe's helper prints, then why, when the file sandbox is
/// Landlock's rules alone (no mount could be made).
const CARVED: &str = "carved: ";

/// How a probe went: what the helper printed, or why it failed.
type Probed = Result<String, String>;

/// The file sandbox's probe, run once per process: a read-only sandbox
/// that makes every kind of mount a real one does.
fn files_probed() -> &'static Probed {
    static FILES: OnceLock<Probed> = OnceLock::new();
    FILES.get_or_init(|| Sandbox::file_probe().probe())
}

/// The network namespace's probe, run once per process.
fn network_probed() -> &'static Probed {
    static NETWORK: OnceLock<Probed> = OnceLock::new();
    NETWORK.get_or_init(|| Sandbox { network: Network::Off, ..Sandbox::default() }.probe())
}

/// The helper's command word.
pub const HELPER: &str = "__aide_sandbox";

/// The exit status of a helper that could not set the sandbox up (the
/// program did not run): the shell's "command not executable".
pub const SETUP_FAILED: i32 = 126;

/// A sandbox to run commands in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandbox {
    pub mode: SandboxMode,
    pub network: Network,
    /// Absolute paths, resolved (no symbolic link in them), writable
    /// beneath: the working directory in `workspace-write`, the configured
    /// paths. Their `.git` and `aide.toml` stay read-only.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// The tool's own folders the command writes (a session's `io`, its
    /// FIFOs): writable even inside a protected folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own: Vec<PathBuf>,
    /// Folders read-only wherever a writable path reaches them (aide's
    /// state, the user's aide configuration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protected: Vec<PathBuf>,
    /// Folders the command cannot see at all: an empty read-only file
    /// system is mounted over each (aide's telemetry folder, whose lock a
    /// confined command could otherwise hold). Where no mount can be made
    /// they stay readable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<PathBuf>,
    /// Where the command's private temporary directory is mounted (its `TMPDIR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp: Option<PathBuf>,
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

/// The names beneath every writable path that stay read-only: what an
/// unconfined git or aide run later reads and obeys (hooks, `core.*`, the
/// project's settings).
pub const PROTECTED_NAMES: &[&str] = &[".git", aide_core::home::settings::FILE];

/// Where every sandbox mounts its private temporary directory:
/// `$AIDE_HOME/sandbox/tmp`, an empty folder outside every sandbox.
pub fn temp_mount_point() -> PathBuf {
    resolved(&aide_core::home::aide_home().join("sandbox").join("tmp"))
}

/// `path` made absolute with every symbolic link resolved: the deepest
/// part that exists canonicalized, the rest (not there yet) appended as
/// given. What a sandbox is told to open is then the folder it names, not
/// wherever a link points later.
pub fn resolved(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let path = aide_core::root::lexically_normal(&path).unwrap_or(path);
    let mut rest = Vec::new();
    let mut at = path.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path,
        }
    }
}

impl Sandbox {
    /// The sandbox `used` names, for a command working in `work_dir`.
    pub fn of(used: SandboxUsed, work_dir: &Path, extra: &[PathBuf]) -> Sandbox {
        Sandbox::new(used.mode, used.network, work_dir, extra)
    }

    /// A sandbox of `mode` and `network` whose writable paths are its
    /// private temporary directory and `extra` (aide.toml's `writable`),
    /// and in `workspace-write` `work_dir` too; aide's state and the user's
    /// aide configuration protected.
    pub fn new(mode: SandboxMode, network: Network, work_dir: &Path, extra: &[PathBuf]) -> Sandbox {
        let mut sandbox = Sandbox { mode, network, ..Sandbox::default() };
        if mode == SandboxMode::Off {
            return sandbox;
        }
        if mode == SandboxMode::WorkspaceWrite {
            sandbox.writable.push(resolved(work_dir));
        }
        sandbox.writable.extend(extra.iter().map(|p| resolved(p)));
        let home = aide_core::home::aide_home();
        sandbox.hidden.push(resolved(&home.join(aide_core::home::TELEMETRY_DIR)));
        sandbox.protected.push(resolved(&home));
        if let Some(config) = aide_core::home::settings::user_file().as_deref().and_then(Path::parent) {
            sandbox.protected.push(resolved(config));
        }
        sandbox.temp = Some(temp_mount_point());
        sandbox
    }

    /// The same, also writing `own`: the tool's own folders for the
    /// command (writable even inside aide's state folder).
    pub fn owning(mut self, own: Vec<PathBuf>) -> Sandbox {
        if self.mode != SandboxMode::Off {
            self.own.extend(own.iter().map(|p| resolved(p)));
        }
        self
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
    /// kind: the file sandbox, with its namespaces, mounts and Landlock;
    /// a network namespace).
    pub fn check(&self) -> Result<(), AideError> {
        let mut probes: Vec<&Probed> = Vec::new();
        if self.mode != SandboxMode::Off {
            probes.push(files_probed());
        }
        if self.network == Network::Off {
            probes.push(network_probed());
        }
        for probed in probes {
            if let Err(why) = probed {
                return Err(unavailable(why));
            }
        }
        Ok(())
    }

    /// Why file sandboxes here are Landlock's rules alone, where no mount
    /// can be made (inside another sandbox, or a mount failed): a writable
    /// root holding `.git` or `aide.toml` then creates, removes and renames
    /// nothing at its top level. None where the mounts are made, or no
    /// file sandbox can be made at all.
    pub fn mounts_refused() -> Option<String> {
        files_probed().as_ref().ok().and_then(|how| how.strip_prefix(CARVED)).map(str::to_string)
    }

    /// A read-only sandbox that makes every kind of mount a real one does:
    /// aide's state read-only, a folder of it writable again, one hidden,
    /// the private temporary directory.
    fn file_probe() -> Sandbox {
        let probe = Sandbox::new(SandboxMode::ReadOnly, Network::On, Path::new("/"), &[]);
        let own = probe.temp.as_deref().and_then(Path::parent).map(Path::to_path_buf);
        probe.owning(own.into_iter().collect())
    }

    /// Enters the sandbox in a child of this executable and reports how it
    /// went: what the helper printed ([`CARVED`] or nothing), or why not.
    fn probe(&self) -> Result<String, String> {
        let output = self
            .command_with(OsStr::new("--probe"))
            .map_err(|e| e.message)?
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("the sandbox helper did not start: {e}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            let said = String::from_utf8_lossy(&output.stderr).trim().to_string();
            Err(if said.is_empty() { format!("the sandbox helper exited with {}", output.status) } else { said })
        }
    }

    /// A command that runs `program` in this sandbox (the caller adds its
    /// arguments, environment and stdio); `program` itself when it is off.
    /// Refused (`sandbox_unavailable`) where this kernel cannot enforce it,
    /// as [`Sandbox::check`] finds. Nothing is left to clean up after it:
    /// the private temporary directory goes with the command's last process.
    // The sandbox helper, and an unsandboxed program for the gate, are what may construct a Command.
    #[allow(clippy::disallowed_methods)]
    pub fn command(&self, program: impl AsRef<OsStr>) -> Result<Command, AideError> {
        // A command-line run's children (a job's, an exec's shell) continue its trace.
        if self.is_off() {
            let mut command = Command::new(program);
            crate::trace::apply(&mut command, None);
            return Ok(command);
        }
        self.check()?;
        let mut command = self.command_with(OsStr::new("--"))?;
        command.arg(program);
        crate::trace::apply(&mut command, None);
        Ok(command)
    }

    #[allow(clippy::disallowed_methods)] // this executable, as the sandbox helper
    fn command_with(&self, separator: &OsStr) -> Result<Command, AideError> {
        let exe = std::env::current_exe().map_err(|e| unavailable(&format!("this executable is not found: {e}")))?;
        // The folders mounted over (the private temporary directory, the
        // hidden ones) and the tool's own: there before the helper looks,
        // so none appears later where the command could open it.
        for dir in self.temp.iter().chain(&self.hidden).chain(&self.own) {
            aide_core::fsutil::private_dir(dir).map_err(|e| unavailable(&format!("{}: {e}", dir.display())))?;
        }
        let spec = serde_json::to_string(self).map_err(|e| AideError::internal(e.to_string()))?;
        let mut command = Command::new(exe);
        command.arg(HELPER).arg(spec).arg(separator);
        Ok(command)
    }
}

fn unavailable(why: &str) -> AideError {
    crate::error::SandboxError::Unavailable { why: why.to_string() }.into()
}

/// The Landlock ABI this kernel offers (1 to …), None without Landlock.
#[allow(unsafe_code)]
pub fn landlock_abi() -> Option<u32> {
    const VERSION: libc::c_uint = 1; // LANDLOCK_CREATE_RULESET_VERSION
    // SAFETY: with a NULL attribute, size 0 and the VERSION flag the call reads nothing and creates nothing.
    let abi = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, VERSION) };
    u32::try_from(abi).ok().filter(|v| *v > 0)
}

/// The helper: when this process was started as `TOOL __aide_sandbox SPEC
/// -- PROGRAM ARGS…`, enters the sandbox and executes the program (never
/// returning unless it fails: the status then is [`SETUP_FAILED`], with
/// why on stderr); `--probe` instead of `--` only enters it. None for any
/// other command line. Call it first in `main`, before any thread starts.
#[allow(clippy::disallowed_methods)] // the helper executes what its caller's gate started
pub fn run_internal_command() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(HELPER)) {
        return None;
    }
    let fail = |why: String| {
        aide_core::envelope::stderr_line(&format!("aide sandbox: {why}"));
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
    let carved = match enter::enter(&sandbox) {
        Ok(carved) => carved,
        Err(why) => return fail(why),
    };
    if probe {
        // The caller learns how it was enforced: by mounts, or Landlock's rules alone and why.
        if let Some(why) = carved {
            let _ = std::io::Write::write_all(&mut std::io::stdout(), format!("{CARVED}{why}").as_bytes());
        }
        return Some(0);
    }
    let mut program = Command::new(&argv[0]);
    program.args(&argv[1..]);
    if let Some(temp) = &sandbox.temp {
        program.env("TMPDIR", temp);
        // Go's build cache is trusted by every later unconfined build, so
        // it is never writable here: a private one, unless one was chosen.
        if std::env::var_os("GOCACHE").is_none() {
            program.env("GOCACHE", temp.join("go-build"));
        }
    }
    let error = std::os::unix::process::CommandExt::exec(&mut program);
    aide_core::envelope::stderr_line(&format!("aide sandbox: {}: {error}", argv[0].to_string_lossy()));
    Some(if error.kind() == std::io::ErrorKind::NotFound { 127 } else { SETUP_FAILED })
}
