//! Patches: git's unified diffs (new, deleted and renamed files included)
//! and the `*** Begin Patch … *** End Patch` format, read into file
//! changes, and their hunks applied to a file's lines. A hunk's old lines
//! (context and removed) must be found in the file: at its stated line
//! where the patch gives one, else exactly once (after the hunk's `@@`
//! anchor line, in the `*** Begin Patch` format); anything else is refused,
//! naming the hunk and the nearest lines. The engine makes the changes
//! write, delete and rename operations of one all-or-nothing commit (a new
//! file git marks `100755` is made executable).

use aide_core::AideError;

use crate::error::TransformError;

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FilePatch {
    /// `executable`: git's `new file mode 100755`.
    Add {
        path: String,
        content: String,
        executable: bool,
    },
    Delete {
        path: String,
        hunks: Vec<Hunk>,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
        /// git's `new mode`: Some(true) for 100755, Some(false) for 100644.
        executable: Option<bool>,
    },
}

impl FilePatch {
    /// The paths it touches (for the locks).
    pub(crate) fn paths(&self) -> Vec<&str> {
        match self {
            FilePatch::Add { path, .. } | FilePatch::Delete { path, .. } => vec![path],
            FilePatch::Update { path, move_to, .. } => {
                std::iter::once(path.as_str()).chain(move_to.as_deref()).collect()
            }
        }
    }
}

/// One hunk: its header (for messages), where it says it starts, and its
/// lines (without terminators).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Hunk {
    pub header: String,
    /// 1-based old start line (unified diffs).
    pub old_start: Option<usize>,
    /// A line the hunk comes after (`*** Begin Patch` `@@ text`).
    pub anchor: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `\ No newline at end of file` after the old side's or new side's last line.
    pub old_no_newline: bool,
    pub new_no_newline: bool,
    /// `*** End of File`: the hunk ends the file.
    pub at_end: bool,
}

fn bad(line: usize, message: impl Into<String>) -> AideError {
    TransformError::PatchUnreadable { line, message: message.into() }.into()
}

fn unsupported(line: usize, what: &'static str) -> AideError {
    TransformError::PatchUnsupported { line, what }.into()
}

/// Reads a patch of either format.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>, AideError> {
    if text.lines().any(|l| l.trim_end() == "*** Begin Patch") { parse_begin_patch(text) } else { parse_unified(text) }
}

/// A unified diff (git's or `diff -u`'s), read by `aide_diff::read`.
fn parse_unified(text: &str) -> Result<Vec<FilePatch>, AideError> {
    let files = aide_diff::read(text.as_bytes()).map_err(|e| bad(e.line(), e.to_string()))?;
    if files.is_empty() {
        return Err(bad(1, "no file change found"));
    }
    files.iter().map(file_patch).collect()
}

/// One file's change, or why it is not applied: a copy (as a rename it
/// would move the source away), a binary change, a link or submodule.
fn file_patch(file: &aide_diff::FileDiff) -> Result<FilePatch, AideError> {
    use aide_diff::{ExtendedKind as K, Status};
    if file.form == aide_diff::Form::Combined {
        return Err(unsupported(file.line, "a merge's combined diff"));
    }
    let plain_mode = |m: &str| m == "100644" || m == "100755";
    for e in &file.extended {
        match &e.kind {
            K::CopyFrom(_) | K::CopyTo(_) => return Err(unsupported(e.line, "a copy")),
            K::Binary => return Err(unsupported(e.line, "a binary change")),
            K::NewMode(m) | K::NewFileMode(m) if !plain_mode(m) => {
                return Err(unsupported(e.line, "a change to a link or submodule"));
            }
            _ => {}
        }
    }
    let name = |bytes: Option<Vec<u8>>| bytes.map(|b| aide_core::text::path_name(&b));
    let (old_path, new_path) = (name(file.old_path()), name(file.new_path()));
    let hunks: Vec<Hunk> = file.hunks.iter().map(hunk).collect();
    Ok(match (file.status(), old_path, new_path) {
        (Status::Added, _, Some(path)) => {
            let mut content: String = hunks.iter().flat_map(|h| &h.new).map(|l| format!("{l}\n")).collect();
            if hunks.last().is_some_and(|h| h.new_no_newline) {
                content.pop();
            }
            FilePatch::Add { path, content, executable: file.new_mode() == Some("100755") }
        }
        (Status::Deleted, Some(path), _) => FilePatch::Delete { path, hunks },
        (_, Some(path), new_path) => {
            let new_mode = file.extended.iter().find_map(|e| match &e.kind {
                K::NewMode(m) => Some(m == "100755"),
                _ => None,
            });
            let move_to = new_path.filter(|n| *n != path);
            FilePatch::Update { path, move_to, hunks, executable: new_mode }
        }
        _ => return Err(bad(file.line, "a file change names no file")),
    })
}

