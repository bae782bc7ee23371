//! Sessions on disk: `$AIDE_HOME/shell/sessions/<id>/` holds `meta.json`,
//! `state.sh` (the shell state as a script bash can source: variables,
//! functions, aliases, the working directory, `set`/`shopt` options),
//! `perf.jsonl` (one line per exec), `lock`, its keeper's files, and `io/`:
//! the FIFOs its shell writes its reports and output to, the only part of
//! the folder its sandbox may write. What comes back through `io/` is
//! parsed, never run by an unconfined process, and never changes the
//! sandbox (that is fixed in `meta.json` when the session starts). Writes
//! are atomic; a per-session lock makes execs on one session run one after
//! the other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use aide_core::AideError;
use aide_core::fsutil::{private_permissions, replace, write_atomic_with};
use aide_core::request::is_identifier;
use aide_core::time::now_ms;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ShellError;
pub use crate::state::shell_quote;

/// What a session remembers besides its shell state.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Meta {
    pub session_id: String,
    pub created_ms: i64,
    pub working_dir: String,
    pub last_exit_code: Option<i32>,
    pub exec_count: u64,
    /// Seconds the session's keeper waits for a command before it exits (default 1800).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeper_idle_seconds: Option<u64>,
    /// The sandbox its shell runs in (fixed when it starts).
    #[serde(default)]
    pub sandbox: aide_gate::sandbox::SandboxUsed,
    /// The directory writable in a `workspace-write` sandbox (where it started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_dir: Option<String>,
    /// More paths its sandbox lets it write (aide.toml's `writable`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_writable: Vec<String>,
    /// Where its sandbox lets it read, when not everywhere (aide.toml's `readable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_readable: Option<Vec<String>>,
}

/// A session as `session list` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Listed {
    #[serde(flatten)]
    pub meta: Meta,
    /// Whether the session's keeper (its live shell) runs now.
    pub keeper_alive: bool,
}

/// Defaults that keep commands from waiting for a person.
pub const NON_INTERACTIVE: &[(&str, &str)] =
    &[("PAGER", "cat"), ("GIT_PAGER", "cat"), ("GIT_TERMINAL_PROMPT", "0"), ("DEBIAN_FRONTEND", "noninteractive")];

/// Variables bash sets itself; never saved or restored.
const SHELL_OWNED: &[&str] =
    &["BASHOPTS", "SHELLOPTS", "PWD", "OLDPWD", "SHLVL", "_", "EUID", "UID", "PPID", "BASHPID"];

/// The largest saved state read (a session's variables and functions).
const MAX_STATE_BYTES: u64 = 64 << 20;

/// The folder of a session its shell writes: [`Session::io_dir`].
const IO: &str = "io";

pub fn sessions_dir() -> PathBuf {
    aide_core::home::sessions::dir()
}

fn io_err(what: &str, e: &std::io::Error) -> AideError {
    AideError::io(what, e)
}

/// The initial state script of a session: the given environment, exported,
/// and the working directory.
pub fn initial_state(cwd: &Path, env: &BTreeMap<String, String>) -> String {
    let mut script = String::new();
    for (k, v) in env {
        let kept = !SHELL_OWNED.contains(&k.as_str()) && !crate::state::RUN_SCOPED.contains(&k.as_str());
        if is_identifier(k) && kept && !k.starts_with("BASH_") {
            script.push_str(&crate::state::declare_exported(k, v));
        }
    }
    script.push_str(&crate::state::cd_line(&cwd.display().to_string()));
    script
}

/// The environment a new session starts from: this process's, the
/// non-interactive defaults, then the caller's `K=V` pairs.
pub fn starting_env(extra: &[(String, String)]) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = std::env::vars().collect();
    for (k, v) in NON_INTERACTIVE {
        env.insert((*k).to_string(), (*v).to_string());
    }
    for (k, v) in extra {
        env.insert(k.clone(), v.clone());
    }
    env
}

/// One session's folder.
#[derive(Debug, Clone)]
pub struct Session {
    pub dir: PathBuf,
    pub meta: Meta,
}

impl Session {
    /// The sandbox its shell runs in: writable, in `workspace-write`, beneath
    /// the directory it started in; its `io` folder always (the shell
    /// writes its reports and output there), the rest of its folder never;
    /// its folder readable whatever else is not (the shell reads its state).
    pub fn sandbox(&self) -> aide_gate::sandbox::Sandbox {
        let configured: Vec<PathBuf> = self.meta.sandbox_writable.iter().map(PathBuf::from).collect();
        let dir = self.sandbox_dir();
        let readable = self
            .meta
            .sandbox_readable
            .as_ref()
            .map(|l| l.iter().map(PathBuf::from).chain([self.dir.clone()]).collect());
        aide_gate::sandbox::Sandbox::of(self.meta.sandbox, Path::new(&dir), &configured)
            .owning(vec![self.io_dir()])
            .reading(readable, Path::new(&dir))
    }

