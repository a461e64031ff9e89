//! The tuning database: a SQLite file (bundled, nothing to install) or a shared
//! PostgreSQL database (`postgres://user@host/db`), with one schema, one list of versioned
//! migrations ([`schema`]) and one set of queries ([`sql`]) for both.
//!
//! | table | columns |
//! |---|---|
//! | `meta` | `key` (primary key), `value`: `format = tb-tune`, `schema_version = 3` |
//! | `targets` | `id`, `key` (unique: CPU, features and threads), `cpu`, `features`, `threads`, `machine` (what its workers build search spaces for, JSON) |
//! | `tasks` | `id`, `key` (unique structural hash), `summary`, `ir` (the task module) |
//! | `records` | `id`, `target_id`, `task_id`, `space` (the space's kind), `decision` (JSON array of knob indices; `[]`: the heuristic), `description`, `status` (`ok`, `crash`, `timeout`, `wrong`, `error`), `latency_s` (median, `ok` only), `runs_s` (JSON array), `error`, `search` (`default`, `model`, `random`), `created` (Unix seconds), `job_id` (the queue's job it answers, unique) |
//! | `jobs`, `workers` | the measurement queue ([`crate::queue`]) |
//!
//! Records are looked up by target and task together: the records of one CPU (or thread
//! count) never answer for another. Each trial is written in its own transaction, so a
//! tuner killed mid-run loses at most the trial in flight. A file that is not SQLite, or
//! a database that is not a tb-tune database (or of a newer schema), is refused with an
//! error and never written. A row that does not parse (written by something else) is
//! skipped with a warning ([`Database::take_warnings`]), never fatal.

pub mod postgres;
pub mod schema;
pub mod sql;
pub mod tls;

use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::target::TargetKey;
use schema::Found;
use sql::{Sql, Value};

pub use schema::SCHEMA_VERSION;

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

/// The fastest latency among the successful `records` (`None` without one): the best a
/// task's candidates are labelled against.
pub fn fastest_latency<'a>(records: impl IntoIterator<Item = &'a Record>) -> Option<f64> {
    records
        .into_iter()
        .filter(|r| r.status == Status::Ok)
        .filter_map(|r| r.latency_s)
        .min_by(f64::total_cmp)
}

/// A JSON line of an export: the record and the task it is about, so an import into an
/// empty database is complete.
#[derive(Serialize, Deserialize)]
struct Line {
    record: Record,
    task_summary: String,
    task_ir: String,
}

/// Where the database lives.
pub enum Backend {
    Sqlite(rusqlite::Connection),
    Postgres(Box<::postgres::Client>),
}

/// A tuning database. Queries take `&self` (the connection is borrowed inside), so
/// readers such as `tb-run --db` need no mutable handle.
pub struct Database {
    backend: RefCell<Backend>,
    /// The file or the location without credentials, for messages.
    location: String,
    warnings: RefCell<Vec<String>>,
}

/// The columns of a record query, in order.
const RECORD_COLUMNS: &str = "r.id, t.cpu, t.features, t.threads, k.key, r.space, r.decision,
    r.description, r.status, r.latency_s, r.runs_s, r.error, r.search, k.summary, k.ir";

