use super::*;
use crate::LineDiff;
use crate::model::Status;
use proptest::prelude::*;

fn one(text: &[u8]) -> FileDiff {
    let mut files = read(text).unwrap();
    assert_eq!(files.len(), 1);
    files.remove(0)
}

#[test]
fn a_git_diff_reads_into_files_hunks_and_lines() {
    let text = b"diff --git a/src/a b.rs b/src/a b.rs\nindex 1..2 100644\n--- a/src/a b.rs\n+++ b/src/a b.rs\n@@ -1,3 +1,3 @@ fn main\n one\n-two\n+TWO\n three\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 3..0\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\ndiff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\ndiff --git a/img.png b/img.png\nnew file mode 100644\nindex 0..4\nBinary files /dev/null and b/img.png differ\n";
    let files = read(text).unwrap();
    assert_eq!(files.len(), 5);
    let a = &files[0];
    assert_eq!(
        (a.status(), a.old_path(), a.new_path()),
        (Status::Modified, Some(b"src/a b.rs".to_vec()), Some(b"src/a b.rs".to_vec()))
    );
    let h = &a.hunks[0];
    assert_eq!(
        (h.line, h.old_start, h.old_lines, h.new_start, h.new_lines, h.section.as_str()),
        (5, 1, 3, 1, 3, "fn main")
    );
    let kinds: Vec<(LineKind, &[u8])> = h.lines.iter().map(|l| (l.kind, l.text.as_slice())).collect();
    assert_eq!(
        kinds,
        [
            (LineKind::Context, &b"one"[..]),
            (LineKind::Removed, b"two"),
            (LineKind::Added, b"TWO"),
            (LineKind::Context, b"three")
        ]
    );
    assert_eq!(
        (files[1].status(), files[1].old_path(), files[1].new_path()),
        (Status::Deleted, Some(b"gone.txt".to_vec()), None)
    );
    assert_eq!(files[1].old_mode(), Some("100644"));
    assert_eq!(
        (files[2].status(), files[2].old_path(), files[2].new_path(), files[2].similarity()),
        (Status::Renamed, Some(b"old.txt".to_vec()), Some(b"new.txt".to_vec()), Some(90))
    );
    assert_eq!((files[3].old_mode(), files[3].new_mode()), (Some("100644"), Some("100755")));
    assert!(files[4].binary() && files[4].status() == Status::Added && files[4].old_path().is_none());
}

#[test]
fn a_plain_diff_u_is_read_as_patch_p1_reads_it() {
    let same = one(b"--- a/x.txt\t2026-01-01\n+++ b/x.txt\t2026-01-02\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(
        (same.form, same.old_path(), same.new_path()),
        (Form::Plain, Some(b"x.txt".to_vec()), Some(b"x.txt".to_vec()))
    );
    let other = one(b"--- old/x\n+++ new/x\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!((other.old_path(), other.new_path()), (Some(b"old/x".to_vec()), Some(b"new/x".to_vec())));
    let added = one(b"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n");
    assert_eq!((added.status(), added.new_path()), (Status::Added, Some(b"b/n".to_vec())));
}

#[test]
fn no_newline_markers_carriage_returns_and_odd_names_are_kept() {
    let f = one(b"diff --git \"a/\\377.txt\" \"b/\\377.txt\"\n--- \"a/\\377.txt\"\n+++ \"b/\\377.txt\"\n@@ -1 +1 @@\n-a\r\n\\ No newline at end of file\n+b\n");
    assert_eq!(f.new_path(), Some(b"\xff.txt".to_vec()));
    let lines = &f.hunks[0].lines;
    assert_eq!((lines[0].text.as_slice(), lines[0].no_newline), (&b"a\r"[..], true));
    assert_eq!((lines[1].text.as_slice(), lines[1].no_newline), (&b"b"[..], false));
}

#[test]
fn a_copy_is_named_as_one() {
    let f = one(b"diff --git a/x.rs b/y.rs\nsimilarity index 100%\ncopy from x.rs\ncopy to y.rs\n");
    assert_eq!(
        (f.status(), f.old_path(), f.new_path()),
        (Status::Copied, Some(b"x.rs".to_vec()), Some(b"y.rs".to_vec()))
    );
    assert_eq!(f.extended[1].line, 3);
}

#[test]
fn a_combined_diff_names_its_file_and_keeps_the_next_one_apart() {
    let text = b"diff --cc both.txt\nindex 1,2..0\n--- a/both.txt\n+++ b/both.txt\n@@@ -1,1 -1,1 +1,5 @@@\n++<<<<<<< HEAD\n +ours\ndiff --git a/next.txt b/next.txt\n--- a/next.txt\n+++ b/next.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let files = read(text).unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(
        (files[0].form, files[0].new_path(), files[0].hunks.len()),
        (Form::Combined, Some(b"both.txt".to_vec()), 0)
    );
    assert_eq!((files[1].new_path(), files[1].hunks.len()), (Some(b"next.txt".to_vec()), 1));
}

#[test]
fn what_breaks_a_hunk_is_refused_with_its_line() {
    let bad = |t: &[u8]| read(t).unwrap_err();
    assert_eq!(bad(b"--- a/x\nno plus\n"), ReadError::NoPlusLine { line: 2 });
    assert_eq!(
        bad(b"--- a/x\n+++ b/x\n@@ -a +1 @@\n"),
        ReadError::NotAHunkHeader { line: 3, text: "@@ -a +1 @@".into() }
    );
    assert_eq!(bad(b"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n"), ReadError::HunkEndsEarly { line: 5 });
    assert_eq!(
        bad(b"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n"),
        ReadError::NotAHunkLine { line: 5, text: "?b".into() }
    );
    assert_eq!(read(b"no diff here\n").unwrap(), Vec::new());
}

proptest! {
    /// Whatever the text, reading it ends in files or an error, never a panic.
    #[test]
    fn any_text_reads_or_is_refused(text in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read(&text);
    }

    /// A diff this crate prints reads back to the same change: replaying
    /// its hunks on the old lines gives the new ones.
    #[test]
    fn printed_diffs_read_back(before in "[ab\n]{0,40}", after in "[ab\n]{0,40}") {
        let text = LineDiff::new(before.as_bytes(), after.as_bytes()).unified("a/f", "b/f", 3);
        let files = read(text.as_bytes()).unwrap();
        let split = |s: &str| s.split_inclusive('\n').map(|l| l.as_bytes().to_vec()).collect::<Vec<_>>();
        let (old, new) = (split(&before), split(&after));
        let mut rebuilt: Vec<Vec<u8>> = Vec::new();
        let mut at = 0;
        for h in files.iter().flat_map(|f| &f.hunks) {
            let start = if h.old_lines == 0 { h.old_start } else { h.old_start - 1 };
            rebuilt.extend_from_slice(&old[at..start]);
            at = start + h.old_lines;
            for l in h.lines.iter().filter(|l| l.kind != LineKind::Removed) {
                let mut line = l.text.clone();
                if !l.no_newline {
                    line.push(b'\n');
                }
                rebuilt.push(line);
            }
        }
        rebuilt.extend_from_slice(&old[at.min(old.len())..]);
        prop_assert_eq!(rebuilt, new);
    }
}
