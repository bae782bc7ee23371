//! What changed in the tree, from inotify: read without blocking before
//! each search, so every write that finished before the search began is
//! seen (the kernel queues an event when the write returns).

use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

/// The folders watched, by watch descriptor.
pub(crate) struct Watch {
    fd: OwnedFd,
    folders: HashMap<i32, String>,
    watched: HashMap<String, i32>,
    /// Folders outside the tree watched for a few names only: ignore files
    /// of the root's parents, git's `info/exclude`, the global excludes
    /// file. A change to one of these names changes what a walk takes.
    sentinels: HashMap<i32, Vec<String>>,
}

/// One change to a name in a watched folder.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// A file's content or attributes may have changed, or it appeared.
    File { rel: String, created: bool },
    /// A file is gone from this name.
    Gone { rel: String },
    /// Folders came or went, or events were lost: only a walk can tell.
    Walk,
}

/// Names whose change changes which files a walk takes.
pub(crate) const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

const FLAGS: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CREATE)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DONT_FOLLOW)
    .union(WatchFlags::ONLYDIR);

impl Watch {
    pub(crate) fn new() -> std::io::Result<Watch> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        Ok(Watch { fd, folders: HashMap::new(), watched: HashMap::new(), sentinels: HashMap::new() })
    }

    /// Watches the folder `abs`, outside the tree, for changes to `names`
    /// (a folder that is not there is not watched: nothing in it can count).
    pub(crate) fn sentinel(&mut self, abs: &Path, names: &[&str]) {
        if let Ok(wd) = inotify::add_watch(&self.fd, abs, FLAGS) {
            self.sentinels.entry(wd).or_default().extend(names.iter().map(|n| n.to_string()));
        }
    }

    /// Watches the folder `rel` (`""` for the root) at `abs`, once.
    pub(crate) fn folder(&mut self, rel: &str, abs: &Path) -> std::io::Result<()> {
        if self.watched.contains_key(rel) {
            return Ok(());
        }
        // The same folder watched twice (a sentinel inside the tree) keeps
        // one descriptor: the flags are the same, so either kind can share it.
        let wd = inotify::add_watch(&self.fd, abs, FLAGS)?;
        self.folders.insert(wd, rel.to_string());
        self.watched.insert(rel.to_string(), wd);
        Ok(())
    }

    /// Every change queued since the last call.
    pub(crate) fn changes(&mut self) -> Vec<Change> {
        let mut out = Vec::new();
        let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = inotify::Reader::new(&self.fd, &mut buf);
        loop {
            let event = match reader.next() {
                Ok(event) => event,
                Err(e) if e == rustix::io::Errno::AGAIN => break,
                Err(e) if e == rustix::io::Errno::INTR => continue,
                Err(_) => {
                    out.push(Change::Walk);
                    break;
                }
            };
            let flags = event.events();
            if flags.contains(ReadFlags::QUEUE_OVERFLOW) || flags.contains(ReadFlags::IGNORED) {
                out.push(Change::Walk);
                continue;
            }
            let watched = self.folders.contains_key(&event.wd());
            if flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
                if watched {
                    out.push(Change::Walk);
                }
                continue;
            }
            let Some(name) = event.file_name() else { continue };
            let name = aide_core::text::path_name(name.to_bytes());
            if self.sentinels.get(&event.wd()).is_some_and(|names| names.contains(&name)) {
                out.push(Change::Walk);
                continue;
            }
            let Some(folder) = self.folders.get(&event.wd()) else { continue };
            if flags.contains(ReadFlags::ISDIR) || IGNORE_FILES.contains(&name.as_str()) {
                if !flags.intersects(ReadFlags::MODIFY | ReadFlags::CLOSE_WRITE | ReadFlags::ATTRIB)
                    || IGNORE_FILES.contains(&name.as_str())
                {
                    out.push(Change::Walk);
                }
                continue;
            }
            let rel = if folder.is_empty() { name } else { format!("{folder}/{name}") };
            if flags.intersects(ReadFlags::DELETE | ReadFlags::MOVED_FROM) {
                out.push(Change::Gone { rel });
            } else {
                let created = flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO);
                out.push(Change::File { rel, created });
            }
        }
        out
    }

    pub(crate) fn folders(&self) -> usize {
        self.watched.len()
    }
}