/// A record query's row as a record, its task summary and IR; `Err` says what is wrong.
pub fn record_from_row(row: &[Value]) -> Result<(Record, String, String), String> {
    let text = |i: usize, what: &str| -> Result<String, String> {
        row.get(i)
            .and_then(|v| v.as_text())
            .map(str::to_owned)
            .ok_or_else(|| format!("its {what} is missing or not text"))
    };
    let threads = row
        .get(3)
        .and_then(Value::as_int)
        .filter(|t| *t >= 1)
        .ok_or("its thread count is missing or not positive")?;
    let decision = text(6, "decision")?;
    let status = text(8, "status")?;
    let runs = text(10, "run times")?;
    let record = Record {
        target: TargetKey {
            cpu: text(1, "cpu")?,
            features: text(2, "features")?,
            threads: threads as usize,
        },
        task_key: text(4, "task key")?,
        space: text(5, "space")?,
        decision: serde_json::from_str(&decision)
            .map_err(|e| format!("its decision '{decision}' is malformed: {e}"))?,
        description: text(7, "description")?,
        status: Status::parse(&status)
            .ok_or_else(|| format!("its status '{status}' is unknown"))?,
        latency_s: row.get(9).and_then(Value::as_real),
        runs_s: serde_json::from_str(&runs)
            .map_err(|e| format!("its run times '{runs}' are malformed: {e}"))?,
        error: row.get(11).and_then(|v| v.as_text()).map(str::to_owned),
        search: text(12, "search")?,
    };
    if record.status == Status::Ok && !record.latency_s.is_some_and(|l| l.is_finite() && l >= 0.0) {
        return Err("it is ok but has no finite latency".into());
    }
    Ok((record, text(13, "task summary")?, text(14, "task IR")?))
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Adds `record` (its target and task too, the first time) inside the caller's
/// transaction; `job_id` links it to the queue's job it answers.
pub fn insert_record(
    sql: &mut dyn Sql,
    record: &Record,
    task_summary: &str,
    task_ir: &str,
    job_id: Option<i64>,
) -> Result<(), String> {
    upsert_target(sql, &record.target)?;
    upsert_task(sql, &record.task_key, task_summary, task_ir)?;
    sql.execute(
        "INSERT INTO records (target_id, task_id, space, decision, description, status,
             latency_s, runs_s, error, search, created, job_id)
         VALUES ((SELECT id FROM targets WHERE key = ?1), (SELECT id FROM tasks WHERE key = ?2),
             ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        &[
            Value::text(record.target.id()),
            Value::text(&record.task_key),
            Value::text(&record.space),
            Value::text(serde_json::to_string(&record.decision).expect("indices serialize")),
            Value::text(&record.description),
            Value::text(record.status.as_str()),
            Value::Real(record.latency_s),
            Value::text(serde_json::to_string(&record.runs_s).expect("numbers serialize")),
            Value::Text(record.error.clone()),
            Value::text(&record.search),
            Value::Real(Some(now())),
            Value::Int(job_id),
        ],
    )?;
    Ok(())
}

pub fn upsert_target(sql: &mut dyn Sql, t: &TargetKey) -> Result<(), String> {
    sql.execute(
        "INSERT INTO targets (key, cpu, features, threads) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (key) DO NOTHING",
        &[
            Value::text(t.id()),
            Value::text(&t.cpu),
            Value::text(&t.features),
            Value::Int(Some(t.threads as i64)),
        ],
    )?;
    Ok(())
}

pub fn upsert_task(sql: &mut dyn Sql, key: &str, summary: &str, ir: &str) -> Result<(), String> {
    sql.execute(
        "INSERT INTO tasks (key, summary, ir) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO NOTHING",
        &[Value::text(key), Value::text(summary), Value::text(ir)],
    )?;
    Ok(())
}

impl Database {
    /// Opens the database at `path`: a SQLite file, created when it does not exist or is
    /// empty, or a `postgres://` location.
    pub fn open(path: &Path) -> Result<Database, String> {
        let location = path.to_string_lossy();
        if postgres::is_postgres(&location) {
            return Database::connect(&location);
        }
        let located = |e: String| format!("{}: {e}", path.display());
        let existing = std::fs::metadata(path)
            .map(|m| m.len() > 0)
            .unwrap_or(false);
        if existing {
            let mut header = [0u8; 16];
            let mut file = std::fs::File::open(path).map_err(|e| located(e.to_string()))?;
            let read =
                std::io::Read::read(&mut file, &mut header).map_err(|e| located(e.to_string()))?;
            if read < 16 || &header != b"SQLite format 3\0" {
                return Err(located(
                    "not a tuning database (not an SQLite file); it is left untouched".into(),
                ));
            }
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| located(e.to_string()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| located(e.to_string()))?;
        let db = Database {
            backend: RefCell::new(Backend::Sqlite(conn)),
            location: path.display().to_string(),
            warnings: RefCell::new(Vec::new()),
        };
        db.prepare_schema()?;
        Ok(db)
    }

    /// Opens the database at `location`: a `postgres://` location or a SQLite file path.
    pub fn connect(location: &str) -> Result<Database, String> {
        if !postgres::is_postgres(location) {
            return Database::open(Path::new(location));
        }
        let shown = postgres::display(location);
        let client = postgres::connect(location).map_err(|e| format!("{shown}: {e}"))?;
        let db = Database {
            backend: RefCell::new(Backend::Postgres(Box::new(client))),
            location: shown,
            warnings: RefCell::new(Vec::new()),
        };
        db.prepare_schema()?;
        Ok(db)
    }

    /// The file or the location (without credentials).
    pub fn location(&self) -> &str {
        &self.location
    }

    pub fn is_postgres(&self) -> bool {
        matches!(*self.backend.borrow(), Backend::Postgres(_))
    }

    /// Warnings about rows that were skipped since the last call.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.borrow_mut())
    }

    fn located(&self, e: impl std::fmt::Display) -> String {
        format!("{}: {e}", self.location)
    }

    /// Runs `f` on the connection, outside a transaction.
    pub fn with<T>(&self, f: impl FnOnce(&mut dyn Sql) -> Result<T, String>) -> Result<T, String> {
        match &mut *self.backend.borrow_mut() {
            Backend::Sqlite(conn) => {
                let mut c: &rusqlite::Connection = conn;
                f(&mut c)
            }
            Backend::Postgres(client) => f(client.as_mut()),
        }
    }

    /// Runs `f` in one transaction: committed when it returns `Ok`, rolled back otherwise.
    pub fn transaction<T>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, String>,
    ) -> Result<T, String> {
        match &mut *self.backend.borrow_mut() {
            Backend::Sqlite(conn) => {
                let tx = conn
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(|e| e.to_string())?;
                let mut c: &rusqlite::Connection = &tx;
                let value = f(&mut c)?;
                tx.commit().map_err(|e| e.to_string())?;
                Ok(value)
            }
            Backend::Postgres(client) => {
                let mut tx = client.transaction().map_err(|e| sql::pg_error(&e))?;
                let value = f(&mut tx)?;
                tx.commit().map_err(|e| sql::pg_error(&e))?;
                Ok(value)
            }
        }
    }

    /// Runs `f` on the PostgreSQL client (the job queue); an error for a SQLite file.
    pub fn with_postgres<T>(
        &self,
        f: impl FnOnce(&mut ::postgres::Client) -> Result<T, String>,
    ) -> Result<T, String> {
        match &mut *self.backend.borrow_mut() {
            Backend::Postgres(client) => f(client),
            Backend::Sqlite(_) => Err(format!(
                "{}: the measurement queue needs a PostgreSQL database (--db postgres://...)",
                self.location
            )),
        }
    }

    /// Whether the connection to the server is gone (always `false` for SQLite).
    pub fn is_closed(&self) -> bool {
        match &*self.backend.borrow() {
            Backend::Postgres(client) => client.is_closed(),
            Backend::Sqlite(_) => false,
        }
    }

    /// Checks the format and version, creating or migrating the schema (under a lock, so
    /// concurrent openers of a PostgreSQL database migrate once).
    fn prepare_schema(&self) -> Result<(), String> {
        let postgres = self.is_postgres();
        let refuse = |e: String| format!("{}: {e}; it is left untouched", self.location);
        let found = self.with(schema::inspect).map_err(refuse)?;
        if matches!(found, Found::Version(v) if v == SCHEMA_VERSION) {
            return Ok(());
        }
        self.transaction(|sql| {
            if postgres {
                // One migrating process at a time; the others wait, then find it done.
                sql.execute("SELECT pg_advisory_xact_lock(7346029181)", &[])?;
            }
            match schema::inspect(sql)? {
                Found::Empty => schema::migrate(sql, 0),
                Found::Version(v) if v < SCHEMA_VERSION => schema::migrate(sql, v),
                Found::Version(_) => Ok(()),
            }
        })
        .map_err(|e| self.located(e))
    }

    /// Adds `record` about the task `task_key` (summary and IR stored the first time), in
    /// one transaction.
    pub fn add(
        &mut self,
        record: &Record,
        task_summary: &str,
        task_ir: &str,
    ) -> Result<(), String> {
        self.transaction(|sql| insert_record(sql, record, task_summary, task_ir, None))
            .map_err(|e| self.located(e))
    }

    /// Records with their task summary and IR, oldest first; rows that do not parse are
    /// skipped with a warning.
    pub fn select(
        &self,
        filter: &str,
        args: &[Value],
    ) -> Result<Vec<(Record, String, String)>, String> {
        let query = format!(
            "SELECT {RECORD_COLUMNS}
             FROM records r JOIN targets t ON r.target_id = t.id JOIN tasks k ON r.task_id = k.id
             {filter} ORDER BY r.id"
        );
        let rows = self
            .with(|sql| sql.query(&query, args))
            .map_err(|e| self.located(e))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            match record_from_row(&row) {
                Ok(r) => out.push(r),
                Err(why) => self.warnings.borrow_mut().push(format!(
                    "{}: record {} skipped: {why}",
                    self.location,
                    row.first().and_then(Value::as_int).unwrap_or(-1)
                )),
            }
        }
        Ok(out)
    }

    /// Every record measured on `target`, oldest first.
    pub fn records(&self, target: &TargetKey) -> Result<Vec<Record>, String> {
        Ok(self
            .select("WHERE t.key = ?1", &[Value::text(target.id())])?
            .into_iter()
            .map(|(r, _, _)| r)
            .collect())
    }

    /// The records of one task on `target`, oldest first.
    pub fn task_records(&self, target: &TargetKey, task_key: &str) -> Result<Vec<Record>, String> {
        Ok(self
            .select(
                "WHERE t.key = ?1 AND k.key = ?2",
                &[Value::text(target.id()), Value::text(task_key)],
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
        // All lines or none.
        self.transaction(|sql| {
            for line in &lines {
                insert_record(sql, &line.record, &line.task_summary, &line.task_ir, None)?;
            }
            Ok(())
        })
        .map_err(|e| self.located(e))?;
        Ok(lines.len())
    }
}
