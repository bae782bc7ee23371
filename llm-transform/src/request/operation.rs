//! A transform's operations and span edits, as the seed writes them.

use llm_ast_search::SymbolKind;
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
    /// Its kind (function matches methods). Any case, and the
    /// short forms `fn`, `mod`, `type`, `const`, as llm-ast-search names
    /// them. Only to pick one of several symbols the name fits.
    #[serde(default, deserialize_with = "symbol_kind")]
    #[schemars(schema_with = "symbol_kind_schema")]
    pub kind: Option<SymbolKind>,
    /// Its name path (`Agent/run`). Or its name alone, or the
    /// name path spelled looser: `::` for `/`, generics left out.
    pub name: String,
    /// Enclosing symbols (`impl Agent`). To pick one of several. A name
    /// path (`impl Agent/run`) says it: not shown to a model.
    #[serde(default)]
    #[schemars(extend("x-hidden" = true))]
    pub module_path: Option<String>,
    /// A line of it, or near it. Picks the nearest candidate.
    #[serde(default)]
    pub line_hint: Option<usize>,
    /// The block's SHA-256 now. A block that changed is refused. No tool
    /// prints it: `expected_old_block` is a model's guard, and this one is
    /// not shown to a model.
    #[serde(default)]
    #[schemars(extend("x-hidden" = true))]
    pub expected_old_hash: Option<String>,
    /// The block's text now. A block that differs is refused.
    #[serde(default)]
    pub expected_old_block: Option<String>,
    /// rustfmt the file after (Rust). The request's `rustfmt` says it for
    /// every file: not shown to a model.
    #[serde(default)]
    #[schemars(extend("x-hidden" = true))]
    pub run_rustfmt: bool,
    /// The old name of `verify: "cargo"` (an edit that adds errors is undone).
    #[serde(default)]
    #[schemars(skip)]
    pub run_cargo_check: bool,
    /// For replace_signature: the new head.
    #[serde(default, alias = "new_signature")]
    pub new_block: Option<String>,
    #[serde(default)]
    pub snippet: Option<String>,
}

/// A symbol kind as a request writes it: any case, short forms allowed;
/// absent or null when the name alone says which symbol.
fn symbol_kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<SymbolKind>, D::Error> {
    let Some(text) = Option::<String>::deserialize(d)? else { return Ok(None) };
    text.parse().map(Some).map_err(|e: aide_core::AideError| {
        serde::de::Error::custom(format!("{}{}", e.message, e.hint.map(|h| format!(" ({h})")).unwrap_or_default()))
    })
}

