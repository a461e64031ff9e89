//! What ONNX's Reduce* operators compute, in one place for the kernels, constant folding and
//! the lowerings.

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
    /// Max and min select an element and need no wider accumulator; the others round.
    pub fn is_extreme(self) -> bool {
        matches!(self, ReduceKind::Max | ReduceKind::Min)
    }
}
