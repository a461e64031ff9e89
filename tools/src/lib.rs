//! What the command-line tools share beyond the library crates: loading a model from ONNX or
//! MLIR, comparing results, and timing runs.

pub mod compare;
pub mod latency;
pub mod load;
