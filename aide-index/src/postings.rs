//! For each trigram, the ids of the files that hold it: ascending, stored
//! as varint gaps (most gaps of a common trigram take one byte).

use std::collections::HashMap;

use crate::trigram::Trigram;

#[derive(Default)]
pub(crate) struct Postings {
    lists: HashMap<Trigram, List, BuildTrigramHasher>,
    /// Bytes the lists' buffers hold, kept as they grow: the size is asked
    /// after every search, and summing a million lists would cost more.
    held: usize,
}

#[derive(Default)]
struct List {
    bytes: Vec<u8>,
    last: Option<u32>,
}

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
            push_varint(&mut list.bytes, gap);
            self.held += list.bytes.capacity() - before;
            list.last = Some(id);
        }
    }

    /// The ids holding every one of `trigrams` (ascending).
    pub(crate) fn holding_all(&self, trigrams: &[Trigram]) -> Vec<u32> {
        let mut lists: Vec<&List> = Vec::with_capacity(trigrams.len());
        for t in trigrams {
            match self.lists.get(t) {
                Some(list) => lists.push(list),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(|l| l.bytes.len());
        let Some((first, rest)) = lists.split_first() else { return Vec::new() };
        let mut ids = first.decode();
        for list in rest {
            if ids.is_empty() {
                break;
            }
            list.keep_held(&mut ids);
        }
        ids
    }

    /// Bytes held: the lists' buffers, and each list's own.
    pub(crate) fn size(&self) -> usize {
        self.held + self.lists.len() * (std::mem::size_of::<List>() + std::mem::size_of::<Trigram>())
    }

    pub(crate) fn shrink(&mut self) {
        for list in self.lists.values_mut() {
            list.bytes.shrink_to_fit();
        }
        self.lists.shrink_to_fit();
        self.held = self.lists.values().map(|l| l.bytes.capacity()).sum();
    }
}

impl List {
    /// Keeps those of the ascending `ids` this list holds, reading it once
    /// without decoding it into a vector of its own.
    fn keep_held(&self, ids: &mut Vec<u32>) {
        let (mut at, mut id, mut kept) = (0, 0u32, 0);
        let mut started = false;
        for i in 0..ids.len() {
            let wanted = ids[i];
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
            list.keep_held(&mut kept);
            prop_assert_eq!(kept, intersect(&asked, &list.decode()));
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
        let held: usize = p.lists.values().map(|l| l.bytes.capacity()).sum();
        assert_eq!(p.held, held, "the size kept as lists grow is their buffers' sum");
        p.shrink();
        assert_eq!(p.held, p.lists.values().map(|l| l.bytes.capacity()).sum::<usize>());
    }
}
