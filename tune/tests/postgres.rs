//! The tuning database and the job queue on a real PostgreSQL server (a throwaway
//! cluster per test; see `common/pg.rs`): the shared schema and its migrations, foreign
//! and malformed rows, de-duplication of candidates between coordinators, leases,
//! retries and repeated failures. Without PostgreSQL these tests skip, and fail under
//! `CI=true`.

mod common;
#[path = "common/pg.rs"]
mod pg;

use std::time::Duration;

use common::target_key;
use pg::{shared_or_skip as cluster, shared_tls_or_skip as tls_cluster};
use tb_tune::database::sql::{Prepared, Value};
use tb_tune::queue::{self, Completion, NewJob};
use tb_tune::search::Measurement;
use tb_tune::target::{Machine, TargetKey};
use tb_tune::{Database, Record, Status};

fn record(task: &str, decision: Vec<usize>, latency: f64) -> Record {
    Record {
        target: target_key("znver3", 1),
        task_key: task.into(),
        space: "microkernel".into(),
        description: format!("{decision:?}"),
        decision,
        status: Status::Ok,
        latency_s: Some(latency),
        runs_s: vec![latency],
        error: None,
        search: "model".into(),
    }
}

fn job(task: &str, decision: Vec<usize>) -> NewJob {
    NewJob {
        task_key: task.into(),
        task_summary: "matmul".into(),
        task_ir: "ir".into(),
        space: "microkernel".into(),
        description: format!("{decision:?}"),
        decision,
        search: "model".into(),
    }
}

/// The machine the tests' workers describe (an AVX2 one, whatever runs the tests).
fn machine() -> Machine {
    Machine::of(&common::avx2())
}

fn ok(latency: f64) -> Measurement {
    Measurement {
        status: Status::Ok,
        latency_s: Some(latency),
        runs_s: vec![latency],
        error: None,
    }
}

fn count(db: &Database, sql: &str) -> i64 {
    db.with(|s| s.query(sql, &[])).unwrap()[0][0]
        .as_int()
        .unwrap()
}

#[test]
fn records_round_trip_through_postgres_and_sqlite() {
    let Some(pg) = cluster("records_round_trip_through_postgres_and_sqlite") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    let mut db = Database::connect(&location).unwrap();
    assert!(db.is_postgres());
    db.add(&record("aa", vec![1], 2.0), "matmul", "ir a")
        .unwrap();
    db.add(&record("aa", vec![2], 1.0), "matmul", "ir a")
        .unwrap();
    db.add(&record("bb", vec![], 0.5), "nest", "ir b").unwrap();
    let target = target_key("znver3", 1);
    assert_eq!(db.best(&target, "aa").unwrap().unwrap().decision, vec![2]);
    assert_eq!(db.best(&target_key("znver3", 2), "aa").unwrap(), None);
    // The same JSON lines move records from PostgreSQL to SQLite and back.
    let mut lines = Vec::new();
    assert_eq!(db.export(&mut lines).unwrap(), 3);
    let dir = tempfile::tempdir().unwrap();
    let mut file = Database::open(&dir.path().join("t.db")).unwrap();
    assert_eq!(file.import(&mut lines.as_slice()).unwrap(), 3);
    assert_eq!(file.records(&target).unwrap(), db.records(&target).unwrap());
    let again = pg.database("again").unwrap();
    let mut other = Database::connect(&again).unwrap();
    let mut lines2 = Vec::new();
    file.export(&mut lines2).unwrap();
    other.import(&mut lines2.as_slice()).unwrap();
    assert_eq!(
        other.records(&target).unwrap(),
        db.records(&target).unwrap()
    );
    // Reopening finds the schema at the current version and migrates nothing.
    drop(db);
    let db = Database::connect(&location).unwrap();
    let version = db
        .with(|s| s.query("SELECT value FROM meta WHERE key = 'schema_version'", &[]))
        .unwrap();
    assert_eq!(
        version[0][0].as_text(),
        Some(tb_tune::database::SCHEMA_VERSION.to_string().as_str())
    );
}

