//! Root confinement.
//!
//! Every path a user gives is resolved against the root (`--root`, default the
//! current directory). A path that leads outside the root — through `..`,
//! through a symlink, or by being absolute — is refused with
//! `path_outside_root`, as is a path with a NUL byte. Paths in output are
//! relative to the root with `/` separators.
//!
//! Checking a path and then opening it by name is a race: a directory
//! swapped for a symlink in between leads the open outside. So every open,
//! create, rename and delete goes through a descriptor of the root held
//! from the start, with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`
//! (and `RESOLVE_NO_SYMLINKS` on paths already resolved, where a symlink
//! can only be a swap): the kernel refuses any step that leaves the root,
//! atomically. Where `openat2` is missing (Linux < 5.6, some sandboxes) the
//! same is done by walking each component with `O_NOFOLLOW` from the root's
//! descriptor.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use crate::error::{AideError, RootError, code};

/// A canonical root directory, and a descriptor of it that every open
/// beneath it starts from.
#[derive(Debug, Clone)]
pub struct Root {
    canonical: PathBuf,
    dir: Arc<OwnedFd>,
}

/// Why a file beneath the root could not be opened.
#[derive(Debug)]
pub enum OpenFailure {
    /// The path leads (or, mid-open, came to lead) outside the root.
    Outside(&'static str),
    /// A directory where a file was meant.
    Directory,
    /// A FIFO, socket or device: never read (it could block forever).
    NotRegular(&'static str),
    Io(std::io::Error),
}

impl OpenFailure {
    /// A symlink appeared on a path already resolved: a swap, refused.
    pub const SWAPPED: OpenFailure = OpenFailure::Outside("a symlink on the path changed while it was opened");

    /// `Ok` for a regular file's mode; the failure a directory, FIFO,
    /// socket or device gets otherwise.
    pub fn check_regular(mode: u32) -> Result<(), OpenFailure> {
        match special_kind(mode) {
            None => Ok(()),
            Some("directory") => Err(OpenFailure::Directory),
            Some(kind) => Err(OpenFailure::NotRegular(kind)),
        }
    }

    /// The error a named path gets.
    pub fn into_error(self, shown: &str) -> AideError {
        match self {
            OpenFailure::Outside(why) => outside(shown, why),
            OpenFailure::Directory => RootError::Directory { path: shown.to_string() }.into(),
            OpenFailure::NotRegular(kind) => RootError::NotRegular { path: shown.to_string(), kind }.into(),
            OpenFailure::Io(e) => AideError::io(shown, &e),
        }
    }

    /// The diagnostic a file met in a walk gets.
    pub fn into_diagnostic(self, rel: &str) -> crate::Diagnostic {
        use crate::envelope::diag;
        let (code, message) = match self {
            OpenFailure::Outside(why) => (diag::OUTSIDE_ROOT, why.to_string()),
            OpenFailure::Directory => (diag::NOT_A_REGULAR_FILE, "a directory, skipped".to_string()),
            OpenFailure::NotRegular(kind) => (diag::NOT_A_REGULAR_FILE, format!("a {kind}, skipped")),
            OpenFailure::Io(e) => (diag::UNREADABLE, e.to_string()),
        };
        crate::Diagnostic::new(code, message).with_path(rel)
    }
}

impl From<Errno> for OpenFailure {
    fn from(e: Errno) -> Self {
        OpenFailure::Io(e.into())
    }
}

/// The kind of a file that is not regular, by its mode.
pub fn special_kind(mode: u32) -> Option<&'static str> {
    match rustix::fs::FileType::from_raw_mode(mode) {
        rustix::fs::FileType::RegularFile => None,
        rustix::fs::FileType::Directory => Some("directory"),
        rustix::fs::FileType::Fifo => Some("fifo"),
        rustix::fs::FileType::Socket => Some("socket"),
        rustix::fs::FileType::CharacterDevice => Some("character device"),
        rustix::fs::FileType::BlockDevice => Some("block device"),
        rustix::fs::FileType::Symlink => Some("symlink"),
        rustix::fs::FileType::Unknown => Some("special file"),
    }
}

/// Whether `openat2` works here: 0 unknown, 1 yes, 2 no (use the fallback).
static OPENAT2: AtomicU8 = AtomicU8::new(0);

/// Opens `rel` (relative, no `..`) beneath `dir`: `openat2` with
/// `RESOLVE_BENEATH`, or a component walk where that is missing.
/// `follow`: symlinks that stay beneath are followed; otherwise any symlink
/// on the way fails with ELOOP.
fn open_beneath(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode, follow: bool) -> Result<OwnedFd, Errno> {
    let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
    // openat2 refuses O_PATH with any flag but O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC.
    let flags =
        if flags.contains(OFlags::PATH) { flags | OFlags::CLOEXEC } else { flags | OFlags::CLOEXEC | OFlags::NOCTTY };
    // AIDE_NO_OPENAT2 forces the fallback (to test it, or for a sandbox
    // whose openat2 misbehaves).
    if OPENAT2.load(Ordering::Relaxed) == 0 && std::env::var_os("AIDE_NO_OPENAT2").is_some() {
        OPENAT2.store(2, Ordering::Relaxed);
    }
    if OPENAT2.load(Ordering::Relaxed) != 2 {
        let mut resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        if !follow {
            resolve |= ResolveFlags::NO_SYMLINKS;
        }
        // EAGAIN: the kernel saw a concurrent rename that could have let `..`
        // escape, and asks for a retry.
        for _ in 0..16 {
            match rustix::fs::openat2(dir, rel, flags, mode, resolve) {
                Err(Errno::AGAIN) => continue,
                // ENOSYS: before Linux 5.6. EPERM on a first call: a seccomp
                // sandbox that refuses the syscall (an EPERM once openat2 has
                // worked is the file's own).
                Err(Errno::NOSYS) => {
                    OPENAT2.store(2, Ordering::Relaxed);
                    break;
                }
                Err(Errno::PERM) if OPENAT2.load(Ordering::Relaxed) == 0 => {
                    OPENAT2.store(2, Ordering::Relaxed);
                    break;
                }
                other => {
                    OPENAT2.store(1, Ordering::Relaxed);
                    return other;
                }
            }
        }
        if OPENAT2.load(Ordering::Relaxed) != 2 {
            return Err(Errno::AGAIN);
        }
    }
    // The fallback never follows a symlink: callers resolve paths first.
    open_nofollow_walk(dir, rel, flags, mode)
}

/// Opens `rel` from `dir` one component at a time, each with `O_NOFOLLOW`.
fn open_nofollow_walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    let parts: Vec<&OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(Ok(s)),
            Component::CurDir => None,
            _ => Some(Err(Errno::XDEV)),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, folders)) = parts.split_last() else {
        return rustix::fs::openat(dir, ".", flags, mode);
    };
    let mut current: Option<OwnedFd> = None;
    for part in folders {
        let from = current.as_ref().map_or(dir, |d| d.as_fd());
        let next = rustix::fs::openat(
            from,
            *part,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        current = Some(next);
    }
    let from = current.as_ref().map_or(dir, |d| d.as_fd());
    rustix::fs::openat(from, *last, flags | OFlags::NOFOLLOW, mode)
}

