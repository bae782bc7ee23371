//! What a checker must not do: change the project's source files. Each
//! source file the walk found (a language aide parses or a checker reads) is stamped before a
//! checker runs and looked at again after it (length, modification time,
//! inode): a checker under which one changed — or went — wrote, whatever
//! made it. Build output and caches a checker keeps for itself (cargo's
//! `target`, `.mypy_cache`) are not source files the walk gives.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use aide_core::root::Root;

use crate::checker::Project;

/// A file's length, modification time (ns) and inode; None: not there.
type Stamp = Option<(u64, i128, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.len(), i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()), m.ino()))
}

/// The source files' stamps, kept up to date between checkers.
pub(crate) struct Guard {
    files: BTreeMap<String, (PathBuf, Stamp)>,
}

impl Guard {
    pub(crate) fn new(root: &Root, project: &Project) -> Guard {
        let files = project
            .files
            .iter()
            .filter(|f| crate::checker::is_source(Path::new(f)))
            .map(|f| {
                let abs = root.path().join(f);
                let s = stamp(&abs);
                (f.clone(), (abs, s))
            })
            .collect();
        Guard { files }
    }

    /// The files that changed since the last look (relative, sorted); the
    /// next look starts from now.
    pub(crate) fn changed(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for (rel, (abs, was)) in &mut self.files {
            let now = stamp(abs);
            if now != *was {
                out.push(rel.clone());
                *was = now;
            }
        }
        out
    }
}

/// Why a checker that changed `files` failed.
pub(crate) fn wrote(files: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut named = files.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if files.len() > SHOWN {
        named.push_str(&format!(" and {} more", files.len() - SHOWN));
    }
    format!(
        "the project's files changed while it ran ({named}): a check must not write them; see what changed (by it or another program) and run it again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_or_removed_source_file_is_seen_once() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.py", "b.py", "notes.txt"] {
            std::fs::write(dir.path().join(f), "x = 1\n").unwrap();
        }
        let root = Root::new(dir.path()).unwrap();
        let project = Project { files: vec!["a.py".into(), "b.py".into(), "notes.txt".into()] };
        let mut guard = Guard::new(&root, &project);
        assert!(guard.changed().is_empty());
        std::fs::write(dir.path().join("a.py"), "x = 12\n").unwrap();
        std::fs::remove_file(dir.path().join("b.py")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a source file\n").unwrap();
        assert_eq!(guard.changed(), ["a.py", "b.py"]);
        assert!(guard.changed().is_empty(), "the next look starts from now");
        assert!(wrote(&["a.py".into()]).contains("(a.py)"));
    }
}
