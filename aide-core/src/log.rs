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
//! spooled meanwhile over its provisional one is never removed unread, and
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

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::store::with_retry;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use crate::error::{AideError, code};
use crate::home::aide_home;
use crate::time::{millis, rfc3339};

mod schema;

const DEFAULT_MAX_RESULT_BYTES: usize = 8 << 20;

/// The largest spool file read: a record holds at most a result and a
/// request (each far under this); a larger file is nothing aide wrote.
const MAX_SPOOLED_BYTES: u64 = 256 << 20;
const DEFAULT_MAX_RUNS: u64 = 10_000;
const DEFAULT_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
const DEFAULT_MAX_BYTES: i64 = 256 << 20;

/// Whether logging is switched off by the environment (`AIDE_LOG=off|0|false|no`).
pub fn disabled_by_env() -> bool {
    std::env::var("AIDE_LOG").is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"))
}

/// One run to record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub execution_id: String,
    pub tool: String,
    pub version: String,
    pub argv: Vec<String>,
    pub request: Option<String>,
    pub cwd: Option<String>,
    pub root: Option<String>,
    /// Who asked for the run besides its command line: `mcp:<request id>`
    /// for a call through `aide mcp`.
    pub origin: Option<String>,
    pub started: SystemTime,
    pub duration: Duration,
    pub exit_code: i32,
    pub ok: bool,
    pub error_code: Option<String>,
    /// The complete JSON document of the result, compact; empty when it was
    /// over the stored limit (`result_bytes` keeps its size).
    pub result_json: String,
    /// The result's size, when `result_json` was dropped for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    /// The processes the run started through the gate, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<crate::gate::ProcessRecord>,
}

/// The error code of a run that has not recorded its result: still
/// running, or killed or crashed after it started (its provisional record is
/// what the log has).
pub const UNFINISHED: &str = "unfinished";

/// The spool folder under `home`.
fn spool_dir(home: &Path) -> PathBuf {
    home.join("log-spool")
}

/// Makes sure a run can be spooled under `home` (the folder exists and is
/// ours): what a run checks before it starts, so a log it cannot write
/// shows in its result.
pub fn spool_ready(home: &Path) -> Result<(), AideError> {
    let dir = spool_dir(home);
    crate::fsutil::private_dir(&dir).map_err(|e| log_err(&dir, e))
}

/// Spools `run` under `home`: one file, written whole and renamed into
/// place. A result over the stored limit is spooled without its body.
pub fn spool_in(home: &Path, mut run: RunRecord) -> Result<(), AideError> {
    use std::io::Write;
    let dir = spool_dir(home);
    if run.result_json.len() > max_result_bytes() {
        run.result_bytes = Some(run.result_json.len() as u64);
        run.result_json = String::new();
    }
    let bytes = serde_json::to_vec(&run).map_err(|e| log_err(&dir, e))?;
    let name = format!("{}.json", run.execution_id);
    let tmp = dir.join(format!(".{name}.tmp"));
    let write = || -> std::io::Result<()> {
        let create = || crate::fsutil::private_file().write(true).create_new(true).open(&tmp);
        let mut file = match create() {
            // A run refused before it started (its arguments) never made
            // the spool: the first run under a new AIDE_HOME may be one.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                crate::fsutil::private_dir(&dir)?;
                create()?
            }
            other => other?,
        };
        file.write_all(&bytes)?;
        std::fs::rename(&tmp, dir.join(&name))
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        log_err(&dir, e)
    })
}

