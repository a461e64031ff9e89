//! TensorBind dialects (func, arith, math, buffers, cf, scf, affine, graph, te, loop, gpu,
//! and the few `nvgpu` and `vector` ops the GPU's tensor cores need).
//!
//! The IR core in `tb-ir` knows only `builtin`; every other dialect registers its
//! operations, traits and verifiers here, through [`tb_ir::Context::register_op`].
//!
//! Each dialect also declares its ops as a Rust enum ([`arith::ArithOp`],
//! [`graph::GraphOp`], ...) tied to its definitions, typed views of the ops other crates
//! take apart ([`te::ComputeOp`], [`graph::MatmulOp`], ...), and its typed attributes
//! ([`arith::FastMathFlags`], [`te::Combiner`]).

pub mod affine;
pub mod arith;
pub mod cf;
pub mod entry_status;
pub mod func;
pub mod gpu;
pub mod graph;
pub mod loop_;
pub mod math;
pub mod memref;
pub mod nvgpu;
pub mod scf;
pub mod te;
pub mod vector;

use tb_ir::Context;

/// Registers every dialect of this crate in `ctx`. An error is a malformed definition
/// in a dialect (a bug), reported with the op it concerns.
pub fn register_all(ctx: &mut Context) -> Result<(), String> {
    arith::register(ctx)?;
    math::register(ctx)?;
    memref::register(ctx)?;
    func::register(ctx)?;
    cf::register(ctx)?;
    scf::register(ctx)?;
    affine::register(ctx)?;
    graph::register(ctx)?;
    te::register(ctx)?;
    gpu::register(ctx)?;
    nvgpu::register(ctx)?;
    vector::register(ctx)?;
    loop_::register(ctx)
}
