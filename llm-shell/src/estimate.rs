//! How long a command took before, for `explain`: its last successful runs
//! through `llm-shell exec` (the CLI's or `shell_exec`'s), read back from
//! the execution log. A run counts when its answer's `command` is the same
//! command line (redacted as the log keeps it, and with the blanks between
//! words outside quotes made one space), its shell ended in the directory
//! explain is asked from (its `working_dir`: where a build or a test ran),
//! it exited 0 and did not time out. Nothing is made up: with no such run
//! the estimate is null and `no_estimate` says why. The same log gives the
//! same estimate.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The most recent successful runs an estimate rests on.
pub(crate) const RUNS: usize = 10;

/// A command's time, from its last successful runs.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Estimate {
    /// How many runs it rests on (at most 10, the newest).
    pub runs: usize,
    /// Their median `execution_time_ms`.
    pub median_ms: f64,
    /// The 90th percentile (nearest rank: with fewer than 10 runs, the slowest).
    pub p90_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// The newest run's time, when it started (UTC, RFC 3339) and its execution id (`aide log show ID`).
    pub last_ms: f64,
    pub last_at: String,
    pub last_execution_id: String,
}

/// One past run: its time, when it started, its id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Past {
    pub ms: f64,
    pub at: String,
    pub id: String,
}

/// The estimate of runs given newest first (None when there are none).
pub(crate) fn summarise(newest_first: &[Past]) -> Option<Estimate> {
    let last = newest_first.first()?;
    let mut times: Vec<f64> = newest_first.iter().map(|p| p.ms).collect();
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = if n % 2 == 1 { times[n / 2] } else { (times[n / 2 - 1] + times[n / 2]) / 2.0 };
    // Nearest rank: the smallest time at least 90% of the runs are at or under.
    let p90 = times[(n * 9).div_ceil(10).saturating_sub(1)];
    let round = |ms: f64| (ms * 1000.0).round() / 1000.0;
    Some(Estimate {
        runs: n,
        median_ms: round(median),
        p90_ms: round(p90),
        min_ms: round(times[0]),
        max_ms: round(times[n - 1]),
        last_ms: round(last.ms),
        last_at: last.at.clone(),
        last_execution_id: last.id.clone(),
    })
}

/// `command` with the blanks between its words (outside quotes) made one
/// space and none at either end: `cargo  test -p x ` is `cargo test -p x`,
/// while `echo 'a  b'` keeps its two spaces.
pub(crate) fn normalise(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let (mut single, mut double, mut escaped, mut blank) = (false, false, false, false);
    for c in command.trim().chars() {
        let quoted = single || double || escaped;
        if !quoted && (c == ' ' || c == '\t') {
            blank = true;
            continue;
        }
        if blank {
            out.push(' ');
            blank = false;
        }
        out.push(c);
        match c {
            _ if escaped => escaped = false,
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    out
}

/// The estimate of `command` run in `dir` (spelled as given, or resolved
/// through its links), or why there is none.
pub(crate) fn estimate_in(command: &str, dir: &std::path::Path) -> (Option<Estimate>, Option<String>) {
    let mut dirs = vec![dir.display().to_string()];
    if let Ok(real) = dir.canonicalize().map(|d| d.display().to_string())
        && !dirs.contains(&real)
    {
        dirs.push(real);
    }
    estimate(command, &dirs)
}

/// The estimate of `command` run in one of `dirs` (one directory's
/// spellings), or why there is none.
fn estimate(command: &str, dirs: &[String]) -> (Option<Estimate>, Option<String>) {
    let log = match aide_log::ExecutionLog::open_default() {
        Ok(log) => log,
        Err(e) => return (None, Some(format!("the execution log could not be read: {}", e.message))),
    };
    let wanted = normalise(&aide_gate::redact::Redactor::default().redact(command).0);
    let equals: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let fields = ["$.command", "$.execution_time_ms", "$.exit_code", "$.timed_out"];
    let mut past = Vec::new();
    // The tool whose exec runs the log keeps: exec's own.
    let tool = aide_core::operation::named(crate::operations::OPERATIONS, "shell_exec").tool;
    let read = log.each_result(tool, "$.working_dir", &equals, &fields, |run| {
        if let [Value::String(line), Value::Number(ms), exit, timed_out] = run.values.as_slice()
            && exit.as_i64() == Some(0)
            && timed_out.as_i64() == Some(0)
            && normalise(line) == wanted
            && let Some(ms) = ms.as_f64()
        {
            past.push(Past { ms, at: run.started_at, id: run.execution_id });
        }
        past.len() < RUNS
    });
    if let Err(e) = read {
        return (None, Some(format!("the execution log could not be read: {}", e.message)));
    }
    match summarise(&past) {
        Some(found) => (Some(found), None),
        None => (
            None,
            Some(format!(
                "no successful run of this command in {} is in the execution log (an exec records one)",
                dirs.first().map_or("this directory", String::as_str)
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(times: &[f64]) -> Vec<Past> {
        times.iter().enumerate().map(|(i, &ms)| Past { ms, at: format!("t{i}"), id: format!("id{i}") }).collect()
    }

    #[test]
    fn median_p90_and_the_newest_run() {
        let e = summarise(&runs(&[30.0, 10.0, 20.0])).unwrap();
        assert_eq!((e.runs, e.median_ms, e.p90_ms, e.min_ms, e.max_ms), (3, 20.0, 30.0, 10.0, 30.0));
        assert_eq!((e.last_ms, e.last_at.as_str(), e.last_execution_id.as_str()), (30.0, "t0", "id0"));
        let e = summarise(&runs(&[4.0, 1.0, 3.0, 2.0])).unwrap();
        assert_eq!((e.median_ms, e.p90_ms), (2.5, 4.0));
        // Ten runs: the ninth fastest is the 90th percentile, one slow outlier moves neither.
        let e = summarise(&runs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1000.0])).unwrap();
        assert_eq!((e.median_ms, e.p90_ms, e.max_ms), (5.5, 9.0, 1000.0));
        assert_eq!(summarise(&runs(&[7.25])).unwrap().median_ms, 7.25);
    }

    #[test]
    fn no_runs_is_no_estimate() {
        assert_eq!(summarise(&[]), None);
    }

    #[test]
    fn the_same_order_of_runs_gives_the_same_estimate() {
        let a = runs(&[3.0, 1.0, 2.0]);
        assert_eq!(summarise(&a), summarise(&a.clone()));
    }

    #[test]
    fn blanks_between_words_are_one_space_but_quoted_ones_stay() {
        assert_eq!(normalise("  cargo   test\t-p  foo  "), "cargo test -p foo");
        assert_eq!(normalise("echo 'a  b'   \"c  d\""), "echo 'a  b' \"c  d\"");
        assert_eq!(normalise("echo a\\  b"), "echo a\\  b");
        assert_eq!(normalise("make"), "make");
        assert_ne!(normalise("make test"), normalise("make  tests"));
    }
}
