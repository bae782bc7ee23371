//! The request: span edits and operations, as the seed writes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A byte-span edit (the seed's form). `path` may be left out with `--file`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpanEdit {
    #[serde(default)]
    pub path: Option<String>,
    pub byte_start: usize,
    pub byte_end: usize,
    pub replacement: String,
    /// SHA-256 of the whole file before the edit (llm-read's `checksum`).
    #[serde(default)]
    pub checksum_before: Option<String>,
}

/// Which block an operation targets.
#[derive(Debug, Clone, Default)]
pub struct BlockTarget {
    /// function (also matches methods), method, struct, enum, trait, impl,
    /// class, interface, … (llm-ast-search's kinds, case-insensitive).
    pub kind: String,
    pub name: String,
    /// Disambiguates by the enclosing symbols: `impl Agent`, `net/Client`.
    pub module_path: Option<String>,
    /// Picks the candidate nearest this line.
    pub line_hint: Option<usize>,
    /// SHA-256 of the block's current text: refuse if it changed.
    pub expected_old_hash: Option<String>,
    /// The block's current text, exactly: refuse if it differs.
    pub expected_old_block: Option<String>,
    /// Format the file with rustfmt afterwards (Rust).
    pub run_rustfmt: bool,
    /// Run `cargo check` afterwards and report its diagnostics.
    pub run_cargo_check: bool,
}

/// One operation. `op` names it; the seed's `rust_replace_block` and
/// `rust_insert_after_block` are accepted as written.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Operation {
    /// Replace `old_text` with `new_text`: exactly one match unless `replace_all`.
    Patch {
        path: String,
        old_text: String,
        new_text: String,
        #[serde(default)]
        replace_all: bool,
        /// Match ignoring differences in whitespace (reported when used).
        #[serde(default)]
        fuzzy: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Replace a whole symbol (function, struct, impl, class…).
    #[serde(alias = "rust_replace_block")]
    ReplaceBlock {
        path: String,
        /// function (also matches methods), method, struct, enum, trait, impl, class, interface…
        kind: String,
        name: String,
        /// Disambiguates by the enclosing symbols: `impl Agent`, `net/Client`.
        #[serde(default)]
        module_path: Option<String>,
        /// Picks the candidate nearest this line.
        #[serde(default)]
        line_hint: Option<usize>,
        /// SHA-256 of the block's current text: refuse if it changed.
        #[serde(default)]
        expected_old_hash: Option<String>,
        /// The block's current text, exactly: refuse if it differs.
        #[serde(default)]
        expected_old_block: Option<String>,
        /// Format the file with rustfmt afterwards (Rust).
        #[serde(default)]
        run_rustfmt: bool,
        /// Run `cargo check` afterwards and report its diagnostics.
        #[serde(default)]
        run_cargo_check: bool,
        new_block: String,
    },
    /// Insert `snippet` on the line after a symbol.
    #[serde(alias = "rust_insert_after_block")]
    InsertAfterBlock {
        path: String,
        /// function (also matches methods), method, struct, enum, trait, impl, class, interface…
        kind: String,
        name: String,
        /// Disambiguates by the enclosing symbols: `impl Agent`, `net/Client`.
        #[serde(default)]
        module_path: Option<String>,
        /// Picks the candidate nearest this line.
        #[serde(default)]
        line_hint: Option<usize>,
        /// SHA-256 of the block's current text: refuse if it changed.
        #[serde(default)]
        expected_old_hash: Option<String>,
        /// The block's current text, exactly: refuse if it differs.
        #[serde(default)]
        expected_old_block: Option<String>,
        /// Format the file with rustfmt afterwards (Rust).
        #[serde(default)]
        run_rustfmt: bool,
        /// Run `cargo check` afterwards and report its diagnostics.
        #[serde(default)]
        run_cargo_check: bool,
        snippet: String,
    },
    /// Insert `snippet` on the line before a symbol (and its attributes,
    /// decorators and doc comments).
    InsertBeforeBlock {
        path: String,
        /// function (also matches methods), method, struct, enum, trait, impl, class, interface…
        kind: String,
        name: String,
        /// Disambiguates by the enclosing symbols: `impl Agent`, `net/Client`.
        #[serde(default)]
        module_path: Option<String>,
        /// Picks the candidate nearest this line.
        #[serde(default)]
        line_hint: Option<usize>,
        /// SHA-256 of the block's current text: refuse if it changed.
        #[serde(default)]
        expected_old_hash: Option<String>,
        /// The block's current text, exactly: refuse if it differs.
        #[serde(default)]
        expected_old_block: Option<String>,
        /// Format the file with rustfmt afterwards (Rust).
        #[serde(default)]
        run_rustfmt: bool,
        /// Run `cargo check` afterwards and report its diagnostics.
        #[serde(default)]
        run_cargo_check: bool,
        snippet: String,
    },
    /// Create or overwrite a file (guarded by `checksum_before` when it exists).
    Write {
        path: String,
        content: String,
        #[serde(default)]
        create_dirs: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Delete a file.
    Delete {
        path: String,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Rename a file; the new path must not exist.
    Rename {
        path: String,
        to: String,
        #[serde(default)]
        create_dirs: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
}

impl Operation {
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Patch { .. } => "patch",
            Operation::ReplaceBlock { .. } => "replace_block",
            Operation::InsertAfterBlock { .. } => "insert_after_block",
            Operation::InsertBeforeBlock { .. } => "insert_before_block",
            Operation::Write { .. } => "write",
            Operation::Delete { .. } => "delete",
            Operation::Rename { .. } => "rename",
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Operation::Patch { path, .. }
            | Operation::ReplaceBlock { path, .. }
            | Operation::InsertAfterBlock { path, .. }
            | Operation::InsertBeforeBlock { path, .. }
            | Operation::Write { path, .. }
            | Operation::Delete { path, .. }
            | Operation::Rename { path, .. } => path,
        }
    }

    /// The block an operation targets, if it is a block operation.
    pub fn target(&self) -> Option<BlockTarget> {
        match self {
            Operation::ReplaceBlock {
                kind,
                name,
                module_path,
                line_hint,
                expected_old_hash,
                expected_old_block,
                run_rustfmt,
                run_cargo_check,
                ..
            }
            | Operation::InsertAfterBlock {
                kind,
                name,
                module_path,
                line_hint,
                expected_old_hash,
                expected_old_block,
                run_rustfmt,
                run_cargo_check,
                ..
            }
            | Operation::InsertBeforeBlock {
                kind,
                name,
                module_path,
                line_hint,
                expected_old_hash,
                expected_old_block,
                run_rustfmt,
                run_cargo_check,
                ..
            } => Some(BlockTarget {
                kind: kind.clone(),
                name: name.clone(),
                module_path: module_path.clone(),
                line_hint: *line_hint,
                expected_old_hash: expected_old_hash.clone(),
                expected_old_block: expected_old_block.clone(),
                run_rustfmt: *run_rustfmt,
                run_cargo_check: *run_cargo_check,
            }),
            _ => None,
        }
    }
}

/// The body of an `--edits` file: span edits and operations.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EditsDocument {
    /// The file span edits without a `path` apply to.
    pub file: Option<String>,
    pub edits: Vec<SpanEdit>,
    pub operations: Vec<Operation>,
}
