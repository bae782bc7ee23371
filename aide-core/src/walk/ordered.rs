//! In-order results over a parallel search.
//!
//! A tool that prints its results sorted by path used to hold all of them
//! until a parallel walk (which finds files in no particular order) ended.
//! Here the walk itself goes in that order: `ignore`'s sequential walker,
//! each folder's entries sorted so that a depth-first walk yields byte-wise
//! order of the relative paths ([`Walker::collect`]'s order), runs on a
//! thread of its own and hands the workers files in chunks, each with its
//! position. A worker maps its file and leaves the result in a window keyed
//! by position; whoever finds no one handing results on hands on every
//! result whose predecessors are all done. The workers so finish files
//! almost in order, the window stays small whatever the number of results,
//! and the first result is handed on as soon as it exists. The price: the
//! sequential walker probes each folder for ignore files with a `stat` each,
//! where the parallel one reuses the folder's listing — more CPU in all.

use std::cmp::Ordering;
use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex};

use super::{WalkedFile, Walker};
use crate::envelope::Diagnostic;
use crate::error::AideError;
use crate::sync::lock;
use crate::text::escape_path;

/// Files a worker takes from the walk at once: fewer lock hand-overs, and
/// still a small window.
const BATCH: usize = 4;

/// Files the walk hands over at once.
const CHUNK: usize = 16;

/// Siblings in the order that makes a depth-first walk yield byte-wise
/// order of whole relative paths: by name as the path shows it (escaped
/// when not UTF-8), a folder's name as if followed by `/` — so `a-b/x` and
/// `a.rs` come before `a/x`. Only a name that is a prefix of its sibling's,
/// followed there by a byte below `/`, needs to know whether it is a folder
/// (a `stat`, rare).
fn sibling_order(follow: bool) -> impl Fn(&Path, &Path) -> Ordering + Send + Sync + 'static {
    move |a: &Path, b: &Path| {
        let (Some(an), Some(bn)) = (a.file_name(), b.file_name()) else { return a.cmp(b) };
        let (an, bn) = (escape_path(an, false), escape_path(bn, false));
        let (ab, bb) = (an.as_bytes(), bn.as_bytes());
        let is_dir = |p: &Path| if follow { p.is_dir() } else { p.symlink_metadata().is_ok_and(|m| m.is_dir()) };
        if ab.len() < bb.len() && bb.starts_with(ab) && bb[ab.len()] < b'/' && is_dir(a) {
            return Ordering::Greater;
        }
        if bb.len() < ab.len() && ab.starts_with(bb) && ab[bb.len()] < b'/' && is_dir(b) {
            return Ordering::Less;
        }
        ab.cmp(bb)
    }
}

/// Files the walk found, with their positions, waiting for a worker.
struct Queue {
    files: VecDeque<(u64, WalkedFile)>,
    ended: bool,
    /// Workers asleep until more files come.
    waiting: usize,
}

/// Results waiting for every earlier one, and whether they are being handed on.
struct Window<T> {
    done: BTreeMap<u64, (WalkedFile, T)>,
    next: u64,
    handing_on: bool,
}

/// The files the walk hands the workers, and their wake-up.
struct Handoff {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Handoff {
    /// Queues `chunk` (emptied), marks the walk `ended` or not, and wakes
    /// the workers asleep, if any.
    fn hand_over(&self, chunk: &mut Vec<(u64, WalkedFile)>, ended: bool) {
        let mut q = lock(&self.queue);
        q.files.extend(chunk.drain(..));
        q.ended = ended;
        let wake = q.waiting > 0;
        drop(q);
        if wake {
            self.ready.notify_all();
        }
    }

    /// Waits for files (or the walk's end) and moves up to [`BATCH`] of
    /// them into `batch`; it stays empty once the walk ended and the queue
    /// is drained.
    fn take_batch(&self, batch: &mut Vec<(u64, WalkedFile)>) {
        let mut q = lock(&self.queue);
        while q.files.is_empty() && !q.ended {
            q.waiting += 1;
            q = self.ready.wait(q).unwrap_or_else(|p| p.into_inner());
            q.waiting -= 1;
        }
        let n = q.files.len().min(BATCH);
        batch.extend(q.files.drain(..n));
    }
}

/// Hands on every result whose predecessors are all done, one worker at a
/// time (the others go back to work); a sink that breaks stops the walk,
/// and the file it stopped at is kept in `stopped_at`.
fn hand_on_ready<T, S>(
    window: &Mutex<Window<T>>,
    sink: &Mutex<S>,
    stopped: &AtomicBool,
    stopped_at: &Mutex<Option<String>>,
) where
    S: FnMut(WalkedFile, T) -> ControlFlow<()>,
{
    let mut state = lock(window);
    if state.handing_on {
        return;
    }
    state.handing_on = true;
    loop {
        let mut ready = Vec::new();
        let Window { done, next, .. } = &mut *state;
        while let Some(entry) = done.first_entry() {
            if *entry.key() != *next {
                break;
            }
            ready.push(entry.remove());
            *next += 1;
        }
        if ready.is_empty() {
            state.handing_on = false;
            return;
        }
        drop(state);
        let mut sink = lock(sink);
        for (file, result) in ready {
            if stopped.load(AtomicOrdering::Relaxed) {
                break;
            }
            let rel = file.rel.clone();
            if sink(file, result).is_break() {
                stopped.store(true, AtomicOrdering::Relaxed);
                *lock(stopped_at) = Some(rel);
            }
        }
        drop(sink);
        state = lock(window);
    }
}

impl Walker<'_> {
    /// Walks in order, numbering each file and handing the workers chunks
    /// of them, until the walk ends, is cancelled or the sink `stopped` it;
    /// what the walk itself met goes to `diagnostics`.
    fn feed(&self, walk: ignore::Walk, handoff: &Handoff, stopped: &AtomicBool, diagnostics: &Mutex<Vec<Diagnostic>>) {
        let mut chunk = Vec::with_capacity(CHUNK);
        let mut at = 0u64;
        for result in walk {
            if self.cancel.is_cancelled() || stopped.load(AtomicOrdering::Relaxed) {
                break;
            }
            match self.classify(result) {
                Some(Ok(file)) => {
                    self.note_lossy_name(&file, diagnostics);
                    chunk.push((at, file));
                    at += 1;
                    if chunk.len() == CHUNK {
                        handoff.hand_over(&mut chunk, false);
                    }
                }
                Some(Err(d)) => lock(diagnostics).push(d),
                None => {}
            }
        }
        handoff.hand_over(&mut chunk, true);
    }

