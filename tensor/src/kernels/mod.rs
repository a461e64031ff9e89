//! ONNX-semantics kernels, one file per operator family.
//!
//! Every kernel takes its inputs as [`Tensor`]s plus plain Rust parameters, derives the
//! output shape from [`crate::shape`], and returns a [`KernelError`] rather than panicking on bad shapes, dtypes or index values. f16/bf16 are computed in f32 (or wider)
//! and rounded back; integer ops run in their own type with wrapping arithmetic.

use std::fmt;

use crate::shape::ShapeError;
use crate::tensor::{DType, Tensor, TensorError, checked_numel};

pub mod attention;
pub mod bitwise;
pub mod conv;
pub mod einsum;
pub mod elementwise;
pub(crate) mod float;
pub(crate) mod index;
pub mod indexing;
pub mod matmul;
pub mod normalization;
pub mod pool;
pub mod positional;
pub mod reduce;
pub mod resize;
pub mod shape_ops;
pub mod softmax;
pub mod top_k;

/// Why a kernel could not run: the operator and a human-readable reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelError {
    pub op: &'static str,
    pub message: String,
}

impl KernelError {
    pub fn new(op: &'static str, message: impl Into<String>) -> Self {
        KernelError {
            op,
            message: message.into(),
        }
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for KernelError {}

impl From<ShapeError> for KernelError {
    fn from(e: ShapeError) -> Self {
        KernelError {
            op: e.op,
            message: e.message,
        }
    }
}

pub type KernelResult<T = Tensor> = Result<T, KernelError>;

/// The element count of an output (or window) shape, checked before anything is sized by
/// it: a count beyond `usize` is an error, never a wrap or a panic. Products of its
/// dimensions, and of an existing tensor's, fit from then on.
pub(crate) fn output_count(op: &'static str, shape: &[i64]) -> KernelResult<usize> {
    checked_numel(shape).map_err(tensor_err(op))
}

pub(crate) fn fail<T>(op: &'static str, message: impl Into<String>) -> KernelResult<T> {
    Err(KernelError::new(op, message))
}

/// Attaches the operator name to a tensor-level error.
pub(crate) fn tensor_err(op: &'static str) -> impl Fn(TensorError) -> KernelError {
    move |e| KernelError::new(op, e.0)
}

/// Checks that every input has the dtype of the first one (ONNX's shared type variable `T`).
pub(crate) fn same_dtype(op: &'static str, inputs: &[&Tensor]) -> KernelResult<DType> {
    let Some(first) = inputs.first() else {
        return fail(op, "needs at least one input");
    };
    let dt = first.dtype();
    if let Some((i, t)) = inputs.iter().enumerate().find(|(_, t)| t.dtype() != dt) {
        return fail(
            op,
            format!(
                "input {i} is {} but input 0 is {dt}; they must have the same type",
                t.dtype()
            ),
        );
    }
    Ok(dt)
}

/// A `Tensor` built from a shape the shape rules computed and data of the right length.
pub(crate) fn make(
    op: &'static str,
    shape: Vec<i64>,
    data: crate::tensor::TensorData,
) -> KernelResult {
    Tensor::new(shape, data).map_err(tensor_err(op))
}
