//! The log database's table and its versions, each applied once in order
//! ([`crate::store::open`] keeps `user_version`).

/// Version 1: one row a run.
pub(super) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS runs (
        execution_id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        version TEXT NOT NULL,
        argv TEXT NOT NULL,
        request TEXT,
        cwd TEXT,
        root TEXT,
        started_ms INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        exit_code INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        error_code TEXT,
        result TEXT,
        result_bytes INTEGER NOT NULL,
        result_capped INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS runs_started ON runs(started_ms);
    CREATE INDEX IF NOT EXISTS runs_tool_started ON runs(tool, started_ms);
    PRAGMA user_version = 1;";
/// Version 2: who asked for a run besides its command line (the MCP request
/// id). Applied after [`SCHEMA`] on a new log and alone on a version-1 log.
pub(super) const SCHEMA_V2: &str = "
    ALTER TABLE runs ADD COLUMN origin TEXT;
    PRAGMA user_version = 2;";
/// Version 3: the processes a run started through the gate
/// ([`aide_gate::ProcessRecord`]s, a JSON array).
pub(super) const SCHEMA_V3: &str = "
    ALTER TABLE runs ADD COLUMN processes TEXT;
    PRAGMA user_version = 3;";

/// Every version, oldest first.
pub(super) const MIGRATIONS: &[&str] = &[SCHEMA, SCHEMA_V2, SCHEMA_V3];
