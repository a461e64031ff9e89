//! Passes that target GPUs: [`loop_to_gpu`] maps loop-level functions onto `gpu.launch`
//! kernels.

pub(crate) mod loop_to_gpu;
