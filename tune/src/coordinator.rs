//! The coordinator's side of the queue: a [`Measurer`] that queues each round's
//! candidates as jobs for its target and waits for the workers' records, so the search
//! (and its ranker, retrained after every round) runs unchanged over a fleet.
//!
//! Records are written by the workers; the coordinator only reads them back. A lost
//! connection is retried with backoff; on SIGINT or SIGTERM the coordinator withdraws
//! its jobs that no worker has claimed and returns what has finished (the jobs in hand
//! still end as records written by their workers).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::Client;

use crate::database::sql::{Sql, Value, pg_error};
use crate::queue::{self, NewJob};
use crate::search::{Measurement, Measurer};
use crate::space::TunableTask;
use crate::target::{Machine, TargetKey};
use crate::worker::connect_with_backoff;
use crate::{Status, stop};

pub struct QueueMeasurer {
    location: String,
    client: Client,
    pub target: TargetKey,
    /// This coordinator's name in `jobs.coordinator`.
    pub name: String,
    /// The search kind written with each job's record (`model`, `random`).
    pub search: String,
    pub max_attempts: u32,
    pub reconnect_for: Duration,
    /// Messages for the user (no live worker, reconnecting).
    pub log: Box<dyn FnMut(&str)>,
}

impl QueueMeasurer {
    pub fn new(
        location: &str,
        target: TargetKey,
        name: String,
        search: String,
        log: Box<dyn FnMut(&str)>,
    ) -> Result<QueueMeasurer, String> {
        let mut measurer = QueueMeasurer {
            location: location.to_string(),
            client: crate::database::postgres::connect(location)?,
            target,
            name,
            search,
            max_attempts: 3,
            reconnect_for: Duration::from_secs(300),
            log,
        };
        measurer.listen()?;
        Ok(measurer)
    }

    fn listen(&mut self) -> Result<(), String> {
        self.client
            .batch_execute(&format!("LISTEN {}", queue::DONE_CHANNEL))
            .map_err(|e| pg_error(&e))
    }

    fn reconnect(&mut self) -> Result<(), String> {
        let log = &mut self.log;
        self.client = connect_with_backoff(&self.location, self.reconnect_for, &mut |m| log(m))?;
        self.listen()
    }

