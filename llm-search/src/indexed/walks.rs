//! The walks an index of a search's tree is kept by, and what they say of
//! the entries they skip: a search through the index says it too, as the
//! walk of the tree would.

use std::cell::RefCell;
use std::collections::BTreeMap;

use aide_core::Root;
use aide_core::envelope::{Diagnostic, diag};
use aide_core::walk::Walker;
use aide_index::Walked;

use crate::request::SearchRequest;

/// The walk a search of `req` makes, folders included, and its
/// diagnostics; None when it fails, or follows links (a linked folder's
/// files have two places, and inotify hears of one).
pub(super) fn walk(root: &Root, req: &SearchRequest, threads: usize) -> Option<(Vec<Walked>, Vec<Diagnostic>)> {
    if req.walk.follow {
        return None;
    }
    let walker = Walker::new(root, &req.walk).ok()?.under(&req.paths).ok()?.include_dirs(true);
    let (files, diagnostics) = walker.collect(threads).ok()?;
    Some((walked(files), diagnostics))
}

fn walked(files: Vec<aide_core::walk::WalkedFile>) -> Vec<Walked> {
    files.into_iter().map(|f| Walked { rel: f.rel, abs: f.abs, is_dir: f.is_dir }).collect()
}

/// What the walk says of the tree, by the folder each entry is in.
#[derive(Default)]
pub(super) struct Noted {
    by_folder: BTreeMap<String, Vec<Diagnostic>>,
}

fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

impl Noted {
    pub(super) fn of(diagnostics: Vec<Diagnostic>) -> Noted {
        let mut noted = Noted::default();
        for d in diagnostics {
            let folder = folder_of(d.path.as_deref().unwrap_or("")).to_string();
            noted.by_folder.entry(folder).or_default().push(d);
        }
        noted
    }

    /// Brings it up to what the walks of a refresh said.
    pub(super) fn update(&mut self, said: Said) {
        if let Some(tree) = said.tree {
            *self = Noted::of(tree);
        }
        for (folder, diagnostics) in said.folders {
            self.by_folder.remove(&folder);
            let fresh = Noted::of(diagnostics);
            // A folder's walk says only what is in it.
            if let Some(own) = fresh.by_folder.into_iter().find(|(f, _)| *f == folder).map(|(_, d)| d) {
                self.by_folder.insert(folder, own);
            }
        }
    }

    /// Every diagnostic, a skipped link's said again as it is now (its
    /// target may have come or gone anywhere in the tree since).
    pub(super) fn all(&self, root: &Root) -> Vec<Diagnostic> {
        self.by_folder
            .values()
            .flatten()
            .map(|d| match d.path.as_deref() {
                Some(rel) if is_skipped_link(d) && !rel.contains('\\') => {
                    aide_core::walk::symlink_skipped(rel.to_string(), &root.path().join(rel))
                }
                _ => d.clone(),
            })
            .collect()
    }
}

fn is_skipped_link(d: &Diagnostic) -> bool {
    d.code == diag::BROKEN_SYMLINK || d.code == diag::SYMLINK_NOT_FOLLOWED
}

/// What the walks of one refresh said: of the whole tree, of single folders.
#[derive(Default)]
pub(super) struct Said {
    tree: Option<Vec<Diagnostic>>,
    folders: Vec<(String, Vec<Diagnostic>)>,
}

/// The walks of a search's tree, for [`aide_index::TreeIndex::refresh`].
pub(super) struct SearchWalk<'a> {
    pub(super) root: &'a Root,
    pub(super) req: &'a SearchRequest,
    pub(super) threads: usize,
    pub(super) noted: &'a Noted,
    pub(super) said: RefCell<Said>,
}

impl aide_index::Walk for SearchWalk<'_> {
    fn tree(&self) -> Option<Vec<Walked>> {
        let (walked, diagnostics) = walk(self.root, self.req, self.threads)?;
        self.said.borrow_mut().tree = Some(diagnostics);
        Some(walked)
    }

    /// The walk of the folder alone, one level deep, with the request's
    /// filters: a folder the tree's walk took, so the ignore files of its
    /// parents apply to it as they do there. Not where the request's
    /// depth or paths would cut it differently from the tree's walk.
    fn folder(&self, rel: &str) -> Option<Vec<Walked>> {
        let within = |path: &String| {
            let path = self.root.resolve(path).ok().and_then(|abs| self.root.relative(&abs));
            path.is_some_and(|p| p == "." || p.is_empty() || rel == p || rel.starts_with(&format!("{p}/")))
        };
        if self.req.walk.max_depth.is_some() || !(self.req.paths.is_empty() || self.req.paths.iter().any(within)) {
            return None;
        }
        let args = aide_core::walk::WalkArgs { max_depth: Some(1), ..self.req.walk.clone() };
        let start = if rel.is_empty() { ".".to_string() } else { rel.to_string() };
        let walker = Walker::new(self.root, &args).ok()?.under(&[start]).ok()?.include_dirs(true);
        let (files, diagnostics) = walker.collect(1).ok()?;
        self.said.borrow_mut().folders.push((rel.to_string(), diagnostics));
        Some(walked(files))
    }

    fn noted(&self, rel: &str) -> bool {
        self.noted.by_folder.contains_key(rel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(code: &str, path: &str) -> Diagnostic {
        Diagnostic::new(code, "m").with_path(path)
    }

    #[test]
    fn a_folders_walk_replaces_what_was_said_of_that_folder_only() {
        let mut noted = Noted::of(vec![at("a", "x/one"), at("b", "y/two"), at("c", "x/deep/three")]);
        let said = Said { tree: None, folders: vec![("x".into(), vec![at("d", "x/four")])] };
        noted.update(said);
        let codes: Vec<&str> = noted.by_folder.values().flatten().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["d", "c", "b"]);
        noted.update(Said { tree: Some(vec![at("e", "z")]), folders: Vec::new() });
        assert_eq!(noted.by_folder.len(), 1);
        assert!(noted.by_folder.contains_key(""));
    }
}