/// A hunk as the applier takes it: its old lines (context and removed) and
/// new lines (context and added).
fn hunk(read: &aide_diff::Hunk) -> Hunk {
    use aide_diff::LineKind as L;
    let text = |l: &aide_diff::HunkLine| String::from_utf8_lossy(&l.text).into_owned();
    let old: Vec<&aide_diff::HunkLine> = read.lines.iter().filter(|l| l.kind != L::Added).collect();
    let new: Vec<&aide_diff::HunkLine> = read.lines.iter().filter(|l| l.kind != L::Removed).collect();
    Hunk {
        header: read.header.clone(),
        old_start: Some(read.old_start),
        anchor: None,
        old: old.iter().map(|l| text(l)).collect(),
        new: new.iter().map(|l| text(l)).collect(),
        old_no_newline: old.iter().any(|l| l.no_newline),
        new_no_newline: new.iter().any(|l| l.no_newline),
        at_end: false,
    }
}

// Long because: one reader of the *** Begin Patch format: each of its section kinds in turn, with its line numbers for errors.
fn parse_begin_patch(text: &str) -> Result<Vec<FilePatch>, AideError> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim_end() == "*** Begin Patch").unwrap_or(0);
    let mut out = Vec::new();
    let mut i = start + 1;
    let mut ended = false;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        if line.trim_end() == "*** End Patch" {
            ended = true;
            break;
        }
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            i += 1;
            let mut content = String::new();
            while i < lines.len() && !lines[i].starts_with("*** ") {
                let Some(body) = lines[i].strip_prefix('+') else {
                    return Err(bad(i + 1, "a line of an added file starts with +"));
                };
                content.push_str(body);
                content.push('\n');
                i += 1;
            }
            out.push(FilePatch::Add { path: path.trim().to_string(), content, executable: false });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            out.push(FilePatch::Delete { path: path.trim().to_string(), hunks: Vec::new() });
            i += 1;
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            i += 1;
            let mut move_to = None;
            if let Some(to) = lines.get(i).and_then(|l| l.strip_prefix("*** Move to: ")) {
                move_to = Some(to.trim().to_string());
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            while i < lines.len() {
                let l = lines[i];
                if l.trim_end() == "*** End of File" {
                    if let Some(h) = hunks.last_mut() {
                        h.at_end = true;
                    }
                    i += 1;
                    continue;
                }
                if l.starts_with("*** ") {
                    break;
                }
                if let Some(anchor) = l.strip_prefix("@@") {
                    let anchor = anchor.trim();
                    hunks.push(Hunk {
                        header: l.to_string(),
                        anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                        ..Hunk::default()
                    });
                    i += 1;
                    continue;
                }
                if hunks.is_empty() {
                    hunks.push(Hunk { header: "@@".into(), ..Hunk::default() });
                }
                let hunk = hunks.last_mut().ok_or_else(|| bad(i + 1, "a line outside a hunk"))?;
                let (kind, body) = marker(l);
                match kind {
                    " " | "" => {
                        hunk.old.push(body.to_string());
                        hunk.new.push(body.to_string());
                    }
                    "-" => hunk.old.push(body.to_string()),
                    "+" => hunk.new.push(body.to_string()),
                    _ => return Err(bad(i + 1, format!("`{l}` is not a line of a hunk (' ', '-' or '+')"))),
                }
                i += 1;
            }
            out.push(FilePatch::Update { path: path.trim().to_string(), move_to, hunks, executable: None });
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(bad(i + 1, format!("`{line}` is not *** Add File, *** Update File or *** Delete File")));
        }
    }
    if !ended {
        return Err(bad(lines.len(), "no *** End Patch"));
    }
    Ok(out)
}

/// Why a hunk does not apply.
#[derive(Debug)]
pub(crate) struct HunkMiss {
    pub hunk: usize,
    pub header: String,
    /// Where its old lines start, when there are several such places.
    pub candidates: Vec<usize>,
    /// The lines most like the hunk's first old line: (line, text).
    pub nearest: Vec<(usize, String)>,
}

