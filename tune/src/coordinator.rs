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
use crate::target::TargetKey;
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
