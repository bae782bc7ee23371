//! The request: the root and one subcommand, each over the same scope of
//! files (paths, language, the walk) as llm-ast-search reads.

use std::path::PathBuf;

use aide_core::walk::WalkArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A request: the root and one command.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct CodeRequest {
    /// Directory to work in; every path in the output is relative to it.
    #[arg(long, global = true, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    #[command(subcommand)]
    pub command: CodeCommand,
}

/// No argument of it is a command or a sandbox: it starts nothing.
impl aide_core::govern::Governed for CodeRequest {}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeCommand {
    /// Per function and per file: cyclomatic and cognitive complexity,
    /// lines, parameters, nesting.
    Metrics(MetricsArgs),
    /// Structurally duplicated code: token runs equal once identifiers and
    /// literals are replaced by their kind, each clone with all its places.
    Duplicates(DuplicatesArgs),
    /// Each file's imports and exports.
    Imports(ImportsArgs),
}

impl CodeCommand {
    /// The files the command reads.
    pub(crate) fn scope(&self) -> &ScopeArgs {
        match self {
            CodeCommand::Metrics(a) => &a.scope,
            CodeCommand::Duplicates(a) => &a.scope,
            CodeCommand::Imports(a) => &a.scope,
        }
    }
}

/// Which files: as llm-ast-search takes them.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ScopeArgs {
    /// Files or folders to read, relative to --root (default: all of it).
    #[arg(value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    /// Only this language's files; files named as PATH are parsed as it
    /// whatever their extension.
    #[arg(long, short = 'l', value_name = "LANG")]
    pub language: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// At most this many records (functions, duplicates or files), counted after sorting.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip this many records first (continue from a previous `next_offset`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Worker threads (default: the number of CPUs). The output does not
    /// depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
}

/// The order of the functions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    /// By path and place (the default).
    #[default]
    Location,
    /// Highest first, then by place; likewise the others.
    Cyclomatic,
    Cognitive,
    Lines,
    Parameters,
    Nesting,
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MetricsArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: ScopeArgs,
    /// Order the functions by this measure, highest first.
    #[arg(long, value_enum, default_value_t, value_name = "MEASURE")]
    pub sort: SortBy,
    /// Only functions whose cyclomatic complexity is at least N.
    #[arg(long, value_name = "N")]
    pub min_cyclomatic: Option<usize>,
}

/// Tokens a duplicate has at least, by default.
pub const DEFAULT_MIN_TOKENS: usize = 50;
/// Lines a duplicate spans at least, by default.
pub const DEFAULT_MIN_LINES: usize = 6;

#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DuplicatesArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: ScopeArgs,
    /// A duplicate is at least this many tokens long (comments are not tokens).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_TOKENS)]
    pub min_tokens: usize,
    /// A duplicate spans at least this many lines.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_LINES)]
    pub min_lines: usize,
}

impl Default for DuplicatesArgs {
    fn default() -> Self {
        DuplicatesArgs { scope: ScopeArgs::default(), min_tokens: DEFAULT_MIN_TOKENS, min_lines: DEFAULT_MIN_LINES }
    }
}

#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ImportsArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: ScopeArgs,
}
