//! What aide is asked: log, tools, doctor, completions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many runs `log list` gives unless told.
const DEFAULT_LIST_LIMIT: usize = 20;

fn default_list_limit() -> usize {
    DEFAULT_LIST_LIMIT
}

/// The request: one subcommand.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize, JsonSchema)]
pub struct AideRequest {
    #[command(subcommand)]
    pub command: AideCommand,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for AideRequest {}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AideCommand {
    /// Read the execution log.
    Log {
        #[command(subcommand)]
        action: LogAction,
    },
    /// List the aide tools, whether each is installed, and their schemas.
    Tools {
        /// Print the tool definitions for a harness instead, from the same schemas as `aide mcp`:
        /// mcp (as tools/list gives them), openai (function calling), anthropic (tool use).
        #[arg(long, value_name = "FORMAT")]
        #[serde(default)]
        format: Option<DefinitionFormat>,
        /// With --format: only these toolsets, comma-separated, as `aide mcp --tools` serves
        /// them (`all`, or the groups of `aide tools`).
        #[arg(long, value_name = "GROUPS", value_delimiter = ',', requires = "format", value_parser = crate::catalogue::toolset_names())]
        #[serde(default)]
        tools: Vec<String>,
        /// With --format: the whole request and result schemas, with every description and
        /// definition (for validators), instead of the compact ones a model is served.
        #[arg(long, requires = "format")]
        #[serde(default)]
        full_schemas: bool,
    },
    /// Check what the tools rely on (programs, AIDE_HOME, the databases, interrupted transforms,
    /// sessions) and say how to fix each miss; exit 3 when a check fails.
    Doctor {
        /// Also repair what is safe to repair: remove the lock files no running transform holds.
        #[arg(long)]
        #[serde(default)]
        fix: bool,
    },
}

/// The shapes of tool definitions `aide tools --format` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionFormat {
    /// MCP `tools/list` entries: name, description, inputSchema, outputSchema, annotations.
    Mcp,
    /// OpenAI function calling: `{"type": "function", "function": {name, description, parameters}}`.
    Openai,
    /// Anthropic tool use: `{name, description, input_schema}`.
    Anthropic,
}

#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LogAction {
    /// Recent runs, newest first.
    List {
        /// Only runs of this tool: a program (llm-search) or an MCP tool (search).
        #[arg(long)]
        tool: Option<String>,
        /// At most this many runs.
        #[arg(long, default_value_t = DEFAULT_LIST_LIMIT)]
        #[serde(default = "default_list_limit")]
        limit: usize,
        /// Only runs since: RFC 3339, or a duration ago (2h, 7d).
        #[arg(long)]
        since: Option<String>,
    },
    /// The stored result of one run.
    Show {
        /// An execution_id, or its first 8+ characters.
        id: String,
    },
    /// Calls, errors and p50/p95 latency per tool, from the local log.
    Stats {
        /// Only runs of this tool: a program (llm-search) or an MCP tool (search).
        #[arg(long)]
        tool: Option<String>,
        /// Only runs since: RFC 3339, or a duration ago (2h, 7d).
        #[arg(long)]
        since: Option<String>,
    },
    /// Remove old runs now (retention also runs automatically).
    Prune {
        /// Remove runs older than this (e.g. 7d, 12h). Default: 30 days or $AIDE_LOG_MAX_AGE.
        #[arg(long)]
        older_than: Option<String>,
        /// Keep at most this many newest runs. Default: 10000 or $AIDE_LOG_MAX_RUNS.
        #[arg(long)]
        keep: Option<u64>,
    },
}
