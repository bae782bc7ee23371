//! What aide answers: runs of the log, the catalogue of tools, the doctor's checks, and their text form.

use crate::doctor;
use crate::request::DefinitionFormat;
use aide_core::color::{Paint, TextOut};
use aide_core::operation::{Effects, Gate, Operation};
use aide_core::tool::Render;
use aide_log::{PruneReport, RunSummary};
use schemars::JsonSchema;
use serde::Serialize;
use std::io::{self, Write};

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
        processes: Vec<aide_gate::ProcessRecord>,
        /// The stored JSON document of the run.
        #[serde(skip)]
        result_json: String,
    },
    Prune(PruneReport),
    Stats {
        /// One entry per tool, by name.
        per_tool: Vec<crate::log_stats::ToolStats>,
    },
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
    // Long because: one arm per output variant, each written in its order.
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
            AideOutput::Stats { per_tool } => {
                for s in per_tool {
                    writeln!(
                        w,
                        "{:<20} runs={} errors={} ({:.1}%) unfinished={} p50={:.1}ms p95={:.1}ms max={:.1}ms",
                        s.tool,
                        s.runs,
                        s.errors,
                        s.error_rate * 100.0,
                        s.unfinished,
                        s.p50_ms,
                        s.p95_ms,
                        s.max_ms
                    )?;
                }
            }
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
            && !matches!(self, AideOutput::Stats { per_tool } if per_tool.is_empty())
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
            AideOutput::Stats { .. } => Some(("per_tool", "tool_stats")),
            AideOutput::Tools { .. } => Some(("tools", "tool")),
            AideOutput::Definitions { .. } => Some(("definitions", "definition")),
            AideOutput::Doctor(_) => Some(("checks", "check")),
            _ => None,
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        match self {
            AideOutput::Runs { runs } => aide_core::tool::keep_range(runs, range),
            AideOutput::Stats { per_tool } => aide_core::tool::keep_range(per_tool, range),
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
