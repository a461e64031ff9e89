//! The `loop` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `loop`.
    pub enum LoopOp in "loop" {
        Alloc = "loop.alloc",
        Dealloc = "loop.dealloc",
        For = "loop.for",
        Parallel = "loop.parallel",
        Load = "loop.load",
        Store = "loop.store",
        VectorLoad = "loop.vector_load",
        VectorStore = "loop.vector_store",
        Broadcast = "loop.broadcast",
        Fma = "loop.fma",
        Dot = "loop.dot",
        Yield = "loop.yield",
    }
}
