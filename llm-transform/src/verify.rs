//! `--verify` and `--verify-command`: an edit checked by the project's own
//! checkers (aide-checkers, as llm-lint runs them) or a command of its own,
//! and undone at once when it made things worse. The checkers run on the
//! tree before the commit and after it; only error findings the tree did
//! not have (followed through each edited file's line moves) count. A
//! command must exit 0 after the edit.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use aide_checkers::{Checked, Finding, Options, Severity};
use aide_core::tool::Context;
use aide_core::{AideError, Root};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::plan::FileState;

/// A checker or command run longer than this is killed, and the edit undone.
const TIMEOUT: Duration = Duration::from_secs(600);

/// What the request asks to verify.
#[derive(Debug, Clone, Default)]
pub struct Verify {
    /// The checkers (empty: every one the project uses); None: none.
    pub checkers: Option<Vec<String>>,
    pub command: Option<String>,
}

impl Verify {
    pub fn any(&self) -> bool {
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
    /// The command run after the edit (it exited 0).
    pub command: Option<String>,
}

/// The tree's findings before the edit, when checkers are asked for.
pub fn before(root: &Root, verify: &Verify, ctx: &Context) -> Result<Option<Checked>, AideError> {
    match &verify.checkers {
        Some(names) => Ok(Some(aide_checkers::check(root, &options(names), ctx)?)),
        None => Ok(None),
    }
}

fn options(names: &[String]) -> Options {
    Options { checkers: names.to_vec(), only: None, timeout: Some(TIMEOUT) }
}

/// Why an applied edit must be undone: the error with its details.
pub struct Failed(pub AideError);

/// Checks the committed edit. `Err(Failed)`: it must be undone.
pub fn after(
    root: &Root,
    verify: &Verify,
    before: Option<&Checked>,
    changed: &[&FileState],
    ctx: &Context,
) -> Result<Verified, Failed> {
    let mut verified = Verified { checkers: Vec::new(), errors_before: 0, errors_after: 0, command: None };
    if let (Some(names), Some(before)) = (&verify.checkers, before) {
        let now = aide_checkers::check(root, &options(names), ctx).map_err(Failed)?;
        verified.checkers = now.checkers.iter().map(|c| c.checker.clone()).collect();
        let errors = |findings: &[Finding]| {
            findings.iter().filter(|f| f.severity == Severity::Error).cloned().collect::<Vec<_>>()
        };
        let (was, is) = (errors(&before.findings), errors(&now.findings));
        verified.errors_before = was.len();
        verified.errors_after = is.len();
        let moves: BTreeMap<&str, BTreeMap<usize, usize>> = changed
            .iter()
            .map(|f| {
                let old = String::from_utf8_lossy(f.original.as_deref().unwrap_or_default()).into_owned();
                let new = String::from_utf8_lossy(f.current.as_deref().unwrap_or_default()).into_owned();
                (f.rel.as_str(), aide_checkers::baseline::line_moves(&old, &new))
            })
            .collect();
        let moved = |path: &str, line: usize| match moves.get(path) {
            Some(m) => m.get(&line).copied(),
            None => Some(line),
        };
        let fresh = aide_checkers::baseline::new_since(is, &was, &moved);
        if !fresh.is_empty() {
            let shown: Vec<String> = fresh
                .iter()
                .take(3)
                .map(|f| format!("{}:{}: {}", f.path, f.line, f.message.lines().next().unwrap_or("")))
                .collect();
            return Err(Failed(
                AideError::new(
                    aide_core::code::VERIFICATION_FAILED,
                    format!("the edit added {} error(s) ({}); it was undone", fresh.len(), shown.join("; ")),
                )
                .with_hint("nothing remains changed: fix the edit (details.new_findings says where) and send it again")
                .with_details(json!({ "new_findings": fresh, "checkers": verified.checkers, "undone": true })),
            ));
        }
    }
    if let Some(line) = &verify.command {
        let mut command = Command::new("bash");
        command.args(["-c", line]).current_dir(root.path());
        let ran = aide_checkers::run::run("the verify command", command, Some(TIMEOUT), ctx)
            .map_err(|e| Failed(AideError::from(e)))?;
        if ran.exit_code != Some(0) {
            let code = ran.exit_code.map_or_else(|| "a signal".to_string(), |c| format!("exit {c}"));
            return Err(Failed(
                AideError::new(
                    aide_core::code::VERIFICATION_FAILED,
                    format!("the verify command failed after the edit ({code}); the edit was undone"),
                )
                .with_hint("nothing remains changed: see details for the command's output")
                .with_details(json!({
                    "command": line,
                    "exit_code": ran.exit_code,
                    "stdout_tail": aide_checkers::run::tail(&ran.stdout),
                    "stderr_tail": aide_checkers::run::tail(&ran.stderr),
                    "undone": true,
                })),
            ));
        }
        verified.command = Some(line.clone());
    }
    Ok(verified)
}
