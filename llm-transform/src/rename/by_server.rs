//! A rename by the language server (`engine: lsp` or `auto`): its edits
//! become the rename's sites, judged by types, once checked against the
//! syntax engine's (see `llm_ast_search::lsp::whole`). A server renames in
//! the files it knows: sites it left out that the syntax engine ties to
//! the symbol (in a file its configuration excludes, or one it had not
//! read) refuse the rename with `unresolved_sites` listing them, unless
//! `include_unresolved` (they are renamed too) or `skip_unresolved` (left,
//! and listed as not renamed).

use aide_core::envelope::{Diagnostic, diag};
use aide_core::{AideError, Lang, Root};
use llm_ast_search::lsp::whole::{self, SyntaxSite};
use llm_ast_search::lsp::{self, FileEdits, Located, ServerSpec};
use llm_ast_search::{RefKind, Resolution, Target};

use super::{PreparedRename, RenameSite};
use crate::error::{TransformError, UnresolvedSite};

/// The sites of a rename (each with its new text).
type Sites = (Vec<RenameSite>, Vec<String>);

impl PreparedRename {
    /// The sites of the rename the language server makes (each with its new
    /// text), judged by types; Ok(None), with a diagnostic, when no server
    /// is installed, it fails, is not ready or has no
    /// rename there, or it would edit a file the rename cannot take as the
    /// server saw it: one outside the rename's files, or one an earlier
    /// operation of the request changed (the server sees the disk). The
    /// syntax engine then renames. Sites the server left out are refused
    /// (see the module).
    pub(super) fn server_sites(
        &self,
        root: &Root,
        target: &Target,
        syntax: &[RenameSite],
        files: &[(String, Vec<u8>)],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Result<Option<Sites>, AideError> {
        let (path, at) = match target {
            Target::Symbol { defs, .. } => {
                match defs.iter().find_map(|d| d.name_span.map(|(start, _)| (d.path.to_string(), start))) {
                    Some(found) => found,
                    None => return Ok(None),
                }
            }
            Target::Local { path, def } => (path.clone(), def.start),
        };
        let Some(lang) = Lang::from_path(std::path::Path::new(&path)) else { return Ok(None) };
        // Asked for a server (`lsp`, or `auto`), the caller is told there is none.
        let Some(spec) = lsp::server_for(lang) else {
            diagnostics.push(Diagnostic::new(
                diag::LSP_UNAVAILABLE,
                format!("{}: the syntax engine renamed", lsp::why_no_server(lang)),
            ));
            return Ok(None);
        };
        let failed = |diagnostics: &mut Vec<Diagnostic>, why: String| {
            diagnostics
                .push(Diagnostic::new(diag::LSP_FAILED, format!("{}: {why}; the syntax engine renamed", spec.argv[0])));
        };
        let by_file = match lsp::rename(root, &spec, &path, at, &self.op.new_name) {
            Ok(edits) if !edits.is_empty() => edits,
            Ok(_) => {
                failed(diagnostics, "it has no rename for the definition".into());
                return Ok(None);
            }
            Err(failure) => {
                failed(diagnostics, failure.to_string());
                return Ok(None);
            }
        };
        let (mut sites, mut texts) = match sites_of(root, by_file, syntax, files) {
            Ok(found) => found,
            Err(why) => {
                failed(diagnostics, why);
                return Ok(None);
            }
        };
        let left = match self.left_by(root, &spec, target, &sites, syntax) {
            Ok(left) => left,
            Err(failure) => {
                failed(diagnostics, failure.to_string());
                return Ok(None);
            }
        };
        if left.is_empty() {
            return Ok(Some((sites, texts)));
        }
        if !self.op.include_unresolved && !self.op.skip_unresolved {
            let sites = left.iter().map(|s| UnresolvedSite::from(*s)).collect();
            let server = spec.argv[0].clone();
            return Err(TransformError::ServerLeftSites { name: self.op.name.clone(), server, sites }.into());
        }
        for site in left {
            sites.push(RenameSite { renamed: self.op.include_unresolved, ..site.clone() });
            texts.push(self.op.new_name.clone());
        }
        let mut both: Vec<(RenameSite, String)> = sites.into_iter().zip(texts).collect();
        both.sort_by(|(a, _), (b, _)| aide_core::ordering::cmp_location(&a.path, a.byte_start, &b.path, b.byte_start));
        Ok(Some(both.into_iter().unzip()))
    }

    /// The syntax engine's sites (outside comments and strings) that the
    /// server's `sites` left out though they mean the symbol.
    fn left_by<'s>(
        &self,
        root: &Root,
        spec: &ServerSpec,
        target: &Target,
        sites: &[RenameSite],
        syntax: &'s [RenameSite],
    ) -> Result<Vec<&'s RenameSite>, lsp::LspFailure> {
        let code: Vec<&RenameSite> = syntax.iter().filter(|s| !s.in_comment_or_string).collect();
        let checked: Vec<SyntaxSite> = code
            .iter()
            .map(|s| SyntaxSite {
                path: s.path.clone(),
                line: s.line,
                column: s.column,
                start: s.byte_start,
                end: s.byte_end,
                kind: s.kind,
                matched: s.matched,
            })
            .collect();
        let given: Vec<Located> =
            sites.iter().map(|s| Located { path: s.path.clone(), start: s.byte_start, end: s.byte_end }).collect();
        let mut defined_at: Vec<Located> = match target {
            Target::Symbol { defs, .. } => defs
                .iter()
                .filter_map(|d| d.name_span.map(|(start, end)| Located { path: d.path.to_string(), start, end }))
                .collect(),
            Target::Local { path, def } => {
                vec![Located { path: path.clone(), start: def.start, end: def.start + def.name.len() }]
            }
        };
        defined_at.extend(
            code.iter()
                .filter(|s| s.kind == RefKind::Definition && s.matched == Resolution::Resolved)
                .map(|s| Located { path: s.path.clone(), start: s.byte_start, end: s.byte_end }),
        );
        let left = whole::check(root, spec, &given, &checked, &defined_at)?;
        Ok(left.sites.into_iter().map(|i| code[i]).collect())
    }
}

