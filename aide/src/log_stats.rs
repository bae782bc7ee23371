//! `aide log stats`: calls, errors and latency per tool, computed from the
//! local execution log: the same figures the OpenTelemetry metrics give a
//! dashboard across machines (`aide.tool.calls`, `aide.tool.errors`,
//! `aide.tool.duration`), for one machine.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use aide_log::RunOutcome;

/// One tool's figures.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ToolStats {
    /// The MCP tool its runs were (`shell_exec`), else the program (`llm-shell`).
    pub tool: String,
    /// Runs recorded, finished or not.
    pub runs: u64,
    /// Finished runs that failed (`ok: false`).
    pub errors: u64,
    /// Runs that never recorded their end (killed, or still running).
    pub unfinished: u64,
    /// errors / finished runs, to four places (0 when none finished).
    pub error_rate: f64,
    /// Latency of the finished runs, nearest rank, in milliseconds.
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// How many failed with each error code.
    pub error_codes: BTreeMap<String, u64>,
}

/// The figures of every tool among `outcomes`, by tool name; `name` says
/// which tool a run was.
pub(crate) fn per_tool(outcomes: &[RunOutcome], name: impl Fn(&RunOutcome) -> String) -> Vec<ToolStats> {
    let mut by_tool: BTreeMap<String, Vec<&RunOutcome>> = BTreeMap::new();
    for o in outcomes {
        by_tool.entry(name(o)).or_default().push(o);
    }
    by_tool.into_iter().map(|(tool, runs)| figures(tool, &runs)).collect()
}

fn figures(tool: String, runs: &[&RunOutcome]) -> ToolStats {
    let unfinished = |o: &&&RunOutcome| o.error_code.as_deref() == Some(aide_log::UNFINISHED);
    let finished: Vec<&&RunOutcome> = runs.iter().filter(|o| !unfinished(o)).collect();
    let mut error_codes = BTreeMap::new();
    for o in finished.iter().filter(|o| !o.ok) {
        *error_codes.entry(o.error_code.clone().unwrap_or_else(|| "unknown".into())).or_insert(0) += 1;
    }
    let errors = error_codes.values().sum::<u64>();
    let mut latencies: Vec<f64> = finished.iter().map(|o| o.duration_ms).filter(|d| d.is_finite()).collect();
    latencies.sort_by(f64::total_cmp);
    let rate = if finished.is_empty() { 0.0 } else { errors as f64 / finished.len() as f64 };
    ToolStats {
        tool,
        runs: runs.len() as u64,
        errors,
        unfinished: runs.iter().filter(|o| unfinished(o)).count() as u64,
        error_rate: round(rate, 10_000.0),
        p50_ms: round(nearest_rank(&latencies, 50), 1000.0),
        p95_ms: round(nearest_rank(&latencies, 95), 1000.0),
        max_ms: round(latencies.last().copied().unwrap_or(0.0), 1000.0),
        error_codes,
    }
}

/// The nearest-rank percentile of sorted values (0 for none).
fn nearest_rank(sorted: &[f64], percent: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn round(value: f64, scale: f64) -> f64 {
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(tool: &str, ms: f64, ok: bool, code: Option<&str>) -> RunOutcome {
        RunOutcome {
            tool: tool.into(),
            argv: vec![tool.into()],
            duration_ms: ms,
            ok,
            error_code: code.map(str::to_string),
        }
    }

    #[test]
    fn each_tool_gets_its_count_errors_and_percentiles() {
        let mut outcomes: Vec<RunOutcome> = (1..=20).map(|i| run("llm-search", f64::from(i), true, None)).collect();
        outcomes.push(run("llm-search", 100.0, false, Some("invalid_request")));
        outcomes.push(run("llm-search", -1.0, false, Some(aide_log::UNFINISHED)));
        outcomes.push(run("llm-read", 2.0, false, Some("not_found")));
        let stats = per_tool(&outcomes, |o| o.tool.clone());
        assert_eq!(stats.iter().map(|s| s.tool.as_str()).collect::<Vec<_>>(), ["llm-read", "llm-search"]);
        let search = &stats[1];
        assert_eq!((search.runs, search.errors, search.unfinished), (22, 1, 1));
        assert_eq!(search.error_rate, round(1.0 / 21.0, 10_000.0));
        // 21 finished runs: 1..=20 ms and one of 100 ms.
        assert_eq!(search.p50_ms, 11.0);
        assert_eq!(search.p95_ms, 20.0);
        assert_eq!(search.max_ms, 100.0);
        assert_eq!(search.error_codes.get("invalid_request"), Some(&1));
        assert_eq!(stats[0].error_rate, 1.0);
    }

    #[test]
    fn a_tool_with_no_finished_run_has_zero_figures() {
        let stats = per_tool(&[run("llm-jobs", 0.0, false, Some(aide_log::UNFINISHED))], |o| o.tool.clone());
        assert_eq!((stats[0].runs, stats[0].unfinished, stats[0].error_rate, stats[0].p95_ms), (1, 1, 0.0, 0.0));
    }
}
