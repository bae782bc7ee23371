//! A parsed source file: its bytes, tree, line index, checksum and, worked
//! out once, its outline (see [`crate::symbols`], which fills it).

use aide_core::envelope::diag;
use aide_core::{Diagnostic, Lang, LineIndex};
use tree_sitter::Tree;

use crate::validate::{SyntaxIssue, syntax_issues};

/// A parsed source file.
pub struct SourceFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub source: Vec<u8>,
    pub tree: Tree,
    pub index: LineIndex,
    /// The whole outline with signatures, worked out once: a file kept
    /// parsed between calls ([`crate::warm`]) is not walked again.
    pub(crate) outline: std::sync::OnceLock<Vec<crate::symbols::record::Symbol>>,
    /// Item-position macro bodies the outline could not read as items.
    pub(crate) macro_bodies_skipped: std::sync::OnceLock<usize>,
    /// SHA-256 of `source`, worked out once.
    checksum: std::sync::OnceLock<std::sync::Arc<str>>,
}

impl SourceFile {
    /// Reads and parses `abs` as `lang`.
    pub fn parse(path: String, lang: Lang, source: Vec<u8>) -> Result<SourceFile, Diagnostic> {
        let Some(tree) = crate::language::parse(lang, &source) else {
            return Err(Diagnostic::new(diag::PARSE_ERROR, format!("tree-sitter could not parse this file as {lang}"))
                .with_path(path));
        };
        let index = LineIndex::new(&source);
        Ok(SourceFile {
            path,
            lang,
            source,
            tree,
            index,
            outline: std::sync::OnceLock::new(),
            macro_bodies_skipped: std::sync::OnceLock::new(),
            checksum: std::sync::OnceLock::new(),
        })
    }

    /// SHA-256 of the bytes parsed: every result from this file carries it,
    /// so an edit can be guarded by it without reading the file again.
    pub fn checksum(&self) -> &std::sync::Arc<str> {
        self.checksum.get_or_init(|| aide_core::checksum::sha256_hex(&self.source).into())
    }

    /// A `macro_not_indexed` diagnostic if some item-position macro bodies
    /// did not parse as items: what they define is missing, and the user
    /// must know.
    pub fn macro_diagnostic(&self) -> Option<Diagnostic> {
        let _ = self.outline();
        self.macro_diagnostic_of(self.macro_bodies_skipped.get().copied().unwrap_or(0))
    }

    /// [`SourceFile::macro_diagnostic`], for `skipped` bodies counted by
    /// an outline computed another way.
    pub(crate) fn macro_diagnostic_of(&self, skipped: usize) -> Option<Diagnostic> {
        (skipped > 0).then(|| {
            Diagnostic::new(
                diag::MACRO_NOT_INDEXED,
                format!(
                    "{skipped} macro bod{} not indexed: {} not parse as items, so what {} define is not listed",
                    if skipped == 1 { "y" } else { "ies" },
                    if skipped == 1 { "it does" } else { "they do" },
                    if skipped == 1 { "it may" } else { "they may" },
                ),
            )
            .with_path(self.path.clone())
        })
    }

    pub fn syntax_issues(&self) -> Vec<SyntaxIssue> {
        syntax_issues(self.lang, &self.tree, &self.source, &self.index)
    }

    /// A `parse_error` diagnostic if the file has syntax errors: results from
    /// it may be incomplete, and the user must know.
    /// `voice`: whose words name the validate mode.
    pub fn parse_diagnostic(&self, voice: aide_core::voice::Voice) -> Option<Diagnostic> {
        self.parse_diagnostic_seeing(&voice.on("validate"))
    }

    /// [`SourceFile::parse_diagnostic`] for another tool: `see` names where
    /// the errors are listed (`llm-ast-search --validate`).
    pub fn parse_diagnostic_seeing(&self, see: &str) -> Option<Diagnostic> {
        if !self.tree.root_node().has_error() {
            return None;
        }
        let issues = self.syntax_issues();
        let first = issues.first()?;
        Some(
            Diagnostic::new(
                diag::PARSE_ERROR,
                format!(
                    "{} syntax error{} (first at {}:{}: {}); symbols near them may be missing (see {})",
                    issues.len(),
                    if issues.len() == 1 { "" } else { "s" },
                    first.span.line,
                    first.span.column,
                    first.message,
                    see
                ),
            )
            .with_path(self.path.clone()),
        )
    }
}