    /// Maps every file with `make_mapper`'s mapper (one per worker thread)
    /// and hands each file and its result to `sink` in the order of
    /// [`Walker::collect`] (byte-wise relative paths), each as soon as every
    /// earlier one is done, while the walk goes on. `sink` is called by one
    /// worker at a time; when it breaks, the walk stops. Memory holds only
    /// results waiting for an earlier file, not every result. Folders are
    /// never handed on ([`Walker::include_dirs`] is not taken).
    pub fn visit_ordered<T, M, F, S>(
        &self,
        threads: usize,
        make_mapper: M,
        sink: S,
    ) -> Result<Vec<Diagnostic>, AideError>
    where
        T: Send,
        M: Fn() -> F + Sync,
        F: FnMut(&WalkedFile) -> T + Send,
        S: FnMut(WalkedFile, T) -> ControlFlow<()> + Send,
    {
        let pruned = Arc::new(Mutex::new(Vec::new()));
        let mut builder = self.builder(1, &pruned);
        builder.sort_by_file_path(sibling_order(self.args.follow));
        let walk = builder.build();
        let window = Mutex::new(Window { done: BTreeMap::new(), next: 0, handing_on: false });
        let sink = Mutex::new(sink);
        let stopped = AtomicBool::new(false);
        // The last file handed on, when the sink stopped the walk.
        let stopped_at: Mutex<Option<String>> = Mutex::new(None);
        let diagnostics = Mutex::new(Vec::new());
        let progress = self.progress.counter(None);

        let hand_on = || hand_on_ready(&window, &sink, &stopped, &stopped_at);

        // The walk runs on its own thread, ahead of the workers, handing
        // them files in chunks (one lock and at most one wake-up per chunk).
        let handoff = Handoff {
            queue: Mutex::new(Queue { files: VecDeque::new(), ended: false, waiting: 0 }),
            ready: Condvar::new(),
        };
        let walk = || self.feed(walk, &handoff, &stopped, &diagnostics);

        std::thread::scope(|scope| {
            scope.spawn(walk);
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    let mut map = make_mapper();
                    let mut batch = Vec::with_capacity(BATCH);
                    loop {
                        handoff.take_batch(&mut batch);
                        if batch.is_empty() || self.cancel.is_cancelled() || stopped.load(AtomicOrdering::Relaxed) {
                            return;
                        }
                        for (at, file) in batch.drain(..) {
                            let result = map(&file);
                            progress.tick();
                            lock(&window).done.insert(at, (file, result));
                            hand_on();
                        }
                    }
                });
            }
        });
        let mut diagnostics = diagnostics.into_inner().unwrap_or_else(|p| p.into_inner());
        diagnostics.append(&mut lock(&pruned));
        // The walk ran ahead of the sink: what it met past the stop is not
        // part of the result (and would differ from run to run).
        if let Some(last) = stopped_at.into_inner().unwrap_or_else(|p| p.into_inner()) {
            diagnostics.retain(|d| d.path.as_deref().is_none_or(|p| p.as_bytes() <= last.as_bytes()));
        }
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
        let small = Walker::new(root, args).unwrap().collect(2).unwrap().0;
        let parallel = Walker::new(root, args).unwrap().always_parallel().collect(2).unwrap().0;
        let rel = |files: Vec<super::WalkedFile>| files.into_iter().map(|f| f.rel).collect::<Vec<_>>();
        let small = rel(small);
        // A small tree, walked on the calling thread, is walked as the parallel walk walks it.
        assert_eq!(small, rel(parallel));
        small
    }

    #[test]
    fn hands_on_in_byte_wise_path_order_as_collect_sorts() {
        let d = tempfile::tempdir().unwrap();
        // `a-b/x` < `a.txt` < `a/x` byte-wise, though the folder `a` sorts first by name.
        let files: Vec<String> =
            ["a/x", "a-b/x", "a.txt", "a/b/c/d", "a/b-c", "b", "A", "_", "a/b/c.e", ".hidden/z", "ign/y"]
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
            assert_eq!(
                names,
                ["A", "_", "a-b/x", "a.txt", "a/b-c", "a/b/c.e", "a/b/c/d", "a/x", "b"],
                "{threads} threads"
            );
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
            .visit_ordered(
                2,
                || |_: &super::WalkedFile| (),
                |file, ()| {
                    seen.push(file.rel);
                    if seen.len() == 3 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
                },
            )
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
