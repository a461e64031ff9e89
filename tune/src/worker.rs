//! A measuring worker (`tb-tune worker --db postgres://...`): claims the jobs of its
//! target from the queue, measures each (in isolation: the tool's measurer runs every
//! candidate in a child process) and commits the record with the job's completion.
//!
//! A heartbeat thread on its own connection extends the lease of the job in hand every
//! third of the lease, so a long measurement keeps its job while a dead worker's job is
//! retried once its lease expires. A lost connection (the server restarting) is retried
//! with exponential backoff, up to `reconnect_for`; a finished measurement whose
//! completion could not be committed is committed after reconnecting. On SIGINT or
//! SIGTERM the worker finishes and commits the job in hand, then exits.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use postgres::Client;
use tb_passes::schedule::Target;

use crate::database::postgres::connect;
use crate::database::sql::Prepared;
use crate::database::sql::pg_error;
use crate::queue::{self, Completion, Job, NextClaim};
use crate::search::{Measurement, Measurer};
use crate::space::{Space, TunableTask};
use crate::target::{Machine, TargetKey};
use crate::task::Task;
use crate::{Database, Status, stop};

#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The `postgres://` location.
    pub location: String,
    pub target: TargetKey,
    /// The machine this worker builds search spaces for (and stores with its target):
    /// the host's, or one a synthetic worker stands in for.
    pub machine: Machine,
    /// Unique among workers: `host:pid` by default.
    pub name: String,
    pub host: String,
    pub lease: Duration,
    /// Give up after the server has been unreachable this long.
    pub reconnect_for: Duration,
    /// Exit after this long without a job (`None`: wait for jobs until stopped).
    pub idle_exit: Option<Duration>,
    /// Exit after this many jobs.
    pub max_jobs: Option<usize>,
    /// The measurer is synthetic: jobs are not loaded (their IR is not parsed nor their
    /// decision checked against a space), only their decision read.
    pub synthetic: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    pub recorded: usize,
    pub rejected: usize,
    pub leases_lost: usize,
    pub reconnects: usize,
}

