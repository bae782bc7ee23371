//! The checksums of large files, remembered between runs, so a search over
//! an unchanged tree does not hash the same megabytes again.
//!
//! An entry is the file's identity and change stamp — device, inode, size,
//! modification and status-change times to the nanosecond — and the
//! SHA-256 of its bytes. It is used only for a file whose stamp is exactly
//! the same before and after it was read, and stored only for a file that
//! had *settled*: its status-change time (which every write moves, and which
//! no program can set back) more than [`SETTLED`] before the hash. A write
//! after that moves the time past what the entry holds (the kernel's clock
//! ticks in milliseconds, not seconds), so a changed file never matches an
//! entry; within that window nothing is stored (as git's "racily clean"
//! rule). Only files of at least [`MIN_SIZE`] are remembered: smaller ones
//! hash faster than a lookup pays for. And only on local filesystems whose
//! status-change time the kernel itself keeps ([`Cache::usable_for`]): a
//! FUSE or network mount may report whatever its server says.
//!
//! The file, `$AIDE_HOME/cache/checksums`, is `MAGIC` then fixed-size
//! records sorted by (device, inode): read whole on the first lookup of a
//! run, written whole (renamed into place) at the end of a run that learned
//! something. A damaged or foreign file reads as empty. Concurrent runs may
//! overwrite each other's additions: a lost entry only costs a hash.
//! `AIDE_CHECKSUM_CACHE=off` turns it off.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

pub use crate::fsutil::{SETTLED, Stamp};

/// Files smaller than this are hashed every time.
pub const MIN_SIZE: u64 = 64 << 10;

/// At most this many entries are kept (1.4 MB, read once by a run that
/// looks one up): those a run learned first, then those it read, in the
/// file's order — a bound, not a least-recently-used order.
const MAX_ENTRIES: usize = 20_000;

const MAGIC: &[u8; 16] = b"aide-checksums1\n";
const RECORD: usize = 8 * 5 + 32;

