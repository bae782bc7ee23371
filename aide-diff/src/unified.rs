//! A line diff as `diff -u` prints it.

use std::fmt::Write;

use imara_diff::{Hunk, Interner, Token, UnifiedDiffPrinter};

use crate::LineDiff;

impl LineDiff<'_> {
    /// The diff in unified format, as GNU `diff -u` prints it: a `--- from`
    /// and `+++ to` header, then hunks with `context` lines around each
    /// change, changes closer than twice that joined into one hunk (just the
    /// header when nothing changed). Lines that are not UTF-8 are shown
    /// lossily.
    pub fn unified(&self, from: &str, to: &str, context: u32) -> String {
        let hunks: Vec<Hunk> = self.diff.hunks().collect();
        let mut out = format!("--- {from}\n+++ {to}\n");
        let printer = GnuPrinter(&self.input.interner);
        // Writing to a String cannot fail.
        let _ = write_hunks(&mut out, &printer, &hunks, (&self.input.before, &self.input.after), context);
        out
    }
}

/// imara-diff's own unified printer gives the first hunk up to twice the
/// context before it (its position starts at 0); GNU and git give the
/// context once, so the hunks are grouped here.
fn write_hunks(
    f: &mut String,
    printer: &GnuPrinter<'_>,
    hunks: &[Hunk],
    (before, after): (&[Token], &[Token]),
    context: u32,
) -> std::fmt::Result {
    let mut i = 0;
    while i < hunks.len() {
        let mut j = i;
        while j + 1 < hunks.len() && hunks[j + 1].before.start - hunks[j].before.end <= 2 * context {
            j += 1;
        }
        let (first, last) = (&hunks[i], &hunks[j]);
        let lead = first.before.start.min(context);
        let trail = (before.len() as u32 - last.before.end).min(context);
        let (before_start, after_start) = (first.before.start - lead, first.after.start - lead);
        let (before_end, after_end) = (last.before.end + trail, last.after.end + trail);
        printer.display_header(
            &mut *f,
            before_start,
            after_start,
            before_end - before_start,
            after_end - after_start,
        )?;
        let mut pos = before_start;
        for h in &hunks[i..=j] {
            for &t in &before[pos as usize..h.before.start as usize] {
                printer.display_context_token(&mut *f, t)?;
            }
            printer.display_hunk(
                &mut *f,
                &before[h.before.start as usize..h.before.end as usize],
                &after[h.after.start as usize..h.after.end as usize],
            )?;
            pos = h.before.end;
        }
        for &t in &before[pos as usize..before_end as usize] {
            printer.display_context_token(&mut *f, t)?;
        }
        i = j + 1;
    }
    Ok(())
}

/// Prints hunks as GNU `diff -u` does: `@@ -l,n +l,n @@` (`,1` left out,
/// an empty range starting at the line before), and `\ No newline at end
/// of file` after a last line without one.
struct GnuPrinter<'a>(&'a Interner<&'a [u8]>);

impl GnuPrinter<'_> {
    fn line(&self, mut f: impl Write, sign: char, token: Token) -> std::fmt::Result {
        let bytes = self.0[token];
        write!(f, "{sign}{}", String::from_utf8_lossy(bytes))?;
        if !bytes.ends_with(b"\n") {
            write!(f, "\n\\ No newline at end of file\n")?;
        }
        Ok(())
    }
}

fn gnu_range(start: u32, len: u32) -> String {
    match len {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        n => format!("{},{n}", start + 1),
    }
}

impl UnifiedDiffPrinter for GnuPrinter<'_> {
    fn display_header(
        &self,
        mut f: impl Write,
        start_before: u32,
        start_after: u32,
        len_before: u32,
        len_after: u32,
    ) -> std::fmt::Result {
        writeln!(f, "@@ -{} +{} @@", gnu_range(start_before, len_before), gnu_range(start_after, len_after))
    }

    fn display_context_token(&self, f: impl Write, token: Token) -> std::fmt::Result {
        self.line(f, ' ', token)
    }

    fn display_hunk(&self, mut f: impl Write, before: &[Token], after: &[Token]) -> std::fmt::Result {
        for &t in before {
            self.line(&mut f, '-', t)?;
        }
        for &t in after {
            self.line(&mut f, '+', t)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::LineDiff;

    #[test]
    fn prints_as_gnu_diff_does() {
        let before = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let after = b"1\n2\n3\n4\n5\nsix\n7\n8\n9\n10";
        let text = LineDiff::new(before, after).unified("a/f", "b/f", 3);
        assert_eq!(
            text,
            "--- a/f\n+++ b/f\n@@ -3,8 +3,8 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n-10\n+10\n\\ No newline at end of file\n"
        );
        assert_eq!(
            LineDiff::new(b"", b"x\n").unified("/dev/null", "b/x", 3),
            "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n"
        );
        assert_eq!(LineDiff::new(b"", b"").unified("/dev/null", "b/empty", 3), "--- /dev/null\n+++ b/empty\n");
    }

    /// imara-diff 0.2.0's own unified printer shows the first hunk's
    /// context from line 1 when the change is within 6 lines of the top,
    /// under a header that says otherwise; this matches `diff -u`.
    #[test]
    fn a_change_near_the_top_shows_three_lines_of_context_like_diff_u() {
        let text = LineDiff::new(b"a\nb\nc\nd\ne\nf\ng\n", b"a\nb\nc\nd\ne\nf\nG\n").unified("a/f", "b/f", 3);
        assert_eq!(text, "--- a/f\n+++ b/f\n@@ -4,4 +4,4 @@\n d\n e\n f\n-g\n+G\n");
        let text = LineDiff::new(b"a\nb\nc\nd\ne\n", b"a\nB\nc\nd\ne\nX\n").unified("a/f", "b/f", 3);
        assert_eq!(text, "--- a/f\n+++ b/f\n@@ -1,5 +1,6 @@\n a\n-b\n+B\n c\n d\n e\n+X\n");
    }

    /// Hunks more than six lines apart are printed apart, each with three
    /// lines of context, as `diff -u` does.
    #[test]
    fn distant_changes_are_separate_hunks() {
        let before: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let after: String = (1..=20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                18 => "eighteen\n".to_string(),
                i => format!("{i}\n"),
            })
            .collect();
        let text = LineDiff::new(before.as_bytes(), after.as_bytes()).unified("a/f", "b/f", 3);
        let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("@@")).collect();
        assert_eq!(headers, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"]);
    }
}
