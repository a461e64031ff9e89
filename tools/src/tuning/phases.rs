//! Where the time of a trial goes: the phases a measuring child reports, and what the
//! parent sees around them (starting the process, waiting for its turn to be timed).
//! `tb-tune` prints their medians over a run, so a slow trial can be explained.

use serde_json::{Value, json};

/// Seconds of each phase of one trial.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Starting the child and reading the prepared task until it begins working, and
    /// everything else the parent waited for outside the phases below (measured by the
    /// parent: the compile step's wall time less the child's own phases).
    pub start: f64,
    /// Reading the task module, its inputs and the interpreter's results.
    pub load: f64,
    /// Rebuilding the task's knob space (parsing and probing it with the micro-kernels).
    pub space: f64,
    /// Parsing the task again and applying the decision and the rest of the CPU pipeline.
    pub lower: f64,
    /// The CPU backend: translation to LLVM IR, LLVM's optimization and code generation,
    /// and linking into the JIT.
    pub compile: f64,
    /// Compiled and waiting for the timing slot (another candidate was being timed).
    pub wait: f64,
    /// One run and the comparison of its results with the interpreter's.
    pub check: f64,
    /// The warm-up run and the timed runs with their cache flushes.
    pub time: f64,
}

/// The phase names, in the order a trial goes through them.
pub const PHASE_NAMES: [&str; 8] = [
    "start", "load", "space", "lower", "compile", "wait", "check", "time",
];

impl Phases {
    fn values(&self) -> [f64; 8] {
        [
            self.start,
            self.load,
            self.space,
            self.lower,
            self.compile,
            self.wait,
            self.check,
            self.time,
        ]
    }

    fn values_mut(&mut self) -> [&mut f64; 8] {
        [
            &mut self.start,
            &mut self.load,
            &mut self.space,
            &mut self.lower,
            &mut self.compile,
            &mut self.wait,
            &mut self.check,
            &mut self.time,
        ]
    }

    /// The child's own phases (the parent adds `start` and `wait`).
    pub fn to_json(&self) -> Value {
        json!({
            "load": self.load,
            "space": self.space,
            "lower": self.lower,
            "compile": self.compile,
            "check": self.check,
            "time": self.time,
        })
    }

    /// Reads the phases a child printed; missing ones are 0.
    pub fn from_json(value: &Value) -> Phases {
        let mut out = Phases::default();
        for (name, slot) in PHASE_NAMES.iter().zip(out.values_mut()) {
            *slot = value[*name].as_f64().unwrap_or(0.0);
        }
        out
    }

    /// The phases of the compile step, whose wall time the parent measures.
    pub fn compile_step(&self) -> f64 {
        self.load + self.space + self.lower + self.compile
    }

    /// Every phase together: the trial's wall time from start to result.
    pub fn total(&self) -> f64 {
        self.values().iter().sum()
    }
}

/// The median of each phase over `trials` (and of their totals), as one line:
/// `start 4.1 ms, load 0.3 ms, ...`.
pub fn median_line(trials: &[Phases]) -> String {
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    let mut parts: Vec<String> = (0..PHASE_NAMES.len())
        .map(|i| {
            let m = median(trials.iter().map(|p| p.values()[i]).collect());
            format!("{} {:.1} ms", PHASE_NAMES[i], m * 1e3)
        })
        .collect();
    parts.push(format!(
        "trial {:.1} ms",
        median(trials.iter().map(Phases::total).collect()) * 1e3
    ));
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_through_the_child_json_without_the_parents_own() {
        let p = Phases {
            start: 1.0,
            load: 2.0,
            space: 3.0,
            lower: 4.0,
            compile: 5.0,
            wait: 6.0,
            check: 7.0,
            time: 8.0,
        };
        let back = Phases::from_json(&p.to_json());
        assert_eq!(
            back,
            Phases {
                start: 0.0,
                wait: 0.0,
                ..p
            }
        );
        assert_eq!(p.compile_step(), 14.0);
        assert_eq!(p.total(), 36.0);
    }

    #[test]
    fn the_median_line_names_every_phase() {
        let a = Phases {
            compile: 0.010,
            ..Phases::default()
        };
        let b = Phases {
            compile: 0.030,
            ..Phases::default()
        };
        let c = Phases {
            compile: 0.020,
            ..Phases::default()
        };
        let line = median_line(&[a, b, c]);
        assert!(line.contains("compile 20.0 ms"), "{line}");
        assert!(line.starts_with("start 0.0 ms, load"), "{line}");
        assert!(line.ends_with("trial 20.0 ms"), "{line}");
    }
}
