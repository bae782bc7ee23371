//! The job table: one SQLite database under `$AIDE_HOME/jobs/`, each job's
//! output in `$AIDE_HOME/jobs/<id>/{stdout,stderr,merged}`.

use std::path::{Path, PathBuf};

use aide_core::AideError;
use aide_core::time::now_ms;
use aide_log::store::with_retry;
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use crate::Status;
use crate::error::JobsError;

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT,
        command TEXT NOT NULL,
        cwd TEXT NOT NULL,
        env TEXT NOT NULL,
        session TEXT,
        grp TEXT NOT NULL,
        after TEXT NOT NULL,
        timeout_ms INTEGER,
        max_output INTEGER NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        pid INTEGER,
        pid_start INTEGER,
        supervisor_pid INTEGER,
        supervisor_start INTEGER,
        exit_code INTEGER,
        signal INTEGER,
        created_ms INTEGER NOT NULL,
        started_ms INTEGER,
        finished_ms INTEGER,
        stdout_bytes INTEGER NOT NULL DEFAULT 0,
        stderr_bytes INTEGER NOT NULL DEFAULT 0,
        dropped_bytes INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status, grp);
    CREATE TABLE IF NOT EXISTS groups (name TEXT PRIMARY KEY, parallel INTEGER NOT NULL);
    PRAGMA user_version = 1;";

/// The sandbox a job runs in, as JSON (`{"mode", "network", "writable"}`); none: none.
const WITH_SANDBOX: &str = "
    ALTER TABLE jobs ADD COLUMN sandbox TEXT;
    PRAGMA user_version = 2;";

/// A private file the supervisor gives the job as its stdin and removes; none: nothing.
const WITH_STDIN: &str = "
    ALTER TABLE jobs ADD COLUMN stdin TEXT;
    PRAGMA user_version = 3;";

/// Whether the job's stdin is a pipe its supervisor holds for `send`
/// (jobs from before it read /dev/null: 0).
const WITH_STDIN_PIPE: &str = "
    ALTER TABLE jobs ADD COLUMN stdin_pipe INTEGER NOT NULL DEFAULT 0;
    PRAGMA user_version = 4;";

/// A job as stored.
#[derive(Debug, Clone)]
pub struct JobRow {
    pub id: i64,
    pub name: Option<String>,
    pub command: String,
    pub cwd: String,
    pub env: Vec<(String, String)>,
    pub session: Option<String>,
    pub group: String,
    pub after: Vec<i64>,
    pub timeout_ms: Option<i64>,
    pub max_output: i64,
    pub status: Status,
    pub reason: Option<String>,
    pub pid: Option<u32>,
    pub pid_start: Option<u64>,
    pub supervisor_pid: Option<u32>,
    pub supervisor_start: Option<u64>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub created_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub stdout_bytes: i64,
    pub stderr_bytes: i64,
    pub dropped_bytes: i64,
    pub sandbox: aide_gate::sandbox::Sandbox,
    /// A private file to give the job as its stdin, removed once opened.
    pub stdin: Option<String>,
    /// Its stdin is a pipe its supervisor holds, which `send` feeds.
    pub stdin_pipe: bool,
}

impl JobRow {
    /// What finds this job's secrets: every shape the rules know, and the
    /// values of its secret-named variables (`--env DB_PASSWORD=…`).
    pub fn redactor(&self) -> aide_gate::redact::Redactor {
        aide_gate::redact::Redactor::with_values(
            self.env.iter().filter(|(k, _)| aide_gate::redact::is_secret_name(k)).map(|(_, v)| v),
        )
    }

    /// The command as `list`, `status` and `spawn` show it: redacted.
    pub fn shown_command(&self) -> String {
        self.redactor().redact(&self.command).0
    }
}

/// A new job to insert.
#[derive(Debug, Clone)]
pub struct NewJob {
    pub name: Option<String>,
    pub command: String,
    pub cwd: String,
    pub env: Vec<(String, String)>,
    pub session: Option<String>,
    pub group: String,
    pub after: Vec<i64>,
    pub timeout_ms: Option<i64>,
    pub max_output: i64,
    pub sandbox: aide_gate::sandbox::Sandbox,
    pub stdin: Option<String>,
    pub stdin_pipe: bool,
}

/// How a job ended, as its supervisor records it.
#[derive(Debug, Clone)]
pub struct Ending {
    pub status: Status,
    pub reason: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout_bytes: i64,
    pub stderr_bytes: i64,
    pub dropped_bytes: i64,
}

