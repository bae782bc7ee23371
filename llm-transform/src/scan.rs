//! What the tree operations' scans share with the plan: the edit a scan
//! finds (bytes of a file's content and their replacement), the scope of
//! source files a scan parses, and the cache of what it worked out per file.

use std::collections::BTreeMap;

use aide_core::tool::Context;
use aide_core::{Lang, Root};
use llm_ast_search::Scope;
use llm_ast_search::SourceFile;

/// One replacement in a file: bytes `start..end` of its current content
/// become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: Vec<u8>,
}

/// What a tree operation's scan worked out for each file, kept with the
/// checksum of the content it came from: the plan reads each file again
/// under the lock, and redoes the work only if the content changed.
pub(crate) struct ScanCache<T>(std::sync::Mutex<BTreeMap<String, (String, T)>>);

impl<T> Default for ScanCache<T> {
    fn default() -> Self {
        ScanCache(Default::default())
    }
}

impl<T> ScanCache<T> {
    pub(crate) fn keep(&self, file: &SourceFile, value: T) {
        aide_core::sync::lock(&self.0).insert(file.path.clone(), (file.checksum().to_string(), value));
    }

    /// What the scan kept for `path`, if `bytes` are what it read.
    pub(crate) fn take(&self, path: &str, bytes: &[u8]) -> Option<T> {
        let (checksum, value) = aide_core::sync::lock(&self.0).remove(path)?;
        (checksum == aide_core::checksum::sha256_hex(bytes)).then_some(value)
    }
}

/// The scope of source files of a tree operation, for llm-ast-search's
/// parallel parse.
pub(crate) fn source_scope<'a>(
    root: &'a Root,
    walk: &'a aide_core::walk::WalkArgs,
    language: Option<Lang>,
    ctx: &'a Context,
) -> Scope<'a> {
    Scope { root, paths: &[], walk, language, threads: aide_core::walk::default_threads(), ctx }
}
