//! The producer of a padded convolution's input writes straight into the padded copy.
//!
//! The channel-vectorized convolution kernel reads a padded input from a copy that holds
//! the padding, `Xp[C][Hp][Wp]`: its border is set to the padding value, then the input is
//! copied inside it. The copy is a pass of its own over the whole input (on ResNet-18's
//! first stage, about 4% of each convolution's time). When the input is a buffer the
//! function allocates and only reads and writes element by element, the copy's interior
//! can be the input itself: the buffer becomes a view of `Xp` at the interior
//! (`memref.reinterpret_cast`, strided like `Xp`), its producer writes there, its other
//! readers (a residual add) read there, and only the border is still set before the
//! kernel. `Xp` then lives from the input's allocation to its last use, and is freed
//! where the input was.

use tb_dialects::loop_;
use tb_ir::attributes::AttrKind;
use tb_ir::{Context, OpId, TypeKind, Value};

use super::build::At;

/// A padded copy the channel-vectorized kernel made of its input.
pub(super) struct PaddedCopy {
    /// The input, `X[1][C][H][W]`.
    pub input: Value,
    /// The padded copy, `Xp[C][Hp][Wp]` (a `loop.alloc`).
    pub padded: Value,
    /// The loop copying one row's input columns into the copy.
    pub copy: OpId,
    /// The copy's `loop.dealloc` after the kernel.
    pub dealloc: OpId,
    /// Where the input's first element lies in the copy: padded row and column.
    pub origin: (i64, i64),
}

/// Makes each input of `copies` a view of its padded copy where that is safe (see the
/// module's comment), and drops the copy's interior loop; the others stay as they are.
pub(super) fn write_in_place(ctx: &mut Context, copies: Vec<PaddedCopy>) {
    for copy in copies {
        if let Some(plan) = plan(ctx, &copy) {
            apply(ctx, &copy, plan);
        }
    }
}

/// What folding a copy needs: the two allocations, the input's dealloc and shapes.
struct Plan {
    input_alloc: OpId,
    padded_alloc: OpId,
    input_dealloc: OpId,
    /// `[1, C, H, W]` and `[C, Hp, Wp]`.
    input_shape: Vec<i64>,
    padded_shape: Vec<i64>,
}

fn static_identity_shape(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    match ctx.type_kind(ctx.value_type(v)) {
        TypeKind::MemRef {
            shape,
            layout: None,
            memory_space: None,
            ..
        } if shape.iter().all(|&d| d > 0) => Some(shape.clone()),
        _ => None,
    }
}

fn plan(ctx: &Context, copy: &PaddedCopy) -> Option<Plan> {
    let input_alloc = ctx.defining_op(copy.input)?;
    let padded_alloc = ctx.defining_op(copy.padded)?;
    if ctx.op_name(input_alloc) != loop_::ALLOC
        || ctx.op_name(padded_alloc) != loop_::ALLOC
        || ctx.op(input_alloc).parent.is_none()
        || ctx.op(input_alloc).parent != ctx.op(padded_alloc).parent
        || !ctx.op(input_alloc).operands.is_empty()
        || ctx.op(copy.copy).erased
        || ctx.op(copy.dealloc).erased
    {
        return None;
    }
    let input_shape = static_identity_shape(ctx, copy.input)?;
    let padded_shape = static_identity_shape(ctx, copy.padded)?;
    let (oy, ox) = copy.origin;
    let [1, c, h, w] = input_shape[..] else {
        return None;
    };
    let [pc, hp, wp] = padded_shape[..] else {
        return None;
    };
    if c != pc || oy < 0 || ox < 0 || oy + h > hp || ox + w > wp {
        return None;
    }
    // Every use reads or writes elements, except one dealloc beside the allocation.
    let mut input_dealloc = None;
    for u in &ctx.value(copy.input).uses {
        let name = ctx.op_name(u.op);
        let memref_operand = match name {
            loop_::LOAD | loop_::VECTOR_LOAD => 0,
            loop_::STORE | loop_::VECTOR_STORE => 1,
            loop_::DEALLOC if ctx.op(u.op).parent == ctx.op(input_alloc).parent => {
                if input_dealloc.replace(u.op).is_some() {
                    return None;
                }
                0
            }
            _ => return None,
        };
        if u.index != memref_operand {
            return None;
        }
    }
    Some(Plan {
        input_alloc,
        padded_alloc,
        input_dealloc: input_dealloc?,
        input_shape,
        padded_shape,
    })
}

fn apply(ctx: &mut Context, copy: &PaddedCopy, plan: Plan) {
    let [c, hp, wp] = plan.padded_shape[..] else {
        return;
    };
    let (oy, ox) = copy.origin;
    let strides = vec![c * hp * wp, hp * wp, wp, 1];
    let offset = oy * wp + ox;
    // The copy is allocated where the input was, so it is alive wherever the input is.
    ctx.unlink_op(plan.padded_alloc);
    ctx.insert_op_before(plan.input_alloc, plan.padded_alloc);
    let element = match ctx.type_kind(ctx.value_type(copy.input)) {
        TypeKind::MemRef { element, .. } => *element,
        _ => return,
    };
    let layout = ctx.intern_attr(AttrKind::Strided {
        strides: strides.clone(),
        offset,
    });
    let view_ty = ctx.intern_type(TypeKind::MemRef {
        shape: plan.input_shape.clone(),
        element,
        layout: Some(layout),
        memory_space: None,
    });
    let at = At {
        before: plan.input_alloc,
        loc: ctx.op(plan.input_alloc).loc,
    };
    let view = at.reinterpret_cast(ctx, copy.padded, view_ty, offset, &strides);
    ctx.replace_all_uses(copy.input, view);
    // The copy is freed where the input was, instead of after the kernel.
    ctx.set_operand(plan.input_dealloc, 0, copy.padded);
    ctx.erase_op(copy.dealloc);
    ctx.erase_op(copy.copy);
    ctx.erase_op(plan.input_alloc);
}