/// `bytes` with `hunks` applied; lines end at `\n`, a `\r` before it is
/// part of the line (as git compares them).
pub(crate) fn apply(bytes: &[u8], hunks: &[Hunk]) -> Result<Vec<u8>, HunkMiss> {
    let text = String::from_utf8_lossy(bytes);
    let ends_with_newline = text.ends_with('\n');
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if ends_with_newline || text.is_empty() {
        lines.pop();
    }
    let mut last_newline = ends_with_newline || text.is_empty();
    let mut offset: isize = 0;
    let mut searched_from = 0;
    for (n, h) in hunks.iter().enumerate() {
        let fits = |at: usize| at + h.old.len() <= lines.len() && lines[at..at + h.old.len()] == h.old[..];
        let from = match &h.anchor {
            Some(anchor) => match (searched_from..lines.len()).find(|&i| lines[i].trim() == anchor.trim()) {
                Some(i) => i + 1,
                None => return Err(miss(n, h, Vec::new(), &lines)),
            },
            None => searched_from,
        };
        let at = if h.at_end {
            let at = lines.len().saturating_sub(h.old.len());
            fits(at).then_some(at)
        } else if h.old.is_empty() {
            // A pure insertion: where the header says (after line old_start).
            Some(h.old_start.map_or(lines.len(), |s| s.saturating_add_signed(offset).min(lines.len())))
        } else {
            let stated = h.old_start.map(|s| s.saturating_sub(1).saturating_add_signed(offset));
            match stated.filter(|&s| fits(s)) {
                Some(s) => Some(s),
                None => {
                    let found: Vec<usize> = (from..lines.len()).filter(|&i| fits(i)).collect();
                    match found.as_slice() {
                        [one] => Some(*one),
                        [] => None,
                        many => return Err(miss(n, h, many.iter().map(|i| i + 1).collect(), &lines)),
                    }
                }
            }
        };
        let Some(at) = at else { return Err(miss(n, h, Vec::new(), &lines)) };
        let end = at + h.old.len();
        // A hunk that reaches the end says how the file ends now: its last new
        // line without a break only where marked so; with none, the line
        // before it (which was followed by others) keeps its break.
        if end == lines.len() && (end > at || h.new_no_newline || h.old_no_newline) {
            last_newline = h.new.is_empty() || !h.new_no_newline;
        }
        lines.splice(at..end, h.new.iter().cloned());
        offset += h.new.len() as isize - h.old.len() as isize;
        searched_from = at + h.new.len();
    }
    let mut out = lines.join("\n");
    if last_newline && !lines.is_empty() {
        out.push('\n');
    }
    Ok(out.into_bytes())
}

