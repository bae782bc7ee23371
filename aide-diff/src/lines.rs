//! A line diff of two byte texts.

use std::ops::Range;

use imara_diff::{Algorithm, Diff, InternedInput};

/// The line diff of `before` and `after`. Lines are split after each `\n`
/// and keep it, so a changed line ending (or a last line gaining one) is a
/// changed line, as git sees it; bytes are compared as they are, so two
/// different invalid UTF-8 lines never look equal.
pub struct LineDiff<'a> {
    pub(crate) input: InternedInput<&'a [u8]>,
    pub(crate) diff: Diff,
}

/// One run of changed lines: 0-based line ranges of `before` and `after`
/// (one of them empty for a pure insertion or removal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub before: Range<usize>,
    pub after: Range<usize>,
}

impl<'a> LineDiff<'a> {
    pub fn new(before: &'a [u8], after: &'a [u8]) -> LineDiff<'a> {
        let input = InternedInput::new(before, after);
        let mut diff = Diff::compute(Algorithm::Myers, &input);
        diff.postprocess_lines(&input);
        LineDiff { input, diff }
    }

    /// Lines of `after` that `before` did not have.
    pub fn added(&self) -> usize {
        self.diff.count_additions() as usize
    }

    /// Lines of `before` that `after` does not have.
    pub fn removed(&self) -> usize {
        self.diff.count_removals() as usize
    }

    /// The runs of changed lines, in order.
    pub fn changes(&self) -> impl Iterator<Item = Change> + '_ {
        self.diff.hunks().map(|h| Change {
            before: h.before.start as usize..h.before.end as usize,
            after: h.after.start as usize..h.after.end as usize,
        })
    }

    /// Each unchanged line as (its 0-based line in `before`, its line in
    /// `after`), in order; an edited or removed line has no pair.
    pub fn unchanged(&self) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        let (mut old, mut new) = (0, 0);
        let equal_until = |pairs: &mut Vec<(usize, usize)>, old: &mut usize, new: &mut usize, end: usize| {
            while *old < end {
                pairs.push((*old, *new));
                *old += 1;
                *new += 1;
            }
        };
        for change in self.changes() {
            equal_until(&mut pairs, &mut old, &mut new, change.before.start);
            (old, new) = (change.before.end, change.after.end);
        }
        equal_until(&mut pairs, &mut old, &mut new, self.input.before.len());
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_ranges_and_moves() {
        let d = LineDiff::new(b"a\nb\nc\nd\n", b"a\nB\nc\nd\ne\n");
        assert_eq!((d.added(), d.removed()), (2, 1));
        assert_eq!(
            d.changes().collect::<Vec<_>>(),
            vec![Change { before: 1..2, after: 1..2 }, Change { before: 4..4, after: 4..5 }]
        );
        assert_eq!(d.unchanged(), vec![(0, 0), (2, 2), (3, 3)]);
    }

    #[test]
    fn a_line_ending_is_part_of_the_line() {
        let d = LineDiff::new(b"a\nb", b"a\nb\n");
        assert_eq!((d.added(), d.removed()), (1, 1));
        let crlf = LineDiff::new(b"a\r\n", b"a\n");
        assert_eq!((crlf.added(), crlf.removed()), (1, 1));
    }

    #[test]
    fn different_invalid_bytes_are_different_lines() {
        let d = LineDiff::new(b"\xff\n", b"\xfe\n");
        assert_eq!((d.added(), d.removed()), (1, 1));
    }

    proptest! {
        /// Replaying the changes on `before` gives `after`, and the
        /// unchanged pairs name equal lines.
        #[test]
        fn changes_rebuild_after(before in "[abc\n]{0,40}", after in "[abc\n]{0,40}") {
            let split = |s: &str| s.split_inclusive('\n').map(str::to_owned).collect::<Vec<_>>();
            let (old, new) = (split(&before), split(&after));
            let d = LineDiff::new(before.as_bytes(), after.as_bytes());
            let mut rebuilt = Vec::new();
            let mut at = 0;
            for c in d.changes() {
                rebuilt.extend_from_slice(&old[at..c.before.start]);
                rebuilt.extend_from_slice(&new[c.after.clone()]);
                at = c.before.end;
            }
            rebuilt.extend_from_slice(&old[at..]);
            prop_assert_eq!(&rebuilt, &new);
            for (o, n) in d.unchanged() {
                prop_assert_eq!(&old[o], &new[n]);
            }
            prop_assert_eq!(d.unchanged().len() + d.removed(), old.len());
        }
    }
}
