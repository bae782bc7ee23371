//! A/B timing of a command: the baseline revision in a temporary git
//! worktree against the tree as it is, runs interleaved so drift in machine
//! load hits both alike, with Welch's t-test and the Mann–Whitney U test.
//! The worktree is removed on every way out, Ctrl-C included.

use std::io::{IsTerminal, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use aide_core::AideError;
use aide_core::git::Git;
use aide_core::tool::{Context, Progress};
use schemars::JsonSchema;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::error::ShellError;

/// One side's timings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Side {
    pub commit: String,
    /// The current tree has uncommitted changes (always false for the baseline).
    pub dirty: bool,
    pub avg_time_ms: f64,
    pub median_ms: f64,
    pub std_dev_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Runs that exited non-zero.
    pub failures: usize,
    pub samples_ms: Vec<f64>,
}

/// The result of `llm-shell compare`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareOutput {
    pub command: String,
    pub iterations: usize,
    pub warmup: usize,
    pub baseline: Side,
    pub current: Side,
    /// How much faster the current tree is, in percent of the baseline's mean.
    pub improvement_percent: f64,
    /// Two-sided p-value of Welch's t-test on the means.
    pub welch_p_value: f64,
    /// Two-sided p-value of the Mann–Whitney U test (normal approximation, ties corrected).
    pub mann_whitney_p_value: f64,
    /// Both tests below 0.05.
    pub significant: bool,
}

/// git's trimmed stdout, or why it failed.
fn git(repo: &Git, args: &[&str]) -> Result<String, AideError> {
    let ran = repo.ran(args, None, &[]).map_err(|e| ShellError::Spawn {
        program: "git",
        needed_by: "compare",
        message: e.to_string(),
    })?;
    if ran.status != 0 {
        return Err(ShellError::Git { args: args.join(" "), stderr: ran.stderr }.into());
    }
    Ok(String::from_utf8_lossy(&ran.stdout).trim().to_string())
}

/// A worktree removed when dropped.
struct Worktree {
    repo: Git,
    path: PathBuf,
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let p = self.path.display().to_string();
        let _ = self.repo.ran(&["worktree", "remove", "--force", &p], None, &[]);
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = self.repo.ran(&["worktree", "prune"], None, &[]);
    }
}

fn stats(samples: &[f64]) -> (f64, f64, f64, f64, f64) {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n.max(1.0);
    let var = if samples.len() > 1 { samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    let median = crate::perf::median(&mut samples.to_vec());
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, median, var.sqrt(), min, max)
}

