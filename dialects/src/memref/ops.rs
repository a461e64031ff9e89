//! The `memref` ops as Rust types (checked against the definitions at registration).

tb_ir::op_kinds! {
    /// The ops of `memref`.
    pub enum MemRefOp in "memref" {
        Alloc = "memref.alloc",
        Alloca = "memref.alloca",
        Cast = "memref.cast",
        CollapseShape = "memref.collapse_shape",
        Copy = "memref.copy",
        Dealloc = "memref.dealloc",
        Dim = "memref.dim",
        ExpandShape = "memref.expand_shape",
        GetGlobal = "memref.get_global",
        Global = "memref.global",
        Load = "memref.load",
        Rank = "memref.rank",
        Realloc = "memref.realloc",
        ReinterpretCast = "memref.reinterpret_cast",
        Reshape = "memref.reshape",
        Store = "memref.store",
        Subview = "memref.subview",
        View = "memref.view",
    }
}