/// Takes the spool's records for one ingest: each file is renamed to a
/// name of this process's before it is read, so the file read is the file
/// removed. A run's final record renamed over its provisional one after
/// that is a new file, left for the next ingest (removing the path read
/// once removed it, and the run stayed `unfinished`); a file another
/// process claimed first is skipped. Claims left by an ingest that died
/// (older than ten minutes) are taken again, as are stale temporaries
/// removed.
fn claim_spooled(dir: &Path) -> Vec<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CLAIMS: AtomicU64 = AtomicU64::new(0);
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let stale = |entry: &std::fs::DirEntry| {
        entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > Duration::from_secs(600)))
    };
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !name.starts_with('.') {
            names.push((name, entry.path()));
        } else if name.ends_with(".taken") && stale(&entry) {
            // `.<record>.json.<pid>.<n>.taken`: the record's own name first.
            let record = name.trim_start_matches('.').split(".json.").next().unwrap_or("").to_string() + ".json";
            names.push((record, entry.path()));
        } else if name.ends_with(".tmp") && stale(&entry) {
            // Left by a run killed mid-write, long ago enough not to be in flight.
            let _ = std::fs::remove_file(entry.path());
        }
    }
    names.sort();
    let pid = std::process::id();
    names
        .into_iter()
        .filter_map(|(record, path)| {
            let n = CLAIMS.fetch_add(1, Ordering::Relaxed);
            let claim = dir.join(format!(".{record}.{pid}.{n}.taken"));
            std::fs::rename(&path, &claim).ok().map(|()| claim)
        })
        .collect()
}

/// The largest result the log keeps (`AIDE_LOG_MAX_RESULT_BYTES`); a larger
/// one is logged by its size only.
pub fn max_result_bytes() -> usize {
    env_parse("AIDE_LOG_MAX_RESULT_BYTES").unwrap_or(DEFAULT_MAX_RESULT_BYTES)
}

/// How many runs wait in the spool under `home`.
pub fn spooled(home: &Path) -> usize {
    std::fs::read_dir(spool_dir(home))
        .map_or(0, |rd| rd.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".json")).count())
}

/// Whether this run also moves the spool into the database after its output
/// is written: about one in 64, decided by the execution id's random tail so
/// processes spread it without coordination.
pub fn ingests_after(execution_id: &str) -> bool {
    let tail = execution_id.get(execution_id.len().saturating_sub(2)..).unwrap_or("");
    u8::from_str_radix(tail, 16).is_ok_and(|b| b % 64 == 0)
}

/// A stored run, as `aide log` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunSummary {
    pub execution_id: String,
    pub tool: String,
    pub version: String,
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    pub root: Option<String>,
    /// `mcp:<request id>` for a call through `aide mcp`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// UTC, RFC 3339.
    pub started_at: String,
    pub finished_at: String,
    pub duration_ms: f64,
    pub exit_code: i32,
    pub ok: bool,
    pub error_code: Option<String>,
    pub result_bytes: u64,
    /// The result was larger than the store keeps and was not stored.
    pub result_capped: bool,
}

/// A stored run with its request and result.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub summary: RunSummary,
    pub request: Option<String>,
    pub result_json: Option<String>,
    /// The processes it started through the gate.
    pub processes: Vec<crate::gate::ProcessRecord>,
}

/// Filters for listing runs.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub tool: Option<String>,
    pub limit: usize,
    /// Only runs started at or after this time.
    pub since: Option<SystemTime>,
}

/// The retention limits of the log.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    pub max_age: Duration,
    pub max_runs: u64,
    /// Total bytes of stored results.
    pub max_bytes: i64,
}

impl Retention {
    /// The defaults, overridden by `AIDE_LOG_MAX_AGE`, `AIDE_LOG_MAX_RUNS`, `AIDE_LOG_MAX_BYTES`.
    pub fn from_env() -> Retention {
        Retention {
            max_age: std::env::var("AIDE_LOG_MAX_AGE")
                .ok()
                .and_then(|v| humantime::parse_duration(&v).ok())
                .unwrap_or(DEFAULT_MAX_AGE),
            max_runs: env_parse("AIDE_LOG_MAX_RUNS").unwrap_or(DEFAULT_MAX_RUNS),
            max_bytes: env_parse("AIDE_LOG_MAX_BYTES").unwrap_or(DEFAULT_MAX_BYTES),
        }
    }
}