#[test]
fn foreign_and_newer_postgres_databases_are_refused_and_left_alone() {
    let Some(pg) = cluster("foreign_and_newer_postgres_databases_are_refused_and_left_alone")
    else {
        return;
    };
    // Tables named like ours but no meta: someone else's.
    let location = pg.database("foreign").unwrap();
    let mut client = tb_tune::database::postgres::connect(&location).unwrap();
    client
        .batch_execute("CREATE TABLE records (name TEXT); INSERT INTO records VALUES ('x');")
        .unwrap();
    let err = Database::connect(&location).err().unwrap();
    assert!(
        err.contains("not a tb-tune database (it has no meta table)"),
        "{err}"
    );
    let tables: i64 = client
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "nothing was created");
    // A meta table of another format.
    let other = pg.database("other").unwrap();
    let mut client = tb_tune::database::postgres::connect(&other).unwrap();
    client
        .batch_execute("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('format', 'notes');")
        .unwrap();
    let err = Database::connect(&other).err().unwrap();
    assert!(err.contains("its format is Some(\"notes\")"), "{err}");
    // A newer schema.
    let newer = pg.database("newer").unwrap();
    drop(Database::connect(&newer).unwrap());
    let mut client = tb_tune::database::postgres::connect(&newer).unwrap();
    client
        .batch_execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        .unwrap();
    let err = Database::connect(&newer).err().unwrap();
    assert!(err.contains("schema version 99 is newer"), "{err}");
    assert!(err.contains("left untouched"), "{err}");
    // A password in the location is refused before connecting.
    let err = Database::connect(&format!("postgres://tb:secret@127.0.0.1:{}/x", pg.port))
        .err()
        .unwrap();
    assert!(
        err.contains("password in the database location is refused"),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
}

#[test]
fn malformed_rows_are_skipped_with_a_warning() {
    let Some(pg) = cluster("malformed_rows_are_skipped_with_a_warning") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    let mut db = Database::connect(&location).unwrap();
    db.add(&record("aa", vec![1], 2.0), "matmul", "ir").unwrap();
    db.with(|s| {
        s.batch(
            "INSERT INTO records (target_id, task_id, space, decision, description, status,
                 latency_s, runs_s, search, created)
             SELECT target_id, task_id, space, 'not json', '', 'ok', 1.0, '[]', 'model', 0
             FROM records LIMIT 1;
             INSERT INTO records (target_id, task_id, space, decision, description, status,
                 latency_s, runs_s, search, created)
             SELECT target_id, task_id, space, '[3]', '', 'exploded', 1.0, '[]', 'model', 0
             FROM records LIMIT 1;
             INSERT INTO records (target_id, task_id, space, decision, description, status,
                 latency_s, runs_s, search, created)
             SELECT target_id, task_id, space, '[4]', '', 'ok', NULL, '[]', 'model', 0
             FROM records LIMIT 1",
        )
    })
    .unwrap();
    let records = db.records(&target_key("znver3", 1)).unwrap();
    assert_eq!(records.len(), 1);
    let warnings = db.take_warnings();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("decision 'not json' is malformed"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("status 'exploded' is unknown"),
        "{warnings:?}"
    );
    assert!(warnings[2].contains("no finite latency"), "{warnings:?}");
    let report = tb_tune::status::report(&db).unwrap();
    assert!(report.contains("4 trials"), "{report}");
}

#[test]
fn coordinators_share_one_job_per_candidate() {
    let Some(pg) = cluster("coordinators_share_one_job_per_candidate") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    drop(Database::connect(&location).unwrap());
    let target = target_key("znver3", 1);
    let mut a = tb_tune::database::postgres::connect(&location).unwrap();
    let mut b = tb_tune::database::postgres::connect(&location).unwrap();
    let first = queue::enqueue(
        &mut a,
        &target,
        "a",
        3,
        &[job("aa", vec![1]), job("aa", vec![2])],
    )
    .unwrap();
    let second = queue::enqueue(
        &mut b,
        &target,
        "b",
        3,
        &[job("aa", vec![2]), job("aa", vec![3])],
    )
    .unwrap();
    assert_eq!(first[1], second[0], "one job for one candidate");
    assert_ne!(second[1], first[0]);
    // Another target's candidate is another job.
    let other = queue::enqueue(
        &mut b,
        &target_key("skylake", 1),
        "b",
        3,
        &[job("aa", vec![2])],
    )
    .unwrap();
    assert!(!first.contains(&other[0]));
    let db = Database::connect(&location).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM jobs"), 4);
}