/// The kinds in both spellings the tools print (`function`, `Function`).
fn symbol_kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = SymbolKind::ALL
        .iter()
        .flat_map(|k| [k.snake_name(), k.name().to_string()])
        .map(serde_json::Value::String)
        .collect();
    names.push(serde_json::Value::Null);
    schemars::json_schema!({ "type": ["string", "null"], "enum": names })
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
        /// Only inside this symbol.
        #[serde(default)]
        within: Option<String>,
        #[serde(default)]
        replace_all: bool,
        /// Whitespace may differ. Reported when used.
        #[serde(default)]
        fuzzy: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Replace a symbol with `new_block`. A function, struct, impl, class…
    #[serde(alias = "rust_replace_block")]
    ReplaceBlock(BlockOp),
    /// Insert `snippet` after a symbol.
    #[serde(alias = "rust_insert_after_block")]
    InsertAfterBlock(BlockOp),
    /// Insert `snippet` before a symbol. Before its attributes and docs too.
    InsertBeforeBlock(BlockOp),
    /// Replace a symbol's head with `new_block`. Its head is all up to its body.
    ReplaceSignature(BlockOp),
    /// Create or overwrite a file (`checksum_before` if it exists).
    #[schemars(extend("x-merge" = "files"))]
    Write {
        path: String,
        content: String,
        #[serde(default)]
        create_dirs: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Delete a file, or a directory with `recursive` and
    /// `expected_tree_checksum` (or `force`).
    #[schemars(extend("x-merge" = "files"))]
    Delete {
        path: String,
        #[serde(default)]
        checksum_before: Option<String>,
        /// With all it holds.
        #[serde(default)]
        recursive: bool,
        #[serde(default)]
        expected_tree_checksum: Option<String>,
        /// No tree checksum needed.
        #[serde(default)]
        force: bool,
    },
    /// Create a directory and its parents.
    #[schemars(extend("x-merge" = "files"))]
    Mkdir { path: String },
    /// Copy a file or a tree to `to`. Modes are kept, links copied as links.
    #[schemars(extend("x-merge" = "files"))]
    Copy {
        path: String,
        to: String,
        /// Replace what is at `to` (given its `checksum_before`).
        #[serde(default)]
        overwrite: bool,
        /// With `overwrite`: the checksum of the file replaced (the tree
        /// checksum of a directory replaced).
        #[serde(default)]
        checksum_before: Option<String>,
        #[serde(default)]
        expected_tree_checksum: Option<String>,
    },
    /// Rename a file or directory to `to`. The new path must not exist.
    #[schemars(extend("x-merge" = "files"))]
    Rename {
        path: String,
        to: String,
        #[serde(default)]
        create_dirs: bool,
        #[serde(default)]
        checksum_before: Option<String>,
    },
    /// Insert `text` before line `at_line`. One past the last line: at the end.
    #[schemars(extend("x-merge" = "lines"))]
    InsertLines { path: String, at_line: usize, text: String, checksum_before: String },
    /// Replace `lines` ("A:B", inclusive) with `text`; without `text`, delete them.
    #[schemars(extend("x-merge" = "lines"))]
    #[serde(alias = "delete_lines")]
    ReplaceLines {
        path: String,
        lines: String,
        #[serde(default)]
        text: String,
        #[serde(default)]
        checksum_before: Option<String>,
        /// The lines' text now. Lines that differ are refused.
        #[serde(default)]
        expected_old_text: Option<String>,
    },
    /// A unified diff (`git diff`) or `*** Begin Patch` patch to apply.
    ApplyPatch { patch: String },
    /// Every match of a regex in the tree's files. The walk is
    /// llm-search's; capture references in `replacement` are expanded.
    ReplaceRegex(ReplaceRegexOp),
    /// Replace spans of search or ast_search records. Each is guarded by
    /// the checksum it carries.
    ReplaceMatches(ReplaceMatchesOp),
    /// A tree-sitter query's matches, rewritten by a template.
    Rewrite(RewriteOp),
    /// A symbol's definition and references, across the tree.
    RenameSymbol(RenameSymbolOp),
    /// A language server's refactor at a place: its edit, as it gives it.
    /// Not shown to a model: its own tool (transform_refactor) is.
    #[schemars(extend("x-hidden" = true))]
    Refactor(RefactorOp),
}

