//! How much a transform may grow the files it writes. Every operation
//! checks what it would add before it builds a file's new content (a
//! template's expansion is measured before it is made), so a request that
//! doubles a file 26 times is refused at the doubling that passes the
//! bound, never after gigabytes were made — a dry run too.
//!
//! The bound: together the files may grow by 8 × the bytes the transform
//! read (the files it edits, the trees it copies), by 64 MiB at least
//! whatever they held, and by 1 GiB at most (`AIDE_TRANSFORM_MAX_GROWTH`,
//! in bytes, sets this cap).

use aide_core::AideError;

use crate::error::TransformError;
use crate::request::OpName;

/// How many times what the transform read its files may grow by.
pub(crate) const GROWTH_FACTOR: u64 = 8;
/// What they may grow by, however little they held.
pub(crate) const GROWTH_FLOOR: u64 = 64 << 20;
/// What they may never grow by more than, unless `AIDE_TRANSFORM_MAX_GROWTH` says otherwise.
pub(crate) const GROWTH_CAP: u64 = 1 << 30;

/// The cap in force: `AIDE_TRANSFORM_MAX_GROWTH`, or [`GROWTH_CAP`].
pub(crate) fn cap() -> u64 {
    std::env::var("AIDE_TRANSFORM_MAX_GROWTH").ok().and_then(|v| v.parse().ok()).unwrap_or(GROWTH_CAP)
}

/// The bound of a transform that read `read` bytes, under the cap `cap`.
pub(crate) fn bound(read: u64, cap: u64) -> u64 {
    read.saturating_mul(GROWTH_FACTOR).max(GROWTH_FLOOR).min(cap)
}

/// What the operations of a transform may still add to its files: the
/// bound, less what was added so far. Each file's change is taken from it
/// before the file's new content is built.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    /// The operation adding now, for the refusal.
    index: usize,
    op: OpName,
    /// Bytes the transform read.
    read: u64,
    /// Bytes added so far (less those removed).
    grown: i128,
    cap: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { index: 0, op: OpName::Edits, read: 0, grown: 0, cap: cap() }
    }
}

impl Budget {
    /// Operation `index` adds from now.
    pub(crate) fn begin(&mut self, index: usize, op: OpName) {
        (self.index, self.op) = (index, op);
    }

    /// The transform read `bytes` more (a file, a tree it copies).
    pub(crate) fn read(&mut self, bytes: usize) {
        self.read = self.read.saturating_add(bytes as u64);
    }

    pub(crate) fn bound(&self) -> u64 {
        bound(self.read, self.cap)
    }

    /// Refuses `more` bytes (negative: fewer) added to `path`, when they
    /// would take the files past the bound.
    pub(crate) fn check(&self, path: &str, more: i128) -> Result<(), AideError> {
        let would = self.grown.saturating_add(more);
        let bound = self.bound();
        if would > i128::from(bound) {
            return Err(TransformError::GrowthBound {
                index: self.index,
                op: self.op,
                path: path.to_string(),
                would: u64::try_from(would).unwrap_or(u64::MAX),
                bound,
            }
            .into());
        }
        Ok(())
    }

    /// [`Budget::check`], then counts them as added.
    pub(crate) fn take(&mut self, path: &str, more: i128) -> Result<(), AideError> {
        self.check(path, more)?;
        self.grown += more;
        Ok(())
    }

    /// What `old` bytes become `new` adds.
    pub(crate) fn change(old: usize, new: usize) -> i128 {
        new as i128 - old as i128
    }
}

/// Counts, while a file's replacements are worked out, what they add:
/// each one measured before it is made.
#[derive(Debug)]
pub(crate) struct Counter<'a> {
    budget: &'a Budget,
    path: &'a str,
    added: std::cell::Cell<i128>,
    /// A replacement was refused: the bound would have been passed.
    passed: std::cell::Cell<bool>,
}

impl<'a> Counter<'a> {
    pub(crate) fn new(budget: &'a Budget, path: &'a str) -> Counter<'a> {
        Counter { budget, path, added: 0.into(), passed: false.into() }
    }

    /// Refuses a replacement of `replaced` bytes by `by` that would take
    /// the files past the bound, without counting it.
    pub(crate) fn fits(&self, replaced: usize, by: usize) -> Result<(), AideError> {
        let checked = self.budget.check(self.path, self.added.get() + Budget::change(replaced, by));
        self.passed.set(self.passed.get() || checked.is_err());
        checked
    }

    /// [`Counter::fits`], then counts it.
    pub(crate) fn replace(&self, replaced: usize, by: usize) -> Result<(), AideError> {
        self.fits(replaced, by)?;
        self.added.set(self.added.get() + Budget::change(replaced, by));
        Ok(())
    }

    /// What the replacements counted add.
    pub(crate) fn added(&self) -> i128 {
        self.added.get()
    }

    /// Whether one was refused for the bound.
    pub(crate) fn passed(&self) -> bool {
        self.passed.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_a_multiple_of_what_was_read_between_the_floor_and_the_cap() {
        assert_eq!(bound(0, GROWTH_CAP), GROWTH_FLOOR);
        assert_eq!(bound(100 << 20, GROWTH_CAP), 800 << 20);
        assert_eq!(bound(1 << 40, GROWTH_CAP), GROWTH_CAP);
        assert_eq!(bound(u64::MAX, GROWTH_CAP), GROWTH_CAP);
        assert_eq!(bound(0, 1000), 1000, "a cap under the floor is the bound");
    }

    #[test]
    fn a_budget_refuses_what_passes_it_and_counts_what_it_takes() {
        let mut budget = Budget { cap: GROWTH_CAP, ..Budget::default() };
        budget.begin(3, OpName::Patch);
        budget.take("a", i128::from(GROWTH_FLOOR) - 10).unwrap();
        let e = budget.check("a", 11).unwrap_err();
        assert_eq!(e.code.name, "invalid_arguments");
        assert!(e.hint.as_deref().unwrap().contains("operation 3"), "{:?}", e.hint);
        budget.take("a", -100).unwrap();
        budget.take("a", 90).unwrap();
        let counter = Counter::new(&budget, "b");
        counter.replace(5, 5).unwrap();
        assert!(!counter.passed());
        assert!(counter.replace(0, 21).is_err());
        assert!(counter.passed() && counter.added() == 0);
        // What is read raises the bound.
        budget.read(16 << 20);
        budget.check("a", 1 << 20).unwrap();
    }
}