/// `path` without `.` and `..`, by its letters alone (`/a/./b/../c` is
/// `/a/c`); None when a `..` would climb above its start.
pub fn lexically_normal(path: &Path) -> Option<PathBuf> {
    let mut normal = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                if !normal.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => normal.push(other.as_os_str()),
        }
    }
    Some(normal)
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
            return Err(RootError::RootNotADirectory { shown }.into());
        }
        let dir = rustix::fs::open(&canonical, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| AideError::io(&shown, &e.into()))?;
        Ok(Root { canonical, dir: Arc::new(dir) })
    }

    /// The folder `abs` (inside this root, resolved) as a root of its own,
    /// opened beneath this one: a swap since it was resolved cannot make it
    /// an outside folder.
    pub fn subdir(&self, abs: &Path) -> Result<Root, AideError> {
        let shown = abs.display().to_string();
        let rel = abs.strip_prefix(&self.canonical).map_err(|_| outside(&shown, "the path leads outside the root"))?;
        let dir = open_beneath(self.dir.as_fd(), rel, OFlags::PATH | OFlags::DIRECTORY, Mode::empty(), false).map_err(
            |e| match e {
                Errno::XDEV | Errno::LOOP => OpenFailure::SWAPPED.into_error(&shown),
                e => AideError::io(&shown, &e.into()),
            },
        )?;
        Ok(Root { canonical: abs.to_path_buf(), dir: Arc::new(dir) })
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
        if let Some(raw) = self.unescaped(user_path) {
            return self.resolve_path(&raw, user_path);
        }
        self.resolve_path(Path::new(user_path), user_path)
    }

    /// The name a path shown escaped (see [`to_slash`]) stands for. The
    /// escaped form is the name's one spelling: `x\xff.rs` is the name with
    /// byte 0xFF, whether or not a file is literally called `x\xff.rs`
    /// (that one is `x\\xff.rs`). A backslash that starts no escape is
    /// itself (`a\q`).
    pub fn unescaped(&self, user_path: &str) -> Option<PathBuf> {
        crate::text::unescape_path(user_path).map(PathBuf::from)
    }

    fn resolve_path(&self, given: &Path, user_path: &str) -> Result<PathBuf, AideError> {
        if given.as_os_str().as_encoded_bytes().contains(&0) {
            return Err(outside(user_path, "the path contains a NUL byte"));
        }
        if user_path.is_empty() {
            return Err(RootError::EmptyPath.into());
        }
        let joined = if given.is_absolute() { given.to_path_buf() } else { self.canonical.join(given) };
        // Lexical normalisation first, so `a/../../x` is refused even when `a`
        // does not exist.
        let normal =
            lexically_normal(&joined).ok_or_else(|| outside(user_path, "the path climbs above the filesystem root"))?;
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

    /// `path` (relative to the root, or absolute inside it) as a relative
    /// path without `.` or `..`, by its letters alone; None if the letters
    /// leave the root (or it is absolute elsewhere: it may still lead inside
    /// through a symlink, which [`Root::resolve`] decides).
    pub fn lexical(&self, path: &Path) -> Option<PathBuf> {
        let rel = if path.is_absolute() { path.strip_prefix(&self.canonical).ok()? } else { path };
        let mut out = PathBuf::new();
        for comp in rel.components() {
            match comp {
                Component::Normal(s) => out.push(s),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return None;
                    }
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(out)
    }

    /// Opens a file for reading, race-free beneath the root: a symlink (or a
    /// directory swapped for one mid-open) that leads outside fails with
    /// [`OpenFailure::Outside`], never opens the outside file. FIFOs,
    /// sockets and devices are opened without blocking and refused.
    pub fn open_file(&self, path: &Path) -> Result<File, OpenFailure> {
        self.open_file_with_stat(path).map(|(file, _)| file)
    }

    /// The whole content of a file of the root, opened as [`Root::open_file`]
    /// opens it (beneath the root, never a FIFO or device).
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, OpenFailure> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut self.open_file(path)?, &mut bytes).map_err(OpenFailure::Io)?;
        Ok(bytes)
    }

    /// As [`Root::open_file`], with the `fstat` of the file opened.
    pub fn open_file_with_stat(&self, path: &Path) -> Result<(File, rustix::fs::Stat), OpenFailure> {
        let flags = OFlags::RDONLY | OFlags::NONBLOCK;
        let fd = match self.lexical(path) {
            Some(rel) => match open_beneath(self.dir.as_fd(), &rel, flags, Mode::empty(), true) {
                // Leaves the root, or through an absolute symlink (which
                // RESOLVE_BENEATH refuses even when it points inside).
                Err(Errno::XDEV | Errno::LOOP) => self.open_resolved(path, flags)?,
                // The fallback does not follow symlinks: resolve first.
                Err(Errno::NOTDIR) if OPENAT2.load(Ordering::Relaxed) == 2 => self.open_resolved(path, flags)?,
                other => other?,
            },
            None => self.open_resolved(path, flags)?,
        };
        // O_NONBLOCK kept FIFOs from blocking the open; regular files ignore it.
        let stat = rustix::fs::fstat(&fd)?;
        OpenFailure::check_regular(stat.st_mode)?;
        Ok((File::from(fd), stat))
    }

    /// Resolves `path` through its symlinks, then opens the resolved path
    /// with no symlink allowed on the way: one appearing now is a swap.
    fn open_resolved(&self, path: &Path, flags: OFlags) -> Result<OwnedFd, OpenFailure> {
        // The path itself, not its lossy text: a name that is not UTF-8 must resolve too.
        let abs = self.resolve_path(path, &path.to_string_lossy()).map_err(|e| match e.code {
            c if c == code::PATH_OUTSIDE_ROOT => OpenFailure::Outside("the path leads outside the root"),
            _ => OpenFailure::Io(std::io::Error::new(std::io::ErrorKind::NotFound, String::from(e.message))),
        })?;
        let rel =
            abs.strip_prefix(&self.canonical).map_err(|_| OpenFailure::Outside("the path leads outside the root"))?;
        match open_beneath(self.dir.as_fd(), rel, flags, Mode::empty(), false) {
            Err(Errno::XDEV | Errno::LOOP) => Err(OpenFailure::SWAPPED),
            other => Ok(other?),
        }
    }

    /// Opens the directory `rel_dir` (relative, already resolved, so with no
    /// symlink on it) for `*at` calls, creating missing folders when
    /// `create` is set. A symlink met on the way is a swap: `Outside`.
    pub fn open_dir(&self, rel_dir: &Path, create: bool) -> Result<OwnedFd, OpenFailure> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY;
        match open_beneath(self.dir.as_fd(), rel_dir, flags, Mode::empty(), false) {
            Ok(fd) => return Ok(fd),
            Err(Errno::XDEV | Errno::LOOP) => {
                return Err(OpenFailure::SWAPPED);
            }
            Err(Errno::NOENT) if create => {}
            Err(Errno::NOTDIR) => return Err(OpenFailure::NotRegular("path through a file")),
            Err(e) => return Err(e.into()),
        }
        let mut current = rustix::fs::openat(self.dir.as_fd(), ".", flags | OFlags::CLOEXEC, Mode::empty())?;
        for comp in rel_dir.components() {
            let Component::Normal(part) = comp else {
                return Err(OpenFailure::Outside("the path leads outside the root"));
            };
            match rustix::fs::mkdirat(&current, part, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            current =
                match rustix::fs::openat(&current, part, flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()) {
                    Ok(fd) => fd,
                    Err(Errno::LOOP | Errno::NOTDIR) => {
                        return Err(OpenFailure::SWAPPED);
                    }
                    Err(e) => return Err(e.into()),
                };
        }
        Ok(current)
    }

    /// The `/`-separated path of `abs` relative to the root, or None if it
    /// is not inside the root. The root itself is `.`.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.canonical).ok()?;
        Some(to_slash(rel))
    }
}

