//! TensorBind dialects (func, arith, math, buffers, graph, te, loop, gpu).
//!
//! The IR core in `tb-ir` knows only `builtin`; every other dialect registers its
//! operations, traits and verifiers here, through [`tb_ir::Context::register_op`].

pub mod func;
pub mod graph;

use tb_ir::Context;

/// Registers every dialect of this crate in `ctx`.
pub fn register_all(ctx: &mut Context) {
    func::register(ctx);
}
