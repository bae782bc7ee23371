//! What a check wrote. A check — `--verify`'s checkers, `--verify-command`
//! — must not change the project's files. Before the checks run, the
//! tree's source files (those the checkers' walk finds, as aide-checkers
//! guards them) are stamped and, up to [`KEPT_BYTES`] in all, kept. After
//! each check, a file whose stamp moved, or an edited file whose bytes are
//! not what the commit wrote, was written by it, and is put back: an
//! edited file to what the commit wrote (so the undo takes it back to
//! before the edit), any other to what it held. A file past the budget
//! that a check wrote can only be named.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use aide_core::tool::Context;
use aide_core::{AideError, Root};

use crate::plan::FileState;

/// The most bytes of the tree's files kept to put back what a check wrote.
pub(crate) const KEPT_BYTES: u64 = 64 << 20;

/// A file's length, modification and change times (ns) and inode.
type Stamp = (u64, i128, i128, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    Some((m.len(), ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec()), m.ino()))
}

/// One source file the edit did not touch, as it was before the checks.
struct Watched {
    abs: PathBuf,
    rel: String,
    stamp: Option<Stamp>,
    /// Its bytes and mode, when within the budget.
    kept: Option<(Vec<u8>, u32)>,
}

/// The tree's files as they were before the checks.
pub(crate) struct Watch {
    files: Vec<Watched>,
}

/// The files a check wrote.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Every file it wrote (or removed), relative, sorted.
    pub files: Vec<String>,
    /// The edited files among them, given back what the commit wrote.
    pub edited: Vec<String>,
    /// Those that could not be put back (not kept: over the budget; or
    /// the write failed), left as the check left them.
    pub not_restored: Vec<String>,
}

impl Watch {
    /// Stamps (and keeps) the tree's source files the edit does not touch.
    pub(crate) fn take(root: &Root, changed: &[&FileState], ctx: &Context) -> Result<Watch, AideError> {
        let (project, _) = aide_checkers::project(root, ctx)?;
        let edited: std::collections::HashSet<&Path> = changed.iter().map(|f| f.abs.as_path()).collect();
        let mut budget = KEPT_BYTES;
        let mut files = Vec::new();
        for rel in project.files.into_iter().filter(|f| aide_checkers::checker::is_source(Path::new(f))) {
            let abs = root.path().join(&rel);
            if edited.contains(abs.as_path()) {
                continue;
            }
            let stamp = stamp(&abs);
            let kept = match stamp {
                Some((len, ..)) if len <= budget => {
                    let mode = std::fs::symlink_metadata(&abs).map(|m| m.mode() & 0o7777).unwrap_or(0o644);
                    std::fs::read(&abs).ok().map(|bytes| {
                        budget -= bytes.len() as u64;
                        (bytes, mode)
                    })
                }
                _ => None,
            };
            files.push(Watched { abs, rel, stamp, kept });
        }
        Ok(Watch { files })
    }

    /// The files a check wrote since the last look, each put back: the
    /// edited ones to what the commit wrote (`committed`) or to what they
    /// held (before the commit), the others to what they held.
    pub(crate) fn put_back(&mut self, changed: &[&FileState], committed: bool) -> Written {
        let mut written = Written::default();
        for f in changed.iter().filter(|f| !f.current_link && !f.original_link) {
            let want = if committed { &f.current } else { &f.original };
            let now =
                std::fs::symlink_metadata(&f.abs).ok().filter(|m| m.is_file()).and_then(|_| std::fs::read(&f.abs).ok());
            if now == *want {
                continue;
            }
            written.files.push(f.rel.clone());
            written.edited.push(f.rel.clone());
            let done = match want {
                Some(bytes) => aide_core::fsutil::write_atomic_with(&f.abs, bytes, f.permissions.clone()),
                None => std::fs::remove_file(&f.abs),
            };
            if done.is_err() {
                written.not_restored.push(f.rel.clone());
            }
        }
        for w in &mut self.files {
            let now = stamp(&w.abs);
            if now == w.stamp {
                continue;
            }
            // Written back byte for byte (a formatter with nothing to do) is no change.
            let same = w.kept.as_ref().is_some_and(|(bytes, _)| std::fs::read(&w.abs).is_ok_and(|b| b == *bytes));
            if !same {
                written.files.push(w.rel.clone());
                let restored = w.kept.as_ref().is_some_and(|(bytes, mode)| {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = Some(std::fs::Permissions::from_mode(*mode));
                    aide_core::fsutil::write_atomic_with(&w.abs, bytes, mode).is_ok()
                });
                if !restored {
                    written.not_restored.push(w.rel.clone());
                }
            }
            w.stamp = stamp(&w.abs);
        }
        written.files.sort();
        written.files.dedup();
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_to_a_source_file_is_seen_and_put_back_and_others_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("a.py", "a = 1\n"), ("b.py", "b = 1\n"), ("notes.txt", "notes\n")] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let root = Root::new(dir.path()).unwrap();
        let ctx = Context::new("test");
        let mut watch = Watch::take(&root, &[], &ctx).unwrap();
        assert!(watch.put_back(&[], true).files.is_empty());
        std::fs::write(dir.path().join("a.py"), "a = 2\n").unwrap();
        std::fs::remove_file(dir.path().join("b.py")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a source file\n").unwrap();
        let written = watch.put_back(&[], true);
        assert_eq!(written.files, ["a.py", "b.py"]);
        assert!(written.not_restored.is_empty());
        assert_eq!(std::fs::read_to_string(dir.path().join("a.py")).unwrap(), "a = 1\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("b.py")).unwrap(), "b = 1\n");
        assert!(watch.put_back(&[], true).files.is_empty(), "the next look starts from now");
    }
}
