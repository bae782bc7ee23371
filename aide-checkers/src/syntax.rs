//! aide's own checker, always there: every file of a language aide parses,
//! parsed with tree-sitter, its syntax errors reported where they are.

use aide_core::root::Root;
use aide_core::span::LineIndex;
use aide_core::tool::Context;

use crate::finding::{Finding, Severity};

pub(crate) const NAME: &str = "syntax";

/// The syntax errors of `files` (relative to the root).
pub(crate) fn check(root: &Root, files: &[String], ctx: &Context) -> Result<Vec<Finding>, aide_core::AideError> {
    let mut out = Vec::new();
    for rel in files {
        ctx.check_cancel()?;
        let Ok(abs) = root.resolve(rel) else { continue };
        let Some(lang) = aide_core::lang::Lang::from_path(&abs) else { continue };
        let Ok(bytes) = std::fs::read(&abs) else { continue };
        let Some(tree) = llm_ast_search::parse_source(lang, &bytes) else { continue };
        let index = LineIndex::new(&bytes);
        let issues = llm_ast_search::syntax_issues(lang, &tree, &bytes, &index);
        if issues.is_empty() {
            continue;
        }
        let checksum = aide_core::checksum::sha256_hex(&bytes);
        for issue in issues {
            let s = issue.span;
            out.push(Finding {
                path: rel.clone(),
                line: s.line,
                column: s.column,
                end_line: s.end_line,
                end_column: s.end_column,
                byte_start: s.byte_start,
                byte_end: s.byte_end,
                severity: Severity::Error,
                code: Some(format!(
                    "syntax_{}",
                    serde_json::to_value(issue.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default()
                )),
                message: issue.message,
                checker: NAME.into(),
                checksum: checksum.clone(),
                related: Vec::new(),
                fixes: Vec::new(),
            });
        }
    }
    Ok(out)
}