/// A relative path with `/` separators; the empty path is `.`. A name that
/// is not valid UTF-8 is shown escaped ([`crate::text::escape_path`]), so it
/// stays addressable: every tool accepts that form back.
pub fn to_slash(rel: &Path) -> String {
    let mut out = String::new();
    for comp in rel.components() {
        if let Component::Normal(s) = comp {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&crate::text::escape_path(s, false));
        }
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

fn outside(user_path: &str, why: &str) -> AideError {
    RootError::Outside { path: user_path.to_string(), why: why.to_string() }.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_by_their_letters() {
        assert_eq!(lexically_normal(Path::new("/a/./b/../c")), Some(PathBuf::from("/a/c")));
        assert_eq!(lexically_normal(Path::new("a/b/../../c")), Some(PathBuf::from("c")));
        assert_eq!(lexically_normal(Path::new("/a/../../etc")), None);
    }

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

    #[test]
    fn opens_beneath_the_root_only() {
        let (dir, root) = setup();
        std::os::unix::fs::symlink(dir.path().join("secret"), dir.path().join("root/abs-out")).unwrap();
        std::os::unix::fs::symlink("../secret", dir.path().join("root/rel-out")).unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("root/up")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("root/src/a.rs"), dir.path().join("root/abs-in")).unwrap();
        std::os::unix::fs::symlink("src/a.rs", dir.path().join("root/rel-in")).unwrap();
        let read = |p: &str| root.open_file(Path::new(p)).map(|f| std::io::read_to_string(f).unwrap());
        for inside in ["src/a.rs", "rel-in", "abs-in", "./src/../src/a.rs"] {
            assert_eq!(read(inside).unwrap(), "x", "{inside}");
        }
        assert_eq!(read(dir.path().join("root/src/a.rs").to_str().unwrap()).unwrap(), "x");
        for escape in ["abs-out", "rel-out", "up/secret", "../secret", "/etc/passwd"] {
            assert!(matches!(read(escape), Err(OpenFailure::Outside(_))), "{escape}: {:?}", read(escape));
        }
        assert!(matches!(read("src"), Err(OpenFailure::Directory)));
        assert!(matches!(read("missing"), Err(OpenFailure::Io(_))));
        // A FIFO is refused at once, not waited on.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join("root/pipe"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(read("pipe"), Err(OpenFailure::NotRegular("fifo"))));
    }

    #[test]
    fn a_name_that_is_not_utf8_opens_through_an_absolute_symlink() {
        use std::os::unix::ffi::OsStrExt;
        let (dir, root) = setup();
        let odd = dir.path().join("root").join(OsStr::from_bytes(b"d\xff"));
        std::fs::create_dir(&odd).unwrap();
        std::fs::write(odd.join("f.txt"), "y").unwrap();
        // RESOLVE_BENEATH refuses absolute symlinks: this one is resolved first.
        std::os::unix::fs::symlink(odd.join("f.txt"), odd.join("abs")).unwrap();
        let f = root.open_file(Path::new(OsStr::from_bytes(b"d\xff/abs"))).unwrap();
        assert_eq!(std::io::read_to_string(f).unwrap(), "y");
    }

    #[test]
    fn the_fallback_walk_refuses_every_symlink() {
        let (dir, root) = setup();
        std::os::unix::fs::symlink("src", dir.path().join("root/s")).unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("root/up")).unwrap();
        let open = |p: &str| open_nofollow_walk(root.dir.as_fd(), Path::new(p), OFlags::RDONLY, Mode::empty());
        assert!(open("src/a.rs").is_ok());
        assert_eq!(open("s/a.rs").unwrap_err(), Errno::NOTDIR);
        assert_eq!(open("up/secret").unwrap_err(), Errno::NOTDIR);
        assert_eq!(open("../secret").unwrap_err(), Errno::XDEV);
    }

    #[test]
    fn opens_and_creates_folders_beneath() {
        let (dir, root) = setup();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("root/up")).unwrap();
        root.open_dir(Path::new("new/deeper"), true).unwrap();
        assert!(dir.path().join("root/new/deeper").is_dir());
        assert!(matches!(root.open_dir(Path::new("up"), true), Err(OpenFailure::Outside(_))));
        assert!(matches!(root.open_dir(Path::new("up/made"), true), Err(OpenFailure::Outside(_))));
        assert!(!dir.path().join("made").exists());
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