/// What pruning removed.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct PruneReport {
    pub removed: u64,
    pub remaining: u64,
}

/// The execution log store.
#[derive(Debug)]
pub struct ExecutionLog {
    conn: Connection,
    path: PathBuf,
}

fn log_err(path: &Path, e: impl std::fmt::Display) -> AideError {
    AideError::new(code::LOG_UNAVAILABLE, format!("execution log {}: {e}", path.display())).with_hint(
        crate::voice::say(|v| {
            format!(
                "check that $AIDE_HOME is writable, or {}",
                v.pick("pass --no-log / set AIDE_LOG=off", "set AIDE_LOG=off for the server")
            )
        }),
    )
}

/// The error for an execution id the log has no run for (or none the
/// caller may see).
pub fn no_run(id: &str) -> AideError {
    AideError::new(code::NOT_FOUND, format!("no run with execution_id `{id}` in the log"))
        .with_hint("list recent runs with `aide log list`; runs older than the retention limits are pruned")
        .with_details(serde_json::json!({ "execution_id": id }))
}

impl ExecutionLog {
    /// Opens (creating if needed) the log under `home`, with every spooled
    /// run moved in.
    pub fn open_in(home: &Path) -> Result<ExecutionLog, AideError> {
        let path = home.join("log.db");
        let conn = crate::store::open(&path, schema::MIGRATIONS).map_err(|e| log_err(&path, e))?;
        let mut log = ExecutionLog { conn, path };
        log.ingest(home)?;
        Ok(log)
    }

    /// Moves the spooled runs under `home` into the database (in batches,
    /// one transaction each), removes their files, and applies retention
    /// when any arrived. Another process ingesting at the same time is
    /// harmless: a run inserted twice is the same row.
    pub fn ingest(&mut self, home: &Path) -> Result<usize, AideError> {
        self.ingest_in_batches(home, 4 << 20)
    }

    fn ingest_in_batches(&mut self, home: &Path, batch_bytes: usize) -> Result<usize, AideError> {
        let claimed = claim_spooled(&spool_dir(home));
        self.ingest_claimed(&claimed, batch_bytes)
    }

    /// Inserts the claimed spool files (see [`claim_spooled`]) and removes
    /// each once its batch commits.
    fn ingest_claimed(&mut self, claimed: &[PathBuf], batch_bytes: usize) -> Result<usize, AideError> {
        const BATCH: usize = 256;
        let mut ingested = 0;
        // A transaction per batch of records — at most BATCH of them, and at
        // most 4 MiB read (more only for one larger record): a spool of large results must not all sit
        // in memory at once (256 records of up to 8 MiB each once did).
        let mut runs = Vec::new();
        // The files read: removed once their batch commits.
        let mut read = Vec::new();
        let mut bytes_read = 0usize;
        let mut commit = |log: &mut ExecutionLog, runs: &mut Vec<RunRecord>, read: &mut Vec<&PathBuf>| {
            log.insert_all(runs)?;
            for path in read.drain(..) {
                let _ = std::fs::remove_file(path);
            }
            ingested += runs.len();
            runs.clear();
            Ok::<(), AideError>(())
        };
        for path in claimed {
            let bytes = match crate::fsutil::read_private(path, MAX_SPOOLED_BYTES) {
                Ok(bytes) => bytes,
                // Not a regular file, or far larger than any record: nothing
                // aide wrote, and reading it could hang or fill memory.
                Err(e) if crate::fsutil::is_planted(&e) => {
                    let _ = std::fs::remove_file(path);
                    continue;
                }
                Err(_) => continue,
            };
            bytes_read += bytes.len();
            // Not a record (written by hand, or damaged): nothing to keep, removed all the same.
            if let Ok(run) = serde_json::from_slice::<RunRecord>(&bytes) {
                runs.push(run);
            }
            read.push(path);
            if read.len() >= BATCH || bytes_read >= batch_bytes {
                commit(self, &mut runs, &mut read)?;
                bytes_read = 0;
            }
        }
        commit(self, &mut runs, &mut read)?;
        if ingested > 0 {
            self.prune(None, None)?;
        }
        Ok(ingested)
    }