/// `llm-transform --help` after the options: each operation with an
/// example (the unit tests parse every one), span edits, and a pipeline.
pub const OPERATIONS_HELP: &str = r##"Operations ("operations": [...] in --edits FILE or --request JSON; all apply, or none does):
  patch: old_text becomes new_text (exactly one match, unless replace_all)
    {"op":"patch","path":"src/lib.rs","old_text":"x * y","new_text":"y * x"}
  replace_block: a whole function, struct, impl, class... becomes new_block. name: the
  name path llm-ast-search FILE prints; kind or line_hint only to pick among namesakes
    {"op":"replace_block","path":"a.rs","name":"impl Vec2/dot","new_block":"fn dot() {}"}
  insert_after_block / insert_before_block: snippet goes after / before a symbol
    {"op":"insert_after_block","path":"a.rs","kind":"struct","name":"A","snippet":"impl A {}"}
  replace_signature: a symbol's head, up to its body, becomes new_block
    {"op":"replace_signature","path":"c.go","name":"(*C)/Stop","new_block":"func (c *C) Stop()"}
  write / delete / rename: a whole file (delete and rename take a directory too)
    {"op":"write","path":"src/new.rs","content":"pub fn new() {}\n","create_dirs":true}
    {"op":"delete","path":"src/old.rs"}
    {"op":"rename","path":"src/a.rs","to":"src/b.rs"}
  mkdir / copy / delete of a tree: directories (tree checksum from llm-read DIR)
    {"op":"mkdir","path":"src/net/tls"}
    {"op":"copy","path":"templates/app","to":"apps/new"}
    {"op":"delete","path":"build/old","recursive":true,"expected_tree_checksum":"..."}
  insert_lines / replace_lines / delete_lines: by line number (all of a request's
  against the file as it was, as span edits are)
    {"op":"insert_lines","path":"a.py","at_line":3,"text":"import os","checksum_before":"..."}
    {"op":"replace_lines","path":"a.py","lines":"4","text":"x = 1","expected_old_text":"x = 0"}
    {"op":"delete_lines","path":"a.py","lines":"7","checksum_before":"..."}
  apply_patch: a unified diff (git diff) or a *** Begin Patch ... *** End Patch patch
    {"op":"apply_patch","patch":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n"}
  replace_regex: every match of a regex in the tree ($1, ${name} in the replacement)
    {"op":"replace_regex","pattern":"foo_(\\w+)","replacement":"bar_$1","glob":"*.rs"}
  replace_matches: the records of an llm-search / llm-ast-search --json output
    {"op":"replace_matches","matches":[],"replacement":"$0_v2"}
  rewrite: every match of a tree-sitter query, by a template of its captures
    {"op":"rewrite","language":"go","query":"((identifier) @i (#eq? @i \"a\"))","template":"z"}
  rename_symbol: a definition and its references across the tree
    {"op":"rename_symbol","name":"Agent/run","new_name":"execute"}
  refactor: the language server's code action at lines/columns (`llm-transform refactor`)
    {"op":"refactor","path":"a.cpp","action":"extract_function","line":5,"end_line":6}
Span edits ("edits": [...]; the checksum from llm-read or llm-search):
    {"path":"a.rs","byte_start":10,"byte_end":13,"replacement":"new","checksum_before":"..."}
Examples:
  llm-transform --edits edits.json --dry-run     # the unified diff; nothing is written
  llm-search --pattern 'unwrap\(\)' --json | llm-transform --from-matches - --replacement '$0?'
  llm-transform undo <execution_id>              # put back what a transform changed"##;

/// Which files of the tree an operation looks at: llm-search's walking
/// fields, under the same names.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TreeScope {
    /// Globs of files to include, `!glob` to exclude (gitignore syntax).
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub glob: Vec<String>,
    /// Only files of these languages (rust, python, …).
    #[serde(rename = "type", deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub r#type: Vec<String>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub follow: bool,
    pub max_depth: Option<usize>,
    pub max_filesize: Option<u64>,
}

impl TreeScope {
    pub fn walk_args(&self) -> aide_core::walk::WalkArgs {
        aide_core::walk::WalkArgs {
            glob: self.glob.clone(),
            r#type: self.r#type.clone(),
            hidden: self.hidden,
            no_ignore: self.no_ignore,
            follow: self.follow,
            max_depth: self.max_depth,
            max_filesize: self.max_filesize,
            changed: None,
        }
    }
}

/// `replace_regex`: every match of `pattern` in the scope's files.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceRegexOp {
    /// A regex (Rust syntax). It is matched against each whole file. `^`/`$` match
    /// at line boundaries, `.` does not match a line break, `\n` does.
    pub pattern: String,
    /// `$0`, `$1`, `${name}`: the match and its groups.
    /// `$$` is a `$` (regex's expansion, as sd and fastmod).
    pub replacement: String,
    /// The pattern is literal text.
    #[serde(default)]
    pub fixed_strings: bool,
    #[serde(default)]
    pub ignore_case: bool,
    /// Only whole-word matches.
    #[serde(default)]
    pub word: bool,
    /// More are refused, nothing written.
    #[serde(default)]
    pub max_replacements: Option<usize>,
    #[serde(flatten)]
    pub scope: TreeScope,
}

/// `replace_matches`: the records of a search, each replaced by `replacement`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceMatchesOp {
    /// search or ast_search records. Their `path`, `byte_start`, `byte_end`,
    /// `checksum`: matches, captures, symbols, definitions and references
    /// all have them.
    pub matches: Vec<serde_json::Value>,
    /// `$0`, `$1`, `${name}`: the match and its groups. For a tree-sitter
    /// capture, `${name}` is its own capture name.
    pub replacement: String,
}

/// `rewrite`: a tree-sitter query and a template of its captures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RewriteOp {
    /// rust, python, typescript, tsx, javascript, c, cpp, java, go.
    pub language: String,
    pub query: String,
    /// `${name}`: a capture's text (`$name` too). The new text of each match.
    pub template: String,
    /// The capture whose node is replaced. By default the one spanning all
    /// the others of its match.
    #[serde(default)]
    pub replace: Option<String>,
    #[serde(default)]
    pub max_replacements: Option<usize>,
    #[serde(flatten)]
    pub scope: TreeScope,
}

