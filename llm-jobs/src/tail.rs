//! How much of a job's output a wait or a read of its logs answers: a
//! short tail by default (a model pays for every byte, and the end of a
//! build's output is where its verdict is), cut at whole lines where it
//! can, with what was left out said so it can be asked for.

/// The most bytes of output a wait (both streams of every job) or a read of
/// logs answers unless the caller asks for more (`max_output_bytes`).
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 2000;

/// The last `lines` lines of `bytes` (at most 64 KiB).
pub(crate) fn tail_lines(bytes: &[u8], lines: usize) -> &[u8] {
    let bytes = &bytes[bytes.len().saturating_sub(64 * 1024)..];
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut seen = 0;
    for (i, &b) in body.iter().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == lines {
                return &bytes[i + 1..];
            }
        }
    }
    if lines == 0 { &bytes[bytes.len()..] } else { bytes }
}

/// The end of `bytes` in at most `max` bytes: from the first whole line in
/// it, or (one line longer than `max`) from a character's start.
pub(crate) fn tail_bytes(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let window = &bytes[bytes.len() - max..];
    let body = window.strip_suffix(b"\n").unwrap_or(window);
    match body.iter().position(|&b| b == b'\n') {
        Some(i) => &window[i + 1..],
        None => {
            let start = window.iter().position(|&b| !is_continuation(b)).unwrap_or(window.len());
            &window[start..]
        }
    }
}

/// The start of `bytes` in at most `max` bytes: up to the last whole line in
/// it, or (one line longer than `max`) up to a character's end.
pub(crate) fn head_bytes(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let window = &bytes[..max];
    match window.iter().rposition(|&b| b == b'\n') {
        Some(i) => &window[..=i],
        None => {
            let end = (0..=max).rev().find(|&i| i == 0 || !is_continuation(bytes[i])).unwrap_or(0);
            &bytes[..end]
        }
    }
}

/// A UTF-8 continuation byte: never where a character starts.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// `budget` shared among outputs of these sizes: each gets an equal part,
/// and what a small one does not use goes to the others.
pub(crate) fn shares(sizes: &[usize], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut left = budget;
    let mut shares = vec![0; sizes.len()];
    for (k, &i) in order.iter().enumerate() {
        let even = left / (sizes.len() - k);
        shares[i] = sizes[i].min(even);
        left -= shares[i];
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_lines() {
        assert_eq!(tail_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(tail_lines(b"a\nb\nc", 2), b"b\nc");
        assert_eq!(tail_lines(b"a\nb\n", 5), b"a\nb\n");
        assert_eq!(tail_lines(b"a\nb\n", 0), b"");
    }

    #[test]
    fn byte_tails_and_heads_keep_whole_lines() {
        assert_eq!(tail_bytes(b"one\ntwo\nthree\n", 9), b"three\n");
        assert_eq!(tail_bytes(b"one\ntwo\n", 100), b"one\ntwo\n");
        // One long line: cut where a character starts, never inside one.
        assert_eq!(tail_bytes("xxééé".as_bytes(), 5), "éé".as_bytes());
        assert_eq!(head_bytes(b"one\ntwo\nthree\n", 9), b"one\ntwo\n");
        assert_eq!(head_bytes("ééé".as_bytes(), 5), "éé".as_bytes());
        assert_eq!(head_bytes(b"abc", 2), b"ab");
    }

    #[test]
    fn shares_give_what_a_small_output_leaves_to_the_others() {
        assert_eq!(shares(&[100, 5000, 5000], 2000), [100, 950, 950]);
        assert_eq!(shares(&[10, 20], 2000), [10, 20]);
        assert_eq!(shares(&[], 2000), Vec::<usize>::new());
        assert_eq!(shares(&[3000, 0], 2000), [2000, 0]);
    }
}
