//! What a command will do, step by step, and how risky each step is — from
//! the syntax tree, before anything runs.
//!
//! Risk is advice, not a wall: `low` is kept for commands every part of
//! which is on the read-only list (`allow`); the per-program rules
//! (`rules`) rate deletions, devices, privileges and the like `medium` to
//! `critical`; whatever cannot be seen statically is at least `high`. What
//! confines a command that runs is the sandbox, not this analysis.

mod allow;
mod describe;
pub(crate) mod risk;
mod rules;
mod surroundings;
mod walker;
mod words;

use std::path::Path;

use aide_core::AideError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::estimate::Estimate;
pub use risk::{Risk, Step};
pub use rules::static_word;
pub use surroundings::Surroundings;

use crate::syntax;
use risk::risk_of_steps;

/// A ShellCheck finding.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    pub code: i64,
    pub level: String,
    pub message: String,
    pub line: i64,
    pub column: i64,
}

/// The result of `llm-shell explain`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExplainOutput {
    pub command: String,
    pub explanation: String,
    pub steps: Vec<Step>,
    pub overall_risk: Risk,
    /// Every reason of every step, deduplicated.
    pub risk_reasons: Vec<String>,
    /// Constructs that often do something other than intended.
    pub warnings: Vec<String>,
    /// ShellCheck's findings, when shellcheck is installed (None otherwise).
    pub shellcheck: Option<Vec<Finding>>,
    /// How long it took before: its last successful execs (up to 10) that
    /// ended in this directory, from the execution log; null when there are
    /// none (`no_estimate` says why), never a guess.
    pub estimate: Option<Estimate>,
    /// Why there is no estimate (null when there is one).
    pub no_estimate: Option<String>,
}

/// Explains `command` as it would run in `cwd` in a fresh shell of this
/// process's environment. Refuses a command nested too deep to walk
/// (`input_too_deep`) or that does not parse (`invalid_arguments`).
pub fn explain(command: &str, cwd: &Path) -> Result<ExplainOutput, AideError> {
    explain_in(command, &Surroundings::of_this_process(cwd))
}

/// Explains `command` as it would run among `env` (a session's `PATH` and
/// the functions and aliases it defined).
pub fn explain_in(command: &str, env: &Surroundings) -> Result<ExplainOutput, AideError> {
    let mut w = walked(command, env)?;
    let (overall_risk, risk_reasons) = risk_of_steps(&w.steps);
    // ShellCheck takes minutes on a 100,000-step pipeline: past a size, it is left out, and said so.
    let shellcheck = if command.len() <= MAX_SHELLCHECK_BYTES {
        shellcheck(command)
    } else {
        w.warnings.push(format!("ShellCheck was not run: the command is over {} KiB", MAX_SHELLCHECK_BYTES >> 10));
        None
    };
    Ok(ExplainOutput {
        command: command.to_string(),
        explanation: summary(&w.steps),
        steps: w.steps,
        overall_risk,
        risk_reasons,
        warnings: w.warnings,
        shellcheck,
        estimate: None,
        no_estimate: None,
    })
}

/// The risk of `command` among `env`, with its reasons: what `explain`
/// rates, without the rest (ShellCheck is not run).
pub fn rate(command: &str, env: &Surroundings) -> Result<(Risk, Vec<String>), AideError> {
    Ok(risk_of_steps(&walked(command, env)?.steps))
}

/// `command` walked step by step (refused when nested too deep or unparsable).
fn walked<'a>(command: &str, env: &'a Surroundings) -> Result<walker::Walker<'a>, AideError> {
    aide_core::text::check_depth("the command", syntax::nesting_depth(command))?;
    let mut w = walker::walk(command, env)?;
    if command.contains(":(){") || command.contains(": (){") {
        mark_fork_bomb(&mut w.steps);
    }
    Ok(w)
}

fn mark_fork_bomb(steps: &mut [Step]) {
    if let Some(s) = steps.first_mut() {
        s.estimated_risk = Risk::Critical;
        s.risk_reasons.push("fork bomb: a function that pipes into itself in the background".into());
    }
}

fn summary(steps: &[Step]) -> String {
    match steps.len() {
        0 => "This command does nothing.".into(),
        1 => format!("One command: {}.", steps[0].description),
        n => {
            let conditional = steps.iter().any(|s| s.will_execute_if.starts_with("previous"));
            let piped = steps.iter().any(|s| s.will_execute_if.starts_with("in a pipeline"));
            let how = match (conditional, piped) {
                (true, true) => "connected by pipes and by && / ||",
                (true, false) => "connected by && / ||, so later ones depend on earlier ones' exit codes",
                (false, true) => "connected by pipes, running at the same time",
                (false, false) => "run one after another",
            };
            format!("{n} commands {how}.")
        }
    }
}

/// The longest command ShellCheck is asked about.
const MAX_SHELLCHECK_BYTES: usize = 64 << 10;

/// ShellCheck's findings for `command`, if shellcheck is installed.
fn shellcheck(command: &str) -> Option<Vec<Finding>> {
    let out = aide_gate::Launch::new("checker", "shellcheck", std::env::temp_dir())
        .args(["--format=json", "--shell=bash", "-"])
        .input(command.as_bytes().to_vec())
        .timeout(Some(std::time::Duration::from_secs(30)))
        .run()
        .ok()?;
    serde_json::from_slice::<Vec<Finding>>(&out.stdout).ok()
}

#[cfg(test)]
mod tests;