/// Two-sided p-value of Welch's t-test.
pub(crate) fn welch_p(a: &[f64], b: &[f64]) -> f64 {
    let (na, nb) = (a.len() as f64, b.len() as f64);
    if na < 2.0 || nb < 2.0 {
        return 1.0;
    }
    let (ma, _, sa, _, _) = stats(a);
    let (mb, _, sb, _, _) = stats(b);
    let (va, vb) = (sa * sa / na, sb * sb / nb);
    if va + vb == 0.0 {
        return if ma == mb { 1.0 } else { 0.0 };
    }
    let t = (ma - mb) / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

/// Two-sided p-value of the Mann–Whitney U test (normal approximation with
/// tie correction and continuity correction).
pub(crate) fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    let mut all: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).chain(b.iter().map(|&x| (x, false))).collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let mut ranks = vec![0.0; n];
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for r in &mut ranks[i..=j] {
            *r = rank;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let r1: f64 = all.iter().zip(&ranks).filter(|(x, _)| x.1).map(|(_, r)| r).sum();
    let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
    let u1 = r1 - n1f * (n1f + 1.0) / 2.0;
    let mu = n1f * n2f / 2.0;
    let sigma = (n1f * n2f / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)))).sqrt();
    if sigma.is_nan() || sigma <= 0.0 {
        return 1.0;
    }
    let z = ((u1 - mu).abs() - 0.5).max(0.0) / sigma;
    match Normal::new(0.0, 1.0) {
        Ok(dist) => (2.0 * (1.0 - dist.cdf(z))).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

/// One timed run of `command` in `dir`, through the gate (the ambient
/// sandbox, the exec timeout ending its whole tree); its output is not kept.
fn time_once(command: &str, dir: &Path, ctx: &Context) -> Result<(f64, bool), AideError> {
    let timeout = std::time::Duration::from_secs_f64(aide_config::DEFAULT_EXEC_TIMEOUT);
    let ran = aide_gate::Launch::new("compared command", "bash", dir)
        .args(["--noprofile", "--norc", "-c", command])
        .cap(0)
        .timeout(Some(timeout))
        .cancel(&ctx.cancel)
        .logged_under(&ctx.execution_id)
        .run()
        .map_err(|e| match e {
            aide_gate::StartError::Sandbox(e) => e,
            e => ShellError::Spawn { program: "bash", needed_by: "compare", message: e.to_string() }.into(),
        })?;
    Ok((ran.duration.as_secs_f64() * 1000.0, ran.status.success() && !ran.timed_out))
}

fn side(commit: String, dirty: bool, samples: Vec<f64>, failures: usize) -> Side {
    let (mean, median, sd, min, max) = stats(&samples);
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    Side {
        commit,
        dirty,
        avg_time_ms: r(mean),
        median_ms: r(median),
        std_dev_ms: r(sd),
        min_ms: r(min),
        max_ms: r(max),
        failures,
        samples_ms: samples.into_iter().map(r).collect(),
    }
}

/// `compare [###...] 3/10` on stderr, over the bar drawn before.
fn draw_progress_bar(done: usize, total: usize) {
    let width = 30;
    let filled = done * width / total.max(1);
    let _ =
        write!(std::io::stderr(), "\rcompare [{}{}] {done}/{total}", "#".repeat(filled), ".".repeat(width - filled));
}

/// Runs the comparison from `cwd` (inside a git repository).
pub(crate) fn compare(
    cwd: &Path,
    baseline: &str,
    command: &str,
    iterations: usize,
    warmup: usize,
    ctx: &Context,
) -> Result<CompareOutput, AideError> {
    if iterations < 2 {
        return Err(ShellError::TooFewIterations.into());
    }
    let repo = Git::open(cwd)?.at_top();
    let top = repo.place.top.clone();
    let base_commit = git(&repo, &["rev-parse", "--verify", &format!("{baseline}^{{commit}}")])?;
    let head = git(&repo, &["rev-parse", "HEAD"]).unwrap_or_else(|_| "(no commit)".into());
    let dirty = !git(&repo, &["status", "--porcelain"])?.is_empty();
    let rel = PathBuf::from(std::ffi::OsStr::from_bytes(repo.place.prefix.as_slice()));

    let path = std::env::temp_dir().join(format!("aide-compare-{}", aide_core::ids::new_execution_id()));
    git(&repo, &["worktree", "add", "--detach", &path.display().to_string(), &base_commit])?;
    let worktree = Worktree { repo, path };
    let base_dir = worktree.path.join(&rel);
    let current_dir = top.join(&rel);

    let total = 2 * (warmup + iterations);
    let progress = std::io::stderr().is_terminal();
    let mut done = 0usize;
    let tick = |done: usize| {
        if progress {
            draw_progress_bar(done, total);
        }
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut fail_a, mut fail_b) = (0, 0);
    for round in 0..warmup + iterations {
        for (dir, samples, fails) in [(&base_dir, &mut a, &mut fail_a), (&current_dir, &mut b, &mut fail_b)] {
            // Cancelled (Ctrl-C): the worktree is removed on the way out.
            ctx.check_cancel()?;
            let (ms, ok) = time_once(command, dir, ctx)?;
            if round >= warmup {
                samples.push(ms);
                if !ok {
                    *fails += 1;
                }
            }
            done += 1;
            tick(done);
            ctx.progress.report(Progress { done: done as u64, total: Some(total as u64) });
        }
    }
    if progress {
        let _ = writeln!(std::io::stderr());
    }
    drop(worktree);
    let welch = welch_p(&a, &b);
    let mw = mann_whitney_p(&a, &b);
    let base = side(base_commit, false, a, fail_a);
    let current = side(head, dirty, b, fail_b);
    let improvement = if base.avg_time_ms > 0.0 {
        ((base.avg_time_ms - current.avg_time_ms) / base.avg_time_ms * 100.0 * 100.0).round() / 100.0
    } else {
        0.0
    };
    Ok(CompareOutput {
        command: command.to_string(),
        iterations,
        warmup,
        improvement_percent: improvement,
        welch_p_value: (welch * 1e6).round() / 1e6,
        mann_whitney_p_value: (mw * 1e6).round() / 1e6,
        significant: welch < 0.05 && mw < 0.05,
        baseline: base,
        current,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_separate_different_samples_and_not_equal_ones() {
        let a = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5, 99.5, 101.5];
        let b = [80.0, 82.0, 78.0, 81.0, 79.0, 80.5, 79.5, 81.5];
        assert!(welch_p(&a, &b) < 0.001);
        assert!(mann_whitney_p(&a, &b) < 0.01);
        let c = [100.0, 101.0, 99.0, 100.5, 99.5, 101.5, 98.5, 100.2];
        assert!(welch_p(&a, &c) > 0.2);
        assert!(mann_whitney_p(&a, &c) > 0.2);
        assert_eq!(welch_p(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
    }

    #[test]
    fn welch_matches_a_known_value() {
        // Means 3 and 5, variances 2.5 each: t = -2.0 with df = 8, two-sided p = 0.0805.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [3.0, 4.0, 5.0, 6.0, 7.0];
        let p = welch_p(&a, &b);
        assert!((p - 0.0805).abs() < 0.001, "{p}");
    }
}
