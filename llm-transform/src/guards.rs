//! The guards a transform passes before it writes (syntax, python3's
//! `compile()`), and rustfmt, run on an edited Rust file before it is written (checking
//! after the write is `verify`'s).

use std::path::Path;

use aide_core::envelope::Diagnostic;
use aide_core::{Lang, LineIndex};
use llm_ast_search::{SyntaxIssue, syntax_issues};

/// How long python3 or rustfmt may take over one file.
const HELPER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Python's own verdict on a file, as a second opinion beside tree-sitter
/// (which tolerates some indentation errors): the line and message of the
/// `SyntaxError` `compile()` raises, or None when it compiles or python3 is
/// not on PATH.
pub(crate) fn python_compile_error(bytes: &[u8]) -> Option<(usize, String)> {
    const CHECK: &str = "import sys\ntry:\n    compile(sys.stdin.buffer.read(), 'file', 'exec', dont_inherit=True)\nexcept SyntaxError as e:\n    print(e.lineno or 0)\n    print(e.msg)\n    sys.exit(3)\n";
    let out = aide_gate::Launch::new("syntax check", "python3", std::env::temp_dir())
        .args(["-I", "-c", CHECK])
        .input(bytes.to_vec())
        .timeout(Some(HELPER_TIMEOUT))
        .run()
        .ok()?;
    if out.exit_code() != Some(3) {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let line = lines.next()?.trim().parse().ok()?;
    Some((line, lines.next().unwrap_or("syntax error").to_string()))
}

/// The tree of a file's original content and the regions changed since:
/// the new content is parsed incrementally from it.
pub(crate) struct Earlier<'a> {
    pub tree: &'a tree_sitter::Tree,
    pub regions: &'a crate::sites::Regions,
}

/// `after` parsed incrementally from the earlier tree, edited to the
/// changed regions: only those are parsed again. None when a region does
/// not fit `after` (the caller parses whole).
fn reparse(lang: Lang, before: &[u8], after: &[u8], earlier: &Earlier<'_>) -> Option<tree_sitter::Tree> {
    let point = |bytes: &[u8], index: &LineIndex, at: usize| {
        let line = index.line_of(at);
        let start = index.line_range(line).map_or(0, |r| r.start);
        tree_sitter::Point { row: line - 1, column: at.min(bytes.len()) - start }
    };
    let old_index = LineIndex::new(before);
    let mut tree = earlier.tree.clone();
    // From the last region back, each region's start is the same in the
    // original and in the text being edited.
    for r in earlier.regions.regions().iter().rev() {
        let start_position = point(before, &old_index, r.old.start);
        let inserted = after.get(r.new.clone())?;
        let new_end_position = match memchr::memrchr(b'\n', inserted) {
            Some(nl) => tree_sitter::Point {
                row: start_position.row + memchr::memchr_iter(b'\n', inserted).count(),
                column: inserted.len() - nl - 1,
            },
            None => tree_sitter::Point { row: start_position.row, column: start_position.column + inserted.len() },
        };
        tree.edit(&tree_sitter::InputEdit {
            start_byte: r.old.start,
            old_end_byte: r.old.end,
            new_end_byte: r.old.start + inserted.len(),
            start_position,
            old_end_position: point(before, &old_index, r.old.end),
            new_end_position,
        });
    }
    llm_ast_search::reparse_source(lang, after, &tree)
}

/// The issues of `bytes` as parsed into `tree`, each with its line's text.
fn issues_of(lang: Lang, tree: &tree_sitter::Tree, bytes: &[u8]) -> Vec<(SyntaxIssue, String)> {
    let index = LineIndex::new(bytes);
    syntax_issues(lang, tree, bytes, &index)
        .into_iter()
        .map(|i| {
            let line = index.line_text(bytes, i.span.line, llm_ast_search::LINE_TEXT_CHARS);
            (i, line)
        })
        .collect()
}

fn parsed_issues(lang: Lang, bytes: &[u8]) -> Vec<(SyntaxIssue, String)> {
    llm_ast_search::parse_source(lang, bytes).map(|tree| issues_of(lang, &tree, bytes)).unwrap_or_default()
}

/// The issues of `after` that `before` did not have (compared by kind,
/// message and the text of their line). `after` is parsed incrementally
/// when the earlier tree is known; the same checks run on the tree either
/// way (Python's indentation too, which leaves no ERROR node).
pub(crate) fn new_issues_from(
    lang: Lang,
    before: Option<&[u8]>,
    after: &[u8],
    earlier: Option<&Earlier<'_>>,
) -> Vec<SyntaxIssue> {
    let incremental = match (earlier, before) {
        (Some(earlier), Some(b)) => reparse(lang, b, after, earlier),
        _ => None,
    };
    let now = match incremental {
        Some(tree) => issues_of(lang, &tree, after),
        None => parsed_issues(lang, after),
    };
    fresh_issues(lang, before, now)
}

/// Of the issues found `now`, those `before` did not have.
fn fresh_issues(lang: Lang, before: Option<&[u8]>, now: Vec<(SyntaxIssue, String)>) -> Vec<SyntaxIssue> {
    if now.is_empty() {
        // Nothing to compare: the file as it was need not be parsed.
        return Vec::new();
    }
    let mut old: Vec<(String, String)> =
        before.map(|b| parsed_issues(lang, b).into_iter().map(|(i, l)| (i.message, l)).collect()).unwrap_or_default();
    let mut fresh = Vec::new();
    for (issue, line) in now {
        match old.iter().position(|(m, l)| *m == issue.message && *l == line) {
            Some(p) => {
                old.remove(p);
            }
            None => fresh.push(issue),
        }
    }
    fresh
}

