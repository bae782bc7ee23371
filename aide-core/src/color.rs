//! Colour in text mode: `--color auto|always|never`, `NO_COLOR`, and the
//! writer every tool renders its text through.
//!
//! [`TextOut`] escapes control characters in whatever a tool writes (a file
//! name or a line can hold ESC; see [`TerminalSafe`]) and writes the SGR
//! sequences of [`TextOut::paint`] past the escaping, so only aide's own
//! colours reach the terminal. JSON is never coloured.

use std::io::{self, IsTerminal, Write};

use anstyle::{AnsiColor, Style};

use crate::text::TerminalSafe;

/// When text output is coloured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    // On a terminal, unless `NO_COLOR` is set or `TERM` is `dumb` (no doc
    // comment: clap would turn every tool's --help into the long form).
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is (`terminal`) or is not a terminal.
    pub fn enabled(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }

    /// Whether to colour stdout.
    pub fn for_stdout(self) -> bool {
        self.enabled(io::stdout().is_terminal())
    }

    /// Whether to colour stderr.
    pub fn for_stderr(self) -> bool {
        self.enabled(io::stderr().is_terminal())
    }
}

/// What a piece of text is, which decides its colour (ripgrep's for paths,
/// line numbers and matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    Path,
    LineNumber,
    /// Matched text.
    Match,
    /// A symbol's kind, a job's or an operation's name.
    Kind,
    /// Added lines of a diff; a success (ok, done, low risk).
    Good,
    /// Removed lines of a diff; a failure (fail, error, high risk).
    Bad,
    /// Something to look at (warn, medium risk, running).
    Warn,
    /// A diff's hunk header.
    Hunk,
    /// Secondary text: summaries, hints, continuation notes.
    Dim,
    /// A directory, as `ls` and fd colour it.
    Dir,
}

impl Paint {
    fn style(self) -> Style {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        match self {
            Paint::Path => fg(AnsiColor::Magenta),
            Paint::LineNumber => fg(AnsiColor::Green),
            Paint::Match => fg(AnsiColor::Red).bold(),
            Paint::Kind => fg(AnsiColor::Cyan),
            Paint::Good => fg(AnsiColor::Green),
            Paint::Bad => fg(AnsiColor::Red).bold(),
            Paint::Warn => fg(AnsiColor::Yellow),
            Paint::Hunk => fg(AnsiColor::Cyan),
            Paint::Dim => Style::new().dimmed(),
            Paint::Dir => fg(AnsiColor::Blue).bold(),
        }
    }
}

/// The text-mode writer: control characters escaped, colour where asked.
pub struct TextOut<'a> {
    safe: TerminalSafe<&'a mut dyn Write>,
    color: bool,
    voice: crate::voice::Voice,
}

impl<'a> TextOut<'a> {
    pub fn new(w: &'a mut dyn Write, color: bool) -> TextOut<'a> {
        TextOut { safe: TerminalSafe::new(w), color, voice: crate::voice::Voice::Cli }
    }

    /// Says hints and continuation lines in `voice`'s words (MCP's: the
    /// call's arguments, not flags).
    pub fn with_voice(mut self, voice: crate::voice::Voice) -> TextOut<'a> {
        self.voice = voice;
        self
    }

    /// Who reads the text: what a hint names (a flag, or an argument).
    pub fn voice(&self) -> crate::voice::Voice {
        self.voice
    }

