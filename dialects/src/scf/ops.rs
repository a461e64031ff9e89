//! The `scf` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `scf`.
    pub enum ScfOp in "scf" {
        For = "scf.for",
        If = "scf.if",
        Yield = "scf.yield",
        While = "scf.while",
        Condition = "scf.condition",
        ExecuteRegion = "scf.execute_region",
        IndexSwitch = "scf.index_switch",
        Parallel = "scf.parallel",
        Reduce = "scf.reduce",
        ReduceReturn = "scf.reduce.return",
    }
}
