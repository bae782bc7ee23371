//! SHA-256 checksums, lowercase hex, of exact bytes: the same value
//! `sha256sum` prints for a whole file.

pub mod cache;

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// Lowercase hex SHA-256 of the file at `path`, streamed.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut reader = std::fs::File::open(path)?;
    let mut hasher = Hasher::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finish())
}

/// An SHA-256 fed piece by piece (a file read in chunks).
#[derive(Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The lowercase hex digest.
    pub fn finish(self) -> String {
        to_hex(&self.0.finalize())
    }
}

/// Whether `s` looks like a checksum this module produces (64 lowercase hex digits).
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The fewest hex digits of a checksum that name it: what a compact
/// result (`aide mcp`) shows, and what every expected checksum may be.
pub const SHORT_HEX: usize = 12;

/// Whether an expected checksum (`checksum_before`, `expected_tree_checksum`)
/// names `actual`: the whole of it, or its first [`SHORT_HEX`] or more hex
/// digits (any case), as git names a commit by 12. A shorter or different one does not: the caller's
/// `checksum_mismatch`. 48 bits tell a file's versions apart; a guard
/// detects change, it does not authenticate.
pub fn names(expected: &str, actual: &str) -> bool {
    expected.len() >= SHORT_HEX.min(actual.len())
        && expected.len() <= actual.len()
        && expected.bytes().all(|b| b.is_ascii_hexdigit())
        && actual.as_bytes()[..expected.len()].eq_ignore_ascii_case(expected.as_bytes())
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 0xf) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn file_checksum_equals_bytes_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        assert_eq!(file_sha256(&p).unwrap(), sha256_hex(&data));
        assert!(is_sha256_hex(&sha256_hex(&data)));
        assert!(!is_sha256_hex("ABC"));
    }

    #[test]
    fn an_expected_checksum_names_the_actual_by_the_whole_or_a_prefix_of_12_digits_or_more() {
        let actual = sha256_hex(b"abc");
        assert!(names(&actual, &actual));
        assert!(names(&actual[..12], &actual));
        assert!(names(&actual[..40].to_ascii_uppercase(), &actual));
        assert!(!names(&actual[..11], &actual), "too short to name one version");
        assert!(!names("", &actual));
        assert!(!names(&sha256_hex(b"abd")[..12], &actual));
        assert!(!names(&format!("{actual}0"), &actual));
    }
}
