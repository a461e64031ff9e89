//! TensorBind passes: canonicalization, CSE, DCE, inlining, symbol DCE, the conversions
//! between levels (graph → te → loop), memory planning and equality saturation on the graph
//! level ([`eqsat`]), global affine fusion on the te level ([`fusion`]) and loop scheduling
//! ([`schedule`]).
//!
//! Each pass is one file named after its command-line name; [`register_all`] makes them
//! available to pipelines.

mod canonicalize;
mod conversion;
mod cse;
mod dce;
pub mod eqsat;
pub mod fusion;
mod gpu;
mod graph_eqsat;
mod inline;
mod loop_fuse;
mod pass_support;
pub mod pipelines;
mod plan_buffers;
mod reconcile_unrealized_casts;
pub mod schedule;
mod symbol_dce;
mod te_fuse;

use tb_ir::pass::PassRegistry;

/// Registers every pass of this crate.
pub fn register_all(registry: &mut PassRegistry) {
    registry.register(canonicalize::info());
    registry.register(conversion::affine_to_loop::info());
    registry.register(conversion::graph_to_te::info());
    registry.register(conversion::loop_to_upstream::info());
    registry.register(conversion::scf_to_cf::info());
    registry.register(conversion::te_to_loop::info());
    registry.register(cse::info());
    registry.register(dce::info());
    registry.register(gpu::loop_to_gpu::info());
    registry.register(gpu::register_tile::info());
    registry.register(gpu::shared_tile::info());
    registry.register(gpu::mma::info());
    registry.register(graph_eqsat::info());
    registry.register(inline::info());
    registry.register(loop_fuse::info());
    registry.register(plan_buffers::info());
    registry.register(reconcile_unrealized_casts::info());
    registry.register(schedule::loop_apply_schedule::info());
    registry.register(schedule::loop_conv_microkernel::info());
    registry.register(schedule::loop_default_schedule::info());
    registry.register(schedule::loop_interchange::info());
    registry.register(schedule::loop_matmul_microkernel::info());
    registry.register(schedule::loop_int_matmul_microkernel::info());
    registry.register(schedule::loop_tile::info());
    registry.register(symbol_dce::info());
    registry.register(te_fuse::info());
}

/// Whether `op` can be removed or merged freely: registered as pure, not a terminator,
/// with no regions or successors (an unregistered op may have any side effect).
pub(crate) fn is_pure(ctx: &tb_ir::Context, op: tb_ir::OpId) -> bool {
    let data = ctx.op(op);
    data.regions.is_empty()
        && data.successors.is_empty()
        && ctx.op_traits(op).is_some_and(|t| t.pure && !t.terminator)
}
