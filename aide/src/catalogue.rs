//! Every operation of every aide tool, named and described for a model to
//! choose well, with what running it may do: the list `aide tools` reports
//! and the MCP server serves (one MCP tool per operation, these names, these
//! descriptions, these effects as its annotations).

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
/// and GATED): read-only operations are `auto`, every other is `gated`.
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
    /// Reading the tree: search, ast_search, ide_operation, read, discover.
    Search,
    /// Changing files: transform and its undo and recovery.
    Edit,
    /// Persistent shell sessions and command checks.
    Shell,
    /// Background jobs.
    Jobs,
    /// The execution log: past results by id.
    Log,
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
    /// them); empty when the tool has one result shape.
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
}

impl Operation {
    pub fn gate(&self) -> Gate {
        if self.effects.read_only { Gate::Auto } else { Gate::Gated }
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

const READS: Effects = Effects { read_only: true, destructive: false, idempotent: true, open_world: false };
/// Runs a command the caller wrote: anything may happen.
const RUNS_COMMANDS: Effects = Effects { read_only: false, destructive: true, idempotent: false, open_world: true };
/// Adds state (a session, a setting) without overwriting anything.
const ADDS: Effects = Effects { read_only: false, destructive: false, idempotent: false, open_world: false };
/// Removes or overwrites aide's own state (sessions, finished jobs, log runs).
const REMOVES: Effects = Effects { read_only: false, destructive: true, idempotent: true, open_world: false };

pub const OPERATIONS: &[Operation] = &[
    Operation {
        name: "search",
        mcp_defaults: &[],
        group: Group::Search,
        output: &[],
        tool: "llm-search",
        command: &[],
        description: "Regex search of file contents across a tree with ripgrep's engine (honours .gitignore; skips hidden and binary files unless asked): every match with path, line, column, byte span and line text, sorted. Use it for text, identifiers and log lines; ast_search for definitions and references, discover for file names.",
        effects: READS,
    },
    Operation {
        name: "ast_search",
        mcp_defaults: &[("compact", true)],
        group: Group::Search,
        output: &["symbols", "definitions", "references", "valid"],
        tool: "llm-ast-search",
        command: &[],
        description: "Structural code search with tree-sitter (Rust, Python, JS, TS, TSX, C, C++, Java, Go): a file's or tree's outline (symbols), the definitions or references of a name (a name path like Type/method gets only its own uses, each marked resolved, name_only or unresolved), a tree-sitter query, or syntax validation. Results carry file checksums for transform.",
        effects: READS,
    },
    Operation {
        name: "ide_operation",
        mcp_defaults: &[],
        group: Group::Search,
        output: &["program"],
        tool: "llm-ast-search",
        command: &["--dialect"],
        description: "Runs a Dialect program chaining lookups in one call: findDefinitions(`Name`), findReferences(`name`), search(`path`, `regex`, `glob`), lines(`path`, start, end), nested as in findReferences(findDefinition(`validateToken`)). Returns typed values. For one lookup ast_search is simpler.",
        effects: READS,
    },
    Operation {
        name: "read",
        mcp_defaults: &[],
        group: Group::Search,
        output: &[],
        tool: "llm-read",
        command: &[],
        description: "Reads one or more files with line numbers and each file's SHA-256 checksum, by line range (10:20) or offset and limit. Pass the checksum as checksum_before to transform so an edit is refused if the file changed. Use it instead of shell cat: it pages long files and refuses binary ones. Cost: proportional to the lines returned.",
        effects: READS,
    },
    Operation {
        name: "transform",
        mcp_defaults: &[],
        group: Group::Edit,
        output: &["applied"],
        tool: "llm-transform",
        command: &[],
        description: "Edits files all or nothing, each edit guarded by the file's checksum: byte spans, exact-text patches, blocks by symbol name, write/delete/rename files; across a tree: replace_matches (search/ast_search records), replace_regex, rewrite (tree-sitter query + template), rename_symbol. Refuses edits that add syntax errors; dry_run returns diffs. Undo with transform_undo.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
    },
    Operation {
        name: "transform_undo",
        mcp_defaults: &[],
        group: Group::Edit,
        output: &["undone"],
        tool: "llm-transform",
        command: &["undo"],
        description: "Restores the files an applied transform changed, by its execution_id or the last N transforms of this root, if nothing changed them since (otherwise refuses and names the files). Each transform can be undone once.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
    },
    Operation {
        name: "transform_recover",
        mcp_defaults: &[],
        group: Group::Edit,
        output: &["recovered"],
        tool: "llm-transform",
        command: &["recover"],
        description: "Finishes or rolls back transforms of this root interrupted mid-commit (process killed, power lost). Every transform does this first; call it alone only to repair a tree before reading it.",
        effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
    },
    Operation {
        name: "discover",
        mcp_defaults: &[],
        group: Group::Search,
        output: &[],
        tool: "llm-discover",
        command: &[],
        description: "Finds files by fuzzy name with fzf-style ranking (query `appRouter` finds app_router.py), lists files by glob and depth, or shows the tree's structure. Use it before read or search when you know part of a path. Cost: one walk of the tree's names, no contents.",
        effects: READS,
    },
    Operation {
        name: "shell_exec",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["stdout", "job"],
        tool: "llm-shell",
        command: &["exec"],
        description: "Runs a bash command in a persistent session (working directory and environment survive between calls) or in a throwaway one, with a timeout; returns stdout, stderr and the exit code separately, each cut to a head and tail when long. background hands the command to jobs and returns at once. The command can do anything: check unfamiliar ones with shell_explain first.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "shell_session_new",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["uptime_seconds"],
        tool: "llm-shell",
        command: &["session", "new"],
        description: "Starts a persistent shell session in a directory and returns its id for shell_exec. Sessions survive restarts until closed.",
        effects: ADDS,
    },
    Operation {
        name: "shell_session_list",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["sessions"],
        tool: "llm-shell",
        command: &["session", "list"],
        description: "Lists the shell sessions with their working directories, command counts and last exit codes.",
        effects: READS,
    },
    Operation {
        name: "shell_session_show",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["uptime_seconds"],
        tool: "llm-shell",
        command: &["session", "show"],
        description: "Shows one session's state: working directory, environment variables set in it, its background jobs and the last exit code.",
        effects: READS,
    },
    Operation {
        name: "shell_session_close",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["removed"],
        tool: "llm-shell",
        command: &["session", "rm"],
        description: "Closes a shell session and deletes its saved state.",
        effects: REMOVES,
    },
    Operation {
        name: "shell_env",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["updated"],
        tool: "llm-shell",
        command: &["env"],
        description: "Sets or unsets environment variables of a session for its later commands.",
        effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
    },
    Operation {
        name: "shell_check",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["bash_n"],
        tool: "llm-shell",
        command: &["check"],
        description: "Parses a bash command without running it and reports syntax errors with positions. Use it to validate a command you wrote before shell_exec.",
        effects: READS,
    },
    Operation {
        name: "shell_explain",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["overall_risk"],
        tool: "llm-shell",
        command: &["explain"],
        description: "Explains a bash command step by step without running it: each command, what it reads and writes, and a risk level (low to critical) with reasons (deletes files, pipes the network into a shell, …). Use it before running anything unfamiliar or destructive.",
        effects: READS,
    },
    Operation {
        name: "shell_perf",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["anomalies"],
        tool: "llm-shell",
        command: &["perf"],
        description: "The timing history of commands run in a session through shell_exec, with anomalies (a command much slower than its usual).",
        effects: READS,
    },
    Operation {
        name: "shell_compare",
        mcp_defaults: &[],
        group: Group::Shell,
        output: &["significant"],
        tool: "llm-shell",
        command: &["compare"],
        description: "Times a command on a baseline git revision (checked out in a temporary worktree) against the current tree, several runs a side, and says whether the difference is significant. Runs the command many times: slow, and it can do anything the command does.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "jobs_spawn",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["started_at"],
        tool: "llm-jobs",
        command: &["spawn"],
        description: "Starts a command in the background and returns its job id at once; the job outlives the caller, with optional group limits, dependencies and a timeout. Use it for builds, test suites and servers; then jobs_wait, jobs_status or jobs_logs.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "jobs_list",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["active_count"],
        tool: "llm-jobs",
        command: &["list"],
        description: "Lists the background jobs, oldest first, with status and exit code.",
        effects: READS,
    },
    Operation {
        name: "jobs_status",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["job"],
        tool: "llm-jobs",
        command: &["status"],
        description: "One background job: status, pid, exit code or signal, timings and output sizes.",
        effects: READS,
    },
    Operation {
        name: "jobs_wait",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["timed_out"],
        tool: "llm-jobs",
        command: &["wait"],
        description: "Waits until jobs end or a timeout passes, then reports them; fails if one did not end done. Costs the waiting time and nothing else.",
        effects: READS,
    },
    Operation {
        name: "jobs_logs",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["content"],
        tool: "llm-jobs",
        command: &["logs"],
        description: "A background job's stdout, stderr or both merged (the last N lines, from a byte offset, or following until it ends), with secrets redacted.",
        effects: READS,
    },
    Operation {
        name: "jobs_kill",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["lost_processes_signalled"],
        tool: "llm-jobs",
        command: &["kill"],
        description: "Signals a job's whole process group (TERM, then KILL after a grace period).",
        effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
    },
    Operation {
        name: "jobs_remove",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["removed"],
        tool: "llm-jobs",
        command: &["rm"],
        description: "Removes a finished job and its output.",
        effects: REMOVES,
    },
    Operation {
        name: "jobs_prune",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["removed"],
        tool: "llm-jobs",
        command: &["prune"],
        description: "Removes every finished job and its output.",
        effects: REMOVES,
    },
    Operation {
        name: "jobs_group",
        mcp_defaults: &[],
        group: Group::Jobs,
        output: &["groups"],
        tool: "llm-jobs",
        command: &["group"],
        description: "Lists job groups with their parallel limits, or sets a group's limit.",
        effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
    },
    Operation {
        name: "log_list",
        mcp_defaults: &[],
        group: Group::Log,
        output: &["runs"],
        tool: "aide",
        command: &["log", "list"],
        description: "Lists recent runs of every aide tool from the execution log, newest first, with execution ids.",
        effects: READS,
    },
    Operation {
        name: "log_show",
        mcp_defaults: &[],
        group: Group::Log,
        output: &[],
        tool: "aide",
        command: &["log", "show"],
        description: "Returns the stored result of a past run by execution_id, exactly as the tool printed it: recovers a result after a context was compacted without running the tool again.",
        effects: READS,
    },
    Operation {
        name: "log_prune",
        mcp_defaults: &[],
        group: Group::Log,
        output: &["remaining"],
        tool: "aide",
        command: &["log", "prune"],
        description: "Removes old runs from the execution log now (retention also runs automatically).",
        effects: REMOVES,
    },
];

/// The operations of `tool`, in catalogue order.
pub fn operations_of(tool: &str) -> impl Iterator<Item = &'static Operation> + '_ {
    OPERATIONS.iter().filter(move |op| op.tool == tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_mcp_valid() {
        let mut seen = std::collections::BTreeSet::new();
        for op in OPERATIONS {
            assert!(seen.insert(op.name), "{} twice", op.name);
            // MCP tool names: 1-64 characters of [A-Za-z0-9_.-].
            assert!(op.name.len() <= 64 && op.name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)));
        }
    }

    #[test]
    fn every_tool_has_operations_and_every_operation_a_listed_tool() {
        for (tool, _) in crate::TOOLS {
            assert!(operations_of(tool).next().is_some(), "{tool} has no operation");
        }
        for op in OPERATIONS {
            assert!(crate::TOOLS.iter().any(|(t, _)| *t == op.tool), "{} belongs to no listed tool", op.name);
        }
    }

    #[test]
    fn read_only_operations_are_auto_and_never_destructive_or_open_world() {
        for op in OPERATIONS {
            assert_eq!(op.gate() == Gate::Auto, op.effects.read_only, "{}", op.name);
            if op.effects.read_only {
                assert!(!op.effects.destructive && !op.effects.open_world, "{}", op.name);
            }
        }
    }
}
