//! What llm-lint offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[Operation {
    name: "lint",
    tool: "llm-lint",
    command: &[],
    group: Group::Edit,
    description: "Runs the project's checkers (clippy, ruff, mypy, pyright, tsc, eslint, go vet, shellcheck, …) and a syntax check: findings with spans, codes, fixes.",
    effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
    output: &["findings"],
    mcp_defaults: &[],
    mcp: aide_core::operation::Mcp::DERIVED,
}];
