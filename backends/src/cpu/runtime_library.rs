//! The runtime library that ships with emitted code: a C thread pool implementing
//! `tb_rt_parallel_for` (see `tb_runtime.c`), for programs that load a shared library or
//! link an object file rather than run in the JIT (which binds [`super::runtime`]).
//!
//! It is C rather than Rust so that it links into any program with the system's C compiler
//! driver alone: `--emit=shared-lib` compiles it into the library when parallel loops call
//! it, and `--emit=c-runtime` writes it for programs that link object files.

/// The runtime's C source.
pub const SOURCE: &str = include_str!("tb_runtime.c");

/// The name the source is written under.
pub const FILE_NAME: &str = "tb_runtime.c";