#[test]
fn leases_expire_retry_and_fail_after_max_attempts() {
    let Some(pg) = cluster("leases_expire_retry_and_fail_after_max_attempts") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    drop(Database::connect(&location).unwrap());
    let target = target_key("znver3", 1);
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    let mut w1 = tb_tune::database::postgres::connect(&location).unwrap();
    let mut w2 = tb_tune::database::postgres::connect(&location).unwrap();
    queue::register_worker(&mut w1, "w1", "h", &target, &machine()).unwrap();
    queue::register_worker(&mut w2, "w2", "h", &target, &machine()).unwrap();
    let ids = queue::enqueue(
        &mut c,
        &target,
        "c",
        2,
        &[job("aa", vec![1]), job("aa", vec![2])],
    )
    .unwrap();
    let lease = Duration::from_millis(300);
    let mut tasks = queue::TaskCache::new();
    let (mut p1, mut p2) = (Prepared::default(), Prepared::default());
    // Two workers claim different jobs; a worker of another target claims none.
    let j1 = queue::claim(&mut w1, &mut p1, "w1", &target, lease, &mut tasks)
        .unwrap()
        .unwrap();
    let j2 = queue::claim(&mut w2, &mut p2, "w2", &target, lease, &mut tasks)
        .unwrap()
        .unwrap();
    assert_ne!(j1.id, j2.id);
    assert!(
        queue::claim(
            &mut w2,
            &mut p2,
            "w2",
            &target_key("skylake", 1),
            lease,
            &mut tasks
        )
        .unwrap()
        .is_none()
    );
    // w2 completes; w1 "dies" (stops renewing), its job is claimed again after the lease.
    assert_eq!(
        queue::complete(&mut w2, &mut p2, "w2", &j2, &[2], &ok(1.0)).unwrap(),
        Completion::Recorded
    );
    assert!(
        queue::claim(&mut w2, &mut p2, "w2", &target, lease, &mut tasks)
            .unwrap()
            .is_none(),
        "w1 still holds its lease"
    );
    std::thread::sleep(Duration::from_millis(400));
    let again = queue::claim(&mut w2, &mut p2, "w2", &target, lease, &mut tasks)
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.attempt), (j1.id, 2));
    // The first holder comes back late: its completion is refused, nothing is written.
    assert_eq!(
        queue::complete(&mut w1, &mut p1, "w1", &j1, &[1], &ok(9.0)).unwrap(),
        Completion::LeaseLost
    );
    assert!(!queue::renew(&mut w1, "w1", j1.id, j1.attempt, lease).unwrap());
    // The second holder is lost too: max_attempts (2) is reached, the job is recorded failed.
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(queue::fail_exhausted(&mut w2, &target).unwrap(), 1);
    assert!(
        queue::claim(&mut w2, &mut p2, "w2", &target, lease, &mut tasks)
            .unwrap()
            .is_none()
    );
    let done = queue::finished(&mut c, &ids).unwrap();
    assert_eq!(done.len(), 2);
    let failed = &done[&j1.id];
    assert_eq!(failed.status, Status::Crash);
    assert!(
        failed.error.as_deref().unwrap().contains("lost 2 times"),
        "{failed:?}"
    );
    assert_eq!(done[&j2.id].latency_s, Some(1.0));
    let db = Database::connect(&location).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM records"), 2);
    assert_eq!(
        count(&db, "SELECT count(*) FROM jobs WHERE state = 'failed'"),
        1
    );
}