    /// Opens the log at [`aide_home`].
    pub fn open_default() -> Result<ExecutionLog, AideError> {
        Self::open_in(&aide_home())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a run in the database now (the spool is the usual way in:
    /// see [`spool_in`]).
    pub fn record(&mut self, run: &RunRecord) -> Result<(), AideError> {
        self.insert_all(std::slice::from_ref(run))
    }

    /// Inserts runs in one transaction.
    fn insert_all(&mut self, runs: &[RunRecord]) -> Result<(), AideError> {
        if runs.is_empty() {
            return Ok(());
        }
        let max_result = max_result_bytes();
        let path = self.path.clone();
        with_retry(|| {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            {
                const COLUMNS: &str = "INTO runs (execution_id, tool, version, argv, request, cwd, root,
                    started_ms, started_at, finished_at, duration_ms, exit_code, ok, error_code, result,
                    result_bytes, result_capped, origin, processes)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)";
                let replace = format!("INSERT OR REPLACE {COLUMNS}");
                // A provisional record never replaces a row: the run's own
                // record may have arrived first (two ingests at once).
                let provisional = format!("INSERT OR IGNORE {COLUMNS}");
                for run in runs {
                    let sql = if run.error_code.as_deref() == Some(UNFINISHED) { &provisional } else { &replace };
                    let mut insert = tx.prepare_cached(sql)?;
                    let bytes = run.result_bytes.unwrap_or(run.result_json.len() as u64);
                    let capped = run.result_bytes.is_some() || run.result_json.len() > max_result;
                    let finished = run.started + run.duration;
                    let argv = serde_json::to_string(&run.argv).unwrap_or_else(|_| "[]".into());
                    let processes =
                        (!run.processes.is_empty()).then(|| serde_json::to_string(&run.processes).unwrap_or_default());
                    insert.execute(params![
                        run.execution_id,
                        run.tool,
                        run.version,
                        argv,
                        run.request,
                        run.cwd,
                        run.root,
                        millis(run.started),
                        rfc3339(run.started),
                        rfc3339(finished),
                        run.duration.as_secs_f64() * 1000.0,
                        run.exit_code,
                        run.ok,
                        run.error_code,
                        (!capped).then_some(run.result_json.as_str()),
                        i64::try_from(bytes).unwrap_or(i64::MAX),
                        capped,
                        run.origin,
                        processes,
                    ])?;
                }
            }
            tx.commit()
        })
        .map_err(|e| log_err(&path, e))
    }

    /// Removes runs older than `older_than` (default: the configured maximum
    /// age), all but the newest `keep` (default: the configured maximum), and
    /// the oldest runs while the stored results exceed the size limit.
    pub fn prune(&mut self, older_than: Option<Duration>, keep: Option<u64>) -> Result<PruneReport, AideError> {
        let mut limits = Retention::from_env();
        if let Some(age) = older_than {
            limits.max_age = age;
        }
        if let Some(keep) = keep {
            limits.max_runs = keep;
        }
        self.prune_with(&limits)
    }

