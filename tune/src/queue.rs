//! The measurement job queue, in the tuning database on PostgreSQL (schema version 2).
//!
//! A coordinator [`enqueue`]s candidates of its target as `jobs` rows. Workers on any
//! machine [`claim`] the oldest job of their own target with `SELECT ... FOR UPDATE SKIP
//! LOCKED` (so concurrent workers never wait on, nor take, each other's job), setting a
//! lease that a heartbeat ([`renew`]) extends while the job is measured, and [`complete`]
//! it: the record and the job's completion commit in one statement (so one transaction),
//! and only while the worker still holds the lease. A job whose worker died is claimed again once its lease
//! has expired; after `max_attempts` expired leases it is recorded as a `crash` with the
//! reason and never retried. `records.job_id` is unique, so a job yields one record at
//! most whatever the interleaving.
//!
//! Times (leases, heartbeats) come from the server's clock, so machines with skewed
//! clocks agree. Workers and coordinators wake on `NOTIFY tb_tune_jobs` (new jobs) and
//! `NOTIFY tb_tune_done` (records), polling as a fallback.

use std::collections::HashMap;
use std::time::Duration;

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator;

use crate::database::sql::{Prepared, Sql, Value, pg_error};
use crate::database::{Record, Status, upsert_target, upsert_task};
use crate::search::Measurement;
use crate::target::{Machine, TargetKey};

pub const JOBS_CHANNEL: &str = "tb_tune_jobs";
pub const DONE_CHANNEL: &str = "tb_tune_done";

/// A candidate to queue.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub task_key: String,
    pub task_summary: String,
    pub task_ir: String,
    pub space: String,
    /// Knob indices; empty: the heuristic schedule.
    pub decision: Vec<usize>,
    pub description: String,
    pub search: String,
}

/// Queues `jobs` for `target` in one transaction and returns their ids, in order. A
/// candidate already queued (or measured through the queue) for this target keeps its
/// job: the id returned is that job's, so two coordinators share one measurement.
pub fn enqueue(
    client: &mut Client,
    target: &TargetKey,
    coordinator: &str,
    max_attempts: u32,
    jobs: &[NewJob],
) -> Result<Vec<i64>, String> {
    let mut tx = client.transaction().map_err(|e| pg_error(&e))?;
    upsert_target(&mut tx, target)?;
    let mut ids = Vec::with_capacity(jobs.len());
    for job in jobs {
        upsert_task(&mut tx, &job.task_key, &job.task_summary, &job.task_ir)?;
        let decision = serde_json::to_string(&job.decision).expect("indices serialize");
        let params = [
            Value::text(target.id()),
            Value::text(&job.task_key),
            Value::text(&job.space),
            Value::text(&decision),
            Value::text(&job.description),
            Value::text(&job.search),
            Value::text(coordinator),
            Value::Int(Some(max_attempts as i64)),
        ];
        let inserted = Sql::query(
            &mut tx,
            "INSERT INTO jobs (target_id, task_id, space, decision, description, search,
                 coordinator, max_attempts, created)
             VALUES ((SELECT id FROM targets WHERE key = ?1), (SELECT id FROM tasks WHERE key = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, {now})
             ON CONFLICT (target_id, task_id, decision) DO NOTHING RETURNING id",
            &params,
        )?;
        let id = match inserted.first() {
            Some(row) => row[0].as_int(),
            None => Sql::query(
                &mut tx,
                "SELECT j.id FROM jobs j JOIN targets t ON j.target_id = t.id
                     JOIN tasks k ON j.task_id = k.id
                     WHERE t.key = ?1 AND k.key = ?2 AND j.decision = ?3",
                &[
                    Value::text(target.id()),
                    Value::text(&job.task_key),
                    Value::text(&decision),
                ],
            )?
            .first()
            .and_then(|row| row[0].as_int()),
        };
        ids.push(id.ok_or("a queued job has no id")?);
    }
    tx.batch_execute(&format!("NOTIFY {JOBS_CHANNEL}"))
        .map_err(|e| pg_error(&e))?;
    tx.commit().map_err(|e| pg_error(&e))?;
    Ok(ids)
}

