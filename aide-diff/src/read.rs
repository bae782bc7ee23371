//! Reading a unified diff: git's (`diff --git` with extended headers, a
//! combined diff's file named), or `diff -u`'s (a bare `---`/`+++` pair).
//! Lines outside a file are passed over; a file's hunks are read by their
//! headers' counts, and a hunk that does not hold to them is refused with
//! its line, never guessed at.

use crate::model::{Extended, ExtendedKind, FileDiff, Form, Hunk, HunkLine, LineKind, Side};

/// Why a diff could not be read, with the 1-based line it is at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("--- is not followed by +++")]
    NoPlusLine { line: usize },
    #[error("`{text}` is not a hunk header")]
    NotAHunkHeader { line: usize, text: String },
    #[error("the hunk ends early")]
    HunkEndsEarly { line: usize },
    #[error("`{text}` is not a line of a hunk")]
    NotAHunkLine { line: usize, text: String },
}

impl ReadError {
    pub fn line(&self) -> usize {
        match self {
            ReadError::NoPlusLine { line }
            | ReadError::NotAHunkHeader { line, .. }
            | ReadError::HunkEndsEarly { line }
            | ReadError::NotAHunkLine { line, .. } => *line,
        }
    }
}

/// The files of a unified diff, in order (none for an empty diff).
pub fn read(text: &[u8]) -> Result<Vec<FileDiff>, ReadError> {
    let mut reader = Reader { lines: text.split(|&b| b == b'\n').collect(), at: 0 };
    let mut files = Vec::new();
    while let Some(line) = reader.peek() {
        if let Some(names) = line.strip_prefix(b"diff --git ") {
            let header = aide_core::git::diff_header_paths_bytes(names);
            files.push(reader.file(Form::Git, Some(header))?);
        } else if let Some(name) = line.strip_prefix(b"diff --cc ").or_else(|| line.strip_prefix(b"diff --combined ")) {
            let name = aide_core::git::unquote_path_bytes(name);
            files.push(reader.combined(name));
        } else if line.starts_with(b"--- ") {
            files.push(reader.file(Form::Plain, None)?);
        } else {
            reader.at += 1;
        }
    }
    Ok(files)
}

struct Reader<'a> {
    lines: Vec<&'a [u8]>,
    at: usize,
}

