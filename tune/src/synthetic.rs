//! A synthetic measurement, for exercising the job queue at scale (the soak run, the
//! queue-overhead benchmark, the fault-injection tests) without compiling anything: it
//! waits `work` and reports a latency derived from a hash of the task and the decision,
//! so every worker reports the same value for the same candidate. Records it writes say
//! `synthetic` in their error field, so they are never mistaken for measurements.

use std::hash::{Hash, Hasher};
use std::time::Duration;

use crate::database::Status;
use crate::search::{Measurement, Measurer};
use crate::space::TunableTask;

pub struct SyntheticMeasurer {
    pub work: Duration,
}

/// The latency a synthetic measurement reports for `decision` of `task_key`.
pub fn synthetic_latency(task_key: &str, decision: Option<&[usize]>) -> f64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    task_key.hash(&mut h);
    decision.hash(&mut h);
    1e-3 * (1.0 + (h.finish() % 1000) as f64 / 1000.0)
}

impl Measurer for SyntheticMeasurer {
    fn measure(&mut self, task: &TunableTask, decision: Option<&[usize]>) -> Measurement {
        std::thread::sleep(self.work);
        let latency = synthetic_latency(&task.task.key, decision);
        Measurement {
            status: Status::Ok,
            latency_s: Some(latency),
            runs_s: vec![latency],
            error: Some("synthetic".into()),
        }
    }
}
