//! Searches through a trigram index, kept for the life of a process that
//! asks for it ([`keep_indexes`]: `aide mcp`). One index a root, walk
//! setting and paths, built in the background after the first search of
//! them, refreshed before each search from inotify (or a walk where nothing
//! watches), and used only where its answer is the answer of a full walk:
//! every file the walk takes is there, each that can hold a match is
//! searched by the same engine, and the rest count as searched without a
//! match. A tree of fewer than [`MIN_FILES`] files is walked, unless
//! indexes are [`Indexing::Always`] (built before the first search answers).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use aide_core::envelope::Diagnostic;
use aide_core::walk::WalkedFile;
use aide_core::{Root, sync::lock};
use aide_index::{Query, Syntax, TreeIndex};

mod walks;

use walks::{Noted, SearchWalk, walk};

use crate::request::SearchRequest;

/// Trees with fewer files are searched whole: a walk is as fast.
pub const MIN_FILES: usize = 2_000;
/// Indexes kept at once; the least recently used goes first.
const MAX_INDEXES: usize = 4;
/// Memory the indexes may hold together.
const MAX_MEMORY: usize = 2 << 30;

static KEPT: OnceLock<Kept> = OnceLock::new();

/// When a process keeps indexes (`AIDE_INDEX` for `aide mcp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Indexing {
    Off,
    /// Trees of [`MIN_FILES`] files or more, built in the background after
    /// their first search (which walks).
    #[default]
    Auto,
    /// Every tree, built before its first search answers.
    Always,
}

impl Indexing {
    /// `off`, `auto` or `always` (None for anything else).
    pub fn parse(text: &str) -> Option<Indexing> {
        match text {
            "off" => Some(Indexing::Off),
            "auto" => Some(Indexing::Auto),
            "always" => Some(Indexing::Always),
            _ => None,
        }
    }
}

/// Turns indexes on for this process (`aide mcp`, for its lifetime).
pub fn keep_indexes(indexing: Indexing) {
    if indexing != Indexing::Off {
        let _ = KEPT.set(Kept { indexing, ..Kept::default() });
    }
}

/// What each index held now describes, for `aide doctor` (a process that
/// keeps indexes writes them to `$AIDE_HOME/indexes/PID.json`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Held {
    pub root: String,
    pub state: String,
    /// Searches it answered.
    pub searches: u64,
    pub files: usize,
    pub bytes_indexed: u64,
    pub memory_bytes: usize,
    pub folders_watched: usize,
    pub watching: bool,
}

/// The indexes this process holds.
pub fn held() -> Vec<Held> {
    let Some(kept) = KEPT.get() else { return Vec::new() };
    let slots = lock(&kept.slots);
    let mut out: Vec<Held> = slots
        .values()
        .map(|slot| {
            let (state, stats) = match &slot.state {
                State::Building => ("building", None),
                State::Walked => ("walked: too small, or the walk follows links", None),
                State::TooLarge => ("walked: its index would hold more than the memory allowed (2 GiB)", None),
                State::Ready(indexed) => ("ready", Some(lock(indexed).index.stats())),
            };
            Held {
                root: slot.root.clone(),
                state: state.to_string(),
                searches: slot.searches,
                files: stats.map_or(0, |s| s.files),
                bytes_indexed: stats.map_or(0, |s| s.bytes_indexed),
                memory_bytes: stats.map_or(0, |s| s.memory_bytes),
                folders_watched: stats.map_or(0, |s| s.folders_watched),
                watching: stats.is_some_and(|s| s.watching),
            }
        })
        .collect();
    out.sort_by(|a, b| a.root.cmp(&b.root));
    out
}

#[derive(Default)]
struct Kept {
    slots: Mutex<HashMap<String, Slot>>,
    clock: AtomicU64,
    indexing: Indexing,
}

struct Slot {
    root: String,
    state: State,
    used: u64,
    searches: u64,
}

enum State {
    Building,
    /// Searched by walking: too few files, or a walk that follows links.
    Walked,
    /// Searched by walking: its index would pass [`MAX_MEMORY`] alone.
    TooLarge,
    Ready(Arc<Mutex<Indexed>>),
}

