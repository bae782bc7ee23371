//! The SQLite database behind `aide log`: the spool moved in under one
//! immediate transaction, runs listed, shown and pruned.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use aide_core::error::AideError;
use aide_core::home::aide_home;
use aide_core::time::{millis, rfc3339};

use crate::error::{ambiguous_prefix, no_run, unavailable};
use crate::record::{ListFilter, RunOutcome, RunRecord, RunSummary, StoredRun, UNFINISHED, max_result_bytes};
use crate::retention::{PruneReport, Retention};
use crate::schema;
use crate::spool::{MAX_SPOOLED_BYTES, claim_spooled, spool_dir};
use crate::store::with_retry;

/// The execution log store.
#[derive(Debug)]
pub struct ExecutionLog {
    conn: Connection,
    path: PathBuf,
}

impl ExecutionLog {
    /// Opens (creating if needed) the log under `home`, with every spooled
    /// run moved in.
    pub fn open_in(home: &Path) -> Result<ExecutionLog, AideError> {
        let path = home.join("log.db");
        let conn = crate::store::open(&path, schema::MIGRATIONS).map_err(|e| unavailable(&path, e))?;
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

    pub(crate) fn ingest_in_batches(&mut self, home: &Path, batch_bytes: usize) -> Result<usize, AideError> {
        let claimed = claim_spooled(&spool_dir(home));
        self.ingest_claimed(&claimed, batch_bytes)
    }

    /// Inserts the claimed spool files (see [`claim_spooled`]) and removes
    /// each once its batch commits.
    pub(crate) fn ingest_claimed(&mut self, claimed: &[PathBuf], batch_bytes: usize) -> Result<usize, AideError> {
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
            let bytes = match aide_core::fsutil::read_private(path, MAX_SPOOLED_BYTES) {
                Ok(bytes) => bytes,
                // Not a regular file, or far larger than any record: nothing
                // aide wrote, and reading it could hang or fill memory.
                Err(e) if aide_core::fsutil::is_planted(&e) => {
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
        .map_err(|e| unavailable(&path, e))
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
        .map_err(|e| unavailable(&path, e))
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
            .map_err(|e| unavailable(&self.path, e))?;
        let rows = stmt
            .query_map(params![filter.tool, since, limit], summary_from_row)
            .map_err(|e| unavailable(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| unavailable(&self.path, e))
    }

    /// How each run ended, oldest first, for figures per tool (`aide log
    /// stats`): only runs of `tool` when given, started at or after `since`.
    pub fn outcomes(&self, tool: Option<&str>, since: Option<SystemTime>) -> Result<Vec<RunOutcome>, AideError> {
        let since = since.map(millis).unwrap_or(i64::MIN);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT tool, argv, duration_ms, ok, error_code FROM runs
                 WHERE (?1 IS NULL OR tool = ?1) AND started_ms >= ?2 ORDER BY started_ms, execution_id",
            )
            .map_err(|e| unavailable(&self.path, e))?;
        let rows = stmt
            .query_map(params![tool, since], |r| {
                let argv: String = r.get(1)?;
                Ok(RunOutcome {
                    tool: r.get(0)?,
                    argv: serde_json::from_str(&argv).unwrap_or_default(),
                    duration_ms: r.get(2)?,
                    ok: r.get(3)?,
                    error_code: r.get(4)?,
                })
            })
            .map_err(|e| unavailable(&self.path, e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| unavailable(&self.path, e))
    }

    /// The run with this id, or the one run whose id starts with `id` (at
    /// least 8 characters). Errors if none or several match.
    pub fn get(&self, id: &str) -> Result<StoredRun, AideError> {
        let sql = format!("SELECT {SUMMARY_COLUMNS}, request, result, processes FROM runs WHERE execution_id = ?1");
        let exact = self
            .conn
            .query_row(&sql, params![id], stored_from_row)
            .optional()
            .map_err(|e| unavailable(&self.path, e))?;
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
        let mut stmt = self.conn.prepare(&sql).map_err(|e| unavailable(&self.path, e))?;
        let found = stmt
            .query_map(params![id, upper], stored_from_row)
            .map_err(|e| unavailable(&self.path, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| unavailable(&self.path, e))?;
        match found.len() {
            0 => Err(not_found()),
            1 => Ok(found.into_iter().next().ok_or_else(|| AideError::internal("row vanished"))?),
            _ => Err(ambiguous_prefix(id)),
        }
    }

    /// The successful runs of `tool` whose stored result has, at the JSON
    /// path `key` (`$.working_dir`), one of `equals`, newest first: each
    /// given to `visit` with its values at `fields` (JSON paths; null where
    /// the result has none, a boolean as 0 or 1) until it returns false.
    /// What a tool learns from its own past runs (llm-shell's estimate of
    /// a command's time) without reading whole results.
    pub fn each_result(
        &self,
        tool: &str,
        key: &str,
        equals: &[&str],
        fields: &[&str],
        mut visit: impl FnMut(ResultFields) -> bool,
    ) -> Result<(), AideError> {
        if equals.is_empty() {
            return Ok(());
        }
        let values: Vec<String> = (0..fields.len()).map(|i| format!("json_extract(result, ?{})", i + 3)).collect();
        let wanted: Vec<String> = (0..equals.len()).map(|i| format!("?{}", i + 3 + fields.len())).collect();
        let sql = format!(
            "SELECT execution_id, started_at, json_array({}) FROM runs
             WHERE tool = ?1 AND ok = 1 AND result IS NOT NULL AND json_valid(result)
               AND json_extract(result, ?2) IN ({})
             ORDER BY started_ms DESC, execution_id DESC",
            values.join(", "),
            wanted.join(", ")
        );
        let mut params: Vec<&dyn rusqlite::ToSql> = vec![&tool, &key];
        params.extend(fields.iter().map(|f| f as &dyn rusqlite::ToSql));
        params.extend(equals.iter().map(|e| e as &dyn rusqlite::ToSql));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| unavailable(&self.path, e))?;
        let mut rows = stmt.query(params.as_slice()).map_err(|e| unavailable(&self.path, e))?;
        while let Some(row) = rows.next().map_err(|e| unavailable(&self.path, e))? {
            let read = || -> rusqlite::Result<ResultFields> {
                let values: String = row.get(2)?;
                Ok(ResultFields {
                    execution_id: row.get(0)?,
                    started_at: row.get(1)?,
                    values: serde_json::from_str(&values).unwrap_or_default(),
                })
            };
            if !visit(read().map_err(|e| unavailable(&self.path, e))?) {
                break;
            }
        }
        Ok(())
    }
}

/// A stored run's values at the JSON paths asked ([`ExecutionLog::each_result`]).
#[derive(Debug, Clone)]
pub struct ResultFields {
    pub execution_id: String,
    /// UTC, RFC 3339.
    pub started_at: String,
    /// One value a path, in the order asked.
    pub values: Vec<serde_json::Value>,
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
