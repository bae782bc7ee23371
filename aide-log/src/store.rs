//! SQLite stores shared by the tools (the execution log, the job table):
//! WAL mode, a busy timeout, schema creation under `BEGIN IMMEDIATE`, and a
//! retry loop for contention, so many concurrent processes never lose a write.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};

/// How long a writer keeps retrying under contention before giving up.
const CONTENTION_DEADLINE: Duration = Duration::from_secs(30);

/// Whether an error is SQLite saying another process holds the lock.
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked))
}

/// Retries `f` while SQLite reports contention, with growing jittered
/// sleeps, for up to 30 seconds.
pub fn with_retry<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = Instant::now();
    let mut attempt: u32 = 0;
    loop {
        match f() {
            Err(e) if is_busy(&e) && start.elapsed() < CONTENTION_DEADLINE => {
                attempt += 1;
                let jitter = u64::from(std::process::id() % 7);
                std::thread::sleep(Duration::from_millis(u64::from(attempt.min(20)) * 2 + jitter));
            }
            other => return other,
        }
    }
}

/// Opens the database at `path` (creating its folder), in WAL mode, and
/// brings its schema up to date: `migrations[i]` takes a database at
/// `user_version` i to i + 1 and must end by setting it; those the file has
/// not seen run in one transaction.
pub fn open(path: &Path, migrations: &[&str]) -> rusqlite::Result<Connection> {
    let cant_open = |what: &Path, e: std::io::Error| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("creating {}: {e}", what.display())),
        )
    };
    if let Some(dir) = path.parent() {
        aide_core::fsutil::private_dir(dir).map_err(|e| cant_open(dir, e))?;
    }
    // Created 0600 before SQLite opens it; its -wal and -shm files take the
    // database's mode.
    aide_core::fsutil::private_file()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .and_then(aide_core::fsutil::regular)
        .map_err(|e| cant_open(path, e))?;
    only_regular_beside(path).map_err(|(p, e)| cant_open(&p, e))?;
    with_retry(|| {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // The checkpoint when the last connection closes stays on: every tool
        // run is a short process, and the next one would otherwise have to
        // rebuild the WAL index by reading the whole WAL. A large result once
        // must not leave a large WAL file behind either.
        conn.pragma_update(None, "journal_size_limit", 16 * 1024 * 1024)?;
        let current: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let pending = migrations.get(usize::try_from(current).unwrap_or(usize::MAX)..).unwrap_or_default();
        if !pending.is_empty() {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Another process may have migrated between the check and the lock.
            let current: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            for migration in migrations.iter().skip(usize::try_from(current).unwrap_or(usize::MAX)) {
                tx.execute_batch(migration)?;
            }
            tx.commit()?;
        }
        Ok(conn)
    })
}

/// The database's `-wal` and `-shm` files, where they exist, must be
/// regular files: SQLite opens them itself, and would wait forever on a FIFO
/// or follow a link someone put there.
fn only_regular_beside(path: &Path) -> Result<(), (std::path::PathBuf, std::io::Error)> {
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let p = std::path::PathBuf::from(p);
        if let Ok(meta) = std::fs::symlink_metadata(&p)
            && !meta.is_file()
        {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
            return Err((p, e));
        }
    }
    Ok(())
}

/// A database's state as `aide doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// The database file with its `-wal` and `-shm` files, in bytes.
    pub bytes: u64,
    /// What `PRAGMA quick_check` found; empty when the database is sound.
    pub problems: Vec<String>,
}

/// Checks the database at `path` (which must exist) without changing it:
/// `PRAGMA quick_check` on a read-only connection, and its size on disk.
/// Err when SQLite cannot open or read it at all (not a database, no access).
pub fn health(path: &Path) -> rusqlite::Result<Health> {
    use rusqlite::OpenFlags;
    let bytes = ["", "-wal", "-shm"]
        .iter()
        .filter_map(|suffix| {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            std::fs::metadata(p).ok().map(|m| m.len())
        })
        .sum();
    let not_regular = |p: &Path| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("{} is not a regular file", p.display())),
        )
    };
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(not_regular(path));
    }
    only_regular_beside(path).map_err(|(p, _)| not_regular(&p))?;
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    let mut stmt = conn.prepare("PRAGMA quick_check")?;
    let rows: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    let problems = if rows.len() == 1 && rows[0] == "ok" { Vec::new() } else { rows };
    Ok(Health { bytes, problems })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_finds_a_sound_database_sound_and_a_damaged_one_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let conn =
            open(&path, &["CREATE TABLE t (x TEXT); CREATE INDEX tx ON t (x); PRAGMA user_version = 1;"]).unwrap();
        for i in 0..2000 {
            conn.execute("INSERT INTO t VALUES (?1)", [format!("row {i} {}", "x".repeat(100))]).unwrap();
        }
        drop(conn);
        let h = health(&path).unwrap();
        assert!(h.problems.is_empty(), "{:?}", h.problems);
        assert!(h.bytes >= std::fs::metadata(&path).unwrap().len());

        // Overwrite a page in the middle of the file: the b-tree no longer adds up.
        let mut bytes = std::fs::read(&path).unwrap();
        let page = 4096 * 10;
        bytes[page..page + 4096].fill(0x5a);
        std::fs::write(&path, &bytes).unwrap();
        let damaged = health(&path).map(|h| h.problems);
        assert!(damaged.as_ref().map_or(true, |p| !p.is_empty()), "{damaged:?}");

        std::fs::write(&path, b"not a database at all, just text that is long enough to be a header").unwrap();
        assert!(health(&path).map_or(true, |h| !h.problems.is_empty()));
    }

    #[test]
    fn creates_schema_once_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/db.sqlite");
        let schema = "CREATE TABLE IF NOT EXISTS t (x INTEGER); PRAGMA user_version = 1;";
        let conn = open(&path, &[schema]).unwrap();
        conn.execute("INSERT INTO t VALUES (1)", []).unwrap();
        drop(conn);
        let conn = open(&path, &[schema]).unwrap();
        let n: i64 = conn.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 1);
        let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_database_at_an_older_version_runs_only_the_later_migrations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let v1 = "CREATE TABLE t (x INTEGER); PRAGMA user_version = 1;";
        let v2 = "ALTER TABLE t ADD COLUMN y TEXT; PRAGMA user_version = 2;";
        open(&path, &[v1]).unwrap().execute("INSERT INTO t VALUES (1)", []).unwrap();
        let conn = open(&path, &[v1, v2]).unwrap();
        let (x, y): (i64, Option<String>) =
            conn.query_row("SELECT x, y FROM t", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!((x, y), (1, None));
        drop(conn);
        // A new database runs both; reopening runs none.
        let fresh = dir.path().join("fresh.sqlite");
        open(&fresh, &[v1, v2]).unwrap();
        let conn = open(&fresh, &[v1, v2]).unwrap();
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, 2);
    }
}
