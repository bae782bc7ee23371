//! The index of one tree: every file a walk takes, by id, its trigrams in
//! the postings; kept fresh from inotify (a file re-read when it changed,
//! gone when deleted) and from a walk when folders or ignore files change.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::postings::{self, Postings};
use crate::query::Query;
use crate::trigram::{self, Seen};
use crate::watch::{Change, IGNORE_FILES, Watch};

/// Files over this many bytes are not indexed: always searched.
const MAX_INDEXED_FILE: u64 = 64 << 20;

/// A file or folder the walk took.
#[derive(Debug, Clone)]
pub struct Walked {
    pub rel: String,
    pub abs: PathBuf,
    pub is_dir: bool,
}

/// How the index learns which files a walk of its tree takes.
pub trait Walk {
    /// Every file and folder of the tree; None when the walk fails or
    /// warns (the index then no longer stands for the tree).
    fn tree(&self) -> Option<Vec<Walked>>;
    /// The files and folders directly in the folder `rel` (`""`: the
    /// root), as the walk of the tree takes them; None when they cannot be
    /// told apart from that walk (the tree is walked instead).
    fn folder(&self, rel: &str) -> Option<Vec<Walked>>;
    /// Whether the walk says something of the folder `rel` that only a
    /// walk of it can bring up to date (a link it skips, a name it shows
    /// lossily): any change there walks it.
    fn noted(&self, _rel: &str) -> bool {
        false
    }
}

/// A file of the index.
#[derive(Debug)]
pub struct Entry {
    pub rel: String,
    pub abs: PathBuf,
    stamp: Option<Stamp>,
    live: bool,
}

/// What tells a file changed without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    dev: u64,
    /// Modified within a second of being read: a later write in the same
    /// clock tick would leave the same stamp, so it is read again (git's
    /// "racily clean" entries).
    racy: bool,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            size: m.size(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
            racy: m.modified().ok().and_then(|t| t.elapsed().ok()).is_none_or(|age| age.as_secs() < 1),
        })
    }
}

/// What the index holds, for `aide doctor` and the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub files: usize,
    pub bytes_indexed: u64,
    /// Bytes of memory the index holds (postings and entries).
    pub memory_bytes: usize,
    pub folders_watched: usize,
    /// False when inotify could not watch the tree: every search walks and
    /// compares each file's size, times and inode instead.
    pub watching: bool,
}

/// The trigram index of one tree.
pub struct TreeIndex {
    entries: Vec<Entry>,
    /// The id of each file there is, in byte order of the paths.
    live: BTreeMap<String, u32>,
    /// `live`'s ids in its order and each one's place in it, kept until
    /// `live` changes.
    order: std::sync::OnceLock<Order>,
    postings: Postings,
    /// Files searched whatever the query: unreadable, or too large to index.
    always: Vec<u32>,
    bytes_indexed: u64,
    /// Bytes the entries hold, kept as they are added (see `stats`).
    entry_bytes: usize,
    watch: Option<Watch>,
    threads: usize,
}

impl TreeIndex {
    /// Indexes the files of `walked` (in the walk's order) on `threads`
    /// threads, and watches its folders (`root` among them).
    pub fn build(root: &Path, walked: &[Walked], threads: usize) -> TreeIndex {
        TreeIndex::build_bounded(root, walked, threads, usize::MAX).0
    }

    /// As [`TreeIndex::build`], given up (None) once it holds more than
    /// `max_memory` bytes: the reading stops there.
    pub fn build_within(root: &Path, walked: &[Walked], threads: usize, max_memory: usize) -> Option<TreeIndex> {
        let (index, whole) = TreeIndex::build_bounded(root, walked, threads, max_memory);
        whole.then_some(index)
    }

    /// The index, and whether it holds every file (false: it grew past
    /// `max_memory` and the reading stopped).
    fn build_bounded(root: &Path, walked: &[Walked], threads: usize, max_memory: usize) -> (TreeIndex, bool) {
        let mut index = TreeIndex {
            entries: Vec::new(),
            live: BTreeMap::new(),
            order: std::sync::OnceLock::new(),
            postings: Postings::default(),
            always: Vec::new(),
            bytes_indexed: 0,
            entry_bytes: 0,
            watch: Watch::new().ok(),
            threads: threads.max(1),
        };
        index.watch_folder("", root);
        if let Some(watch) = index.watch.as_mut() {
            watch_what_else_ignores(watch, root);
        }
        let files: Vec<&Walked> = walked.iter().filter(|w| !w.is_dir).collect();
        for w in walked.iter().filter(|w| w.is_dir) {
            index.watch_folder(&w.rel, &w.abs);
        }
        for chunk in files.chunks(4096) {
            index.add_all(chunk);
            if index.stats().memory_bytes > max_memory {
                return (index, false);
            }
        }
        index.postings.shrink();
        (index, true)
    }