/// `rename_symbol`: a definition and its references, as one edit.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameSymbolOp {
    /// A name or name path (`impl Agent/run`).
    pub name: String,
    pub new_name: String,
    /// The file that defines it, when the name is defined in several.
    #[serde(default)]
    pub path: Option<String>,
    /// A line of it, or near it. For a file that defines it several times.
    #[serde(default)]
    pub line_hint: Option<usize>,
    #[serde(default)]
    pub in_comments_and_strings: bool,
    /// Also `x.name` sites of unknown receiver. Without it (or
    /// `skip_unresolved`) a rename that finds any is refused, listing them.
    #[serde(default)]
    pub include_unresolved: bool,
    /// Leave `unresolved` sites.
    #[serde(default)]
    pub skip_unresolved: bool,
    /// Who finds the sites: `syntax`, `lsp` (the language's server, whose
    /// rename is applied here, guarded and undoable) or `auto`; default
    /// `--engine`.
    #[serde(default)]
    pub engine: Option<llm_ast_search::lsp::CodeEngine>,
    #[serde(flatten)]
    pub scope: TreeScope,
}

/// `refactor`: a code action the file's language server offers at a
/// place (extract_variable, extract_function, inline, organize_imports, …),
/// its edit applied exactly as the server gives it. The place is from
/// `line`:`column` to `end_line`:`end_column` (exclusive): a line alone is
/// all of it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefactorOp {
    pub path: String,
    /// The action's name, as the list of the server's actions gives it.
    pub action: String,
    /// 1-based line where the place starts (default 1; given alone, the whole line is the place).
    #[serde(default)]
    pub line: Option<usize>,
    /// 1-based column where the place starts, in characters (default 1).
    #[serde(default)]
    pub column: Option<usize>,
    /// 1-based line the place ends on: its end, (end_line, end_column), is exclusive as every
    /// span's is (default: `line`).
    #[serde(default)]
    pub end_line: Option<usize>,
    /// 1-based column of the place's exclusive end, in characters, on end_line (default: just past
    /// end_line's text, which takes the whole line).
    #[serde(default)]
    pub end_column: Option<usize>,
    /// The action's title, when the server offers several of that name.
    #[serde(default)]
    pub title: Option<String>,
    /// The name an extract gives what it makes, instead of the server's
    /// (clangd's `placeholder`, `extracted`); only where exact: the edit
    /// introduces one new name, and the file does not use this one.
    #[serde(default)]
    pub new_name: Option<String>,
    #[serde(default)]
    pub checksum_before: Option<String>,
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
    ReplaceSignature,
    Write,
    Delete,
    Mkdir,
    Copy,
    Rename,
    InsertLines,
    ReplaceLines,
    ApplyPatch,
    ReplaceRegex,
    ReplaceMatches,
    Rewrite,
    RenameSymbol,
    Refactor,
}

impl OpName {
    pub fn as_str(self) -> &'static str {
        match self {
            OpName::Edits => "edits",
            OpName::Patch => "patch",
            OpName::ReplaceBlock => "replace_block",
            OpName::InsertAfterBlock => "insert_after_block",
            OpName::InsertBeforeBlock => "insert_before_block",
            OpName::ReplaceSignature => "replace_signature",
            OpName::Write => "write",
            OpName::Delete => "delete",
            OpName::Mkdir => "mkdir",
            OpName::Copy => "copy",
            OpName::Rename => "rename",
            OpName::InsertLines => "insert_lines",
            OpName::ReplaceLines => "replace_lines",
            OpName::ApplyPatch => "apply_patch",
            OpName::ReplaceRegex => "replace_regex",
            OpName::ReplaceMatches => "replace_matches",
            OpName::Rewrite => "rewrite",
            OpName::RenameSymbol => "rename_symbol",
            OpName::Refactor => "refactor",
        }
    }
}

