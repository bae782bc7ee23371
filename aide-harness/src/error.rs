//! Why the command line of a tool is refused, or its output cannot be
//! written, mapped once to the contract's codes. (The harness has no
//! `thiserror`: these errors are only ever shown as [`AideError`]s.)

use std::io;

use aide_core::{AideError, code};

/// Why a command-line run failed before or after its tool ran.
#[derive(Debug)]
pub(crate) enum CliError {
    /// `--generate` names a kind there is none of (`kinds` lists them).
    UnknownGenerateKind { value: String, kinds: Vec<String> },
    /// Writing the completion script or man page failed.
    Generate(io::Error),
    /// clap refused the flags: its first line (and what it lists under it),
    /// and its tips.
    Clap { message: String, tips: Vec<String> },
    /// `--request` with request flags (`given`); `output_flags` may accompany it.
    RequestWithFlags { given: Vec<String>, output_flags: &'static [&'static str] },
    /// `--request` after the subcommand of `tool`.
    RequestAfterSubcommand { tool: &'static str },
    /// Writing the output failed.
    WriteOutput(io::Error),
}

impl From<CliError> for AideError {
    fn from(e: CliError) -> AideError {
        match e {
            CliError::UnknownGenerateKind { value, kinds } => {
                AideError::new(code::INVALID_ARGUMENTS, format!("--generate {value:?}: unknown kind"))
                    .with_hint(format!("one of: {}", kinds.join(", ")))
            }
            CliError::Generate(e) => AideError::new(code::IO_ERROR, e.to_string()),
            CliError::Clap { message, tips } => {
                AideError::new(code::INVALID_ARGUMENTS, message).with_hint(tips.join("; "))
            }
            CliError::RequestWithFlags { given, output_flags } => AideError::new(
                code::INVALID_ARGUMENTS,
                format!("--request cannot be combined with {}", given.join(", ")),
            )
            .with_hint(match output_flags {
                [] => "put every field in the request JSON, or use flags only".to_string(),
                flags => format!(
                    "put every field in the request JSON, or use flags only; only {} may accompany --request",
                    flags.iter().map(|f| format!("--{}", f.replace('_', "-"))).collect::<Vec<_>>().join(", ")
                ),
            }),
            CliError::RequestAfterSubcommand { tool } => {
                AideError::new(code::INVALID_ARGUMENTS, "--request must come before the subcommand")
                    .with_hint(format!("write `{tool} --request FILE`: the request names the subcommand itself"))
            }
            CliError::WriteOutput(e) => AideError::new(code::IO_ERROR, format!("writing output: {e}")),
        }
    }
}
