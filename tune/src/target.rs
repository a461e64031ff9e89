//! The target a record was measured on. Records only answer for the target they were
//! measured on: the same CPU model, ISA features and thread count.

use serde::{Deserialize, Serialize};

/// What identifies a measuring machine for the database.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TargetKey {
    /// The CPU model LLVM generates code for (`znver3`, `skylake-avx512`, ...).
    pub cpu: String,
    /// The LLVM feature string the code was generated with.
    pub features: String,
    /// Threads parallel loops run on (1: in order).
    pub threads: usize,
}

impl TargetKey {
    /// The key the database stores: all three parts, so no two targets share one.
    pub fn id(&self) -> String {
        format!("{}|{}|threads={}", self.cpu, self.features, self.threads)
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        format!(
            "{} ({} thread{})",
            self.cpu,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}
