//! For each trigram, the ids of the files that hold it: ascending, stored
//! as varint gaps (most gaps of a common trigram take one byte), a long
//! list with skips every [`SKIP_EVERY`] bytes, so an intersection with a
//! few ids jumps to each instead of decoding the whole list.

use std::collections::HashMap;

use crate::trigram::Trigram;

#[derive(Default)]
pub(crate) struct Postings {
    lists: HashMap<Trigram, List, BuildTrigramHasher>,
    /// The skips of the lists longer than [`SKIP_EVERY`] bytes (few: most
    /// lists are short, and a field in each would cost more than these).
    skips: HashMap<Trigram, Vec<Skip>, BuildTrigramHasher>,
    /// Bytes the lists' buffers hold, kept as they grow: the size is asked
    /// after every search, and summing a million lists would cost more.
    held: usize,
}

#[derive(Default)]
struct List {
    bytes: Vec<u8>,
    last: Option<u32>,
}

/// Where decoding a list may resume: at byte `at`, the id before it being
/// `before`. Recorded as a list's entries cross each [`SKIP_EVERY`] bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Skip {
    before: u32,
    at: u32,
}

/// Bytes of a list between skips: each skip costs 8 bytes (6% of a long
/// list), and spares decoding up to this many bytes for each id looked up.
const SKIP_EVERY: usize = 128;

/// A trigram's hash: one multiplication (Fibonacci hashing), where the
/// default SipHash, made to withstand chosen keys, cost a third of a
/// build. Keys here are 24-bit trigrams of the files being indexed.
#[derive(Default, Clone, Copy)]
pub(crate) struct BuildTrigramHasher;

pub(crate) struct TrigramHasher(u64);

impl std::hash::BuildHasher for BuildTrigramHasher {
    type Hasher = TrigramHasher;
    fn build_hasher(&self) -> TrigramHasher {
        TrigramHasher(0)
    }
}

impl std::hash::Hasher for TrigramHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Postings {
    /// Records that file `id` holds `trigrams`; ids must come in ascending order.
    pub(crate) fn add(&mut self, id: u32, trigrams: &[Trigram]) {
        for &t in trigrams {
            let list = self.lists.entry(t).or_default();
            let before = list.bytes.capacity();
            let gap = match list.last {
                Some(last) => id - last,
                None => id,
            };
            let at = list.bytes.len();
            push_varint(&mut list.bytes, gap);
            self.held += list.bytes.capacity() - before;
            list.last = Some(id);
            if at / SKIP_EVERY < list.bytes.len() / SKIP_EVERY
                && let Ok(end) = u32::try_from(list.bytes.len())
            {
                let skips = self.skips.entry(t).or_default();
                let before = skips.capacity();
                skips.push(Skip { before: id, at: end });
                self.held += (skips.capacity() - before) * std::mem::size_of::<Skip>();
            }
        }
    }

    /// The ids holding every one of `trigrams` (ascending).
    pub(crate) fn holding_all(&self, trigrams: &[Trigram]) -> Vec<u32> {
        let mut lists: Vec<(&Trigram, &List)> = Vec::with_capacity(trigrams.len());
        for t in trigrams {
            match self.lists.get(t) {
                Some(list) => lists.push((t, list)),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(|(_, l)| l.bytes.len());
        let Some(((_, first), rest)) = lists.split_first() else { return Vec::new() };
        let mut ids = first.decode();
        for (t, list) in rest {
            if ids.is_empty() {
                break;
            }
            let skips = self.skips.get(t).map_or(&[][..], Vec::as_slice);
            list.keep_held(&mut ids, skips);
        }
        ids
    }

    /// Bytes held: the lists' buffers and skips, and each list's own.
    pub(crate) fn size(&self) -> usize {
        self.held
            + self.lists.len() * (std::mem::size_of::<List>() + std::mem::size_of::<Trigram>())
            + self.skips.len() * (std::mem::size_of::<Vec<Skip>>() + std::mem::size_of::<Trigram>())
    }

    pub(crate) fn shrink(&mut self) {
        for list in self.lists.values_mut() {
            list.bytes.shrink_to_fit();
        }
        self.lists.shrink_to_fit();
        for skips in self.skips.values_mut() {
            skips.shrink_to_fit();
        }
        self.skips.shrink_to_fit();
        self.held = self.lists.values().map(|l| l.bytes.capacity()).sum::<usize>()
            + self.skips.values().map(|s| s.capacity() * std::mem::size_of::<Skip>()).sum::<usize>();
    }
}

impl List {
    /// Keeps those of the ascending `ids` this list holds, reading it once
    /// without decoding it into a vector of its own, jumping by `skips`
    /// (this list's) over the stretches before each id.
    fn keep_held(&self, ids: &mut Vec<u32>, skips: &[Skip]) {
        let (mut at, mut id, mut kept) = (0, 0u32, 0);
        let mut started = false;
        for i in 0..ids.len() {
            let wanted = ids[i];
            // The last skip before `wanted`: every id up to it is smaller.
            if (!started || id < wanted)
                && let Some(skip) = skips.partition_point(|s| s.before < wanted).checked_sub(1).map(|k| skips[k])
                && skip.at as usize > at
            {
                (at, id, started) = (skip.at as usize, skip.before, true);
            }
            while (!started || id < wanted) && at < self.bytes.len() {
                let (gap, used) = read_varint(&self.bytes[at..]);
                at += used;
                id = if started { id + gap } else { gap };
                started = true;
            }
            if started && id == wanted {
                ids[kept] = wanted;
                kept += 1;
            } else if at >= self.bytes.len() && (!started || id < wanted) {
                break;
            }
        }
        ids.truncate(kept);
    }

    fn decode(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let (mut at, mut id) = (0, 0u32);
        while at < self.bytes.len() {
            let (gap, used) = read_varint(&self.bytes[at..]);
            at += used;
            id += gap;
            out.push(id);
        }
        out
    }
}

fn push_varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8]) -> (u32, usize) {
    let (mut n, mut shift) = (0u32, 0);
    for (i, &b) in bytes.iter().enumerate() {
        n |= u32::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return (n, i + 1);
        }
        shift += 7;
    }
    (n, bytes.len())
}

