//! The settings a run works with: the root's and the user's files laid over
//! aide's defaults, each value with where it came from.

use std::path::{Path, PathBuf};

use aide_core::AideError;
use aide_gate::sandbox::{Network, SandboxMode};

use crate::file::{ConfigFile, rate_per_second, read, risk_rank};
use aide_core::home::settings::{root_file, user_file};

/// Seconds `llm-shell exec` lets a command run when neither its
/// `--timeout` nor aide.toml says (as a coding agent's shell tool does:
/// two minutes).
pub const DEFAULT_EXEC_TIMEOUT: f64 = 120.0;

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => write!(f, "default"),
            Source::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// A setting's value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    fn default_of(value: T) -> Setting<T> {
        Setting { value, source: Source::Default }
    }
}

/// The settings in effect for a directory.
#[derive(Debug, Clone)]
pub struct Config {
    pub sandbox: Setting<SandboxMode>,
    pub network: Setting<Network>,
    /// Absolute paths a sandboxed command may write besides its own.
    pub writable: Vec<Setting<PathBuf>>,
    /// Where a sandboxed command may read, when not everywhere.
    pub readable: Setting<Option<Vec<PathBuf>>>,
    pub max_risk: Setting<Option<String>>,
    pub allow: Setting<Option<String>>,
    pub confirm: Setting<Option<String>>,
    pub rate: Setting<Option<String>>,
    pub call_timeout: Setting<Option<f64>>,
    /// Seconds a foreground `llm-shell exec` runs without `--timeout`.
    pub exec_timeout: Setting<f64>,
    /// What a project's file asked for and was not given, and why.
    pub ignored: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            sandbox: Setting::default_of(SandboxMode::Off),
            network: Setting::default_of(Network::On),
            writable: Vec::new(),
            readable: Setting::default_of(None),
            max_risk: Setting::default_of(None),
            allow: Setting::default_of(None),
            confirm: Setting::default_of(None),
            rate: Setting::default_of(None),
            call_timeout: Setting::default_of(None),
            exec_timeout: Setting::default_of(DEFAULT_EXEC_TIMEOUT),
            ignored: Vec::new(),
        }
    }
}

/// The settings in effect for runs in `dir`.
pub fn load(dir: &Path) -> Result<Config, AideError> {
    let mut config = Config::default();
    let user = user_file();
    if let Some(user) = user.as_ref().filter(|f| f.is_file()) {
        let file = read(user)?;
        apply(&mut config, &file, user, None);
    }
    if let Some(root) = root_file(dir) {
        // The user's own file, found again by walking up from a folder of theirs, is read once.
        if Some(&root) != user.as_ref() {
            let file = read(&root)?;
            let project = root.parent().unwrap_or(Path::new("/")).to_path_buf();
            apply(&mut config, &file, &root, Some(&project));
        }
    }
    Ok(config)
}

// Long because: one block per aide.toml key, each how a project's file may only tighten it.
/// Lays `file` (found at `path`) over `config`. A project's file
/// (`project`: its folder) may only tighten what is there.
fn apply(config: &mut Config, file: &ConfigFile, path: &Path, project: Option<&Path>) {
    let from = || Source::File(path.to_path_buf());
    let mut ignored = Vec::new();
    let mut refuse = |what: String| {
        ignored.push(format!("{}: {what}: a project's aide.toml cannot loosen it", path.display()));
    };
    let tighter_mode = |now: SandboxMode, asked: SandboxMode| asked.strictness() >= now.strictness();
    if let Some(mode) = file.sandbox {
        if project.is_none() || tighter_mode(config.sandbox.value, mode) {
            config.sandbox = Setting { value: mode, source: from() };
        } else {
            refuse(format!("sandbox = {:?} is looser than {}", mode.name(), config.sandbox.value.name()));
        }
    }
    if let Some(network) = file.network {
        if project.is_none() || network == Network::Off || config.network.value == Network::On {
            config.network = Setting { value: network, source: from() };
        } else {
            refuse("network = on is looser than off".into());
        }
    }
    let absolute = |given: &str| -> PathBuf {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        let expanded = match given.strip_prefix("~/") {
            Some(rest) => home.join(rest),
            None => PathBuf::from(given),
        };
        let joined = match project {
            Some(dir) if expanded.is_relative() => dir.join(&expanded),
            _ => expanded,
        };
        aide_core::root::lexically_normal(&joined).unwrap_or(joined)
    };
    // Where a path really leads: a link inside the project to a folder outside it is outside.
    let project_resolved = project.map(aide_gate::sandbox::resolved);
    let outside = |path: &Path| project_resolved.as_ref().is_some_and(|dir| !path.starts_with(dir));
    if let Some(list) = &file.readable {
        let asked: Vec<PathBuf> = list.iter().map(|p| aide_gate::sandbox::resolved(&absolute(p))).collect();
        // Narrower is fine: a list where there was none, or one beneath the list there was.
        let narrower = match &config.readable.value {
            None => true,
            Some(now) => asked.iter().all(|a| now.iter().any(|n| a.starts_with(n))),
        };
        if project.is_none() || narrower {
            config.readable = Setting { value: Some(asked), source: from() };
        } else {
            refuse("readable reaches beyond the user's readable paths".into());
        }
    }
    for given in &file.writable {
        let absolute = absolute(given);
        let inside = project.is_none_or(|dir| absolute.starts_with(dir));
        let resolved = aide_gate::sandbox::resolved(&absolute);
        if !(absolute.is_absolute() && inside) {
            refuse(format!("writable {given:?} lies outside the project"));
        } else if outside(&resolved) {
            refuse(format!("writable {given:?} resolves to {}, outside the project", resolved.display()));
        } else {
            config.writable.push(Setting { value: resolved, source: from() });
        }
    }
    // The policy of aide mcp: a project may make it stricter, never looser.
    if let Some(risk) = &file.max_risk {
        let now = config.max_risk.value.as_deref().and_then(risk_rank).unwrap_or(usize::MAX);
        if project.is_none() || risk_rank(risk).is_some_and(|r| r <= now) {
            config.max_risk = Setting { value: Some(risk.clone()), source: from() };
        } else {
            refuse(format!("max_risk = {risk:?} is looser"));
        }
    }
    if let Some(allow) = &file.allow {
        if project.is_none() || allow == "auto" {
            config.allow = Setting { value: Some(allow.clone()), source: from() };
        } else {
            refuse(format!("allow = {allow:?} is looser"));
        }
    }
    if let Some(confirm) = &file.confirm {
        if project.is_none() {
            config.confirm = Setting { value: Some(confirm.clone()), source: from() };
        } else {
            refuse("confirm is the user's to set".into());
        }
    }
    if let Some(rate) = &file.rate {
        let now = config.rate.value.as_deref().and_then(rate_per_second).unwrap_or(f64::INFINITY);
        if project.is_none() || rate_per_second(rate).is_some_and(|r| r <= now) {
            config.rate = Setting { value: Some(rate.clone()), source: from() };
        } else {
            refuse(format!("rate = {rate:?} is looser"));
        }
    }
    if let Some(seconds) = file.call_timeout {
        let now = config.call_timeout.value.unwrap_or(f64::INFINITY);
        if project.is_none() || seconds <= now {
            config.call_timeout = Setting { value: Some(seconds), source: from() };
        } else {
            refuse(format!("call_timeout = {seconds} is looser"));
        }
    }
    if let Some(seconds) = file.exec_timeout {
        if project.is_none() || seconds <= config.exec_timeout.value {
            config.exec_timeout = Setting { value: seconds, source: from() };
        } else {
            refuse(format!("exec_timeout = {seconds} is looser than {}", config.exec_timeout.value));
        }
    }
    config.ignored.extend(ignored);
}

