//! aide log: the runs of the execution log a caller may see, listed, shown and pruned.

use crate::catalogue;
use crate::error::AideToolError;
use crate::output::{AideOutput, LoggedRun};
use crate::request::LogAction;
use aide_core::AideError;
use aide_core::tool::Context;
use aide_log::{ExecutionLog, ListFilter};

/// Whether a run confined to roots (`aide mcp`) may see a logged run: its
/// root, or where it ran when it opened none, lies under them.
fn visible(run: &aide_log::RunSummary, ctx: &Context) -> bool {
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

pub(crate) fn run_log(action: LogAction, ctx: &Context) -> Result<AideOutput, AideError> {
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
                return Err(aide_log::no_run(&id));
            }
            if stored.summary.error_code.as_deref() == Some(aide_log::UNFINISHED) {
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
        LogAction::Stats { tool, since } => {
            let since = since.as_deref().map(aide_core::time::parse_since).transpose()?;
            let program = tool.as_deref().map(logged_tool).transpose()?;
            let outcomes = log.outcomes(program.as_deref(), since)?;
            let mcp_tool = |o: &aide_log::RunOutcome| {
                catalogue::operation_of(&o.tool, o.argv.get(1..).unwrap_or_default()).map(|op| op.name)
            };
            // `--tool search` means the MCP tool's runs, not every run of its program.
            let wanted = |o: &&aide_log::RunOutcome| match tool.as_deref() {
                Some(t) if Some(t) != program.as_deref() => mcp_tool(o) == Some(t),
                _ => true,
            };
            let outcomes: Vec<_> = outcomes.iter().filter(wanted).cloned().collect();
            let per_tool = crate::log_stats::per_tool(&outcomes, |o| mcp_tool(o).unwrap_or(&o.tool).to_string());
            Ok(AideOutput::Stats { per_tool })
        }
        LogAction::Prune { older_than, keep } => {
            let older_than = older_than.as_deref().map(aide_core::time::parse_duration).transpose()?;
            Ok(AideOutput::Prune(log.prune(older_than, keep)?))
        }
    }
}
