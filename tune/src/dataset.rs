//! The records of a database as a data set across devices: grouped by target, each task
//! with the space it has on that target (its records index knobs built for that target's
//! vector registers), and exported as JSON lines with tensor sentences
//! (`tb-tune --export-dataset`).
//!
//! One line per record with a decision (heuristic records, which have none, spell no
//! sentence):
//!
//! ```text
//! {"tokenizer_version":1,"target":"znver4|+avx,...|threads=1","isa":"avx2","threads":1,
//!  "task":"890570bc7e8962f6","summary":"matmul 1x64x256x256","space":"microkernel",
//!  "decision":[3,1,1,2,0,1],"description":"mr=4 nr=16 ...","status":"ok",
//!  "latency_s":0.000107,"label":0.93,"sentence":["<task>","op=matmul",...,"<hw>","isa=avx2",...]}
//! ```
//!
//! `label` is the record's speed relative to the fastest record of its task on its target
//! (1 for the fastest, 0 for a failed trial), the quantity the rankers learn to order;
//! `sentence` its words (a list: a word such as `order=[0, 2, 1]` holds spaces).

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;

use crate::database::{Record, Status};
use crate::sentence::{Hardware, TOKENIZER_VERSION, sentence};
use crate::space::{Space, TunableTask};
use crate::target::TargetKey;
use crate::task::Task;

/// The records of one target, with its tasks.
#[derive(Clone, Debug)]
pub struct DeviceRecords {
    pub target: TargetKey,
    /// Each task once, with its space on `target`.
    pub tasks: Vec<TunableTask>,
    pub records: Vec<Record>,
}

impl DeviceRecords {
    /// Successful records.
    pub fn successes(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.status == Status::Ok && !r.decision.is_empty())
            .count()
    }
}

/// Adds `rows` (a record query's rows: record, task summary, task IR, as
/// [`crate::Database::select`] returns them) read from `origin` to `devices`, grouped by
/// target. A task whose space cannot be built is an error naming it.
pub fn add_rows(
    devices: &mut Vec<DeviceRecords>,
    rows: Vec<(Record, String, String)>,
    origin: &str,
) -> Result<(), String> {
    for (record, summary, ir) in rows {
        let index = match devices.iter().position(|d| d.target == record.target) {
            Some(i) => i,
            None => {
                devices.push(DeviceRecords {
                    target: record.target.clone(),
                    tasks: vec![],
                    records: vec![],
                });
                devices.len() - 1
            }
        };
        let device = &mut devices[index];
        if !device.tasks.iter().any(|t| t.task.key == record.task_key) {
            let task = Task {
                key: record.task_key.clone(),
                ir,
                weight: 1,
                origin: origin.to_string(),
            };
            let machine = device.target.machine().schedule_target();
            let (space, _) = Space::of(&task, &machine)
                .map_err(|e| format!("{origin}: task {}: {e}", task.key))?;
            device.tasks.push(TunableTask {
                task,
                space,
                summary,
            });
        }
        device.records.push(record);
    }
    Ok(())
}

/// One exported line.
#[derive(Serialize)]
struct Line<'a> {
    tokenizer_version: u32,
    target: String,
    isa: &'static str,
    threads: usize,
    task: &'a str,
    summary: &'a str,
    space: &'a str,
    decision: &'a [usize],
    description: &'a str,
    status: &'static str,
    latency_s: Option<f64>,
    label: f64,
    sentence: Vec<String>,
}

/// Writes the records of `devices` that have a decision as JSON lines; returns how many
/// were written and how many were left out (a decision the task's space on its target
/// does not accept: written by another build).
pub fn export(devices: &[DeviceRecords], out: &mut dyn Write) -> Result<(usize, usize), String> {
    let (mut written, mut skipped) = (0, 0);
    for device in devices {
        let hardware = Hardware::of(&device.target, &device.target.machine().schedule_target());
        let tasks: HashMap<&str, &TunableTask> = device
            .tasks
            .iter()
            .map(|t| (t.task.key.as_str(), t))
            .collect();
        let mut best: HashMap<&str, f64> = HashMap::new();
        for r in &device.records {
            if let (Status::Ok, Some(l)) = (r.status, r.latency_s) {
                let b = best.entry(r.task_key.as_str()).or_insert(l);
                *b = b.min(l);
            }
        }
        for r in device.records.iter().filter(|r| !r.decision.is_empty()) {
            let task = tasks[r.task_key.as_str()];
            if task.space.validate(&r.decision).is_err() {
                skipped += 1;
                continue;
            }
            let label = match (r.status, r.latency_s, best.get(r.task_key.as_str())) {
                (Status::Ok, Some(l), Some(b)) if l > 0.0 => b / l,
                _ => 0.0,
            };
            let line = Line {
                tokenizer_version: TOKENIZER_VERSION,
                target: device.target.id(),
                isa: device.target.isa(),
                threads: device.target.threads,
                task: &r.task_key,
                summary: &task.summary,
                space: task.space.kind(),
                decision: &r.decision,
                description: &r.description,
                status: r.status.as_str(),
                latency_s: r.latency_s,
                label,
                sentence: sentence(&task.space, &hardware, &r.decision),
            };
            let text = serde_json::to_string(&line).expect("a line serializes");
            writeln!(out, "{text}").map_err(|e| e.to_string())?;
            written += 1;
        }
    }
    Ok((written, skipped))
}
