//! The request: span edits and operations, as the seed writes them.

use llm_ast_search::symbols::SymbolKind;
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

/// A block operation: which symbol, guarded how, and the new text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockOp {
    pub path: String,
    /// function (also matches methods), method, struct, enum, trait, impl,
    /// class, interface, … (llm-ast-search's kinds, case-insensitive; the
    /// short forms `fn`, `mod`, `type`, `const` too).
    #[serde(deserialize_with = "symbol_kind")]
    #[schemars(schema_with = "symbol_kind_schema")]
    pub kind: SymbolKind,
    pub name: String,
    /// Disambiguates by the enclosing symbols: `impl Agent`, `net/Client`.
    #[serde(default)]
    pub module_path: Option<String>,
    /// Picks the candidate nearest this line.
    #[serde(default)]
    pub line_hint: Option<usize>,
    /// SHA-256 of the block's current text: refuse if it changed.
    #[serde(default)]
    pub expected_old_hash: Option<String>,
    /// The block's current text, exactly: refuse if it differs.
    #[serde(default)]
    pub expected_old_block: Option<String>,
    /// Format the file with rustfmt afterwards (Rust).
    #[serde(default)]
    pub run_rustfmt: bool,
    /// Run `cargo check` afterwards and report its diagnostics.
    #[serde(default)]
    pub run_cargo_check: bool,
    /// replace_block: the whole new block.
    #[serde(default)]
    pub new_block: Option<String>,
    /// insert_after_block / insert_before_block: the text to insert.
    #[serde(default)]
    pub snippet: Option<String>,
}

/// A symbol kind as a request writes it: any case, short forms allowed.
fn symbol_kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SymbolKind, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(|e: aide_core::AideError| {
        serde::de::Error::custom(format!("{}{}", e.message, e.hint.map(|h| format!(" ({h})")).unwrap_or_default()))
    })
}

/// The kinds in both spellings the tools print (`function`, `Function`).
fn symbol_kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<String> = SymbolKind::ALL.iter().flat_map(|k| [k.snake_name(), k.name().to_string()]).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
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
    /// Replace a whole symbol (function, struct, impl, class…) with `new_block`.
    #[serde(alias = "rust_replace_block")]
    ReplaceBlock(BlockOp),
    /// Insert `snippet` on the line after a symbol.
    #[serde(alias = "rust_insert_after_block")]
    InsertAfterBlock(BlockOp),
    /// Insert `snippet` on the line before a symbol (and its attributes,
    /// decorators and doc comments).
    InsertBeforeBlock(BlockOp),
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

/// The name of what an operation report is about: an operation, or the
/// span edits of one file (`edits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OpName {
    Edits,
    Patch,
    ReplaceBlock,
    InsertAfterBlock,
    InsertBeforeBlock,
    Write,
    Delete,
    Rename,
}

impl OpName {
    pub fn as_str(self) -> &'static str {
        match self {
            OpName::Edits => "edits",
            OpName::Patch => "patch",
            OpName::ReplaceBlock => "replace_block",
            OpName::InsertAfterBlock => "insert_after_block",
            OpName::InsertBeforeBlock => "insert_before_block",
            OpName::Write => "write",
            OpName::Delete => "delete",
            OpName::Rename => "rename",
        }
    }
}

impl Operation {
    pub fn name(&self) -> OpName {
        match self {
            Operation::Patch { .. } => OpName::Patch,
            Operation::ReplaceBlock(_) => OpName::ReplaceBlock,
            Operation::InsertAfterBlock(_) => OpName::InsertAfterBlock,
            Operation::InsertBeforeBlock(_) => OpName::InsertBeforeBlock,
            Operation::Write { .. } => OpName::Write,
            Operation::Delete { .. } => OpName::Delete,
            Operation::Rename { .. } => OpName::Rename,
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Operation::ReplaceBlock(b) | Operation::InsertAfterBlock(b) | Operation::InsertBeforeBlock(b) => &b.path,
            Operation::Patch { path, .. }
            | Operation::Write { path, .. }
            | Operation::Delete { path, .. }
            | Operation::Rename { path, .. } => path,
        }
    }

    /// The block operation, if it is one.
    pub fn block(&self) -> Option<&BlockOp> {
        match self {
            Operation::ReplaceBlock(b) | Operation::InsertAfterBlock(b) | Operation::InsertBeforeBlock(b) => Some(b),
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
