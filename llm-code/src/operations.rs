//! What llm-code offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[Operation {
    name: "code_metrics",
    tool: "llm-code",
    command: &["metrics"],
    group: Group::Search,
    description: "Per function (outline name path and span) and per file: cyclomatic complexity (Python's as radon counts it), cognitive complexity (SonarSource's), lines, code lines, parameters, nesting. sort by a measure, min_cyclomatic to keep the complex ones.",
    effects: READS,
    output: &["functions"],
    mcp_defaults: &[],
    mcp: Mcp::DERIVED,
}];