/// A stamp as the cache file holds it: five little-endian 8-byte numbers.
impl Stamp {
    fn write(&self, out: &mut Vec<u8>) {
        for n in [self.dev, self.ino, self.size] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for n in [self.mtime_ns, self.ctime_ns] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    fn read(bytes: &[u8]) -> Option<Stamp> {
        let u = |i: usize| bytes.get(i * 8..i * 8 + 8).and_then(|b| b.try_into().ok());
        Some(Stamp {
            dev: u64::from_le_bytes(u(0)?),
            ino: u64::from_le_bytes(u(1)?),
            size: u64::from_le_bytes(u(2)?),
            mtime_ns: i64::from_le_bytes(u(3)?),
            ctime_ns: i64::from_le_bytes(u(4)?),
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    stamp: Stamp,
    sha256: [u8; 32],
}

/// The cache of one run: read on first use, saved by [`Cache::save`].
#[derive(Debug)]
pub struct Cache {
    path: Option<PathBuf>,
    stored: OnceLock<Vec<Entry>>,
    learned: Mutex<Vec<Entry>>,
    /// Per device: whether its filesystem keeps an honest ctime.
    filesystems: Mutex<std::collections::HashMap<u64, bool>>,
}

impl Cache {
    /// The user's cache under `$AIDE_HOME`, unless `AIDE_CHECKSUM_CACHE=off`.
    pub fn open() -> Cache {
        let off = std::env::var("AIDE_CHECKSUM_CACHE").is_ok_and(|v| v == "off" || v == "0");
        Cache::at((!off).then(|| crate::home::aide_home().join("cache").join("checksums")))
    }

    /// A cache kept in the file at `path`; None: one that remembers nothing.
    pub fn at(path: Option<PathBuf>) -> Cache {
        Cache { path, stored: OnceLock::new(), learned: Mutex::new(Vec::new()), filesystems: Mutex::default() }
    }

    /// Whether the open `file`, opened at `stamp`, may be looked up and
    /// remembered: large enough, and on a filesystem that keeps an honest
    /// ctime (asked once per device).
    pub fn usable_for(&self, file: &std::fs::File, stamp: &Stamp) -> bool {
        if !self.covers(stamp.size) {
            return false;
        }
        *crate::sync::lock(&self.filesystems)
            .entry(stamp.dev)
            .or_insert_with(|| rustix::fs::fstatfs(file).is_ok_and(|fs| keeps_honest_ctime(i128::from(fs.f_type))))
    }

    /// Whether a file of `size` bytes is looked up at all.
    pub fn covers(&self, size: u64) -> bool {
        self.path.is_some() && size >= MIN_SIZE
    }

    /// The lowercase hex SHA-256 remembered for a file with exactly `stamp`.
    pub fn get(&self, stamp: &Stamp) -> Option<String> {
        if !self.covers(stamp.size) {
            return None;
        }
        let stored = self.stored.get_or_init(|| self.path.as_deref().map(load).unwrap_or_default());
        let at = stored.binary_search_by(|e| (e.stamp.dev, e.stamp.ino).cmp(&(stamp.dev, stamp.ino))).ok()?;
        let entry = stored[at];
        (entry.stamp == *stamp).then(|| super::to_hex(&entry.sha256))
    }

    /// Remembers `checksum` (lowercase hex) for the file with `stamp`, read
    /// whole with that same stamp before and after, if it had settled.
    pub fn put(&self, stamp: Stamp, checksum: &str) {
        if !self.covers(stamp.size) || !stamp.settled(SystemTime::now()) {
            return;
        }
        let Some(sha256) = from_hex(checksum) else { return };
        crate::sync::lock(&self.learned).push(Entry { stamp, sha256 });
    }

    /// Writes what this run learned into the file, with what it held.
    pub fn save(&self) {
        let Some(path) = &self.path else { return };
        let learned = std::mem::take(&mut *crate::sync::lock(&self.learned));
        if learned.is_empty() {
            return;
        }
        // Reread: another run may have saved since this one read it.
        let mut entries = learned;
        entries.extend(load(path));
        let mut seen = std::collections::HashSet::new();
        entries.retain(|e| seen.insert((e.stamp.dev, e.stamp.ino)));
        entries.truncate(MAX_ENTRIES);
        entries.sort_by_key(|e| (e.stamp.dev, e.stamp.ino));
        let mut bytes = Vec::with_capacity(MAGIC.len() + entries.len() * RECORD);
        bytes.extend_from_slice(MAGIC);
        for e in &entries {
            e.stamp.write(&mut bytes);
            bytes.extend_from_slice(&e.sha256);
        }
        // A cache: a failure to write it only costs the next run a hash.
        if let Some(dir) = path.parent()
            && crate::fsutil::private_dir(dir).is_ok()
        {
            let _ = crate::fsutil::replace(path, &bytes);
        }
    }
}

/// Local filesystems whose ctime the kernel sets on every change (magic
/// numbers of `statfs`, linux/magic.h): ext2/3/4, XFS, Btrfs, tmpfs,
/// overlayfs, F2FS, ZFS, bcachefs.
fn keeps_honest_ctime(f_type: i128) -> bool {
    matches!(
        f_type,
        0xEF53 | 0x5846_5342 | 0x9123_683E | 0x0102_1994 | 0x794C_7630 | 0xF2F5_2010 | 0x2FC1_2FC1 | 0xCA45_1A4E
    )
}

/// The entries of the file at `path`, sorted; none if it is missing or damaged.
fn load(path: &Path) -> Vec<Entry> {
    // A FIFO, a link or a huge file there (a poisoned state folder) reads as empty.
    let Ok(bytes) = crate::fsutil::read_private(path, 4 * MAX_ENTRIES as u64 * RECORD as u64) else {
        return Vec::new();
    };
    let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else { return Vec::new() };
    if body.len() % RECORD != 0 {
        return Vec::new();
    }
    let entries: Option<Vec<Entry>> = body
        .chunks_exact(RECORD)
        .map(|r| Some(Entry { stamp: Stamp::read(&r[..40])?, sha256: r[40..].try_into().ok()? }))
        .collect();
    let entries = entries.unwrap_or_default();
    if entries.windows(2).all(|w| (w[0].stamp.dev, w[0].stamp.ino) < (w[1].stamp.dev, w[1].stamp.ino)) {
        entries
    } else {
        Vec::new()
    }
}

fn from_hex(hex: &str) -> Option<[u8; 32]> {
    if !super::is_sha256_hex(hex) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn stamp(ino: u64, size: u64, secs_ago: u64) -> Stamp {
        let at = SystemTime::now() - Duration::from_secs(secs_ago);
        let ns = i64::try_from(at.duration_since(UNIX_EPOCH).unwrap().as_nanos()).unwrap();
        Stamp { dev: 1, ino, size, mtime_ns: ns, ctime_ns: ns }
    }

    #[test]
    fn remembers_settled_files_across_runs_by_their_exact_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/checksums");
        let sum = crate::checksum::sha256_hex(b"x");
        let old = stamp(7, MIN_SIZE, 60);
        let cache = Cache::at(Some(path.clone()));
        cache.put(old, &sum);
        // Changed within the last moments: never stored.
        cache.put(stamp(8, MIN_SIZE, 0), &sum);
        // Too small to be worth it.
        cache.put(stamp(9, MIN_SIZE - 1, 60), &sum);
        cache.save();

        let next = Cache::at(Some(path.clone()));
        assert_eq!(next.get(&old), Some(sum.clone()));
        assert_eq!(next.get(&stamp(8, MIN_SIZE, 0)), None);
        // Any part of the stamp changed: not the file the entry is about.
        for changed in [
            Stamp { size: old.size + 1, ..old },
            Stamp { mtime_ns: old.mtime_ns + 1, ..old },
            Stamp { ctime_ns: old.ctime_ns + 1, ..old },
            Stamp { dev: 2, ..old },
        ] {
            assert_eq!(next.get(&changed), None, "{changed:?}");
        }
        // A later run's entry for the same file replaces the earlier one.
        let newer = Stamp { ctime_ns: old.ctime_ns + 5, ..old };
        let other = crate::checksum::sha256_hex(b"y");
        next.put(newer, &other);
        next.save();
        let last = Cache::at(Some(path));
        assert_eq!(last.get(&newer), Some(other));
        assert_eq!(last.get(&old), None);
    }

    #[test]
    fn only_files_on_local_filesystems_are_used() {
        // This machine's temporary folder is on one of them (ext4 or tmpfs, overlayfs in a container).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; MIN_SIZE as usize]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let stamp = Stamp::of(&file.metadata().unwrap());
        let cache = Cache::at(Some(dir.path().join("checksums")));
        assert!(cache.usable_for(&file, &stamp));
        std::fs::write(&path, b"small").unwrap();
        let small = std::fs::File::open(&path).unwrap();
        assert!(!cache.usable_for(&small, &Stamp::of(&small.metadata().unwrap())));
        // NFS, FUSE, CIFS, 9p: never.
        for magic in [0x6969, 0x6573_5546, 0xFF53_4D42, 0x0102_1997] {
            assert!(!keeps_honest_ctime(magic));
        }
    }

    #[test]
    fn a_damaged_file_reads_as_empty_and_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checksums");
        let old = stamp(7, MIN_SIZE, 60);
        let sum = crate::checksum::sha256_hex(b"x");
        for junk in [b"not a cache".to_vec(), [MAGIC.as_slice(), &[0u8; RECORD - 1]].concat()] {
            std::fs::write(&path, &junk).unwrap();
            let cache = Cache::at(Some(path.clone()));
            assert_eq!(cache.get(&old), None);
            cache.put(old, &sum);
            cache.save();
            assert_eq!(Cache::at(Some(path.clone())).get(&old), Some(sum.clone()));
        }
        // Off: nothing looked up, nothing written.
        let off = Cache::at(None);
        off.put(old, &sum);
        off.save();
        assert_eq!(off.get(&old), None);
    }
}