/// The folder holding jobs: `$AIDE_HOME/jobs`.
pub(crate) fn jobs_dir() -> PathBuf {
    aide_core::home::aide_home().join("jobs")
}

/// The job table's database: `$AIDE_HOME/jobs/jobs.db`.
pub fn database_path() -> PathBuf {
    jobs_dir().join(DATABASE)
}

const DATABASE: &str = "jobs.db";

fn db_err(e: impl std::fmt::Display) -> AideError {
    JobsError::Store { message: e.to_string() }.into()
}

const COLUMNS: &str = "id, name, command, cwd, env, session, grp, after, timeout_ms, max_output, status, reason, pid, \
    pid_start, supervisor_pid, supervisor_start, exit_code, signal, created_ms, started_ms, finished_ms, \
    stdout_bytes, stderr_bytes, dropped_bytes, sandbox, stdin, stdin_pipe";

fn row(r: &Row<'_>) -> rusqlite::Result<JobRow> {
    let env: String = r.get(4)?;
    let after: String = r.get(7)?;
    let status: String = r.get(10)?;
    Ok(JobRow {
        id: r.get(0)?,
        name: r.get(1)?,
        command: r.get(2)?,
        cwd: r.get(3)?,
        env: serde_json::from_str(&env).unwrap_or_default(),
        session: r.get(5)?,
        group: r.get(6)?,
        after: serde_json::from_str(&after).unwrap_or_default(),
        timeout_ms: r.get(8)?,
        max_output: r.get(9)?,
        status: Status::parse(&status).unwrap_or(Status::Lost),
        reason: r.get(11)?,
        pid: r.get::<_, Option<i64>>(12)?.and_then(|p| u32::try_from(p).ok()),
        pid_start: r.get::<_, Option<i64>>(13)?.map(|v| v as u64),
        supervisor_pid: r.get::<_, Option<i64>>(14)?.and_then(|p| u32::try_from(p).ok()),
        supervisor_start: r.get::<_, Option<i64>>(15)?.map(|v| v as u64),
        exit_code: r.get(16)?,
        signal: r.get(17)?,
        created_ms: r.get(18)?,
        started_ms: r.get(19)?,
        finished_ms: r.get(20)?,
        stdout_bytes: r.get(21)?,
        stderr_bytes: r.get(22)?,
        dropped_bytes: r.get(23)?,
        sandbox: r.get::<_, Option<String>>(24)?.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
        stdin: r.get(25)?,
        stdin_pipe: r.get::<_, i64>(26)? != 0,
    })
}

/// The job store.
#[derive(Debug)]
pub struct JobStore {
    conn: Connection,
    dir: PathBuf,
}

impl JobStore {
    pub fn open() -> Result<JobStore, AideError> {
        Self::open_in(&jobs_dir())
    }

    pub fn open_in(dir: &Path) -> Result<JobStore, AideError> {
        let conn = aide_log::store::open(&dir.join(DATABASE), &[SCHEMA, WITH_SANDBOX, WITH_STDIN, WITH_STDIN_PIPE])
            .map_err(db_err)?;
        Ok(JobStore { conn, dir: dir.to_path_buf() })
    }

    /// The folder of job `id`'s output files.
    pub fn job_dir(&self, id: i64) -> PathBuf {
        self.dir.join(id.to_string())
    }

