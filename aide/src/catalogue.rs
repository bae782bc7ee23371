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

/// One operation: a tool, or one subcommand of it.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// The MCP tool name.
    pub name: &'static str,
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
        tool: "llm-search",
        command: &[],
        description: "Regex search of file contents across a tree (ripgrep's engine; honours .gitignore and skips hidden and binary files unless asked). Returns every match with path, line, column, byte span and line text, sorted by path and offset, plus skipped files as diagnostics. Use it to find text, identifiers or log lines; use ast_search for definitions and references by syntax, discover to find files by name. Cost: one pass over the files (about 0.1 s for 20,000 files).",
        effects: READS,
    },
    Operation {
        name: "ast_search",
        tool: "llm-ast-search",
        command: &[],
        description: "Structural code search with tree-sitter (Rust, Python, JavaScript, TypeScript, TSX, C, C++, Java, Go): a file's or tree's symbol outline (kind, name path, span, signature), the definitions or references of a name (a name path such as Type/method gets only the uses that mean that definition, each marked resolved, name_only or unresolved), a tree-sitter query, or syntax validation. Every result carries its file's checksum for transform. Use it instead of search when the question is about code structure: where is X defined, where is Y used, what does this file contain. Cost: parses each candidate file; seconds on a large tree, milliseconds on one file.",
        effects: READS,
    },
    Operation {
        name: "ide_operation",
        tool: "llm-ast-search",
        command: &["--dialect"],
        description: "Runs a Dialect program: findDefinitions(`Name`), findReferences(`name`), search(`path`, `regex`, `.ext`) and lines(`path`, start, end), nested in one expression such as findReferences(findDefinition(`validateToken`)), returning typed results (definitions, reference sites, matches, lines). Use it to chain several lookups in one round trip; for a single lookup ast_search is simpler. Cost: like the ast_search calls it makes.",
        effects: READS,
    },
    Operation {
        name: "read",
        tool: "llm-read",
        command: &[],
        description: "Reads one or more files with line numbers and each file's SHA-256 checksum, by line range (10:20) or offset and limit. Pass the checksum as checksum_before to transform so an edit is refused if the file changed. Use it instead of shell cat: it pages long files and refuses binary ones. Cost: proportional to the lines returned.",
        effects: READS,
    },
    Operation {
        name: "transform",
        tool: "llm-transform",
        command: &[],
        description: "Edits files all or nothing: byte-span edits guarded by the file's checksum, exact-text patches, replacing or inserting a block found by symbol name, writing, deleting and renaming files; and across the tree: replace_matches (the records a search or ast_search returned, each guarded by its checksum, with $0/$1/${name} templates), replace_regex (sd-style, with search's glob/type fields and a max_replacements guard), rewrite (a tree-sitter query and a template of its captures) and rename_symbol (a definition and its uses across files, by scope and receiver; doubtful sites are listed, not renamed). Refuses an edit that adds syntax errors, overlaps another or meets a file changed since it was read, and writes nothing then. dry_run returns the unified diffs without writing; every changed file lists its sites before and after. Every applied transform can be undone with transform_undo. Cost: milliseconds per file.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
    },
    Operation {
        name: "transform_undo",
        tool: "llm-transform",
        command: &["undo"],
        description: "Restores the files an applied transform changed, by its execution_id or the last N transforms of this root, if nothing changed them since (otherwise refuses and names the files). Each transform can be undone once.",
        effects: Effects { read_only: false, destructive: true, idempotent: false, open_world: false },
    },
    Operation {
        name: "transform_recover",
        tool: "llm-transform",
        command: &["recover"],
        description: "Finishes or rolls back transforms of this root interrupted mid-commit (process killed, power lost). Every transform does this first; call it alone only to repair a tree before reading it.",
        effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
    },
    Operation {
        name: "discover",
        tool: "llm-discover",
        command: &[],
        description: "Finds files by fuzzy name with fzf-style ranking (query `appRouter` finds app_router.py), lists files by glob and depth, or shows the tree's structure. Use it before read or search when you know part of a path. Cost: one walk of the tree's names, no contents.",
        effects: READS,
    },
    Operation {
        name: "shell_exec",
        tool: "llm-shell",
        command: &["exec"],
        description: "Runs a bash command in a persistent session (working directory and environment survive between calls) or in a throwaway one, with a timeout; returns stdout, stderr and the exit code separately, each cut to a head and tail when long. background hands the command to jobs and returns at once. The command can do anything: check unfamiliar ones with shell_explain first.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "shell_session_new",
        tool: "llm-shell",
        command: &["session", "new"],
        description: "Starts a persistent shell session in a directory and returns its id for shell_exec. Sessions survive restarts until closed.",
        effects: ADDS,
    },
    Operation {
        name: "shell_session_list",
        tool: "llm-shell",
        command: &["session", "list"],
        description: "Lists the shell sessions with their working directories, command counts and last exit codes.",
        effects: READS,
    },
    Operation {
        name: "shell_session_show",
        tool: "llm-shell",
        command: &["session", "show"],
        description: "Shows one session's state: working directory, environment variables set in it, its background jobs and the last exit code.",
        effects: READS,
    },
    Operation {
        name: "shell_session_close",
        tool: "llm-shell",
        command: &["session", "rm"],
        description: "Closes a shell session and deletes its saved state.",
        effects: REMOVES,
    },
    Operation {
        name: "shell_env",
        tool: "llm-shell",
        command: &["env"],
        description: "Sets or unsets environment variables of a session for its later commands.",
        effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
    },
    Operation {
        name: "shell_check",
        tool: "llm-shell",
        command: &["check"],
        description: "Parses a bash command without running it and reports syntax errors with positions. Use it to validate a command you wrote before shell_exec.",
        effects: READS,
    },
    Operation {
        name: "shell_explain",
        tool: "llm-shell",
        command: &["explain"],
        description: "Explains a bash command step by step without running it: each command, what it reads and writes, and a risk level (low to critical) with reasons (deletes files, pipes the network into a shell, …). Use it before running anything unfamiliar or destructive.",
        effects: READS,
    },
    Operation {
        name: "shell_perf",
        tool: "llm-shell",
        command: &["perf"],
        description: "The timing history of commands run in a session through shell_exec, with anomalies (a command much slower than its usual).",
        effects: READS,
    },
    Operation {
        name: "shell_compare",
        tool: "llm-shell",
        command: &["compare"],
        description: "Times a command on a baseline git revision (checked out in a temporary worktree) against the current tree, several runs a side, and says whether the difference is significant. Runs the command many times: slow, and it can do anything the command does.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "jobs_spawn",
        tool: "llm-jobs",
        command: &["spawn"],
        description: "Starts a command in the background and returns its job id at once; the job outlives the caller, with optional group limits, dependencies and a timeout. Use it for builds, test suites and servers; then jobs_wait, jobs_status or jobs_logs.",
        effects: RUNS_COMMANDS,
    },
    Operation {
        name: "jobs_list",
        tool: "llm-jobs",
        command: &["list"],
        description: "Lists the background jobs, oldest first, with status and exit code.",
        effects: READS,
    },
    Operation {
        name: "jobs_status",
        tool: "llm-jobs",
        command: &["status"],
        description: "One background job: status, pid, exit code or signal, timings and output sizes.",
        effects: READS,
    },
    Operation {
        name: "jobs_wait",
        tool: "llm-jobs",
        command: &["wait"],
        description: "Waits until jobs end or a timeout passes, then reports them; fails if one did not end done. Costs the waiting time and nothing else.",
        effects: READS,
    },
    Operation {
        name: "jobs_logs",
        tool: "llm-jobs",
        command: &["logs"],
        description: "A background job's stdout, stderr or both merged (the last N lines, from a byte offset, or following until it ends), with secrets redacted.",
        effects: READS,
    },
    Operation {
        name: "jobs_kill",
        tool: "llm-jobs",
        command: &["kill"],
        description: "Signals a job's whole process group (TERM, then KILL after a grace period).",
        effects: Effects { read_only: false, destructive: true, idempotent: true, open_world: false },
    },
    Operation {
        name: "jobs_remove",
        tool: "llm-jobs",
        command: &["rm"],
        description: "Removes a finished job and its output.",
        effects: REMOVES,
    },
    Operation {
        name: "jobs_prune",
        tool: "llm-jobs",
        command: &["prune"],
        description: "Removes every finished job and its output.",
        effects: REMOVES,
    },
    Operation {
        name: "jobs_group",
        tool: "llm-jobs",
        command: &["group"],
        description: "Lists job groups with their parallel limits, or sets a group's limit.",
        effects: Effects { read_only: false, destructive: false, idempotent: true, open_world: false },
    },
    Operation {
        name: "log_list",
        tool: "aide",
        command: &["log", "list"],
        description: "Lists recent runs of every aide tool from the execution log, newest first, with execution ids.",
        effects: READS,
    },
    Operation {
        name: "log_show",
        tool: "aide",
        command: &["log", "show"],
        description: "Returns the stored result of a past run by execution_id, exactly as the tool printed it: recovers a result after a context was compacted without running the tool again.",
        effects: READS,
    },
    Operation {
        name: "log_prune",
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
