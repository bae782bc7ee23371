//! What a repository's own configuration may not make git run. A
//! repository's `.git/config` (and what it includes, and a submodule's) is
//! written by whoever wrote the repository — a cloned archive, a command in
//! a sandbox — so no program it names runs from a tool's git:
//!
//! * always off: `core.fsmonitor` (runs on every status, diff and add),
//!   hooks (`core.hooksPath` points at nothing; llm-git runs the hooks of
//!   its own operations itself, through the gate), signature checks in
//!   logs, background maintenance after a commit, and every hook the
//!   configuration defines (git 2.54's `hook.<name>.command`: each is
//!   `hook.<name>.enabled=false` for git, and [`Guard::hooks`] lists them
//!   for llm-git to run through the gate as it runs the hooks folder's);
//! * named by the repository's own configuration (scopes `local` and
//!   `worktree`), replaced by the user's own value (`global`, `system`, the
//!   command line) or else by a stand-in that runs nothing: filter drivers'
//!   `clean`, `smudge` and `process` (empty: the content passes unfiltered,
//!   and a `required` one fails), and the signing programs (git's default
//!   program names);
//! * the rest needs a network, and every transport is refused
//!   (`GIT_ALLOW_PROTOCOL` empty, `GIT_NO_LAZY_FETCH`): remotes' commands,
//!   `core.sshCommand`, credential helpers. Textual diffs are asked with
//!   `--no-ext-diff --no-textconv` by their callers; no pager starts
//!   (stdout is a pipe, and `--no-pager`); aliases never shadow the
//!   built-in commands the tools use.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// Settings every git run carries, whatever the repository says.
const ALWAYS: [(&str, &str); 4] = [
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("log.showSignature", "false"),
    ("maintenance.auto", "false"),
];

/// Repositories (the root's and its submodules', nested) whose settings are read at most.
const MAX_REPOSITORIES: usize = 256;

/// The settings a repository's git runs with.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// `key=value` for each `-c`, in order.
    pub settings: Vec<OsString>,
    /// The keys of the repository's own configuration not honoured (each once, sorted).
    pub ignored: Vec<String>,
    /// The hooks the repository's configuration defines, in the order git
    /// reads them (git runs them before the hooks folder's).
    pub hooks: Vec<ConfigHook>,
}

/// A hook defined in the configuration (`[hook "lint"] event = pre-commit
/// command = …`): a shell command run for each of its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigHook {
    pub name: String,
    pub events: Vec<String>,
    pub command: OsString,
}

/// One entry of `git config --list --show-scope -z`.
struct Entry {
    trusted: bool,
    key: String,
    value: OsString,
}

impl Guard {
    /// The settings for the repository at `dir`, and (given its work tree's
    /// `top`) for the submodules checked out in it. `base` is git in a
    /// folder, before any setting (reading configuration runs nothing).
    pub(super) fn read(dir: &Path, top: Option<&Path>, base: &dyn Fn(&Path) -> Command) -> Guard {
        let mut entries = Vec::new();
        let mut budget = MAX_REPOSITORIES;
        read_config(base(dir), &mut entries);
        let hooks = config_hooks(&entries);
        if let Some(top) = top {
            submodules(top, base, &mut entries, &mut budget);
        }
        Guard { hooks, ..Guard::from_entries(&entries) }
    }

    fn from_entries(entries: &[Entry]) -> Guard {
        let mut settings: Vec<OsString> = ALWAYS.iter().map(|(k, v)| OsString::from(format!("{k}={v}"))).collect();
        // The user's own value of each key, the last one read winning as in git.
        let mut trusted: BTreeMap<String, &OsString> = BTreeMap::new();
        for e in entries.iter().filter(|e| e.trusted) {
            trusted.insert(e.key.to_ascii_lowercase(), &e.value);
        }
        let mut ignored: Vec<String> = Vec::new();
        for e in entries.iter().filter(|e| !e.trusted) {
            let Some(stand_in) = stand_in(&e.key) else { continue };
            if !ignored.contains(&e.key) {
                ignored.push(e.key.clone());
            }
            let value =
                trusted.get(&e.key.to_ascii_lowercase()).map_or_else(|| OsString::from(stand_in), |v| (*v).clone());
            let mut setting = OsString::from(format!("{}=", e.key));
            setting.push(value);
            settings.push(setting);
        }
        ignored.sort();
        // No configured hook runs from git itself (git before 2.54 reads no such key).
        let mut named: Vec<&str> = entries.iter().filter_map(|e| hook_key(&e.key)).map(|(name, _)| name).collect();
        named.sort_unstable();
        named.dedup();
        settings.extend(named.iter().map(|name| OsString::from(format!("hook.{name}.enabled=false"))));
        Guard { settings, ignored, hooks: Vec::new() }
    }

