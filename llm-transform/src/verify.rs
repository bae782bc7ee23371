//! `--verify` and `--verify-command`: an edit checked by the project's own
//! checkers (aide-checkers, as llm-lint runs them) or a command of its own,
//! and undone at once when it made things worse. The checkers run on the
//! tree before the commit and after it. The edit is refused when a checker
//! fails after it that did not before — judged by its exit status (or its
//! failing to run at all) — or says anything the tree did not have before:
//! new findings of any severity, each old one followed through its file's
//! line moves. A checker that cannot check the tree before the edit stops
//! the run with nothing written. A command must exit 0 after the edit. A
//! check that writes the project's files fails the edit whatever it says,
//! and what it wrote is put back with the edit ([`crate::watch`]).

use std::collections::BTreeMap;
use std::time::Duration;

use aide_checkers::{Checked, CheckerRun, Finding, Options, RunStatus, Severity};
use aide_core::tool::Context;
use aide_core::voice::say;
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::TransformError;

use crate::plan::FileState;
use crate::watch::{Watch, Written};

/// A checker or command run longer than this is killed, and the edit undone.
const TIMEOUT: Duration = Duration::from_secs(600);

/// What the request asks to verify.
#[derive(Debug, Clone, Default)]
pub(crate) struct Verify {
    /// The checkers, as llm-lint's `--checker` takes them (empty or `all`:
    /// every one the project uses); None: none.
    pub checkers: Option<Vec<String>>,
    pub command: Option<String>,
}

impl Verify {
    /// What `request` verifies after writing: `verify`, the old
    /// `cargo_check`, and an operation's `run_cargo_check` (`cargo_op`) add up.
    pub(crate) fn of(request: &crate::request::TransformRequest, cargo_op: bool) -> Verify {
        Verify::new(request.verify.as_deref(), request.cargo_check || cargo_op, request.verify_command.clone())
    }

    /// What a request asks: `verify` (its checkers), the old `cargo_check`
    /// or an operation's `run_cargo_check` (`cargo`: cargo too), and
    /// `verify_command`.
    pub(crate) fn new(verify: Option<&str>, cargo: bool, command: Option<String>) -> Verify {
        let mut checkers = verify.map(|v| vec![v.to_string()]);
        // Every checker the project uses already takes in cargo's errors.
        let auto = checkers.as_deref().is_some_and(|c| aide_checkers::selection::parse(c).is_ok_and(|s| s.auto));
        if cargo && !auto {
            checkers.get_or_insert_with(Vec::new).push("cargo".into());
        }
        Verify { checkers, command }
    }

    pub(crate) fn any(&self) -> bool {
        self.checkers.is_some() || self.command.is_some()
    }
}

/// What verification found, when the edit stands.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verified {
    /// The checkers run before and after the edit.
    pub checkers: Vec<String>,
    /// Error findings of the tree before the edit, and after.
    pub errors_before: usize,
    pub errors_after: usize,
    /// Findings of any severity before the edit.
    pub findings_before: usize,
    /// Findings of any severity after it (none of them new).
    pub findings_after: usize,
    /// The command run after the edit (it exited 0).
    pub command: Option<String>,
}

/// The tree before the edit: its findings, when checkers are asked for,
/// and its files, to see what a check writes.
pub(crate) struct Before {
    checked: Option<Checked>,
    watch: Watch,
}

/// The tree before the edit (`changed` not yet written), when anything is
/// to be verified. A checker that fails on the tree as it is cannot judge
/// the edit: nothing is written (and what it wrote is put back).
pub(crate) fn before(
    root: &Root,
    verify: &Verify,
    changed: &[&FileState],
    ctx: &Context,
) -> Result<Option<Before>, AideError> {
    if !verify.any() {
        return Ok(None);
    }
    let mut watch = Watch::take(root, changed, ctx)?;
    let Some(names) = &verify.checkers else { return Ok(Some(Before { checked: None, watch })) };
    let checked = aide_checkers::check(root, &options(names), ctx);
    let written = watch.put_back(changed, false);
    let checked = checked?;
    let failed = checked.failed().next();
    if failed.is_some() || !written.files.is_empty() {
        let name = failed.map_or("a checker", |c| c.checker.as_str());
        let why = match failed {
            Some(c) => c.reason.clone().unwrap_or_else(|| "it failed".into()),
            None => format!("it wrote to files ({})", written.files.join(", ")),
        };
        let details = json!({
            "checker": failed.map(|c| &c.checker),
            "exit_code": failed.and_then(|c| c.exit_code),
            "reason": failed.and_then(|c| c.reason.as_ref()),
            "stderr_tail": failed.and_then(|c| c.stderr_tail.as_ref()),
            "written_by_check": written.files,
            "not_restored": written.not_restored,
        });
        let checker = name.to_string();
        return Err(
            TransformError::CheckerFailedBefore { checker, why, put_back: put_back_note(&written), details }.into()
        );
    }
    Ok(Some(Before { checked: Some(checked), watch }))
}

