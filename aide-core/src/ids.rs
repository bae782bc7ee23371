//! Identifiers: a fresh UUIDv7 `execution_id` per run, and stable content
//! ids (`match_id`, `span_id`) that are the same on every run and machine.

use sha2::{Digest, Sha256};

/// A new execution id: a UUIDv7, so ids sort by creation time.
pub fn new_execution_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A stable id of a span: the first 16 hex digits of the SHA-256 of the
/// relative path, the span and the spanned bytes, each part length-prefixed so
/// no two different inputs share an encoding.
pub fn span_id(path: &str, byte_start: usize, byte_end: usize, bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    for part in [path.as_bytes(), &byte_start.to_le_bytes(), &byte_end.to_le_bytes(), bytes] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    let digest = h.finalize();
    crate::checksum::to_hex(&digest[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_ids_are_stable_and_distinguish_inputs() {
        let a = span_id("src/a.rs", 1, 4, b"foo");
        assert_eq!(a, span_id("src/a.rs", 1, 4, b"foo"));
        assert_eq!(a.len(), 16);
        assert_ne!(a, span_id("src/a.rs", 2, 5, b"foo"));
        assert_ne!(a, span_id("src/b.rs", 1, 4, b"foo"));
        assert_ne!(span_id("ab", 0, 0, b"c"), span_id("a", 0, 0, b"bc"));
    }

    #[test]
    fn execution_ids_are_unique_uuid_v7() {
        let a = new_execution_id();
        let b = new_execution_id();
        assert_ne!(a, b);
        assert_eq!(uuid::Uuid::parse_str(&a).unwrap().get_version_num(), 7);
    }
}
