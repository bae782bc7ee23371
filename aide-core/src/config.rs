//! `aide.toml`: the defaults every tool reads for what a flag does not say.
//!
//! Two files, read in this order: the root's (`aide.toml` in the directory a
//! run works in, or the nearest folder above it that has one), then the
//! user's (`$XDG_CONFIG_HOME/aide/aide.toml`, else
//! `~/.config/aide/aide.toml`). The root's wins, with one exception: a
//! project's file cannot loosen what the user's file, or aide's default,
//! holds — a sandbox, a network, a policy of `aide mcp` that is looser is
//! ignored (and `aide doctor` says so), and its writable paths must lie
//! inside the project. A flag overrides both.
//!
//! ```toml
//! sandbox = "workspace-write"   # off | read-only | workspace-write
//! network = "off"               # on | off
//! writable = ["~/.cache/cargo"] # more paths a sandboxed command may write
//! readable = ["~/.cargo"]       # read only beneath these (and the system's
//!                               # folders, the working and writable paths)
//! max_risk = "medium"           # aide mcp: low | medium | high | critical
//! allow = "auto"                # aide mcp: auto | gated
//! confirm = "gated"             # aide mcp: ask the user before a gated call
//! rate = "10/s"                 # aide mcp: calls a second (N/s) or minute (N/m)
//! call_timeout = 600            # aide mcp: seconds one call may run
//! exec_timeout = 120            # llm-shell exec: seconds a command may run
//! ```
//!
//! A file that does not parse, or names a key aide does not know, is an
//! `invalid_request` error naming the file and line: never half-read.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::AideError;
use crate::sandbox::{Network, SandboxMode};

pub mod place;

pub use place::{FILE, root_file, user_file};

/// One file, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub sandbox: Option<SandboxMode>,
    pub network: Option<Network>,
    #[serde(default)]
    pub writable: Vec<String>,
    pub readable: Option<Vec<String>>,
    pub max_risk: Option<String>,
    pub allow: Option<String>,
    pub confirm: Option<String>,
    pub rate: Option<String>,
    pub call_timeout: Option<f64>,
    pub exec_timeout: Option<f64>,
}

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

fn read(path: &Path) -> Result<ConfigFile, AideError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        AideError::io(&path.display().to_string(), &e).with_hint("aide.toml must be a readable UTF-8 file")
    })?;
    let invalid = |line: Option<usize>, message: &str| {
        let at = line.map(|l| format!(":{l}")).unwrap_or_default();
        AideError::new(crate::code::INVALID_REQUEST, format!("{}{at}: {message}", path.display()))
            .with_hint("see docs/CONTRACT.md, \"Configuration\", for the keys aide.toml takes")
            .with_details(serde_json::json!({ "path": path.display().to_string(), "line": line }))
    };
    let file: ConfigFile = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        invalid(line, e.message())
    })?;
    // The values only aide mcp uses are checked here too: a bad one is refused by every tool, not half-read.
    let line_of = |key: &str| {
        text.lines()
            .position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.trim_start().starts_with('=')))
            .map(|i| i + 1)
    };
    let bad = |key: &str, value: &str, expected: &str| {
        invalid(line_of(key), &format!("{key} = {value:?}: expected {expected}"))
    };
    if let Some(v) = file.max_risk.as_deref().filter(|v| risk_rank(v).is_none()) {
        return Err(bad("max_risk", v, "low, medium, high or critical"));
    }
    if let Some(v) = file.allow.as_deref().filter(|v| !matches!(*v, "auto" | "gated")) {
        return Err(bad("allow", v, "auto or gated"));
    }
    if let Some(v) = file.confirm.as_deref().filter(|v| *v != "gated") {
        return Err(bad("confirm", v, "gated"));
    }
    if let Some(v) = file.rate.as_deref().filter(|v| rate_per_second(v).is_none()) {
        return Err(bad("rate", v, "N/s or N/m, N above 0"));
    }
    // Past MAX_SECONDS a Duration overflows.
    let seconds = |s: f64| s > 0.0 && s <= crate::request::MAX_SECONDS;
    for (key, value) in [("call_timeout", file.call_timeout), ("exec_timeout", file.exec_timeout)] {
        if let Some(v) = value.filter(|s| !seconds(*s)) {
            return Err(bad(
                key,
                &v.to_string(),
                &format!("seconds above 0, at most {:.0}", crate::request::MAX_SECONDS),
            ));
        }
    }
    Ok(file)
}

