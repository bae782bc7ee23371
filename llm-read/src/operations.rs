//! What llm-read offers, operation by operation: the catalogue, `aide mcp`
//! and the errors that name an operation in the caller's words read it here.

use aide_core::operation::*;

pub(crate) const OPERATIONS: &[Operation] = &[Operation {
    name: "read",
    tool: "llm-read",
    command: &[],
    group: Group::Search,
    description: "Reads the lines of files (the first is start_line) and each file's checksum (transform's checksum_before), by lines (10:20) or offset and limit; a directory: its entries and tree_checksum.",
    effects: READS,
    output: &[],
    mcp_defaults: &[],
    mcp: aide_core::operation::Mcp::DERIVED,
}];