    /// Brings the index up to what the tree is now: changed files re-read,
    /// deleted ones dropped, the folders of new names walked alone (only a
    /// walk knows whether a new name is ignored); when folders or ignore
    /// files changed, or nothing watches the tree, the tree is walked.
    /// False when a walk failed: the index no longer stands for the tree.
    pub fn refresh(&mut self, walk: &dyn Walk) -> bool {
        let changes = match self.watch.as_mut() {
            Some(watch) => watch.changes(),
            None => vec![Change::Walk],
        };
        if changes.contains(&Change::Walk) {
            return self.walk_tree(walk);
        }
        let mut to_walk = std::collections::BTreeSet::new();
        for change in changes {
            let folder = |rel: &str| rel.rsplit_once('/').map_or(String::new(), |(folder, _)| folder.into());
            match change {
                Change::File { rel, created } => {
                    match self.live.get(&rel).copied() {
                        Some(id) => self.reread(id),
                        None if created => drop(to_walk.insert(folder(&rel))),
                        None => {}
                    }
                    if walk.noted(&folder(&rel)) {
                        to_walk.insert(folder(&rel));
                    }
                }
                Change::Gone { rel } => {
                    self.remove(&rel);
                    if walk.noted(&folder(&rel)) {
                        to_walk.insert(folder(&rel));
                    }
                }
                Change::Walk => {}
            }
        }
        for folder in to_walk {
            match walk.folder(&folder) {
                Some(walked) => self.reconcile_folder(&folder, &walked),
                None => return self.walk_tree(walk),
            }
        }
        true
    }

    fn walk_tree(&mut self, walk: &dyn Walk) -> bool {
        match walk.tree() {
            Some(walked) => {
                self.reconcile(&walked);
                true
            }
            None => false,
        }
    }

    /// Makes the index hold exactly `walked`, whatever inotify said (after
    /// a build, for what changed while it read).
    pub fn resync(&mut self, walked: &[Walked]) {
        if let Some(watch) = self.watch.as_mut() {
            watch.changes();
        }
        self.reconcile(walked);
    }

    /// How many files there are, and those that can hold a match of
    /// `query`, each with its position among them in byte order of the
    /// paths: files over `max_filesize` can (the search says they were
    /// skipped), as can those the index could not read and those with a
    /// NUL byte (the search says they are binary).
    pub fn listed(&self, query: &Query, max_filesize: Option<u64>) -> (usize, Vec<(usize, &Entry)>) {
        let order = self.order.get_or_init(|| Order::of(&self.live, self.entries.len()));
        let mut ids = self.matching(query);
        ids.extend_from_slice(&self.always);
        if let Some(max) = max_filesize {
            let large = |id: &u32| self.entries[*id as usize].stamp.is_none_or(|s| s.size > max);
            ids.extend(order.ids.iter().copied().filter(large));
        }
        // Ids of files since changed or gone have no place: they are not listed.
        let mut listed: Vec<(usize, &Entry)> =
            ids.into_iter().filter_map(|id| Some((order.place(id)?, &self.entries[id as usize]))).collect();
        listed.sort_unstable_by_key(|&(place, _)| place);
        listed.dedup_by_key(|&mut (place, _)| place);
        (order.ids.len(), listed)
    }

    /// The files that can hold a match of `query`, in byte order of their paths.
    pub fn candidates(&self, query: &Query) -> Vec<&Entry> {
        self.listed(query, None).1.into_iter().map(|(_, e)| e).collect()
    }

    pub fn stats(&self) -> Stats {
        Stats {
            files: self.live.len(),
            bytes_indexed: self.bytes_indexed,
            memory_bytes: self.postings.size() + self.entry_bytes + self.live.len() * 48,
            folders_watched: self.watch.as_ref().map_or(0, Watch::folders),
            watching: self.watch.is_some(),
        }
    }