/// The records of finished jobs among `ids`, by job id.
pub fn finished(client: &mut Client, ids: &[i64]) -> Result<HashMap<i64, Record>, String> {
    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    if list.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = Sql::query(
        client,
        &format!(
            "SELECT r.job_id, t.cpu, t.features, t.threads, k.key, r.space, r.decision,
                 r.description, r.status, r.latency_s, r.runs_s, r.error, r.search, k.summary, k.ir
             FROM records r JOIN targets t ON r.target_id = t.id JOIN tasks k ON r.task_id = k.id
             WHERE r.job_id IN ({list})"
        ),
        &[],
    )?;
    let mut out = HashMap::new();
    for row in rows {
        let id = row[0].as_int().ok_or("a record without its job")?;
        let record = match crate::database::record_from_row(&row) {
            Ok((record, _, _)) => record,
            // A job's record that does not parse still ends the job: as an error.
            Err(why) => Record {
                target: TargetKey {
                    cpu: String::new(),
                    features: String::new(),
                    threads: 1,
                },
                task_key: String::new(),
                space: String::new(),
                decision: vec![],
                description: String::new(),
                status: Status::Error,
                latency_s: None,
                runs_s: vec![],
                error: Some(format!("the record of job {id} is malformed: {why}")),
                search: String::new(),
            },
        };
        out.insert(id, record);
    }
    Ok(out)
}

/// Removes the jobs among `ids` that no worker has claimed yet (a coordinator that stops).
pub fn withdraw(client: &mut Client, ids: &[i64]) -> Result<u64, String> {
    let mut n = 0;
    for id in ids {
        n += Sql::execute(
            client,
            "DELETE FROM jobs WHERE id = ?1 AND state = 'queued'",
            &[Value::Int(Some(*id))],
        )?;
    }
    Ok(n)
}

/// A claimed job.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: i64,
    /// Which claim of the job this is (1 the first time); the lease belongs to it.
    pub attempt: i64,
    pub task_key: String,
    pub task_summary: String,
    pub task_ir: String,
    pub space: String,
    /// The stored decision text (validated by the worker: rows may come from anywhere).
    pub decision: String,
    pub description: String,
    pub search: String,
}

/// Registers (or refreshes) a worker and its target, and stores the machine the worker
/// builds search spaces for with the target (coordinators elsewhere build that target's
/// spaces from it). Returns the description it replaces when another worker of the
/// same target had stored a different one (a fleet whose machines differ under one key).
pub fn register_worker(
    client: &mut Client,
    name: &str,
    host: &str,
    target: &TargetKey,
    machine: &Machine,
) -> Result<Option<String>, String> {
    let mut tx = client.transaction().map_err(|e| pg_error(&e))?;
    upsert_target(&mut tx, target)?;
    let stored = Sql::query(
        &mut tx,
        "SELECT machine FROM targets WHERE key = ?1 FOR UPDATE",
        &[Value::text(target.id())],
    )?;
    let before = stored
        .first()
        .and_then(|row| row[0].as_text().map(str::to_owned));
    let mine = machine.to_json();
    if before.as_deref() != Some(mine.as_str()) {
        Sql::execute(
            &mut tx,
            "UPDATE targets SET machine = ?2 WHERE key = ?1",
            &[Value::text(target.id()), Value::text(&mine)],
        )?;
    }
    Sql::execute(
        &mut tx,
        "INSERT INTO workers (name, target_id, host, state, started, last_seen)
         VALUES (?1, (SELECT id FROM targets WHERE key = ?2), ?3, 'idle', {now}, {now})
         ON CONFLICT (name) DO UPDATE SET state = 'idle', last_seen = {now}",
        &[
            Value::text(name),
            Value::text(target.id()),
            Value::text(host),
        ],
    )?;
    tx.commit().map_err(|e| pg_error(&e))?;
    Ok(before.filter(|b| *b != mine))
}

