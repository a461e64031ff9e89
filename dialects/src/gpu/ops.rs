//! The `gpu` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `gpu`.
    pub enum GpuOp in "gpu" {
        Launch = "gpu.launch",
        Terminator = "gpu.terminator",
        BlockId = "gpu.block_id",
        ThreadId = "gpu.thread_id",
        BlockDim = "gpu.block_dim",
        GridDim = "gpu.grid_dim",
        Barrier = "gpu.barrier",
        Shuffle = "gpu.shuffle",
    }
}
