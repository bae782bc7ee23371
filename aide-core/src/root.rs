//! Root confinement.
//!
//! Every path a user gives is resolved against the root (`--root`, default the
//! current directory). A path that leads outside the root — through `..`,
//! through a symlink, or by being absolute — is refused with
//! `path_outside_root`, as is a path with a NUL byte. Paths in output are
//! relative to the root with `/` separators.

use std::path::{Component, Path, PathBuf};

use crate::error::{AideError, code};

/// A canonical root directory.
#[derive(Debug, Clone)]
pub struct Root {
    canonical: PathBuf,
}

impl Root {
    /// Opens `dir` as the root. It must exist and be a directory.
    pub fn new(dir: &Path) -> Result<Root, AideError> {
        let shown = dir.display().to_string();
        if shown.contains('\0') {
            return Err(outside(&shown, "the root contains a NUL byte"));
        }
        let canonical = dir
            .canonicalize()
            .map_err(|e| AideError::io(&shown, &e).with_hint("--root must name an existing directory"))?;
        if !canonical.is_dir() {
            return Err(AideError::new(code::INVALID_ARGUMENTS, format!("root {shown} is not a directory"))
                .with_hint("--root must name a directory"));
        }
        Ok(Root { canonical })
    }

    /// Opens `dir` if given, else the current directory.
    pub fn from_option(dir: Option<&Path>) -> Result<Root, AideError> {
        match dir {
            Some(d) => Root::new(d),
            None => Root::new(Path::new(".")),
        }
    }

    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// Resolves a user-given path to an absolute path inside the root. The
    /// path need not exist (writing tools create files), but every part that
    /// exists is resolved through symlinks and must stay inside the root.
    pub fn resolve(&self, user_path: &str) -> Result<PathBuf, AideError> {
        if user_path.contains('\0') {
            return Err(outside(user_path, "the path contains a NUL byte"));
        }
        if user_path.is_empty() {
            return Err(
                AideError::new(code::INVALID_ARGUMENTS, "empty path").with_hint("give a path relative to --root")
            );
        }
        let given = Path::new(user_path);
        let joined = if given.is_absolute() { given.to_path_buf() } else { self.canonical.join(given) };
        // Lexical normalisation first, so `a/../../x` is refused even when `a`
        // does not exist.
        let mut normal = PathBuf::new();
        for comp in joined.components() {
            match comp {
                Component::ParentDir => {
                    if !normal.pop() {
                        return Err(outside(user_path, "the path climbs above the filesystem root"));
                    }
                }
                Component::CurDir => {}
                other => normal.push(other.as_os_str()),
            }
        }
        if !normal.starts_with(&self.canonical) {
            return Err(outside(user_path, "the path leads outside the root"));
        }
        // Resolve symlinks on the longest existing prefix.
        let mut existing = normal.clone();
        let mut rest = Vec::new();
        loop {
            match existing.symlink_metadata() {
                Ok(_) => break,
                Err(_) => match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        rest.push(name);
                        existing = parent.to_path_buf();
                    }
                    _ => break,
                },
            }
        }
        let mut resolved = match existing.canonicalize() {
            Ok(c) => c,
            // A dangling symlink: refuse rather than guess where it leads.
            Err(e) if existing.symlink_metadata().is_ok() => {
                return Err(AideError::io(user_path, &e)
                    .with_hint("the path is a broken symlink; point it at a file inside the root"));
            }
            Err(e) => return Err(AideError::io(user_path, &e)),
        };
        if !resolved.starts_with(&self.canonical) {
            return Err(outside(user_path, "the path resolves through a symlink to outside the root"));
        }
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }

    /// The `/`-separated path of `abs` relative to the root, or None if it
    /// is not inside the root. The root itself is `.`.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.canonical).ok()?;
        Some(to_slash(rel))
    }
}

/// A relative path with `/` separators; the empty path is `.`.
pub fn to_slash(rel: &Path) -> String {
    let mut out = String::new();
    for comp in rel.components() {
        if let Component::Normal(s) = comp {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&s.to_string_lossy());
        }
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

fn outside(user_path: &str, why: &str) -> AideError {
    AideError::new(code::PATH_OUTSIDE_ROOT, format!("{user_path}: {why}"))
        .with_hint("give a path inside --root, or pass a --root that contains it")
        .with_details(serde_json::json!({ "path": user_path }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/src")).unwrap();
        std::fs::write(dir.path().join("root/src/a.rs"), "x").unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        let root = Root::new(&dir.path().join("root")).unwrap();
        (dir, root)
    }

    #[test]
    fn resolves_inside_paths() {
        let (_d, root) = setup();
        let p = root.resolve("src/a.rs").unwrap();
        assert_eq!(root.relative(&p).unwrap(), "src/a.rs");
        let p = root.resolve("src/../src/./a.rs").unwrap();
        assert_eq!(root.relative(&p).unwrap(), "src/a.rs");
        // Not existing yet is fine for writers.
        let p = root.resolve("new/dir/b.rs").unwrap();
        assert_eq!(root.relative(&p).unwrap(), "new/dir/b.rs");
        assert_eq!(root.relative(root.path()).unwrap(), ".");
    }

    #[test]
    fn refuses_escapes() {
        let (dir, root) = setup();
        for bad in ["../secret", "src/../../secret", "a\0b", "/etc/passwd", "nope/../../x"] {
            let e = root.resolve(bad).unwrap_err();
            assert_eq!(e.code, code::PATH_OUTSIDE_ROOT, "{bad}");
        }
        let abs_inside = dir.path().join("root/src/a.rs");
        assert!(root.resolve(abs_inside.to_str().unwrap()).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_that_leave_the_root() {
        let (dir, root) = setup();
        std::os::unix::fs::symlink(dir.path().join("secret"), dir.path().join("root/link")).unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("root/up")).unwrap();
        assert_eq!(root.resolve("link").unwrap_err().code, code::PATH_OUTSIDE_ROOT);
        assert_eq!(root.resolve("up/secret").unwrap_err().code, code::PATH_OUTSIDE_ROOT);
        assert_eq!(root.resolve("up/new-file").unwrap_err().code, code::PATH_OUTSIDE_ROOT);
        std::os::unix::fs::symlink("src/a.rs", dir.path().join("root/inner")).unwrap();
        assert_eq!(root.relative(&root.resolve("inner").unwrap()).unwrap(), "src/a.rs");
    }
}
