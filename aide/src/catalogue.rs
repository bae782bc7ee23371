//! The one list of aide's tools. `aide tools`, the MCP server's tools (one
//! per operation each tool declares, [`aide_core::tool::Tool::OPERATIONS`]),
//! its dispatch from a tool's name to its types, and `cargo xtask install`
//! are all derived from it: adding a tool is its crate and one line here.

use aide_core::operation::{Group, Operation};
use aide_core::tool::Tool;

/// A tool as the list holds it.
#[derive(Debug, Clone, Copy)]
pub struct Listed {
    /// The executable and crate.
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    pub operations: &'static [Operation],
    /// Its command line as clap builds it (flags, subcommands, help).
    pub command: fn() -> clap::Command,
}

impl Listed {
    const fn of<T: Tool>() -> Listed {
        Listed {
            name: T::NAME,
            summary: T::SUMMARY,
            operations: T::OPERATIONS,
            command: aide_harness::cli::command_of::<T>,
        }
    }
}

/// Something done with one tool's types; [`with_tool`] finds the types by
/// the tool's name.
pub(crate) trait ToolFn {
    type Out;
    fn call<T: Tool>(self) -> Self::Out;
}

/// The list: each tool's type, in the order `aide tools` shows them.
macro_rules! tools {
    ($($tool:ty),* $(,)?) => {
        /// Every aide tool.
        pub const TOOLS: &[Listed] = &[$(Listed::of::<$tool>()),*];

        /// Applies `f` to the tool named `name`; None for a name no tool has.
        pub(crate) fn with_tool<F: ToolFn>(name: &str, f: F) -> Option<F::Out> {
            $(
                if name == <$tool as Tool>::NAME {
                    return Some(f.call::<$tool>());
                }
            )*
            None
        }
    };
}

tools!(
    llm_search::LlmSearch,
    llm_ast_search::LlmAstSearch,
    llm_transform::LlmTransform,
    llm_read::LlmRead,
    llm_discover::LlmDiscover,
    llm_shell::LlmShell,
    llm_jobs::LlmJobs,
    llm_lint::LlmLint,
    llm_git::LlmGit,
    llm_deps::LlmDeps,
    llm_code::LlmCode,
    crate::Aide,
);

/// Every operation of every tool, in list order.
pub fn operations() -> impl Iterator<Item = &'static Operation> {
    TOOLS.iter().flat_map(|t| t.operations)
}

/// The operation a logged run of `program` with the arguments `rest` ran
/// (`llm-git` `commit -m x` is `git_write`): the one of the program whose
/// words it has the most of (a subcommand word in its place, one of `a|b`,
/// or a mode flag anywhere).
pub fn operation_of(program: &str, rest: &[String]) -> Option<&'static Operation> {
    let has = |at: usize, word: &str| {
        if word.starts_with("--") {
            return rest.iter().any(|a| a == word);
        }
        rest.get(at).is_some_and(|given| word.split('|').any(|w| w == given))
    };
    operations()
        .filter(|op| op.tool == program)
        .filter(|op| op.command.iter().enumerate().all(|(at, word)| has(at, word)))
        .max_by_key(|op| op.command.len())
}

/// What `--tools` takes: `all`, or toolsets by their names (every
/// `Group`: a new one is a variant there, nothing here).
pub fn toolset_names() -> clap::builder::PossibleValuesParser {
    use clap::ValueEnum;
    let names = Group::value_variants().iter().map(|g| g.name()).chain(["all"]);
    clap::builder::PossibleValuesParser::new(names)
}

#[cfg(test)]
mod tests {
    use aide_core::operation::Gate;

    use super::*;

    #[test]
    fn a_logged_command_line_names_its_operation() {
        let of = |line: &str| {
            let words: Vec<String> = line.split(' ').map(str::to_string).collect();
            operation_of(&words[0], &words[1..]).map(|op| op.name)
        };
        assert_eq!(of("llm-git commit -m x"), Some("git_write"));
        assert_eq!(of("llm-git status"), Some("git"));
        assert_eq!(of("llm-shell session new --cwd /x"), Some("shell_session_new"));
        assert_eq!(of("llm-ast-search --dialect f(`x`)"), Some("ide_operation"));
        assert_eq!(of("llm-ast-search --definitions x"), Some("ast_search"));
        assert_eq!(of("llm-search -e x"), Some("search"));
        assert_eq!(of("llm-nothing x"), None);
    }

    #[test]
    fn names_are_unique_and_mcp_valid() {
        let mut seen = std::collections::BTreeSet::new();
        for op in operations() {
            assert!(seen.insert(op.name), "{} twice", op.name);
            // MCP tool names: 1-64 characters of [A-Za-z0-9_.-].
            assert!(op.name.len() <= 64 && op.name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)));
        }
    }

    #[test]
    fn every_tool_has_operations_and_each_is_its_own() {
        for tool in TOOLS {
            assert!(!tool.operations.is_empty(), "{} has no operation", tool.name);
            for op in tool.operations {
                assert_eq!(op.tool, tool.name, "{} is declared by {}", op.name, tool.name);
            }
        }
    }

    #[test]
    fn the_dispatch_knows_every_listed_tool() {
        struct Name;
        impl ToolFn for Name {
            type Out = &'static str;
            fn call<T: Tool>(self) -> &'static str {
                T::NAME
            }
        }
        for tool in TOOLS {
            assert_eq!(with_tool(tool.name, Name), Some(tool.name));
        }
        assert_eq!(with_tool("no-such-tool", Name), None);
    }

    #[test]
    fn auto_operations_are_read_only_and_closed_world() {
        for op in operations() {
            let local_read = op.effects.read_only && !op.effects.open_world;
            assert_eq!(op.gate() == Gate::Auto, local_read, "{}", op.name);
            if op.effects.read_only {
                assert!(!op.effects.destructive, "{}", op.name);
            }
        }
        // The registries' question is read-only, but it leaves the machine: asked first.
        let outdated = operations().find(|op| op.name == "deps_outdated");
        assert_eq!(outdated.map(|op| op.gate()), Some(Gate::Gated));
    }
}