/// The rank of a risk level (low first); None for a word that is not one.
fn risk_rank(risk: &str) -> Option<usize> {
    ["low", "medium", "high", "critical"].iter().position(|r| *r == risk)
}

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
        crate::root::lexically_normal(&joined).unwrap_or(joined)
    };
    // Where a path really leads: a link inside the project to a folder outside it is outside.
    let project_resolved = project.map(crate::sandbox::resolved);
    let outside = |path: &Path| project_resolved.as_ref().is_some_and(|dir| !path.starts_with(dir));
    if let Some(list) = &file.readable {
        let asked: Vec<PathBuf> = list.iter().map(|p| crate::sandbox::resolved(&absolute(p))).collect();
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
        let resolved = crate::sandbox::resolved(&absolute);
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

/// `N/s`, `N/m` or `N` as calls a second; None when it is none of these.
pub fn rate_per_second(rate: &str) -> Option<f64> {
    let (number, per) = match rate.split_once('/') {
        Some((n, "s")) => (n, 1.0),
        Some((n, "m")) => (n, 60.0),
        Some(_) => return None,
        None => (rate, 1.0),
    };
    number.trim().parse::<f64>().ok().filter(|n| n.is_finite() && *n > 0.0).map(|n| n / per)
}

impl Config {
    /// The sandbox a command gets when its flags say nothing.
    pub fn sandbox_default(&self) -> crate::sandbox::SandboxUsed {
        crate::sandbox::SandboxUsed { mode: self.sandbox.value, network: self.network.value }
    }

    /// The sandbox of a server whose own default is `baseline` (`aide mcp`:
    /// workspace-write): aide.toml's where the user's file set it or it is
    /// at least as strict; a project's file cannot go below the baseline.
    pub fn sandbox_over(&self, baseline: crate::sandbox::SandboxUsed) -> crate::sandbox::SandboxUsed {
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
        crate::sandbox::SandboxUsed { mode, network }
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
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_project_tightens_but_never_loosens_what_the_user_set() {
        let mut config = Config::default();
        let user = Path::new("/home/u/.config/aide/aide.toml");
        apply(&mut config, &file("sandbox = \"read-only\"\nrate = \"10/s\"\nallow = \"auto\""), user, None);
        let project = Path::new("/work/p");
        let looser = file(
            "sandbox = \"off\"\nnetwork = \"on\"\nrate = \"100/s\"\nallow = \"gated\"\nwritable = [\"/etc\", \"build\"]",
        );
        apply(&mut config, &looser, &project.join(FILE), Some(project));
        assert_eq!(config.sandbox.value, SandboxMode::ReadOnly);
        assert_eq!(config.sandbox.source, Source::File(user.to_path_buf()));
        assert_eq!(config.rate.value.as_deref(), Some("10/s"));
        assert_eq!(config.allow.value.as_deref(), Some("auto"));
        assert_eq!(config.writable_paths(), [project.join("build")], "inside the project only");
        assert_eq!(config.ignored.len(), 4, "{:?}", config.ignored);
        let tighter = file("network = \"off\"\nrate = \"1/s\"");
        apply(&mut config, &tighter, &project.join(FILE), Some(project));
        assert_eq!((config.network.value, config.rate.value.as_deref()), (Network::Off, Some("1/s")));
    }

    #[test]
    fn a_projects_writable_path_is_where_it_leads_and_one_leading_outside_is_refused() {
        let dir = crate::fsutil::TempDir::new("aide-config").unwrap();
        let project = dir.path().join("p");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(project.join("build")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, project.join("escape")).unwrap();
        std::os::unix::fs::symlink(project.join("build"), project.join("out")).unwrap();
        let mut config = Config::default();
        let text = "writable = [\"escape\", \"escape/deeper\", \"out\", \"build/new\"]";
        apply(&mut config, &file(text), &project.join(FILE), Some(&project));
        let real = |p: &Path| crate::sandbox::resolved(p);
        assert_eq!(config.writable_paths(), [real(&project.join("build")), real(&project.join("build/new"))]);
        assert_eq!(config.ignored.len(), 2, "{:?}", config.ignored);
        assert!(
            config.ignored[0].contains("writable \"escape\" resolves to ") && config.ignored[0].contains("outside")
        );
        assert!(config.ignored[1].contains("writable \"escape/deeper\" resolves to "), "{:?}", config.ignored);
        // The user's own file may name any folder; a link in it is followed once, here.
        let mut config = Config::default();
        let user = format!("writable = [{:?}]", project.join("escape"));
        apply(&mut config, &file(&user), &dir.path().join("user.toml"), None);
        assert_eq!(config.writable_paths(), [real(&outside)]);
    }

    #[test]
    fn exec_timeout_is_two_minutes_unless_set_and_a_project_may_only_shorten_it() {
        let mut config = Config::default();
        assert_eq!((config.exec_timeout.value, &config.exec_timeout.source), (120.0, &Source::Default));
        let project = Path::new("/work/p");
        apply(&mut config, &file("exec_timeout = 600"), &project.join(FILE), Some(project));
        assert_eq!(config.exec_timeout.value, 120.0, "a project cannot lengthen the default");
        assert!(config.ignored[0].contains("exec_timeout = 600 is looser than 120"), "{:?}", config.ignored);
        apply(&mut config, &file("exec_timeout = 0.5"), &project.join(FILE), Some(project));
        assert_eq!(config.exec_timeout.value, 0.5);
        let mut config = Config::default();
        let user = Path::new("/home/u/.config/aide/aide.toml");
        apply(&mut config, &file("exec_timeout = 600"), user, None);
        assert_eq!((config.exec_timeout.value, &config.exec_timeout.source), (600.0, &Source::File(user.into())));
        let shown = config.described().into_iter().find(|(k, _, _)| k == "exec_timeout").unwrap();
        assert_eq!((shown.1.as_str(), shown.2.as_str()), ("600 s", "/home/u/.config/aide/aide.toml"));
    }

    #[test]
    fn a_project_may_turn_the_sandbox_on_from_the_default() {
        let mut config = Config::default();
        let project = Path::new("/work/p");
        apply(&mut config, &file("sandbox = \"workspace-write\""), &project.join(FILE), Some(project));
        assert_eq!(config.sandbox.value, SandboxMode::WorkspaceWrite);
        assert!(config.ignored.is_empty());
    }

    #[test]
    fn an_unknown_key_or_bad_value_names_the_file_and_line() {
        let dir = crate::fsutil::TempDir::new("aide-config").unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, "network = \"off\"\nsandbox = \"everything\"\n").unwrap();
        let e = read(&path).unwrap_err();
        assert_eq!(e.code.name, "invalid_request");
        assert!(e.message.contains(":2:"), "{}", e.message);
        std::fs::write(&path, "sandboxx = \"off\"\n").unwrap();
        assert!(read(&path).unwrap_err().message.contains("sandboxx"));
        // A value only aide mcp takes is checked as surely, for every tool.
        std::fs::write(&path, "network = \"off\"\nmax_risk = \"extreme\"\n").unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.message.contains(":2: max_risk = \"extreme\""), "{}", e.message);
        std::fs::write(&path, "rate = \"fast\"\n").unwrap();
        assert!(read(&path).unwrap_err().message.contains("rate"));
        // Seconds that are none, or too many for a Duration, are refused for both timeouts.
        for bad in ["exec_timeout = 0", "exec_timeout = -1", "exec_timeout = 1e300", "call_timeout = 1e300"] {
            std::fs::write(&path, format!("network = \"off\"\n{bad}\n")).unwrap();
            let e = read(&path).unwrap_err();
            assert!(e.message.contains(":2: ") && e.message.contains("seconds above 0"), "{bad}: {}", e.message);
        }
        std::fs::write(&path, "exec_timeout = \"soon\"\n").unwrap();
        assert!(read(&path).unwrap_err().message.contains(":1:"));
    }
}