#[test]
fn a_completion_claims_the_next_job_in_the_same_statement() {
    let Some(pg) = cluster("a_completion_claims_the_next_job_in_the_same_statement") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    drop(Database::connect(&location).unwrap());
    let target = target_key("znver3", 1);
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    c.batch_execute(&format!("LISTEN {}", queue::DONE_CHANNEL))
        .unwrap();
    let mut w = tb_tune::database::postgres::connect(&location).unwrap();
    queue::register_worker(&mut w, "w", "h", &target, &machine()).unwrap();
    let jobs = [job("aa", vec![1]), job("aa", vec![2]), job("aa", vec![3])];
    let ids = queue::enqueue(&mut c, &target, "c", 3, &jobs).unwrap();
    let mut p = Prepared::default();
    let mut tasks = queue::TaskCache::new();
    let lease = Duration::from_millis(200);
    let next = || queue::NextClaim {
        target: &target,
        lease,
    };
    let j1 = queue::claim(&mut w, &mut p, "w", &target, lease, &mut tasks)
        .unwrap()
        .unwrap();
    let (done, j2) = queue::complete_and_claim(
        &mut w,
        &mut p,
        "w",
        &j1,
        &[1],
        &ok(1.0),
        Some(next()),
        &mut tasks,
    )
    .unwrap();
    assert_eq!(done, Completion::Recorded);
    let j2 = j2.expect("the next job comes with the completion");
    assert_eq!((j2.id, j2.attempt, j2.task_key.as_str()), (ids[1], 1, "aa"));
    // The record's insertion notified the coordinators.
    assert!(queue::wait_notification(&mut c, Duration::from_secs(5)).unwrap());
    let (done, none) =
        queue::complete_and_claim(&mut w, &mut p, "w", &j2, &[2], &ok(2.0), None, &mut tasks)
            .unwrap();
    assert_eq!((done, none.is_none()), (Completion::Recorded, true));
    // A job whose lease expired while still held is completed, never claimed again by
    // its own completion.
    let j3 = queue::claim(&mut w, &mut p, "w", &target, lease, &mut tasks)
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (done, again) = queue::complete_and_claim(
        &mut w,
        &mut p,
        "w",
        &j3,
        &[3],
        &ok(3.0),
        Some(next()),
        &mut tasks,
    )
    .unwrap();
    assert_eq!((done, again.is_none()), (Completion::Recorded, true));
    let db = Database::connect(&location).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM records"), 3);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM jobs WHERE state = 'done' AND attempts = 1"
        ),
        3
    );
}

#[test]
fn a_worker_rejects_malformed_jobs_and_ignores_foreign_targets() {
    let Some(pg) = cluster("a_worker_rejects_malformed_jobs_and_ignores_foreign_targets") else {
        return;
    };
    let location = pg.database("tuning").unwrap();
    drop(Database::connect(&location).unwrap());
    let host = tb_passes::schedule::Target::host();
    let tasks = common::model_tasks(common::MODEL);
    let task = &tasks[0];
    let (space, _) = tb_tune::Space::of(&task.task, &host).unwrap();
    let target = target_key("synthetic-cpu", 1);
    let good = NewJob {
        task_key: task.task.key.clone(),
        task_summary: task.summary.clone(),
        task_ir: task.task.ir.clone(),
        space: space.kind().into(),
        decision: vec![],
        description: "heuristic".into(),
        search: "default".into(),
    };
    let mut bad_decision = good.clone();
    bad_decision.decision = vec![999, 999, 999, 999, 999, 999, 999];
    let mut bad_ir = good.clone();
    bad_ir.task_key = "broken".into();
    bad_ir.task_ir = "this is not IR".into();
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    let ids = queue::enqueue(
        &mut c,
        &target,
        "c",
        3,
        &[good.clone(), bad_decision, bad_ir],
    )
    .unwrap();
    let foreign = queue::enqueue(&mut c, &target_key("elsewhere", 1), "c", 3, &[good]).unwrap();
    // A decision that is not JSON at all, written by hand.
    c.batch_execute(&format!(
        "UPDATE jobs SET decision = 'garbage' WHERE id = {}",
        ids[1]
    ))
    .unwrap();
    let options = tb_tune::worker::WorkerOptions {
        location: location.clone(),
        target: target.clone(),
        machine: Machine::of(&host),
        name: "w".into(),
        host: "h".into(),
        lease: Duration::from_secs(5),
        reconnect_for: Duration::from_secs(5),
        idle_exit: Some(Duration::from_millis(300)),
        max_jobs: None,
        synthetic: false,
    };
    let mut measurer = tb_tune::synthetic::SyntheticMeasurer {
        work: Duration::ZERO,
    };
    let summary = tb_tune::worker::run_worker(&options, &mut measurer, &mut |_| {}).unwrap();
    assert_eq!((summary.recorded, summary.rejected), (1, 2));
    let db = Database::connect(&location).unwrap();
    let rows = db
        .with(|s| s.query("SELECT id, state, error FROM jobs ORDER BY id", &[]))
        .unwrap();
    let state = |id: i64| {
        rows.iter()
            .find(|r| r[0] == Value::Int(Some(id)))
            .unwrap()
            .clone()
    };
    assert_eq!(state(ids[0])[1].as_text(), Some("done"));
    assert_eq!(state(ids[1])[1].as_text(), Some("failed"));
    assert!(
        state(ids[1])[2]
            .as_text()
            .unwrap()
            .contains("decision 'garbage' is malformed")
    );
    assert_eq!(state(ids[2])[1].as_text(), Some("failed"));
    assert!(
        state(ids[2])[2]
            .as_text()
            .unwrap()
            .contains("does not load")
    );
    assert_eq!(
        state(foreign[0])[1].as_text(),
        Some("queued"),
        "another target's job waits"
    );
    // The coordinator learns of rejected jobs as errors.
    let report = tb_tune::status::report(&db).unwrap();
    assert!(report.contains("queued"), "{report}");
}