impl OpName {
    /// Reports of these count their replacements (span edits, tree
    /// operations), not themselves, in `applied`/`skipped`.
    pub fn counts_replacements(self) -> bool {
        matches!(
            self,
            OpName::Edits
                | OpName::ReplaceRegex
                | OpName::ReplaceMatches
                | OpName::Rewrite
                | OpName::RenameSymbol
                | OpName::Refactor
        )
    }
}

impl Operation {
    pub fn name(&self) -> OpName {
        match self {
            Operation::Patch { .. } => OpName::Patch,
            Operation::ReplaceBlock(_) => OpName::ReplaceBlock,
            Operation::InsertAfterBlock(_) => OpName::InsertAfterBlock,
            Operation::InsertBeforeBlock(_) => OpName::InsertBeforeBlock,
            Operation::ReplaceSignature(_) => OpName::ReplaceSignature,
            Operation::Write { .. } => OpName::Write,
            Operation::Delete { .. } => OpName::Delete,
            Operation::Mkdir { .. } => OpName::Mkdir,
            Operation::Copy { .. } => OpName::Copy,
            Operation::Rename { .. } => OpName::Rename,
            Operation::InsertLines { .. } => OpName::InsertLines,
            Operation::ReplaceLines { .. } => OpName::ReplaceLines,
            Operation::ApplyPatch { .. } => OpName::ApplyPatch,
            Operation::ReplaceRegex(_) => OpName::ReplaceRegex,
            Operation::ReplaceMatches(_) => OpName::ReplaceMatches,
            Operation::Rewrite(_) => OpName::Rewrite,
            Operation::RenameSymbol(_) => OpName::RenameSymbol,
            Operation::Refactor(_) => OpName::Refactor,
        }
    }

    /// The one file the operation acts on; None for the operations that
    /// find their files in the tree.
    pub fn path(&self) -> Option<&str> {
        match self {
            Operation::ReplaceBlock(b)
            | Operation::InsertAfterBlock(b)
            | Operation::InsertBeforeBlock(b)
            | Operation::ReplaceSignature(b) => Some(&b.path),
            Operation::Patch { path, .. }
            | Operation::Write { path, .. }
            | Operation::Delete { path, .. }
            | Operation::Mkdir { path }
            | Operation::Copy { path, .. }
            | Operation::Rename { path, .. }
            | Operation::InsertLines { path, .. }
            | Operation::ReplaceLines { path, .. } => Some(path),
            Operation::ReplaceRegex(_)
            | Operation::ReplaceMatches(_)
            | Operation::Rewrite(_)
            | Operation::RenameSymbol(_)
            | Operation::Refactor(_)
            | Operation::ApplyPatch { .. } => None,
        }
    }

    /// Whether it edits lines by number (made span edits before planning).
    pub fn is_line_edit(&self) -> bool {
        matches!(self, Operation::InsertLines { .. } | Operation::ReplaceLines { .. })
    }

    /// The block operation, if it is one.
    pub fn block(&self) -> Option<&BlockOp> {
        match self {
            Operation::ReplaceBlock(b)
            | Operation::InsertAfterBlock(b)
            | Operation::InsertBeforeBlock(b)
            | Operation::ReplaceSignature(b) => Some(b),
            _ => None,
        }
    }
}

/// The body of an `--edits` file: span edits and operations.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EditsDocument {
    /// The file span edits without a `path` of their own apply to (`file`
    /// is its old name).
    #[serde(alias = "file")]
    pub path: Option<String>,
    pub edits: Vec<SpanEdit>,
    pub operations: Vec<Operation>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_in_the_help_is_a_valid_operation() {
        let mut ops = 0;
        for line in OPERATIONS_HELP.lines() {
            let json = line.trim();
            if !json.starts_with('{') {
                continue;
            }
            if json.contains("\"op\"") {
                let op: Operation = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
                let name = serde_json::to_value(&op).unwrap()["op"].as_str().unwrap().to_string();
                let described = OPERATIONS_HELP.lines().any(|l| !l.trim_start().starts_with('{') && l.contains(&name));
                assert!(described, "{name} is not described");
                ops += 1;
            } else {
                let _: SpanEdit = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            }
        }
        // insert_before_block shares one; delete_lines, replace_lines' other name, has its own.
        assert_eq!(ops, 19, "an example of each operation");
        // Not cut by clap's wrapping of --help at 100 columns.
        assert!(OPERATIONS_HELP.lines().all(|l| l.chars().count() <= 96));
    }
}
