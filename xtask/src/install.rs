//! `cargo xtask install`: every aide binary with `cargo install --locked
//! --path`, then each binary's shell completions and man page (from its own
//! `--generate`) where the shells and `man` look:
//!
//! * man pages in `<root>/share/man/man1/` — `man` searches `../share/man`
//!   of every directory on `PATH`, so `~/.cargo/bin` finds `~/.cargo/share/man`;
//! * bash in `$XDG_DATA_HOME/bash-completion/completions/` (bash-completion's
//!   per-user directory, loaded on demand);
//! * fish in `$XDG_CONFIG_HOME/fish/completions/`;
//! * zsh in `$XDG_DATA_HOME/zsh/site-functions/`, which the summary says to
//!   add to `fpath` (zsh has no per-user directory of its own).
//!
//! PowerShell has no such directory; the README gives its one line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Result, say, workspace};

/// The packages to install, each with the binary of the same name: the
/// tools of aide's one list.
fn tool_binaries() -> impl Iterator<Item = &'static str> {
    aide::TOOLS.iter().map(|t| t.name)
}

/// Where the extras go, from the environment of the user installing.
#[derive(Debug)]
pub(crate) struct Places {
    pub man: PathBuf,
    pub bash: PathBuf,
    pub fish: PathBuf,
    pub zsh: PathBuf,
}

impl Places {
    /// The places for an install root (`<root>/bin` holds the binaries).
    pub(crate) fn for_root(root: &Path) -> Result<Places> {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let xdg = |var: &str, fallback: &str| -> Result<PathBuf> {
            match std::env::var_os(var).filter(|v| !v.is_empty()) {
                Some(v) => Ok(PathBuf::from(v)),
                None => home
                    .as_ref()
                    .map(|h| h.join(fallback))
                    .ok_or_else(|| format!("neither ${var} nor $HOME is set: nowhere to put completions")),
            }
        };
        let data = xdg("XDG_DATA_HOME", ".local/share")?;
        let config = xdg("XDG_CONFIG_HOME", ".config")?;
        Ok(Places {
            man: root.join("share/man/man1"),
            bash: data.join("bash-completion/completions"),
            fish: config.join("fish/completions"),
            zsh: data.join("zsh/site-functions"),
        })
    }
}

/// The install root `cargo install` uses: `--root`, `$CARGO_INSTALL_ROOT`,
/// `$CARGO_HOME` or `~/.cargo`.
fn default_root() -> Result<PathBuf> {
    for var in ["CARGO_INSTALL_ROOT", "CARGO_HOME"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(v));
        }
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cargo"))
        .ok_or_else(|| "set --root: neither $CARGO_INSTALL_ROOT, $CARGO_HOME nor $HOME is set".to_string())
}

/// Runs the install. `binaries`: take the binaries already built there
/// instead of running `cargo install` (only the extras are placed).
pub(crate) fn run(root: Option<PathBuf>, binaries: Option<PathBuf>) -> Result<()> {
    let root = match root {
        Some(r) => r,
        None => default_root()?,
    };
    let bin_dir = match binaries {
        Some(dir) => dir,
        None => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            for package in tool_binaries() {
                let path = workspace().join(package);
                let path = path.to_string_lossy();
                let root = root.to_string_lossy();
                crate::run(&cargo, &["install", "--locked", "--path", &path, "--root", &root])?;
            }
            root.join("bin")
        }
    };
    let places = Places::for_root(&root)?;
    let written = place_extras(&bin_dir, &places)?;
    say(&format!(
        "installed {} binaries in {}, {} completion scripts and man pages",
        aide::TOOLS.len(),
        bin_dir.display(),
        written.len()
    ));
    say(&format!("  man pages:        {}", places.man.display()));
    say(&format!("  bash completions: {}", places.bash.display()));
    say(&format!("  fish completions: {}", places.fish.display()));
    say(&format!(
        "  zsh completions:  {} (add `fpath=({} $fpath)` before compinit in ~/.zshrc)",
        places.zsh.display(),
        places.zsh.display()
    ));
    say(
        "  PowerShell:       add `llm-search --generate complete-powershell | Out-String | Invoke-Expression` (one per tool) to $PROFILE",
    );
    if !std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d == root.join("bin"))) {
        say(&format!("note: {} is not on PATH", root.join("bin").display()));
    }
    Ok(())
}

/// Writes every binary's completion scripts and man page; returns the files.
pub(crate) fn place_extras(bin_dir: &Path, places: &Places) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for bin in tool_binaries() {
        let exe = bin_dir.join(bin);
        let targets = [
            ("man", places.man.join(format!("{bin}.1"))),
            ("complete-bash", places.bash.join(bin)),
            ("complete-fish", places.fish.join(format!("{bin}.fish"))),
            ("complete-zsh", places.zsh.join(format!("_{bin}"))),
        ];
        for (kind, target) in targets {
            let out = Command::new(&exe)
                .args(["--generate", kind])
                .output()
                .map_err(|e| format!("running {} --generate {kind}: {e}", exe.display()))?;
            if !out.status.success() || out.stdout.is_empty() {
                return Err(format!(
                    "{} --generate {kind} failed ({}): {}",
                    exe.display(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            write_file(&target, &out.stdout)?;
            written.push(target);
        }
    }
    Ok(written)
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a
/// shell never loads half a script.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().ok_or_else(|| format!("{} has no folder", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let tmp = path.with_extension("aide-tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("writing {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("writing {}: {e}", path.display()))
}