impl Config {
    /// The sandbox a command gets when its flags say nothing.
    pub fn sandbox_default(&self) -> aide_gate::sandbox::SandboxUsed {
        aide_gate::sandbox::SandboxUsed { mode: self.sandbox.value, network: self.network.value }
    }

    /// The sandbox of a server whose own default is `baseline` (`aide mcp`:
    /// workspace-write): aide.toml's where the user's file set it or it is
    /// at least as strict; a project's file cannot go below the baseline.
    pub fn sandbox_over(&self, baseline: aide_gate::sandbox::SandboxUsed) -> aide_gate::sandbox::SandboxUsed {
        let users = |source: &Source| matches!(source, Source::File(p) if Some(p) == user_file().as_ref());
        let mode = match &self.sandbox.source {
            Source::Default => baseline.mode,
            source if users(source) || self.sandbox.value.strictness() >= baseline.mode.strictness() => {
                self.sandbox.value
            }
            _ => baseline.mode,
        };
        let network = match &self.network.source {
            Source::Default => baseline.network,
            source if users(source) || self.network.value == Network::Off => self.network.value,
            _ => baseline.network,
        };
        aide_gate::sandbox::SandboxUsed { mode, network }
    }

    /// The configured readable paths; None: everywhere.
    pub fn readable_paths(&self) -> Option<Vec<PathBuf>> {
        self.readable.value.clone()
    }

    /// The configured writable paths.
    pub fn writable_paths(&self) -> Vec<PathBuf> {
        self.writable.iter().map(|s| s.value.clone()).collect()
    }

    /// Each setting, its value and where it came from, as `aide doctor` shows them.
    pub fn described(&self) -> Vec<(String, String, String)> {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        let mut out = vec![
            ("sandbox".to_string(), self.sandbox.value.name().to_string(), self.sandbox.source.to_string()),
            ("network".to_string(), self.network.value.name().to_string(), self.network.source.to_string()),
            ("max_risk".to_string(), show(&self.max_risk.value), self.max_risk.source.to_string()),
            ("allow".to_string(), show(&self.allow.value), self.allow.source.to_string()),
            ("confirm".to_string(), show(&self.confirm.value), self.confirm.source.to_string()),
            ("rate".to_string(), show(&self.rate.value), self.rate.source.to_string()),
            (
                "call_timeout".to_string(),
                self.call_timeout.value.map_or("none".into(), |s| format!("{s} s")),
                self.call_timeout.source.to_string(),
            ),
            (
                "exec_timeout".to_string(),
                format!("{} s", self.exec_timeout.value),
                self.exec_timeout.source.to_string(),
            ),
        ];
        out.extend(
            self.writable.iter().map(|w| ("writable".into(), w.value.display().to_string(), w.source.to_string())),
        );
        let readable = match &self.readable.value {
            None => "everywhere".to_string(),
            Some(list) => list.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        };
        out.push(("readable".into(), readable, self.readable.source.to_string()));
        out
    }
}

#[cfg(test)]
mod tests;
