//! The `memref` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `memref`.
    pub enum MemRefOp in "memref" {
        Alloc = "memref.alloc",
        Alloca = "memref.alloca",
        AssumeAlignment = "memref.assume_alignment",
        AtomicRmw = "memref.atomic_rmw",
        AtomicYield = "memref.atomic_yield",
        Cast = "memref.cast",
        CollapseShape = "memref.collapse_shape",
        Copy = "memref.copy",
        Dealloc = "memref.dealloc",
        Dim = "memref.dim",
        DistinctObjects = "memref.distinct_objects",
        DmaStart = "memref.dma_start",
        DmaWait = "memref.dma_wait",
        ExpandShape = "memref.expand_shape",
        ExtractStridedMetadata = "memref.extract_strided_metadata",
        GenericAtomicRmw = "memref.generic_atomic_rmw",
        GetGlobal = "memref.get_global",
        Global = "memref.global",
        Load = "memref.load",
        MemorySpaceCast = "memref.memory_space_cast",
        Prefetch = "memref.prefetch",
        Rank = "memref.rank",
        Realloc = "memref.realloc",
        ReinterpretCast = "memref.reinterpret_cast",
        Reshape = "memref.reshape",
        Store = "memref.store",
        Subview = "memref.subview",
        Transpose = "memref.transpose",
        View = "memref.view",
    }
}
