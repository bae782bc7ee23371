//! What the tree operations' scans share with the plan: the edit a scan
//! finds (bytes of a file's content and their replacement), edits put in
//! order without overlaps, the scope of source files a scan parses, the
//! cache of what it worked out per file, and what it found out for the
//! syntax guard.

use std::collections::BTreeMap;

use aide_core::tool::Context;
use aide_core::{AideError, Lang, LineIndex, Root};
use llm_ast_search::Scope;
use llm_ast_search::{SourceFile, SyntaxIssue};

use crate::error::{SpanAt, TransformError};

/// One replacement in a file: bytes `start..end` of its current content
/// become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
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

/// A syntax tree of a file's content and the language it was parsed as.
pub(crate) type ParsedAs = (Lang, tree_sitter::Tree);

/// What an operation that parsed a file found out for the syntax guard.
#[derive(Debug, Clone)]
pub enum KnownSyntax {
    /// The tree of the content the operation read: the guard parses only
    /// the changed regions again.
    Tree(ParsedAs),
    /// The guard's verdict (the syntax issues `after` has and the content
    /// it read had not), worked out during the scan; it holds while the
    /// file's new content is `after`.
    Checked { lang: Lang, after: Vec<u8>, issues: Vec<SyntaxIssue> },
}

/// `overlapping_edits` for spans `first` and `second` of `rel`, named with their lines.
pub(crate) fn overlap_error(rel: &str, bytes: &[u8], first: (usize, usize), second: (usize, usize)) -> AideError {
    let index = LineIndex::new(bytes);
    let (first, second) = (SpanAt::of(&index, first.0, first.1), SpanAt::of(&index, second.0, second.1));
    TransformError::OverlappingEdits { path: rel.to_string(), first, second }.into()
}

/// Sorts edits by position, drops exact duplicates (the same span given
/// twice with the same text), and refuses two that overlap, naming both.
pub(crate) fn ordered_without_overlap(
    rel: &str,
    bytes: &[u8],
    mut edits: Vec<(Edit, usize)>,
) -> Result<Vec<Edit>, AideError> {
    edits.sort_by_key(|(e, n)| (e.start, e.end, *n));
    edits.dedup_by(|b, a| a.0 == b.0);
    for pair in edits.windows(2) {
        let (a, b) = (&pair[0].0, &pair[1].0);
        if crate::text::overlapping((a.start, a.end), (b.start, b.end)) {
            return Err(overlap_error(rel, bytes, (a.start, a.end), (b.start, b.end)));
        }
    }
    Ok(edits.into_iter().map(|(e, _)| e).collect())
}
