//! The tuning schema and its versioned migrations, one list for both backends.
//!
//! `MIGRATIONS[i]` takes a database from version `i` to `i + 1`; type names are tokens
//! that [`Dialect::render`] fills in per backend. A database records its version in
//! `meta.schema_version`; opening one of an older version applies the missing
//! migrations in one transaction, and one of a newer version is refused.
//!
//! Version 1: `meta`, `targets`, `tasks`, `records` (the single-machine tuner).
//! Version 2: the job queue. `records.job_id` (unique: a job yields at most one record),
//! `jobs` (one candidate to measure on one target; unique per target, task and decision,
//! so coordinators sharing a database never queue one candidate twice) and `workers`
//! (each worker process, its target and when it was last seen).
//! Version 3: `targets.machine`, the machine a target's workers build search spaces for
//! (JSON of [`crate::target::Machine`]; NULL until a worker of the target registers), so a
//! coordinator can queue candidates for targets other than its own; `jobs_open`, the open
//! (queued or running) jobs of each target in id order, which a worker's claim walks.

use super::sql::{Dialect, Sql};

pub const SCHEMA_VERSION: i64 = 3;
pub const FORMAT: &str = "tb-tune";

/// The tables a tb-tune database has; a database holding one of them without `meta` is
/// not ours.
pub const TABLES: &[&str] = &["meta", "targets", "tasks", "records", "jobs", "workers"];

pub const MIGRATIONS: &[&str] = &[
    // 0 -> 1
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     INSERT INTO meta VALUES ('format', 'tb-tune'), ('schema_version', '0');
     CREATE TABLE targets (id {id}, key TEXT NOT NULL UNIQUE,
         cpu TEXT NOT NULL, features TEXT NOT NULL, threads {int} NOT NULL);
     CREATE TABLE tasks (id {id}, key TEXT NOT NULL UNIQUE,
         summary TEXT NOT NULL, ir TEXT NOT NULL);
     CREATE TABLE records (id {id},
         target_id {int} NOT NULL REFERENCES targets(id),
         task_id {int} NOT NULL REFERENCES tasks(id),
         space TEXT NOT NULL, decision TEXT NOT NULL, description TEXT NOT NULL,
         status TEXT NOT NULL, latency_s {real}, runs_s TEXT NOT NULL, error TEXT,
         search TEXT NOT NULL, created {real} NOT NULL);
     CREATE INDEX records_by_task ON records (target_id, task_id);",
    // 1 -> 2
    "ALTER TABLE records ADD COLUMN job_id {int};
     CREATE UNIQUE INDEX records_by_job ON records (job_id);
     CREATE TABLE jobs (id {id},
         target_id {int} NOT NULL REFERENCES targets(id),
         task_id {int} NOT NULL REFERENCES tasks(id),
         space TEXT NOT NULL, decision TEXT NOT NULL, description TEXT NOT NULL,
         search TEXT NOT NULL, coordinator TEXT NOT NULL,
         state TEXT NOT NULL DEFAULT 'queued',
         attempts {int} NOT NULL DEFAULT 0, max_attempts {int} NOT NULL,
         worker TEXT, lease_until {real}, error TEXT,
         created {real} NOT NULL, finished {real},
         UNIQUE (target_id, task_id, decision));
     CREATE INDEX jobs_by_state ON jobs (target_id, state, id);
     CREATE TABLE workers (name TEXT PRIMARY KEY,
         target_id {int} NOT NULL REFERENCES targets(id),
         host TEXT NOT NULL, state TEXT NOT NULL, started {real} NOT NULL,
         last_seen {real} NOT NULL, jobs_done {int} NOT NULL DEFAULT 0);",
    // 2 -> 3
    "ALTER TABLE targets ADD COLUMN machine TEXT;
     CREATE INDEX jobs_open ON jobs (target_id, id) WHERE state IN ('queued', 'running');",
];

/// What a database holds before migrating.
pub enum Found {
    /// No tb-tune table at all: a new database.
    Empty,
    /// A tb-tune database of this version.
    Version(i64),
}

/// Reads the format and version; `Err` says why the database is not ours or too new.
pub fn inspect(sql: &mut dyn Sql) -> Result<Found, String> {
    let tables = match sql.dialect() {
        Dialect::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table'",
        Dialect::Postgres => {
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = current_schema()"
        }
    };
    let names: Vec<String> = sql
        .query(tables, &[])
        .map_err(|e| format!("not a tb-tune database (unreadable: {e})"))?
        .into_iter()
        .filter_map(|row| row[0].as_text().map(str::to_owned))
        .collect();
    if !names.iter().any(|n| n == "meta") {
        // A SQLite file with any table is someone else's; a PostgreSQL database may hold
        // other tables beside ours, but not tables of ours without `meta`.
        let foreign = match sql.dialect() {
            Dialect::Sqlite => !names.is_empty(),
            Dialect::Postgres => names.iter().any(|n| TABLES.contains(&n.as_str())),
        };
        if foreign {
            return Err("not a tb-tune database (it has no meta table)".into());
        }
        return Ok(Found::Empty);
    }
    let value = |sql: &mut dyn Sql, key: &str| -> Result<Option<String>, String> {
        Ok(sql
            .query(
                "SELECT value FROM meta WHERE key = ?1",
                &[super::sql::Value::text(key)],
            )
            .map_err(|e| format!("not a tb-tune database (unreadable meta table: {e})"))?
            .into_iter()
            .next()
            .and_then(|row| row[0].as_text().map(str::to_owned)))
    };
    match value(sql, "format")?.as_deref() {
        Some(FORMAT) => {}
        other => return Err(format!("not a tb-tune database (its format is {other:?})")),
    }
    let version: i64 = value(sql, "schema_version")?
        .and_then(|v| v.parse().ok())
        .ok_or("not a tb-tune database (it has no schema version)")?;
    if version > SCHEMA_VERSION {
        return Err(format!(
            "schema version {version} is newer than this tb-tune's ({SCHEMA_VERSION})"
        ));
    }
    Ok(Found::Version(version))
}

/// Applies the migrations after `from` (0: an empty database) and records the version.
/// The caller holds a transaction.
pub fn migrate(sql: &mut dyn Sql, from: i64) -> Result<(), String> {
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        sql.batch(migration)
            .map_err(|e| format!("migration to schema version {}: {e}", version + 1))?;
    }
    sql.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        &[super::sql::Value::text(SCHEMA_VERSION.to_string())],
    )?;
    Ok(())
}
