//! How alike two strings are, character by character.

use imara_diff::{Algorithm, Diff, InternedInput};

/// The share of characters `a` and `b` have in common, 0..1: twice the
/// characters a diff keeps, over both lengths (difflib's ratio; 1 for two
/// empty strings).
pub fn similarity(a: &str, b: &str) -> f32 {
    let mut input = InternedInput::default();
    input.update_before(a.chars());
    input.update_after(b.chars());
    let total = input.before.len() + input.after.len();
    if total == 0 {
        return 1.0;
    }
    let diff = Diff::compute(Algorithm::Myers, &input);
    let kept = input.before.len() - diff.count_removals() as usize;
    (2 * kept) as f32 / total as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_of_common_characters() {
        assert_eq!(similarity("", ""), 1.0);
        assert_eq!(similarity("abcd", "abcd"), 1.0);
        assert_eq!(similarity("abcd", "wxyz"), 0.0);
        assert_eq!(similarity("abcd", "abxd"), 0.75);
        assert_eq!(similarity("ab", ""), 0.0);
    }
}