fn miss(hunk: usize, h: &Hunk, candidates: Vec<usize>, lines: &[String]) -> HunkMiss {
    let first = h.old.iter().find(|l| !l.trim().is_empty()).cloned().unwrap_or_default();
    // The lines sharing the most characters with the hunk's first old line.
    let score = |l: &str| aide_diff::similarity(first.as_str(), l);
    let mut scored: Vec<(usize, String, f32)> =
        lines.iter().enumerate().map(|(i, l)| (i + 1, l.clone(), score(l))).filter(|(_, _, s)| *s > 0.5).collect();
    scored.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    HunkMiss {
        hunk: hunk + 1,
        header: h.header.clone(),
        candidates,
        nearest: scored.into_iter().take(3).map(|(i, l, _)| (i, l)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_git_diff_reads_as_updates_adds_deletes_and_renames() {
        let text = "diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn c() {}\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0..1\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\ndiff --git a/x.rs b/y.rs\nsimilarity index 100%\nrename from x.rs\nrename to y.rs\n";
        let p = parse(text).unwrap();
        assert_eq!(p.len(), 4);
        assert!(
            matches!(&p[0], FilePatch::Update { path, move_to: None, hunks, .. } if path == "src/a.rs" && hunks.len() == 1)
        );
        assert_eq!(p[1], FilePatch::Add { path: "new.txt".into(), content: "hello".into(), executable: false });
        assert!(matches!(&p[2], FilePatch::Delete { path, .. } if path == "old.txt"));
        assert!(
            matches!(&p[3], FilePatch::Update { path, move_to: Some(to), hunks, .. } if path == "x.rs" && to == "y.rs" && hunks.is_empty())
        );
        let mode = parse("diff --git a/x b/x\nold mode 100644\nnew mode 100755\n").unwrap();
        assert!(matches!(&mode[0], FilePatch::Update { executable: Some(true), hunks, .. } if hunks.is_empty()));
        assert!(parse("diff --git a/x b/x\nold mode 100644\nnew mode 120000\n").is_err());
        // A new link would be written as a file holding its target's name.
        let link = "diff --git a/l b/l\nnew file mode 120000\nindex 0..1\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n";
        assert_eq!(parse(link).unwrap_err().details.as_ref().map(|d| d["line"].clone()), Some(json!(2)));
        // A merge's combined diff has more than two sides: refused, not half read.
        assert!(parse("diff --cc x\nindex 1,2..3\n--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n- a\n -b\n++c\n").is_err());
    }

    #[test]
    fn hunks_apply_at_their_line_or_the_one_place_they_fit() {
        let file = b"a\nb\nc\nb\nd\n";
        let hunk = |old: &[&str], new: &[&str], start: Option<usize>| Hunk {
            header: "@@".into(),
            old_start: start,
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            ..Hunk::default()
        };
        // `b` is twice in the file: the stated line decides.
        assert_eq!(apply(file, &[hunk(&["b"], &["B"], Some(4))]).unwrap(), b"a\nb\nc\nB\nd\n");
        // Without a line, twice is ambiguous.
        let err = apply(file, &[hunk(&["b"], &["B"], None)]).unwrap_err();
        assert_eq!(err.candidates, vec![2, 4]);
        // Missing text: the nearest lines are named.
        let err = apply(file, &[hunk(&["cc"], &["C"], None)]).unwrap_err();
        assert_eq!(err.nearest.first().map(|n| n.0), Some(3));
        let begin = parse("*** Begin Patch\n*** Update File: f\n@@ c\n b\n-d\n+D\n*** End Patch\n").unwrap();
        let FilePatch::Update { hunks, .. } = &begin[0] else { panic!("{begin:?}") };
        assert_eq!(apply(file, hunks).unwrap(), b"a\nb\nc\nb\nD\n", "after the anchor `c`, `b` is once");
    }
}

/// A hunk line's marker (` `, `-`, `+`, or whatever its first character
/// is) and the rest: split after the first character, never inside one.
fn marker(line: &str) -> (&str, &str) {
    line.split_at(line.chars().next().map_or(0, char::len_utf8))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests start their oracles themselves
mod properties {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_hunk_line_that_starts_with_a_multi_byte_character_is_refused() {
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n\u{e9}h\n-world\n+earth\n";
        assert!(parse(diff).is_err());
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "", "a b", "é", "\r"]), 0..12).prop_map(
            |lines| {
                let mut s = lines.join("\n");
                if s.len() % 2 == 0 {
                    s.push('\n');
                }
                s
            },
        )
    }

    proptest! {
        /// Whatever the text, reading it as a patch never panics.
        #[test]
        fn any_text_reads_or_is_refused(s in ".{0,400}") {
            let _ = parse(&s);
            let _ = parse(&format!("*** Begin Patch\n{s}\n*** End Patch\n"));
        }

        /// Whatever a hunk's lines begin with, it reads or is refused.
        #[test]
        fn any_hunk_lines_read_or_are_refused(lines in prop::collection::vec("[ +\\-aé€🦀\t]{0,3}[a-zé]{0,4}", 0..6)) {
            let body = lines.join("\n");
            let _ = parse(&format!("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n{body}\n"));
            let _ = parse(&format!("*** Begin Patch\n*** Update File: f\n@@\n{body}\n*** End Patch\n"));
        }

        /// A unified diff of two texts, as GNU diff writes it, turns the
        /// first into the second.
        #[test]
        fn a_unified_diff_applies_to_what_it_was_made_from(old in text(), new in text()) {
            prop_assume!(old != new);
            let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let (a, b) = (dir.path().join("old"), dir.path().join("new"));
            std::fs::write(&a, &old).and_then(|()| std::fs::write(&b, &new)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let Ok(out) = std::process::Command::new("diff").args(["-u", "--label", "a/f", "--label", "b/f"]).arg(&a).arg(&b).output() else {
                // No GNU diff here: nothing to hold the reader to.
                return Ok(());
            };
            let diff = String::from_utf8_lossy(&out.stdout).into_owned();
            let patches = parse(&diff).map_err(|e| TestCaseError::fail(format!("{e:?}\n{diff}")))?;
            let applied = match &patches[..] {
                [FilePatch::Update { hunks, .. }] => apply(old.as_bytes(), hunks),
                other => return Err(TestCaseError::fail(format!("{other:?}\n{diff}"))),
            };
            let applied = applied.map_err(|m| TestCaseError::fail(format!("{m:?}\n{diff}")))?;
            prop_assert_eq!(String::from_utf8_lossy(&applied), new.as_str(), "{}", diff);
        }
    }

    /// A git copy is refused whole: read as a rename it would move the
    /// source away, and with its edits would change the source in place.
    #[test]
    fn a_copy_is_refused_not_applied_as_a_rename() {
        let with_edits = "diff --git a/x.rs b/y.rs\nsimilarity index 90%\ncopy from x.rs\ncopy to y.rs\n--- a/x.rs\n+++ b/y.rs\n@@ -1 +1 @@\n-fn a() {}\n+fn b() {}\n";
        let pure = "diff --git a/x.rs b/y.rs\nsimilarity index 100%\ncopy from x.rs\ncopy to y.rs\n";
        for text in [with_edits, pure] {
            let e = parse_unified(text).unwrap_err();
            assert_eq!(e.code, aide_core::code::INVALID_REQUEST, "{text}");
            assert!(e.message.to_string().contains("a copy is not applied"), "{}", e.message);
        }
    }
}
