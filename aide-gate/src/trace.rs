//! The W3C trace context a run's children continue: while a run exports
//! a span (see `aide-telemetry`), every process the gate starts for it is
//! given `TRACEPARENT` (and `TRACESTATE` beside it), so a child that speaks
//! OpenTelemetry (another aide tool, a build, a test runner) puts its own
//! spans under the run's. A process a [`crate::Launch`] starts is a span of
//! its own (its phase): it is given a `TRACEPARENT` naming that span, whose
//! id its [`crate::ProcessRecord`] keeps, so its children hang off it; the
//! shells of a session or a job name the run's span.
//!
//! A command-line run is the only run of its process: its context is the
//! process's, given to every process started ([`set_for_process`]). In a
//! host of many runs (`aide mcp`) each run's context is kept under its
//! execution id ([`set_for_run`]) and given to what is launched under it
//! ([`crate::Launch::logged_under`]).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A `traceparent` header and the `tracestate` that goes with it.
pub type Headers = (String, Option<String>);

static PROCESS: Mutex<Option<Headers>> = Mutex::new(None);

fn runs() -> &'static Mutex<HashMap<String, Headers>> {
    static RUNS: OnceLock<Mutex<HashMap<String, Headers>>> = OnceLock::new();
    RUNS.get_or_init(Default::default)
}

/// Gives every process this process starts from now on `headers`.
pub fn set_for_process(headers: Headers) {
    *aide_core::sync::lock(&PROCESS) = Some(headers);
}

/// Gives what is launched under `execution_id` `headers`, until [`clear_run`].
pub fn set_for_run(execution_id: &str, headers: Headers) {
    aide_core::sync::lock(runs()).insert(execution_id.to_string(), headers);
}

/// Forgets the context of a run that ended.
pub fn clear_run(execution_id: &str) {
    aide_core::sync::lock(runs()).remove(execution_id);
}

/// The context a process started for `execution_id` continues: the run's,
/// else the process's; None when no span is being exported.
pub fn of_run(execution_id: Option<&str>) -> Option<Headers> {
    let run = execution_id.and_then(|id| aide_core::sync::lock(runs()).get(id).cloned());
    run.or_else(|| aide_core::sync::lock(&PROCESS).clone())
}

/// The context a child of `execution_id` sees when it is not started
/// with this process's environment (a kept session's command, a
/// terminal): the run's span, else the caller's own `TRACEPARENT` (and
/// `TRACESTATE`), as a child started directly inherits it.
pub fn for_child(execution_id: &str) -> Option<Headers> {
    of_run(Some(execution_id)).or_else(|| {
        let parent = std::env::var("TRACEPARENT").ok().filter(|p| !p.is_empty())?;
        Some((parent, std::env::var("TRACESTATE").ok().filter(|s| !s.is_empty())))
    })
}

/// Puts the context of `execution_id` in `command`'s environment.
pub(crate) fn apply(command: &mut std::process::Command, execution_id: Option<&str>) {
    if let Some(headers) = of_run(execution_id) {
        set(command, headers);
    }
}

/// Puts in `command`'s environment a span of its own under the run
/// `execution_id`'s (same trace, same flags, a new span id) and returns
/// that span's id; None when no span is being exported.
pub(crate) fn apply_child(command: &mut std::process::Command, execution_id: Option<&str>) -> Option<String> {
    let (parent, state) = of_run(execution_id)?;
    let span_id = aide_core::ids::new_trace_span_id();
    let traceparent = with_span(&parent, &span_id)?;
    set(command, (traceparent, state));
    Some(span_id)
}

fn set(command: &mut std::process::Command, (parent, state): Headers) {
    command.env("TRACEPARENT", parent);
    match state {
        Some(state) => command.env("TRACESTATE", state),
        None => command.env_remove("TRACESTATE"),
    };
}

/// `traceparent` (version 00, as the harness writes it) naming `span_id`.
fn with_span(traceparent: &str, span_id: &str) -> Option<String> {
    let mut parts = traceparent.split('-');
    let (version, trace_id, _, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let whole = parts.next().is_none() && version.len() == 2 && trace_id.len() == 32 && flags.len() == 2;
    whole.then(|| format!("{version}-{trace_id}-{span_id}-{flags}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_s_context_is_its_own_and_goes_when_the_run_ends() {
        set_for_run("run-a", ("00-aa-bb-01".into(), None));
        assert_eq!(of_run(Some("run-a")).map(|h| h.0), Some("00-aa-bb-01".to_string()));
        clear_run("run-a");
        // No process context was set in this test binary.
        assert_eq!(of_run(Some("run-a")).map(|h| h.0), aide_core::sync::lock(&PROCESS).clone().map(|h| h.0));
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // never run: only the environment it would get is read
    fn a_launched_process_is_given_a_span_of_its_own_in_the_run_s_trace() {
        let run = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        set_for_run("run-b", (run.into(), Some("rojo=1".into())));
        let mut command = std::process::Command::new("true");
        let span = apply_child(&mut command, Some("run-b")).expect("a span");
        clear_run("run-b");
        let given: HashMap<String, String> =
            command.get_envs().filter_map(|(k, v)| Some((k.to_str()?.to_string(), v?.to_str()?.to_string()))).collect();
        let expected = format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{span}-00");
        assert_eq!(given.get("TRACEPARENT"), Some(&expected), "the run's trace and flags, its own span");
        assert_ne!(span, "00f067aa0ba902b7");
        assert_eq!(given.get("TRACESTATE").map(String::as_str), Some("rojo=1"));
        assert_eq!(with_span("garbage", &span), None);
    }
}
