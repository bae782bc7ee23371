//! What llm-deps offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

/// Asks the registries over the network; changes nothing.
const ASKS_REGISTRIES: Effects = Effects { read_only: true, destructive: false, idempotent: true, open_world: true };

pub(crate) const OPERATIONS: &[Operation] = &[
    Operation {
        name: "deps_list",
        tool: "llm-deps",
        command: &["list"],
        group: Group::Deps,
        description: "The project's resolved packages from its lock files (Cargo, npm/pnpm/yarn, uv/poetry/requirements, go.mod): version, direct or transitive, dev, where declared (manifest and line).",
        effects: READS,
        output: &["packages"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
    Operation {
        name: "deps_tree",
        tool: "llm-deps",
        command: &["tree"],
        group: Group::Deps,
        description: "The dependency tree of each of the project's own packages, from its lock files, as nodes with their depth.",
        effects: READS,
        output: &["nodes"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
    Operation {
        name: "deps_outdated",
        tool: "llm-deps",
        command: &["outdated"],
        group: Group::Deps,
        description: "Direct dependencies with newer versions: current, wanted (the newest the requirement allows), latest; asks crates.io, npm, PyPI and the Go module proxy (network_unavailable when none answers).",
        effects: ASKS_REGISTRIES,
        output: &["outdated"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
    Operation {
        name: "deps_audit",
        tool: "llm-deps",
        command: &["audit"],
        group: Group::Deps,
        description: "Resolved packages named by a local advisory database (RustSec advisory-db or OSV files, advisory_db or $AIDE_ADVISORY_DB); says `not_configured` when none is given.",
        effects: READS,
        output: &["vulnerabilities"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
];
