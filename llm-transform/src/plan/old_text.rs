//! `patch`: `old_text` replaced by `new_text` in one file, exactly once or
//! at every match (`replace_all`), matched exactly or ignoring whitespace
//! (`fuzzy`), anywhere or within one symbol.

use aide_core::AideError;
use aide_core::checksum::sha256_hex;
use aide_core::text::Eol;

use super::target::Within;
use crate::error::{TransformError, join_lines};
use crate::growth::Budget;
use crate::sites::Applied;
use crate::text::{apply_span_edits_tracked, near_miss, to_eol};

/// What a `patch` operation asks.
pub(super) struct TextPatch<'a> {
    pub old_text: &'a str,
    pub new_text: &'a str,
    pub replace_all: bool,
    pub fuzzy: bool,
}

/// `old_text` → `new_text`, exact (or whitespace-insensitive with `fuzzy`);
/// with `within`, only matches inside that symbol count.
pub(super) fn patch(
    rel: &str,
    bytes: &[u8],
    wanted: &TextPatch<'_>,
    within: Option<&Within>,
    budget: &Budget,
) -> Result<(Vec<u8>, Applied, usize, Option<String>), AideError> {
    let TextPatch { old_text, new_text, replace_all, fuzzy } = *wanted;
    if old_text.is_empty() {
        return Err(TransformError::EmptyOldText.into());
    }
    let eol = Eol::of(bytes);
    let old = to_eol(old_text, eol);
    let new = to_eol(new_text, eol);
    let mut starts: Vec<(usize, usize)> =
        memchr::memmem::find_iter(bytes, old.as_bytes()).map(|s| (s, s + old.len())).collect();
    // find_iter reports overlapping starts; keep non-overlapping ones.
    let mut last_end = 0;
    starts.retain(|&(s, e)| {
        let keep = s >= last_end;
        if keep {
            last_end = e;
        }
        keep
    });
    let mut note = None;
    // With `within`: only matches wholly inside the symbol count.
    let inside = |&(s, e): &(usize, usize)| within.is_none_or(|w| w.start <= s && e <= w.end);
    starts.retain(inside);
    if starts.is_empty() && fuzzy {
        let tokens: Vec<String> = old_text.split_whitespace().map(regex::escape).collect();
        // A trailing line break in old_text is part of what it replaces.
        let tail = if old_text.ends_with('\n') { r"[ \t]*\r?\n" } else { "" };
        let pattern = format!("(?-u:{}{tail})", tokens.join(r"\s+"));
        if let Ok(re) = regex::bytes::Regex::new(&pattern) {
            starts = re.find_iter(bytes).map(|m| (m.start(), m.end())).filter(inside).collect();
            note = Some("fuzzy: matched ignoring whitespace differences".to_string());
        }
    }
    if let Some(w) = within {
        let said = format!("within `{}`", w.name_path);
        note = Some(note.map_or(said.clone(), |n| format!("{n}; {said}")));
    }
    // Line numbers by counting line breaks up to each match, in one pass:
    // no index of the whole file per patch (100,000 patches of one file).
    let mut lines = Vec::with_capacity(starts.len());
    let (mut line, mut counted) = (1, 0);
    for &(s, _) in &starts {
        line += memchr::memchr_iter(b'\n', &bytes[counted..s]).count();
        counted = s;
        lines.push(line);
    }
    match starts.len() {
        0 => Err(TransformError::NoMatch {
            path: rel.to_string(),
            near_miss: near_miss(bytes, &old),
            checksum: sha256_hex(bytes),
        }
        .into()),
        n if n > 1 && !replace_all => {
            Err(TransformError::AmbiguousText { path: rel.to_string(), count: n, lines }.into())
        }
        n => {
            // Measured before it is made: every match replaced adds the same.
            let replaced: usize = starts.iter().map(|&(s, e)| e - s).sum();
            budget.check(rel, Budget::change(replaced, n.saturating_mul(new.len())))?;
            let spans: Vec<(usize, usize, &[u8])> = starts.iter().map(|&(s, e)| (s, e, new.as_bytes())).collect();
            let (out, tracked) =
                apply_span_edits_tracked(bytes, &spans).map_err(|e| AideError::internal(e.to_string()))?;
            if n > 1 {
                note = Some(format!("replace_all: {n} matches (lines {})", join_lines(&lines)));
            }
            Ok((out, tracked, lines[0], note))
        }
    }
}