fn starts_file(line: &[u8]) -> bool {
    line.starts_with(b"diff --git ") || line.starts_with(b"diff --cc ") || line.starts_with(b"diff --combined ")
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<&'a [u8]> {
        self.lines.get(self.at).copied()
    }

    /// The 1-based number of the current line.
    fn number(&self) -> usize {
        self.at + 1
    }

    /// A file: git's extended lines, `---` and `+++`, then its hunks.
    fn file(&mut self, form: Form, header: Option<(Vec<u8>, Vec<u8>)>) -> Result<FileDiff, ReadError> {
        let line = self.number();
        let mut file =
            FileDiff { line, form, header, extended: Vec::new(), minus: None, plus: None, hunks: Vec::new() };
        if form == Form::Git {
            self.at += 1;
            while let Some(l) =
                self.peek().filter(|l| !l.starts_with(b"--- ") && !l.starts_with(b"@@ ") && !starts_file(l))
            {
                if let Some(kind) = extended(l) {
                    file.extended.push(Extended { line: self.number(), kind });
                }
                self.at += 1;
            }
        }
        if let Some(minus) = self.peek().and_then(|l| l.strip_prefix(b"--- ")) {
            file.minus = Some(Side::read(minus));
            self.at += 1;
            let plus = self.peek().and_then(|l| l.strip_prefix(b"+++ "));
            let Some(plus) = plus else { return Err(ReadError::NoPlusLine { line: self.number() }) };
            file.plus = Some(Side::read(plus));
            self.at += 1;
        }
        while self.peek().is_some_and(|l| l.starts_with(b"@@ ")) {
            let hunk = self.hunk()?;
            file.hunks.push(hunk);
        }
        Ok(file)
    }

    /// A combined diff's file: named, its many-sided hunks passed over.
    fn combined(&mut self, name: Vec<u8>) -> FileDiff {
        let line = self.number();
        self.at += 1;
        while self.peek().is_some_and(|l| !starts_file(l)) {
            self.at += 1;
        }
        let header = Some((name.clone(), name));
        FileDiff {
            line,
            form: Form::Combined,
            header,
            extended: Vec::new(),
            minus: None,
            plus: None,
            hunks: Vec::new(),
        }
    }

    /// One hunk, its body read by its header's counts.
    fn hunk(&mut self) -> Result<Hunk, ReadError> {
        let line = self.number();
        let header = String::from_utf8_lossy(self.lines[self.at]).into_owned();
        let Some((old_start, old_lines, new_start, new_lines, section)) = hunk_header(&header) else {
            return Err(ReadError::NotAHunkHeader { line, text: header });
        };
        let mut hunk = Hunk {
            line,
            header: header.clone(),
            old_start,
            old_lines,
            new_start,
            new_lines,
            section,
            lines: Vec::new(),
        };
        self.at += 1;
        let (mut old_left, mut new_left) = (old_lines, new_lines);
        while old_left > 0 || new_left > 0 {
            // The empty piece after the text's last newline is its end, not an empty line.
            let Some(l) = self.peek().filter(|l| !l.is_empty() || self.at + 1 < self.lines.len()) else {
                return Err(ReadError::HunkEndsEarly { line: self.number() });
            };
            let (kind, text) = match l.split_first() {
                Some((b' ', rest)) => (LineKind::Context, rest),
                // An empty context line some tools write without its space.
                None => (LineKind::Context, l),
                Some((b'-', rest)) => (LineKind::Removed, rest),
                Some((b'+', rest)) => (LineKind::Added, rest),
                Some((b'\\', _)) => {
                    self.at += 1;
                    continue;
                }
                Some(_) => {
                    let text = String::from_utf8_lossy(l).into_owned();
                    return Err(ReadError::NotAHunkLine { line: self.number(), text });
                }
            };
            if kind != LineKind::Added {
                old_left = old_left.saturating_sub(1);
            }
            if kind != LineKind::Removed {
                new_left = new_left.saturating_sub(1);
            }
            self.at += 1;
            // The marker comes right after the line it is about.
            let no_newline = self.peek().is_some_and(|n| n.starts_with(b"\\"));
            if no_newline {
                self.at += 1;
            }
            hunk.lines.push(HunkLine { kind, text: text.to_vec(), no_newline });
        }
        Ok(hunk)
    }
}

/// One of git's extended header lines (others, such as `index`, are
/// nothing to a reader).
fn extended(line: &[u8]) -> Option<ExtendedKind> {
    let text = |rest: &[u8]| String::from_utf8_lossy(rest).trim().to_string();
    let name = aide_core::git::unquote_path_bytes;
    let kind = if let Some(rest) = line.strip_prefix(b"new file mode ") {
        ExtendedKind::NewFileMode(text(rest))
    } else if let Some(rest) = line.strip_prefix(b"deleted file mode ") {
        ExtendedKind::DeletedFileMode(text(rest))
    } else if let Some(rest) = line.strip_prefix(b"old mode ") {
        ExtendedKind::OldMode(text(rest))
    } else if let Some(rest) = line.strip_prefix(b"new mode ") {
        ExtendedKind::NewMode(text(rest))
    } else if let Some(rest) = line.strip_prefix(b"rename from ") {
        ExtendedKind::RenameFrom(name(rest))
    } else if let Some(rest) = line.strip_prefix(b"rename to ") {
        ExtendedKind::RenameTo(name(rest))
    } else if let Some(rest) = line.strip_prefix(b"copy from ") {
        ExtendedKind::CopyFrom(name(rest))
    } else if let Some(rest) = line.strip_prefix(b"copy to ") {
        ExtendedKind::CopyTo(name(rest))
    } else if let Some(rest) = line.strip_prefix(b"similarity index ") {
        ExtendedKind::Similarity(text(rest).trim_end_matches('%').parse().ok()?)
    } else if line.starts_with(b"Binary files ") || line.starts_with(b"GIT binary patch") {
        ExtendedKind::Binary
    } else {
        return None;
    };
    Some(kind)
}

/// `@@ -a[,b] +c[,d] @@ section` (the closing `@@` may be left out).
fn hunk_header(line: &str) -> Option<(usize, usize, usize, usize, String)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, section) = match rest.split_once(' ') {
        Some((new, after)) => (new, after.strip_prefix("@@")?.trim_start()),
        None => (rest, ""),
    };
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some((old_start, old_lines, new_start, new_lines, section.to_string()))
}

#[cfg(test)]
mod tests;
