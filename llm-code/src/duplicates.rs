//! Structural duplicates across a tree: the leaves of each file's syntax
//! tree as tokens, each identifier replaced by `$id` and each other named
//! leaf (a number, a string's text) by its kind, comments left out; every
//! window of `min_tokens` tokens hashed (a rolling polynomial hash); two
//! places whose windows are equal token for token are a duplicate, grown
//! to the longest run of equal tokens from the first token where the two
//! stop agreeing backwards (so each pair is reported once, from its start),
//! as PMD's copy-paste detector matches token runs.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use aide_core::{LineIndex, Span};
use llm_ast_search::SourceFile;
use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::Node;

/// Windows sharing one hash beyond this many are paired with the first of
/// them only, not with each other (generated tables): every place is still
/// reported, against that first one.
const ALL_PAIRS_UP_TO: usize = 64;

/// One place of a duplicate.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Place {
    pub path: String,
    /// From the first token's first byte to the last token's end.
    #[serde(flatten)]
    pub span: Span,
    /// SHA-256 of the file's bytes as parsed.
    pub checksum: Arc<str>,
}

/// Two places with the same tokens once names and literals are replaced by their kind.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Duplicate {
    /// Tokens in each place.
    pub tokens: usize,
    /// Lines the first place spans.
    pub lines: usize,
    /// The earlier place, in path and byte order.
    pub first: Place,
    pub second: Place,
}

/// A file's tokens: each one's normalised hash and its bytes.
pub(crate) struct FileTokens {
    path: String,
    checksum: Arc<str>,
    source: Vec<u8>,
    index: LineIndex,
    hashes: Vec<u64>,
    spans: Vec<(usize, usize)>,
}

impl FileTokens {
    /// Its number of tokens.
    pub(crate) fn len(&self) -> usize {
        self.hashes.len()
    }
}

/// The tokens of a parsed file.
pub(crate) fn tokens_of(file: &SourceFile) -> FileTokens {
    let mut hashes = Vec::new();
    let mut spans = Vec::new();
    let mut cursor = file.tree.walk();
    // Depth first, in source order, without recursion.
    'walk: loop {
        let node = cursor.node();
        let is_comment = node.kind().contains("comment");
        if !is_comment && node.child_count() == 0 && node.end_byte() > node.start_byte() {
            hashes.push(token_hash(node, &file.source));
            spans.push((node.start_byte(), node.end_byte()));
        }
        if !is_comment && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    FileTokens {
        path: file.path.clone(),
        checksum: file.checksum().clone(),
        source: file.source.clone(),
        index: file.index.clone(),
        hashes,
        spans,
    }
}

/// A leaf as the comparison sees it: an identifier is `$id`, any other
/// named leaf its kind, a keyword or punctuation its text.
fn token_hash(node: Node<'_>, source: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    if node.is_named() {
        let kind = node.kind();
        if kind.contains("identifier") || matches!(kind, "label_name" | "field_name") {
            "$id".hash(&mut h);
        } else {
            ("$", kind).hash(&mut h);
        }
    } else {
        source[node.byte_range()].hash(&mut h);
    }
    h.finish()
}

/// Where a window starts: a file and a token of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    file: usize,
    token: usize,
}

/// Every duplicate of at least `min_tokens` tokens and `min_lines` lines,
/// in the order of their first and then second places.
pub(crate) fn duplicates(files: &[FileTokens], min_tokens: usize, min_lines: usize) -> Vec<Duplicate> {
    let mut windows: Vec<(u64, At)> = Vec::new();
    for (file, tokens) in files.iter().enumerate() {
        windows.extend(window_hashes(&tokens.hashes, min_tokens).map(|(token, h)| (h, At { file, token })));
    }
    windows.sort_unstable();
    let mut found = Vec::new();
    for group in windows.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        let places: Vec<At> = group.iter().map(|(_, at)| *at).collect();
        let pairs: Vec<(At, At)> = if places.len() <= ALL_PAIRS_UP_TO {
            places.iter().enumerate().flat_map(|(i, a)| places[i + 1..].iter().map(move |b| (*a, *b))).collect()
        } else {
            places[1..].iter().map(|b| (places[0], *b)).collect()
        };
        for (a, b) in pairs {
            if let Some(length) = matching_run(files, a, b, min_tokens) {
                found.push(report(files, a, b, length));
            }
        }
    }
    found.retain(|d| d.lines >= min_lines && d.second.span.end_line - d.second.span.line + 1 >= min_lines);
    found.sort_by(|x, y| {
        aide_core::ordering::cmp_path(&x.first.path, &y.first.path)
            .then(x.first.span.byte_start.cmp(&y.first.span.byte_start))
            .then(aide_core::ordering::cmp_path(&x.second.path, &y.second.path))
            .then(x.second.span.byte_start.cmp(&y.second.span.byte_start))
    });
    found
}

/// The rolling hash of every window of `width` tokens: (first token, hash).
fn window_hashes(hashes: &[u64], width: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
    const BASE: u64 = 0x100_0000_01b3;
    let top = (1..width).fold(1u64, |p, _| p.wrapping_mul(BASE));
    let mut h = 0u64;
    let mut out = Vec::new();
    if width > 0 && hashes.len() >= width {
        for &t in &hashes[..width] {
            h = h.wrapping_mul(BASE).wrapping_add(t);
        }
        out.push((0, h));
        for start in 1..=hashes.len() - width {
            h = h
                .wrapping_sub(hashes[start - 1].wrapping_mul(top))
                .wrapping_mul(BASE)
                .wrapping_add(hashes[start + width - 1]);
            out.push((start, h));
        }
    }
    out.into_iter()
}

