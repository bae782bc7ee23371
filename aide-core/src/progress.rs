//! The progress line: long work in text mode, with stderr on a terminal,
//! shows `⠙ llm-search: 12,345 done 3s` (or `12,345/40,000 [====   ]`
//! where the total is known) on stderr once it has run for a second, and
//! clears it before the result prints. Never in JSON modes, never when
//! stderr is not a terminal (see `cli::run`).
//!
//! The tools report progress to their [`ProgressSink`] as they do for an
//! MCP client; this is the same sink drawn for a person.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

/// How long work runs before the line appears, so short runs never
/// flicker: a second, or `$AIDE_PROGRESS_AFTER_MS`.
fn show_after() -> Duration {
    std::env::var("AIDE_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(1), Duration::from_millis)
}

/// One run's progress line.
pub struct ProgressLine {
    bar: ProgressBar,
    tool: &'static str,
    started: Instant,
    show_after: Duration,
    shown: AtomicBool,
    with_total: AtomicBool,
    stopped: AtomicBool,
}

impl ProgressLine {
    /// A line for `tool`'s run, hidden until it has run for a second.
    pub fn new(tool: &'static str) -> Arc<ProgressLine> {
        Arc::new(ProgressLine {
            bar: ProgressBar::hidden(),
            tool,
            started: Instant::now(),
            show_after: show_after(),
            shown: AtomicBool::new(false),
            with_total: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
        })
    }

    /// The sink the run reports to.
    pub fn sink(self: &Arc<Self>) -> ProgressSink {
        let line = Arc::clone(self);
        ProgressSink::new(move |p| line.update(p))
    }

    fn update(&self, p: Progress) {
        if self.stopped.load(Ordering::Relaxed) {
            return;
        }
        if let Some(total) = p.total
            && !self.with_total.swap(true, Ordering::Relaxed)
        {
            self.bar.set_length(total);
            self.bar.set_style(style(true));
        }
        self.bar.set_position(p.done);
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() >= self.show_after
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            if !self.with_total.load(Ordering::Relaxed) {
                self.bar.set_style(style(false));
            }
            self.bar.set_prefix(self.tool);
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            // Drawn now, not at the next update the rate limit lets through.
            self.bar.force_draw();
            self.bar.enable_steady_tick(Duration::from_millis(100));
        }
    }

    /// Clears the line for good: before the result prints, or before a
    /// tool streams its own text to the same terminal.
    pub fn stop(&self) {
        if !self.stopped.swap(true, Ordering::Relaxed) {
            self.bar.finish_and_clear();
        }
    }

    /// Whether the line was ever drawn.
    pub fn was_shown(&self) -> bool {
        self.shown.load(Ordering::Relaxed)
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop();
    }
}

fn style(with_total: bool) -> ProgressStyle {
    let template = if with_total {
        "{spinner} {prefix}: {human_pos}/{human_len} [{bar:30}] {elapsed}"
    } else {
        "{spinner} {prefix}: {human_pos} done {elapsed}"
    };
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner()).progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_run_never_shows_the_line_and_a_stopped_one_ignores_reports() {
        let line = ProgressLine::new("llm-test");
        let sink = line.sink();
        sink.report(Progress { done: 1, total: Some(10) });
        assert!(!line.was_shown());
        line.stop();
        let at_stop = line.bar.position();
        sink.report(Progress { done: 2, total: Some(10) });
        assert_eq!(line.bar.position(), at_stop);
        assert!(!line.was_shown());
    }
}

/// How far a run is: units done (files, iterations) and, where known, the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub done: u64,
    pub total: Option<u64>,
}

type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// Where a run reports its progress. Called from worker threads, possibly
/// once per file: a sink that forwards it somewhere slow throttles itself.
#[derive(Clone, Default)]
pub struct ProgressSink(Option<Arc<ProgressFn>>);

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "ProgressSink(..)" } else { "ProgressSink(none)" })
    }
}

impl ProgressSink {
    pub fn new(report: impl Fn(Progress) + Send + Sync + 'static) -> ProgressSink {
        ProgressSink(Some(Arc::new(report)))
    }

    pub fn report(&self, progress: Progress) {
        if let Some(report) = &self.0 {
            report(progress);
        }
    }

    /// A counter that reports each unit done.
    pub fn counter(&self, total: Option<u64>) -> ProgressCounter {
        ProgressCounter { done: AtomicU64::new(0), total, sink: self.clone() }
    }
}

/// Counts units done (from any thread) and reports each to the sink.
#[derive(Debug)]
pub struct ProgressCounter {
    done: AtomicU64,
    total: Option<u64>,
    sink: ProgressSink,
}

impl ProgressCounter {
    pub fn tick(&self) {
        if self.sink.0.is_some() {
            let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            self.sink.report(Progress { done, total: self.total });
        }
    }
}
