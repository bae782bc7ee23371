//! # aide: the umbrella command
//!
//! * `aide log list [--tool T] [--limit N] [--since TIME]` — recent runs of
//!   every tool, newest first.
//! * `aide log show ID` — the stored result of run `ID` (a unique prefix of at
//!   least 8 characters will do). With `--json` it prints the JSON document
//!   exactly as the tool printed it, so an agent can recover a result after its
//!   context was compacted.
//! * `aide log stats [--tool T] [--since TIME]` — calls, errors, error rate
//!   and p50/p95 latency per tool, from the local log.
//! * `aide log prune [--older-than DURATION] [--keep N]` — apply retention now.
//! * `aide tools` — the aide tools, whether each is installed, its request
//!   and output schemas (`<tool> --schema`), and its operations: each with
//!   the MCP tool name and description, its effects (`read_only`,
//!   `destructive`, `idempotent`, `open_world`) and its `gate`: `auto` for
//!   read-only operations a harness may run without asking, `gated` for the
//!   rest (see [`catalogue`]).
//!
//! * `aide doctor` — checks what the tools rely on (bash, git, rustfmt and
//!   cargo for the guards, rg and ctags for the test suite, a writable
//!   `AIDE_HOME`, the log and job databases' integrity and size, interrupted
//!   transforms, lock files, shell sessions, OpenTelemetry export: the
//!   endpoint's health and the spans sent and dropped) and says how to fix each miss;
//!   exit 0 when no check fails, 3 when one does (see [`doctor`]).
//!
//! Wire format: the aide envelope with `runs` (list), `removed`/`remaining`
//! (prune), `tools` (tools) or `healthy`/`checks` (doctor); `log show --json` prints the stored document
//! instead of an envelope. Runs of `aide` itself are not logged.

pub mod catalogue;
mod doctor;
mod error;
mod log;
mod log_stats;
mod mcp;
mod operations;
mod output;
mod request;
mod telemetry;

use aide_core::AideError;
use aide_core::tool::{Context, Outcome, Tool};

use crate::error::AideToolError;
use aide_core::operation::Operation;

pub use crate::catalogue::TOOLS;
use log::run_log;
pub use log_stats::ToolStats;
pub use output::{AideOutput, LoggedRun, OperationInfo, ToolInfo};
pub use request::{AideCommand, AideRequest, DefinitionFormat, LogAction};

/// The `aide` command.
#[derive(Debug)]
pub struct Aide;

impl Tool for Aide {
    const NAME: &'static str = "aide";
    const SUMMARY: &'static str = "The umbrella: execution-log retrieval and this catalogue.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "The aide umbrella: execution-log retrieval, the list of tools, `aide doctor`, and `aide mcp`, \
                                 the MCP server of every tool (see `aide mcp --help`).";
    const AFTER_HELP: Option<&'static str> = Some(
        "Also:\n  aide mcp [--root DIR] [--tools GROUPS] [--max-output-chars N] [--no-log]\n          \
         Serve every aide tool over the Model Context Protocol on stdin/stdout (aide mcp --help)",
    );
    const LOG: bool = false;
    type Request = AideRequest;
    type Output = AideOutput;

    /// `aide mcp` serves MCP on stdio, outside the harness; every other
    /// subcommand runs through it.
    fn outside_harness() -> Option<i32> {
        if let Some(status) = telemetry::run_internal_command() {
            return Some(status);
        }
        let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
        argv.get(1).is_some_and(|a| a == "mcp").then(|| mcp::main(argv).code())
    }

    fn outside_subcommands() -> Vec<clap::Command> {
        use clap::CommandFactory;
        vec![mcp::McpArgs::command().name("mcp").bin_name("aide mcp")]
    }

    fn run(request: AideRequest, ctx: &Context) -> Result<Outcome<AideOutput>, AideError> {
        match request.command {
            AideCommand::Log { action } => run_log(action, ctx),
            AideCommand::Doctor { fix } => Ok(AideOutput::Doctor(doctor::doctor(fix))),
            AideCommand::Tools { format: None, tools, full_schemas } => {
                if !tools.is_empty() || full_schemas {
                    return Err(AideToolError::DefinitionsWithoutFormat.into());
                }
                Ok(AideOutput::Tools { tools: list_tools() })
            }
            AideCommand::Tools { format: Some(format), tools, full_schemas } => Ok(AideOutput::Definitions {
                format,
                definitions: mcp::tool_definitions(format, &mcp::groups(&tools)?, full_schemas)?,
            }),
        }
        .map(Outcome::new)
    }
}

fn list_tools() -> Vec<ToolInfo> {
    TOOLS
        .iter()
        .map(|tool| {
            let (name, description) = (tool.name, tool.summary);
            let path = aide_gate::program::find_executable(name);
            let schema = path.as_ref().and_then(|p| {
                #[allow(clippy::disallowed_methods)] // aide's own tools, asked for their schemas
                let out = std::process::Command::new(p).arg("--schema").env("AIDE_LOG", "off").output().ok()?;
                serde_json::from_slice(&out.stdout).ok()
            });
            ToolInfo {
                name: name.to_string(),
                description: description.to_string(),
                installed: path.is_some(),
                path: path.map(|p| p.display().to_string()),
                schema,
                operations: tool.operations.iter().map(OperationInfo::from).collect(),
            }
        })
        .collect()
}