    pub fn insert(&mut self, job: &NewJob) -> Result<i64, AideError> {
        let env = serde_json::to_string(&job.env).map_err(db_err)?;
        let after = serde_json::to_string(&job.after).map_err(db_err)?;
        let sandbox = serde_json::to_string(&job.sandbox).map_err(db_err)?;
        with_retry(|| {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT INTO jobs (name, command, cwd, env, session, grp, after, timeout_ms, max_output, status, created_ms, sandbox, stdin, stdin_pipe)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'Queued', ?10, ?11, ?12, ?13)",
                params![
                    job.name,
                    job.command,
                    job.cwd,
                    env,
                    job.session,
                    job.group,
                    after,
                    job.timeout_ms,
                    job.max_output,
                    now_ms(),
                    sandbox,
                    job.stdin,
                    job.stdin_pipe
                ],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            Ok(id)
        })
        .map_err(db_err)
    }

    pub fn get(&self, id: i64) -> Result<Option<JobRow>, AideError> {
        self.conn
            .query_row(&format!("SELECT {COLUMNS} FROM jobs WHERE id = ?1"), params![id], row)
            .optional()
            .map_err(db_err)
    }

    /// Job `id`, or a `not_found` error.
    pub fn require(&self, id: i64) -> Result<JobRow, AideError> {
        self.get(id)?.ok_or_else(|| JobsError::NoJob { id }.into())
    }

    pub fn all(&self) -> Result<Vec<JobRow>, AideError> {
        let mut stmt = self.conn.prepare(&format!("SELECT {COLUMNS} FROM jobs ORDER BY id")).map_err(db_err)?;
        let rows = stmt.query_map([], row).map_err(db_err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db_err)
    }

    /// Runs an update in an immediate transaction; returns the rows changed.
    fn update(&mut self, sql: &str, params: impl rusqlite::Params + Clone) -> Result<usize, AideError> {
        with_retry(|| {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let n = tx.execute(sql, params.clone())?;
            tx.commit()?;
            Ok(n)
        })
        .map_err(db_err)
    }

    pub fn set_supervisor(&mut self, id: i64, pid: u32, start: u64) -> Result<(), AideError> {
        self.update(
            "UPDATE jobs SET supervisor_pid = ?2, supervisor_start = ?3 WHERE id = ?1",
            params![id, i64::from(pid), start as i64],
        )
        .map(|_| ())
    }

    /// Marks a still-queued job as started if its group has room. Returns
    /// false when the group is full (the check and the update are one
    /// transaction, so concurrent supervisors never overfill a group).
    pub fn try_start(&mut self, id: i64, group: &str) -> Result<bool, AideError> {
        with_retry(|| {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let limit: Option<i64> =
                tx.query_row("SELECT parallel FROM groups WHERE name = ?1", params![group], |r| r.get(0)).optional()?;
            let running: i64 =
                tx.query_row("SELECT COUNT(*) FROM jobs WHERE grp = ?1 AND status = 'Running'", params![group], |r| {
                    r.get(0)
                })?;
            if limit.is_some_and(|l| running >= l) {
                return Ok(false);
            }
            let n = tx.execute(
                "UPDATE jobs SET status = 'Running', started_ms = ?2 WHERE id = ?1 AND status = 'Queued'",
                params![id, now_ms()],
            )?;
            tx.commit()?;
            Ok(n == 1)
        })
        .map_err(db_err)
    }

    pub fn set_pid(&mut self, id: i64, pid: u32, start: u64) -> Result<(), AideError> {
        self.update("UPDATE jobs SET pid = ?2, pid_start = ?3 WHERE id = ?1", params![id, i64::from(pid), start as i64])
            .map(|_| ())
    }

    pub fn set_reason(&mut self, id: i64, reason: Option<&str>) -> Result<(), AideError> {
        self.update("UPDATE jobs SET reason = ?2 WHERE id = ?1", params![id, reason]).map(|_| ())
    }

    /// Records the end of a job that is still queued or running. Returns
    /// false if something else recorded an end first.
    pub fn finish(&mut self, id: i64, end: &Ending) -> Result<bool, AideError> {
        self.update(
            "UPDATE jobs SET status = ?2, reason = COALESCE(?3, reason), exit_code = ?4, signal = ?5, finished_ms = ?6,
                started_ms = COALESCE(started_ms, ?6), stdout_bytes = ?7, stderr_bytes = ?8, dropped_bytes = ?9
             WHERE id = ?1 AND status IN ('Queued', 'Running')",
            params![
                id,
                end.status.as_str(),
                end.reason,
                end.exit_code,
                end.signal,
                now_ms(),
                end.stdout_bytes,
                end.stderr_bytes,
                end.dropped_bytes
            ],
        )
        .map(|n| n == 1)
    }

    pub fn set_group(&mut self, name: &str, parallel: i64) -> Result<(), AideError> {
        self.update(
            "INSERT INTO groups (name, parallel) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET parallel = ?2",
            params![name, parallel],
        )
        .map(|_| ())
    }

    pub fn groups(&self) -> Result<Vec<(String, i64)>, AideError> {
        let mut stmt = self.conn.prepare("SELECT name, parallel FROM groups ORDER BY name").map_err(db_err)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(db_err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db_err)
    }

    /// Deletes a job's record and output.
    pub fn remove(&mut self, id: i64) -> Result<(), AideError> {
        self.update("DELETE FROM jobs WHERE id = ?1", params![id])?;
        match std::fs::remove_dir_all(self.job_dir(id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(AideError::io(&format!("job {id} output"), &e)),
            _ => Ok(()),
        }
    }
}
