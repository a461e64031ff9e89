//! Canonicalization patterns of the `graph` dialect: chains of reshape-like ops collapse
//! into one `graph.reshape`, a transpose of a transpose becomes one transpose (or nothing),
//! and a squeeze that undoes an unsqueeze (or the reverse) disappears. Single-op
//! simplifications (identity, reshape to the same type, constant folding) are folds, in
//! [`super::fold`].

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId, Value};

use super::builder::op_state_with_types;
use super::shape;
use super::types::static_tensor;

/// Ops that only change the shape, keeping the row-major element order.
const RESHAPE_LIKE: &[&str] = &[
    "graph.reshape",
    "graph.flatten",
    "graph.squeeze",
    "graph.unsqueeze",
];

fn i64_array(ctx: &mut Context, values: &[i64]) -> Attr {
    let element = ctx.i64();
    ctx.intern_attr(AttrKind::DenseArray {
        element,
        data: DenseArrayData::Int(values.iter().map(|&v| v as i128).collect()),
    })
}

/// Replaces `op` (one result) by a new graph op `name` over `operand` with `attrs`,
/// keeping the result type.
fn replace_with(
    rewriter: &mut Rewriter,
    op: OpId,
    name: &str,
    operand: Value,
    attrs: Vec<(String, Attr)>,
) {
    let ctx = rewriter.ctx();
    let (ty, loc) = (ctx.value_type(ctx.op(op).results[0]), ctx.op(op).loc);
    let state = op_state_with_types(
        rewriter.ctx_mut(),
        name,
        vec![operand],
        attrs,
        vec![ty],
        loc,
    );
    let new = rewriter.create_op_before(op, state);
    let result = rewriter.ctx().op(new).results[0];
    rewriter.replace_op(op, &[result]);
}

/// `reshape(reshape-like(x))` → `reshape(x)`, to the outer result's shape.
struct ReshapeOfReshape;

impl RewritePattern for ReshapeOfReshape {
    fn debug_name(&self) -> &'static str {
        "ReshapeOfReshape"
    }

    fn root(&self) -> Option<&'static str> {
        Some("graph.reshape")
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inner) = ctx.defining_op(ctx.op(op).operands[0]) else {
            return false;
        };
        if !RESHAPE_LIKE.contains(&ctx.op_name(inner)) {
            return false;
        }
        let x = ctx.op(inner).operands[0];
        let Some((target, _)) = static_tensor(ctx, ctx.value_type(ctx.op(op).results[0])) else {
            return false;
        };
        let target = target.to_vec();
        // Spelled-out dimensions need no copying; a 0 must then mean 0.
        let ctx = rewriter.ctx_mut();
        let allowzero = target.contains(&0);
        let i1 = ctx.i1();
        let attrs = vec![
            ("shape".to_string(), i64_array(ctx, &target)),
            (
                "allowzero".to_string(),
                ctx.integer_attr(allowzero as i128, i1),
            ),
        ];
        replace_with(rewriter, op, "graph.reshape", x, attrs);
        true
    }
}

/// The permutation a transpose applies (its `perm`, or the reversal).
fn permutation(ctx: &Context, op: OpId) -> Option<Vec<usize>> {
    let input = ctx.op(op).operands[0];
    let (dims, _) = static_tensor(ctx, ctx.value_type(input))?;
    let attrs = super::attrs::Attrs::of_op(ctx, op);
    shape::transpose_perm(dims, attrs.ints("perm").ok()?.as_deref()).ok()
}

/// `transpose(transpose(x, p1), p2)` → `transpose(x, p1 ∘ p2)`, or `x` for the identity.
struct TransposeOfTranspose;

impl RewritePattern for TransposeOfTranspose {
    fn debug_name(&self) -> &'static str {
        "TransposeOfTranspose"
    }

    fn root(&self) -> Option<&'static str> {
        Some("graph.transpose")
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inner) = ctx.defining_op(ctx.op(op).operands[0]) else {
            return false;
        };
        if ctx.op_name(inner) != "graph.transpose" {
            return false;
        }
        let (Some(outer_perm), Some(inner_perm)) = (permutation(ctx, op), permutation(ctx, inner))
        else {
            return false;
        };
        // Output dim i is the inner output's dim outer[i], which is x's dim inner[outer[i]].
        let composed: Vec<i64> = outer_perm.iter().map(|&p| inner_perm[p] as i64).collect();
        let x = ctx.op(inner).operands[0];
        if composed.iter().enumerate().all(|(i, &p)| p == i as i64) {
            if ctx.value_type(x) != ctx.value_type(ctx.op(op).results[0]) {
                return false;
            }
            rewriter.replace_op(op, &[x]);
            return true;
        }
        let perm = i64_array(rewriter.ctx_mut(), &composed);
        replace_with(
            rewriter,
            op,
            "graph.transpose",
            x,
            vec![("perm".into(), perm)],
        );
        true
    }
}

/// `squeeze(unsqueeze(x))` or `unsqueeze(squeeze(x))` of `x`'s own type → `x`.
struct UndoneSqueeze {
    root: &'static str,
    inner: &'static str,
}

impl RewritePattern for UndoneSqueeze {
    fn debug_name(&self) -> &'static str {
        "UndoneSqueeze"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inner) = ctx.defining_op(ctx.op(op).operands[0]) else {
            return false;
        };
        if ctx.op_name(inner) != self.inner {
            return false;
        }
        let x = ctx.op(inner).operands[0];
        if ctx.value_type(x) != ctx.value_type(ctx.op(op).results[0]) {
            return false;
        }
        rewriter.replace_op(op, &[x]);
        true
    }
}

pub(crate) fn reshape(patterns: &mut PatternSet) {
    patterns.add(Box::new(ReshapeOfReshape));
}

pub(crate) fn transpose(patterns: &mut PatternSet) {
    patterns.add(Box::new(TransposeOfTranspose));
}

pub(crate) fn squeeze(patterns: &mut PatternSet) {
    patterns.add(Box::new(UndoneSqueeze {
        root: "graph.squeeze",
        inner: "graph.unsqueeze",
    }));
}

pub(crate) fn unsqueeze(patterns: &mut PatternSet) {
    patterns.add(Box::new(UndoneSqueeze {
        root: "graph.unsqueeze",
        inner: "graph.squeeze",
    }));
}
