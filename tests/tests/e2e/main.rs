//! End-to-end tests: the real binaries on temporary trees, their JSON parsed
//! into typed structs.
// Test helpers may unwrap: a panic is how a test fails.
#![allow(clippy::unwrap_used)]
// The tests start the real binaries and their oracles themselves, not through the gate.
#![allow(clippy::disallowed_methods)]

mod ast;
mod ast_outline;
mod ast_surface;
mod ast_text;
mod bounds;
mod callers;
mod cancel;
mod catalogue;
mod code;
mod code_actions;
mod code_imports;
mod contract;
mod deps;
mod directories;
mod discover;
mod gate;
mod git;
mod git_branch_delete;
mod git_gate;
mod git_merge;
mod house;
mod index;
mod jobs;
mod jobs_pause;
mod jobs_pueue;
mod keeper;
mod lint;
mod log;
mod lsp;
mod mcp;
mod mcp_confinement;
mod mcp_face;
mod mcp_sdk;
mod mcp_structured;
mod name_paths;
mod otel;
mod otel_config;
mod otel_seams;
mod otel_spans;
mod patch;
mod plant;
mod policy;
mod pty;
mod quiet;
mod read;
mod read_session;
mod readme;
mod recovery;
mod refactor;
mod rename_members;
mod rename_symbols;
mod safety;
mod sandbox;
mod schemas;
mod search;
mod search_differential;
mod search_exact;
mod search_matrix;
pub(crate) mod shell;
mod shell_estimate;
mod shell_input;
mod shell_limits;
mod snapshots;
mod terminal;
mod transform;
mod transform_languages;
mod verify;
mod voice;
mod walls;
