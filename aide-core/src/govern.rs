//! What a host that runs tools for someone else (`aide mcp`) governs in a
//! request, read and set on the typed request, never by editing its JSON by
//! field name: the sandbox it imposes on a tool that runs commands, the
//! risk cap it hands a tool that rates its own command, and each text of
//! the request that would reach a shell, which the host rates before the
//! run. A tool's request says where these are by implementing [`Governed`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::sandbox::SandboxArgs;

/// Estimated risk of a command, ordered.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

/// A text of a request that reaches a shell, in the form it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellInput {
    /// A command line a shell runs.
    Line(String),
    /// A program and its arguments, each passed literally.
    Argv(Vec<String>),
    /// `NAME=value`, exported to the commands that follow.
    Assignment(String),
    /// A variable taken from the commands that follow.
    Unset(String),
    /// Text or keys typed into a terminal: whatever reads them (a shell, a
    /// REPL, an editor's `:!`) may run anything.
    Typed,
}

/// Where a [`ShellInput`] comes from: the request's argument that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub argument: &'static str,
    pub input: ShellInput,
}

impl Reach {
    pub fn new(argument: &'static str, input: ShellInput) -> Reach {
        Reach { argument, input }
    }
}

/// The parts of a request a host governs. Every tool's request implements
/// it; one that runs nothing keeps the defaults (nothing governed).
pub trait Governed {
    /// The sandbox of a request whose tool runs commands.
    fn sandbox(&mut self) -> Option<&mut SandboxArgs> {
        None
    }

    /// The risk cap of a request whose tool rates its own command (and
    /// refuses it, nothing run, above the cap).
    fn max_risk(&mut self) -> Option<&mut Option<Risk>> {
        None
    }

    /// The folder the request's commands run in, where it names one
    /// (relative to the call's root): rated commands are judged there.
    fn working_dir(&self) -> Option<&std::path::Path> {
        None
    }

    /// Each text of the request that reaches a shell and that its tool does
    /// not rate against [`Governed::max_risk`] itself, as it will run (a
    /// default the request leaves out included).
    fn shell_inputs(&self) -> Vec<Reach> {
        Vec::new()
    }
}

/// The command a [`crate::command::CommandArgs`] names, as a shell input.
pub fn command_input(command: &crate::command::CommandArgs) -> Vec<Reach> {
    let mut out = Vec::new();
    if let Some(line) = &command.command {
        out.push(Reach::new("command", ShellInput::Line(line.clone())));
    }
    if let Some(argv) = command.argv.as_ref().filter(|a| !a.is_empty()) {
        out.push(Reach::new("argv", ShellInput::Argv(argv.clone())));
    }
    out
}

/// `NAME=value` settings carried by `argument`, as shell inputs.
pub fn assignments(argument: &'static str, settings: &[String]) -> impl Iterator<Item = Reach> {
    settings.iter().map(move |s| Reach::new(argument, ShellInput::Assignment(s.clone())))
}