    /// Runs `op` on the client, reconnecting while the server is away.
    fn retry<T>(
        &mut self,
        mut op: impl FnMut(&mut Client) -> Result<T, String>,
    ) -> Result<T, String> {
        let start = Instant::now();
        loop {
            match op(&mut self.client) {
                Ok(v) => return Ok(v),
                Err(e) if start.elapsed() < self.reconnect_for && !stop::requested() => {
                    (self.log)(&format!("database error: {e}; reconnecting"));
                    std::thread::sleep(Duration::from_millis(100));
                    let _ = self.reconnect();
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Workers of this target seen in the last 30 s and not stopped.
    pub fn live_workers(&mut self) -> Result<i64, String> {
        let key = self.target.id();
        let rows = Sql::query(
            &mut self.client,
            "SELECT count(*) FROM workers w JOIN targets t ON w.target_id = t.id
             WHERE t.key = ?1 AND w.state <> 'stopped' AND w.last_seen > {now} - 30",
            &[Value::text(key)],
        )?;
        Ok(rows.first().and_then(|r| r[0].as_int()).unwrap_or(0))
    }

    fn batch(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
    ) -> Result<Vec<Option<Measurement>>, String> {
        let jobs: Vec<NewJob> = batch
            .iter()
            .map(|(i, decision)| {
                let task = &tasks[*i];
                NewJob {
                    task_key: task.task.key.clone(),
                    task_summary: task.summary.clone(),
                    task_ir: task.task.ir.clone(),
                    space: task.space.kind().to_string(),
                    decision: decision.clone().unwrap_or_default(),
                    description: decision
                        .as_ref()
                        .map_or("heuristic".to_string(), |d| task.space.describe(d)),
                    search: if decision.is_some() {
                        self.search.clone()
                    } else {
                        "default".into()
                    },
                }
            })
            .collect();
        let (target, name, attempts) = (self.target.clone(), self.name.clone(), self.max_attempts);
        let ids = self.retry(|c| queue::enqueue(c, &target, &name, attempts, &jobs))?;
        let mut done: HashMap<i64, Measurement> = HashMap::new();
        let mut last_worker_check = Instant::now();
        loop {
            let pending: Vec<i64> = ids
                .iter()
                .copied()
                .filter(|id| !done.contains_key(id))
                .collect();
            if pending.is_empty() {
                break;
            }
            let finished = self.retry(|c| finished_or_failed(c, &pending))?;
            done.extend(finished);
            if done.len() == ids.len() {
                break;
            }
            if stop::requested() {
                let pending: Vec<i64> = ids
                    .iter()
                    .copied()
                    .filter(|id| !done.contains_key(id))
                    .collect();
                let withdrawn = self.retry(|c| queue::withdraw(c, &pending))?;
                (self.log)(&format!(
                    "stopping: {withdrawn} unclaimed jobs withdrawn; jobs in hand finish as records"
                ));
                break;
            }
            if last_worker_check.elapsed() > Duration::from_secs(10) {
                last_worker_check = Instant::now();
                if self.live_workers().unwrap_or(1) == 0 {
                    (self.log)(&format!(
                        "waiting: no worker of target {} is alive (start `tb-tune worker --db ...` on a machine of this target)",
                        self.target.describe()
                    ));
                }
            }
            if let Err(e) = queue::wait_notification(&mut self.client, Duration::from_millis(500)) {
                (self.log)(&format!("lost the database: {e}"));
                let _ = self.reconnect();
            }
        }
        Ok(ids.iter().map(|id| done.remove(id)).collect())
    }
}

/// Measurements of the finished jobs among `ids`: their records, or an error for a job
/// that was rejected without one.
fn finished_or_failed(
    client: &mut Client,
    ids: &[i64],
) -> Result<HashMap<i64, Measurement>, String> {
    let mut out: HashMap<i64, Measurement> = queue::finished(client, ids)?
        .into_iter()
        .map(|(id, r)| {
            (
                id,
                Measurement {
                    status: r.status,
                    latency_s: r.latency_s,
                    runs_s: r.runs_s,
                    error: r.error,
                },
            )
        })
        .collect();
    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let rejected = Sql::query(
        client,
        &format!("SELECT id, error FROM jobs WHERE id IN ({list}) AND state = 'failed'"),
        &[],
    )?;
    for row in rejected {
        if let Some(id) = row[0].as_int() {
            out.entry(id).or_insert_with(|| Measurement {
                status: Status::Error,
                latency_s: None,
                runs_s: vec![],
                error: Some(
                    row[1]
                        .as_text()
                        .unwrap_or("rejected by its worker")
                        .to_string(),
                ),
            });
        }
    }
    Ok(out)
}

impl Measurer for QueueMeasurer {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        let tasks = std::slice::from_ref(task);
        let measured = self.measure_batch(tasks, &[(0, decision.map(<[usize]>::to_vec))]);
        match measured.map(|mut m| m.pop().flatten()) {
            Ok(Some(m)) => m,
            Ok(None) => Measurement {
                status: Status::Error,
                latency_s: None,
                runs_s: vec![],
                error: Some("not measured: the coordinator was stopped".into()),
            },
            Err(e) => Measurement {
                status: Status::Error,
                latency_s: None,
                runs_s: vec![],
                error: Some(format!("the queue failed: {e}")),
            },
        }
    }

    fn measure_batch(
        &mut self,
        tasks: &[TunableTask],
        batch: &[(usize, Option<Vec<usize>>)],
    ) -> Result<Vec<Option<Measurement>>, String> {
        self.batch(tasks, batch)
    }
}

/// A target a coordinator tunes for, with the machine its spaces are built for.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetTarget {
    pub key: TargetKey,
    pub machine: Machine,
}

/// A row of `targets`: its number, key and stored machine description.
struct KnownTarget {
    id: i64,
    key: TargetKey,
    machine: Option<String>,
}

impl KnownTarget {
    fn describe(&self) -> String {
        format!("#{} {}", self.id, self.key.describe())
    }
}

fn known_targets(client: &mut Client, registered_only: bool) -> Result<Vec<KnownTarget>, String> {
    let filter = if registered_only {
        "WHERE EXISTS (SELECT 1 FROM workers w WHERE w.target_id = t.id)"
    } else {
        ""
    };
    let rows = Sql::query(
        client,
        &format!("SELECT t.id, t.key, t.machine FROM targets t {filter} ORDER BY t.id"),
        &[],
    )?;
    let mut out = Vec::new();
    for row in rows {
        let id = row[0].as_int().ok_or("a target without an id")?;
        let key = TargetKey::parse(row[1].as_text().unwrap_or_default())
            .map_err(|e| format!("target #{id}: {e}"))?;
        out.push(KnownTarget {
            id,
            key,
            machine: row[2].as_text().map(str::to_owned),
        });
    }
    Ok(out)
}

/// Resolves the `--target` values of a coordinator against the database:
///
/// - `auto`: this machine's target (`host`, spaces for `host_machine`);
/// - `all`: every target some worker has registered for, and this machine's when the
///   coordinator starts local workers (they register as they start);
/// - `#N` or `N`: target number N as `tb-tune status` lists them; a full key
///   (`CPU|FEATURES|threads=N`); or a CPU model that names exactly one known target.
///
/// A target other than this machine's needs the machine description its workers stored
/// (`targets.machine`): its spaces are built for that machine, never for this host. The
/// result has each target once, in the order given. `log` gets the targets `all` leaves
/// out (no usable description).
pub fn resolve_targets(
    client: &mut Client,
    specs: &[String],
    host: &TargetKey,
    host_machine: &Machine,
    local_workers: bool,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<FleetTarget>, String> {
    let mut out: Vec<FleetTarget> = Vec::new();
    let push = |out: &mut Vec<FleetTarget>, t: FleetTarget| {
        if !out.iter().any(|o| o.key == t.key) {
            out.push(t);
        }
    };
    let this = FleetTarget {
        key: host.clone(),
        machine: *host_machine,
    };
    // The machine of a known target: this host's for its own key, else the stored one.
    let machine_of = |t: &KnownTarget| -> Result<Machine, String> {
        if t.key == *host {
            return Ok(*host_machine);
        }
        match &t.machine {
            Some(m) => Machine::from_json(m).map_err(|e| format!("target {}: {e}", t.describe())),
            None => Err(format!(
                "target {} has no machine description: no worker of it has registered with this version of tb-tune (start `tb-tune worker --db ...` on a machine of it)",
                t.describe()
            )),
        }
    };
    for spec in specs {
        match spec.as_str() {
            "auto" => push(&mut out, this.clone()),
            "all" => {
                let registered = known_targets(client, true)?;
                if registered.is_empty() && !local_workers {
                    return Err("--target all: no worker has registered in this database yet; start workers (`tb-tune worker --db ...`) first, or name a target".into());
                }
                if local_workers {
                    push(&mut out, this.clone());
                }
                for t in &registered {
                    match machine_of(t) {
                        Ok(machine) => push(
                            &mut out,
                            FleetTarget {
                                key: t.key.clone(),
                                machine,
                            },
                        ),
                        Err(why) => log(&format!("--target all: leaving a target out: {why}")),
                    }
                }
            }
            _ => {
                let known = known_targets(client, false)?;
                let number = spec.strip_prefix('#').unwrap_or(spec).parse::<i64>().ok();
                let matches: Vec<&KnownTarget> = known
                    .iter()
                    .filter(|t| match number {
                        Some(n) => t.id == n,
                        None => t.key.id() == *spec || t.key.cpu == *spec,
                    })
                    .collect();
                let names = |ts: &mut dyn Iterator<Item = &KnownTarget>| {
                    ts.map(KnownTarget::describe).collect::<Vec<_>>().join(", ")
                };
                let t = match matches.as_slice() {
                    [one] => *one,
                    [] if known.is_empty() => {
                        return Err(format!(
                            "--target {spec}: no such target (the database has no targets yet)"
                        ));
                    }
                    [] => {
                        return Err(format!(
                            "--target {spec}: no such target (known: {}); expected auto, all, a target number, key or CPU model",
                            names(&mut known.iter())
                        ));
                    }
                    several => {
                        return Err(format!(
                            "--target {spec}: names {} targets ({}); give its number instead",
                            several.len(),
                            names(&mut several.iter().copied())
                        ));
                    }
                };
                let machine = machine_of(t).map_err(|e| format!("--target {spec}: {e}"))?;
                push(
                    &mut out,
                    FleetTarget {
                        key: t.key.clone(),
                        machine,
                    },
                );
            }
        }
    }
    if out.is_empty() {
        return Err("--target: no target to tune for".into());
    }
    Ok(out)
}
