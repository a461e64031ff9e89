//! Generates the ONNX message types from `proto/onnx.proto`. protox parses the schema in pure
//! Rust, so building needs no `protoc`; prost-build turns the descriptors into Rust code in
//! `OUT_DIR/onnx.rs`, which `src/proto.rs` includes.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    const SCHEMA: &str = "proto/onnx.proto";
    println!("cargo:rerun-if-changed={SCHEMA}");
    let descriptors = protox::compile([SCHEMA], ["proto"])?;
    prost_build::Config::new().compile_fds(descriptors)?;
    Ok(())
}
