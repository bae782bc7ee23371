//! Identifiers: a fresh UUIDv7 `execution_id` per run, stable content ids
//! (`match_id`, `span_id`) that are the same on every run and machine, and
//! random W3C trace context ids (a run's trace and span, a process's span).

use sha2::{Digest, Sha256};

/// A new execution id: a UUIDv7, so ids sort by creation time.
pub fn new_execution_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Eight random bytes: a version 4 UUID's, less the bits its version and
/// variant fix (bytes 6 and 8).
fn random_u64() -> u64 {
    let b = uuid::Uuid::new_v4().into_bytes();
    u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[7], b[9]])
}

/// Eight random bytes, never all zero (W3C ids forbid zero).
fn random_nonzero_u64() -> u64 {
    loop {
        let n = random_u64();
        if n != 0 {
            return n;
        }
    }
}

/// A new W3C trace id: 32 lowercase hex digits, every bit random. A ratio
/// sampler reads its low eight bytes, and W3C Trace Context Level 2's
/// random flag promises its right-most seven: a UUID's fixed version and
/// variant bits would skew both.
pub fn new_trace_id() -> String {
    format!("{:016x}{:016x}", random_u64(), random_nonzero_u64())
}

/// A new W3C span (parent) id: 16 lowercase hex digits, random, never all zero.
pub fn new_trace_span_id() -> String {
    format!("{:016x}", random_nonzero_u64())
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
    fn trace_ids_are_random_in_every_bit_and_never_zero() {
        let ids: Vec<String> = (0..64).map(|_| new_trace_id()).collect();
        assert!(
            ids.iter().all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
        );
        // A UUID's variant bits would hold byte 8's top bits at 10 in every id.
        let top_bits: std::collections::BTreeSet<&str> = ids.iter().map(|id| &id[16..17]).collect();
        assert!(top_bits.len() > 4, "the low half's first digit varies: {top_bits:?}");
        let span = new_trace_span_id();
        assert_eq!(span.len(), 16);
        assert_ne!(span, "0000000000000000");
        assert_ne!(new_trace_span_id(), span);
    }

    #[test]
    fn execution_ids_are_unique_uuid_v7() {
        let a = new_execution_id();
        let b = new_execution_id();
        assert_ne!(a, b);
        assert_eq!(uuid::Uuid::parse_str(&a).unwrap().get_version_num(), 7);
    }
}
