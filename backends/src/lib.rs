//! TensorBind backends.
//!
//! Code generation and interop with the LLVM 22 toolchain, linked statically:
//!
//! - [`llvm`]: the translation to LLVM IR that every target shares: `arith`, `math`,
//!   the vector ops of `loop`, memref layouts and affine maps, each dialect behind a
//!   `DialectTranslation` a target lists in its registry;
//! - [`cpu`]: the loop level to LLVM IR for the host CPU, JIT execution, and object,
//!   assembly and shared-library emission with a C header;
//! - [`llvm_info`]: which LLVM this build links and which code-generation targets it can use
//!   (via `inkwell`);
//! - [`mlir_interop`]: an in-process upstream MLIR context (via `melior`) used to parse and
//!   verify MLIR text, the differential oracle for our own printer and lowerings.
//!
//! Only this crate and the `tools` binaries depend on LLVM/MLIR; the IR core, dialects, passes
//! and tuner build and test without them.

pub mod cpu;
pub mod llvm;
pub mod llvm_info;
pub mod mlir_execution;
pub mod mlir_interop;
pub mod nvptx;
