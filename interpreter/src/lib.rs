//! The reference interpreter: executes every level of the IR ([`exec`]) and checks
//! transformations against it on random inputs ([`check`]).
//!
//! It is the oracle for every lowering and for the ONNX conformance suite. Its numeric core
//! (tensors, `.npy` files and the ONNX-semantics kernels) is `tb_tensor`, which constant
//! folding and the runtime share; it is re-exported here under its old paths.

pub mod budget;
pub mod check;
pub mod exec;

pub use tb_tensor::{
    DType, Element, Mismatch, NpyError, Tensor, TensorData, TensorError, parse_npy, read_npy,
    to_npy_bytes, write_npy,
};
pub use tb_tensor::{kernels, npy, tensor};
