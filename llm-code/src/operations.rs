//! What llm-code offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[
    Operation {
        name: "code_metrics",
        tool: "llm-code",
        command: &["metrics"],
        group: Group::Search,
        description: "Per function (outline name path and span) and per file: cyclomatic complexity (Python's as radon counts it), cognitive complexity (SonarSource's), lines, code lines, parameters, nesting. sort by a measure, min_cyclomatic to keep the complex ones.",
        effects: READS,
        output: &["functions"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
    Operation {
        name: "code_duplicates",
        tool: "llm-code",
        command: &["duplicates"],
        group: Group::Search,
        description: "Structurally duplicated code across the tree: runs of at least min_tokens tokens (default 50) and min_lines lines (6) equal once identifiers and literals are replaced by their kind; each clone once, whole, with every place's span and checksum.",
        effects: READS,
        output: &["duplicates"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
    Operation {
        name: "code_imports",
        tool: "llm-code",
        command: &["imports"],
        group: Group::Search,
        description: "Each file's imports (kind, module, names, alias, span: use/mod, import/from, import/require/import()/export-from, #include, Java and Go imports) and exports with their kinds (pub, public, export, capitalised, non-static; Python's __all__ as built, else the public names it binds at module level, under if/try too).",
        effects: READS,
        output: &["files"],
        mcp_defaults: &[],
        mcp: Mcp::DERIVED,
    },
];
