//! A directory's whole content, read beneath a root without following a
//! link: every file, symlink and folder under it, hidden and ignored ones
//! too (what a recursive delete removes), and its tree checksum.
//!
//! The tree checksum is the SHA-256 of one line per file or symlink, sorted
//! by relative path (byte order, `/`-separated):
//!
//! ```text
//! <sha256 of the file's bytes>  <path>\n
//! link:<sha256 of the link's target>  <path>\n
//! ```
//!
//! For a tree of regular files it is what coreutils computes:
//! `cd DIR && find . -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`.
//! Folders (an empty one included) and modes do not count: two trees with
//! the same checksum hold the same bytes under the same names.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::checksum::{Hasher, sha256_hex};
use crate::root::{OpenFailure, Root};

/// What one entry of a tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file with its mode bits.
    File { mode: u32 },
    /// A symbolic link (never followed).
    Link,
    /// A folder with its mode bits.
    Dir { mode: u32 },
}

/// One entry under the scanned folder.
#[derive(Debug, Clone)]
pub struct TreeEntry {
    /// Relative to the scanned folder.
    pub rel: PathBuf,
    pub kind: EntryKind,
    /// A file's bytes or a link's target, when the scan kept them.
    pub content: Option<Vec<u8>>,
    /// A file's checksum, or `link:` and the checksum of a link's target;
    /// None for a folder.
    pub checksum: Option<String>,
    pub size: u64,
    /// What `lstat` said of it when it was scanned.
    pub stat: rustix::fs::Stat,
}

/// How much a scan reads of each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Names, kinds and stats only: no file opened.
    Names,
    /// Checksums too (every file read, not kept).
    Checksums,
    /// Checksums, and each file's bytes and link's target kept.
    Bytes,
}

/// A folder's content, entries sorted by path (byte order): a folder
/// comes before what it holds.
#[derive(Debug, Clone)]
pub struct TreeScan {
    /// The scanned folder's own mode bits.
    pub mode: u32,
    pub entries: Vec<TreeEntry>,
}

impl TreeScan {
    /// The tree checksum (see the module doc); of a scan to
    /// [`Depth::Checksums`] or [`Depth::Bytes`].
    pub fn checksum(&self) -> String {
        tree_checksum(self.entries.iter().filter_map(|e| Some((e.rel.as_os_str(), e.checksum.as_deref()?))))
    }

    /// How many files, links and folders (below the top) it holds, and the files' bytes.
    pub fn counts(&self) -> TreeCounts {
        let mut counts = TreeCounts::default();
        for e in &self.entries {
            match e.kind {
                EntryKind::File { .. } => {
                    counts.files += 1;
                    counts.bytes += e.size;
                }
                EntryKind::Link => counts.links += 1,
                EntryKind::Dir { .. } => counts.dirs += 1,
            }
        }
        counts
    }
}

/// The sizes of a tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeCounts {
    pub files: u64,
    pub links: u64,
    pub dirs: u64,
    pub bytes: u64,
}

/// The tree checksum of `(path, checksum)` pairs, in any order (see the
/// module doc): a link's checksum is given with its `link:` prefix.
pub fn tree_checksum<'a>(pairs: impl IntoIterator<Item = (&'a OsStr, &'a str)>) -> String {
    let mut pairs: Vec<(&OsStr, &str)> = pairs.into_iter().collect();
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut hasher = Hasher::default();
    for (path, checksum) in pairs {
        hasher.update(checksum.as_bytes());
        hasher.update(b"  ");
        hasher.update(path.as_bytes());
        hasher.update(b"\n");
    }
    hasher.finish()
}

/// The checksum a link's entry has: `link:` and the SHA-256 of its target.
pub fn link_checksum(target: &[u8]) -> String {
    format!("link:{}", sha256_hex(target))
}

/// Why a folder could not be scanned.
#[derive(Debug)]
pub enum ScanFailure {
    /// The path (relative to the scanned folder) could not be opened or read.
    Open(PathBuf, OpenFailure),
    /// A FIFO, socket or device inside: neither copied nor checksummed.
    Special(PathBuf, &'static str),
}

/// Reads the folder `rel_dir` of `root` (resolved, relative) whole, to
/// `depth`, without following links.
pub fn scan(root: &Root, rel_dir: &Path, depth: Depth) -> Result<TreeScan, ScanFailure> {
    let top = root.open_dir(rel_dir, false).map_err(|e| ScanFailure::Open(PathBuf::new(), e))?;
    let stat = rustix::fs::fstat(&top).map_err(|e| ScanFailure::Open(PathBuf::new(), e.into()))?;
    let mut entries = Vec::new();
    scan_dir(&top, &PathBuf::new(), depth, &mut entries)?;
    entries.sort_by(|a, b| a.rel.as_os_str().as_bytes().cmp(b.rel.as_os_str().as_bytes()));
    Ok(TreeScan { mode: stat.st_mode & 0o7777, entries })
}

/// The names in the folder `dir` (at `rel`), byte-wise sorted, without `.` and `..`.
fn sorted_names(dir: &OwnedFd, rel: &Path) -> Result<Vec<std::ffi::OsString>, ScanFailure> {
    let open = |e: Errno| ScanFailure::Open(rel.to_path_buf(), e.into());
    let listing = rustix::fs::Dir::read_from(dir).map_err(open)?;
    let mut names: Vec<std::ffi::OsString> = Vec::new();
    for entry in listing {
        let entry = entry.map_err(open)?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name != "." && name != ".." {
            names.push(name.to_os_string());
        }
    }
    names.sort();
    Ok(names)
}

/// The regular file `name` of `dir` (at `path`), never through a link:
/// its bytes (when `keep`), checksum and size, from one read.
fn read_file(
    dir: &OwnedFd,
    name: &OsStr,
    path: &Path,
    keep: bool,
) -> Result<(Option<Vec<u8>>, String, u64), ScanFailure> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|e| match e {
        Errno::LOOP => ScanFailure::Open(path.to_path_buf(), OpenFailure::SWAPPED),
        e => ScanFailure::Open(path.to_path_buf(), e.into()),
    })?;
    let mut file = File::from(fd);
    let mut bytes = Vec::new();
    let mut hasher = Hasher::default();
    let mut size = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(|e| ScanFailure::Open(path.to_path_buf(), OpenFailure::Io(e)))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
        if keep {
            bytes.extend_from_slice(&buf[..n]);
        }
    }
    Ok((keep.then_some(bytes), hasher.finish(), size))
}

