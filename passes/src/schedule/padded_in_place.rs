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
//!
//! The Winograd kernel's copy is channels-last, `Xp[Hp][Wp][C]`: there the copy also
//! transposes, a pass that cost more than the kernel's input transform (on ResNet-18's
//! second stage, 3 GB/s: every store of a channel's row lands in another cache line).
//! Folded, the producer writes channels-last itself. A vector load or store along the
//! input's rows would no longer be contiguous there, so such an input keeps its copy. A
//! producer that stores along a row inside a loop over channels (a convolution kernel's
//! transposition, or its epilogue) gets the two loops swapped, so that its consecutive
//! stores are consecutive channels.

use tb_dialects::loop_;
use tb_ir::affine::AffineMap;
use tb_ir::attributes::AttrKind;
use tb_ir::value::ValueDef;
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
    /// Whether the copy is channels-last, `Xp[Hp][Wp][C]`.
    pub channels_last: bool,
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
    /// `[1, C, H, W]`.
    input_shape: Vec<i64>,
    /// `C, Hp, Wp`, whatever the copy's layout.
    padded: (i64, i64, i64),
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
    let (pc, hp, wp) = match (copy.channels_last, &padded_shape[..]) {
        (false, &[c, h, w]) => (c, h, w),
        (true, &[h, w, c]) => (c, h, w),
        _ => return None,
    };
    if c != pc || oy < 0 || ox < 0 || oy + h > hp || ox + w > wp {
        return None;
    }
    // Every use reads or writes elements, except one dealloc beside the allocation.
    let mut input_dealloc = None;
    for u in &ctx.value(copy.input).uses {
        let name = ctx.op_name(u.op);
        let memref_operand = match name {
            loop_::LOAD => 0,
            loop_::STORE => 1,
            loop_::VECTOR_LOAD if !copy.channels_last => 0,
            loop_::VECTOR_STORE if !copy.channels_last => 1,
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
        padded: (pc, hp, wp),
    })
}

fn apply(ctx: &mut Context, copy: &PaddedCopy, plan: Plan) {
    let (c, hp, wp) = plan.padded;
    let (oy, ox) = copy.origin;
    let (strides, offset) = if copy.channels_last {
        (vec![c * hp * wp, 1, wp * c, c], (oy * wp + ox) * c)
    } else {
        (vec![c * hp * wp, hp * wp, wp, 1], oy * wp + ox)
    };
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
    if copy.channels_last {
        let stores: Vec<OpId> = ctx
            .value(view)
            .uses
            .iter()
            .filter(|u| ctx.op_name(u.op) == loop_::STORE && u.index == 1)
            .map(|u| u.op)
            .collect();
        for store in stores {
            channels_innermost(ctx, store, view);
        }
    }
    // The copy is freed where the input was, instead of after the kernel.
    ctx.set_operand(plan.input_dealloc, 0, copy.padded);
    ctx.erase_op(copy.dealloc);
    ctx.erase_op(copy.copy);
    ctx.erase_op(plan.input_alloc);
}

/// Swaps the two loops around `store` (into the channels-last `view`, indices
/// `[0, c, y, x]`) when they are `for a { for b { ... } }`, perfectly nested with constant
/// bounds and no carried values, the column index is `b` itself and the channel index is
/// `a` or `a` plus a value from outside both loops: then every `(a, b)` stores its own
/// element, and the body, which has no other store and reads nothing from `view`, runs
/// the same points in the other order.
fn channels_innermost(ctx: &mut Context, store: OpId, view: Value) {
    let Some(inner) = ctx.parent_op(store) else {
        return;
    };
    let Some(outer) = ctx.parent_op(inner) else {
        return;
    };
    let simple = |ctx: &Context, op: OpId| {
        ctx.op_name(op) == loop_::FOR
            && loop_::inits(ctx, op).is_empty()
            && loop_::loop_dims(ctx, op).is_some_and(|dims| {
                dims.iter().all(|d| {
                    d.lower.operands.is_empty()
                        && d.upper.operands.is_empty()
                        && d.lower.constant().is_some()
                        && d.upper.constant().is_some()
                })
            })
    };
    if !simple(ctx, inner) || !simple(ctx, outer) {
        return;
    }
    let (Some(inner_body), Some(outer_body)) = (loop_::body(ctx, inner), loop_::body(ctx, outer))
    else {
        return;
    };
    // The outer body is the inner loop and its terminator.
    if ctx.block_ops(outer_body).count() != 2 || ctx.block(outer_body).first != Some(inner) {
        return;
    }
    let body_ops: Vec<OpId> = ctx.block_ops(inner_body).collect();
    let reads_view = |ctx: &Context, op: OpId| ctx.op(op).operands.contains(&view) && op != store;
    if body_ops.iter().any(|&op| {
        !ctx.op(op).regions.is_empty()
            || reads_view(ctx, op)
            || (op != store && matches!(ctx.op_name(op), loop_::STORE | loop_::VECTOR_STORE))
    }) {
        return;
    }
    let (a, b) = (
        loop_::induction_vars(ctx, outer)[0],
        loop_::induction_vars(ctx, inner)[0],
    );
    let indices: Vec<Value> = ctx.op(store).operands[2..].to_vec();
    let identity = loop_::access_map(ctx, store).is_none_or(|m| m == AffineMap::identity(4));
    if !identity || indices.len() != 4 || indices[3] != b {
        return;
    }
    let from_outside = |ctx: &Context, v: Value| match ctx.value(v).def {
        ValueDef::Result { op, .. } => ctx.parent_op(op) != Some(inner) && op != inner,
        ValueDef::BlockArgument { block, .. } => block != inner_body && block != outer_body,
        ValueDef::Placeholder => false,
    };
    let channel = indices[1];
    let channel_is_a = channel == a
        || ctx.defining_op(channel).is_some_and(|def| {
            ctx.op_name(def) == "arith.addi" && ctx.parent_op(def) == Some(inner) && {
                let ops = &ctx.op(def).operands;
                (ops[0] == a && from_outside(ctx, ops[1]))
                    || (ops[1] == a && from_outside(ctx, ops[0]))
            }
        });
    if !channel_is_a
        || [indices[0], indices[2]]
            .iter()
            .any(|&v| !from_outside(ctx, v))
    {
        return;
    }
    // Swap the loops' bounds (their properties) and which induction variable each use
    // reads: the outer loop now runs along the row, the inner one along the channels.
    let (outer_props, inner_props) = (ctx.op(outer).properties, ctx.op(inner).properties);
    ctx.op_mut(outer).properties = inner_props;
    ctx.op_mut(inner).properties = outer_props;
    let uses_of = |ctx: &Context, v: Value| -> Vec<(OpId, u32)> {
        ctx.value(v).uses.iter().map(|u| (u.op, u.index)).collect()
    };
    let (a_uses, b_uses) = (uses_of(ctx, a), uses_of(ctx, b));
    for (op, index) in a_uses {
        ctx.set_operand(op, index as usize, b);
    }
    for (op, index) in b_uses {
        ctx.set_operand(op, index as usize, a);
    }
}