/// Marks a worker's state (`idle`, `busy`, `stopped`) and when it was last seen.
pub fn worker_state(client: &mut Client, name: &str, state: &str) -> Result<(), String> {
    Sql::execute(
        client,
        "UPDATE workers SET state = ?2, last_seen = {now} WHERE name = ?1",
        &[Value::text(name), Value::text(state)],
    )?;
    Ok(())
}

/// Records as `crash` the jobs of `target` whose lease expired for the last allowed time.
pub fn fail_exhausted(client: &mut Client, target: &TargetKey) -> Result<u64, String> {
    let mut tx = client.transaction().map_err(|e| pg_error(&e))?;
    let rows = Sql::query(
        &mut tx,
        "UPDATE jobs SET state = 'failed', finished = {now}, lease_until = NULL,
             error = 'its worker was lost ' || attempts || ' times (lease expired)'
         WHERE id IN (SELECT j.id FROM jobs j
             WHERE j.target_id = (SELECT id FROM targets WHERE key = ?1)
                 AND j.state = 'running' AND j.lease_until < {now}
                 AND j.attempts >= j.max_attempts
             FOR UPDATE SKIP LOCKED)
         RETURNING id, error",
        &[Value::text(target.id())],
    )?;
    for row in &rows {
        Sql::execute(
            &mut tx,
            "INSERT INTO records (target_id, task_id, space, decision, description, status,
                 latency_s, runs_s, error, search, created, job_id)
             SELECT target_id, task_id, space, decision, description, 'crash', NULL, '[]', ?2,
                 search, {now}, id
             FROM jobs WHERE id = ?1",
            &[row[0].clone(), row[1].clone()],
        )?;
    }
    if !rows.is_empty() {
        tx.batch_execute(&format!("NOTIFY {DONE_CHANNEL}"))
            .map_err(|e| pg_error(&e))?;
    }
    tx.commit().map_err(|e| pg_error(&e))?;
    Ok(rows.len() as u64)
}

/// A task's key, summary and IR, by its row id: a worker reads each task once.
pub type TaskCache = HashMap<i64, (String, String, String)>;

/// The claim of the oldest job of target `?1` that is queued or whose lease expired, by
/// worker `?2` for `?3` seconds, other than job `?4` (the one a worker is completing in
/// the same statement).
///
/// The target's id is looked up first and `state IN ('queued', 'running')` is spelled
/// out, so the claim walks the partial index `jobs_open` (open jobs of a target in id
/// order) and stops at the first it can lock: its cost does not grow with the jobs
/// already done, where a join on the key made the server scan and sort every job of the
/// table for each claim (5 ms at 5,000 jobs).
const CLAIM: &str = "claim AS (
         UPDATE jobs SET state = 'running', worker = ?2, attempts = attempts + 1,
             lease_until = {now} + ?3
         WHERE id = (SELECT j.id FROM jobs j
             WHERE j.target_id = (SELECT id FROM targets WHERE key = ?1) AND j.id <> ?4
                 AND j.state IN ('queued', 'running')
                 AND (j.state = 'queued'
                     OR (j.lease_until < {now} AND j.attempts < j.max_attempts))
             ORDER BY j.id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING id, attempts, task_id, space, decision, description, search)";

/// Claims the oldest job of `target` that is queued or whose lease has expired, for
/// `lease`; `None` when there is none. One prepared statement; the task is read only the
/// first time it is seen.
pub fn claim(
    client: &mut Client,
    prepared: &mut Prepared,
    worker: &str,
    target: &TargetKey,
    lease: Duration,
    tasks: &mut TaskCache,
) -> Result<Option<Job>, String> {
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "WITH {CLAIM} SELECT id, attempts, task_id, space, decision, description, search FROM claim"
        )
    });
    let rows = prepared.query(
        client,
        SQL.as_str(),
        &[
            Value::text(target.id()),
            Value::text(worker),
            Value::Real(Some(lease.as_secs_f64())),
            Value::Int(Some(0)),
        ],
    )?;
    match rows.first() {
        Some(row) => claimed_job(client, prepared, row, tasks).map(Some),
        None => Ok(None),
    }
}

