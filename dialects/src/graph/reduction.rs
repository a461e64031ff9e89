//! What the `graph.reduce_*` ops compute: the reduction itself is `tb_tensor`'s
//! [`ReduceKind`]; this file ties it to the `te` combiner its lowering accumulates with.

use crate::te::Combiner;

pub use tb_tensor::ReduceKind;

/// The `te` combiner of a reduction (bring it into scope to call `kind.combiner()`).
pub trait ReduceCombiner {
    /// The combiner the reduction accumulates with (after mapping each element: `abs` for
    /// L1, a square for L2 and SumSquare, `exp` for LogSumExp).
    fn combiner(self) -> Combiner;
}

impl ReduceCombiner for ReduceKind {
    fn combiner(self) -> Combiner {
        match self {
            ReduceKind::Max => Combiner::Max,
            ReduceKind::Min => Combiner::Min,
            ReduceKind::Prod => Combiner::Prod,
            ReduceKind::Sum
            | ReduceKind::Mean
            | ReduceKind::L1
            | ReduceKind::L2
            | ReduceKind::LogSum
            | ReduceKind::LogSumExp
            | ReduceKind::SumSquare => Combiner::Sum,
        }
    }
}
