//! Structural duplicates across a tree, as clone groups: the leaves of each
//! file's syntax tree as tokens, each identifier replaced by `$id` and each
//! other named leaf (a number, a string's text) by its kind, comments left
//! out; every window of `min_tokens` tokens hashed (a rolling polynomial
//! hash) and the windows equal token for token gathered. A clone is every
//! place of one run of equal tokens, in one record (as PMD's copy-paste
//! detector reports a match with all its marks): each set of places whose
//! windows start a run (the windows one token earlier are not the same set
//! of places) is grown right and left while every place still agrees and
//! no two of them overlap, so a run is reported once, whole, with all its
//! copies. A group whose every place lies inside the places of a group with
//! more places (or as many and longer) says nothing new and is left out:
//! a block repeated four times is one clone of four places, not the pairs
//! and overlapping windows between them.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use aide_core::{LineIndex, Span};
use llm_ast_search::SourceFile;
use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::Node;

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

/// A clone: every place of one run of tokens, equal once names and
/// literals are replaced by their kind.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Duplicate {
    /// Tokens in each place.
    pub tokens: usize,
    /// Lines the first place spans.
    pub lines: usize,
    /// Every place, in path and byte order (two or more, none overlapping
    /// another).
    pub places: Vec<Place>,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct At {
    file: usize,
    token: usize,
}

/// A clone found: where each place starts, and its length in tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    starts: Vec<At>,
    length: usize,
}

/// Every clone of at least `min_tokens` tokens whose places all span at
/// least `min_lines` lines, in the order of their first places (a longer
/// one first where two start together).
pub(crate) fn duplicates(files: &[FileTokens], min_tokens: usize, min_lines: usize) -> Vec<Duplicate> {
    let (classes, class_of) = window_classes(files, min_tokens);
    let mut groups: Vec<Group> = Vec::new();
    let mut seen: HashSet<(Vec<At>, usize)> = HashSet::new();
    for (i, places) in classes.iter().enumerate() {
        if continues(places, i, &classes, &class_of) {
            continue;
        }
        let group = grown(files, Group { starts: places.clone(), length: min_tokens });
        if seen.insert((group.starts.clone(), group.length)) {
            groups.push(group);
        }
    }
    let spans = |g: &Group| -> Vec<Place> { g.starts.iter().map(|&at| place(files, at, g.length)).collect() };
    let mut found: Vec<(Group, Vec<Place>)> = groups
        .into_iter()
        .map(|g| {
            let places = spans(&g);
            (g, places)
        })
        .filter(|(_, places)| places.iter().all(|p| p.span.end_line - p.span.line + 1 >= min_lines))
        .collect();
    found = without_covered(found);
    found.sort_by(|(x, xp), (y, yp)| {
        aide_core::ordering::cmp_path(&xp[0].path, &yp[0].path)
            .then(xp[0].span.byte_start.cmp(&yp[0].span.byte_start))
            .then(y.length.cmp(&x.length))
            .then(x.starts.cmp(&y.starts))
    });
    found
        .into_iter()
        .map(|(g, places)| Duplicate {
            tokens: g.length,
            lines: places[0].span.end_line - places[0].span.line + 1,
            places,
        })
        .collect()
}

/// The windows of `width` tokens equal token for token at two or more
/// places none of which overlaps another, each class's places in order,
/// and the class of each such window.
fn window_classes(files: &[FileTokens], width: usize) -> (Vec<Vec<At>>, HashMap<At, usize>) {
    let mut windows: Vec<(u64, At)> = Vec::new();
    for (file, tokens) in files.iter().enumerate() {
        windows.extend(window_hashes(&tokens.hashes, width).map(|(token, h)| (h, At { file, token })));
    }
    windows.sort_unstable();
    let tokens_at = |at: At| &files[at.file].hashes[at.token..at.token + width];
    let mut classes: Vec<Vec<At>> = Vec::new();
    let mut class_of: HashMap<At, usize> = HashMap::new();
    for same_hash in windows.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        // A hash shared by unequal windows splits into the equal ones.
        let mut equal: Vec<Vec<At>> = Vec::new();
        for &(_, at) in same_hash {
            match equal.iter_mut().find(|class| tokens_at(class[0]) == tokens_at(at)) {
                Some(class) => class.push(at),
                None => equal.push(vec![at]),
            }
        }
        for class in equal {
            let mut apart: Vec<At> = Vec::with_capacity(class.len());
            for at in class {
                if apart.last().is_none_or(|last| last.file != at.file || last.token + width <= at.token) {
                    apart.push(at);
                }
            }
            if apart.len() > 1 {
                for &at in &apart {
                    class_of.insert(at, classes.len());
                }
                classes.push(apart);
            }
        }
    }
    (classes, class_of)
}