/// The job of a claim's row (`id, attempts, task_id, space, decision, description,
/// search`).
fn claimed_job(
    client: &mut Client,
    prepared: &mut Prepared,
    row: &[Value],
    tasks: &mut TaskCache,
) -> Result<Job, String> {
    let text = |v: &Value| v.as_text().unwrap_or_default().to_string();
    let task_id = row[2].as_int().ok_or("a job without its task")?;
    let (task_key, task_summary, task_ir) = match tasks.entry(task_id) {
        std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let task = prepared.query(
                client,
                "SELECT key, summary, ir FROM tasks WHERE id = ?1",
                &[Value::Int(Some(task_id))],
            )?;
            let task = task.first().ok_or("a job's task is missing")?;
            e.insert((text(&task[0]), text(&task[1]), text(&task[2])))
                .clone()
        }
    };
    Ok(Job {
        id: row[0].as_int().ok_or("a job without an id")?,
        attempt: row[1].as_int().unwrap_or(0),
        task_key,
        task_summary,
        task_ir,
        space: text(&row[3]),
        decision: text(&row[4]),
        description: text(&row[5]),
        search: text(&row[6]),
    })
}

/// Extends the lease of `job` held by `worker`; `false` when the worker no longer holds it.
pub fn renew(
    client: &mut Client,
    worker: &str,
    job: i64,
    attempt: i64,
    lease: Duration,
) -> Result<bool, String> {
    let n = Sql::execute(
        client,
        "UPDATE jobs SET lease_until = {now} + ?4
         WHERE id = ?1 AND worker = ?2 AND attempts = ?3 AND state = 'running'",
        &[
            Value::Int(Some(job)),
            Value::text(worker),
            Value::Int(Some(attempt)),
            Value::Real(Some(lease.as_secs_f64())),
        ],
    )?;
    Sql::execute(
        client,
        "UPDATE workers SET last_seen = {now} WHERE name = ?1",
        &[Value::text(worker)],
    )?;
    Ok(n == 1)
}

/// How a completion ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The record and the job's completion are committed.
    Recorded,
    /// An earlier try of this completion committed (its answer was lost with the
    /// connection): nothing more to do.
    AlreadyRecorded,
    /// The lease was lost (expired and taken by another worker): nothing is written.
    LeaseLost,
}

/// The completion of job `?5` (claim `?7`) by worker `?2`: its record (decision `?8`,
/// status `?9`, latency `?10`, run times `?11`, error `?6`) and its state, in data-modifying
/// parts of one statement, so one transaction. The record's insertion notifies the
/// coordinators, at commit.
const COMPLETE: &str = "done AS (
         UPDATE jobs SET state = 'done', finished = {now}, lease_until = NULL, error = ?6
         WHERE id = ?5 AND worker = ?2 AND attempts = ?7 AND state = 'running'
         RETURNING id, target_id, task_id, space, description, search),
     seen AS (
         UPDATE workers SET jobs_done = jobs_done + 1, last_seen = {now}
         WHERE name = ?2 AND EXISTS (SELECT 1 FROM done)),
     recorded AS (
         INSERT INTO records (target_id, task_id, space, decision, description, status,
             latency_s, runs_s, error, search, created, job_id)
         SELECT target_id, task_id, space, ?8, description, ?9, ?10, ?11, ?6, search, {now}, id
         FROM done
         RETURNING pg_notify('tb_tune_done', ''))";

