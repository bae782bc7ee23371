//! Risk levels and the steps they are given to.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Estimated risk, ordered.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

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
pub fn risk_of_steps(steps: &[Step]) -> (Risk, Vec<String>) {
    let overall = steps.iter().map(|s| s.estimated_risk).max().unwrap_or_default();
    let mut reasons: Vec<String> = Vec::new();
    for r in steps.iter().flat_map(|s| s.risk_reasons.iter()) {
        if !reasons.contains(r) {
            reasons.push(r.clone());
        }
    }
    (overall, reasons)
}
