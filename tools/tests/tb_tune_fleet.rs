//! `tb-tune` at fleet scale against a real PostgreSQL server (a throwaway cluster per
//! test): several worker processes, a worker killed with SIGKILL in the middle of a job,
//! the server restarted under load, concurrent coordinators, clean stops on SIGTERM and
//! credentials from a password file. Each ends with an audit of the queue: every job has
//! exactly one record, no candidate is measured twice. Without PostgreSQL these tests
//! skip, and fail under `CI=true` (`tb_support::test_gate`).

#[path = "../../tune/tests/common/pg.rs"]
mod pg;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pg::shared_or_skip as cluster;
use tb_tune::Database;
use tb_tune::queue::{self, NewJob};

fn tb_tune() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tb-tune"))
}

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/tools/tb-tune/Inputs/mm.mlir")
}

/// A synthetic worker (`--synthetic MS`) whose stderr goes to `log`.
fn worker(location: &str, name: &str, work_ms: u32, lease_s: f64, log: &Path) -> Child {
    tb_tune()
        .args([
            "worker",
            "--db",
            location,
            "--name",
            name,
            "--idle-exit",
            "20",
            "--reconnect-for",
            "30",
        ])
        .args([
            "--synthetic",
            &work_ms.to_string(),
            "--lease",
            &lease_s.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// Queues `n` synthetic jobs (tasks `t0`, `t1`, ..., decisions `[i]`) for this machine's
/// one-thread target.
fn enqueue(location: &str, n: usize) -> Vec<i64> {
    drop(Database::connect(location).unwrap());
    let mut client = tb_tune::database::postgres::connect(location).unwrap();
    let jobs: Vec<NewJob> = (0..n)
        .map(|i| NewJob {
            task_key: format!("t{}", i % 7),
            task_summary: "synthetic".into(),
            task_ir: String::new(),
            space: "fixed".into(),
            decision: vec![i],
            description: format!("[{i}]"),
            search: "model".into(),
        })
        .collect();
    queue::enqueue(
        &mut client,
        &tb_tools::tuning::host_target(1),
        "test",
        3,
        &jobs,
    )
    .unwrap()
}

fn scalar(db: &Database, sql: &str) -> i64 {
    db.with(|s| s.query(sql, &[])).unwrap()[0][0]
        .as_int()
        .unwrap_or(0)
}

/// Lost: a job without its record, or a finished job's record missing. Duplicated: a
/// candidate (target, task, decision) with two records.
fn audit(location: &str) -> (i64, i64, i64) {
    let db = Database::connect(location).unwrap();
    let jobs = scalar(&db, "SELECT count(*) FROM jobs");
    let lost = scalar(
        &db,
        "SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.job_id = j.id)",
    );
    let duplicated = scalar(
        &db,
        "SELECT count(*) FROM (SELECT target_id, task_id, decision FROM records
             GROUP BY target_id, task_id, decision HAVING count(*) > 1) d",
    );
    (jobs, lost, duplicated)
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Records in the database; -1 while the server is away.
fn records(location: &str) -> i64 {
    match Database::connect(location) {
        Ok(db) => db
            .with(|s| s.query("SELECT count(*) FROM records", &[]))
            .map_or(-1, |rows| rows[0][0].as_int().unwrap_or(-1)),
        Err(_) => -1,
    }
}

fn stop(children: &mut [Child]) {
    for c in children.iter() {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(c.id() as libc::pid_t, libc::SIGTERM) };
    }
    for c in children.iter_mut() {
        assert!(c.wait().unwrap().success());
    }
}

#[test]
fn several_workers_share_the_queue() {
    let Some(pg) = cluster("several_workers_share_the_queue") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    let ids = enqueue(&location, 60);
    let mut workers: Vec<Child> = (0..3)
        .map(|i| {
            worker(
                &location,
                &format!("w{i}"),
                10,
                10.0,
                &pg.dir().join(format!("w{i}.log")),
            )
        })
        .collect();
    wait_for("60 records", Duration::from_secs(60), || {
        records(&location) == 60
    });
    stop(&mut workers);
    assert_eq!(audit(&location), (ids.len() as i64, 0, 0));
    let db = Database::connect(&location).unwrap();
    // Every worker took part.
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM workers WHERE jobs_done > 0"),
        3
    );
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM workers WHERE state = 'stopped'"),
        3
    );
}

