//! Trigrams: three bytes as one number, ASCII letters folded to lower case,
//! so one index serves case-sensitive and case-insensitive searches (a
//! folded trigram of a literal is in the folded trigrams of any text that
//! holds the literal, whatever its case).

/// Three bytes, folded, as `b0 << 16 | b1 << 8 | b2`.
pub type Trigram = u32;

fn fold(b: u8) -> u32 {
    u32::from(b.to_ascii_lowercase())
}

/// The distinct trigrams of `bytes`, sorted.
pub fn of_text(bytes: &[u8]) -> Vec<Trigram> {
    let mut seen = Seen::default();
    seen.add(bytes);
    seen.take()
}

/// The trigrams a text must hold to hold `literal` (none when it is
/// shorter than three bytes), sorted.
pub fn of_literal(literal: &[u8]) -> Vec<Trigram> {
    of_text(literal)
}

/// A set of trigrams over the whole 24-bit space: a bit each, with the
/// ones set remembered so it empties in the time it filled.
pub struct Seen {
    bits: Vec<u64>,
    set: Vec<Trigram>,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen { bits: vec![0; (1 << 24) / 64], set: Vec::new() }
    }
}

impl Seen {
    /// Adds the trigrams of `bytes`.
    pub fn add(&mut self, bytes: &[u8]) {
        if bytes.len() < 3 {
            return;
        }
        let mut t = (fold(bytes[0]) << 8) | fold(bytes[1]);
        for &c in &bytes[2..] {
            t = ((t << 8) | fold(c)) & 0xFF_FFFF;
            let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
            if self.bits[word] & bit == 0 {
                self.bits[word] |= bit;
                self.set.push(t);
            }
        }
    }

    /// The trigrams added since the last take, sorted; the set is empty after.
    pub fn take(&mut self) -> Vec<Trigram> {
        let mut out = self.take_unsorted();
        out.sort_unstable();
        out
    }

    /// The trigrams added since the last take, in the order first seen (an
    /// index adds them each to its own list, so their order does not matter).
    pub fn take_unsorted(&mut self) -> Vec<Trigram> {
        for &t in &self.set {
            self.bits[(t >> 6) as usize] = 0;
        }
        std::mem::take(&mut self.set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigrams_fold_case_and_are_distinct() {
        let t = |s: &[u8]| (u32::from(s[0]) << 16) | (u32::from(s[1]) << 8) | u32::from(s[2]);
        assert_eq!(of_text(b"AbCabc"), vec![t(b"abc"), t(b"bca"), t(b"cab")]);
        assert_eq!(of_text(b"ab"), Vec::<Trigram>::new());
        assert_eq!(of_literal(b"\xff\xfe\xfd"), vec![0xFF_FEFD]);
    }
}