/// Connects with exponential backoff (0.1 s doubling to 5 s) for up to `patience`.
pub fn connect_with_backoff(
    location: &str,
    patience: Duration,
    log: &mut dyn FnMut(&str),
) -> Result<Client, String> {
    let start = Instant::now();
    let mut delay = Duration::from_millis(100);
    loop {
        match connect(location) {
            Ok(client) => return Ok(client),
            Err(e) if start.elapsed() < patience && !stop::requested() => {
                log(&format!(
                    "cannot reach the database ({e}); retrying in {:.1} s",
                    delay.as_secs_f64()
                ));
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(e) => return Err(e),
        }
    }
}

/// The job in hand, shared with the heartbeat thread.
type InHand = Arc<Mutex<Option<(i64, i64)>>>;

/// Renews the lease of the job in hand every third of the lease until `stop` says so
/// (or its sender is dropped): it sleeps in between, rather than waking to poll.
fn heartbeat(options: WorkerOptions, in_hand: InHand, stop: Receiver<()>) {
    let period = options.lease / 3;
    let mut client: Option<Client> = None;
    while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(period) {
        let current = *in_hand.lock().expect("not poisoned");
        if let Some((job, attempt)) = current {
            if client.as_ref().is_none_or(Client::is_closed) {
                client = connect(&options.location).ok();
            }
            if let Some(c) = client.as_mut()
                && queue::renew(c, &options.name, job, attempt, options.lease).is_err()
            {
                client = None;
            }
        }
    }
}

/// Spaces of the tasks seen, by task key: a task's IR is parsed once per worker.
type Spaces = std::collections::HashMap<String, Result<(Space, String), String>>;

/// The task and decision of `job`; `Err` says why it cannot be measured: its row is
/// malformed or not for this worker's space.
fn prepare(
    job: &Job,
    host: &Target,
    synthetic: bool,
    spaces: &mut Spaces,
) -> Result<(TunableTask, Option<Vec<usize>>), String> {
    let task = Task {
        key: job.task_key.clone(),
        ir: job.task_ir.clone(),
        weight: 1,
        origin: String::new(),
    };
    let decision: Vec<usize> = serde_json::from_str(&job.decision)
        .map_err(|e| format!("its decision '{}' is malformed: {e}", job.decision))?;
    let decision = (!decision.is_empty()).then_some(decision);
    if synthetic {
        let space = Space::Fixed("synthetic".into());
        let summary = job.task_summary.clone();
        return Ok((
            TunableTask {
                task,
                space,
                summary,
            },
            decision,
        ));
    }
    let (space, summary) = spaces
        .entry(job.task_key.clone())
        .or_insert_with(|| Space::of(&task, host))
        .clone()
        .map_err(|e| format!("its task does not load: {e}"))?;
    if space.kind() != job.space {
        return Err(format!(
            "it is for a '{}' space, this worker's is '{}'",
            job.space,
            space.kind()
        ));
    }
    if let Some(d) = &decision {
        space
            .validate(d)
            .map_err(|e| format!("its decision {d:?} is invalid: {e}"))?;
    }
    Ok((
        TunableTask {
            task,
            space,
            summary,
        },
        decision,
    ))
}

/// Marks a job that cannot be measured as failed (no record: it has no valid decision).
fn reject(client: &mut Client, worker: &str, job: &Job, why: &str) -> Result<(), String> {
    let mut tx = client.transaction().map_err(|e| pg_error(&e))?;
    crate::database::sql::Sql::execute(
        &mut tx,
        "UPDATE jobs SET state = 'failed', finished = {now}, lease_until = NULL, error = ?4
         WHERE id = ?1 AND worker = ?2 AND attempts = ?3 AND state = 'running'",
        &[
            crate::database::sql::Value::Int(Some(job.id)),
            crate::database::sql::Value::text(worker),
            crate::database::sql::Value::Int(Some(job.attempt)),
            crate::database::sql::Value::text(why),
        ],
    )?;
    tx.batch_execute(&format!("NOTIFY {}", queue::DONE_CHANNEL))
        .map_err(|e| pg_error(&e))?;
    tx.commit().map_err(|e| pg_error(&e))
}

/// Runs a worker until it is stopped, idle past `idle_exit`, done with `max_jobs`, or the
/// server stays unreachable past `reconnect_for`.
pub fn run_worker(
    options: &WorkerOptions,
    measurer: &mut dyn Measurer,
    log: &mut dyn FnMut(&str),
) -> Result<WorkerSummary, String> {
    // Creates the schema if this worker is the first to arrive.
    drop(Database::connect(&options.location)?);
    let host = options.machine.schedule_target();
    let mut summary = WorkerSummary::default();
    let in_hand: InHand = Arc::new(Mutex::new(None));
    let (stop_beat, stopped) = std::sync::mpsc::channel();
    let beat = {
        let (options, in_hand) = (options.clone(), in_hand.clone());
        std::thread::spawn(move || heartbeat(options, in_hand, stopped))
    };
    let result = work(options, measurer, log, &host, &in_hand, &mut summary);
    let _ = stop_beat.send(());
    let _ = beat.join();
    result.map(|()| summary)
}

fn session(options: &WorkerOptions, log: &mut dyn FnMut(&str)) -> Result<Client, String> {
    let mut client = connect_with_backoff(&options.location, options.reconnect_for, log)?;
    let replaced = queue::register_worker(
        &mut client,
        &options.name,
        &options.host,
        &options.target,
        &options.machine,
    )?;
    if let Some(other) = replaced {
        log(&format!(
            "another worker of target {} described its machine as {other}; this one is {} (coordinators now build this target's spaces for this one)",
            options.target.describe(),
            options.machine.to_json()
        ));
    }
    // A completion is one transaction with its record, so a server crash can only
    // lose both together: the job then goes back to its lease and is measured again.
    // Not waiting for the WAL flush of each commit is then safe, and is most of the
    // queue's cost per job on a slow disk.
    client
        .batch_execute(&format!(
            "SET synchronous_commit = off; LISTEN {}",
            queue::JOBS_CHANNEL
        ))
        .map_err(|e| pg_error(&e))?;
    Ok(client)
}

fn work(
    options: &WorkerOptions,
    measurer: &mut dyn Measurer,
    log: &mut dyn FnMut(&str),
    host: &Target,
    in_hand: &InHand,
    summary: &mut WorkerSummary,
) -> Result<(), String> {
    let mut client = session(options, log)?;
    let mut prepared = Prepared::default();
    let mut idle_since = Instant::now();
    let mut jobs = 0;
    let mut last_error = Instant::now();
    let mut spaces = Spaces::new();
    let mut tasks = queue::TaskCache::new();
    let mut last_expiry_check: Option<Instant> = None;
    let mut idle = false;
    // A job claimed together with the last completion: it is in hand, so it is measured
    // even when a stop was asked for meanwhile.
    let mut next: Option<Job> = None;
    loop {
        if next.is_none() && (stop::requested() || options.max_jobs.is_some_and(|m| jobs >= m)) {
            break;
        }
        // Jobs whose lease expired for the last time are failed by whichever worker of
        // their target looks first; once a second is plenty.
        if last_expiry_check.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
            last_expiry_check = Some(Instant::now());
            if let Err(e) = queue::fail_exhausted(&mut client, &options.target) {
                log(&format!("cannot check expired leases: {e}"));
                client = reconnect(options, log, summary, &mut last_error, &mut prepared)?;
                continue;
            }
        }
        let claimed = match next.take() {
            Some(job) => Ok(Some(job)),
            None => queue::claim(
                &mut client,
                &mut prepared,
                &options.name,
                &options.target,
                options.lease,
                &mut tasks,
            ),
        };
        let job = match claimed {
            Ok(Some(job)) => job,
            Ok(None) => {
                if options.idle_exit.is_some_and(|d| idle_since.elapsed() >= d) {
                    break;
                }
                if !idle {
                    idle = true;
                    let _ = queue::worker_state(&mut client, &options.name, "idle");
                }
                if let Err(e) = queue::wait_notification(&mut client, Duration::from_millis(200)) {
                    log(&format!("lost the database: {e}"));
                    client = reconnect(options, log, summary, &mut last_error, &mut prepared)?;
                }
                continue;
            }
            Err(e) => {
                log(&format!("cannot claim a job: {e}"));
                client = reconnect(options, log, summary, &mut last_error, &mut prepared)?;
                continue;
            }
        };
        *in_hand.lock().expect("not poisoned") = Some((job.id, job.attempt));
        if idle {
            idle = false;
            let _ = queue::worker_state(&mut client, &options.name, "busy");
        }
        match prepare(&job, host, options.synthetic, &mut spaces) {
            Err(why) => {
                log(&format!("job {} rejected: {why}", job.id));
                retry(
                    options,
                    log,
                    summary,
                    &mut client,
                    &mut prepared,
                    &mut last_error,
                    |c, _| reject(c, &options.name, &job, &why),
                )?;
                summary.rejected += 1;
            }
            Ok((task, decision)) => {
                let m: Measurement = measurer.measure(&task, decision.as_deref());
                // The next job is claimed in the completion's round trip, unless this
                // worker is about to stop. A retried completion (its answer lost with the
                // connection) claims nothing: a job claimed by a lost answer comes back
                // when its lease expires.
                let mut first_try = true;
                let (recorded, claimed) = retry(
                    options,
                    log,
                    summary,
                    &mut client,
                    &mut prepared,
                    &mut last_error,
                    |c, p| {
                        let more = first_try
                            && !stop::requested()
                            && options.max_jobs.is_none_or(|m| jobs + 1 < m);
                        first_try = false;
                        queue::complete_and_claim(
                            c,
                            p,
                            &options.name,
                            &job,
                            decision.as_deref().unwrap_or(&[]),
                            &m,
                            more.then_some(NextClaim {
                                target: &options.target,
                                lease: options.lease,
                            }),
                            &mut tasks,
                        )
                    },
                )?;
                next = claimed;
                match recorded {
                    Completion::Recorded | Completion::AlreadyRecorded => summary.recorded += 1,
                    Completion::LeaseLost => {
                        log(&format!(
                            "job {}: lease lost to another worker; its result is dropped",
                            job.id
                        ));
                        summary.leases_lost += 1;
                    }
                }
                if m.status != Status::Ok {
                    log(&format!(
                        "job {} ({}): {} {}",
                        job.id,
                        job.description,
                        m.status.as_str(),
                        m.error.as_deref().unwrap_or("")
                    ));
                }
            }
        }
        *in_hand.lock().expect("not poisoned") = None;
        jobs += 1;
        idle_since = Instant::now();
    }
    let _ = queue::worker_state(&mut client, &options.name, "stopped");
    Ok(())
}

