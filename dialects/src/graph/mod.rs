//! The `graph` dialect: one op per ONNX operator family, value semantics on statically
//! shaped tensors.
//!
//! [`shape`] holds the static shape rules of those operators as pure functions over
//! `&[i64]` shapes and plain attribute structs, so that the op verifiers, the ONNX importer
//! and the reference interpreter (`tb-interpreter`) share one source of truth.

pub mod shape;