/// What is said of files a check wrote: put back, or some left as it left them.
fn put_back_note(written: &Written) -> String {
    match (written.files.is_empty(), written.not_restored.as_slice()) {
        (true, _) => String::new(),
        (false, []) => "; what the check wrote was put back".into(),
        (false, left) => format!(
            "; what the check wrote was put back but for {} (too large to have been kept: left as it left them)",
            left.join(", ")
        ),
    }
}

fn options(names: &[String]) -> Options {
    Options { checkers: names.to_vec(), only: None, timeout: Some(TIMEOUT) }
}

/// Why an applied edit must be undone: the error with its details.
pub(crate) struct Failed(pub AideError);

impl Failed {
    /// The refusal of an edit that could not be undone after all (`why`):
    /// it stands, unverified.
    pub(crate) fn not_undone(self, why: AideError) -> AideError {
        let Failed(mut error) = self;
        let message = error.message;
        error.message = say(|v| {
            format!("{}; but undoing it failed ({}): the edit stands, unverified", message.get(v), why.message.get(v))
        });
        error.hint = Some(say(|v| {
            format!(
                "undo it by hand once {} is resolved: {} (this run's execution_id)",
                why.hint.as_ref().map_or("that", |h| h.get(v)),
                v.op(crate::operations::UNDO)
            )
        }));
        if let Some(details) = error.details.as_deref_mut().and_then(serde_json::Value::as_object_mut) {
            details.insert("undone".into(), json!(false));
            details.insert("undo_error".into(), json!({ "code": why.code.name, "message": &*why.message }));
        }
        error
    }
}

/// Whether a checker's run is a failure of the checker: it did not pass
/// (as its exit status says) or could not run to a reading.
fn fails(run: &CheckerRun) -> bool {
    run.status == RunStatus::Failed || run.passed == Some(false)
}

/// The checkers that fail after the edit and did not before.
fn newly_failing<'a>(before: &Checked, now: &'a Checked) -> Vec<&'a CheckerRun> {
    now.checkers
        .iter()
        .filter(|c| fails(c) && !before.checkers.iter().any(|b| b.checker == c.checker && fails(b)))
        .collect()
}

/// How a newly failing checker fails, in a sentence.
fn failure(run: &CheckerRun, before: &Checked) -> String {
    if run.status == RunStatus::Failed {
        return format!("{} failed ({})", run.checker, run.reason.as_deref().unwrap_or("no reason given"));
    }
    let exit = |code: Option<i32>| code.map(|c| format!(", exit {c}")).unwrap_or_default();
    let was = match before.checkers.iter().find(|b| b.checker == run.checker && b.status == RunStatus::Ran) {
        Some(b) => format!("it passed before{}", exit(b.exit_code)),
        None => "it had nothing to check before".to_string(),
    };
    format!("{} fails now{} ({was})", run.checker, exit(run.exit_code))
}

/// Checks the committed edit. `Err(Failed)`: it must be undone (every
/// file a check wrote is put back first, an edited one to what the commit
/// wrote).
pub(crate) fn after(
    root: &Root,
    verify: &Verify,
    before: Before,
    changed: &[&FileState],
    ctx: &Context,
) -> Result<Verified, Failed> {
    let Before { checked: before, mut watch } = before;
    let mut verified = Verified {
        checkers: Vec::new(),
        errors_before: 0,
        errors_after: 0,
        findings_before: 0,
        findings_after: 0,
        command: None,
    };
    if let (Some(names), Some(before)) = (&verify.checkers, before.as_ref()) {
        let now = aide_checkers::check(root, &options(names), ctx);
        let written = watch.put_back(changed, true);
        let now = now.map_err(Failed)?;
        verified.checkers = now.checkers.iter().map(|c| c.checker.clone()).collect();
        let errors = |findings: &[Finding]| findings.iter().filter(|f| f.severity == Severity::Error).count();
        verified.errors_before = errors(&before.findings);
        verified.errors_after = errors(&now.findings);
        verified.findings_before = before.findings.len();
        verified.findings_after = now.findings.len();
        let fresh = new_findings(before, &now, changed);
        let failing = newly_failing(before, &now);
        if !fresh.is_empty() || !failing.is_empty() || !written.files.is_empty() {
            return Err(Failed(refusal(&fresh, &failing, before, &verified.checkers, &written)));
        }
    }
    if let Some(line) = &verify.command {
        let ran = run_command(root, line, ctx);
        let written = watch.put_back(changed, true);
        let ran = ran?;
        if !written.files.is_empty() || ran.exit_code != Some(0) {
            return Err(Failed(command_refusal(line, &ran, &written)));
        }
        verified.command = Some(line.clone());
    }
    Ok(verified)
}