/// Whether the connection's session is encrypted, as the server sees it.
fn encrypted(client: &mut postgres::Client) -> bool {
    client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap()
        .get(0)
}

#[test]
fn sslmode_require_encrypts_without_checking_the_certificate() {
    let Some(both) = tls_cluster("sslmode_require_encrypts_without_checking_the_certificate")
    else {
        return;
    };
    let location = both.0.database("tls_require").unwrap();
    let mut client =
        tb_tune::database::postgres::connect(&format!("{location}?sslmode=require")).unwrap();
    assert!(encrypted(&mut client));
    // The schema and the records work the same over TLS.
    let mut db = Database::connect(&format!("{location}?sslmode=require")).unwrap();
    db.add(&record("aa", vec![1], 2.0), "matmul", "ir a")
        .unwrap();
    assert_eq!(db.records(&target_key("znver3", 1)).unwrap().len(), 1);
}

#[test]
fn sslmode_disable_stays_in_the_clear_on_a_tls_server() {
    let Some(both) = tls_cluster("sslmode_disable_stays_in_the_clear_on_a_tls_server") else {
        return;
    };
    let location = both.0.database("tls_disable").unwrap();
    let mut client =
        tb_tune::database::postgres::connect(&format!("{location}?sslmode=disable")).unwrap();
    assert!(!encrypted(&mut client));
}

#[test]
fn verify_full_with_the_servers_ca_connects() {
    let Some(both) = tls_cluster("verify_full_with_the_servers_ca_connects") else {
        return;
    };
    let (cluster, files) = (&both.0, &both.1);
    let location = cluster.database("tls_full").unwrap();
    let mut client = tb_tune::database::postgres::connect(&format!(
        "{location}?sslmode=verify-full&sslrootcert={}",
        files.ca.display()
    ))
    .unwrap();
    assert!(encrypted(&mut client));
}

#[test]
fn verify_full_with_another_ca_is_refused_with_the_reason() {
    let Some(both) = tls_cluster("verify_full_with_another_ca_is_refused_with_the_reason") else {
        return;
    };
    let (cluster, files) = (&both.0, &both.1);
    let location = cluster.database("tls_wrong_ca").unwrap();
    let e = tb_tune::database::postgres::connect(&format!(
        "{location}?sslmode=verify-full&sslrootcert={}",
        files.other_ca.display()
    ))
    .err()
    .expect("an unrelated CA is refused");
    assert!(e.contains("certificate verify failed"), "{e}");
    assert!(e.contains("sslmode=verify-full"), "{e}");
    assert!(e.contains(&files.other_ca.display().to_string()), "{e}");
    // require with that CA named checks the chain too (libpq's rule).
    let e = tb_tune::database::postgres::connect(&format!(
        "{location}?sslmode=require&sslrootcert={}",
        files.other_ca.display()
    ))
    .err()
    .expect("require with a root certificate checks the chain");
    assert!(e.contains("certificate verify failed"), "{e}");
}

#[test]
fn verify_ca_accepts_a_name_that_verify_full_refuses() {
    let Some(both) = tls_cluster("verify_ca_accepts_a_name_that_verify_full_refuses") else {
        return;
    };
    let (cluster, files) = (&both.0, &both.1);
    let location = cluster.database("tls_names").unwrap();
    // The certificate names 127.0.0.1 only; `localhost` reaches the same server.
    let by_name = location.replace("127.0.0.1", "localhost");
    let ca = files.ca.display();
    let e = tb_tune::database::postgres::connect(&format!(
        "{by_name}?sslmode=verify-full&sslrootcert={ca}&hostaddr=127.0.0.1"
    ))
    .err()
    .expect("the name does not match");
    assert!(e.contains("certificate"), "{e}");
    let mut client = tb_tune::database::postgres::connect(&format!(
        "{by_name}?sslmode=verify-ca&sslrootcert={ca}&hostaddr=127.0.0.1"
    ))
    .unwrap();
    assert!(encrypted(&mut client));
}

