//! What the command-line tools share beyond the library crates: loading a model from ONNX or
//! MLIR, comparing results, timing runs, and checking what a run allocates against the memory
//! budget.

pub mod artifact;
pub mod compare;
pub mod gpu;
pub mod json;
pub mod latency;
pub mod library;
pub mod load;
pub mod lower;
pub mod memory;
pub mod print_flags;
pub mod profile;
pub mod tuning;
pub mod upstream;
