//! Reductions of large constants, computed at compile time: `reduce(c)` and
//! `reduce(cast(c))` with `c` a constant. The zero-point corrections of quantized matmuls and
//! convolutions sum the widened weights (`reduce_sum(cast(W))`); the weights are constant,
//! so their sums are too. Folding stops at [`MAX_FOLD_ELEMENTS`] per tensor, which keeps a
//! large weight from being expanded, and reads no `dense_resource` (how weights are
//! stored); a reduction's result is small, so this pattern reads both, expands operands up
//! to [`MAX_REDUCED_ELEMENTS`] when the result stays within the fold budget, and never
//! materializes the cast.

use tb_ir::attributes::AttrKind;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId};
use tb_tensor::kernels::reduce as rk;
use tb_tensor::npy::decode;
use tb_tensor::shape::checked_num_elements;
use tb_tensor::{DType, ReduceKind, Tensor};

use super::attrs::Attrs;
use super::builder::op_state_with_types;
use super::literal::{Literal, MAX_FOLD_ELEMENTS, dtype_of};
use super::types::{element_kind, static_tensor};

/// The most elements a constant reduced at compile time may have (64 MiB of f32).
pub const MAX_REDUCED_ELEMENTS: usize = 1 << 24;

struct ReduceOfConstant {
    root: &'static str,
    kind: ReduceKind,
}

impl ReduceOfConstant {
    /// The reduced value, when the operand is a constant (or a cast of one) within budget.
    fn value(&self, ctx: &Context, op: OpId) -> Option<Literal> {
        let result_ty = ctx.value_type(ctx.op(op).results[0]);
        let (out_shape, out_element) = static_tensor(ctx, result_ty)?;
        let out_count: i64 = out_shape.iter().product();
        if usize::try_from(out_count).ok()? > MAX_FOLD_ELEMENTS {
            return None;
        }
        let mut source = ctx.defining_op(ctx.op(op).operands[0])?;
        let mut cast_to = None;
        if ctx.op_name(source) == "graph.cast" {
            let ty = ctx.value_type(ctx.op(source).results[0]);
            cast_to = Some(dtype_of(element_kind(ctx, static_tensor(ctx, ty)?.1)?)?);
            source = ctx.defining_op(ctx.op(source).operands[0])?;
        }
        if ctx.op_name(source) != "graph.constant" {
            return None;
        }
        let value = ctx.op_inherent_or_attr(source, "value")?;
        // A small `dense<...>` reduced directly is the fold's.
        let small_dense = matches!(ctx.attr_kind(value), AttrKind::DenseElements { data, .. } if data.elements.len() <= MAX_FOLD_ELEMENTS);
        if small_dense && cast_to.is_none() {
            return None;
        }
        let tensor = constant_tensor(ctx, value)?;
        let tensor = match cast_to {
            Some(dtype) => tensor.cast(dtype),
            None => tensor,
        };
        let attrs = Attrs::of_op(ctx, op);
        let reduced = rk::reduce(
            &tensor,
            self.kind,
            &attrs.ints("axes").ok()?.unwrap_or_default(),
            attrs.bool("keepdims").ok()?,
            attrs.bool("noop_with_empty_axes").ok()?,
        )
        .ok()?;
        let wanted = dtype_of(element_kind(ctx, out_element)?)?;
        (reduced.dtype() == wanted && reduced.shape() == out_shape)
            .then_some(Literal::Dense(reduced))
    }
}

/// A constant's elements, `dense<...>` (not a splat: splats are the fold's) or
/// `dense_resource<...>` (little-endian bytes), when there are at most
/// [`MAX_REDUCED_ELEMENTS`].
fn constant_tensor(ctx: &Context, value: Attr) -> Option<Tensor> {
    match ctx.attr_kind(value) {
        AttrKind::DenseElements { .. } => match Literal::from_attr(ctx, value)? {
            Literal::Dense(t) if t.numel() <= MAX_REDUCED_ELEMENTS => Some(t),
            _ => None,
        },
        AttrKind::DenseResource { handle, ty } => {
            let (shape, element) = static_tensor(ctx, *ty)?;
            let dtype = dtype_of(element_kind(ctx, element)?)?;
            let count = usize::try_from(checked_num_elements(shape)?).ok()?;
            let blob = ctx.resources.get(handle)?;
            if count > MAX_REDUCED_ELEMENTS
                || dtype == DType::Bool
                || blob.data.len() != count * dtype.size_in_bytes()
            {
                return None;
            }
            Tensor::new(shape.to_vec(), decode(dtype, false, &blob.data)).ok()
        }
        _ => None,
    }
}

impl RewritePattern for ReduceOfConstant {
    fn debug_name(&self) -> &'static str {
        "ReduceOfConstant"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some(literal) = self.value(rewriter.ctx(), op) else {
            return false;
        };
        let ctx = rewriter.ctx_mut();
        let (ty, loc) = (ctx.value_type(ctx.op(op).results[0]), ctx.op(op).loc);
        let Some(kind) = literal.to_attr_kind(ctx, ty) else {
            return false;
        };
        let value = ctx.intern_attr(kind);
        let state = op_state_with_types(
            ctx,
            "graph.constant",
            vec![],
            vec![("value".to_string(), value)],
            vec![ty],
            loc,
        );
        let constant = rewriter.create_op_before(op, state);
        let result = rewriter.ctx().op(constant).results[0];
        rewriter.replace_op(op, &[result]);
        true
    }
}

pub(crate) fn reduce_sum(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReduceOfConstant {
        root: "graph.reduce_sum",
        kind: ReduceKind::Sum,
    }));
}

pub(crate) fn reduce_max(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReduceOfConstant {
        root: "graph.reduce_max",
        kind: ReduceKind::Max,
    }));
}

pub(crate) fn reduce_min(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReduceOfConstant {
        root: "graph.reduce_min",
        kind: ReduceKind::Min,
    }));
}