#[test]
fn a_socket_connection_ignores_sslmode_as_libpq_does() {
    let Some(both) = tls_cluster("a_socket_connection_ignores_sslmode_as_libpq_does") else {
        return;
    };
    let cluster = &both.0;
    let location = cluster.database("tls_socket").unwrap();
    let dbname = location.rsplit('/').next().unwrap();
    let mut client = tb_tune::database::postgres::connect(&format!(
        "host='{}' port={} user=tb dbname={dbname} sslmode=verify-full",
        cluster.dir().display(),
        cluster.port
    ))
    .unwrap();
    assert!(!encrypted(&mut client));
}

#[test]
fn status_names_targets_in_full_and_keeps_alike_ones_apart() {
    let Some(pg) = cluster("status_names_targets_in_full_and_keeps_alike_ones_apart") else {
        return;
    };
    let location = pg.database("status").unwrap();
    let mut db = Database::connect(&location).unwrap();
    let mut avx512 = record("aa", vec![1], 2.0);
    avx512.target.features = "+avx2,+avx512f,+fma".into();
    db.add(&record("aa", vec![1], 1.0), "matmul", "ir a")
        .unwrap();
    db.add(&avx512, "matmul", "ir a").unwrap();
    db.add(&record("aa", vec![2], 3.0), "matmul", "ir a")
        .unwrap();
    let report = tb_tune::status::report(&db).unwrap();
    assert!(
        report.contains("targets:\n  #1 znver3 threads=1 features=+avx2,+fma\n  #2 znver3 threads=1 features=+avx2,+avx512f,+fma\n"),
        "{report}"
    );
    // One CPU, two feature sets: two lines of best latency, each naming its target.
    assert!(
        report.contains("2 trials  1000.0000 ms  #1 znver3 (threads=1)"),
        "{report}"
    );
    assert!(
        report.contains("1 trials  2000.0000 ms  #2 znver3 (threads=1)"),
        "{report}"
    );
}

/// A 16-byte-vector machine of 4 cores (an Arm server, say).
fn neon_machine() -> Machine {
    Machine {
        vector_bytes: 16,
        vector_registers: 32,
        cores: 4,
        l1_bytes: 64 << 10,
        l2_bytes: 1 << 20,
    }
}

fn neon_target() -> TargetKey {
    TargetKey {
        cpu: "neoverse-n1".into(),
        features: "+neon".into(),
        threads: 1,
    }
}

/// Resolves `specs` for a coordinator on host `host-cpu`, collecting what it logs.
fn resolve(
    location: &str,
    specs: &[&str],
    local_workers: bool,
) -> (
    Result<Vec<tb_tune::coordinator::FleetTarget>, String>,
    Vec<String>,
) {
    let mut client = tb_tune::database::postgres::connect(location).unwrap();
    let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    let mut logged = Vec::new();
    let resolved = tb_tune::coordinator::resolve_targets(
        &mut client,
        &specs,
        &target_key("host-cpu", 1),
        &Machine::of(&common::avx2()),
        local_workers,
        &mut |m| logged.push(m.to_string()),
    );
    (resolved, logged)
}

/// A database where worker `w1` registered for znver3 (an AVX2 machine) and `w2` for
/// neoverse-n1 (16-byte vectors, 4 cores).
fn two_target_fleet(pg: &pg::PgCluster) -> String {
    let location = pg.database("fleet").unwrap();
    drop(Database::connect(&location).unwrap());
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    queue::register_worker(&mut c, "w1", "h1", &target_key("znver3", 1), &machine()).unwrap();
    queue::register_worker(&mut c, "w2", "h2", &neon_target(), &neon_machine()).unwrap();
    location
}

#[test]
fn all_resolves_every_registered_target_with_its_workers_machine() {
    let Some(pg) = cluster("all_resolves_every_registered_target_with_its_workers_machine") else {
        return;
    };
    let location = two_target_fleet(&pg);
    let (resolved, _) = resolve(&location, &["all"], false);
    let resolved = resolved.unwrap();
    let keys: Vec<&TargetKey> = resolved.iter().map(|t| &t.key).collect();
    assert_eq!(keys, [&target_key("znver3", 1), &neon_target()]);
    assert_eq!(resolved[0].machine, machine());
    assert_eq!(resolved[1].machine, neon_machine());
    // With local workers, this machine's target too (they register as they start).
    let (resolved, _) = resolve(&location, &["all"], true);
    let resolved = resolved.unwrap();
    assert_eq!(resolved.len(), 3);
    assert_eq!(resolved[0].key, target_key("host-cpu", 1));
}

