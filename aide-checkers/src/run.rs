//! Running one checker's program: in its own process group (a timeout or a
//! cancellation takes down everything it started), its two streams read
//! whole, nothing fed on stdin.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aide_core::tool::Context;

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
pub fn run(name: &str, mut command: Command, timeout: Option<Duration>, ctx: &Context) -> Result<Ran, CheckerError> {
    let shown = shown(&command);
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| CheckerError::Failed {
        checker: name.into(),
        why: format!("{shown}: {e}"),
        stderr: String::new(),
    })?;
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = child.stdout.take().map(|p| reader(Box::new(p)));
    let err = child.stderr.take().map(|p| reader(Box::new(p)));
    let cancel = || ctx.cancel.is_cancelled();
    let waited = aide_core::process::wait_with_timeout_or_cancel(child, timeout, Duration::from_secs(2), Some(&cancel));
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    if waited.cancelled {
        return Err(CheckerError::Cancelled);
    }
    if waited.timed_out {
        return Err(CheckerError::Failed {
            checker: name.into(),
            why: format!(
                "{shown} ran past the {:.0} s timeout and was killed",
                timeout.unwrap_or_default().as_secs_f64()
            ),
            stderr: tail(&stderr),
        });
    }
    let status = waited.status.map_err(|e| CheckerError::Failed {
        checker: name.into(),
        why: format!("{shown}: {e}"),
        stderr: tail(&stderr),
    })?;
    Ok(Ran { exit_code: status.code(), stdout, stderr, duration: started.elapsed() })
}

/// The command line as a person would type it.
pub fn shown(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|w| aide_core::command::quote_word(w.as_encoded_bytes()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last lines of a stream, for an error's details.
pub fn tail(text: &str) -> String {
    const LINES: usize = 20;
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(LINES);
    let kept = lines[from..].join("\n");
    aide_core::redact::redact(&kept).0
}
