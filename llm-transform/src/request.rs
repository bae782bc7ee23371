//! The request: what a transform changes (its operations), how it is
//! checked and committed, and the subcommands beside it (undo, recover).

mod operation;

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use operation::{
    BlockOp, EditsDocument, OPERATIONS_HELP, OpName, Operation, RefactorOp, RenameSymbolOp, ReplaceMatchesOp,
    ReplaceRegexOp, RewriteOp, SpanEdit, TreeScope,
};

/// A request: flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TransformRequest {
    #[command(subcommand)]
    #[serde(deserialize_with = "subcommand_or_word")]
    pub command: Option<Subcommand>,
    /// The file span edits without a `path` of their own apply to.
    #[arg(long = "path", alias = "file", value_name = "PATH")]
    pub path: Option<String>,
    /// A JSON file (`-` for stdin) with `{"edits": [...], "operations": [...]}`.
    #[arg(long = "edits", value_name = "JSON_FILE")]
    #[serde(skip)]
    pub edits_file: Option<String>,
    /// A patch file (`-` for stdin): a unified diff (`git diff`) or a
    /// `*** Begin Patch` patch, applied with the rest, all or nothing.
    #[arg(long = "patch", value_name = "FILE")]
    #[serde(skip)]
    pub patch_file: Option<String>,
    /// Span edits (request JSON only; on the command line, use --edits).
    #[arg(skip)]
    pub edits: Vec<SpanEdit>,
    /// Operations (request JSON only; on the command line, use --edits).
    #[arg(skip)]
    pub operations: Vec<Operation>,
    /// The JSON output of llm-search or llm-ast-search (a file, `-` for
    /// stdin): each match, capture, symbol or reference it lists is replaced
    /// by --replacement, guarded by the checksum it carries.
    #[arg(long, value_name = "FILE", requires = "replacement")]
    #[serde(skip)]
    pub from_matches: Option<String>,
    /// With --from-matches: the new text of each match; `$0` is the matched
    /// text, `$1` or `${name}` a capture group.
    #[arg(long, value_name = "TEMPLATE", requires = "from_matches")]
    #[serde(skip)]
    pub replacement: Option<String>,
    /// Directory the paths are relative to; nothing outside it is touched.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Diffs and would-be checksums; nothing written.
    #[arg(long)]
    pub dry_run: bool,
    /// Apply despite new syntax errors.
    #[arg(long)]
    pub allow_syntax_errors: bool,
    /// rustfmt edited Rust files.
    #[arg(long)]
    pub rustfmt: bool,
    /// Checkers run before and after; an edit they fault is undone. Names as
    /// llm-lint's --checker takes them, comma-separated; `all` or no value:
    /// the ones the project uses. A failed check exits 3 (verification_failed).
    #[arg(long, value_name = "CHECKER", num_args = 0..=1, default_missing_value = "all")]
    pub verify: Option<String>,
    /// Run after; unless it exits 0 the edit is undone.
    /// Run by bash in the root; a failure exits 3 (verification_failed).
    #[arg(long, value_name = "CMD")]
    pub verify_command: Option<String>,
    /// The old name of `--verify cargo`.
    #[arg(long, hide = true)]
    #[schemars(skip)]
    pub cargo_check: bool,
    /// Who finds a rename_symbol's sites when it does not say: `syntax`
    /// (default), `lsp` (the language's server) or `auto`. In a JSON
    /// request, each rename_symbol's `engine`.
    #[arg(long, value_enum, value_name = "ENGINE", hide_possible_values = true)]
    #[serde(skip)]
    pub engine: Option<llm_ast_search::lsp::CodeEngine>,
    /// Each file's unified diff. Of an applied transform too.
    #[arg(long)]
    pub diff: bool,
    /// Write read-only files too. They keep their
    /// mode; without this they are refused.
    #[arg(long)]
    pub allow_read_only: bool,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Subcommand {
    /// Restore the files a transform changed, if nothing changed them since.
    Undo {
        /// Transforms' execution ids (8+ characters).
        #[arg(value_name = "EXECUTION_ID")]
        #[serde(default)]
        execution_ids: Vec<String>,
        /// The newest N transforms not yet undone.
        #[arg(long, value_name = "N", conflicts_with = "execution_ids")]
        last: Option<usize>,
    },
    /// Refactor through the file's language server: the code action it
    /// offers at a place (extract_variable, extract_function, inline,
    /// organize_imports, …), its edit applied as it gives it, all or
    /// nothing, undoable. Without --action: the actions it offers there.
    Refactor(RefactorArgs),
    /// Finish or roll back transforms of this root that were interrupted
    /// mid-commit (kill -9, power loss). Every transform run does this
    /// first; this does it alone.
    Recover {
        /// Only this interrupted transform. Here, wherever its commit ran (a root moved since; `aide doctor` lists them).
        #[arg(long, value_name = "EXECUTION_ID")]
        #[serde(default)]
        journal: Option<String>,
    },
}

