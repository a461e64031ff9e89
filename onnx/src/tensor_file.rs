//! Standalone serialized `TensorProto` files (`.pb`), as the ONNX test suites store inputs
//! and expected outputs.

use std::path::Path;

use tb_interpreter::Tensor;

use crate::error::Result;
use crate::proto::{TensorProto, decode_file};
use crate::tensor::decode_tensor_at;

/// Decodes a `TensorProto` file without converting it.
pub fn read_tensor_proto(path: impl AsRef<Path>) -> Result<TensorProto> {
    decode_file(path.as_ref(), "a serialized ONNX TensorProto")
}

/// Reads a `TensorProto` file as a tensor; external data is relative to the file's
/// directory.
pub fn read_tensor_file(path: impl AsRef<Path>) -> Result<Tensor> {
    let path = path.as_ref();
    let proto = read_tensor_proto(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    decode_tensor_at(&proto, dir).map_err(|e| e.within(path.display()))
}