/// An index and what the walk says of the tree beside its files.
struct Indexed {
    index: TreeIndex,
    noted: Noted,
}

/// The files of a search, from the index: how many the walk would take,
/// in path order, and which of them can hold a match (the others are
/// searched, as it were, without one).
pub(crate) struct Listing {
    /// How many files the walk takes.
    pub(crate) files: usize,
    /// Those that can hold a match, each with its position among them.
    pub(crate) candidates: Vec<(usize, WalkedFile)>,
    /// What the walk says of the entries it skips.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The listing of `req`'s files from this process's own index (`aide mcp`,
/// a keeper); None when it keeps none, none is ready, or the search's
/// files cannot come from an index (`--changed`).
pub(crate) fn listing(root: &Root, req: &SearchRequest, threads: usize) -> Option<Listing> {
    match KEPT.get() {
        Some(kept) if req.walk.changed.is_none() => kept_listing(kept, root, req, threads),
        _ => None,
    }
}

/// Whether this process keeps its own indexes (a search that walks then
/// starts no keeper).
pub(crate) fn keeps_indexes() -> bool {
    KEPT.get().is_some()
}

/// The listing from this process's index of `req`'s files, if one is
/// ready; else None, and an index is started in the background when none is.
fn kept_listing(kept: &'static Kept, root: &Root, req: &SearchRequest, threads: usize) -> Option<Listing> {
    let key = serde_json::to_string(&(root.path(), &req.walk, &req.paths)).ok()?;
    let used = kept.clock.fetch_add(1, Ordering::Relaxed);
    let index = {
        let mut slots = lock(&kept.slots);
        match slots.get_mut(&key) {
            Some(slot) => {
                slot.used = used;
                match &slot.state {
                    State::Ready(index) => index.clone(),
                    State::Building | State::Walked | State::TooLarge => return None,
                }
            }
            None => {
                let root_shown = root.path().display().to_string();
                slots.insert(key.clone(), Slot { root: root_shown, state: State::Building, used, searches: 0 });
                drop(slots);
                if kept.indexing == Indexing::Auto {
                    start_building(kept, key, root.clone(), req.clone(), threads);
                    return None;
                }
                build(kept, &key, root, req, threads);
                match &lock(&kept.slots).get(&key)?.state {
                    State::Ready(index) => index.clone(),
                    State::Building | State::Walked | State::TooLarge => return None,
                }
            }
        }
    };
    let mut indexed = lock(&index);
    let Indexed { index, noted } = &mut *indexed;
    let walks = SearchWalk { root, req, threads, noted, said: Default::default() };
    let fresh = index.refresh(&walks);
    let said = walks.said.into_inner();
    let too_large = index.stats().memory_bytes > MAX_MEMORY;
    if !fresh || too_large {
        // Locks are taken slots first, then an index: this one is let go first.
        drop(indexed);
        let mut slots = lock(&kept.slots);
        match slots.get_mut(&key) {
            Some(slot) if too_large => slot.state = State::TooLarge,
            _ => drop(slots.remove(&key)),
        }
        return None;
    }
    noted.update(said);
    let query = Query::of_patterns(&req.pattern, syntax(req));
    let (files, listed) = index.listed(&query, req.walk.max_filesize);
    let candidates = listed
        .into_iter()
        .map(|(position, entry)| {
            let depth = entry.rel.matches('/').count() + 1;
            (position, WalkedFile { abs: entry.abs.clone(), rel: entry.rel.clone(), depth, is_dir: false })
        })
        .collect();
    let diagnostics = noted.all(root);
    // Said with the index let go: what it holds is read again to say it.
    drop(indexed);
    if let Some(slot) = lock(&kept.slots).get_mut(&key) {
        slot.searches += 1;
    }
    publish();
    Some(Listing { files, candidates, diagnostics })
}

/// How the search reads its patterns, loosened where that only adds
/// candidates: smart case as case-insensitive, `--word` left out.
fn syntax(req: &SearchRequest) -> Syntax {
    Syntax {
        case_insensitive: req.ignore_case || req.smart_case,
        multi_line: true,
        dot_matches_new_line: req.multiline && req.multiline_dotall,
        fixed_strings: req.fixed_strings,
    }
}

/// Builds `key`'s index on a thread of its own, with half the search's
/// threads (the agent's next calls go on meanwhile); without a thread, the
/// next search walks again and tries once more.
fn start_building(kept: &'static Kept, key: String, root: Root, req: SearchRequest, threads: usize) {
    let threads = (threads / 2).max(1);
    let started = std::thread::Builder::new()
        .name("aide-index".into())
        .spawn({
            let key = key.clone();
            move || build(kept, &key, &root, &req, threads)
        })
        .is_ok();
    if !started {
        lock(&kept.slots).remove(&key);
    }
}

/// Walks and indexes `key`'s tree, then walks once more for what changed
/// while it read; a tree too small for [`Indexing::Auto`], or whose walk
/// follows links, is walked by its searches instead.
fn build(kept: &Kept, key: &str, root: &Root, req: &SearchRequest, threads: usize) {
    let min_files = if kept.indexing == Indexing::Always { 0 } else { MIN_FILES };
    let state = match walk(root, req, threads) {
        Some((walked, _)) if walked.iter().filter(|w| !w.is_dir).count() >= min_files => {
            match TreeIndex::build_within(root.path(), &walked, threads, MAX_MEMORY) {
                Some(mut index) => match walk(root, req, threads) {
                    Some((again, diagnostics)) => {
                        index.resync(&again);
                        State::Ready(Arc::new(Mutex::new(Indexed { index, noted: Noted::of(diagnostics) })))
                    }
                    None => State::Walked,
                },
                None => State::TooLarge,
            }
        }
        _ => State::Walked,
    };
    let mut slots = lock(&kept.slots);
    if let Some(slot) = slots.get_mut(key) {
        slot.state = state;
    }
    evict(&mut slots);
    drop(slots);
    publish();
}

/// Where a process keeping indexes says what it holds.
pub fn status_dir() -> std::path::PathBuf {
    aide_core::home::aide_home().join("indexes")
}

/// Writes what this process holds to its status file, after every search:
/// renamed into place, so a reader never sees half of it, but not synced
/// (the file only informs `aide doctor`, and a search must not wait on the
/// disk for it).
fn publish() {
    let dir = status_dir();
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    if let Ok(json) = serde_json::to_vec(&held()) {
        let _ = aide_core::fsutil::replace(&dir.join(format!("{}.json", std::process::id())), &json);
    }
}

/// Removes this process's status file (a keeper that ends).
pub(crate) fn forget_status() {
    let _ = std::fs::remove_file(status_dir().join(format!("{}.json", std::process::id())));
}

/// The indexes every running process keeps, by its pid (status files of
/// processes that are gone are removed).
pub fn held_by_processes() -> Vec<(u32, Vec<Held>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(status_dir()).into_iter().flatten().flatten() {
        let path = entry.path();
        let Some(pid) = path.file_stem().and_then(|s| s.to_str()).and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        let held = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<Vec<Held>>(&b).ok());
        out.push((pid, held.unwrap_or_default()));
    }
    out.sort_by_key(|(pid, _)| *pid);
    out
}

/// Drops the least recently used indexes past the count or memory allowed.
fn evict(slots: &mut HashMap<String, Slot>) {
    loop {
        let ready: Vec<(&String, u64, usize)> = slots
            .iter()
            .filter_map(|(k, s)| match &s.state {
                State::Ready(indexed) => Some((k, s.used, lock(indexed).index.stats().memory_bytes)),
                _ => None,
            })
            .collect();
        let memory: usize = ready.iter().map(|r| r.2).sum();
        if ready.len() <= MAX_INDEXES && memory <= MAX_MEMORY {
            return;
        }
        let Some(oldest) = ready.iter().min_by_key(|r| r.1).map(|r| r.0.clone()) else { return };
        slots.remove(&oldest);
    }
}