    fn matching(&self, query: &Query) -> Vec<u32> {
        match query {
            Query::All => (0..self.entries.len() as u32).collect(),
            Query::Trigrams(needed) => self.postings.holding_all(needed),
            Query::And(parts) => {
                let mut parts = parts.iter();
                let Some(first) = parts.next() else { return self.matching(&Query::All) };
                parts.fold(self.matching(first), |ids, q| postings::intersect(&ids, &self.matching(q)))
            }
            Query::Or(parts) => parts.iter().fold(Vec::new(), |ids, q| postings::union(&ids, &self.matching(q))),
        }
    }

    fn watch_folder(&mut self, rel: &str, abs: &Path) {
        let failed = self.watch.as_mut().is_some_and(|w| w.folder(rel, abs).is_err());
        if failed {
            // Out of watches (fs.inotify.max_user_watches): walk every time instead.
            self.watch = None;
        }
    }

    /// Reads and indexes `files`, new ids in their order: each chunk read
    /// on the index's threads while the one before is added to the lists.
    fn add_all(&mut self, files: &[&Walked]) {
        let threads = self.threads;
        let mut chunks = files.chunks(256 * threads);
        let Some(first) = chunks.next() else { return };
        let mut read = (first, read_trigrams(first, threads));
        let last = std::thread::scope(|s| {
            for chunk in chunks {
                let next = s.spawn(move || read_trigrams(chunk, threads));
                let (done, trigrams) = std::mem::replace(&mut read, (chunk, Vec::new()));
                self.add_read(done, trigrams);
                read.1 = next.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            }
            read
        });
        self.add_read(last.0, last.1);
    }

    #[allow(clippy::type_complexity)]
    fn add_read(&mut self, chunk: &[&Walked], read: Vec<(Option<Stamp>, Option<(u64, Vec<trigram::Trigram>)>)>) {
        for (w, (stamp, trigrams)) in chunk.iter().zip(read) {
            self.add(w, stamp, trigrams);
        }
    }

    fn add(&mut self, w: &Walked, stamp: Option<Stamp>, trigrams: Option<(u64, Vec<trigram::Trigram>)>) {
        let id = self.entries.len() as u32;
        self.order.take();
        if let Some(old) = self.live.insert(w.rel.clone(), id) {
            self.entries[old as usize].live = false;
        }
        match trigrams {
            Some((bytes, trigrams)) => {
                self.bytes_indexed += bytes;
                self.postings.add(id, &trigrams);
            }
            None => self.always.push(id),
        }
        self.entry_bytes += std::mem::size_of::<Entry>() + w.rel.len() + w.abs.as_os_str().len();
        self.entries.push(Entry { rel: w.rel.clone(), abs: w.abs.clone(), stamp, live: true });
    }

    fn remove(&mut self, rel: &str) {
        if let Some(id) = self.live.remove(rel) {
            self.order.take();
            self.entries[id as usize].live = false;
        }
    }

    /// Reads a file inotify says changed again, whatever its stamp says:
    /// two writes within the clock's tick leave the same size and times.
    fn reread(&mut self, id: u32) {
        let entry = &self.entries[id as usize];
        let w = Walked { rel: entry.rel.clone(), abs: entry.abs.clone(), is_dir: false };
        if std::fs::metadata(&w.abs).is_err() {
            return self.remove(&w.rel);
        }
        self.add_all(&[&w]);
    }

    /// Makes the index hold exactly the files of `walked`: new ones read,
    /// changed ones (by size, times and inode) read again, gone ones dropped.
    fn reconcile(&mut self, walked: &[Walked]) {
        for w in walked.iter().filter(|w| w.is_dir) {
            self.watch_folder(&w.rel, &w.abs);
        }
        let files: Vec<&Walked> = walked.iter().filter(|w| !w.is_dir).collect();
        let present: std::collections::HashSet<&str> = files.iter().map(|w| w.rel.as_str()).collect();
        let gone: Vec<String> = self.live.keys().filter(|rel| !present.contains(rel.as_str())).cloned().collect();
        for rel in gone {
            self.remove(&rel);
        }
        self.read_stale(files);
    }

    /// As [`TreeIndex::reconcile`], for the files directly in `folder`:
    /// `walked` is what its walk alone takes.
    fn reconcile_folder(&mut self, folder: &str, walked: &[Walked]) {
        for w in walked.iter().filter(|w| w.is_dir) {
            self.watch_folder(&w.rel, &w.abs);
        }
        let in_folder = |rel: &str| rel.rsplit_once('/').map_or("", |(f, _)| f) == folder;
        let files: Vec<&Walked> = walked.iter().filter(|w| !w.is_dir && in_folder(&w.rel)).collect();
        let present: std::collections::HashSet<&str> = files.iter().map(|w| w.rel.as_str()).collect();
        let from = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        let gone: Vec<String> = self
            .live
            .range(from.clone()..)
            .take_while(|(rel, _)| rel.starts_with(&from))
            .filter(|(rel, _)| in_folder(rel) && !present.contains(rel.as_str()))
            .map(|(rel, _)| rel.clone())
            .collect();
        for rel in gone {
            self.remove(&rel);
        }
        self.read_stale(files);
    }