    /// Gives `command` every setting (`-c key=value`: the command line
    /// takes precedence over the repository's configuration).
    pub fn apply(&self, command: &mut Command) {
        for setting in &self.settings {
            command.arg("-c").arg(setting);
        }
    }
}

/// What stands in for a repository's own value of `key` when it names a
/// program (None: the key runs nothing, or is handled otherwise).
fn stand_in(key: &str) -> Option<&'static str> {
    let (section, rest) = key.split_once('.')?;
    let (subsection, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    match (section.to_ascii_lowercase().as_str(), subsection, name.to_ascii_lowercase().as_str()) {
        ("filter", Some(_), "clean" | "smudge" | "process") => Some(""),
        ("gpg", None, "program") | ("gpg", Some("openpgp"), "program") => Some("gpg"),
        ("gpg", Some("x509"), "program") => Some("gpgsm"),
        ("gpg", Some("ssh"), "program") => Some("ssh-keygen"),
        // No key without one: git says so and signs nothing.
        ("gpg", Some("ssh"), "defaultkeycommand") => Some("false"),
        _ => None,
    }
}

/// `hook.<name>.<key>` as (name, key); a name may hold dots.
fn hook_key(key: &str) -> Option<(&str, &str)> {
    let rest = key.get(..5).filter(|h| h.eq_ignore_ascii_case("hook."))?;
    let rest = &key[rest.len()..];
    let (name, var) = rest.rsplit_once('.')?;
    (!name.is_empty()).then_some((name, var))
}

/// The hooks the configuration defines, as git 2.54 reads them: `event`
/// adds an event (an empty one clears the list), `command` is the last one
/// given, `enabled = false` leaves the hook out; in the order names first
/// appear.
fn config_hooks(entries: &[Entry]) -> Vec<ConfigHook> {
    let mut hooks: Vec<(ConfigHook, bool)> = Vec::new();
    for e in entries {
        let Some((name, var)) = hook_key(&e.key) else { continue };
        let at = match hooks.iter().position(|(h, _)| h.name == name) {
            Some(at) => at,
            None => {
                let hook = ConfigHook { name: name.to_string(), events: Vec::new(), command: OsString::new() };
                hooks.push((hook, true));
                hooks.len() - 1
            }
        };
        let (hook, enabled) = &mut hooks[at];
        let value = e.value.to_string_lossy();
        match var.to_ascii_lowercase().as_str() {
            "event" if value.is_empty() => hook.events.clear(),
            "event" => hook.events.push(value.into_owned()),
            "command" => hook.command = e.value.clone(),
            "enabled" => *enabled = !matches!(value.to_ascii_lowercase().as_str(), "false" | "no" | "off" | "0"),
            _ => {}
        }
    }
    hooks.into_iter().filter(|(h, enabled)| *enabled && !h.command.is_empty()).map(|(h, _)| h).collect()
}

/// Reads the configuration `git config --list --show-scope -z` gives.
fn read_config(mut command: Command, entries: &mut Vec<Entry>) {
    let Ok(out) = command.args(["config", "--list", "--show-scope", "-z"]).output() else { return };
    let mut records = out.stdout.split(|&b| b == 0);
    while let (Some(scope), Some(pair)) = (records.next(), records.next()) {
        let (key, value) = match pair.iter().position(|&b| b == b'\n') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &b""[..]),
        };
        let trusted = matches!(scope, b"system" | b"global" | b"command");
        let value = std::os::unix::ffi::OsStrExt::from_bytes(value);
        entries.push(Entry {
            trusted,
            key: String::from_utf8_lossy(key).into_owned(),
            value: std::ffi::OsStr::to_os_string(value),
        });
    }
}

