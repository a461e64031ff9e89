//! The `cf` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `cf`.
    pub enum CfOp in "cf" {
        Br = "cf.br",
        CondBr = "cf.cond_br",
        Switch = "cf.switch",
        Assert = "cf.assert",
    }
}
