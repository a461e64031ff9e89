//! Stack buffers inside loop bodies become heap buffers freed at the end of the body.
//!
//! `loop-fuse` gives each iteration of a fused nest its own small tile as a
//! `memref.alloca` in the loop body. TensorBind's CPU backend reserves that space once, in
//! the entry block of the function running the iterations, which is right because a tile
//! never outlives its iteration. In MLIR an alloca lives until the closest enclosing
//! automatic allocation scope (the function) returns, so every iteration of an `scf.for`
//! or `scf.parallel` would take new stack space: a convolution's thousands of iterations
//! overflow the stack. A `memref.alloc` in the body with a `memref.dealloc` before its
//! terminator has the same meaning, one buffer per iteration, and stays correct when
//! `scf.parallel` runs its iterations concurrently.

use tb_dialects::loop_;
use tb_ir::operation::OperationState;
use tb_ir::{Context, OpId};

/// Rewrites every `memref.alloca` directly in a loop body under `root`.
pub(super) fn heap_per_iteration(ctx: &mut Context, root: OpId) {
    let mut allocas = Vec::new();
    ctx.walk_nested(root, &mut |op| {
        if ctx.op_name(op) == "memref.alloca"
            && ctx.parent_op(op).is_some_and(|p| loop_::is_loop(ctx, p))
        {
            allocas.push(op);
        }
    });
    for alloca in allocas {
        let data = ctx.op(alloca).clone();
        let ty = ctx.value_type(data.results[0]);
        let name = ctx.intern_op_name("memref.alloc");
        let alloc = ctx.create_op(OperationState {
            name,
            operands: data.operands.to_vec(),
            result_types: vec![ty],
            successors: vec![],
            num_regions: 0,
            properties: data.properties,
            attributes: vec![],
            loc: data.loc,
        });
        ctx.insert_op_before(alloca, alloc);
        let buffer = ctx.op(alloc).results[0];
        ctx.replace_all_uses(data.results[0], buffer);
        ctx.erase_op(alloca);
        let block = ctx.op(alloc).parent.expect("the alloca was in a block");
        let terminator = ctx.block(block).last.expect("a loop body has a terminator");
        let name = ctx.intern_op_name("memref.dealloc");
        let dealloc = ctx.create_op(OperationState {
            name,
            operands: vec![buffer],
            result_types: vec![],
            successors: vec![],
            num_regions: 0,
            properties: None,
            attributes: vec![],
            loc: data.loc,
        });
        ctx.insert_op_before(terminator, dealloc);
    }
}
