//! A lint run: the checkers on the root (or the files git says changed),
//! compared with a baseline when asked, fixes applied when asked.

use std::path::Path;
use std::time::Duration;

use aide_checkers::{Checked, Finding, Options};
use aide_core::tool::{Context, Outcome};
use aide_core::{AideError, Root};

use crate::output::{BaselineUsed, LintOutput};
use crate::{DEFAULT_TIMEOUT, LintRequest, fix};

/// Runs the request.
pub fn lint(request: &LintRequest, ctx: &Context) -> Result<Outcome<LintOutput>, AideError> {
    let root = ctx.open_root(request.root.as_deref())?;
    let timeout = request.timeout.unwrap_or(DEFAULT_TIMEOUT);
    aide_core::request::check_timeout("--timeout", Some(timeout))?;
    let mut options =
        Options { checkers: request.checker.clone(), only: None, timeout: Some(Duration::from_secs_f64(timeout)) };
    if let Some(rev) = &request.changed {
        options.only = Some(aide_core::git::changed_files(root.path(), rev)?);
    }
    let within = within(&root, &request.paths)?;
    let keep = |f: &Finding| {
        within
            .as_ref()
            .is_none_or(|w| w.iter().any(|p| p.is_empty() || f.path == *p || f.path.starts_with(&format!("{p}/"))))
    };

    let Checked { checkers, findings, mut diagnostics } = aide_checkers::check(&root, &options, ctx)?;
    let (mut findings, baseline) = match &request.baseline {
        Some(against) => compare(&root, against, findings, &options, ctx)?,
        None => (findings, None),
    };
    findings.retain(|f| keep(f));
    let mut output = LintOutput::new(findings, checkers);
    output.baseline = baseline;

    if request.fix {
        let (fixed, fix_diagnostics) = fix::apply(&root, &output.findings, ctx)?;
        diagnostics.extend(fix_diagnostics);
        // What remains: the checkers again, on the fixed tree.
        if fixed.undo.is_some() {
            let again: Checked = aide_checkers::check(&root, &options, ctx)?;
            let (mut remaining, baseline) = match &request.baseline {
                Some(against) => compare(&root, against, again.findings, &options, ctx)?,
                None => (again.findings, None),
            };
            remaining.retain(|f| keep(f));
            output = LintOutput::new(remaining, again.checkers);
            output.baseline = baseline;
        }
        output.fixed = Some(fixed);
    }
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

/// The paths the findings are kept to, relative to the root.
fn within(root: &Root, paths: &[String]) -> Result<Option<Vec<String>>, AideError> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for p in paths {
        let abs = root.resolve(p)?;
        let rel = root.lexical(&abs).map(|r| aide_core::root::to_slash(&r)).unwrap_or_default();
        out.push(if rel == "." { String::new() } else { rel });
    }
    Ok(Some(out))
}

/// The findings of `now` the baseline did not have: a file holding an
/// earlier `llm-lint --json` output, or a git revision checked the same way.
fn compare(
    root: &Root,
    against: &str,
    now: Vec<Finding>,
    options: &Options,
    ctx: &Context,
) -> Result<(Vec<Finding>, Option<BaselineUsed>), AideError> {
    let as_file = ctx.resolve(Path::new(against));
    if as_file.is_file() {
        ctx.check_confined("--baseline", &as_file)?;
        let before = earlier_output(&as_file, against)?;
        let count = before.len();
        let fresh = aide_checkers::baseline::new_since(now, &before, &|_, _| None);
        return Ok((fresh, Some(BaselineUsed { against: against.to_string(), before: count })));
    }
    let dir = TempTree::new()?;
    aide_checkers::changed::export_revision(root.path(), against, &dir.0)?;
    let before_root = Root::new(&dir.0)?;
    let before = aide_checkers::check(&before_root, options, ctx)?;
    let count = before.findings.len();
    let fresh = aide_checkers::new_since_tree(now, &before, &dir.0, root);
    Ok((fresh, Some(BaselineUsed { against: against.to_string(), before: count })))
}

/// The findings of an earlier `llm-lint --json` output (or a bare list of them).
fn earlier_output(path: &Path, shown: &str) -> Result<Vec<Finding>, AideError> {
    let text = std::fs::read_to_string(path).map_err(|e| AideError::io(shown, &e))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad_baseline(shown, &e.to_string()))?;
    let list = value.get("findings").cloned().unwrap_or(value);
    serde_json::from_value(list).map_err(|e| bad_baseline(shown, &e.to_string()))
}

fn bad_baseline(shown: &str, why: &str) -> AideError {
    AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("--baseline {shown}: not an llm-lint output ({why})"))
        .with_hint("give a git revision, or a file saved from `llm-lint --json`")
}

/// A temporary directory for a revision's tree, removed with it.
struct TempTree(std::path::PathBuf);

impl TempTree {
    fn new() -> Result<TempTree, AideError> {
        let dir = std::env::temp_dir().join(format!("aide-lint-baseline-{}", aide_core::ids::new_execution_id()));
        aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io("a temporary directory", &e))?;
        Ok(TempTree(dir))
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
