//! Where a file changed: each changed region's byte range in the file as
//! read and in the result, kept exact through every operation of a request
//! (span edits, patches, block edits, replacements), so an agent can chain
//! the next edit on the new bytes without reading the file again.

use std::ops::Range;

use aide_core::LineIndex;
use schemars::JsonSchema;
use serde::Serialize;

/// A batch of edits as applied: `(start, end, new_len)` each, in byte order.
pub(crate) type Applied = Vec<(usize, usize, usize)>;

/// A changed region: where it was and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The changed regions of one file, sorted, disjoint and never touching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Regions(Vec<Region>);

impl Regions {
    /// Records a batch of edits made to the current content: `(start, end,
    /// new_len)` in the current content's coordinates, sorted and disjoint.
    /// Regions that an edit overlaps or touches merge with it. One pass over
    /// both lists (a batch of 100,000 edits stays linear).
    pub fn apply(&mut self, edits: &[(usize, usize, usize)]) {
        let old = std::mem::take(&mut self.0);
        let mut out = Vec::with_capacity(old.len() + edits.len());
        let (mut i, mut j) = (0usize, 0usize);
        // Growth (new - old length) of the regions, and of the edits, passed so far.
        let (mut region_growth, mut edit_growth) = (0isize, 0isize);
        let grow = |r: &Region| r.new.len() as isize - r.old.len() as isize;
        while i < old.len() || j < edits.len() {
            let region_first = j >= edits.len() || (i < old.len() && old[i].new.start <= edits[j].0);
            let (start, mut end, mut group_region_growth, mut group_edit_growth);
            if region_first {
                let r = &old[i];
                (start, end, group_region_growth, group_edit_growth) = (r.new.start, r.new.end, grow(r), 0);
                i += 1;
            } else {
                let (s, e, n) = edits[j];
                (start, end, group_region_growth, group_edit_growth) = (s, e, 0, n as isize - (e - s) as isize);
                j += 1;
            }
            // Everything that overlaps or touches the group joins it.
            loop {
                if i < old.len() && old[i].new.start <= end {
                    end = end.max(old[i].new.end);
                    group_region_growth += grow(&old[i]);
                    i += 1;
                } else if j < edits.len() && edits[j].0 <= end {
                    let (s, e, n) = edits[j];
                    end = end.max(e);
                    group_edit_growth += n as isize - (e - s) as isize;
                    j += 1;
                } else {
                    break;
                }
            }
            // A position outside every region maps back by the growth of the
            // regions before it; a region's ends map to its own ends.
            let old_start = (start as isize - region_growth) as usize;
            let old_end = (end as isize - region_growth - group_region_growth) as usize;
            let new_start = (start as isize + edit_growth) as usize;
            let new_end = (end as isize + edit_growth + group_edit_growth) as usize;
            out.push(Region { old: old_start..old_end, new: new_start..new_end });
            region_growth += group_region_growth;
            edit_growth += group_edit_growth;
        }
        self.0 = out;
    }

    /// The whole file replaced (a `write`, or a result rustfmt reformatted):
    /// the changed lines of its line diff.
    pub fn from_line_diff(lines: &aide_diff::LineDiff<'_>, before: &[u8], after: &[u8]) -> Regions {
        let (a, b) = (LineIndex::new(before), LineIndex::new(after));
        let offset = |index: &LineIndex, len: usize, line: usize| index.line_range(line + 1).map_or(len, |r| r.start);
        let regions = lines
            .changes()
            .map(|c| Region {
                old: offset(&a, before.len(), c.before.start)..offset(&a, before.len(), c.before.end),
                new: offset(&b, after.len(), c.after.start)..offset(&b, after.len(), c.after.end),
            })
            .collect();
        Regions(regions)
    }

    pub fn regions(&self) -> &[Region] {
        &self.0
    }

    /// Each region as a site of the report, with its lines before and after.
    pub fn sites(&self, before: &[u8], after: &[u8]) -> Vec<Site> {
        let (a, b) = (LineIndex::new(before), LineIndex::new(after));
        self.0.iter().map(|r| Site { before: Extent::of(&a, &r.old), after: Extent::of(&b, &r.new) }).collect()
    }
}

/// A changed place of a file, before and after the transform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Site {
    /// Where it was, in the file as read.
    pub before: Extent,
    /// Where it is, in the file as written: spans here are valid for the
    /// next edit against `checksum_after`.
    pub after: Extent,
}

/// A byte range and the lines it covers (1-based; an empty range is on the
/// line where it sits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Extent {
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub end_line: usize,
}

impl Extent {
    fn of(index: &LineIndex, range: &Range<usize>) -> Extent {
        let line = index.line_of(range.start);
        let end_line = if range.end > range.start { index.line_of(range.end - 1) } else { line };
        Extent { byte_start: range.start, byte_end: range.end, line, end_line }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Applies a batch to bytes, as the plan does (from the end).
    fn edit(bytes: &mut Vec<u8>, edits: &[(usize, usize, Vec<u8>)]) {
        for (s, e, r) in edits.iter().rev() {
            bytes.splice(*s..*e, r.iter().copied());
        }
    }

    #[test]
    fn regions_follow_edits_through_several_batches() {
        let mut regions = Regions::default();
        // "hello world" → "hi world" → "hi there world"
        regions.apply(&[(0, 5, 2)]);
        assert_eq!(regions.regions(), &[Region { old: 0..5, new: 0..2 }]);
        regions.apply(&[(3, 3, 6)]);
        assert_eq!(regions.regions(), &[Region { old: 0..5, new: 0..2 }, Region { old: 6..6, new: 3..9 }]);
        // An edit touching both regions joins them into one.
        regions.apply(&[(2, 3, 1)]);
        assert_eq!(regions.regions(), &[Region { old: 0..6, new: 0..9 }]);
    }

    proptest! {
        /// Outside the regions, the result is the original shifted: every
        /// byte between regions maps back to the same byte.
        #[test]
        fn bytes_outside_the_regions_are_the_original_bytes(
            batches in proptest::collection::vec(proptest::collection::vec((0usize..40, 0usize..4, "[a-c]{0,3}"), 0..5), 1..4)
        ) {
            let original: Vec<u8> = (0..40u8).map(|i| b'A' + (i % 26)).collect();
            let mut current = original.clone();
            let mut regions = Regions::default();
            for batch in batches {
                let mut spans: Vec<(usize, usize, Vec<u8>)> = Vec::new();
                let mut last_end = 0;
                let mut sorted = batch.clone();
                sorted.sort();
                for (s, len, text) in sorted {
                    let s = s.min(current.len());
                    if s < last_end { continue; }
                    let e = (s + len).min(current.len());
                    spans.push((s, e, text.into_bytes()));
                    last_end = e;
                }
                let triples: Vec<_> = spans.iter().map(|(s, e, r)| (*s, *e, r.len())).collect();
                edit(&mut current, &spans);
                regions.apply(&triples);
            }
            let (mut old_at, mut new_at) = (0usize, 0usize);
            for r in regions.regions() {
                prop_assert!(r.old.start >= old_at && r.new.start >= new_at);
                prop_assert_eq!(&original[old_at..r.old.start], &current[new_at..r.new.start]);
                old_at = r.old.end;
                new_at = r.new.end;
            }
            prop_assert_eq!(&original[old_at..], &current[new_at..]);
        }
    }
}