    /// Where its shell writes (its sandbox may): the report and output FIFOs.
    pub fn io_dir(&self) -> PathBuf {
        self.dir.join(IO)
    }

    /// The directory a `workspace-write` sandbox lets it write beneath: the
    /// one it started in (a `cd` moves the shell, not the sandbox).
    pub(crate) fn sandbox_dir(&self) -> String {
        self.meta.sandbox_dir.clone().unwrap_or_else(|| self.meta.working_dir.clone())
    }

    pub fn state_path(&self) -> PathBuf {
        self.dir.join("state.sh")
    }

    pub fn perf_path(&self) -> PathBuf {
        self.dir.join("perf.jsonl")
    }

    pub fn save_meta(&self) -> Result<(), AideError> {
        let json = serde_json::to_vec_pretty(&self.meta).map_err(|e| AideError::internal(e.to_string()))?;
        replace(&self.dir.join("meta.json"), &json).map_err(|e| io_err("session meta", &e))
    }

    /// Holds the session's lock until the returned file is dropped.
    pub fn lock(&self) -> Result<std::fs::File, AideError> {
        let f = aide_core::fsutil::private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))
            .map_err(|e| io_err("session lock", &e))?;
        f.lock().map_err(|e| io_err("session lock", &e))?;
        Ok(f)
    }

    /// What the saved state declares (variables, functions, aliases), read
    /// as text; an unreadable state declares nothing.
    pub fn declared(&self) -> crate::state::Declared {
        aide_core::fsutil::read_private(&self.state_path(), MAX_STATE_BYTES)
            .map(|bytes| crate::state::parse(&String::from_utf8_lossy(&bytes)))
            .unwrap_or_default()
    }

    /// Refuses a session whose state bash would hang on or choke on: its
    /// `state.sh` must be a regular file of a sane size (bash sources it).
    pub fn check_state(&self) -> Result<(), AideError> {
        match aide_core::fsutil::open_private_regular(&self.state_path()).and_then(|f| f.metadata()) {
            Ok(m) if m.len() <= MAX_STATE_BYTES => Ok(()),
            Ok(_) => Err(damaged_error(
                &self.meta.session_id,
                "state.sh",
                &std::io::Error::new(std::io::ErrorKind::FileTooLarge, "over the state size read"),
            )),
            Err(e) => Err(damaged_error(&self.meta.session_id, "state.sh", &e)),
        }
    }

    /// Adds `name=value`, exported, to its saved state (a new session's:
    /// the shell sources it next).
    pub fn export(&self, name: &str, value: &str) -> Result<(), AideError> {
        let mut state = aide_core::fsutil::read_private(&self.state_path(), MAX_STATE_BYTES)
            .map_err(|e| damaged_error(&self.meta.session_id, "state.sh", &e))?;
        state.extend_from_slice(crate::state::declare_exported(name, value).as_bytes());
        write_atomic_with(&self.state_path(), &state, Some(private_permissions()))
            .map_err(|e| io_err("session state", &e))
    }

    /// Whether an exec holds the session's lock now (is running in it).
    pub fn is_busy(&self) -> bool {
        aide_core::fsutil::lock_held(&self.dir.join("lock"))
    }

    /// The exported variables of the saved state, read as text: the state
    /// came back from the session's shell (from its sandbox, if it has one),
    /// so no unconfined bash sources it.
    pub fn environment(&self) -> BTreeMap<String, String> {
        let mut declared = self.declared();
        declared
            .exported
            .iter()
            .filter(|name| !SHELL_OWNED.contains(&name.as_str()))
            .filter_map(|name| Some((name.clone(), declared.variables.remove(name)?)))
            .collect()
    }
}

/// Creates a session in `parent` (the sessions folder, or a temporary one).
pub fn create_in(parent: &Path, id: &str, cwd: &Path, env: &BTreeMap<String, String>) -> Result<Session, AideError> {
    let dir = parent.join(id);
    aide_core::fsutil::private_dir(&dir.join(IO)).map_err(|e| io_err(&dir.display().to_string(), &e))?;
    // The state keeps exported values (it must), so only its owner may read it.
    write_atomic_with(&dir.join("state.sh"), initial_state(cwd, env).as_bytes(), Some(private_permissions()))
        .map_err(|e| io_err("session state", &e))?;
    let session = Session {
        dir,
        meta: Meta {
            session_id: id.to_string(),
            created_ms: now_ms(),
            working_dir: cwd.display().to_string(),
            last_exit_code: None,
            exec_count: 0,
            keeper_idle_seconds: None,
            sandbox: Default::default(),
            sandbox_dir: None,
            sandbox_writable: Vec::new(),
            sandbox_readable: None,
        },
    };
    session.save_meta()?;
    Ok(session)
}

