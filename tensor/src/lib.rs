//! Tensors below the IR: the value of every ONNX dtype ([`tensor`]), `.npy` files ([`npy`]),
//! ONNX's static shape rules ([`shape`]) and ONNX-semantics kernels ([`kernels`]), with the
//! semantic enums they share ([`Unary`], [`ReduceKind`], [`Combiner`]).
//!
//! Graph constant folding (`tb_dialects`), the reference interpreter (`tb_interpreter`) and
//! the runtime (`tb_backends`) all compute through this crate, so an operator's meaning is
//! defined once. It knows nothing of the IR: kernels take tensors and plain Rust parameters.
//! Each kernel favours clarity and exact ONNX semantics, with loops fast enough for
//! ResNet-18-size models; every shape and element-count product is checked, so a shape too
//! large for memory is an error, never a wrap or a panic.

pub mod combiner;
pub mod kernels;
pub mod npy;
pub mod reduction;
pub mod shape;
pub mod tensor;
pub mod unary;

pub use combiner::Combiner;
pub use npy::{NpyError, parse_npy, read_npy, to_npy_bytes, write_npy};
pub use reduction::ReduceKind;
pub use tensor::{DType, Element, Mismatch, Tensor, TensorData, TensorError};
pub use unary::Unary;
