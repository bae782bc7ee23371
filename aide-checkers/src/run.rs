//! Running one checker's program through the gate ([`aide_gate`]):
//! in the ambient sandbox, in its own process group (a timeout, a
//! cancellation or its end takes down everything it started), its two
//! streams read whole, nothing fed on stdin.

use std::time::Duration;

use aide_core::tool::Context;
use aide_gate::{Launch, StartError};

use crate::error::CheckerError;

/// What a checker's program did.
#[derive(Debug)]
pub struct Ran {
    /// None: killed by a signal.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

/// Runs `command` (for checker `name`) to its end, or kills its group at
/// `timeout` or when the run is cancelled.
pub fn run(name: &str, command: Launch, timeout: Option<Duration>, ctx: &Context) -> Result<Ran, CheckerError> {
    let shown = command.shown();
    let failed = |why: String, stderr: String| CheckerError::Failed { checker: name.into(), why, stderr };
    let ran =
        command.timeout(timeout).cancel(&ctx.cancel).logged_under(&ctx.execution_id).run().map_err(|e| match e {
            StartError::Sandbox(e) => CheckerError::Sandbox(e),
            e => failed(format!("{shown}: {e}"), String::new()),
        })?;
    if ran.cancelled {
        return Err(CheckerError::Cancelled);
    }
    let stderr = ran.stderr_text();
    if ran.timed_out {
        return Err(failed(
            format!("{shown} ran past the {:.0} s timeout and was killed", timeout.unwrap_or_default().as_secs_f64()),
            tail(&stderr),
        ));
    }
    Ok(Ran { exit_code: ran.exit_code(), stdout: ran.stdout_text(), stderr, duration: ran.duration })
}

/// The last lines of a stream, for an error's details.
pub fn tail(text: &str) -> String {
    const LINES: usize = 20;
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(LINES);
    let kept = lines[from..].join("\n");
    aide_gate::redact::redact(&kept).0
}
