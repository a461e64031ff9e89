//! The tuning database: SQLite (bundled, nothing to install), one file.
//!
//! Schema version 1 (`meta.schema_version`):
//!
//! | table | columns |
//! |---|---|
//! | `meta` | `key` (primary key), `value`: `format = tb-tune`, `schema_version = 1` |
//! | `targets` | `id`, `key` (unique: CPU, features and threads), `cpu`, `features`, `threads` |
//! | `tasks` | `id`, `key` (unique structural hash), `summary`, `ir` (the task module) |
//! | `records` | `id`, `target_id`, `task_id`, `space` (the space's kind), `decision` (JSON array of knob indices; `[]`: the heuristic), `description`, `status` (`ok`, `crash`, `timeout`, `wrong`, `error`), `latency_s` (median, `ok` only), `runs_s` (JSON array), `error`, `search` (`default`, `model`, `random`), `created` (Unix seconds) |
//!
//! Records are looked up by target and task together: the records of one CPU (or thread
//! count) never answer for another. Each trial is written in its own transaction, so a
//! tuner killed mid-run loses at most the trial in flight. A file that is not SQLite, or
//! a SQLite file that is not a tb-tune database (or of a newer schema), is refused with an
//! error and never written.

use std::io::{BufRead, Write};
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::target::TargetKey;

pub const SCHEMA_VERSION: i64 = 1;
const FORMAT: &str = "tb-tune";

/// How a trial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// The child process died (a signal, an abort).
    Crash,
    /// The child process ran past its time limit and was killed.
    Timeout,
    /// It ran but computed something else than the interpreter.
    Wrong,
    /// It did not compile, or the measurement failed otherwise.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Wrong => "wrong",
            Status::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        [
            Status::Ok,
            Status::Crash,
            Status::Timeout,
            Status::Wrong,
            Status::Error,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// One trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub target: TargetKey,
    pub task_key: String,
    pub space: String,
    pub decision: Vec<usize>,
    pub description: String,
    pub status: Status,
    pub latency_s: Option<f64>,
    pub runs_s: Vec<f64>,
    pub error: Option<String>,
    pub search: String,
}

/// A JSON line of an export: the record and the task it is about, so an import into an
/// empty database is complete.
#[derive(Serialize, Deserialize)]
struct Line {
    record: Record,
    task_summary: String,
    task_ir: String,
}

pub struct Database {
    conn: Connection,
}