#[test]
fn a_named_target_is_found_by_number_key_or_cpu_model() {
    let Some(pg) = cluster("a_named_target_is_found_by_number_key_or_cpu_model") else {
        return;
    };
    let location = two_target_fleet(&pg);
    for spec in ["#2", "2", "neoverse-n1", "neoverse-n1|+neon|threads=1"] {
        let (resolved, _) = resolve(&location, &[spec], false);
        let resolved = resolved.unwrap();
        assert_eq!(resolved.len(), 1, "{spec}");
        assert_eq!(resolved[0].key, neon_target(), "{spec}");
        assert_eq!(resolved[0].machine, neon_machine(), "{spec}");
    }
    // Each target once, in the order given; `auto` is this machine's.
    let (resolved, _) = resolve(&location, &["#2", "auto", "neoverse-n1"], false);
    let keys: Vec<TargetKey> = resolved.unwrap().into_iter().map(|t| t.key).collect();
    assert_eq!(keys, [neon_target(), target_key("host-cpu", 1)]);
}

#[test]
fn unknown_and_ambiguous_targets_are_refused_with_the_known_ones() {
    let Some(pg) = cluster("unknown_and_ambiguous_targets_are_refused_with_the_known_ones") else {
        return;
    };
    let location = two_target_fleet(&pg);
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    queue::register_worker(&mut c, "w3", "h1", &target_key("znver3", 4), &machine()).unwrap();
    let (e, _) = resolve(&location, &["skylake"], false);
    let e = e.unwrap_err();
    assert!(e.starts_with("--target skylake: no such target (known: #1 znver3 (1 thread), #2 neoverse-n1 (1 thread), #3 znver3 (4 threads))"), "{e}");
    let (e, _) = resolve(&location, &["znver3"], false);
    let e = e.unwrap_err();
    assert!(
        e.contains("--target znver3: names 2 targets (#1 znver3 (1 thread), #3 znver3 (4 threads)); give its number instead"),
        "{e}"
    );
    let (e, _) = resolve(&location, &["#9"], false);
    assert!(e.unwrap_err().contains("no such target"));
}

#[test]
fn all_without_registered_workers_is_refused() {
    let Some(pg) = cluster("all_without_registered_workers_is_refused") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    drop(Database::connect(&location).unwrap());
    let (e, _) = resolve(&location, &["all"], false);
    assert!(
        e.unwrap_err()
            .contains("--target all: no worker has registered in this database yet"),
    );
    // Local workers will register this machine's target.
    let (resolved, _) = resolve(&location, &["all"], true);
    assert_eq!(resolved.unwrap().len(), 1);
}

#[test]
fn a_target_without_a_machine_description_is_refused_and_left_out_of_all() {
    let Some(pg) = cluster("a_target_without_a_machine_description_is_refused_and_left_out_of_all")
    else {
        return;
    };
    let location = two_target_fleet(&pg);
    // As a worker of an older tb-tune leaves it; a malformed description is no better.
    let db = Database::connect(&location).unwrap();
    db.with(|s| {
        s.execute(
            "UPDATE targets SET machine = NULL WHERE cpu = 'znver3'",
            &[],
        )?;
        s.execute(
            "UPDATE targets SET machine = '{\"vector_bytes\": \"wide\"}' WHERE cpu = 'neoverse-n1'",
            &[],
        )
    })
    .unwrap();
    let (e, _) = resolve(&location, &["#1"], false);
    assert!(
        e.unwrap_err().contains(
            "--target #1: target #1 znver3 (1 thread) has no machine description: no worker of it has registered with this version of tb-tune"
        )
    );
    let (e, _) = resolve(&location, &["#2"], false);
    assert!(
        e.unwrap_err()
            .contains("machine description '{\"vector_bytes\": \"wide\"}' is malformed")
    );
    let (resolved, logged) = resolve(&location, &["all"], true);
    let keys: Vec<TargetKey> = resolved.unwrap().into_iter().map(|t| t.key).collect();
    assert_eq!(keys, [target_key("host-cpu", 1)]);
    assert_eq!(logged.len(), 2, "{logged:?}");
    assert!(
        logged[0].starts_with("--target all: leaving a target out: target #1 znver3"),
        "{logged:?}"
    );
}

