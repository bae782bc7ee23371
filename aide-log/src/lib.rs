//! The execution log: every run's request and structured result, retrievable
//! by `execution_id` (`aide log show ID`) after an agent's context was
//! compacted.
//!
//! Store: SQLite in WAL mode at `$AIDE_HOME/log.db` (see [`aide_home`]). A
//! run does not write the database: it drops its record into the spool,
//! `$AIDE_HOME/log-spool/<execution_id>.json` (written whole under a
//! temporary name, then renamed: a reader never sees half a record), which
//! costs one small file instead of a SQLite transaction and the checkpoint's
//! fsync. Whoever opens the log to read it (`aide log`, the MCP server's log
//! tools, `aide doctor`) first moves the spooled records into the database,
//! with a busy timeout and `BEGIN IMMEDIATE`, retried on contention, so many
//! concurrent processes lose no row; so does about one run in 64 after its
//! output is written, so a spool nobody reads stays small. An ingest claims
//! each file by renaming it before reading it, so a run's final record
//! spooled meanwhile beside its provisional one is never removed unread, and
//! a provisional record never replaces a stored one. Logging never
//! fails a tool: a failure becomes a `log_failed` diagnostic. `--no-log` or
//! `AIDE_LOG=off` disables it.
//!
//! Limits (environment variables override the defaults):
//!
//! | what | default | variable |
//! |------|---------|----------|
//! | a stored result | 8 MiB; larger results are recorded without their body and flagged `result_capped` | `AIDE_LOG_MAX_RESULT_BYTES` |
//! | runs kept | 10,000 newest | `AIDE_LOG_MAX_RUNS` |
//! | age of runs kept | 30 days | `AIDE_LOG_MAX_AGE` (e.g. `7d`, `12h`) |
//! | stored results in all | 256 MiB, newest kept | `AIDE_LOG_MAX_BYTES` |
//!
//! Retention is applied whenever spooled runs are moved into the database,
//! and on demand by `aide log prune`.

mod database;
mod error;
mod record;
mod retention;
mod schema;
mod spool;
pub mod store;

pub use database::{ExecutionLog, ResultFields};
pub use error::no_run;
pub use record::{
    ListFilter, RunOutcome, RunRecord, RunSummary, StoredRun, UNFINISHED, disabled_by_env, max_result_bytes,
};
pub use retention::{PruneReport, Retention};
pub use spool::{ingests_after, spool_in, spool_ready, spooled};

#[cfg(test)]
mod tests;
