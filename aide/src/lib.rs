//! # aide: the umbrella command
//!
//! * `aide log list [--tool T] [--limit N] [--since TIME]` — recent runs of
//!   every tool, newest first.
//! * `aide log show ID` — the stored result of run `ID` (a unique prefix of at
//!   least 8 characters will do). With `--json` it prints the JSON document
//!   exactly as the tool printed it, so an agent can recover a result after its
//!   context was compacted.
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
//!   transforms, lock files, shell sessions) and says how to fix each miss;
//!   exit 0 when no check fails, 3 when one does (see [`doctor`]).
//!
//! Wire format: the aide envelope with `runs` (list), `removed`/`remaining`
//! (prune), `tools` (tools) or `healthy`/`checks` (doctor); `log show --json` prints the stored document
//! instead of an envelope. Runs of `aide` itself are not logged.

pub mod catalogue;
pub mod doctor;
pub mod error;
pub mod mcp;

use std::io::{self, Write};

use aide_core::AideError;
use aide_core::color::{Paint, TextOut};
use aide_core::log::{ExecutionLog, ListFilter, PruneReport, RunSummary};
use aide_core::tool::{Context, Outcome, Render, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::AideToolError;
use aide_core::operation::{Effects, Gate, Group, Operation, READS, REMOVES};

/// The `aide` executable: `aide mcp` serves MCP on stdio; every other
/// subcommand runs through the common harness.
pub fn main() -> ! {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let status =
        if argv.get(1).is_some_and(|a| a == "mcp") { mcp::main(argv) } else { aide_core::cli::run::<Aide>(argv) };
    std::process::exit(status.code())
}

pub use crate::catalogue::TOOLS;

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
        /// With --format: only these toolsets, comma-separated (search, edit, shell, jobs, log, all),
        /// as `aide mcp --tools` serves them.
        #[arg(long, value_name = "GROUPS", value_delimiter = ',', requires = "format", value_parser = mcp::toolset_names())]
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

/// One tool as `aide tools` reports it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub installed: bool,
    pub path: Option<String>,
    /// The tool's `--schema` document: request and output schemas.
    pub schema: Option<serde_json::Value>,
    /// What the tool does, operation by operation.
    pub operations: Vec<OperationInfo>,
}

/// One operation of a tool as `aide tools` reports it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OperationInfo {
    /// The MCP tool name (`shell_exec`).
    pub name: String,
    /// The command line that runs it (`llm-shell exec`).
    pub command: String,
    pub description: String,
    pub effects: Effects,
    pub gate: Gate,
}

impl From<&Operation> for OperationInfo {
    fn from(op: &Operation) -> OperationInfo {
        OperationInfo {
            name: op.name.to_string(),
            command: op.command_line(),
            description: op.description.to_string(),
            effects: op.effects,
            gate: op.gate(),
        }
    }
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum AideOutput {
    Runs {
        runs: Vec<LoggedRun>,
    },
    Show {
        run: Box<RunSummary>,
        /// The processes the run started (checkers, verify commands, hooks,
        /// language servers), in order, with the sandbox each ran in.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        processes: Vec<aide_core::gate::ProcessRecord>,
        /// The stored JSON document of the run.
        #[serde(skip)]
        result_json: String,
    },
    Prune(PruneReport),
    Tools {
        tools: Vec<ToolInfo>,
    },
    Doctor(doctor::DoctorReport),
    Definitions {
        format: DefinitionFormat,
        /// One definition per operation, in the format's own shape.
        definitions: Vec<serde_json::Value>,
    },
}

/// A logged run, with the MCP tool that does what it did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LoggedRun {
    #[serde(flatten)]
    pub run: RunSummary,
    /// The MCP tool its command line is (`git_write` for `llm-git commit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_tool: Option<&'static str>,
}