/// The length of the run of equal tokens from `a` and `b`, if the windows
/// there are truly equal, the run starts there (the tokens before differ),
/// and the two places do not overlap.
fn matching_run(files: &[FileTokens], a: At, b: At, width: usize) -> Option<usize> {
    let (ta, tb) = (&files[a.file].hashes, &files[b.file].hashes);
    let same_file = a.file == b.file;
    if same_file && b.token < a.token + width {
        return None;
    }
    if ta[a.token..a.token + width] != tb[b.token..b.token + width] {
        return None;
    }
    if a.token > 0 && b.token > 0 && ta[a.token - 1] == tb[b.token - 1] {
        return None;
    }
    let mut length = width;
    while a.token + length < ta.len()
        && b.token + length < tb.len()
        && ta[a.token + length] == tb[b.token + length]
        && !(same_file && a.token + length >= b.token)
    {
        length += 1;
    }
    Some(length)
}

fn report(files: &[FileTokens], a: At, b: At, length: usize) -> Duplicate {
    let place = |at: At| {
        let f = &files[at.file];
        let (start, _) = f.spans[at.token];
        let (_, end) = f.spans[at.token + length - 1];
        Place { path: f.path.clone(), span: f.index.span(&f.source, start, end), checksum: f.checksum.clone() }
    };
    let (first, second) = (place(a), place(b));
    Duplicate { tokens: length, lines: first.span.end_line - first.span.line + 1, first, second }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::Lang;

    fn tokens(path: &str, lang: Lang, text: &str) -> FileTokens {
        let file = SourceFile::parse(path.to_string(), lang, text.as_bytes().to_vec()).expect("parses");
        tokens_of(&file)
    }

    proptest::proptest! {
        /// Whatever text a file holds, in any language, it is measured,
        /// read for imports and compared without a panic, and a pair never
        /// overlaps itself or falls under the least size.
        #[test]
        fn any_text_is_measured_and_compared(text in "[a-z(){}:;=+<>&|!?#\"' \n\t0-9]{0,400}", which in 0usize..9) {
            let lang = Lang::ALL[which];
            let Ok(file) = SourceFile::parse("f".into(), lang, text.into_bytes()) else { return Ok(()) };
            let _ = crate::metrics::of_file(&file);
            let _ = crate::imports::of_file(&file);
            let copy = SourceFile::parse("g".into(), lang, file.source.clone()).expect("parsed once already");
            for d in duplicates(&[tokens_of(&file), tokens_of(&copy)], 10, 1) {
                proptest::prop_assert!(d.tokens >= 10);
                let same = d.first.path == d.second.path;
                proptest::prop_assert!(!same || d.first.span.byte_end <= d.second.span.byte_start);
            }
        }
    }

    #[test]
    fn rolling_hashes_equal_the_hash_of_each_window() {
        let hashes: Vec<u64> = (0..40).map(|i| (i * 7919 % 13) as u64).collect();
        for (start, h) in window_hashes(&hashes, 5) {
            let direct =
                hashes[start..start + 5].iter().fold(0u64, |h, &t| h.wrapping_mul(0x100_0000_01b3).wrapping_add(t));
            assert_eq!(h, direct, "window at {start}");
        }
        assert_eq!(window_hashes(&hashes, 41).count(), 0);
    }

    #[test]
    fn a_copy_with_other_names_and_numbers_is_found_once_from_its_start() {
        let a =
            "def total(xs):\n    s = 0\n    for x in xs:\n        if x > 1:\n            s += x * 2\n    return s\n";
        let b = "def other():\n    pass\n\ndef summed(items):\n    acc = 0\n    for it in items:\n        if it > 5:\n            acc += it * 3\n    return acc\n";
        let files = [tokens("a.py", Lang::Python, a), tokens("b.py", Lang::Python, b)];
        let found = duplicates(&files, 20, 1);
        assert_eq!(found.len(), 1, "{found:?}");
        let d = &found[0];
        assert_eq!((d.first.path.as_str(), d.second.path.as_str()), ("a.py", "b.py"));
        assert_eq!((d.first.span.line, d.second.span.line), (1, 4));
        assert_eq!(
            &b[d.second.span.byte_start..d.second.span.byte_end],
            &b[b.find("def summed").unwrap()..b.len() - 1]
        );
        // Comments are not tokens: one in the copy changes nothing.
        let commented = b.replace("acc = 0", "acc = 0  # start");
        let files = [tokens("a.py", Lang::Python, a), tokens("b.py", Lang::Python, &commented)];
        assert_eq!(duplicates(&files, 20, 1).len(), 1);
        // Different structure is not a duplicate.
        let unlike = "def f(xs):\n    while xs:\n        xs.pop()\n    return [x for x in xs]\n";
        let files = [tokens("a.py", Lang::Python, a), tokens("c.py", Lang::Python, unlike)];
        assert!(duplicates(&files, 20, 1).is_empty());
    }
}
