//! `tb-tune status`: the queue per target and state, the workers seen with their targets,
//! throughput, and the best latency per task and target. The queries are the schema's
//! shared SQL, so a SQLite file answers too (with an empty queue). The report starts with
//! the targets in full (CPU model, thread count, ISA feature string, and the machine its
//! workers build search spaces for once one has registered), each numbered; the
//! other sections name a target by its number and CPU, so two targets of one CPU with
//! other features or thread counts stay apart.

use std::fmt::Write;

use crate::Database;
use crate::database::sql::Value;
use crate::target::Machine;

/// A target's name in the report's sections: its number in `targets:`, CPU and threads.
const TARGET: &str = "('#' || t.id || ' ' || t.cpu || ' (threads=' || t.threads || ')')";

fn cell(v: &Value) -> String {
    match v {
        Value::Int(Some(i)) => i.to_string(),
        Value::Real(Some(r)) => format!("{r:.1}"),
        Value::Text(Some(t)) => t.clone(),
        _ => "-".into(),
    }
}

/// The report, as text.
pub fn report(db: &Database) -> Result<String, String> {
    let mut out = String::new();
    let q = |sql: &str| db.with(|s| s.query(&sql.replace("{target}", TARGET), &[]));
    let targets = q(
        "SELECT '#' || t.id, t.cpu, t.threads, t.features, t.machine FROM targets t ORDER BY t.id",
    )?;
    writeln!(out, "targets:").expect("a string");
    if targets.is_empty() {
        writeln!(out, "  none").expect("a string");
    }
    for row in &targets {
        let features = match row[3].as_text() {
            Some("") | None => "(none)".to_string(),
            Some(f) => f.to_string(),
        };
        writeln!(
            out,
            "  {} {} threads={} features={features}",
            cell(&row[0]),
            cell(&row[1]),
            cell(&row[2]),
        )
        .expect("a string");
        // The machine its workers build search spaces for, once one has registered.
        if let Some(text) = row[4].as_text() {
            let machine = Machine::from_json(text).map_or_else(|e| e, |m| m.describe());
            writeln!(out, "      workers' machine: {machine}").expect("a string");
        }
    }
    let queue = q("SELECT {target}, j.state, count(*)
         FROM jobs j JOIN targets t ON j.target_id = t.id
         GROUP BY t.id, t.cpu, t.threads, j.state ORDER BY t.id, j.state")?;
    writeln!(out, "queue:").expect("a string");
    if queue.is_empty() {
        writeln!(out, "  empty").expect("a string");
    }
    for row in &queue {
        writeln!(
            out,
            "  {:<10} {:>8}  {}",
            cell(&row[1]),
            cell(&row[2]),
            cell(&row[0])
        )
        .expect("a string");
    }
    let workers = q(
        "SELECT w.name, {target}, w.state, {now} - w.last_seen, w.jobs_done
         FROM workers w JOIN targets t ON w.target_id = t.id ORDER BY w.name",
    )?;
    writeln!(out, "workers:").expect("a string");
    if workers.is_empty() {
        writeln!(out, "  none seen").expect("a string");
    }
    for row in &workers {
        writeln!(
            out,
            "  {:<28} {:<8} seen {:>6} s ago  {:>6} jobs  {}",
            cell(&row[0]),
            cell(&row[2]),
            cell(&row[3]),
            cell(&row[4]),
            cell(&row[1])
        )
        .expect("a string");
    }
    let rates = q("SELECT
             (SELECT count(*) FROM records WHERE job_id IS NOT NULL AND created > {now} - 60),
             (SELECT count(*) FROM records WHERE job_id IS NOT NULL AND created > {now} - 600),
             (SELECT count(*) FROM records)")?;
    if let Some(row) = rates.first() {
        let last_10 = row[1].as_int().unwrap_or(0) as f64 / 10.0;
        writeln!(
            out,
            "throughput: {} queued trials in the last minute, {last_10:.1} per minute over the last 10; {} records in all",
            cell(&row[0]),
            cell(&row[2])
        )
        .expect("a string");
    }
    let best = q("SELECT {target}, k.key, k.summary, count(*),
             min(CASE WHEN r.status = 'ok' THEN r.latency_s END)
         FROM records r JOIN targets t ON r.target_id = t.id JOIN tasks k ON r.task_id = k.id
         GROUP BY t.id, t.cpu, t.threads, k.key, k.summary ORDER BY t.id, k.key")?;
    writeln!(out, "best latency per task:").expect("a string");
    if best.is_empty() {
        writeln!(out, "  no records").expect("a string");
    }
    for row in &best {
        let ms = row[4]
            .as_real()
            .map_or("-".to_string(), |l| format!("{:.4} ms", l * 1e3));
        writeln!(
            out,
            "  {:<16} {:<24} {:>6} trials  {:>12}  {}",
            cell(&row[1]),
            cell(&row[2]),
            cell(&row[3]),
            ms,
            cell(&row[0])
        )
        .expect("a string");
    }
    Ok(out)
}