    /// Without colour (for sizing text, and for MCP clients).
    pub fn plain(w: &'a mut dyn Write) -> TextOut<'a> {
        TextOut::new(w, false)
    }

    pub fn colored(&self) -> bool {
        self.color
    }

    /// Writes `text` (escaped) in the colour of `paint`.
    pub fn paint(&mut self, paint: Paint, text: impl std::fmt::Display) -> io::Result<()> {
        if !self.color {
            return write!(self.safe, "{text}");
        }
        let style = paint.style();
        self.safe.write_raw(style.render().to_string().as_bytes())?;
        write!(self.safe, "{text}")?;
        self.safe.write_raw(style.render_reset().to_string().as_bytes())
    }

    /// Writes `text` with the character ranges `marks` (sorted, not
    /// overlapping) painted as matches.
    pub fn marked(&mut self, text: &str, marks: &[(usize, usize)]) -> io::Result<()> {
        if !self.color || marks.is_empty() {
            return self.write_all(text.as_bytes());
        }
        let mut chars = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len()));
        let mut byte_at = Vec::new();
        let last = marks.iter().map(|m| m.1).max().unwrap_or(0);
        for _ in 0..=last {
            match chars.next() {
                Some(b) => byte_at.push(b),
                None => break,
            }
        }
        let byte = |c: usize| byte_at.get(c).copied().unwrap_or(text.len());
        let mut done = 0;
        for &(start, end) in marks {
            let (s, e) = (byte(start).max(done), byte(end));
            if s >= e {
                continue;
            }
            self.write_all(&text.as_bytes()[done..s])?;
            self.paint(Paint::Match, &text[s..e])?;
            done = e;
        }
        self.write_all(&text.as_bytes()[done..])
    }

    /// Writes a unified diff, its lines coloured as `git diff` colours them.
    pub fn diff(&mut self, diff: &str) -> io::Result<()> {
        if !self.color {
            return self.write_all(diff.as_bytes());
        }
        for line in diff.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            };
            let paint = if body.starts_with("+++") || body.starts_with("---") {
                None
            } else if body.starts_with('+') {
                Some(Paint::Good)
            } else if body.starts_with('-') {
                Some(Paint::Bad)
            } else if body.starts_with("@@") {
                Some(Paint::Hunk)
            } else {
                None
            };
            match paint {
                Some(p) => self.paint(p, body)?,
                None => self.write_all(body.as_bytes())?,
            }
            self.write_all(end.as_bytes())?;
        }
        Ok(())
    }
}

impl Write for TextOut<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.safe.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.safe.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(color: bool, f: impl FnOnce(&mut TextOut<'_>) -> io::Result<()>) -> String {
        let mut bytes = Vec::new();
        let mut out = TextOut::new(&mut bytes, color);
        f(&mut out).unwrap();
        out.flush().unwrap();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn only_aides_own_colours_reach_the_terminal() {
        let text = render(true, |w| {
            w.paint(Paint::Path, "evil\x1b[2J.rs")?;
            write!(w, ":\x1b[31m")
        });
        assert_eq!(text, "\x1b[35mevil\\x1b[2J.rs\x1b[0m:\\x1b[31m");
        let plain = render(false, |w| w.paint(Paint::Path, "a.rs"));
        assert_eq!(plain, "a.rs");
    }

    #[test]
    fn marks_paint_character_ranges_even_after_multibyte_text() {
        let text = render(true, |w| w.marked("é foo é foo", &[(2, 5), (8, 11)]));
        assert_eq!(text, "é \x1b[1m\x1b[31mfoo\x1b[0m é \x1b[1m\x1b[31mfoo\x1b[0m");
        // Marks past a cut line stop at its end; without colour the text is as given.
        assert_eq!(render(true, |w| w.marked("ab", &[(1, 9)])), "a\x1b[1m\x1b[31mb\x1b[0m");
        assert_eq!(render(false, |w| w.marked("ab", &[(0, 1)])), "ab");
    }

    #[test]
    fn a_diff_is_coloured_line_by_line() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same";
        assert_eq!(render(false, |w| w.diff(diff)), diff);
        let text = render(true, |w| w.diff(diff));
        assert_eq!(
            text,
            "--- a/x\n+++ b/x\n\x1b[36m@@ -1 +1 @@\x1b[0m\n\x1b[1m\x1b[31m-old\x1b[0m\n\x1b[32m+new\x1b[0m\n same"
        );
    }

    #[test]
    fn never_and_always_ignore_the_terminal() {
        assert!(ColorChoice::Always.enabled(false));
        assert!(!ColorChoice::Never.enabled(true));
        assert!(!ColorChoice::Auto.enabled(false));
    }
}