pub fn create(cwd: &Path, extra_env: &[(String, String)]) -> Result<Session, AideError> {
    let cwd = cwd
        .canonicalize()
        .map_err(|e| io_err(&cwd.display().to_string(), &e).with_hint("--cwd must name an existing directory"))?;
    let id = format!("s-{}", &aide_core::ids::new_execution_id().replace('-', "")[20..]);
    create_in(&sessions_dir(), &id, &cwd, &starting_env(extra_env))
}

/// The folder of the session `id`, if `id` can name one (letters, digits, `-`).
pub fn dir_of(id: &str) -> Option<PathBuf> {
    aide_core::home::sessions::dir_of(id)
}

pub fn open(id: &str) -> Result<Session, AideError> {
    open_at(&dir_of(id).ok_or_else(|| not_found(id))?)
}

/// Opens the session whose folder is `dir` (its name is the session's id).
pub fn open_at(dir: &Path) -> Result<Session, AideError> {
    let id = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let dir = dir.to_path_buf();
    let meta = match aide_core::fsutil::read_private(&dir.join("meta.json"), 1 << 20) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found(id)),
        // A FIFO, a link or a huge file where the session's meta.json was.
        Err(e) => return Err(damaged_error(id, "meta.json", &e)),
    };
    let meta: Meta = serde_json::from_slice(&meta).map_err(|e| AideError::internal(format!("session meta: {e}")))?;
    if meta.sandbox.mode == aide_gate::sandbox::SandboxMode::WorkspaceWrite && meta.sandbox_dir.is_none() {
        // Its sandbox would otherwise follow its working directory, which its own commands move.
        let why = std::io::Error::new(std::io::ErrorKind::InvalidData, "a sandbox without the folder it confines to");
        return Err(damaged_error(id, "meta.json", &why));
    }
    Ok(Session { dir, meta })
}

fn damaged_error(id: &str, what: &str, e: &std::io::Error) -> AideError {
    AideError::io(&format!("session {id}: {what}"), e).with_hint(format!(
        "the session's folder is damaged: remove it with `llm-shell session rm {id}` and start a new one"
    ))
}

fn not_found(id: &str) -> AideError {
    ShellError::NoSession { id: id.to_string() }.into()
}

pub fn list() -> Result<Vec<Meta>, AideError> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(sessions_dir()) else { return Ok(out) };
    for entry in rd.flatten() {
        if let Some(id) = entry.file_name().to_str()
            && let Ok(s) = open(id)
        {
            out.push(s.meta);
        }
    }
    out.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then_with(|| a.session_id.cmp(&b.session_id)));
    Ok(out)
}

/// Session folders that cannot be opened as sessions (no or unreadable
/// `meta.json`): left by a crash or a hand, invisible to `session list`.
pub fn damaged() -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(sessions_dir()) else { return Vec::new() };
    let mut out: Vec<PathBuf> =
        rd.flatten().filter(|e| e.file_name().to_str().is_none_or(|id| open(id).is_err())).map(|e| e.path()).collect();
    out.sort();
    out
}

pub fn remove(id: &str) -> Result<(), AideError> {
    let s = match open(id) {
        Ok(s) => s,
        // A damaged session (its meta.json not a readable file) goes too: `rm` is how it is mended.
        Err(e) => {
            if let Some(dir) = dir_of(id).filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir())) {
                return std::fs::remove_dir_all(&dir).map_err(|e| io_err(&dir.display().to_string(), &e));
            }
            return Err(e);
        }
    };
    let _lock = s.lock()?;
    std::fs::remove_dir_all(&s.dir).map_err(|e| io_err(&s.dir.display().to_string(), &e))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // bash itself, the oracle of what a state script means
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_bash() {
        for s in ["plain", "it's", "a b", "$HOME", "\"q\"", "new\nline", "back\\slash"] {
            let out = std::process::Command::new("bash")
                .args(["--noprofile", "--norc", "-c", &format!("printf %s {}", shell_quote(s))])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), s);
        }
    }

    #[test]
    fn initial_state_exports_valid_names_only() {
        let mut env = BTreeMap::new();
        env.insert("GOOD".to_string(), "x y".to_string());
        env.insert("bad.name".to_string(), "z".to_string());
        env.insert("SHLVL".to_string(), "3".to_string());
        let s = initial_state(Path::new("/tmp"), &env);
        assert!(s.contains("declare -x GOOD=\"x y\""));
        assert!(!s.contains("bad.name") && !s.contains("SHLVL"));
        assert!(s.ends_with("cd -- '/tmp' 2>/dev/null\n"));
    }
}