    /// Reads those of `files` that are new or changed (by size, times and inode).
    fn read_stale(&mut self, files: Vec<&Walked>) {
        let stale: Vec<&Walked> = files
            .into_iter()
            .filter(|w| match self.live.get(&w.rel) {
                Some(&id) => {
                    let entry = &self.entries[id as usize];
                    entry.stamp.is_none_or(|s| s.racy) || Stamp::of(&w.abs) != entry.stamp
                }
                None => true,
            })
            .collect();
        self.add_all(&stale);
    }
}

/// Watches what else decides which files a walk takes, outside the tree:
/// the ignore files of the root's parents (a walk honours them), the
/// repository's `info/exclude`, and git's global excludes file with the
/// `.gitconfig` that may name it. A change there makes the next refresh walk.
fn watch_what_else_ignores(watch: &mut Watch, root: &Path) {
    for parent in root.ancestors().skip(1) {
        watch.sentinel(parent, &IGNORE_FILES);
    }
    if let Some(git) = root.ancestors().map(|a| a.join(".git")).find(|g| g.is_dir()) {
        watch.sentinel(&git, &["info"]);
        watch.sentinel(&git.join("info"), &["exclude"]);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some(home) = &home {
        watch.sentinel(home, &[".gitconfig"]);
    }
    let config = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).or_else(|| home.map(|h| h.join(".config")));
    if let Some(config) = config {
        watch.sentinel(&config, &["git"]);
        watch.sentinel(&config.join("git"), &["ignore", "config"]);
    }
    let excludes = excludes_file();
    if let Some((folder, Some(name))) = excludes.as_ref().and_then(|e| Some((e.parent()?, e.file_name()?.to_str()))) {
        watch.sentinel(folder, &[name]);
    }
}

/// The file `core.excludesFile` names in `~/.gitconfig`, `~` expanded.
fn excludes_file() -> Option<PathBuf> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    let config = std::fs::read_to_string(home.join(".gitconfig")).ok()?;
    let value = config.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        key.trim().eq_ignore_ascii_case("excludesfile").then(|| value.trim().trim_matches('"').to_string())
    })?;
    Some(match value.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => PathBuf::from(value),
    })
}

/// The files there are in byte order of their paths, and where each id
/// stands in it: a search lists its candidates by place without going
/// through every file.
struct Order {
    ids: Vec<u32>,
    /// By id: its place in `ids`, or [`Order::GONE`].
    places: Vec<u32>,
}

impl Order {
    const GONE: u32 = u32::MAX;

    fn of(live: &BTreeMap<String, u32>, entries: usize) -> Order {
        let ids: Vec<u32> = live.values().copied().collect();
        let mut places = vec![Order::GONE; entries];
        for (place, &id) in ids.iter().enumerate() {
            places[id as usize] = place as u32;
        }
        Order { ids, places }
    }

    fn place(&self, id: u32) -> Option<usize> {
        self.places.get(id as usize).copied().filter(|&p| p != Order::GONE).map(|p| p as usize)
    }
}

/// Each file's stamp and trigrams (None: searched always), in order.
#[allow(clippy::type_complexity)]
fn read_trigrams(files: &[&Walked], threads: usize) -> Vec<(Option<Stamp>, Option<(u64, Vec<trigram::Trigram>)>)> {
    let per = files.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    let mut seen = Seen::default();
                    part.iter()
                        .map(|w| {
                            // The stamp before the read: a write after it shows as a change next time.
                            let stamp = Stamp::of(&w.abs);
                            let bytes = match stamp {
                                Some(s) if s.size <= MAX_INDEXED_FILE => std::fs::read(&w.abs).ok(),
                                _ => None,
                            };
                            // A file with a NUL byte is binary to the search, which says so.
                            let trigrams = bytes.filter(|b| !b.contains(&0)).map(|b| {
                                seen.add(&b);
                                (b.len() as u64, seen.take_unsorted())
                            });
                            (stamp, trigrams)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    })
}

#[cfg(test)]
mod tests;