#[test]
fn a_worker_stores_its_machine_and_learns_when_another_described_it_otherwise() {
    let Some(pg) =
        cluster("a_worker_stores_its_machine_and_learns_when_another_described_it_otherwise")
    else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    drop(Database::connect(&location).unwrap());
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    let target = target_key("znver3", 1);
    assert_eq!(
        queue::register_worker(&mut c, "w1", "h1", &target, &machine()).unwrap(),
        None
    );
    // The same machine again, or a second worker of it: nothing to say.
    assert_eq!(
        queue::register_worker(&mut c, "w2", "h2", &target, &machine()).unwrap(),
        None
    );
    let wider = Machine {
        cores: 8,
        ..machine()
    };
    assert_eq!(
        queue::register_worker(&mut c, "w3", "h3", &target, &wider).unwrap(),
        Some(machine().to_json())
    );
    let db = Database::connect(&location).unwrap();
    let stored = db
        .with(|s| s.query("SELECT machine FROM targets", &[]))
        .unwrap();
    assert_eq!(stored[0][0].as_text(), Some(wider.to_json().as_str()));
}

#[test]
fn a_claim_reads_the_open_jobs_of_its_target_not_every_job() {
    let Some(pg) = cluster("a_claim_reads_the_open_jobs_of_its_target_not_every_job") else {
        return;
    };
    let location = pg.database("claim").unwrap();
    drop(Database::connect(&location).unwrap());
    let target = target_key("znver3", 1);
    let mut c = tb_tune::database::postgres::connect(&location).unwrap();
    queue::enqueue(&mut c, &target, "c", 3, &[job("aa", vec![0])]).unwrap();
    // A queue that has done most of its work: 5,000 jobs, all but the last 5 done.
    c.batch_execute(
        "INSERT INTO jobs (target_id, task_id, space, decision, description, search,
             coordinator, max_attempts, created, state)
         SELECT target_id, task_id, space, '[' || i || ']', '', search, 'c', 3, 0,
             CASE WHEN i <= 4995 THEN 'done' ELSE 'queued' END
         FROM jobs, generate_series(1, 5000) i;
         UPDATE jobs SET state = 'done' WHERE decision = '[0]';
         ANALYZE jobs;",
    )
    .unwrap();
    // A worker's own session: the scans its statistics count before and after the claim
    // (they are the session's, not yet flushed) are the claim's.
    let mut w = tb_tune::database::postgres::connect(&location).unwrap();
    let scans = |w: &mut postgres::Client| -> (i64, i64, i64) {
        let row = w
            .query_one(
                "SELECT seq_scan, seq_tup_read, idx_scan FROM pg_stat_xact_user_tables
                 WHERE relname = 'jobs'",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1), row.get(2))
    };
    w.batch_execute("BEGIN").unwrap();
    let before = scans(&mut w);
    let mut tasks = queue::TaskCache::new();
    let claimed = queue::claim(
        &mut w,
        &mut Prepared::default(),
        "w",
        &target,
        Duration::from_secs(30),
        &mut tasks,
    )
    .unwrap()
    .unwrap();
    let after = scans(&mut w);
    w.batch_execute("COMMIT").unwrap();
    assert_eq!(claimed.decision, "[4996]", "the oldest open job");
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (0, 0),
        "the claim scanned the jobs table"
    );
    let idx_scan = after.2 - before.2;
    assert!(idx_scan >= 1);
}

#[test]
fn status_shows_the_machine_each_targets_workers_described() {
    let Some(pg) = cluster("status_shows_the_machine_each_targets_workers_described") else {
        return;
    };
    let location = two_target_fleet(&pg);
    let db = Database::connect(&location).unwrap();
    let report = tb_tune::status::report(&db).unwrap();
    assert!(
        report.contains(
            "  #1 znver3 threads=1 features=+avx2,+fma\n      workers' machine: 32-byte vectors x 16, 2 cores\n"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "  #2 neoverse-n1 threads=1 features=+neon\n      workers' machine: 16-byte vectors x 32, 4 cores\n"
        ),
        "{report}"
    );
}
