//! In-order results over the parallel walk.
//!
//! The parallel walk finds files in no particular order; a tool that prints
//! its results sorted by path used to hold all of them until the walk ended.
//! Here each worker maps the files it finds, and the results are handed on
//! in the order [`Walker::collect`] sorts by (byte-wise relative paths) as
//! soon as every earlier file is done — while the walk goes on.
//!
//! What makes that possible: `ignore`'s worker lists a folder right after
//! visiting it, on the same thread, passing each entry it keeps through the
//! walk's entry filter — where [`Listings`] records it. The folder's listing
//! is complete when that thread visits anything else (or ends). A cursor
//! then goes down the tree of completed listings in path order (a folder's
//! entries sorted by name, with `/` after a folder's name, which is byte-wise
//! order of the whole paths), handing on each file's result once it is
//! there, and waiting at the first folder not yet listed or file not yet
//! done. Whichever worker finds the cursor idle after adding a result moves
//! it and hands the results on; the others never wait for output.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ignore::WalkState;

use super::{WalkedFile, Walker, lock};
use crate::envelope::Diagnostic;
use crate::error::AideError;
use crate::root::to_slash;

/// One entry of a folder that the walk will visit.
struct Entry {
    path: PathBuf,
    /// The name as the relative path shows it, with `/` after a folder's:
    /// siblings sorted by it come in byte-wise order of their whole paths.
    key: String,
    is_dir: bool,
}

#[derive(Default)]
struct Listing {
    entries: Vec<Entry>,
    complete: bool,
}

/// The entries of every folder the walk lists, recorded by the walk's entry
/// filter (see [`Walker::builder`]).
#[derive(Default)]
pub(super) struct Listings {
    folders: Mutex<HashMap<PathBuf, Listing>>,
}

impl Listings {
    /// Records `path` as an entry of its folder (being listed by this thread).
    pub(super) fn add(&self, path: &Path, is_dir: bool) {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return };
        let mut key = to_slash(Path::new(name));
        if is_dir {
            key.push('/');
        }
        let entry = Entry { path: path.to_path_buf(), key, is_dir };
        lock(&self.folders).entry(parent.to_path_buf()).or_default().entries.push(entry);
    }

    /// A folder the walk visits: it is listed next, by the same thread.
    fn open(&self, dir: &Path) {
        lock(&self.folders).entry(dir.to_path_buf()).or_default();
    }

    fn complete(&self, dir: &Path) {
        if let Some(listing) = lock(&self.folders).get_mut(dir) {
            listing.complete = true;
        }
    }

    /// A complete listing's entries, sorted; `None` while it is not complete.
    fn take_complete(&self, dir: &Path) -> Option<Vec<Entry>> {
        let mut folders = lock(&self.folders);
        if !folders.get(dir).is_some_and(|l| l.complete) {
            return None;
        }
        let mut entries = folders.remove(dir).map(|l| l.entries).unwrap_or_default();
        entries.sort_unstable_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
        Some(entries)
    }
}

/// A folder the cursor is in: its sorted entries and the next one to hand on.
struct Frame {
    entries: Vec<Entry>,
    next: usize,
}

/// Results waiting for their turn, and where the cursor stands.
struct Pending<T> {
    /// Every visited non-folder entry: its result, or `None` when it gave
    /// none (a diagnostic, or filtered out by type).
    done: HashMap<PathBuf, Option<(WalkedFile, T)>>,
    /// `None` until the root is listed.
    cursor: Option<Vec<Frame>>,
    /// A worker is handing results on: the others leave theirs to it.
    handing_on: bool,
}

impl<T> Pending<T> {
    /// Moves the cursor as far as the results allow, taking them in order.
    fn advance(&mut self, root: &Path, listings: &Listings, ready: &mut Vec<(WalkedFile, T)>) {
        let cursor = match &mut self.cursor {
            Some(cursor) => cursor,
            None => match listings.take_complete(root) {
                Some(entries) => self.cursor.insert(vec![Frame { entries, next: 0 }]),
                None => return,
            },
        };
        while let Some(frame) = cursor.last_mut() {
            let Some(entry) = frame.entries.get(frame.next) else {
                cursor.pop();
                continue;
            };
            if entry.is_dir {
                let Some(entries) = listings.take_complete(&entry.path) else { return };
                frame.next += 1;
                cursor.push(Frame { entries, next: 0 });
            } else {
                let Some(result) = self.done.remove(&entry.path) else { return };
                frame.next += 1;
                ready.extend(result);
            }
        }
    }
}