#[test]
fn a_worker_killed_mid_job_loses_nothing() {
    let Some(pg) = cluster("a_worker_killed_mid_job_loses_nothing") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    enqueue(&location, 24);
    let log = |i: usize| pg.dir().join(format!("w{i}.log"));
    // The victim holds each job for 2 s with a 1 s lease.
    let mut victim = worker(&location, "victim", 2000, 1.0, &log(0));
    let db = Database::connect(&location).unwrap();
    wait_for("the victim's first job", Duration::from_secs(20), || {
        scalar(
            &db,
            "SELECT count(*) FROM jobs WHERE worker = 'victim' AND state = 'running'",
        ) == 1
    });
    let held = scalar(
        &db,
        "SELECT id FROM jobs WHERE worker = 'victim' AND state = 'running'",
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
    let mut workers: Vec<Child> = (1..3)
        .map(|i| worker(&location, &format!("w{i}"), 20, 1.0, &log(i)))
        .collect();
    wait_for("24 records", Duration::from_secs(60), || {
        records(&location) == 24
    });
    stop(&mut workers);
    assert_eq!(audit(&location), (24, 0, 0));
    let db = Database::connect(&location).unwrap();
    assert_eq!(
        scalar(&db, &format!("SELECT attempts FROM jobs WHERE id = {held}")),
        2,
        "the killed worker's job was handed out again"
    );
    assert_eq!(
        scalar(
            &db,
            &format!("SELECT count(*) FROM records WHERE job_id = {held} AND status = 'ok'")
        ),
        1
    );
}

#[test]
fn workers_reconnect_after_the_server_restarts() {
    // Its own cluster: it stops the server.
    let Some(pg) = pg::own_or_skip("workers_reconnect_after_the_server_restarts", None) else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    enqueue(&location, 80);
    let logs: Vec<PathBuf> = (0..3).map(|i| pg.dir().join(format!("w{i}.log"))).collect();
    let mut workers: Vec<Child> = (0..3)
        .map(|i| worker(&location, &format!("w{i}"), 25, 5.0, &logs[i]))
        .collect();
    wait_for("20 records", Duration::from_secs(60), || {
        records(&location) >= 20
    });
    pg.stop().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    pg.start_server().unwrap();
    wait_for("80 records", Duration::from_secs(90), || {
        records(&location) == 80
    });
    stop(&mut workers);
    assert_eq!(audit(&location), (80, 0, 0));
    let reconnected = logs
        .iter()
        .filter(|l| std::fs::read_to_string(l).unwrap().contains("reconnects"))
        .filter(|l| {
            !std::fs::read_to_string(l)
                .unwrap()
                .contains(" 0 reconnects")
        })
        .count();
    assert!(reconnected >= 1, "no worker reports reconnecting");
}

#[test]
fn concurrent_coordinators_never_measure_a_candidate_twice() {
    let Some(pg) = cluster("concurrent_coordinators_never_measure_a_candidate_twice") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    drop(Database::connect(&location).unwrap());
    let mut workers: Vec<Child> = (0..2)
        .map(|i| {
            worker(
                &location,
                &format!("w{i}"),
                5,
                10.0,
                &pg.dir().join(format!("w{i}.log")),
            )
        })
        .collect();
    let coordinator = || {
        tb_tune()
            .arg(model())
            .args([
                "--db",
                &location,
                "--workers",
                "0",
                "--trials",
                "14",
                "--seed",
                "3",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (coordinator(), coordinator());
    for c in [a, b] {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let table = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(table.contains("matmul"), "{table}");
    }
    stop(&mut workers);
    let (jobs, lost, duplicated) = audit(&location);
    assert!(jobs >= 14, "{jobs} jobs");
    assert_eq!((lost, duplicated), (0, 0));
    // The same seed proposes the same candidates: they shared jobs, so fewer than 2 x 14.
    assert!(jobs < 28, "{jobs} jobs");
}

#[test]
fn a_coordinator_with_local_workers_tunes_and_applies() {
    let Some(pg) = cluster("a_coordinator_with_local_workers_tunes_and_applies") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    let out = tb_tune()
        .arg(model())
        .args(["--db", &location, "--workers", "2", "--trials", "6"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let (jobs, lost, duplicated) = audit(&location);
    assert_eq!((jobs, lost, duplicated), (6, 0, 0));
    let db = Database::connect(&location).unwrap();
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM records WHERE status = 'ok'"),
        6
    );
    // Both local workers were started and stopped with the coordinator.
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM workers WHERE state = 'stopped'"),
        2
    );
    assert_eq!(scalar(&db, "SELECT sum(jobs_done)::bigint FROM workers"), 6);
    // tb-run applies the shared database's records.
    let run = Command::new(env!("CARGO_BIN_EXE_tb-run"))
        .arg(model())
        .args([
            "--db",
            &location,
            "--explain",
            "--random-inputs",
            "1",
            "--check",
        ])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{text}");
    assert!(text.contains("record"), "{text}");
    let status = tb_tune()
        .args(["status", "--db", &location])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success());
    assert!(
        report.contains("done") && report.contains("6 records in all"),
        "{report}"
    );
}

#[test]
fn sigterm_stops_a_worker_after_its_job_is_recorded() {
    let Some(pg) = cluster("sigterm_stops_a_worker_after_its_job_is_recorded") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    enqueue(&location, 5);
    let log = pg.dir().join("w.log");
    let mut w = worker(&location, "w", 1500, 10.0, &log);
    let db = Database::connect(&location).unwrap();
    wait_for("a running job", Duration::from_secs(20), || {
        scalar(&db, "SELECT count(*) FROM jobs WHERE state = 'running'") == 1
    });
    // SAFETY: signalling our own child.
    unsafe { libc::kill(w.id() as libc::pid_t, libc::SIGTERM) };
    assert!(w.wait().unwrap().success());
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM records"),
        1,
        "the job in hand is recorded"
    );
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM jobs WHERE state = 'queued'"),
        4
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("stopped on signal 15: 1 recorded"), "{text}");
}

#[test]
fn sigterm_stops_a_coordinator_and_withdraws_its_unclaimed_jobs() {
    let Some(pg) = cluster("sigterm_stops_a_coordinator_and_withdraws_its_unclaimed_jobs") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    let c = tb_tune()
        .arg(model())
        .args(["--db", &location, "--workers", "0", "--trials", "8"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("queued jobs", Duration::from_secs(30), || {
        Database::connect(&location)
            .map(|db| scalar(&db, "SELECT count(*) FROM jobs"))
            .unwrap_or(0)
            > 0
    });
    // SAFETY: signalling our own child.
    unsafe { libc::kill(c.id() as libc::pid_t, libc::SIGTERM) };
    let out = c.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("unclaimed jobs withdrawn"), "{stderr}");
    let db = Database::connect(&location).unwrap();
    assert_eq!(scalar(&db, "SELECT count(*) FROM jobs"), 0);
}

#[test]
fn the_password_comes_from_a_password_file_never_the_command_line() {
    let Some(pg) = pg::own_or_skip(
        "the_password_comes_from_a_password_file_never_the_command_line",
        Some("s3cret-pw"),
    ) else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    let pgpass = pg.dir().join("pgpass");
    std::fs::write(
        &pgpass,
        format!("# test\n127.0.0.1:{}:*:tb:s3cret-pw\n", pg.port),
    )
    .unwrap();
    let status = |loc: &str, file: Option<&Path>| {
        let mut c = tb_tune();
        c.args(["status", "--db", loc]).env_remove("PGPASSWORD");
        match file {
            Some(f) => c.env("PGPASSFILE", f),
            None => c.env("PGPASSFILE", "/nonexistent"),
        };
        c.output().unwrap()
    };
    let ok = status(&location, Some(&pgpass));
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("queue:"));
    let refused = status(&location, None);
    assert!(!refused.status.success());
    let why = String::from_utf8_lossy(&refused.stderr).to_string();
    assert!(
        why.contains("password missing (the server asks for a password"),
        "{why}"
    );
    let inline = format!("postgres://tb:s3cret-pw@127.0.0.1:{}/fleet", pg.port);
    let out = status(&inline, Some(&pgpass));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("password in the database location is refused"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
}

/// Two targets a synthetic worker can stand in for on any machine: an AVX2 one (32-byte
/// vectors) and an SSE one with 2 threads (16-byte vectors, 2 cores); neither is this
/// machine's, whose spaces are another size again.
const AVX2: &str = "fleet-avx2|+avx2,+fma,-avx512f|threads=1";
const SSE: &str = "fleet-sse|+sse4.2,-avx2|threads=2";

/// A synthetic worker standing in for `target`; returns once it has registered.
fn stand_in(location: &str, name: &str, target: &str, log: &Path) -> Child {
    let child = tb_tune()
        .args([
            "worker", "--db", location, "--name", name, "--target", target,
        ])
        .args(["--synthetic", "2", "--idle-exit", "30"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    wait_for("the worker's registration", Duration::from_secs(30), || {
        Database::connect(location)
            .map(|db| {
                scalar(
                    &db,
                    &format!("SELECT count(*) FROM workers WHERE name = '{name}'"),
                )
            })
            .unwrap_or(0)
            == 1
    });
    child
}

/// A coordinator with no local workers tuning `mm.mlir` for `targets`, by random search
/// (every knob value is as likely, so a space of the wrong target shows).
fn coordinate(location: &str, targets: &[&str], trials: usize) -> std::process::Output {
    let mut c = tb_tune();
    c.arg(model()).args([
        "--db",
        location,
        "--workers",
        "0",
        "--random",
        "--trials",
        &trials.to_string(),
    ]);
    for t in targets {
        c.args(["--target", t]);
    }
    let out = c.stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The records of `target`: (task IR, space kind, decision, description).
fn records_of(db: &Database, target: &str) -> Vec<(String, String, Vec<usize>, String)> {
    db.with(|s| {
        s.query(
            "SELECT k.ir, r.space, r.decision, r.description FROM records r
                 JOIN targets t ON r.target_id = t.id JOIN tasks k ON r.task_id = k.id
             WHERE t.key = ?1",
            &[tb_tune::database::sql::Value::text(target)],
        )
    })
    .unwrap()
    .into_iter()
    .map(|row| {
        let text = |i: usize| row[i].as_text().unwrap().to_string();
        (
            text(0),
            text(1),
            serde_json::from_str(&text(2)).unwrap(),
            text(3),
        )
    })
    .collect()
}

/// Every record of `target` is a candidate of the space its machine gives the task.
fn assert_in_own_space(db: &Database, target: &str) {
    let key = tb_tune::TargetKey::parse(target).unwrap();
    let machine = key.assumed_machine().schedule_target();
    let records = records_of(db, target);
    assert!(!records.is_empty(), "{target} has no records");
    for (ir, kind, decision, description) in records {
        let task = tb_tune::Task {
            key: String::new(),
            ir,
            weight: 1,
            origin: String::new(),
        };
        let (space, _) = tb_tune::Space::of(&task, &machine).unwrap();
        assert_eq!(kind, space.kind(), "{target}");
        if decision.is_empty() {
            assert_eq!(description, "heuristic");
            continue;
        }
        space
            .validate(&decision)
            .unwrap_or_else(|e| panic!("{target}: {decision:?} ({description}): {e}"));
        assert_eq!(description, space.describe(&decision), "{target}");
    }
}

/// A fresh `fleet` database with stand-in workers for the AVX2 and the SSE target: its
/// location and the workers.
fn two_target_fleet(pg: &pg::PgCluster) -> (String, Vec<Child>) {
    let location = pg.database("fleet").unwrap();
    drop(Database::connect(&location).unwrap());
    let log = |n: &str| pg.dir().join(format!("{n}.log"));
    let workers = vec![
        stand_in(&location, "avx2-worker", AVX2, &log("avx2")),
        stand_in(&location, "sse-worker", SSE, &log("sse")),
    ];
    (location, workers)
}

#[test]
fn a_coordinator_tunes_every_registered_target_in_its_own_space() {
    let Some(pg) = cluster("a_coordinator_tunes_every_registered_target_in_its_own_space") else {
        return;
    };
    let (location, mut workers) = two_target_fleet(&pg);
    let out = coordinate(&location, &["all"], 12);
    stop(&mut workers);
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        table.contains(&format!(
            "target fleet-avx2 (1 thread) ({AVX2}; 32-byte vectors x 16, 1 core):"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "target fleet-sse (2 threads) ({SSE}; 16-byte vectors x 16, 2 cores):"
        )),
        "{table}"
    );
    assert_eq!(audit(&location), (24, 0, 0));
    let db = Database::connect(&location).unwrap();
    // Each target has its trials, measured by its own worker; none crossed.
    for (target, worker) in [(AVX2, "avx2-worker"), (SSE, "sse-worker")] {
        assert_eq!(
            scalar(
                &db,
                &format!(
                    "SELECT count(*) FROM records r JOIN targets t ON r.target_id = t.id
                     JOIN jobs j ON r.job_id = j.id
                     WHERE t.key = '{target}' AND j.worker = '{worker}'"
                )
            ),
            12,
            "{target}"
        );
        assert_in_own_space(&db, target);
    }
    assert_eq!(
        scalar(
            &db,
            "SELECT count(*) FROM records r JOIN jobs j ON r.job_id = j.id
             WHERE r.target_id <> j.target_id"
        ),
        0
    );
    // This machine is no target of the fleet: it queued nothing for itself.
    assert_eq!(scalar(&db, "SELECT count(DISTINCT target_id) FROM jobs"), 2);
}

#[test]
fn a_coordinator_tunes_only_the_target_it_names() {
    let Some(pg) = cluster("a_coordinator_tunes_only_the_target_it_names") else {
        return;
    };
    let (location, mut workers) = two_target_fleet(&pg);
    // By its CPU model; the table is the single target's, as without --target.
    let out = coordinate(&location, &["fleet-sse"], 6);
    stop(&mut workers);
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!table.contains("target "), "{table}");
    assert!(table.contains("matmul"), "{table}");
    assert_eq!(audit(&location), (6, 0, 0));
    let db = Database::connect(&location).unwrap();
    assert_eq!(
        scalar(
            &db,
            &format!(
                "SELECT count(*) FROM jobs j JOIN targets t ON j.target_id = t.id
                 WHERE t.key = '{SSE}'"
            )
        ),
        6
    );
    assert_in_own_space(&db, SSE);
}

#[test]
fn tls_with_a_password_logs_in_and_never_shows_the_password() {
    const SECRET: &str = "tls-Pw-7731";
    let Some((pg, files)) = pg::tls_with_password_or_skip(
        "tls_with_a_password_logs_in_and_never_shows_the_password",
        SECRET,
    ) else {
        return;
    };
    let location = pg.database("tlspw").unwrap();
    let verified = format!(
        "{location}?sslmode=verify-full&sslrootcert={}",
        files.ca.display()
    );
    let pgpass = pg.dir().join("pgpass");
    std::fs::write(&pgpass, format!("127.0.0.1:{}:*:tb:{SECRET}\n", pg.port)).unwrap();
    // Credentials from the environment only: PGPASSWORD, or a password file.
    let with_env = |c: &mut Command, how: &str| {
        c.env_remove("PGPASSWORD").env("PGPASSFILE", "/nonexistent");
        match how {
            "PGPASSWORD" => c.env("PGPASSWORD", SECRET),
            "PGPASSFILE" => c.env("PGPASSFILE", &pgpass),
            _ => c,
        };
    };
    let mut seen = String::new();
    for how in ["PGPASSWORD", "PGPASSFILE"] {
        // A worker logs in over verified TLS (the server refuses TCP in the clear)...
        let mut w = tb_tune();
        w.args([
            "worker",
            "--db",
            &verified,
            "--name",
            how,
            "--synthetic",
            "0",
        ])
        .args(["--idle-exit", "0.2"]);
        with_env(&mut w, how);
        let out = w.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{how}: {stderr}");
        assert!(stderr.contains("0 recorded"), "{how}: {stderr}");
        seen += &stderr;
        // ... and `status` sees it.
        let mut s = tb_tune();
        s.args(["status", "--db", &format!("{location}?sslmode=require")]);
        with_env(&mut s, how);
        let out = s.output().unwrap();
        let report = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{how}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(report.contains(&format!("  {how} ")), "{how}: {report}");
        seen += &report;
    }
    // In the clear, with a wrong password, or with none: refused, with the reason.
    let refused = |loc: &str, how: &str, password: Option<&str>| {
        let mut c = tb_tune();
        c.args(["status", "--db", loc]);
        with_env(&mut c, how);
        if let Some(p) = password {
            c.env("PGPASSWORD", p);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success(), "{loc} {how}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let clear = refused(&format!("{location}?sslmode=disable"), "PGPASSWORD", None);
    assert!(clear.contains("no encryption"), "{clear}");
    let wrong = refused(&verified, "", Some("not-the-password"));
    assert!(wrong.contains("password authentication failed"), "{wrong}");
    let none = refused(&verified, "", None);
    assert!(none.contains("password missing"), "{none}");
    seen += &(clear + &wrong + &none);
    // The password shows nowhere: logs, errors, status, nor the server's log.
    seen += &std::fs::read_to_string(pg.dir().join("server.log")).unwrap();
    assert!(!seen.contains(SECRET), "{seen}");
}

#[test]
fn a_heartbeat_keeps_a_job_that_outlasts_its_lease() {
    let Some(pg) = cluster("a_heartbeat_keeps_a_job_that_outlasts_its_lease") else {
        return;
    };
    let location = pg.database("fleet").unwrap();
    enqueue(&location, 4);
    // Each job takes 1.5 s on a 0.6 s lease: only the heartbeat keeps it from the other
    // worker, which is idle and claims whatever lease expires.
    let logs: Vec<PathBuf> = (0..2)
        .map(|i| pg.dir().join(format!("hb{i}.log")))
        .collect();
    let mut workers: Vec<Child> = (0..2)
        .map(|i| worker(&location, &format!("hb{i}"), 1500, 0.6, &logs[i]))
        .collect();
    wait_for("4 records", Duration::from_secs(60), || {
        records(&location) == 4
    });
    stop(&mut workers);
    assert_eq!(audit(&location), (4, 0, 0));
    let db = Database::connect(&location).unwrap();
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM jobs WHERE attempts > 1"),
        0,
        "a job was handed out again while its worker was alive"
    );
    for log in &logs {
        let text = std::fs::read_to_string(log).unwrap();
        assert!(text.contains(" 0 leases lost"), "{text}");
    }
}
