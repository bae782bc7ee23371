//! Risk levels and the steps they are given to.

use schemars::JsonSchema;
use serde::Serialize;

/// The risk levels, shared with every host that caps them (`aide mcp --max-risk`).
pub use aide_core::govern::Risk;

/// One command of the program.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Step {
    pub step: usize,
    pub command: String,
    pub program: Option<String>,
    pub description: String,
    /// always, previous succeeds, previous fails, in a pipeline with step N, …
    pub will_execute_if: String,
    pub estimated_risk: Risk,
    pub risk_reasons: Vec<String>,
}

/// The highest risk of `steps` and their reasons, each once.
pub(crate) fn risk_of_steps(steps: &[Step]) -> (Risk, Vec<String>) {
    let overall = steps.iter().map(|s| s.estimated_risk).max().unwrap_or_default();
    let mut reasons: Vec<String> = Vec::new();
    for r in steps.iter().flat_map(|s| s.risk_reasons.iter()) {
        if !reasons.contains(r) {
            reasons.push(r.clone());
        }
    }
    (overall, reasons)
}
