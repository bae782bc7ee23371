//! # aide-harness: how every aide tool is run
//!
//! A tool implements [`aide_core::tool::Tool`]; this crate runs it the same
//! way for every tool, from the command line ([`cli`]: flags or a JSON
//! `--request`, `--schema`, completions and man pages, the three formats,
//! exit codes, Ctrl-C) or in-process for a host such as `aide mcp`
//! ([`invoke`]: the same request, context, envelope and panics), and records
//! each run in the execution log ([`aide_log`]) with the processes it started
//! through the gate ([`aide_gate::take_records`]), and, when the
//! OpenTelemetry environment asks, spools each run's span for the forwarder
//! (`telemetry`, on [`aide_telemetry`]).
//!
//! It sits above the contract (`aide-core`), the log and the gate, which is
//! why it is not part of the contract crate: the contract defines what a run
//! is; the harness performs one and writes it down.

pub mod cli;
mod error;
pub mod invoke;
mod telemetry;

pub use invoke::StopReason;
pub use telemetry::CallTrace;

pub use cli::{main, run};
