//! Who reads a message, and the words it is said in.
//!
//! A hint, a continuation line, an undo line or an error names arguments
//! and operations. On the command line they are flags and binaries
//! (`continue with --offset 45`, `llm-transform undo 01a2…`); over MCP the
//! same message names the call's arguments and the MCP tools
//! (`continue with offset: 45`, `transform_undo {"execution_id":"01a2…"}`).
//! A message is written once, as a function of its [`Voice`], from typed
//! references: an argument by its request field, an operation by the
//! [`Operation`] a tool declares (its MCP name and its command line both
//! come from there, never from a second table).
//!
//! The voice reaches what renders: [`crate::tool::Context::voice`] for what
//! a run builds, [`crate::color::TextOut::voice`] for the text form, and
//! [`Phrase`] for errors, which are made where no context is at hand and
//! so keep both renderings until the caller's voice picks one.

use std::fmt::{self, Display};
use std::ops::Deref;

use serde_json::{Map, Value};

use crate::operation::Operation;

/// Who a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Voice {
    /// A person, script or agent at the command line: flags and binaries.
    #[default]
    Cli,
    /// A model calling `aide mcp`: MCP tools and their arguments.
    Mcp,
}

impl Voice {
    pub const ALL: [Voice; 2] = [Voice::Cli, Voice::Mcp];

    /// An argument, by its request field: `--max-filesize` on the command
    /// line, `max_filesize` over MCP.
    pub fn arg(self, field: &str) -> String {
        match self {
            Voice::Cli => flag(field),
            Voice::Mcp => field.to_string(),
        }
    }

    /// An argument with a value: `--offset 45`, or `offset: 45`.
    pub fn arg_is(self, field: &str, value: impl Display) -> String {
        match self {
            Voice::Cli => format!("{} {value}", flag(field)),
            Voice::Mcp => format!("{field}: {value}"),
        }
    }

    /// A switch turned on: `--force`, or `force: true`.
    pub fn on(self, field: &str) -> String {
        match self {
            Voice::Cli => flag(field),
            Voice::Mcp => format!("{field}: true"),
        }
    }

    /// An operation: `llm-transform undo`, or `transform_undo`. Of an
    /// operation over several subcommands (`status|diff|log`), the command
    /// line without them: a call names its own as the `command` argument,
    /// by position ([`Given::positional`]).
    pub fn op(self, op: &Operation) -> String {
        match self {
            Voice::Cli => op.words().filter(|w| !w.contains('|')).collect::<Vec<_>>().join(" "),
            Voice::Mcp => op.name.to_string(),
        }
    }

    /// An operation called with arguments: `llm-transform undo 01a2…`, or
    /// `transform_undo {"execution_id":"01a2…"}`.
    pub fn call(self, op: &Operation, args: &[Given<'_>]) -> String {
        let mut said = self.op(op);
        match self {
            Voice::Cli => {
                for given in args {
                    said.push(' ');
                    said.push_str(&given.cli());
                }
            }
            Voice::Mcp if args.is_empty() => {}
            Voice::Mcp => {
                let fields: Map<String, Value> = args.iter().map(|g| (g.field.to_string(), g.value.clone())).collect();
                said.push(' ');
                said.push_str(&Value::Object(fields).to_string());
            }
        }
        said
    }

    /// Words only one side has (a short flag, stdin, a shell pipeline):
    /// `cli` on the command line, `mcp` over MCP.
    pub fn pick<T>(self, cli: T, mcp: T) -> T {
        match self {
            Voice::Cli => cli,
            Voice::Mcp => mcp,
        }
    }
}

/// A request field's long flag: `max_filesize` → `--max-filesize`.
fn flag(field: &str) -> String {
    format!("--{}", field.replace('_', "-"))
}

/// An argument of an operation called in a message ([`Voice::call`]).
#[derive(Debug, Clone)]
pub struct Given<'a> {
    field: &'a str,
    value: Value,
    /// On the command line, a positional argument (`llm-jobs wait ID`).
    positional: bool,
}

impl<'a> Given<'a> {
    /// An argument the command line gives as a flag (`--stream stdout`;
    /// `true` is the bare switch).
    pub fn flag(field: &'a str, value: impl Into<Value>) -> Given<'a> {
        Given { field, value: value.into(), positional: false }
    }

    /// An argument the command line gives by position (`undo ID`; a list
    /// is its words).
    pub fn positional(field: &'a str, value: impl Into<Value>) -> Given<'a> {
        Given { field, value: value.into(), positional: true }
    }

    fn cli(&self) -> String {
        let words = |v: &Value| match v {
            Value::String(s) => crate::quote::quote_word(s.as_bytes()),
            Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => crate::quote::quote_word(s.as_bytes()),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" "),
            other => other.to_string(),
        };
        match (&self.value, self.positional) {
            (value, true) => words(value),
            (Value::Bool(true), false) => flag(self.field),
            (value, false) => format!("{} {}", flag(self.field), words(value)),
        }
    }
}

/// A message said in either voice, made where the reader is not yet known
/// (an error deep in a tool): both renderings of one function of the
/// [`Voice`], the caller's picked when it is shown. It reads as the
/// command line's words ([`Deref`], [`Display`]) wherever no voice is asked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Phrase {
    cli: String,
    /// Only where it differs from `cli` (boxed: errors stay small).
    mcp: Option<Box<str>>,
}