/// The folders holding a Cargo.toml, from `file`'s own upwards.
fn manifest_dirs(file: &Path) -> impl Iterator<Item = &Path> {
    file.ancestors().skip(1).filter(|d| d.join("Cargo.toml").is_file())
}

/// The edition of the crate `file` belongs to, for rustfmt.
fn rust_edition(file: &Path) -> String {
    for dir in manifest_dirs(file) {
        let toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        for edition in ["2024", "2021", "2018", "2015"] {
            if toml.contains(&format!("edition = \"{edition}\"")) {
                return edition.into();
            }
        }
        // A workspace member takes the workspace's edition, further up.
        if !toml.contains("edition.workspace = true") {
            return "2015".into();
        }
    }
    "2021".into()
}

/// Formats Rust source with rustfmt; None (with a diagnostic) if it cannot.
pub(crate) fn rustfmt(abs: &Path, rel: &str, bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) -> Option<Vec<u8>> {
    // From this process's directory, where rustfmt has always looked for its configuration.
    let dir = std::env::current_dir().unwrap_or_else(|_| std::env::temp_dir());
    let ran = aide_gate::Launch::new("formatter", "rustfmt", dir)
        .args(["--emit", "stdout", "--quiet", "--edition", &rust_edition(abs)])
        .input(bytes.to_vec())
        .timeout(Some(HELPER_TIMEOUT))
        .run();
    let out = match ran {
        Ok(out) if !out.timed_out => out,
        Ok(_) => {
            diagnostics.push(
                Diagnostic::new(
                    aide_core::envelope::diag::RUSTFMT_FAILED,
                    format!("rustfmt ran past {} s and was stopped", HELPER_TIMEOUT.as_secs()),
                )
                .with_path(rel),
            );
            return None;
        }
        Err(e) => {
            diagnostics.push(
                Diagnostic::new(aide_core::envelope::diag::RUSTFMT_FAILED, format!("rustfmt not run: {e}"))
                    .with_path(rel),
            );
            return None;
        }
    };
    if out.status.success() {
        Some(out.stdout)
    } else {
        let msg = String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string();
        diagnostics.push(
            Diagnostic::new(
                aide_core::envelope::diag::RUSTFMT_FAILED,
                format!("rustfmt failed, file left unformatted: {msg}"),
            )
            .with_path(rel),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sites::Regions;

    /// A Python body dedented to its header's column parses without an
    /// ERROR node, yet Python refuses it: the guard fed the earlier tree
    /// must report it as the whole-parse guard does.
    #[test]
    fn an_incremental_guard_reports_python_indentation_too() {
        let before = "class S:\n    def open(self):\n        return None\n";
        let tree = llm_ast_search::parse_source(Lang::Python, before.as_bytes()).unwrap();
        let at = before.find("        return").unwrap();
        let spans: [(usize, usize, &[u8]); 1] = [(at, at + 8, b"    ")];
        let (after, applied) = crate::text::apply_span_edits_tracked(before.as_bytes(), &spans).unwrap();
        let mut regions = Regions::default();
        regions.apply(&applied);
        let earlier = Earlier { tree: &tree, regions: &regions };
        let whole = new_issues_from(Lang::Python, Some(before.as_bytes()), &after, None);
        assert_eq!(whole.len(), 1, "{whole:?}");
        let incremental = new_issues_from(Lang::Python, Some(before.as_bytes()), &after, Some(&earlier));
        assert_eq!(incremental.len(), 1, "{incremental:?}");
    }

    /// The incremental parse sees what a whole parse sees, whatever the
    /// edits: one region, several, multi-line, at the ends, breaking or not.
    #[test]
    fn an_incremental_parse_finds_errors_as_a_whole_parse_does() {
        let before = "fn a() -> u32 {\n    f(1)\n}\n\nfn b() {\n    let x = g(2);\n}\n";
        let cases: &[&[(usize, usize, &str)]] = &[
            &[(20, 24, "h(f(1))")],
            &[(20, 24, "h(f(1)")],
            &[(0, 0, "// top\n"), (45, 49, "gg")],
            &[(16, 25, "    let y = {\n        2\n    };\n    y\n")],
            &[(16, 25, "    let y = {\n        2\n    ;\n")],
            &[(52, 52, "\nfn c() {}")],
            &[(0, 16, "fn a() -> u32 {{")],
        ];
        let tree = llm_ast_search::parse_source(Lang::Rust, before.as_bytes()).unwrap();
        for edits in cases {
            let spans: Vec<(usize, usize, &[u8])> = edits.iter().map(|(s, e, t)| (*s, *e, t.as_bytes())).collect();
            let (after, applied) = crate::text::apply_span_edits_tracked(before.as_bytes(), &spans).unwrap();
            let mut regions = Regions::default();
            regions.apply(&applied);
            let earlier = Earlier { tree: &tree, regions: &regions };
            let whole = llm_ast_search::parse_source(Lang::Rust, &after).unwrap().root_node().has_error();
            let incremental =
                reparse(Lang::Rust, before.as_bytes(), &after, &earlier).map(|t| t.root_node().has_error());
            assert_eq!(incremental, Some(whole), "{edits:?}");
        }
    }
}
