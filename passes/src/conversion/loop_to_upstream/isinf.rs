//! `math.isinf` in ops MLIR's LLVM lowering takes.
//!
//! MLIR 22 lowers `math.isnan` and `math.isfinite` to LLVM (`convert-math-to-llvm`) but has
//! no lowering of `math.isinf`, so the exported module would stop at MLIR's pipeline. A
//! value is infinite exactly when it is neither finite nor NaN; since no value is both,
//! `isinf(x)` is `isfinite(x) == isnan(x)` (`arith.cmpi eq` on the two, elementwise for
//! vectors), which needs no constant of `x`'s type.

use tb_ir::{Context, OpId};

use crate::schedule::build::At as Builder;

/// Replaces `math.isinf` `op` by `arith.cmpi eq, math.isfinite, math.isnan`.
pub(super) fn expand(ctx: &mut Context, op: OpId) {
    let b = Builder {
        before: op,
        loc: ctx.op(op).loc,
    };
    let x = ctx.op(op).operands[0];
    let result = ctx.op(op).results[0];
    let ty = ctx.value_type(result);
    let finite = b.create(ctx, "math.isfinite", vec![x], vec![ty], vec![], 0);
    let nan = b.create(ctx, "math.isnan", vec![x], vec![ty], vec![], 0);
    let eq = tb_dialects::arith::CMPI_PREDICATES
        .iter()
        .position(|&p| p == "eq")
        .expect("arith.cmpi has eq");
    let i64_ty = ctx.i64();
    let predicate = ctx.integer_attr(eq as i128, i64_ty);
    let operands = vec![ctx.op(finite).results[0], ctx.op(nan).results[0]];
    let cmp = b.create(
        ctx,
        "arith.cmpi",
        operands,
        vec![ty],
        vec![("predicate", predicate)],
        0,
    );
    let replacement = ctx.op(cmp).results[0];
    ctx.replace_all_uses(result, replacement);
    ctx.erase_op(op);
}
