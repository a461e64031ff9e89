//! The tuning database: target-aware lookups, durability per trial, JSON lines, and
//! refusing files that are not tuning databases.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::target_key;
use tb_tune::{Database, Record, Status};

fn record(cpu: &str, task: &str, decision: Vec<usize>, latency: Option<f64>) -> Record {
    Record {
        target: target_key(cpu, 1),
        task_key: task.into(),
        space: "microkernel".into(),
        description: format!("{decision:?}"),
        decision,
        status: if latency.is_some() {
            Status::Ok
        } else {
            Status::Crash
        },
        latency_s: latency,
        runs_s: latency.into_iter().collect(),
        error: latency.is_none().then(|| "died".to_string()),
        search: "model".into(),
    }
}

#[test]
fn best_record_is_per_task_and_target() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let mut db = Database::open(&path).unwrap();
    db.add(&record("znver3", "aa", vec![1], Some(2.0)), "s", "ir")
        .unwrap();
    db.add(&record("znver3", "aa", vec![2], Some(1.0)), "s", "ir")
        .unwrap();
    db.add(&record("znver3", "aa", vec![3], None), "s", "ir")
        .unwrap();
    db.add(&record("skylake", "aa", vec![4], Some(0.5)), "s", "ir")
        .unwrap();
    db.add(&record("znver3", "bb", vec![5], Some(0.1)), "s", "ir")
        .unwrap();
    drop(db);
    let db = Database::open(&path).unwrap();
    let best = db.best(&target_key("znver3", 1), "aa").unwrap().unwrap();
    assert_eq!(best.decision, vec![2]);
    assert_eq!(db.best(&target_key("znver3", 2), "aa").unwrap(), None);
    assert_eq!(
        db.best(&target_key("skylake", 1), "aa")
            .unwrap()
            .unwrap()
            .decision,
        vec![4]
    );
    let all = db.task_records(&target_key("znver3", 1), "aa").unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[2].status, Status::Crash);
}

#[test]
fn json_lines_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Database::open(&dir.path().join("a.db")).unwrap();
    a.add(
        &record("znver3", "aa", vec![1, 2], Some(2.0)),
        "matmul",
        "ir text",
    )
    .unwrap();
    a.add(&record("znver3", "bb", vec![], None), "nest", "other ir")
        .unwrap();
    let mut lines = Vec::new();
    assert_eq!(a.export(&mut lines).unwrap(), 2);
    let mut b = Database::open(&dir.path().join("b.db")).unwrap();
    assert_eq!(b.import(&mut lines.as_slice()).unwrap(), 2);
    let target = target_key("znver3", 1);
    assert_eq!(a.records(&target).unwrap(), b.records(&target).unwrap());
    let err = b.import(&mut "{\"record\": 1}\n".as_bytes()).unwrap_err();
    assert!(err.contains("line 1: not a tuning record"), "{err}");
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    std::fs::write(&path, "my notes, not a database\n").unwrap();
    let err = Database::open(&path).err().unwrap();
    assert!(err.contains("not a tuning database"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "my notes, not a database\n"
    );
}

#[test]
fn a_foreign_sqlite_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x');")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Database::open(&path).err().unwrap();
    assert!(
        err.contains("not a tb-tune database (it has no meta table)"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_corrupt_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    Database::open(&path).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    for b in bytes.iter_mut().skip(100) {
        *b = 0xa5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = Database::open(&path).err().unwrap();
    assert!(
        err.contains("not a tb-tune database") || err.contains("malformed"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

const CHILD_VAR: &str = "TB_TUNE_TEST_WRITER_DB";

/// The child of `a_killed_writer_keeps_every_completed_trial`: adds records forever,
/// printing how many are committed after each.
#[test]
#[ignore = "run as a child process by a_killed_writer_keeps_every_completed_trial"]
fn child_writer() {
    let path = std::env::var(CHILD_VAR).expect("run by the parent test");
    let mut db = Database::open(std::path::Path::new(&path)).unwrap();
    for i in 0.. {
        db.add(
            &record("znver3", "aa", vec![i], Some(1.0 + i as f64)),
            "s",
            "ir",
        )
        .unwrap();
        println!("committed {}", i + 1);
    }
}

#[test]
fn a_killed_writer_keeps_every_completed_trial() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut committed = 0;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        if let Some(n) = line.unwrap().strip_prefix("committed ") {
            committed = n.parse().unwrap();
            if committed >= 30 {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(committed >= 30, "the child committed {committed} records");
    let db = Database::open(&path).unwrap();
    let records = db.records(&target_key("znver3", 1)).unwrap();
    assert!(
        records.len() >= committed,
        "{} < {committed}",
        records.len()
    );
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.decision, vec![i]);
    }
}

#[test]
fn a_version_1_file_is_migrated_and_keeps_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    {
        // The schema tb-tune wrote before the job queue, with one record.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('format', 'tb-tune'), ('schema_version', '1');
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
             INSERT INTO targets VALUES (1, 'znver3|+avx2,+fma|threads=1', 'znver3', '+avx2,+fma', 1);
             INSERT INTO tasks VALUES (1, 'aa', 's', 'ir');
             INSERT INTO records VALUES (1, 1, 1, 'microkernel', '[7]', '[7]', 'ok', 0.5, '[0.5]',
                 NULL, 'model', 0);",
        )
        .unwrap();
    }
    let mut db = Database::open(&path).unwrap();
    let records = db.records(&target_key("znver3", 1)).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].decision, vec![7]);
    db.add(&record("znver3", "aa", vec![8], Some(0.25)), "s", "ir")
        .unwrap();
    drop(db);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, tb_tune::database::SCHEMA_VERSION.to_string());
    let jobs: i64 = conn
        .query_row("SELECT count(*) FROM jobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(jobs, 0);
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    drop(Database::open(&path).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Database::open(&path).err().unwrap();
    assert!(err.contains("schema version 99 is newer"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
