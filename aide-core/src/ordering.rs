//! Deterministic ordering: by path compared byte-wise, then byte offset.

use std::cmp::Ordering;

/// The order of every list of files: the path (relative to the root,
/// `/`-separated, as the contract spells it) byte-wise.
pub fn cmp_path(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

/// The order of every list of located results: path byte-wise, then byte_start.
pub fn cmp_location(a_path: &str, a_start: usize, b_path: &str, b_start: usize) -> Ordering {
    cmp_path(a_path, b_path).then(a_start.cmp(&b_start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_path_bytes_then_offset() {
        let mut v = vec![("b.rs", 1), ("a/z.rs", 9), ("a.rs", 5), ("a.rs", 2), ("B.rs", 0), ("a-b.rs", 0)];
        v.sort_by(|a, b| cmp_location(a.0, a.1, b.0, b.1));
        assert_eq!(v, vec![("B.rs", 0), ("a-b.rs", 0), ("a.rs", 2), ("a.rs", 5), ("a/z.rs", 9), ("b.rs", 1)]);
    }
}
