//! Passes that target GPUs: [`loop_to_gpu`] maps loop-level functions onto `gpu.launch`
//! kernels, spreading long reductions over the lanes of warps ([`warp_reduce`]).

pub(crate) mod loop_to_gpu;
mod warp_reduce;
