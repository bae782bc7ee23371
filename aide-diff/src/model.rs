//! A unified diff read into files and hunks: what each line said, and
//! what it means (the file's status, its old and new names).

use aide_core::git::unquote_path_bytes;

/// One file of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The 1-based line of the diff where the file starts.
    pub line: usize,
    pub form: Form,
    /// The two names of its `diff --git` line, without `a/` and `b/` (the
    /// one name of a combined diff twice).
    pub header: Option<(Vec<u8>, Vec<u8>)>,
    /// git's extended header lines, in order.
    pub extended: Vec<Extended>,
    /// Its `---` and `+++` lines.
    pub minus: Option<Side>,
    pub plus: Option<Side>,
    /// Empty for a combined diff (a merge's conflict), whose hunks have
    /// more than two sides.
    pub hunks: Vec<Hunk>,
}

/// What started a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `diff --git`.
    Git,
    /// `diff --cc` or `diff --combined`.
    Combined,
    /// A bare `---` line, as `diff -u` writes.
    Plain,
}

/// The name of a `---` or `+++` line, unquoted, its prefix kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    DevNull,
    Path(Vec<u8>),
}

/// One of git's extended header lines, and the 1-based line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extended {
    pub line: usize,
    pub kind: ExtendedKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtendedKind {
    NewFileMode(String),
    DeletedFileMode(String),
    OldMode(String),
    NewMode(String),
    RenameFrom(Vec<u8>),
    RenameTo(Vec<u8>),
    CopyFrom(Vec<u8>),
    CopyTo(Vec<u8>),
    /// `similarity index N%`.
    Similarity(u32),
    /// `Binary files … differ` or `GIT binary patch`.
    Binary,
}

/// One hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The 1-based line of its `@@` header, and the header itself.
    pub line: usize,
    pub header: String,
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    /// The text after the closing `@@` (git's function context).
    pub section: String,
    pub lines: Vec<HunkLine>,
}

/// A line of a hunk: its text without the marker and the `\n` (a `\r`
/// before it kept), and whether `\ No newline at end of file` follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: LineKind,
    pub text: Vec<u8>,
    pub no_newline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Removed,
    Added,
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Deleted,
    Modified,
    Renamed,
    Copied,
}

impl FileDiff {
    pub fn status(&self) -> Status {
        let has = |f: fn(&ExtendedKind) -> bool| self.extended.iter().any(|e| f(&e.kind));
        if has(|k| matches!(k, ExtendedKind::CopyFrom(_))) {
            Status::Copied
        } else if has(|k| matches!(k, ExtendedKind::RenameFrom(_))) {
            Status::Renamed
        } else if has(|k| matches!(k, ExtendedKind::NewFileMode(_))) || self.minus == Some(Side::DevNull) {
            Status::Added
        } else if has(|k| matches!(k, ExtendedKind::DeletedFileMode(_))) || self.plus == Some(Side::DevNull) {
            Status::Deleted
        } else {
            Status::Modified
        }
    }

    /// The file's name before (None for an added file).
    pub fn old_path(&self) -> Option<Vec<u8>> {
        if self.status() == Status::Added {
            return None;
        }
        let moved = self.extended.iter().find_map(|e| match &e.kind {
            ExtendedKind::RenameFrom(p) | ExtendedKind::CopyFrom(p) => Some(p.clone()),
            _ => None,
        });
        moved.or_else(|| self.side_path(&self.minus)).or_else(|| self.header.as_ref().map(|h| h.0.clone()))
    }

    /// The file's name after (None for a deleted file).
    pub fn new_path(&self) -> Option<Vec<u8>> {
        if self.status() == Status::Deleted {
            return None;
        }
        let moved = self.extended.iter().find_map(|e| match &e.kind {
            ExtendedKind::RenameTo(p) | ExtendedKind::CopyTo(p) => Some(p.clone()),
            _ => None,
        });
        moved.or_else(|| self.side_path(&self.plus)).or_else(|| self.header.as_ref().map(|h| h.1.clone()))
    }

    pub fn binary(&self) -> bool {
        self.extended.iter().any(|e| e.kind == ExtendedKind::Binary)
    }

    pub fn similarity(&self) -> Option<u32> {
        self.extended.iter().find_map(|e| match e.kind {
            ExtendedKind::Similarity(n) => Some(n),
            _ => None,
        })
    }

    /// The mode before: `old mode` or `deleted file mode`.
    pub fn old_mode(&self) -> Option<&str> {
        self.extended.iter().find_map(|e| match &e.kind {
            ExtendedKind::OldMode(m) | ExtendedKind::DeletedFileMode(m) => Some(m.as_str()),
            _ => None,
        })
    }

    /// The mode after: `new mode` or `new file mode`.
    pub fn new_mode(&self) -> Option<&str> {
        self.extended.iter().find_map(|e| match &e.kind {
            ExtendedKind::NewMode(m) | ExtendedKind::NewFileMode(m) => Some(m.as_str()),
            _ => None,
        })
    }

    /// A `---`/`+++` name without its prefix: git's `a/` or `b/`; in a
    /// plain diff both only when they name one path, as `patch -p1` reads
    /// `diff -u a/x b/x`.
    fn side_path(&self, side: &Option<Side>) -> Option<Vec<u8>> {
        let Some(Side::Path(path)) = side else { return None };
        let strip = |p: &[u8]| p.strip_prefix(b"a/").or_else(|| p.strip_prefix(b"b/")).map(<[u8]>::to_vec);
        match self.form {
            Form::Git | Form::Combined => Some(strip(path).unwrap_or_else(|| path.clone())),
            Form::Plain => {
                let (Some(Side::Path(old)), Some(Side::Path(new))) = (&self.minus, &self.plus) else {
                    return Some(path.clone());
                };
                match (old.strip_prefix(b"a/"), new.strip_prefix(b"b/")) {
                    (Some(o), Some(n)) if o == n => Some(o.to_vec()),
                    _ => Some(path.clone()),
                }
            }
        }
    }
}

impl Side {
    /// A `---`/`+++` line's name: up to a tab (`diff -u` writes the time
    /// after one), unquoted.
    pub(crate) fn read(raw: &[u8]) -> Side {
        let raw = raw.split(|&b| b == b'\t').next().unwrap_or(raw).trim_ascii_end();
        let path = unquote_path_bytes(raw);
        if path == b"/dev/null" { Side::DevNull } else { Side::Path(path) }
    }
}
