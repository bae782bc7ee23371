//! `--fix`: the findings' machine-applicable fixes, applied as one
//! llm-transform commit (checksum-guarded, all or nothing, journaled,
//! undone by `llm-transform undo ID`, ID being this run's execution id).
//! A fix whose edits overlap one taken before it waits for the next run.

use aide_checkers::{Finding, FixEdit};
use aide_core::tool::{Context, Tool};
use aide_core::{AideError, Root};
use llm_transform::{LlmTransform, TransformOutput, TransformRequest};

use crate::output::Fixed;

/// Whether two edits touch: they overlap, or both insert at one place.
fn touch(a: &FixEdit, b: &FixEdit) -> bool {
    a.path == b.path
        && a.byte_start < b.byte_end.max(b.byte_start + 1)
        && b.byte_start < a.byte_end.max(a.byte_start + 1)
}

/// The fixes taken (each finding's first), in the findings' order, and how
/// many were left out for overlapping.
fn pick(findings: &[Finding]) -> (Vec<&FixEdit>, usize, usize) {
    let mut taken: Vec<&FixEdit> = Vec::new();
    let (mut fixes, mut overlapping) = (0, 0);
    for f in findings {
        let Some(fix) = f.fixes.first() else { continue };
        if fix.edits.iter().any(|e| taken.iter().any(|t| touch(t, e))) {
            overlapping += 1;
            continue;
        }
        taken.extend(&fix.edits);
        fixes += 1;
    }
    (taken, fixes, overlapping)
}

/// Applies the fixes of `findings` in `root`.
pub(crate) fn apply(
    root: &Root,
    findings: &[Finding],
    ctx: &Context,
) -> Result<(Fixed, Vec<aide_core::Diagnostic>), AideError> {
    let (edits, fixes, overlapping) = pick(findings);
    if edits.is_empty() {
        return Ok((Fixed { fixes: 0, overlapping, files: Vec::new(), undo: None }, Vec::new()));
    }
    let request = TransformRequest {
        root: Some(root.path().to_path_buf()),
        edits: edits
            .iter()
            .map(|e| llm_transform::request::SpanEdit {
                path: Some(e.path.clone()),
                byte_start: e.byte_start,
                byte_end: e.byte_end,
                replacement: e.replacement.clone(),
                checksum_before: Some(e.checksum_before.clone()),
            })
            .collect(),
        ..TransformRequest::default()
    };
    // The same execution id: `llm-transform undo` takes this run's.
    let outcome = LlmTransform::run(request, &ctx.nested())?;
    let (files, undo) = match outcome.output {
        TransformOutput::Transform { files, undo, .. } => (files.into_iter().map(|f| f.path).collect(), undo),
        _ => (Vec::new(), None),
    };
    Ok((Fixed { fixes, overlapping, files, undo }, outcome.diagnostics))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize) -> FixEdit {
        FixEdit {
            path: "a".into(),
            byte_start: start,
            byte_end: end,
            replacement: "x".into(),
            checksum_before: String::new(),
        }
    }

    #[test]
    fn overlapping_and_same_place_insertions_touch() {
        assert!(touch(&edit(0, 4), &edit(3, 6)));
        assert!(!touch(&edit(0, 3), &edit(3, 6)));
        assert!(touch(&edit(3, 3), &edit(3, 3)));
        assert!(touch(&edit(3, 3), &edit(2, 5)));
        assert!(!touch(&edit(3, 3), &edit(4, 4)));
    }
}
