//! What aide offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[
    Operation {
        name: "log_list",
        tool: "aide",
        command: &["log", "list"],
        group: Group::Log,
        description: "Recent runs of aide's tools, newest first, with execution ids.",
        effects: READS,
        output: &["runs"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
    Operation {
        name: "log_show",
        tool: "aide",
        command: &["log", "show"],
        group: Group::Log,
        description: "A past run's result by execution_id, as printed.",
        effects: READS,
        output: &[],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp { stored_result: true, ..aide_core::operation::Mcp::DERIVED },
    },
    Operation {
        name: "log_stats",
        tool: "aide",
        command: &["log", "stats"],
        group: Group::Log,
        description: "Calls, errors, error rate and p50/p95 latency per tool, from the execution log.",
        effects: READS,
        output: &["per_tool"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
    Operation {
        name: "log_prune",
        tool: "aide",
        command: &["log", "prune"],
        group: Group::Log,
        description: "Removes old runs from the execution log.",
        effects: REMOVES,
        output: &["remaining"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
];