fn reconnect(
    options: &WorkerOptions,
    log: &mut dyn FnMut(&str),
    summary: &mut WorkerSummary,
    last_error: &mut Instant,
    prepared: &mut Prepared,
) -> Result<Client, String> {
    // An error that is not a lost connection would repeat at once: pace them.
    if last_error.elapsed() < Duration::from_millis(100) {
        std::thread::sleep(Duration::from_millis(100));
    }
    *last_error = Instant::now();
    summary.reconnects += 1;
    prepared.clear();
    session(options, log)
}

/// Runs `op`, reconnecting and retrying until it succeeds or the server stays away.
fn retry<T>(
    options: &WorkerOptions,
    log: &mut dyn FnMut(&str),
    summary: &mut WorkerSummary,
    client: &mut Client,
    prepared: &mut Prepared,
    last_error: &mut Instant,
    mut op: impl FnMut(&mut Client, &mut Prepared) -> Result<T, String>,
) -> Result<T, String> {
    let start = Instant::now();
    loop {
        match op(client, prepared) {
            Ok(v) => return Ok(v),
            Err(e) if start.elapsed() < options.reconnect_for => {
                log(&format!("cannot commit: {e}; reconnecting"));
                *client = reconnect(options, log, summary, last_error, prepared)?;
            }
            Err(e) => return Err(e),
        }
    }
}
