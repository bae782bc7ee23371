//! The mounts of a file sandbox, made in its own mount namespace (so the
//! host sees none of them): what an unconfined run later trusts mounted
//! read-only where a writable path reaches it, the tool's own folders
//! writable again inside those, and a private temporary directory.
//!
//! Landlock cannot take a folder back out of a writable one; a read-only
//! bind mount can (bubblewrap's `--ro-bind`): the path bound onto itself,
//! then remounted `MS_RDONLY`. Under Landlock no mount can be undone.
//! Every path is opened without following a symbolic link and mounted
//! through its descriptor, so a link put in its place meanwhile leads
//! nowhere.

use std::path::{Path, PathBuf};

use super::sys::{mount as sys_mount, open, via};
use super::{PROTECTED_NAMES, Sandbox};

/// How the mounts went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Mounts {
    Made,
    /// Not made, and why: this process runs inside a sandbox (or under a
    /// policy) that refuses mounts, or one of them failed; whatever was
    /// mounted is undone, and Landlock's rules alone enforce the sandbox.
    Refused(String),
}

/// Makes the mounts of `sandbox` (this process has a mount namespace of
/// its own), all or none.
pub(super) fn mount(sandbox: &Sandbox) -> Mounts {
    // Nothing mounted here propagates to the host's namespace.
    if let Err(e) = sys_mount(None, "/", None, libc::MS_REC | libc::MS_SLAVE, None) {
        return Mounts::Refused(format!("the mounts cannot be made private: {e}"));
    }
    let mut made = Vec::new();
    match mount_all(sandbox, &mut made) {
        Ok(()) => Mounts::Made,
        Err(why) => {
            // Innermost first; each was made in this namespace, so it is this namespace's to undo.
            for target in made.iter().rev() {
                let _ = super::sys::unmount(target);
            }
            Mounts::Refused(why)
        }
    }
}

/// The bind mounts, the hidden folders, then the private temporary
/// directory; each target mounted is added to `made`.
fn mount_all(sandbox: &Sandbox, made: &mut Vec<PathBuf>) -> Result<(), String> {
    for layer in layers(sandbox) {
        bind(&layer.path, layer.read_only, made)
            .map_err(|e| format!("{} cannot be mounted {}: {e}", layer.path.display(), layer.mode()))?;
    }
    for hidden in &sandbox.hidden {
        let at = open(hidden).map_err(|e| format!("{}: {e}", hidden.display()))?;
        // Empty and read-only: nothing in it to open, lock or write.
        let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        sys_mount(Some("tmpfs"), &via(&at), Some("tmpfs"), flags, Some("mode=0500,size=4k"))
            .map_err(|e| format!("{} cannot be hidden: {e}", hidden.display()))?;
        made.push(hidden.clone());
    }
    if let Some(temp) = &sandbox.temp {
        let at = open(temp).map_err(|e| format!("{}: {e}", temp.display()))?;
        sys_mount(Some("tmpfs"), &via(&at), Some("tmpfs"), libc::MS_NOSUID | libc::MS_NODEV, Some("mode=0700"))
            .map_err(|e| format!("no private temporary directory at {}: {e}", temp.display()))?;
        made.push(temp.clone());
    }
    Ok(())
}

/// The paths `sandbox` keeps read-only where a writable path reaches them
/// (what its read-only mounts are, where mounts can be made).
pub(super) fn read_only_paths(sandbox: &Sandbox) -> Vec<PathBuf> {
    layers(sandbox).into_iter().filter(|l| l.read_only).map(|l| l.path).collect()
}

/// One bind mount: a path onto itself, read-only or writable.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layer {
    path: PathBuf,
    read_only: bool,
}

impl Layer {
    fn mode(&self) -> &'static str {
        if self.read_only { "read-only" } else { "writable" }
    }
}

/// The bind mounts, outermost first: each protected path a writable one
/// reaches (lies beneath it, or holds it) read-only, and each of the
/// tool's own folders inside one of those writable again.
fn layers(sandbox: &Sandbox) -> Vec<Layer> {
    let mut protected: Vec<PathBuf> = sandbox.protected.clone();
    for writable in &sandbox.writable {
        for name in PROTECTED_NAMES {
            let path = writable.join(name);
            match std::fs::symlink_metadata(&path) {
                // A link is protected where it leads (the link itself is an entry of the writable folder).
                Ok(m) if m.file_type().is_symlink() => protected.extend(path.canonicalize()),
                Ok(_) => protected.push(path),
                Err(_) => {}
            }
        }
    }
    let reach: Vec<&PathBuf> = sandbox.writable.iter().chain(&sandbox.own).collect();
    protected.retain(|p| p.exists() && reach.iter().any(|r| p.starts_with(r) || r.starts_with(p)));
    let mut layers: Vec<Layer> = protected.iter().map(|p| Layer { path: p.clone(), read_only: true }).collect();
    for own in &sandbox.own {
        if protected.iter().any(|p| own.starts_with(p) && own != p) {
            layers.push(Layer { path: own.clone(), read_only: false });
        }
    }
    layers.sort_by_key(|l| (l.path.components().count(), !l.read_only, l.path.clone()));
    layers.dedup();
    layers
}

/// Bind-mounts `path` onto itself (added to `made`), then makes that
/// mount read-only or writable, keeping the flags the outer namespace
/// locked on it (`nosuid`, `nodev`, `noexec`, its atime rule).
fn bind(path: &Path, read_only: bool, made: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let at = open(path)?;
    sys_mount(Some(&via(&at)), &via(&at), None, libc::MS_BIND, None)?;
    made.push(path.to_path_buf());
    // Opened again, the path now ends at the new mount.
    let top = open(path)?;
    let kept = rustix::fs::fstatvfs(&top)?.f_flag.bits();
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT;
    for (st, ms) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if kept & st != 0 {
            flags |= ms;
        }
    }
    if read_only {
        flags |= libc::MS_RDONLY;
    }
    sys_mount(None, &via(&top), None, flags, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_are_bound_where_a_writable_path_reaches_them_and_own_folders_inside_writable_again() {
        let dir = aide_core::fsutil::TempDir::new("aide-layers").unwrap();
        let root = dir.path().join("root");
        let home = root.join("state");
        let elsewhere = dir.path().join("elsewhere");
        for d in [root.join(".git/hooks"), home.join("shell/sessions/s/io"), elsewhere.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("aide.toml"), "").unwrap();
        let sandbox = Sandbox {
            writable: vec![root.clone()],
            own: vec![home.join("shell/sessions/s/io")],
            protected: vec![home.clone(), elsewhere],
            ..Sandbox::default()
        };
        let shown: Vec<(String, bool)> = layers(&sandbox)
            .into_iter()
            .map(|l| (l.path.strip_prefix(&root).unwrap().display().to_string(), l.read_only))
            .collect();
        let expected = [(".git", true), ("aide.toml", true), ("state", true), ("state/shell/sessions/s/io", false)];
        assert_eq!(shown, expected.map(|(p, ro)| (p.to_string(), ro)), "no layer for what no writable path reaches");
    }
}
