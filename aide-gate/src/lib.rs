//! # aide-gate: the one way an aide tool starts a process
//!
//! Every process started from project or model input (a checker, a verify
//! command, a git hook, a language server, a compared command, a job, a
//! session's shell) goes through this crate, which applies in one place:
//!
//! * [`sandbox`] — Landlock rules, private mounts and network namespaces:
//!   `read-only`, `workspace-write` or `off`, and what each keeps read-only;
//! * [`Launch`] — the launch itself: the sandbox made at least as strict as
//!   the process's ambient one ([`impose`]), a process group of its own, a
//!   timeout or cancellation that ends the whole group, output caps,
//!   redaction, and a record per process for the execution log
//!   ([`take_records`]);
//! * [`process`] — process groups: signals, waiting with a timeout, the
//!   watchdog that ends a run whose caller went away;
//! * [`redact`] — secrets in what is kept or shown replaced by `[REDACTED]`;
//! * [`program`] — where a program is: beside the running binary, or on `PATH`;
//! * [`trace`] — the `TRACEPARENT` a run's children are given while it
//!   exports an OpenTelemetry span.

mod error;
mod launch;
pub mod process;
pub mod program;
pub mod redact;
pub mod sandbox;
pub mod trace;

pub use error::StartError;
pub use launch::{
    DEFAULT_CAP, Launch, PIPE_GRACE, ProcessRecord, Ran, Started, ambient, impose, stricter, take_records,
};