/// The configuration of each submodule checked out under `top` (and
/// theirs, nested), as `.gitmodules` lists them.
fn submodules(top: &Path, base: &dyn Fn(&Path) -> Command, entries: &mut Vec<Entry>, budget: &mut usize) {
    let listed = top.join(".gitmodules");
    if !listed.is_file() {
        return;
    }
    let mut command = base(top);
    command.arg("config").arg("-z").arg("--file").arg(&listed).args(["--get-regexp", r"^submodule\..*\.path$"]);
    let Ok(out) = command.output() else { return };
    for record in out.stdout.split(|&b| b == 0) {
        let Some(at) = record.iter().position(|&b| b == b'\n') else { continue };
        let path: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(&record[at + 1..]);
        let sub = top.join(path);
        if *budget == 0 || !sub.starts_with(top) || !sub.join(".git").exists() {
            continue;
        }
        *budget -= 1;
        let mut in_sub = base(&sub);
        for var in LOCAL_REPOSITORY_ENV {
            in_sub.env_remove(var);
        }
        read_config(in_sub, entries);
        submodules(&sub, base, entries, budget);
    }
}

/// What names the repository git works in: cleared to read a submodule's
/// own configuration, as git clears it to recurse (`git rev-parse --local-env-vars`).
const LOCAL_REPOSITORY_ENV: [&str; 9] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CONFIG",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(scope_trusted: bool, key: &str, value: &str) -> Entry {
        Entry { trusted: scope_trusted, key: key.into(), value: value.into() }
    }

    #[test]
    fn configured_hooks_are_read_as_git_reads_them_and_never_run_by_git() {
        let entries = [
            entry(false, "hook.lint.event", "pre-commit"),
            entry(false, "hook.lint.command", "first"),
            entry(true, "hook.my.dotted.name.event", "commit-msg"),
            entry(true, "hook.my.dotted.name.command", "spell --check"),
            entry(false, "hook.lint.command", "make lint"),
            entry(false, "hook.lint.event", "post-commit"),
            entry(false, "hook.off.command", "never"),
            entry(false, "hook.off.event", "pre-commit"),
            entry(false, "hook.off.enabled", "false"),
            entry(false, "hook.cleared.event", "pre-commit"),
            entry(false, "hook.cleared.event", ""),
            entry(false, "hook.cleared.event", "post-checkout"),
            entry(false, "hook.cleared.command", "x"),
        ];
        let hooks = config_hooks(&entries);
        let shown: Vec<(&str, Vec<&str>, &str)> = hooks
            .iter()
            .map(|h| (h.name.as_str(), h.events.iter().map(String::as_str).collect(), h.command.to_str().unwrap()))
            .collect();
        assert_eq!(
            shown,
            [
                ("lint", vec!["pre-commit", "post-commit"], "make lint"),
                ("my.dotted.name", vec!["commit-msg"], "spell --check"),
                ("cleared", vec!["post-checkout"], "x"),
            ]
        );
        let settings: Vec<String> =
            Guard::from_entries(&entries).settings.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        for name in ["cleared", "lint", "my.dotted.name", "off"] {
            assert!(settings.contains(&format!("hook.{name}.enabled=false")), "{settings:?}");
        }
    }

    #[test]
    fn a_repositorys_own_programs_are_replaced_by_the_users_or_by_nothing() {
        let guard = Guard::from_entries(&[
            entry(true, "filter.lfs.process", "git-lfs filter-process"),
            entry(false, "filter.lfs.process", "evil"),
            entry(false, "filter.Evil.clean", "evil"),
            entry(false, "gpg.program", "evil"),
            entry(false, "gpg.ssh.program", "evil"),
            entry(false, "core.editor", "whatever"),
            entry(false, "filter.Evil.required", "true"),
        ]);
        let settings: Vec<String> = guard.settings.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        assert_eq!(
            settings[ALWAYS.len()..],
            [
                "filter.lfs.process=git-lfs filter-process",
                "filter.Evil.clean=",
                "gpg.program=gpg",
                "gpg.ssh.program=ssh-keygen"
            ]
        );
        assert!(settings.contains(&"core.fsmonitor=false".to_string()));
        assert_eq!(guard.ignored, ["filter.Evil.clean", "filter.lfs.process", "gpg.program", "gpg.ssh.program"]);
    }

    #[test]
    fn keys_that_name_no_program_are_left_alone() {
        for key in ["filter.x.required", "core.worktree", "gpg.format", "filterx.y.clean", "gpg.ssh.allowedsignersfile"]
        {
            assert_eq!(stand_in(key), None, "{key}");
        }
        assert_eq!(stand_in("filter.a.b.smudge"), Some(""));
    }
}