/// A [`Phrase`]: `say(|v| format!("continue with {}", v.arg_is("offset", 45)))`.
pub fn say(words: impl Fn(Voice) -> String) -> Phrase {
    Phrase::new(words)
}

impl Phrase {
    pub fn new(words: impl Fn(Voice) -> String) -> Phrase {
        let cli = words(Voice::Cli);
        let mcp = words(Voice::Mcp);
        Phrase { mcp: (mcp != cli).then(|| mcp.into_boxed_str()), cli }
    }

    /// The words for `voice`.
    pub fn get(&self, voice: Voice) -> &str {
        match (voice, &self.mcp) {
            (Voice::Mcp, Some(mcp)) => mcp,
            _ => &self.cli,
        }
    }

    /// The same change made to both renderings.
    pub fn map(self, f: impl Fn(&str) -> String) -> Phrase {
        Phrase { cli: f(&self.cli), mcp: self.mcp.as_deref().map(|m| f(m).into_boxed_str()) }
    }

    /// Both renderings, for a wire that carries the phrase whole (a
    /// keeper's answer).
    pub fn into_parts(self) -> (String, Option<String>) {
        (self.cli, self.mcp.map(String::from))
    }

    pub fn from_parts(cli: String, mcp: Option<String>) -> Phrase {
        Phrase { cli, mcp: mcp.map(String::into_boxed_str) }
    }
}

impl Deref for Phrase {
    type Target = str;
    fn deref(&self) -> &str {
        &self.cli
    }
}

impl Display for Phrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.cli)
    }
}

impl From<String> for Phrase {
    fn from(cli: String) -> Phrase {
        Phrase { cli, mcp: None }
    }
}

impl From<&str> for Phrase {
    fn from(cli: &str) -> Phrase {
        Phrase { cli: cli.to_string(), mcp: None }
    }
}

impl From<&String> for Phrase {
    fn from(cli: &String) -> Phrase {
        Phrase { cli: cli.clone(), mcp: None }
    }
}

impl From<Phrase> for String {
    fn from(p: Phrase) -> String {
        p.cli
    }
}

impl PartialEq<str> for Phrase {
    fn eq(&self, other: &str) -> bool {
        self.cli == other
    }
}

impl PartialEq<&str> for Phrase {
    fn eq(&self, other: &&str) -> bool {
        self.cli == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operation::{Group, READS};

    const UNDO: Operation = Operation {
        name: "transform_undo",
        group: Group::Edit,
        output: &[],
        mcp_defaults: &[],
        mcp: crate::operation::Mcp::DERIVED,
        tool: "llm-transform",
        command: &["undo"],
        description: "",
        effects: READS,
    };

    #[test]
    fn arguments_are_flags_on_the_command_line_and_fields_over_mcp() {
        assert_eq!(Voice::Cli.arg("max_filesize"), "--max-filesize");
        assert_eq!(Voice::Mcp.arg("max_filesize"), "max_filesize");
        assert_eq!(Voice::Cli.arg_is("offset", 45), "--offset 45");
        assert_eq!(Voice::Mcp.arg_is("offset", 45), "offset: 45");
        assert_eq!(Voice::Cli.on("force"), "--force");
        assert_eq!(Voice::Mcp.on("force"), "force: true");
    }

    #[test]
    fn operations_are_command_lines_or_mcp_tools() {
        assert_eq!(Voice::Cli.op(&UNDO), "llm-transform undo");
        assert_eq!(Voice::Mcp.op(&UNDO), "transform_undo");
        let args = [Given::positional("execution_id", "01a2"), Given::flag("force", true)];
        assert_eq!(Voice::Cli.call(&UNDO, &args), "llm-transform undo 01a2 --force");
        assert_eq!(Voice::Mcp.call(&UNDO, &args), r#"transform_undo {"execution_id":"01a2","force":true}"#);
        let quoted = [Given::flag("glob", "a b")];
        assert_eq!(Voice::Cli.call(&UNDO, &quoted), "llm-transform undo --glob 'a b'");
        let git = Operation { name: "git", tool: "llm-git", command: &["status|log"], ..UNDO };
        let log = [Given::positional("command", "log")];
        assert_eq!(Voice::Cli.call(&git, &log), "llm-git log");
        assert_eq!(Voice::Mcp.call(&git, &log), r#"git {"command":"log"}"#);
    }

    #[test]
    fn a_phrase_keeps_both_renderings_and_reads_as_the_command_lines() {
        let p = say(|v| format!("continue with {}", v.arg_is("offset", 3)));
        assert_eq!(p.get(Voice::Cli), "continue with --offset 3");
        assert_eq!(p.get(Voice::Mcp), "continue with offset: 3");
        assert_eq!(&*p, "continue with --offset 3");
        assert_eq!(p.to_string(), "continue with --offset 3");
        let plain = Phrase::from("no flags here");
        assert_eq!(plain.get(Voice::Mcp), "no flags here");
        let mapped = p.map(|s| s.replace("continue", "go on"));
        assert_eq!(mapped.get(Voice::Mcp), "go on with offset: 3");
    }
}
