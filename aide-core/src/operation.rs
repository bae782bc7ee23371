//! What a tool offers an agent, operation by operation: the name a model
//! calls it by (the MCP tool), the command line that runs it, a description
//! written for a model to choose well, the toolset it belongs to, and what
//! running it may do. Each tool declares its own ([`crate::tool::Tool::OPERATIONS`]);
//! `aide tools` and `aide mcp` list them.

use schemars::JsonSchema;
use serde::Serialize;

/// What running an operation may do. The four hints of MCP's tool
/// annotations, in our snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Effects {
    /// Changes nothing outside the run (files, sessions, jobs, the network).
    pub read_only: bool,
    /// May overwrite or delete what exists (meaningful when not read-only).
    pub destructive: bool,
    /// Running it again with the same request changes nothing more.
    pub idempotent: bool,
    /// Reaches beyond the root and aide's own state: runs commands the
    /// caller wrote, which may do anything.
    pub open_world: bool,
}

/// Whether a harness may run an operation without asking (seed 004's AUTO
/// and GATED): read-only operations that stay on this machine are `auto`;
/// every other, an operation that asks the network included, is `gated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    Auto,
    Gated,
}

/// The toolsets `aide mcp --tools` serves (GitHub's MCP server has the same
/// idea): a harness with its own shell leaves `shell` and `jobs` out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Reading the tree: search, ast_search, ide_operation, code_*, read, discover.
    Search,
    /// Changing files: transform and its undo and recovery; lint and its fixes.
    Edit,
    /// Persistent shell sessions, terminals and command checks.
    Shell,
    /// Background jobs.
    Jobs,
    /// The execution log: past results by id.
    Log,
    /// git: status, diffs, history; staging, commits, branches, restores.
    Git,
    /// A project's dependencies: lists and trees from its lock files, what
    /// is outdated (asking the registries), an audit against advisories.
    Deps,
}

impl Group {
    /// The group's name as `--tools` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Group::Search => "search",
            Group::Edit => "edit",
            Group::Shell => "shell",
            Group::Jobs => "jobs",
            Group::Log => "log",
            Group::Git => "git",
            Group::Deps => "deps",
        }
    }
}

/// One operation: a tool, or one subcommand of it.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// The MCP tool name.
    pub name: &'static str,
    /// The toolset it belongs to.
    pub group: Group,
    /// Fields that tell this operation's result apart in its tool's output
    /// union (its compact output schema keeps the branches with one of
    /// them); empty when the tool has one result shape. A name with a
    /// leading `-` is a list whose items the compact schema leaves untyped
    /// (another operation's records: a session's `active_jobs`).
    pub output: &'static [&'static str],
    /// Arguments the MCP server fills in when a call leaves them out, where
    /// its default differs from the command line's (ast_search's outline
    /// text is the dense form).
    pub mcp_defaults: &'static [(&'static str, bool)],
    /// The executable.
    pub tool: &'static str,
    /// The subcommand words, or the flag that selects the mode, after the
    /// executable (empty for the tool's main job).
    pub command: &'static [&'static str],
    pub description: &'static str,
    pub effects: Effects,
    /// How its MCP tool's arguments and result differ from what its
    /// request and output give ([`Mcp::DERIVED`] for nearly every one).
    pub mcp: Mcp,
}

/// Where an operation's MCP tool is not simply its request's fields and its
/// output's document, what it is instead: said in the catalogue, so the
/// server special-cases no tool by name.
#[derive(Debug, Clone, Copy)]
pub struct Mcp {
    /// Arguments of their own, for an operation that is one mode of its
    /// request (`ide_operation`, llm-ast-search's `--dialect`): their JSON
    /// Schema, and the request field each argument fills (`program` is
    /// `dialect`; the others keep their names).
    pub arguments: Option<OwnArguments>,
    /// Request fields another operation covers, left out of its arguments
    /// (`ast_search` leaves `dialect` to `ide_operation`).
    pub leaves_out: &'static [&'static str],
    /// Its result is another run's stored document, as that run's tool
    /// printed it (`log_show`): described by what every document has.
    pub stored_result: bool,
}

/// An MCP tool's arguments of their own ([`Mcp::arguments`]).
#[derive(Debug, Clone, Copy)]
pub struct OwnArguments {
    /// Their JSON Schema.
    pub schema: fn() -> serde_json::Value,
    /// (argument, request field) for each argument named otherwise in the request.
    pub fills: &'static [(&'static str, &'static str)],
}

impl Mcp {
    /// Arguments from the request, the result its output's document.
    pub const DERIVED: Mcp = Mcp { arguments: None, leaves_out: &[], stored_result: false };
}

impl Operation {
    pub fn gate(&self) -> Gate {
        if self.effects.read_only && !self.effects.open_world { Gate::Auto } else { Gate::Gated }
    }

    /// The words of the command line that runs it: the executable, then the
    /// subcommand words.
    pub fn words(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.tool).chain(self.command.iter().copied())
    }

    /// The command line that runs it, e.g. `llm-shell session new`.
    pub fn command_line(&self) -> String {
        self.words().collect::<Vec<_>>().join(" ")
    }
}

/// The operation of `ops` called `name`, found when the program is built:
/// `const UNDO: &Operation = named(LlmTransform::OPERATIONS, "transform_undo")`
/// does not compile when there is none. A message that names another
/// operation ([`crate::voice::Voice::op`]) takes it from its tool's own table.
pub const fn named(ops: &'static [Operation], name: &str) -> &'static Operation {
    let mut i = 0;
    while i < ops.len() {
        if same(ops[i].name.as_bytes(), name.as_bytes()) {
            return &ops[i];
        }
        i += 1;
    }
    panic!("no operation of that name")
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

pub const READS: Effects = Effects { read_only: true, destructive: false, idempotent: true, open_world: false };
/// Runs a command the caller wrote: anything may happen.
pub const RUNS_COMMANDS: Effects = Effects { read_only: false, destructive: true, idempotent: false, open_world: true };
/// Adds state (a session, a setting) without overwriting anything.
pub const ADDS: Effects = Effects { read_only: false, destructive: false, idempotent: false, open_world: false };
/// Removes or overwrites aide's own state (sessions, finished jobs, log runs).
pub const REMOVES: Effects = Effects { read_only: false, destructive: true, idempotent: true, open_world: false };