    /// Applies `limits`.
    pub fn prune_with(&mut self, limits: &Retention) -> Result<PruneReport, AideError> {
        let (max_age, keep, max_bytes) = (limits.max_age, limits.max_runs, limits.max_bytes);
        let cutoff = millis(SystemTime::now().checked_sub(max_age).unwrap_or(UNIX_EPOCH));
        let keep_i = i64::try_from(keep).unwrap_or(i64::MAX);
        let path = self.path.clone();
        with_retry(|| {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut removed = tx.execute("DELETE FROM runs WHERE started_ms < ?1", params![cutoff])? as u64;
            removed += tx.execute(
                "DELETE FROM runs WHERE execution_id NOT IN
                    (SELECT execution_id FROM runs ORDER BY started_ms DESC, execution_id DESC LIMIT ?1)",
                params![keep_i],
            )? as u64;
            // Keep the newest runs whose stored results fit in max_bytes.
            removed += tx.execute(
                "DELETE FROM runs WHERE execution_id IN (
                    SELECT execution_id FROM (
                        SELECT execution_id, SUM(CASE WHEN result_capped THEN 0 ELSE result_bytes END)
                            OVER (ORDER BY started_ms DESC, execution_id DESC) AS running
                        FROM runs) WHERE running > ?1)",
                params![max_bytes],
            )? as u64;
            let remaining: i64 = tx.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))?;
            tx.commit()?;
            Ok(PruneReport { removed, remaining: remaining as u64 })
        })
        .map_err(|e| log_err(&path, e))
    }

    /// Runs, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<RunSummary>, AideError> {
        let since = filter.since.map(millis).unwrap_or(i64::MIN);
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM runs
                 WHERE (?1 IS NULL OR tool = ?1) AND started_ms >= ?2
                 ORDER BY started_ms DESC, execution_id DESC LIMIT ?3"
            ))
            .map_err(|e| log_err(&self.path, e))?;
        let rows =
            stmt.query_map(params![filter.tool, since, limit], summary_from_row).map_err(|e| log_err(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| log_err(&self.path, e))
    }

    /// The run with this id, or the one run whose id starts with `id` (at
    /// least 8 characters). Errors if none or several match.
    pub fn get(&self, id: &str) -> Result<StoredRun, AideError> {
        let sql = format!("SELECT {SUMMARY_COLUMNS}, request, result, processes FROM runs WHERE execution_id = ?1");
        let exact =
            self.conn.query_row(&sql, params![id], stored_from_row).optional().map_err(|e| log_err(&self.path, e))?;
        if let Some(run) = exact {
            return Ok(run);
        }
        let not_found = || no_run(id);
        if id.len() < 8 || !id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            return Err(not_found());
        }
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, request, result, processes FROM runs WHERE execution_id >= ?1 AND execution_id < ?2 LIMIT 2"
        );
        let upper = format!("{id}\u{10FFFF}");
        let mut stmt = self.conn.prepare(&sql).map_err(|e| log_err(&self.path, e))?;
        let found = stmt
            .query_map(params![id, upper], stored_from_row)
            .map_err(|e| log_err(&self.path, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| log_err(&self.path, e))?;
        match found.len() {
            0 => Err(not_found()),
            1 => Ok(found.into_iter().next().ok_or_else(|| AideError::internal("row vanished"))?),
            _ => {
                Err(AideError::new(code::INVALID_ARGUMENTS, format!("execution_id prefix `{id}` matches several runs"))
                    .with_hint("give more characters of the id"))
            }
        }
    }
}

const SUMMARY_COLUMNS: &str = "execution_id, tool, version, argv, cwd, root, started_at, finished_at, duration_ms, \
                               exit_code, ok, error_code, result_bytes, result_capped, origin";

fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunSummary> {
    let argv: String = r.get(3)?;
    Ok(RunSummary {
        execution_id: r.get(0)?,
        tool: r.get(1)?,
        version: r.get(2)?,
        argv: serde_json::from_str(&argv).unwrap_or_default(),
        cwd: r.get(4)?,
        root: r.get(5)?,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        duration_ms: r.get(8)?,
        exit_code: r.get(9)?,
        ok: r.get(10)?,
        error_code: r.get(11)?,
        result_bytes: r.get::<_, i64>(12)? as u64,
        result_capped: r.get(13)?,
        origin: r.get(14)?,
    })
}

fn stored_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRun> {
    let processes: Option<String> = r.get(17)?;
    Ok(StoredRun {
        summary: summary_from_row(r)?,
        request: r.get(15)?,
        result_json: r.get(16)?,
        processes: processes.and_then(|p| serde_json::from_str(&p).ok()).unwrap_or_default(),
    })
}

fn env_parse<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests;