/// The server's edits as the rename's sites, each with its new text; why
/// not, when it would edit a file outside the rename's `files` or one that
/// changed since they were read.
fn sites_of(
    root: &Root,
    by_file: Vec<FileEdits>,
    syntax: &[RenameSite],
    files: &[(String, Vec<u8>)],
) -> Result<Sites, String> {
    let (mut sites, mut texts) = (Vec::new(), Vec::new());
    for file in by_file {
        let Some((_, bytes)) = files.iter().find(|(rel, _)| *rel == file.path) else {
            return Err(format!("it would edit {}, outside the rename's files", file.path));
        };
        if root.read(std::path::Path::new(&file.path)).ok().as_ref() != Some(bytes) {
            return Err(format!("an earlier operation of the request changed {}, which it reads from disk", file.path));
        }
        let index = aide_core::LineIndex::new(bytes);
        for (start, end, text) in file.edits {
            let known = syntax.iter().find(|s| s.path == file.path && s.byte_start == start);
            let at = index.span(bytes, start, end);
            sites.push(RenameSite {
                path: file.path.clone(),
                line: at.line,
                column: at.column,
                byte_start: start,
                byte_end: end,
                kind: known.map_or(RefKind::Usage, |s| s.kind),
                matched: Resolution::Resolved,
                in_comment_or_string: known.is_some_and(|s| s.in_comment_or_string),
                renamed: true,
                line_text: known.map_or_else(|| index.line_text(bytes, at.line, 200), |s| s.line_text.clone()),
            });
            texts.push(text);
        }
    }
    Ok((sites, texts))
}