/// A refactor: where, what, and how its edit is committed.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct RefactorArgs {
    #[arg(long = "path", alias = "file", value_name = "PATH")]
    pub path: String,
    /// The action: extract_variable, extract_function, inline,
    /// organize_imports, or another the list names. Without: the list.
    #[arg(long, value_name = "ACTION")]
    #[serde(default)]
    pub action: Option<String>,
    /// 1-based line where the place starts (default 1; given alone, the whole line is the place).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub line: Option<usize>,
    /// 1-based column where the place starts, in characters (default 1).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub column: Option<usize>,
    /// 1-based line the place ends on: its end, (end_line, end_column), is exclusive as every
    /// span's is (default: `line`).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub end_line: Option<usize>,
    /// 1-based column of the place's exclusive end, in characters, on end_line (default: just past
    /// end_line's text, which takes the whole line).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub end_column: Option<usize>,
    /// Picks one of several actions of one name.
    #[arg(long, value_name = "TITLE")]
    #[serde(default)]
    pub title: Option<String>,
    /// The name an extract gives what it makes, instead of the server's
    /// (clangd's `placeholder`, `extracted`); only where exact: the edit
    /// introduces one new name, and the file does not use this one.
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub new_name: Option<String>,
    #[arg(long, value_name = "SHA256")]
    #[serde(default)]
    pub checksum_before: Option<String>,
    /// The diff; nothing written.
    #[arg(long)]
    #[serde(default)]
    pub dry_run: bool,
    #[arg(long)]
    #[serde(default)]
    pub diff: bool,
    /// Checkers run before and after (comma-separated names, or all); an
    /// edit they fault is undone.
    #[arg(long, value_name = "CHECKER", num_args = 0..=1, default_missing_value = "all")]
    #[serde(default)]
    pub verify: Option<String>,
    /// Run after; unless it exits 0 the edit is undone.
    #[arg(long, value_name = "CMD")]
    #[serde(default)]
    pub verify_command: Option<String>,
    #[arg(long)]
    #[serde(default)]
    pub allow_syntax_errors: bool,
}

impl RefactorArgs {
    /// The transform that applies `action`: one `refactor` operation,
    /// committed as every transform is.
    pub fn transform(&self, action: &str, root: Option<PathBuf>) -> TransformRequest {
        TransformRequest {
            root,
            operations: vec![Operation::Refactor(RefactorOp {
                path: self.path.clone(),
                action: action.to_string(),
                line: self.line,
                column: self.column,
                end_line: self.end_line,
                end_column: self.end_column,
                title: self.title.clone(),
                new_name: self.new_name.clone(),
                checksum_before: self.checksum_before.clone(),
            })],
            dry_run: self.dry_run,
            diff: self.diff,
            verify: self.verify.clone(),
            verify_command: self.verify_command.clone(),
            allow_syntax_errors: self.allow_syntax_errors,
            ..TransformRequest::default()
        }
    }
}

/// The subcommand, also as the bare word `"recover"` (its form before it
/// took a field), so no request written for it breaks.
pub(crate) fn subcommand_or_word<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Subcommand>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(word)) if word == "recover" => Ok(Some(Subcommand::Recover { journal: None })),
        Some(other) => serde_json::from_value(other).map(Some).map_err(serde::de::Error::custom),
    }
}

/// What `aide mcp` governs in a transform: the commands that verify it
/// (checkers and language servers run in the gate's ambient sandbox).
impl aide_core::govern::Governed for TransformRequest {
    fn shell_inputs(&self) -> Vec<aide_core::govern::Reach> {
        // A refactor's own verify_command too.
        let refactor = match &self.command {
            Some(Subcommand::Refactor(args)) => args.verify_command.clone(),
            _ => None,
        };
        [self.verify_command.clone(), refactor]
            .into_iter()
            .flatten()
            .map(|line| aide_core::govern::Reach::new("verify_command", aide_core::govern::ShellInput::Line(line)))
            .collect()
    }
}
