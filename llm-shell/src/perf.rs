//! Performance history: every exec's phase timings, kept per session, with
//! anomalies found against each command's own history (median and median
//! absolute deviation, which one slow outlier cannot drag along).

use std::io::Write;

use aide_core::AideError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::session::Session;

/// One exec's timings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PerfRecord {
    pub session_id: String,
    pub command: String,
    /// UTC, RFC 3339.
    pub at: String,
    pub exit_code: i32,
    pub timed_out: bool,
    pub parse_us: f64,
    pub restore_us: f64,
    pub execute_us: f64,
    pub capture_us: f64,
    pub total_us: f64,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Aggregate {
    pub total_commands: usize,
    pub avg_parse_us: f64,
    pub avg_restore_us: f64,
    pub avg_execute_us: f64,
    pub avg_capture_us: f64,
    pub avg_total_us: f64,
    pub median_execute_us: f64,
}

/// A command much slower than its own history.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Anomaly {
    pub session_id: String,
    pub command: String,
    pub at: String,
    pub phase: String,
    pub actual_us: f64,
    /// Median of the command's earlier runs.
    pub baseline_us: f64,
    /// Median absolute deviation of those runs.
    pub mad_us: f64,
    pub deviation_percent: f64,
    /// low, medium or high.
    pub severity: String,
    /// How many earlier runs the baseline rests on.
    pub history: usize,
}

/// The result of `llm-shell perf`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PerfOutput {
    pub aggregate: Aggregate,
    pub recent: Vec<PerfRecord>,
    pub anomalies: Vec<Anomaly>,
}

/// Earlier runs needed before a command can be called anomalous.
const MIN_HISTORY: usize = 3;

pub(crate) fn append(session: &Session, record: &PerfRecord) -> Result<(), AideError> {
    let mut line = serde_json::to_vec(record).map_err(|e| AideError::internal(e.to_string()))?;
    line.push(b'\n');
    let mut f = aide_core::fsutil::private_file()
        .create(true)
        .append(true)
        .open(session.perf_path())
        .map_err(|e| AideError::io("perf history", &e))?;
    // One write of one line: O_APPEND keeps concurrent lines whole.
    f.write_all(&line).map_err(|e| AideError::io("perf history", &e))
}

pub(crate) fn load(session: &Session) -> Vec<PerfRecord> {
    // The history as a regular file only; a damaged one reads as empty.
    let bytes = aide_core::fsutil::read_private(&session.perf_path(), 256 << 20).unwrap_or_default();
    String::from_utf8_lossy(&bytes).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

pub(crate) fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Aggregate, the last `last` records, and the anomalies among them.
pub(crate) fn analyse(records: &[PerfRecord], last: usize) -> PerfOutput {
    let n = records.len();
    let avg =
        |f: fn(&PerfRecord) -> f64| if n == 0 { 0.0 } else { round1(records.iter().map(f).sum::<f64>() / n as f64) };
    let aggregate = Aggregate {
        total_commands: n,
        avg_parse_us: avg(|r| r.parse_us),
        avg_restore_us: avg(|r| r.restore_us),
        avg_execute_us: avg(|r| r.execute_us),
        avg_capture_us: avg(|r| r.capture_us),
        avg_total_us: avg(|r| r.total_us),
        median_execute_us: round1(median(&mut records.iter().map(|r| r.execute_us).collect::<Vec<_>>())),
    };
    let start = n.saturating_sub(last);
    let mut anomalies = Vec::new();
    for (i, r) in records.iter().enumerate().skip(start) {
        let mut history: Vec<f64> =
            records[..i].iter().filter(|h| h.command == r.command && !h.timed_out).map(|h| h.execute_us).collect();
        if history.len() < MIN_HISTORY {
            continue;
        }
        let count = history.len();
        let m = median(&mut history);
        let mad = median(&mut history.iter().map(|x| (x - m).abs()).collect::<Vec<_>>());
        if m <= 0.0 {
            continue;
        }
        let deviation = (r.execute_us - m) / m * 100.0;
        // Robust z-score: 0.6745 makes MAD comparable to a standard deviation.
        let z = if mad > 0.0 { 0.6745 * (r.execute_us - m) / mad } else { f64::INFINITY };
        if deviation >= 50.0 && z >= 3.5 {
            let severity = if deviation >= 300.0 {
                "high"
            } else if deviation >= 100.0 {
                "medium"
            } else {
                "low"
            };
            anomalies.push(Anomaly {
                session_id: r.session_id.clone(),
                command: r.command.clone(),
                at: r.at.clone(),
                phase: "execute".into(),
                actual_us: r.execute_us,
                baseline_us: round1(m),
                mad_us: round1(mad),
                deviation_percent: round1(deviation),
                severity: severity.into(),
                history: count,
            });
        }
    }
    PerfOutput { aggregate, recent: records[start..].to_vec(), anomalies }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(cmd: &str, us: f64) -> PerfRecord {
        PerfRecord {
            session_id: "s".into(),
            command: cmd.into(),
            at: "t".into(),
            exit_code: 0,
            timed_out: false,
            parse_us: 1.0,
            restore_us: 1.0,
            execute_us: us,
            capture_us: 1.0,
            total_us: us + 3.0,
        }
    }

    #[test]
    fn flags_a_run_far_above_its_own_history() {
        let mut records: Vec<_> = [1000.0, 1100.0, 950.0, 1050.0].iter().map(|&u| rec("make", u)).collect();
        records.push(rec("other", 50_000.0));
        records.push(rec("make", 5000.0));
        let out = analyse(&records, 10);
        assert_eq!(out.anomalies.len(), 1);
        let a = &out.anomalies[0];
        assert_eq!((a.command.as_str(), a.severity.as_str(), a.history), ("make", "high", 4));
        assert_eq!(a.baseline_us, 1025.0);
        assert_eq!(out.aggregate.total_commands, 6);
    }

    #[test]
    fn noise_and_short_histories_are_not_anomalies() {
        let records: Vec<_> = [1000.0, 1300.0, 900.0, 1200.0, 1250.0].iter().map(|&u| rec("t", u)).collect();
        assert!(analyse(&records, 10).anomalies.is_empty());
        let records = vec![rec("x", 1.0), rec("x", 100.0)];
        assert!(analyse(&records, 10).anomalies.is_empty());
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
