//! Pass statistics (`--mlir-pass-statistics`): counters a pass reports after each run,
//! summed by the pass manager per pass and printed as MLIR prints its
//! `Pass statistics report`.

use std::fmt::Write as _;

use super::manager::{PassManager, TimingNode};

/// One counter of a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassStatistic {
    /// The counter's name (`num-enodes`).
    pub name: &'static str,
    pub description: &'static str,
    pub value: u64,
}

/// Adds `more` to `into`, counter by counter (new names are appended in order).
pub(super) fn accumulate(into: &mut Vec<PassStatistic>, more: &[PassStatistic]) {
    for s in more {
        match into.iter_mut().find(|t| t.name == s.name) {
            Some(t) => t.value = t.value.saturating_add(s.value),
            None => into.push(s.clone()),
        }
    }
}

impl PassManager {
    /// The statistics of the last run, nested like the pipeline: each pipeline as
    /// `'anchor' Pipeline`, each pass by its display name with its counters as
    /// `(S) value name - description`.
    pub fn statistics_report(&self) -> String {
        let mut out = String::new();
        let rule = "===".to_string() + &"-".repeat(73) + "===";
        let _ = writeln!(
            out,
            "{rule}\n{:^79}\n{rule}",
            "... Pass statistics report ..."
        );
        fn walk(node: &TimingNode, depth: usize, out: &mut String) {
            for child in &node.children {
                let _ = writeln!(out, "{}{}", "  ".repeat(depth), child.name);
                let width = child
                    .statistics
                    .iter()
                    .map(|s| s.value.to_string().len())
                    .max()
                    .unwrap_or(0);
                for s in &child.statistics {
                    let _ = writeln!(
                        out,
                        "{}  (S) {:>width$} {} - {}",
                        "  ".repeat(depth),
                        s.value,
                        s.name,
                        s.description
                    );
                }
                walk(child, depth + 1, out);
            }
        }
        walk(&self.timing, 0, &mut out);
        out
    }
}