impl Render for AideOutput {
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            AideOutput::Runs { runs } => {
                for LoggedRun { run: r, mcp_tool } in runs {
                    // Over MCP, the tool a model would call; on the command line, the command line.
                    let what = match (w.voice(), mcp_tool) {
                        (aide_core::voice::Voice::Mcp, Some(tool)) => tool.to_string(),
                        _ => std::iter::once(r.tool.as_str())
                            .chain(r.argv.iter().skip(1).map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(" "),
                    };
                    writeln!(
                        w,
                        "{} {} exit={} {:.1}ms {}",
                        r.execution_id, r.started_at, r.exit_code, r.duration_ms, what
                    )?;
                }
            }
            AideOutput::Show { run, processes, result_json } => {
                writeln!(w, "execution_id: {}", run.execution_id)?;
                writeln!(w, "tool: {} {}", run.tool, run.version)?;
                writeln!(w, "argv: {}", run.argv.join(" "))?;
                writeln!(
                    w,
                    "started_at: {}  duration_ms: {:.3}  exit_code: {}",
                    run.started_at, run.duration_ms, run.exit_code
                )?;
                for p in processes {
                    let exit = p.exit_code.map_or_else(|| "no exit code".to_string(), |c| format!("exit {c}"));
                    let timed_out = if p.timed_out { ", timed out" } else { "" };
                    writeln!(
                        w,
                        "process: {}: {} ({}, {exit}{timed_out}, {} ms, in {})",
                        p.purpose, p.command, p.sandbox, p.duration_ms, p.working_dir
                    )?;
                }
                writeln!(w, "result:")?;
                writeln!(w, "{result_json}")?;
            }
            AideOutput::Prune(p) => writeln!(w, "removed {} runs, {} remain", p.removed, p.remaining)?,
            AideOutput::Doctor(report) => {
                for c in &report.checks {
                    let paint = match c.status {
                        doctor::CheckStatus::Ok => Paint::Good,
                        doctor::CheckStatus::Warn => Paint::Warn,
                        doctor::CheckStatus::Fail => Paint::Bad,
                    };
                    w.paint(paint, format_args!("{:<4}", c.status.as_str()))?;
                    writeln!(w, "  {:<18} {}", c.name, c.detail)?;
                    if let Some(fix) = &c.fix {
                        writeln!(w, "      {:<18} fix: {fix}", "")?;
                    }
                }
                let failed = report.checks.iter().filter(|c| c.status == doctor::CheckStatus::Fail).count();
                let warned = report.checks.iter().filter(|c| c.status == doctor::CheckStatus::Warn).count();
                writeln!(w, "{failed} failed, {warned} warned, {} checks", report.checks.len())?;
            }
            // The array alone, ready to hand to a harness (`> tools.json`).
            AideOutput::Definitions { definitions, .. } => {
                let text = serde_json::to_string_pretty(definitions).map_err(io::Error::other)?;
                writeln!(w, "{text}")?;
            }
            AideOutput::Tools { tools } => {
                for t in tools {
                    let (state, paint) =
                        if t.installed { ("installed", Paint::Good) } else { ("not installed", Paint::Bad) };
                    w.paint(Paint::Kind, format_args!("{:<16}", t.name))?;
                    write!(w, " ")?;
                    w.paint(paint, format_args!("{state:<14}"))?;
                    writeln!(w, " {}", t.description)?;
                    for op in &t.operations {
                        let (gate, paint) = match op.gate {
                            Gate::Auto => ("auto", Paint::Good),
                            Gate::Gated => ("gated", Paint::Warn),
                        };
                        write!(w, "  {:<20} ", op.name)?;
                        w.paint(paint, format_args!("{gate:<6}"))?;
                        writeln!(w, " {}", op.command)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn found(&self) -> bool {
        !matches!(self, AideOutput::Runs { runs } if runs.is_empty())
    }

    fn exit_status(&self) -> aide_core::ExitStatus {
        match self {
            // A check that ran and failed, as `--validate` finding syntax errors.
            AideOutput::Doctor(report) if !report.healthy => aide_core::ExitStatus::Conflict,
            _ => aide_core::ExitStatus::found(self.found()),
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            AideOutput::Runs { .. } => Some(("runs", "run")),
            AideOutput::Tools { .. } => Some(("tools", "tool")),
            AideOutput::Definitions { .. } => Some(("definitions", "definition")),
            AideOutput::Doctor(_) => Some(("checks", "check")),
            _ => None,
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        match self {
            AideOutput::Runs { runs } => aide_core::tool::keep_range(runs, range),
            AideOutput::Tools { tools } => aide_core::tool::keep_range(tools, range),
            AideOutput::Definitions { definitions, .. } => aide_core::tool::keep_range(definitions, range),
            _ => {}
        }
    }

    fn raw_json(&self) -> Option<&str> {
        match self {
            AideOutput::Show { result_json, .. } => Some(result_json),
            _ => None,
        }
    }
}

/// The `aide` command.
#[derive(Debug)]
pub struct Aide;

impl Tool for Aide {
    const NAME: &'static str = "aide";
    const SUMMARY: &'static str = "The umbrella: execution-log retrieval and this catalogue.";
    const OPERATIONS: &'static [Operation] = &[
        Operation {
            name: "log_list",
            tool: Self::NAME,
            command: &["log", "list"],
            group: Group::Log,
            description: "Recent runs of aide's tools, newest first, with execution ids.",
            effects: READS,
            output: &["runs"],
            mcp_defaults: &[],
            mcp: aide_core::operation::Mcp::DERIVED,
        },
        Operation {
            name: "log_show",
            tool: Self::NAME,
            command: &["log", "show"],
            group: Group::Log,
            description: "A past run's result by execution_id, as printed.",
            effects: READS,
            output: &[],
            mcp_defaults: &[],
            mcp: aide_core::operation::Mcp { stored_result: true, ..aide_core::operation::Mcp::DERIVED },
        },
        Operation {
            name: "log_prune",
            tool: Self::NAME,
            command: &["log", "prune"],
            group: Group::Log,
            description: "Removes old runs from the execution log.",
            effects: REMOVES,
            output: &["remaining"],
            mcp_defaults: &[],
            mcp: aide_core::operation::Mcp::DERIVED,
        },
    ];
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

/// Whether a run confined to roots (`aide mcp`) may see a logged run: its
/// root, or where it ran when it opened none, lies under them.
fn visible(run: &aide_core::log::RunSummary, ctx: &Context) -> bool {
    !ctx.is_confined()
        || run.root.as_deref().or(run.cwd.as_deref()).is_some_and(|place| ctx.confined(std::path::Path::new(place)))
}

/// The program a run is logged under for `given`: a program's name
/// (`llm-search`) or one of its MCP tools' (`search`); refused, naming the
/// closest, when neither.
fn logged_tool(given: &str) -> Result<String, AideError> {
    if let Some(listed) = catalogue::TOOLS.iter().find(|t| t.name == given) {
        return Ok(listed.name.to_string());
    }
    if let Some(op) = catalogue::operations().find(|o| o.name == given) {
        return Ok(op.tool.to_string());
    }
    let names = catalogue::TOOLS.iter().map(|t| t.name).chain(catalogue::operations().map(|o| o.name));
    let closest = aide_core::suggest::closest(given, names).map(str::to_string);
    Err(AideToolError::UnknownTool { given: given.to_string(), closest }.into())
}

fn run_log(action: LogAction, ctx: &Context) -> Result<AideOutput, AideError> {
    let mut log = ExecutionLog::open_default()?;
    match action {
        LogAction::List { tool, limit, since } => {
            let since = since.as_deref().map(aide_core::time::parse_since).transpose()?;
            let tool = tool.as_deref().map(logged_tool).transpose()?;
            let runs = log.list(&ListFilter { tool, limit, since })?;
            let runs = runs
                .into_iter()
                .filter(|r| visible(r, ctx))
                .map(|run| {
                    let mcp_tool = catalogue::operation_of(&run.tool, run.argv.get(1..).unwrap_or_default());
                    LoggedRun { mcp_tool: mcp_tool.map(|op| op.name), run }
                })
                .collect();
            Ok(AideOutput::Runs { runs })
        }
        LogAction::Show { id } => {
            let stored = log.get(&id)?;
            if !visible(&stored.summary, ctx) {
                return Err(aide_core::log::no_run(&id));
            }
            if stored.summary.error_code.as_deref() == Some(aide_core::log::UNFINISHED) {
                return Err(AideToolError::Unfinished { execution_id: stored.summary.execution_id }.into());
            }
            if stored.summary.result_capped {
                return Err(AideToolError::ResultCapped {
                    execution_id: stored.summary.execution_id,
                    bytes: stored.summary.result_bytes,
                }
                .into());
            }
            let result_json = stored
                .result_json
                .ok_or_else(|| AideError::internal("a stored run has no result and is not flagged as capped"))?;
            Ok(AideOutput::Show { run: Box::new(stored.summary), processes: stored.processes, result_json })
        }
        LogAction::Prune { older_than, keep } => {
            let older_than = older_than.as_deref().map(aide_core::time::parse_duration).transpose()?;
            Ok(AideOutput::Prune(log.prune(older_than, keep)?))
        }
    }
}

fn list_tools() -> Vec<ToolInfo> {
    TOOLS
        .iter()
        .map(|tool| {
            let (name, description) = (tool.name, tool.summary);
            let path = aide_core::cli::find_executable(name);
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
