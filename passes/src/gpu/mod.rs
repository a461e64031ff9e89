//! Passes that target GPUs: [`loop_to_gpu`] maps loop-level functions onto `gpu.launch`
//! kernels, spreading long reductions over the lanes of warps ([`warp_reduce`]) or, when
//! the outputs are few, over whole blocks ([`block_reduce`]);
//! [`register_tile`] gives each thread a register tile of a matmul's results first, and
//! [`shared_tile`] maps large matmuls onto blocks that stage their operands in shared
//! memory before that, and [`mma`] maps f16 and bf16 matmuls onto the tensor cores; both
//! compute the elementwise nest after a matmul in their stores ([`epilogue`]).

mod block_reduce;
mod contraction_indices;
mod epilogue;
pub(crate) mod loop_to_gpu;
pub(crate) mod mma;
mod mma_staged;
pub(crate) mod register_tile;
pub(crate) mod shared_tile;
mod warp_reduce;