/// Whether the windows one token before `places` are one class of the
/// same places: then these windows continue that run and start none.
fn continues(places: &[At], index: usize, classes: &[Vec<At>], class_of: &HashMap<At, usize>) -> bool {
    let before = |at: &At| at.token.checked_sub(1).and_then(|token| class_of.get(&At { file: at.file, token }));
    match before(&places[0]) {
        Some(&class) if class != index && classes[class].len() == places.len() => {
            places.iter().all(|at| before(at) == Some(&class))
        }
        _ => false,
    }
}

/// `group` grown right, then left, while every place agrees on the next
/// token and no two places overlap.
fn grown(files: &[FileTokens], mut group: Group) -> Group {
    let apart = |g: &Group| g.starts.windows(2).all(|w| w[0].file != w[1].file || w[0].token + g.length < w[1].token);
    let token = |at: At| files[at.file].hashes.get(at.token).copied();
    loop {
        let next: Vec<Option<u64>> =
            group.starts.iter().map(|at| token(At { file: at.file, token: at.token + group.length })).collect();
        if !apart(&group) || next[0].is_none() || next.iter().any(|t| *t != next[0]) {
            break;
        }
        group.length += 1;
    }
    loop {
        if !apart(&group) || group.starts.iter().any(|at| at.token == 0) {
            break;
        }
        let before: Vec<Option<u64>> =
            group.starts.iter().map(|at| token(At { file: at.file, token: at.token - 1 })).collect();
        if before.iter().any(|t| *t != before[0]) {
            break;
        }
        group.starts.iter_mut().for_each(|at| at.token -= 1);
        group.length += 1;
    }
    group
}

/// The groups without those whose every place lies inside the places of a
/// group kept before them (more places first, then longer ones): the
/// seams between the copies of a repeated block, a run inside a longer
/// one with no place of its own.
fn without_covered(mut found: Vec<(Group, Vec<Place>)>) -> Vec<(Group, Vec<Place>)> {
    found.sort_by(|(x, xp), (y, yp)| {
        y.starts.len().cmp(&x.starts.len()).then(y.length.cmp(&x.length)).then(
            aide_core::ordering::cmp_path(&xp[0].path, &yp[0].path)
                .then(xp[0].span.byte_start.cmp(&yp[0].span.byte_start)),
        )
    });
    let mut kept: Vec<(Group, Vec<Place>)> = Vec::new();
    // The kept groups with a place in each file: only those can cover a
    // group whose first place is there.
    let mut in_file: HashMap<usize, Vec<usize>> = HashMap::new();
    for (group, places) in found {
        let candidates = in_file.get(&group.starts[0].file).map(Vec::as_slice).unwrap_or_default();
        let covered = candidates.iter().any(|&k| group.starts.iter().all(|&at| inside(at, group.length, &kept[k].0)));
        if !covered {
            let mut files: Vec<usize> = group.starts.iter().map(|at| at.file).collect();
            files.dedup();
            for file in files {
                in_file.entry(file).or_default().push(kept.len());
            }
            kept.push((group, places));
        }
    }
    kept
}