fn scan_dir(dir: &OwnedFd, rel: &Path, depth: Depth, out: &mut Vec<TreeEntry>) -> Result<(), ScanFailure> {
    let keep = depth == Depth::Bytes;
    let open = |rel: &Path, e: Errno| ScanFailure::Open(rel.to_path_buf(), e.into());
    for name in sorted_names(dir, rel)? {
        let path = rel.join(&name);
        let stat = rustix::fs::statat(dir, &name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| open(&path, e))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => {
                let sub = rustix::fs::openat(
                    dir,
                    &name,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| match e {
                    Errno::LOOP | Errno::NOTDIR => ScanFailure::Open(path.clone(), OpenFailure::SWAPPED),
                    e => open(&path, e),
                })?;
                out.push(TreeEntry {
                    rel: path.clone(),
                    kind: EntryKind::Dir { mode: stat.st_mode & 0o7777 },
                    content: None,
                    checksum: None,
                    size: 0,
                    stat,
                });
                scan_dir(&sub, &path, depth, out)?;
            }
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(dir, &name, Vec::new()).map_err(|e| open(&path, e))?;
                let target = target.into_bytes();
                out.push(TreeEntry {
                    rel: path,
                    kind: EntryKind::Link,
                    checksum: Some(link_checksum(&target)),
                    size: target.len() as u64,
                    content: keep.then_some(target),
                    stat,
                });
            }
            FileType::RegularFile if depth == Depth::Names => out.push(TreeEntry {
                rel: path,
                kind: EntryKind::File { mode: stat.st_mode & 0o7777 },
                content: None,
                checksum: None,
                size: stat.st_size as u64,
                stat,
            }),
            FileType::RegularFile => {
                let (content, checksum, size) = read_file(dir, &name, &path, keep)?;
                out.push(TreeEntry {
                    rel: path,
                    kind: EntryKind::File { mode: stat.st_mode & 0o7777 },
                    content,
                    checksum: Some(checksum),
                    size,
                    stat,
                });
            }
            _ => {
                let kind = crate::root::special_kind(stat.st_mode).unwrap_or("special file");
                return Err(ScanFailure::Special(path, kind));
            }
        }
    }
    Ok(())
}

impl ScanFailure {
    /// The error of a scan of `shown` (the folder as the caller named it).
    pub fn into_error(self, shown: &str) -> crate::AideError {
        let inside = |rel: &Path| {
            if rel.as_os_str().is_empty() {
                shown.to_string()
            } else {
                format!("{}/{}", shown.trim_end_matches('/'), crate::root::to_slash(rel))
            }
        };
        match self {
            ScanFailure::Open(rel, failure) => failure.into_error(&inside(&rel)),
            ScanFailure::Special(rel, kind) => OpenFailure::NotRegular(kind).into_error(&inside(&rel)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_is_sha256sum_of_the_sorted_sha256sum_lines() {
        let a = sha256_hex(b"a\n");
        let b = sha256_hex(b"b\n");
        // `a.c` sorts before `a/b` in byte order ('.' < '/').
        let pairs = [(OsStr::new("a/b"), b.as_str()), (OsStr::new("a.c"), a.as_str())];
        let expected = sha256_hex(format!("{a}  a.c\n{b}  a/b\n").as_bytes());
        assert_eq!(tree_checksum(pairs), expected);
        assert_eq!(tree_checksum([]), sha256_hex(b""));
    }

    #[test]
    fn a_link_never_checksums_like_a_file_of_its_target() {
        let file = sha256_hex(b"x");
        let link = link_checksum(b"x");
        assert_ne!(
            tree_checksum([(OsStr::new("p"), file.as_str())]),
            tree_checksum([(OsStr::new("p"), link.as_str())])
        );
    }

    #[test]
    fn a_scan_sees_hidden_files_links_and_empty_folders_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("t/sub/empty")).unwrap();
        std::fs::write(dir.path().join("t/.hidden"), "h").unwrap();
        std::fs::write(dir.path().join("t/sub/f.txt"), "f").unwrap();
        std::os::unix::fs::symlink("../../outside", dir.path().join("t/sub/l")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let scan = scan(&root, Path::new("t"), Depth::Bytes).unwrap();
        let names: Vec<String> = scan.entries.iter().map(|e| e.rel.display().to_string()).collect();
        assert_eq!(names, [".hidden", "sub", "sub/empty", "sub/f.txt", "sub/l"]);
        assert_eq!(scan.counts(), TreeCounts { files: 2, links: 1, dirs: 2, bytes: 2 });
        let link = &scan.entries[4];
        assert_eq!(link.kind, EntryKind::Link);
        assert_eq!(link.content.as_deref(), Some(&b"../../outside"[..]));
    }
}
