//! What the `graph.reduce_*` ops compute, in one place for the interpreter and the
//! lowerings.

use crate::te::Combiner;

/// The reduction of a `graph.reduce_*` op (ONNX's ReduceSum, ReduceMean, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceKind {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    /// Sum of absolute values.
    L1,
    /// Square root of the sum of squares.
    L2,
    /// Log of the sum.
    LogSum,
    /// Log of the sum of exponentials.
    LogSumExp,
    SumSquare,
}

impl ReduceKind {
    /// The combiner the reduction accumulates with (after mapping each element: `abs` for
    /// L1, a square for L2 and SumSquare, `exp` for LogSumExp).
    pub fn combiner(self) -> Combiner {
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

    /// Max and min select an element and need no wider accumulator; the others round.
    pub fn is_extreme(self) -> bool {
        matches!(self, ReduceKind::Max | ReduceKind::Min)
    }
}