impl Walker<'_> {
    /// Maps every file in parallel, as [`Walker::visit_parallel`] visits
    /// them, and hands each file and its result to `sink` in the order of
    /// [`Walker::collect`] (byte-wise relative paths) as soon as every
    /// earlier file is done, while the walk goes on. `sink` is called by
    /// one worker at a time; when it breaks, the walk stops. Memory holds
    /// only the results waiting for an earlier file, not every result.
    /// Folders are never handed on ([`Walker::include_dirs`] is not taken).
    pub fn visit_ordered<T, M, F, S>(&self, threads: usize, make_mapper: M, sink: S) -> Result<Vec<Diagnostic>, AideError>
    where
        T: Send,
        M: Fn() -> F + Sync,
        F: FnMut(&WalkedFile) -> T + Send,
        S: FnMut(WalkedFile, T) -> ControlFlow<()> + Send,
    {
        let listings = Arc::new(Listings::default());
        let root = self.root.path().to_path_buf();
        let pending = Mutex::new(Pending { done: HashMap::new(), cursor: None, handing_on: false });
        let sink = Mutex::new(sink);
        let stopped = AtomicBool::new(false);
        let diagnostics = Mutex::new(Vec::new());
        let pruned = Arc::new(Mutex::new(Vec::new()));
        let progress = self.progress.counter(None);

        // Hands on every result the cursor can reach. Whoever finds no one
        // else doing it does it, until nothing more is ready.
        let hand_on = || {
            let mut state = lock(&pending);
            if state.handing_on {
                return;
            }
            state.handing_on = true;
            let mut ready = Vec::new();
            loop {
                state.advance(&root, &listings, &mut ready);
                if ready.is_empty() {
                    state.handing_on = false;
                    return;
                }
                drop(state);
                let mut sink = lock(&sink);
                for (file, result) in ready.drain(..) {
                    if stopped.load(Ordering::Relaxed) {
                        break;
                    }
                    if sink(file, result).is_break() {
                        stopped.store(true, Ordering::Relaxed);
                    }
                }
                drop(sink);
                state = lock(&pending);
            }
        };

        /// The folder this worker thread is listing, completed when the
        /// thread moves on to its next entry or ends.
        struct Lister<'l> {
            listings: &'l Listings,
            listing: Option<PathBuf>,
        }
        impl Lister<'_> {
            fn move_on(&mut self) {
                if let Some(dir) = self.listing.take() {
                    self.listings.complete(&dir);
                }
            }
        }
        impl Drop for Lister<'_> {
            fn drop(&mut self) {
                self.move_on();
            }
        }

        self.builder(threads, &pruned, Some(listings.clone())).build_parallel().run(|| {
            let mut map = make_mapper();
            let (pending, diagnostics, progress, hand_on, stopped, listings) =
                (&pending, &diagnostics, &progress, &hand_on, &stopped, &*listings);
            let mut lister = Lister { listings, listing: None };
            Box::new(move |result| {
                if self.cancel.is_cancelled() || stopped.load(Ordering::Relaxed) {
                    return WalkState::Quit;
                }
                // An error does not end the listing it came from.
                let Ok(entry) = result else {
                    if let Some(Err(d)) = self.classify(result) {
                        lock(diagnostics).push(d);
                    }
                    return WalkState::Continue;
                };
                lister.move_on();
                if entry.file_type().is_some_and(|t| t.is_dir()) {
                    let dir = entry.path().to_path_buf();
                    listings.open(&dir);
                    lister.listing = Some(dir);
                } else {
                    let path = entry.path().to_path_buf();
                    let result = match self.classify(Ok(entry)) {
                        Some(Ok(file)) => {
                            self.note_lossy_name(&file, diagnostics);
                            let result = map(&file);
                            progress.tick();
                            Some((file, result))
                        }
                        Some(Err(d)) => {
                            lock(diagnostics).push(d);
                            None
                        }
                        None => None,
                    };
                    lock(pending).done.insert(path, result);
                }
                hand_on();
                WalkState::Continue
            })
        });
        // Every worker has ended, so every listing is complete.
        if !stopped.load(Ordering::Relaxed) && !self.cancel.is_cancelled() {
            hand_on();
        }
        let mut diagnostics = diagnostics.into_inner().unwrap_or_else(|p| p.into_inner());
        diagnostics.append(&mut lock(&pruned));
        crate::envelope::sort_diagnostics(&mut diagnostics);
        self.cancel.check()?;
        Ok(diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use proptest::prelude::*;

    use super::super::{WalkArgs, Walker};
    use crate::root::Root;

    fn write_tree(dir: &std::path::Path, files: &[String]) {
        for f in files {
            let path = dir.join(f);
            // A name may already be a file or folder of another path: skipped.
            let _ = std::fs::create_dir_all(path.parent().unwrap());
            let _ = std::fs::write(&path, f.as_bytes());
        }
    }

    /// The files `visit_ordered` hands on, with the length the mapper read.
    fn ordered(root: &Root, args: &WalkArgs, threads: usize) -> Vec<(String, usize)> {
        let mut seen = Vec::new();
        let walker = Walker::new(root, args).unwrap();
        walker
            .visit_ordered(
                threads,
                || |file: &super::WalkedFile| std::fs::read(&file.abs).map(|b| b.len()).unwrap_or(0),
                |file, len| {
                    seen.push((file.rel, len));
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
        seen
    }

    fn collected(root: &Root, args: &WalkArgs) -> Vec<String> {
        Walker::new(root, args).unwrap().collect(2).unwrap().0.into_iter().map(|f| f.rel).collect()
    }

    #[test]
    fn hands_on_in_byte_wise_path_order_as_collect_sorts() {
        let d = tempfile::tempdir().unwrap();
        // `a-b/x` < `a.txt` < `a/x` byte-wise, though the folder `a` sorts first by name.
        let files: Vec<String> = ["a/x", "a-b/x", "a.txt", "a/b/c/d", "a/b-c", "b", "A", "_", "a/b/c.e", ".hidden/z", "ign/y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        write_tree(d.path(), &files);
        std::fs::write(d.path().join(".ignore"), "ign/\n").unwrap();
        let root = Root::new(d.path()).unwrap();
        let args = WalkArgs::default();
        for threads in [1, 2, 8] {
            let got = ordered(&root, &args, threads);
            let names: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
            assert_eq!(names, ["A", "_", "a-b/x", "a.txt", "a/b-c", "a/b/c.e", "a/b/c/d", "a/x", "b"], "{threads} threads");
            assert_eq!(names, collected(&root, &args));
            assert!(got.iter().all(|(p, len)| *len == p.len()), "each result belongs to its file");
        }
    }

    #[test]
    fn a_break_stops_the_walk() {
        let d = tempfile::tempdir().unwrap();
        let files: Vec<String> = (0..200).map(|i| format!("d{}/f{i:03}", i % 7)).collect();
        write_tree(d.path(), &files);
        let root = Root::new(d.path()).unwrap();
        let mut seen = Vec::new();
        Walker::new(&root, &WalkArgs::default())
            .unwrap()
            .visit_ordered(2, || |_: &super::WalkedFile| (), |file, ()| {
                seen.push(file.rel);
                if seen.len() == 3 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            })
            .unwrap();
        assert_eq!(seen, ["d0/f000", "d0/f007", "d0/f014"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn any_tree_comes_in_collect_order(
            files in proptest::collection::vec("[ab.-]{1,2}(/[ab_.-]{1,2}){0,3}", 1..40),
            threads in 1usize..5,
        ) {
            let files: Vec<String> = files.into_iter().filter(|f| !f.split('/').any(|c| c == "." || c == "..")).collect();
            let d = tempfile::tempdir().unwrap();
            write_tree(d.path(), &files);
            let root = Root::new(d.path()).unwrap();
            let args = WalkArgs { hidden: true, ..Default::default() };
            let got: Vec<String> = ordered(&root, &args, threads).into_iter().map(|(p, _)| p).collect();
            prop_assert_eq!(got, collected(&root, &args));
        }
    }
}
