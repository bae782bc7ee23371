//! What a transform answers: each file changed and how, each operation's
//! report, what undo and recovery did; its text form and exit status.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

use crate::journal::Recovered;
use crate::plan::OpReport;
use crate::undo::Restored;
use crate::{journal, refactor, rename, sites};

/// What a transform does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    Modified,
    Created,
    Deleted,
    Unchanged,
}

impl FileAction {
    pub fn as_str(self) -> &'static str {
        match self {
            FileAction::Modified => "modified",
            FileAction::Created => "created",
            FileAction::Deleted => "deleted",
            FileAction::Unchanged => "unchanged",
        }
    }
}

/// One file of the result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileChange {
    pub path: String,
    pub action: FileAction,
    pub checksum_before: Option<String>,
    pub checksum_after: Option<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// rustfmt formatted the result.
    pub formatted: bool,
    pub renamed_from: Option<String>,
    /// Unified diff (with --dry-run or --diff).
    pub diff: Option<String>,
    /// Each changed place: its bytes and lines before, and after (valid
    /// against `checksum_after`, to chain the next edit without a read).
    pub sites: Vec<sites::Site>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum TransformOutput {
    Transform {
        applied: usize,
        skipped: usize,
        /// Always empty: a failing request is an error, and nothing is written.
        errors: Vec<String>,
        /// The new checksum, when exactly one file changed.
        checksum_after: Option<String>,
        dry_run: bool,
        /// Every edit was already in place: nothing to write.
        no_op: bool,
        files: Vec<FileChange>,
        operations: Vec<OpReport>,
        /// What each rename_symbol found: its definition and every site judged.
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        renames: Vec<rename::RenameReport>,
        /// What each refactor applied: the server's action and its edits.
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        refactors: Vec<refactor::RefactorReport>,
        /// How to undo this transform, when it wrote something.
        undo: Option<String>,
        /// What `verify`/`verify_command` found: the edit stands, so nothing got worse.
        verified: Option<crate::verify::Verified>,
    },
    Undo {
        undone: Vec<String>,
        files: Vec<Restored>,
    },
    Recover {
        /// The interrupted transforms of this root, and what was done with each.
        recovered: Vec<Recovered>,
    },
    /// The refactors the language server offers at a place (`refactor`
    /// without an action); nothing changed.
    Actions(refactor::Offered),
}

impl Render for TransformOutput {
    // Long because: one arm per output kind, each printing its fields in the order a reader meets them.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            TransformOutput::Transform {
                applied,
                skipped,
                dry_run,
                no_op,
                files,
                undo,
                verified,
                renames,
                refactors,
                ..
            } => {
                let verb = if *dry_run { "would apply" } else { "applied" };
                writeln!(w, "{verb} {applied}, skipped {skipped}{}", if *no_op { " (no change)" } else { "" })?;
                for r in refactors {
                    writeln!(w, "refactor {} ({}: \"{}\"): {} edit(s)", r.action, r.server, r.title, r.edits)?;
                }
                for r in renames {
                    writeln!(
                        w,
                        "rename {} `{}` -> `{}`: {} site{} ({} unresolved, left alone)",
                        match r.scope {
                            rename::SymbolScope::Local => "local",
                            rename::SymbolScope::Member => "member",
                            rename::SymbolScope::Free => "symbol",
                        },
                        r.name_path,
                        r.new_name,
                        r.renamed,
                        if r.renamed == 1 { "" } else { "s" },
                        r.unresolved
                    )?;
                    for site in r.sites.iter().filter(|s| !s.renamed) {
                        w.paint(Paint::Warn, "  unresolved ")?;
                        w.paint(Paint::Path, aide_core::text::escape_controls(&site.path))?;
                        write!(w, ":")?;
                        w.paint(Paint::LineNumber, site.line)?;
                        writeln!(w, ":{}: {}", site.column, site.line_text.trim())?;
                    }
                }
                for f in files {
                    write!(w, "{} ", f.action.as_str())?;
                    w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                    write!(w, " (")?;
                    w.paint(Paint::Good, format_args!("+{}", f.lines_added))?;
                    write!(w, " ")?;
                    w.paint(Paint::Bad, format_args!("-{}", f.lines_removed))?;
                    writeln!(
                        w,
                        "){}",
                        f.checksum_after.as_deref().map(|c| format!(" sha256 {c}")).unwrap_or_default()
                    )?;
                    if let Some(d) = &f.diff {
                        w.diff(d)?;
                    }
                }
                if let Some(v) = verified {
                    let mut what: Vec<String> = Vec::new();
                    if !v.checkers.is_empty() {
                        what.push(format!(
                            "{} ({} error(s) before, {} after)",
                            v.checkers.join(", "),
                            v.errors_before,
                            v.errors_after
                        ));
                    }
                    if let Some(c) = &v.command {
                        what.push(format!("`{c}` exited 0"));
                    }
                    w.paint(Paint::Good, format_args!("verified: {}", what.join("; ")))?;
                    writeln!(w)?;
                }
                if let Some(u) = undo {
                    w.paint(Paint::Dim, format_args!("undo: {u}"))?;
                    writeln!(w)?;
                }
                Ok(())
            }
            TransformOutput::Undo { files, .. } => {
                for f in files {
                    write!(w, "{} ", f.action.as_str())?;
                    w.paint(Paint::Path, aide_core::text::escape_controls(&f.path))?;
                    writeln!(w)?;
                }
                Ok(())
            }
            TransformOutput::Actions(offered) => {
                if offered.actions.is_empty() {
                    writeln!(w, "{} offers no refactor at {}:{}", offered.server, offered.path, offered.line)?;
                }
                for a in &offered.actions {
                    writeln!(
                        w,
                        "{}  {}{}",
                        a.action,
                        a.title,
                        a.kind.as_deref().map(|k| format!(" ({k})")).unwrap_or_default()
                    )?;
                }
                Ok(())
            }
            TransformOutput::Recover { recovered } => {
                if recovered.is_empty() {
                    writeln!(w, "nothing to recover")?;
                }
                for r in recovered {
                    let action = match r.action {
                        journal::RecoveryAction::Completed => "completed",
                        journal::RecoveryAction::RolledBack => "rolled back",
                        journal::RecoveryAction::UndoneUnverified => "undone (it landed unverified)",
                    };
                    writeln!(w, "{action} {} ({} files)", r.execution_id, r.files)?;
                    if let Some(why) = &r.unverified_kept {
                        writeln!(
                            w,
                            "  landed unverified, and could not be undone: {}",
                            aide_core::text::escape_controls(why)
                        )?;
                    }
                    for c in &r.conflicts {
                        writeln!(w, "  changed since, left as is: {}", aide_core::text::escape_controls(c))?;
                    }
                }
                Ok(())
            }
        }
    }
}