/// The ids in both ascending lists.
pub(crate) fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The ids in either ascending list.
pub(crate) fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Keeping the ids a list holds, read as it streams, is the
        /// intersection with the list decoded whole.
        #[test]
        fn keeping_held_ids_is_the_intersection(
            held in proptest::collection::btree_set(0u32..5000, 0..200),
            asked in proptest::collection::btree_set(0u32..5000, 0..200),
        ) {
            let mut list = List::default();
            for &id in &held {
                push_varint(&mut list.bytes, id - list.last.unwrap_or(0));
                list.last = Some(id);
            }
            let asked: Vec<u32> = asked.into_iter().collect();
            let mut kept = asked.clone();
            list.keep_held(&mut kept, &[]);
            prop_assert_eq!(kept, intersect(&asked, &list.decode()));
        }

        /// Lists long enough to have skips, with gaps of every size, give
        /// the same ids as the lists decoded whole and intersected.
        #[test]
        fn skipping_through_long_lists_is_the_intersection(
            first in proptest::collection::btree_set(0u32..200_000, 0..3000),
            kept_in_second in proptest::collection::vec(any::<bool>(), 3000),
            more in proptest::collection::btree_set(0u32..200_000, 0..1000),
            picked in proptest::collection::vec(0usize..3000, 0..60),
        ) {
            // Most ids asked are in the first list, half of those in the second.
            let listed: Vec<u32> = first.iter().copied().collect();
            let second: std::collections::BTreeSet<u32> = listed
                .iter()
                .zip(&kept_in_second)
                .filter_map(|(&id, &kept)| kept.then_some(id))
                .chain(more.iter().copied())
                .collect();
            let asked: std::collections::BTreeSet<u32> = picked
                .iter()
                .map(|&i| listed.get(i).copied().unwrap_or(i as u32))
                .collect();
            let mut p = Postings::default();
            let mut ids: Vec<(u32, Vec<Trigram>)> = Vec::new();
            let all: std::collections::BTreeSet<u32> = first.iter().chain(&second).chain(&asked).copied().collect();
            for id in all {
                let mut held = Vec::new();
                if first.contains(&id) { held.push(1); }
                if second.contains(&id) { held.push(2); }
                if asked.contains(&id) { held.push(3); }
                ids.push((id, held));
            }
            for (id, held) in &ids {
                p.add(*id, held);
            }
            let decoded = |t: Trigram| p.lists.get(&t).map_or(Vec::new(), List::decode);
            let expected = intersect(&intersect(&decoded(3), &decoded(1)), &decoded(2));
            prop_assert_eq!(p.holding_all(&[1, 2, 3]), expected);
            let skips = p.skips.get(&1).map_or(0, Vec::len);
            prop_assert!(first.len() < 1000 || skips > 0, "a long list has skips");
        }
    }

    #[test]
    fn lists_keep_ids_through_gaps_of_any_size() {
        let mut p = Postings::default();
        p.add(0, &[1, 2]);
        p.add(300, &[2]);
        p.add(70_000, &[1, 2]);
        assert_eq!(p.holding_all(&[2]), vec![0, 300, 70_000]);
        assert_eq!(p.holding_all(&[1, 2]), vec![0, 70_000]);
        assert_eq!(p.holding_all(&[3]), Vec::<u32>::new());
        assert_eq!(union(&[1, 3], &[2, 3, 4]), vec![1, 2, 3, 4]);
        for id in 100_000..100_400 {
            p.add(id, &[2]);
        }
        assert!(!p.skips[&2].is_empty());
        let held = |p: &Postings| {
            p.lists.values().map(|l| l.bytes.capacity()).sum::<usize>()
                + p.skips.values().map(|s| s.capacity() * std::mem::size_of::<Skip>()).sum::<usize>()
        };
        assert_eq!(p.held, held(&p), "the size kept as lists grow is their buffers' and skips' sum");
        p.shrink();
        assert_eq!(p.held, held(&p));
    }
}
