//! Parsed files kept between runs of one long-lived process (the MCP
//! server), so a second outline or references call on an unchanged tree
//! skips reading and parsing.
//!
//! Off unless [`keep_parsed_files`] switched it on: a command-line run parses
//! each file once anyway. An entry is used only while the file's identity
//! and stamps (device, inode, size, mtime, ctime) are those it was parsed
//! with ([`aide_core::fsutil::Stamp`]); a file changed too recently when it
//! was parsed is not kept, since a write within the same timestamp tick
//! would keep the stamps (git's "racily clean" rule, `Stamp::settled`). Edits never read from here:
//! llm-transform reads and checksums the file itself.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use aide_core::Lang;
use aide_core::fsutil::Stamp;

use crate::source::SourceFile;

/// The default memory budget: source bytes times [`TREE_FACTOR`].
const DEFAULT_MAX_BYTES: usize = 1 << 30;
/// A tree-sitter tree, line index and outline take many times the source's size
/// (measured: tokio's 5.7 MiB of source held ~140 MiB in the server).
const TREE_FACTOR: usize = 24;

struct Entry {
    stamp: Stamp,
    file: Arc<SourceFile>,
}

/// The key: the file, the path it is reported under, and how it was parsed.
type Key = (PathBuf, String, Lang);

struct Cache {
    entries: HashMap<Key, Entry>,
    bytes: usize,
    max_bytes: usize,
}

static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();

/// Keeps parsed files in this process from now on, up to about `max_bytes`
/// of memory (None: 1 GiB); a file that would go over it starts the cache afresh.
pub fn keep_parsed_files(max_bytes: Option<usize>) {
    let max_bytes = max_bytes.unwrap_or(DEFAULT_MAX_BYTES);
    let _ = CACHE.set(Mutex::new(Cache { entries: HashMap::new(), bytes: 0, max_bytes }));
}

/// The parsed file for `key` if it is still what is on disk.
pub(crate) fn get(abs: &std::path::Path, rel: &str, lang: Lang, meta: &Metadata) -> Option<Arc<SourceFile>> {
    let cache = aide_core::sync::lock(CACHE.get()?);
    let entry = cache.entries.get(&(abs.to_path_buf(), rel.to_string(), lang))?;
    (entry.stamp == Stamp::of(meta)).then(|| entry.file.clone())
}

/// Keeps `file`, parsed from contents whose metadata was `meta`, unless it
/// changed too recently to tell a later write within the same tick apart.
/// `lang` is the language the file was a candidate as (a header's parsed
/// language may differ, by content).
pub(crate) fn put(abs: &std::path::Path, lang: Lang, meta: &Metadata, file: Arc<SourceFile>) {
    let Some(cache) = CACHE.get() else { return };
    if !Stamp::of(meta).settled(SystemTime::now()) {
        return;
    }
    let cost = file.source.len().saturating_mul(TREE_FACTOR);
    let mut cache = aide_core::sync::lock(cache);
    if cache.bytes + cost > cache.max_bytes {
        // Simple and bounded: start over rather than track recency per entry.
        cache.entries.clear();
        cache.bytes = 0;
    }
    if cost > cache.max_bytes {
        return;
    }
    let key = (abs.to_path_buf(), file.path.clone(), lang);
    let old = cache.entries.insert(key, Entry { stamp: Stamp::of(meta), file });
    cache.bytes += cost;
    if let Some(old) = old {
        cache.bytes = cache.bytes.saturating_sub(old.file.source.len().saturating_mul(TREE_FACTOR));
    }
}
