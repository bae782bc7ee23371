//! What a discovery answers: the entries found, ranked or listed, and their text form.

use aide_core::color::{Paint, TextOut};
use aide_core::text::escape_controls;
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;
use std::io::{self, Write};

/// What kind of entry a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    File,
    Dir,
}

/// One found path.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Found {
    pub path: String,
    pub kind: Kind,
    /// 0..1; 1 is the best possible match for the query.
    pub score: f64,
    /// Stable machine-readable reason: exact_path, exact_basename,
    /// basename_prefix, basename_substring, path_substring, basename_fuzzy,
    /// path_fuzzy, or listed.
    pub reason: Reason,
    /// The reason in words.
    pub reason_text: &'static str,
    /// 0-based character positions of the matched characters in `path`.
    pub matched: Vec<u32>,
}

/// The mode the request ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Query,
    List,
    Tree,
}

/// The result of a discovery.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiscoverOutput {
    pub mode: Mode,
    pub query: Option<String>,
    pub results: Vec<Found>,
    /// Matching entries before --limit and --offset.
    pub total: usize,
    pub truncated: bool,
    pub next_offset: Option<usize>,
    /// The ASCII tree (tree mode).
    pub tree: Option<String>,
    /// Files in the tree (tree mode).
    pub files: Option<usize>,
    /// Directories in the tree, the root excluded (tree mode).
    pub directories: Option<usize>,
    /// Bytes of all files in the tree (tree mode).
    pub total_size: Option<u64>,
    /// The root's tree checksum (tree mode, with --tree-checksum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_checksum: Option<String>,
}

impl Render for DiscoverOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self.mode {
            Mode::Tree => {
                if let Some(tree) = &self.tree {
                    w.write_all(tree.as_bytes())?;
                }
                w.paint(
                    Paint::Dim,
                    format_args!(
                        "{} directories, {} files, {} bytes",
                        self.directories.unwrap_or(0),
                        self.files.unwrap_or(0),
                        self.total_size.unwrap_or(0)
                    ),
                )?;
                if let Some(checksum) = &self.tree_checksum {
                    w.paint(Paint::Dim, format_args!(", tree sha256 {checksum}"))?;
                }
                writeln!(w)?;
            }
            Mode::Query => {
                for f in &self.results {
                    write_entry(w, f)?;
                    w.paint(Paint::Dim, format_args!("  {:.4} {}", f.score, f.reason.as_str()))?;
                    writeln!(w)?;
                }
            }
            Mode::List => {
                for f in &self.results {
                    write_entry(w, f)?;
                    writeln!(w)?;
                }
            }
        }
        let note = match self.next_offset {
            Some(next) => {
                Some(format!("[truncated: {} in all; continue with {}]", self.total, w.voice().arg_is("offset", next)))
            }
            None => self.truncated.then(|| format!("[truncated: raise {} to see more]", w.voice().arg("limit"))),
        };
        if let Some(note) = note {
            w.paint(Paint::Dim, note)?;
            writeln!(w)?;
        }
        Ok(())
    }

    fn found(&self) -> bool {
        self.total > 0
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        Some(("results", "result"))
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        aide_core::tool::keep_range(&mut self.results, range);
    }
}

/// A path as fd shows it: a directory with a slash, in the colour `ls` gives it.
fn write_entry(w: &mut TextOut<'_>, f: &Found) -> io::Result<()> {
    let path = escape_controls(&f.path);
    if f.kind == Kind::Dir { w.paint(Paint::Dir, format_args!("{path}/")) } else { write!(w, "{path}") }
}

/// Why a path matched, best first. The tier decides the score band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    ExactPath,
    ExactBasename,
    BasenamePrefix,
    BasenameSubstring,
    PathSubstring,
    BasenameFuzzy,
    PathFuzzy,
    /// Listed without a query.
    Listed,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::ExactPath => "exact_path",
            Reason::ExactBasename => "exact_basename",
            Reason::BasenamePrefix => "basename_prefix",
            Reason::BasenameSubstring => "basename_substring",
            Reason::PathSubstring => "path_substring",
            Reason::BasenameFuzzy => "basename_fuzzy",
            Reason::PathFuzzy => "path_fuzzy",
            Reason::Listed => "listed",
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Reason::ExactPath => "the path is the query",
            Reason::ExactBasename => "the file name (or name without extension) is the query",
            Reason::BasenamePrefix => "the file name starts with the query",
            Reason::BasenameSubstring => "the file name contains the query",
            Reason::PathSubstring => "the path contains the query",
            Reason::BasenameFuzzy => "the query's characters appear in order in the file name",
            Reason::PathFuzzy => "the query's characters appear in order in the path",
            Reason::Listed => "matches the listing's globs and types",
        }
    }
}
