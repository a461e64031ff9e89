//! The reference interpreter's numeric core: tensors ([`tensor`]), `.npy` files ([`npy`]) and
//! ONNX-semantics kernels ([`kernels`]).
//!
//! It is the oracle for every lowering and for the ONNX conformance suite, so each kernel
//! favours clarity and exact ONNX semantics, with loops fast enough for ResNet-18-size models.
//! Output shapes come from `tb_dialects::graph::shape`, the single source of shape rules.

pub mod budget;
pub mod check;
pub mod exec;
pub mod kernels;
pub mod npy;
pub mod tensor;

pub use npy::{NpyError, parse_npy, read_npy, to_npy_bytes, write_npy};
pub use tensor::{DType, Element, Mismatch, Tensor, TensorData, TensorError};