/// Whether the `length` tokens from `at` lie inside the places of `by`,
/// places that touch (token after token) joined.
fn inside(at: At, length: usize, by: &Group) -> bool {
    let mut reach: Option<(usize, usize)> = None;
    for start in by.starts.iter().filter(|b| b.file == at.file).map(|b| b.token) {
        let end = start + by.length;
        reach = match reach {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            _ => Some((start, end)),
        };
        if reach.is_some_and(|(s, e)| s <= at.token && at.token + length <= e) {
            return true;
        }
    }
    false
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

/// The place of `length` tokens from `at`.
fn place(files: &[FileTokens], at: At, length: usize) -> Place {
    let f = &files[at.file];
    let (start, _) = f.spans[at.token];
    let (_, end) = f.spans[at.token + length - 1];
    Place { path: f.path.clone(), span: f.index.span(&f.source, start, end), checksum: f.checksum.clone() }
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
        /// read for imports and compared without a panic; a clone's places
        /// come in order, none overlapping the next, never under the least
        /// size; and the same files give the same clones.
        #[test]
        fn any_text_is_measured_and_compared(text in "[a-z(){}:;=+<>&|!?#\"' \n\t0-9]{0,400}", which in 0usize..9) {
            let lang = Lang::ALL[which];
            let Ok(file) = SourceFile::parse("f".into(), lang, text.into_bytes()) else { return Ok(()) };
            let _ = crate::metrics::of_file(&file);
            let _ = crate::imports::of_file(&file);
            let copy = SourceFile::parse("g".into(), lang, file.source.clone()).expect("parsed once already");
            let files = [tokens_of(&file), tokens_of(&copy)];
            let found = duplicates(&files, 10, 1);
            for d in &found {
                proptest::prop_assert!(d.tokens >= 10 && d.places.len() >= 2);
                // In order, none overlapping the next in its file.
                for w in d.places.windows(2) {
                    let ordered = (w[0].path.as_str(), w[0].span.byte_start) < (w[1].path.as_str(), w[1].span.byte_start);
                    proptest::prop_assert!(ordered);
                    proptest::prop_assert!(w[0].path != w[1].path || w[0].span.byte_end <= w[1].span.byte_start);
                }
            }
            // The same files, the same clones.
            let again = duplicates(&files, 10, 1);
            proptest::prop_assert_eq!(format!("{found:?}"), format!("{again:?}"));
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
        let paths: Vec<&str> = d.places.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["a.py", "b.py"]);
        assert_eq!((d.places[0].span.line, d.places[1].span.line), (1, 4));
        assert_eq!(
            &b[d.places[1].span.byte_start..d.places[1].span.byte_end],
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

    /// Three copies are one clone of three places, not three pairs.
    #[test]
    fn copies_are_one_group_with_every_place() {
        let a =
            "def total(xs):\n    s = 0\n    for x in xs:\n        if x > 1:\n            s += x * 2\n    return s\n";
        let b = a.replace("total", "summed").replace("xs", "items");
        let c = format!("import os\n\n{}", a.replace("total", "third"));
        let files =
            [tokens("a.py", Lang::Python, a), tokens("b.py", Lang::Python, &b), tokens("c.py", Lang::Python, &c)];
        let found = duplicates(&files, 20, 1);
        assert_eq!(found.len(), 1, "{found:?}");
        let paths: Vec<&str> = found[0].places.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["a.py", "b.py", "c.py"]);
        assert_eq!(&c[found[0].places[2].span.byte_start..found[0].places[2].span.byte_end], c[11..].trim_end());
        // A longer run two of them share beyond the third is its own clone,
        // whole from its start.
        let longer = format!("{a}print(total([1]))\nprint(total([2]))\nprint(total([3]))\n");
        let b_longer = format!("{b}print(summed([1]))\nprint(summed([2]))\nprint(summed([3]))\n");
        let files = [
            tokens("a.py", Lang::Python, &longer),
            tokens("b.py", Lang::Python, &b_longer),
            tokens("c.py", Lang::Python, &c),
        ];
        let found = duplicates(&files, 20, 1);
        let shape: Vec<(usize, usize)> = found.iter().map(|d| (d.places.len(), d.places[0].span.byte_start)).collect();
        assert_eq!(shape, [(2, 0), (3, 0)], "{found:?}");
        assert!(found[0].tokens > found[1].tokens);
    }

    /// A block repeated four times in one file is one clone of four
    /// places, each one copy: no overlapping windows, no pairs.
    #[test]
    fn a_repeated_block_is_one_clone_of_its_copies() {
        let block = |n: usize| format!("def f{n}(a):\n    if a > {n}:\n        return a * 2\n    return a - 1\n\n");
        let text: String = (1..=4).map(block).collect();
        let files = [tokens("r.py", Lang::Python, &text)];
        let found = duplicates(&files, 10, 1);
        assert_eq!(found.len(), 1, "{found:?}");
        let places: Vec<&str> = found[0].places.iter().map(|p| &text[p.span.byte_start..p.span.byte_end]).collect();
        let want: Vec<String> = (1..=4).map(|n| block(n).trim_end().to_string()).collect();
        assert_eq!(places, want);
    }
}