/// The error of an edit refused: what it added, which checkers it made fail.
fn refusal(
    fresh: &[Finding],
    failing: &[&CheckerRun],
    before: &Checked,
    checkers: &[String],
    written: &Written,
) -> AideError {
    let mut said: Vec<String> = failing.iter().map(|c| failure(c, before)).collect();
    if !written.files.is_empty() {
        said.insert(
            0,
            format!("a checker wrote to files ({}): a check must not change them", written.files.join(", ")),
        );
    }
    if !fresh.is_empty() {
        let shown: Vec<String> = fresh
            .iter()
            .take(3)
            .map(|f| format!("{}:{}: {}", f.path, f.line, f.message.lines().next().unwrap_or("")))
            .collect();
        said.insert(0, format!("the edit added {} finding(s) ({})", fresh.len(), shown.join("; ")));
    }
    let failing: Vec<_> = failing
        .iter()
        .map(|c| {
            let was = before.checkers.iter().find(|b| b.checker == c.checker);
            json!({
                "checker": c.checker,
                "exit_code_before": was.and_then(|b| b.exit_code),
                "exit_code": c.exit_code,
                "status": c.status,
                "reason": c.reason,
                "stderr_tail": c.stderr_tail,
            })
        })
        .collect();
    let details = json!({
        "new_findings": fresh,
        "failing": failing,
        "checkers": checkers,
        "rewritten_by_checker": written.edited,
        "written_by_check": written.files,
        "not_restored": written.not_restored,
        "undone": true,
    });
    TransformError::VerificationFailed { said: said.join("; "), put_back: put_back_note(written), details }.into()
}

/// The findings after the edit that the tree did not have before, each old
/// one followed to where its line moved in the edited files.
fn new_findings(before: &Checked, now: &Checked, changed: &[&FileState]) -> Vec<Finding> {
    let moves: BTreeMap<&str, BTreeMap<usize, usize>> = changed
        .iter()
        .map(|f| {
            let (old, new) = (f.original.as_deref().unwrap_or_default(), f.current.as_deref().unwrap_or_default());
            (f.rel.as_str(), aide_checkers::baseline::line_moves(old, new))
        })
        .collect();
    let moved = |path: &str, line: usize| match moves.get(path) {
        Some(m) => m.get(&line).copied(),
        None => Some(line),
    };
    aide_checkers::baseline::new_since(now.findings.clone(), &before.findings, &moved)
}

/// Runs the verify command in the root.
fn run_command(root: &Root, line: &str, ctx: &Context) -> Result<aide_checkers::run::Ran, Failed> {
    let command = aide_gate::Launch::new("verify command", "bash", root.path()).args(["-c", line]);
    aide_checkers::run::run("the verify command", command, Some(TIMEOUT), ctx).map_err(|e| Failed(AideError::from(e)))
}

/// The refusal of an edit after which the verify command failed or wrote
/// to files.
fn command_refusal(line: &str, ran: &aide_checkers::run::Ran, written: &Written) -> AideError {
    let code = ran.exit_code.map_or_else(|| "a signal".to_string(), |c| format!("exit {c}"));
    let what = if written.files.is_empty() {
        format!("the verify command failed after the edit ({code})")
    } else {
        format!(
            "the verify command wrote to files ({}; {code}): a check must not change them",
            written.files.join(", ")
        )
    };
    let details = json!({
        "command": line,
        "exit_code": ran.exit_code,
        "stdout_tail": aide_checkers::run::tail(&ran.stdout),
        "stderr_tail": aide_checkers::run::tail(&ran.stderr),
        "written_by_check": written.files,
        "not_restored": written.not_restored,
        "undone": true,
    });
    TransformError::VerifyCommandFailed { what, put_back: put_back_note(written), details }.into()
}
