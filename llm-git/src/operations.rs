//! What llm-git offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[
    Operation {
        name: "git",
        tool: "llm-git",
        command: &["status|diff|log|blame|show"],
        group: Group::Git,
        description: "git as records: status, diff (hunks, lines with spans), log, blame (per line), show (a commit, or REV:PATH).",
        effects: READS,
        output: &["clean", "insertions", "commits", "-commits", "lines", "-lines", "shown"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
    Operation {
        name: "git_write",
        tool: "llm-git",
        command: &["add|commit|branch|restore"],
        group: Group::Git,
        description: "add, commit, branch (list, create, switch, delete: unmerged only with force), restore (from the index or source; undo: transform_undo).",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
        output: &["added", "-added", "committed", "branches", "-branches", "restored", "-restored"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
];
