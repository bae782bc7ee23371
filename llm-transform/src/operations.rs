//! What llm-transform offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[
    Operation {
        name: "transform",
        tool: "llm-transform",
        command: &[],
        group: Group::Edit,
        description: "All-or-nothing, checksum-guarded edits of text, lines, spans, symbol blocks, diffs, files, directories; across the tree: replace_regex, replace_matches, rewrite, rename_symbol. Refuses new syntax errors.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
        output: &["applied"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp { leaves_out: &["command"], ..aide_core::operation::Mcp::DERIVED },
    },
    Operation {
        name: "transform_refactor",
        tool: "llm-transform",
        command: &["refactor"],
        group: Group::Edit,
        description: "The file's language server refactors a place: extract_variable, extract_function, inline, organize_imports…, its edit applied as given, guarded and undoable. Without action: what it offers there and the file's checksum. Place: line:column to end_line:end_column, end exclusive; end_line defaults to line, end_column to its text's end (line alone: the whole line).",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
        output: &["applied", "actions"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
    Operation {
        name: "transform_undo",
        tool: "llm-transform",
        command: &["undo"],
        group: Group::Edit,
        description: "Restores what transforms changed (by execution_id, or the last N), unless the files changed since.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
        output: &["undone"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
    Operation {
        name: "transform_recover",
        tool: "llm-transform",
        command: &["recover"],
        group: Group::Edit,
        description: "Finishes or rolls back interrupted transforms (every transform does this first).",
        effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
        output: &["recovered"],
        mcp_defaults: &[],
        mcp: aide_core::operation::Mcp::DERIVED,
    },
];

/// The undo operation, as undo lines and hints name it: `llm-transform undo`
/// on the command line, `transform_undo` over MCP.
pub const UNDO: &Operation = named(OPERATIONS, "transform_undo");
