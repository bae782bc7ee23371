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
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

impl Watch {
    pub(crate) fn new() -> std::io::Result<Watch> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        Ok(Watch { fd, folders: HashMap::new(), watched: HashMap::new() })
    }

    /// Watches the folder `rel` (`""` for the root) at `abs`, once.
    pub(crate) fn folder(&mut self, rel: &str, abs: &Path) -> std::io::Result<()> {
        if self.watched.contains_key(rel) {
            return Ok(());
        }
        let flags = WatchFlags::MODIFY
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::ATTRIB
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::ONLYDIR;
        let wd = inotify::add_watch(&self.fd, abs, flags)?;
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
            if flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
                out.push(Change::Walk);
                continue;
            }
            let (Some(folder), Some(name)) = (self.folders.get(&event.wd()), event.file_name()) else { continue };
            let name = aide_core::text::path_name(name.to_bytes());
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
