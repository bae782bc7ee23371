//! Deterministic ordering: by path compared byte-wise, then byte offset.

use std::cmp::Ordering;

/// Something located in a file.
pub trait Located {
    /// Path relative to the root, `/`-separated.
    fn path(&self) -> &str;
    fn byte_start(&self) -> usize;
}

/// The order of every list of located results: path byte-wise, then byte_start.
pub fn cmp_location(a_path: &str, a_start: usize, b_path: &str, b_start: usize) -> Ordering {
    a_path.as_bytes().cmp(b_path.as_bytes()).then(a_start.cmp(&b_start))
}

/// Sorts `items` into the canonical order. Stable, so equal keys keep their
/// relative order (callers add a further key where they need one).
pub fn sort_by_location<T: Located>(items: &mut [T]) {
    items.sort_by(|a, b| cmp_location(a.path(), a.byte_start(), b.path(), b.byte_start()));
}

#[cfg(test)]
mod tests {
    use super::*;

    struct L(&'static str, usize);
    impl Located for L {
        fn path(&self) -> &str {
            self.0
        }
        fn byte_start(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn sorts_by_path_bytes_then_offset() {
        let mut v = vec![L("b.rs", 1), L("a/z.rs", 9), L("a.rs", 5), L("a.rs", 2), L("B.rs", 0)];
        sort_by_location(&mut v);
        let got: Vec<_> = v.iter().map(|l| (l.0, l.1)).collect();
        assert_eq!(got, vec![("B.rs", 0), ("a.rs", 2), ("a.rs", 5), ("a/z.rs", 9), ("b.rs", 1)]);
    }
}