fn db_error(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

impl Database {
    /// Opens the database at `path`, creating it when the file does not exist or is empty.
    pub fn open(path: &Path) -> Result<Database, String> {
        let existing = std::fs::metadata(path)
            .map(|m| m.len() > 0)
            .unwrap_or(false);
        if existing {
            let mut header = [0u8; 16];
            let mut file = std::fs::File::open(path).map_err(|e| db_error(path, e))?;
            let read =
                std::io::Read::read(&mut file, &mut header).map_err(|e| db_error(path, e))?;
            if read < 16 || &header != b"SQLite format 3\0" {
                return Err(db_error(
                    path,
                    "not a tuning database (not an SQLite file); it is left untouched",
                ));
            }
        }
        let conn = Connection::open(path).map_err(|e| db_error(path, e))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| db_error(path, e))?;
        let db = Database { conn };
        if existing {
            db.check(path)?;
        } else {
            db.create().map_err(|e| db_error(path, e))?;
        }
        Ok(db)
    }

    fn check(&self, path: &Path) -> Result<(), String> {
        let foreign = |why: String| {
            db_error(
                path,
                format!("not a tb-tune database ({why}); it is left untouched"),
            )
        };
        let has_meta: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| foreign(format!("unreadable: {e}")))?;
        if has_meta == 0 {
            return Err(foreign("it has no meta table".into()));
        }
        let value = |key: &str| -> Result<Option<String>, String> {
            self.conn
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()
                .map_err(|e| foreign(format!("unreadable meta table: {e}")))
        };
        match value("format")?.as_deref() {
            Some(FORMAT) => {}
            other => return Err(foreign(format!("its format is {other:?}"))),
        }
        let version: i64 = value("schema_version")?
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| foreign("it has no schema version".into()))?;
        if version > SCHEMA_VERSION {
            return Err(db_error(
                path,
                format!(
                    "schema version {version} is newer than this tb-tune's ({SCHEMA_VERSION}); it is left untouched"
                ),
            ));
        }
        Ok(())
    }

    fn create(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(&format!(
            "BEGIN;
             CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('format', '{FORMAT}'), ('schema_version', '{SCHEMA_VERSION}');
             CREATE TABLE targets (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,
                 cpu TEXT NOT NULL, features TEXT NOT NULL, threads INTEGER NOT NULL);
             CREATE TABLE tasks (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,
                 summary TEXT NOT NULL, ir TEXT NOT NULL);
             CREATE TABLE records (id INTEGER PRIMARY KEY,
                 target_id INTEGER NOT NULL REFERENCES targets(id),
                 task_id INTEGER NOT NULL REFERENCES tasks(id),
                 space TEXT NOT NULL, decision TEXT NOT NULL, description TEXT NOT NULL,
                 status TEXT NOT NULL, latency_s REAL, runs_s TEXT NOT NULL, error TEXT,
                 search TEXT NOT NULL, created REAL NOT NULL);
             CREATE INDEX records_by_task ON records (target_id, task_id);
             COMMIT;"
        ))
    }

    /// Adds `record` about the task `task_key` (summary and IR stored the first time), in
    /// one transaction.
    pub fn add(
        &mut self,
        record: &Record,
        task_summary: &str,
        task_ir: &str,
    ) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(|e| e.to_string())?;
        let t = &record.target;
        tx.execute(
            "INSERT OR IGNORE INTO targets (key, cpu, features, threads) VALUES (?1, ?2, ?3, ?4)",
            params![t.id(), t.cpu, t.features, t.threads as i64],
        )
        .map_err(|e| e.to_string())?;
        tx.execute(
            "INSERT OR IGNORE INTO tasks (key, summary, ir) VALUES (?1, ?2, ?3)",
            params![record.task_key, task_summary, task_ir],
        )
        .map_err(|e| e.to_string())?;
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        tx.execute(
            "INSERT INTO records (target_id, task_id, space, decision, description, status,
                 latency_s, runs_s, error, search, created)
             VALUES ((SELECT id FROM targets WHERE key = ?1), (SELECT id FROM tasks WHERE key = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                t.id(),
                record.task_key,
                record.space,
                serde_json::to_string(&record.decision).expect("indices serialize"),
                record.description,
                record.status.as_str(),
                record.latency_s,
                serde_json::to_string(&record.runs_s).expect("numbers serialize"),
                record.error,
                record.search,
                created,
            ],
        )
        .map_err(|e| e.to_string())?;
        tx.commit().map_err(|e| e.to_string())
    }

    fn select(
        &self,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<(Record, String, String)>, String> {
        let sql = format!(
            "SELECT t.cpu, t.features, t.threads, k.key, r.space, r.decision, r.description,
                    r.status, r.latency_s, r.runs_s, r.error, r.search, k.summary, k.ir
             FROM records r JOIN targets t ON r.target_id = t.id JOIN tasks k ON r.task_id = k.id
             {filter} ORDER BY r.id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| e.to_string())?;
        let rows = stmt
            .query_map(args, |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, Option<f64>>(8)?,
                    r.get::<_, String>(9)?,
                    r.get::<_, Option<String>>(10)?,
                    r.get::<_, String>(11)?,
                    r.get::<_, String>(12)?,
                    r.get::<_, String>(13)?,
                ))
            })
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for row in rows {
            let (
                cpu,
                features,
                threads,
                key,
                space,
                decision,
                description,
                status,
                latency,
                runs,
                error,
                search,
                summary,
                ir,
            ) = row.map_err(|e| e.to_string())?;
            let record = Record {
                target: TargetKey {
                    cpu,
                    features,
                    threads: threads as usize,
                },
                task_key: key,
                space,
                decision: serde_json::from_str(&decision)
                    .map_err(|e| format!("a record's decision is malformed: {e}"))?,
                description,
                status: Status::parse(&status)
                    .ok_or_else(|| format!("a record has an unknown status '{status}'"))?,
                latency_s: latency,
                runs_s: serde_json::from_str(&runs)
                    .map_err(|e| format!("a record's run times are malformed: {e}"))?,
                error,
                search,
            };
            out.push((record, summary, ir));
        }
        Ok(out)
    }

    /// Every record measured on `target`, oldest first.
    pub fn records(&self, target: &TargetKey) -> Result<Vec<Record>, String> {
        Ok(self
            .select("WHERE t.key = ?1", &[&target.id()])?
            .into_iter()
            .map(|(r, _, _)| r)
            .collect())
    }

    /// The records of one task on `target`, oldest first.
    pub fn task_records(&self, target: &TargetKey, task_key: &str) -> Result<Vec<Record>, String> {
        Ok(self
            .select(
                "WHERE t.key = ?1 AND k.key = ?2",
                &[&target.id(), &task_key],
            )?
            .into_iter()
            .map(|(r, _, _)| r)
            .collect())
    }

    /// The fastest successful record of a task on `target`.
    pub fn best(&self, target: &TargetKey, task_key: &str) -> Result<Option<Record>, String> {
        Ok(self
            .task_records(target, task_key)?
            .into_iter()
            .filter(|r| r.status == Status::Ok && r.latency_s.is_some())
            .min_by(|a, b| {
                a.latency_s
                    .partial_cmp(&b.latency_s)
                    .expect("latencies are finite")
            }))
    }

    /// Writes every record as one JSON line each; returns how many.
    pub fn export(&self, out: &mut dyn Write) -> Result<usize, String> {
        let all = self.select("", &[])?;
        for (record, task_summary, task_ir) in &all {
            let line = Line {
                record: record.clone(),
                task_summary: task_summary.clone(),
                task_ir: task_ir.clone(),
            };
            writeln!(
                out,
                "{}",
                serde_json::to_string(&line).expect("a record serializes")
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(all.len())
    }

    /// Adds the records of a JSON-lines export; returns how many. A malformed line is an
    /// error naming it, and nothing of the file is added.
    pub fn import(&mut self, input: &mut dyn BufRead) -> Result<usize, String> {
        let mut lines = Vec::new();
        for (n, line) in input.lines().enumerate() {
            let line = line.map_err(|e| e.to_string())?;
            if line.trim().is_empty() {
                continue;
            }
            let parsed: Line = serde_json::from_str(&line)
                .map_err(|e| format!("line {}: not a tuning record: {e}", n + 1))?;
            lines.push(parsed);
        }
        for line in &lines {
            self.add(&line.record, &line.task_summary, &line.task_ir)?;
        }
        Ok(lines.len())
    }
}