/// The parameters `?5` to `?11` of `COMPLETE`.
fn completion_params(job: &Job, decision: &[usize], m: &Measurement) -> [Value; 7] {
    [
        Value::Int(Some(job.id)),
        Value::Text(m.error.clone()),
        Value::Int(Some(job.attempt)),
        Value::text(serde_json::to_string(decision).expect("indices serialize")),
        Value::text(m.status.as_str()),
        Value::Real(m.latency_s),
        Value::text(serde_json::to_string(&m.runs_s).expect("numbers serialize")),
    ]
}

/// Writes the record of `job` and marks it done, if `worker` still holds it: one
/// statement, so one transaction (the job's row gives the record its target and task).
pub fn complete(
    client: &mut Client,
    prepared: &mut Prepared,
    worker: &str,
    job: &Job,
    decision: &[usize],
    m: &Measurement,
) -> Result<Completion, String> {
    let mut no_tasks = TaskCache::new();
    complete_and_claim(
        client,
        prepared,
        worker,
        job,
        decision,
        m,
        None,
        &mut no_tasks,
    )
    .map(|(completion, _)| completion)
}

/// What to claim next with a completion: the worker's target and the lease.
pub struct NextClaim<'a> {
    pub target: &'a TargetKey,
    pub lease: Duration,
}

/// Completes `job` as [`complete`] does and, in the same statement (one round trip),
/// claims the next job as [`claim`] does when `next` is given.
#[allow(clippy::too_many_arguments)]
pub fn complete_and_claim(
    client: &mut Client,
    prepared: &mut Prepared,
    worker: &str,
    job: &Job,
    decision: &[usize],
    m: &Measurement,
    next: Option<NextClaim<'_>>,
    tasks: &mut TaskCache,
) -> Result<(Completion, Option<Job>), String> {
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "WITH {COMPLETE}, {CLAIM}
             SELECT (SELECT count(*) FROM recorded), c.id, c.attempts, c.task_id, c.space,
                 c.decision, c.description, c.search
             FROM (SELECT 1) one LEFT JOIN claim c ON true"
        )
    });
    // Without a next claim, the claim's target matches nothing.
    let (target, lease) = match &next {
        Some(n) => (n.target.id(), n.lease.as_secs_f64()),
        None => (String::new(), 0.0),
    };
    let mut params = vec![
        Value::text(target),
        Value::text(worker),
        Value::Real(Some(lease)),
        Value::Int(Some(job.id)),
    ];
    params.extend(completion_params(job, decision, m));
    let rows = prepared.query(client, SQL.as_str(), &params)?;
    let row = rows.first().ok_or("a completion returned no row")?;
    let claimed = match row[1].as_int() {
        Some(_) => Some(claimed_job(client, prepared, &row[1..], tasks)?),
        None => None,
    };
    if row[0].as_int() == Some(1) {
        return Ok((Completion::Recorded, claimed));
    }
    let mine = prepared.query(
        client,
        "SELECT count(*) FROM jobs WHERE id = ?1 AND worker = ?2 AND attempts = ?3
             AND state = 'done'",
        &[
            Value::Int(Some(job.id)),
            Value::text(worker),
            Value::Int(Some(job.attempt)),
        ],
    )?;
    let completion = if mine.first().and_then(|r| r[0].as_int()) == Some(1) {
        Completion::AlreadyRecorded
    } else {
        Completion::LeaseLost
    };
    Ok((completion, claimed))
}

/// Waits up to `timeout` for a notification on the channels this client listens to;
/// `true` when one came.
pub fn wait_notification(client: &mut Client, timeout: Duration) -> Result<bool, String> {
    let mut notifications = client.notifications();
    let first = notifications
        .timeout_iter(timeout)
        .next()
        .map_err(|e| pg_error(&e))?;
    if first.is_none() {
        return Ok(false);
    }
    // Drain what else arrived: one wake-up serves them all.
    while notifications
        .iter()
        .next()
        .map_err(|e| pg_error(&e))?
        .is_some()
    {}
    Ok(true)
}
