//! The benchmark corpus: real code at pinned versions, from the package
//! registries, in `target/corpus/`.
//!
//! * `crates/` — `cargo vendor` of `xtask/corpus/Cargo.toml` with its
//!   committed `Cargo.lock` (Rust, plus the C of bundled -sys crates).
//! * `python/` — wheels of a few pure-Python projects, unpacked.
//! * `npm/` — a few npm packages (JavaScript, TypeScript), unpacked.
//! * `debian/` — Go, Java and C++ from Debian's packages (`golang-1.19-src`,
//!   the JDK's `src.zip`, `googletest`): part of the Go standard library,
//!   `java.util` and `java.io`, and GoogleTest. Built on its own, so an older
//!   corpus gains it without being rebuilt.
//! * `~/.cache/aide-bench/kernel/` (with `--kernel`, or for `cargo xtask bench
//!   index`) — the Linux kernel's source from Debian's `linux-source-6.12`: the
//!   large tree of the index benchmark. Outside the workspace, whose
//!   `.gitignore` (`target/`) would leave every file of it out of a search.

use std::path::PathBuf;
use std::process::Command;

use crate::{Result, say, workspace};

const PYTHON: &[&str] = &["django==5.1.5", "requests==2.32.3", "flask==3.1.0", "werkzeug==3.1.3"];
const NPM: &[&str] = &["typescript@5.7.3", "lodash@4.17.21", "express@4.21.2", "react@19.0.0", "rxjs@7.8.1"];

pub(crate) fn dir() -> PathBuf {
    workspace().join("target/corpus")
}

/// Builds the corpus unless it is complete already; returns its directory.
pub(crate) fn build(force: bool) -> Result<PathBuf> {
    let root = dir();
    let done = root.join(".complete");
    if done.exists() && !force {
        debian(&root)?;
        say(&format!("corpus ready at {}", root.display()));
        return Ok(root);
    }
    if root.exists() {
        std::fs::remove_dir_all(&root).map_err(|e| format!("removing old corpus: {e}"))?;
    }
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = workspace().join("xtask/corpus/Cargo.toml");
    let crates = root.join("crates");
    step(
        Command::new(&cargo)
            .args(["vendor", "--locked", "--versioned-dirs", "--manifest-path"])
            .arg(&manifest)
            .arg(&crates)
            .stdout(std::process::Stdio::null()),
    )?;

    let wheels = root.join("python-wheels");
    let python = root.join("python");
    std::fs::create_dir_all(&python).map_err(|e| e.to_string())?;
    step(
        Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:", "-d"])
            .arg(&wheels)
            .args(PYTHON),
    )?;
    for entry in std::fs::read_dir(&wheels).map_err(|e| e.to_string())? {
        let wheel = entry.map_err(|e| e.to_string())?.path();
        let name = wheel.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        step(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(&wheel).arg(python.join(name)))?;
    }
    std::fs::remove_dir_all(&wheels).map_err(|e| e.to_string())?;

    let tarballs = root.join("npm-tarballs");
    let npm = root.join("npm");
    std::fs::create_dir_all(&tarballs).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&npm).map_err(|e| e.to_string())?;
    step(Command::new("npm").args(["pack", "--silent", "--pack-destination"]).arg(&tarballs).args(NPM))?;
    for entry in std::fs::read_dir(&tarballs).map_err(|e| e.to_string())? {
        let tgz = entry.map_err(|e| e.to_string())?.path();
        let name = tgz.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let dest = npm.join(name);
        std::fs::create_dir_all(&dest).map_err(|e| e.to_string())?;
        step(Command::new("tar").arg("xzf").arg(&tgz).arg("-C").arg(&dest))?;
    }
    std::fs::remove_dir_all(&tarballs).map_err(|e| e.to_string())?;

    std::fs::write(&done, "").map_err(|e| e.to_string())?;
    debian(&root)?;
    say(&format!("corpus built at {}", root.display()));
    Ok(root)
}

const KERNEL_TARBALL: &str = "/usr/src/linux-source-6.12.tar.xz";

/// The kernel's source tree, unpacked from Debian's `linux-source-6.12`
/// into `$XDG_CACHE_HOME/aide-bench/kernel/` (`~/.cache` without it) on
/// first use (the package installed first when this runs as root).
pub(crate) fn kernel() -> Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set")?;
    let dir = cache.join("aide-bench/kernel");
    let tree = dir.join("linux-source-6.12");
    if dir.join(".complete").exists() {
        return Ok(tree);
    }
    if !std::path::Path::new(KERNEL_TARBALL).exists() {
        if !is_root() {
            return Err(format!("{KERNEL_TARBALL} is missing: apt-get install linux-source-6.12"));
        }
        step(Command::new("apt-get").args(["install", "-y", "-q", "linux-source-6.12"]))?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    step(Command::new("tar").arg("xJf").arg(KERNEL_TARBALL).arg("-C").arg(&dir))?;
    std::fs::write(dir.join(".complete"), "").map_err(|e| e.to_string())?;
    say(&format!("kernel tree at {}", tree.display()));
    Ok(tree)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Go standard library packages copied into the corpus.
const GO_PACKAGES: &[&str] = &["net/http", "go", "encoding", "fmt", "strings", "sort", "bufio", "text"];
const GO_SRC: &str = "/usr/share/go-1.19/src";
const JDK_SRC: &str = "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip";
const GOOGLETEST: &str = "/usr/src/googletest";

/// Adds `debian/` (Go, Java, C++ sources from Debian's packages) if missing.
fn debian(root: &std::path::Path) -> Result<()> {
    let dir = root.join("debian");
    let done = dir.join(".complete");
    if done.exists() {
        return Ok(());
    }
    for (path, package) in [(GO_SRC, "golang-1.19-src"), (JDK_SRC, "openjdk-17-source"), (GOOGLETEST, "googletest")] {
        if !std::path::Path::new(path).exists() {
            return Err(format!("{path} is missing: apt-get install {package}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let go = dir.join("go");
    for pkg in GO_PACKAGES {
        let dest = go.join(pkg);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        step(Command::new("cp").arg("-r").arg(format!("{GO_SRC}/{pkg}")).arg(&dest))?;
    }
    let java = dir.join("java");
    std::fs::create_dir_all(&java).map_err(|e| e.to_string())?;
    step(
        Command::new("unzip")
            .args(["-q", "-o", JDK_SRC, "java.base/java/util/*", "java.base/java/io/*", "-d"])
            .arg(&java),
    )?;
    step(Command::new("cp").arg("-r").arg(GOOGLETEST).arg(dir.join("googletest")))?;
    std::fs::write(&done, "").map_err(|e| e.to_string())
}

fn step(cmd: &mut Command) -> Result<()> {
    say(&format!("$ {cmd:?}"));
    let status = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed: {status}")) }
}
