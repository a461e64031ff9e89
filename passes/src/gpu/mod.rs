//! Passes that target GPUs: [`loop_to_gpu`] maps loop-level functions onto `gpu.launch`
//! kernels, spreading long reductions over the lanes of warps ([`warp_reduce`]);
//! [`register_tile`] gives each thread a register tile of a matmul's results first.

pub(crate) mod loop_to_gpu;
pub(crate) mod register_tile;
mod warp_reduce;
