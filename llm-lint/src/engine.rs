//! A lint run: the checkers on the root (or the files git says changed),
//! compared with a baseline when asked, fixes applied when asked.

use std::path::Path;
use std::time::Duration;

use aide_checkers::{Checked, Finding, Options, RunStatus};
use aide_core::tool::{Context, Outcome};
use aide_core::{AideError, Root};

use crate::error::bad_baseline;
use crate::fix;
use crate::output::{BaselineUsed, LintOutput};
use crate::request::{DEFAULT_TIMEOUT, LintRequest};

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

    // The earlier tree, checked once (a fix checks the tree again, not it).
    let earlier = match &request.baseline {
        Some(against) => Some(Earlier::load(&root, against, &options, ctx)?),
        None => None,
    };
    let report = |mut checked: Checked| -> LintOutput {
        if let Some(e) = &earlier {
            e.failed_there(&mut checked);
        }
        let mut findings = match &earlier {
            Some(e) => e.new_in(checked.findings, &root),
            None => checked.findings,
        };
        findings.retain(|f| keep(f));
        let mut output = LintOutput::new(findings, checked.checkers);
        output.baseline = earlier.as_ref().map(|e| e.used(request.baseline.as_deref().unwrap_or_default()));
        output
    };

    let mut checked = aide_checkers::check(&root, &options, ctx)?;
    let mut diagnostics = std::mem::take(&mut checked.diagnostics);
    let mut output = report(checked);
    if request.fix {
        let (fixed, fix_diagnostics) = fix::apply(&root, &output.findings, ctx)?;
        diagnostics.extend(fix_diagnostics);
        // What remains: the checkers again, on the fixed tree.
        if fixed.undo.is_some() {
            output = report(aide_checkers::check(&root, &options, ctx)?);
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

/// What `--baseline` compares with: a saved `llm-lint --json` output, or
/// a git revision's tree (kept while it is used) checked the same way.
enum Earlier {
    Saved(Vec<Finding>),
    Tree { dir: aide_core::fsutil::TempDir, checked: Checked },
}

impl Earlier {
    fn load(root: &Root, against: &str, options: &Options, ctx: &Context) -> Result<Earlier, AideError> {
        let as_file = ctx.resolve(Path::new(against));
        if as_file.is_file() {
            ctx.check_confined("--baseline", &as_file)?;
            return Ok(Earlier::Saved(earlier_output(&as_file, against)?));
        }
        let dir = aide_core::fsutil::TempDir::new("aide-lint-baseline")
            .map_err(|e| AideError::io("a temporary directory", &e))?;
        aide_checkers::revision::export_revision(root.path(), against, dir.path())?;
        let checked = aide_checkers::check(&Root::new(dir.path())?, options, ctx)?;
        Ok(Earlier::Tree { dir, checked })
    }

    /// A checker that failed on the earlier tree gives nothing to compare
    /// with: it is failed now too, its findings left out (all would look new).
    fn failed_there(&self, now: &mut Checked) {
        let Earlier::Tree { checked: before, .. } = self else { return };
        for was in before.failed() {
            let Some(run) = now.checkers.iter_mut().find(|c| c.checker == was.checker && c.status != RunStatus::Failed)
            else {
                continue;
            };
            run.status = RunStatus::Failed;
            run.reason = Some(format!(
                "it failed on the baseline tree ({})",
                was.reason.as_deref().unwrap_or("no reason given")
            ));
            run.stderr_tail = was.stderr_tail.clone();
            run.findings = 0;
            now.findings.retain(|f| f.checker != was.checker);
        }
    }

    /// The findings of `now` it did not have.
    fn new_in(&self, now: Vec<Finding>, root: &Root) -> Vec<Finding> {
        match self {
            // No old text to follow lines through: the nearest line pairs them.
            Earlier::Saved(before) => aide_checkers::baseline::new_since(now, before, &|_, _| None),
            Earlier::Tree { dir, checked } => aide_checkers::new_since_tree(now, checked, dir.path(), root),
        }
    }

    fn used(&self, against: &str) -> BaselineUsed {
        let before = match self {
            Earlier::Saved(before) => before.len(),
            Earlier::Tree { checked, .. } => checked.findings.len(),
        };
        BaselineUsed { against: against.to_string(), before }
    }
}

/// The findings of an earlier `llm-lint --json` output (or a bare list of them).
fn earlier_output(path: &Path, shown: &str) -> Result<Vec<Finding>, AideError> {
    let text = std::fs::read_to_string(path).map_err(|e| AideError::io(shown, &e))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad_baseline(shown, &e.to_string()))?;
    let list = value.get("findings").cloned().unwrap_or(value);
    serde_json::from_value(list).map_err(|e| bad_baseline(shown, &e.to_string()))
}
