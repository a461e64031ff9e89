//! The `func` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `func`.
    pub enum FuncOp in "func" {
        Func = "func.func",
        Return = "func.return",
        Call = "func.call",
        Constant = "func.constant",
    }
}
