//! The elementwise nest after a matmul (a bias, an activation, the rounding of f32 sums
//! to f16) that a GPU matmul kernel computes where it stores each result, so the sums are
//! never written and no second kernel reads them. The match is the CPU micro-kernel's:
//! the nest must be the only reader of the result, at its own index, and write neither
//! operand; its output buffer moves before the kernel when it was allocated after it.

use tb_ir::Context;

use crate::schedule::conv_epilogue::Epilogue;
use crate::schedule::loop_matmul_microkernel::{Contraction, epilogue_of};

/// The epilogue of `c` for a kernel about to replace it, when the kernel computes every
/// result (`covers_all`: nothing is left to the original nest, which would still need
/// the sums).
pub(super) fn fused_epilogue(
    ctx: &mut Context,
    c: &Contraction,
    covers_all: bool,
) -> Option<Epilogue> {
    if !covers_all {
        return None;
    }
    let plan = epilogue_of(ctx, c)?;
    plan.prepare(ctx, c.parallel);
    Some(plan.epilogue)
}
