//! The `affine` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `affine`.
    pub enum AffineOp in "affine" {
        Apply = "affine.apply",
        Min = "affine.min",
        Max = "affine.max",
        For = "affine.for",
        If = "affine.if",
        Yield = "affine.yield",
        Load = "affine.load",
        Store = "affine.store",
        Parallel = "affine.parallel",
        Prefetch = "affine.prefetch",
        VectorLoad = "affine.vector_load",
        VectorStore = "affine.vector_store",
        DmaStart = "affine.dma_start",
        DmaWait = "affine.dma_wait",
        DelinearizeIndex = "affine.delinearize_index",
        LinearizeIndex = "affine.linearize_index",
    }
}
