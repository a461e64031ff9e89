//! The building blocks of `arith`'s canonicalization patterns: a pattern made of one
//! rewrite function, matchers for operands (the op defining a value, a scalar integer
//! constant) and builders for the ops a rewrite creates.

use super::attrs::OverflowFlags;
use super::fold::{Scalar, producer, value_constant};
use tb_ir::attributes::AttrKind;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, OpId, Type, Value};

/// Rewrites an op if it matches; returns whether it did.
pub(super) type RewriteFn = fn(OpId, &mut Rewriter) -> bool;

/// A pattern rooted at ops named `root` that `apply` rewrites.
pub(super) struct Rule {
    pub name: &'static str,
    pub root: &'static str,
    pub apply: RewriteFn,
}

impl RewritePattern for Rule {
    fn debug_name(&self) -> &'static str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        (self.apply)(op, rewriter)
    }
}

/// Adds every rule of `rules` to `patterns`.
pub(super) fn add_rules(
    patterns: &mut PatternSet,
    rules: &[(&'static str, &'static str, RewriteFn)],
) {
    for &(root, name, apply) in rules {
        patterns.add(Box::new(Rule { name, root, apply }));
    }
}

/// The operands of the op named `name` defining `v`, with that op.
pub(super) fn def(ctx: &Context, v: Value, name: &str) -> Option<(OpId, Vec<Value>)> {
    let op = producer(ctx, v, name)?;
    Some((op, ctx.op(op).operands.to_vec()))
}

/// `v`'s value when a constant-like op defines it as a scalar integer (MLIR's
/// `APIntAttr` matcher: no splats).
pub(super) fn scalar_int(ctx: &Context, v: Value) -> Option<i128> {
    match ctx.attr_kind(value_constant(ctx, v)?) {
        AttrKind::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// `v`'s value when it is a constant integer scalar or splat.
pub(super) fn int_or_splat(ctx: &Context, v: Value) -> Option<i128> {
    super::fold::int_of(ctx, value_constant(ctx, v))
}

/// The integer width of `v`'s (element) type; `index` counts as 64 bits.
pub(super) fn width(ctx: &Context, v: Value) -> Option<u32> {
    super::fold::int_width(ctx, ctx.value_type(v))
}

pub(super) fn ty(ctx: &Context, v: Value) -> Type {
    ctx.value_type(v)
}

/// The flags both ops keep (MLIR's `mergeOverflowFlags`).
pub(super) fn merged_overflow(ctx: &Context, a: OpId, b: OpId) -> OverflowFlags {
    let (a, b) = (OverflowFlags::of(ctx, a), OverflowFlags::of(ctx, b));
    OverflowFlags {
        nsw: a.nsw && b.nsw,
        nuw: a.nuw && b.nuw,
    }
}

/// The `overflowFlags` property holding `flags`.
pub(super) fn overflow_prop(ctx: &mut Context, flags: OverflowFlags) -> Vec<(String, Attr)> {
    vec![("overflowFlags".to_string(), ctx.typed_attr_of(flags))]
}

/// Creates op `name` right before `before` and returns its one result.
pub(super) fn emit(
    rewriter: &mut Rewriter,
    before: OpId,
    name: &str,
    operands: Vec<Value>,
    result: Type,
    properties: Vec<(String, Attr)>,
) -> Value {
    let ctx = rewriter.ctx_mut();
    let loc = ctx.op(before).loc;
    let name = ctx.intern_op_name(name);
    let properties = (!properties.is_empty()).then(|| ctx.dictionary_attr(properties));
    let op = rewriter.create_op_before(
        before,
        OperationState {
            name,
            operands,
            result_types: vec![result],
            successors: vec![],
            num_regions: 0,
            properties,
            attributes: vec![],
            loc,
        },
    );
    rewriter.ctx().op(op).results[0]
}

/// An `arith.constant` of type `ty` holding `value` (a splat for a shaped type), right
/// before `before`; `None` when `ty` has no constant of that value (a dynamic shape).
pub(super) fn emit_constant(
    rewriter: &mut Rewriter,
    before: OpId,
    ty: Type,
    value: Scalar,
) -> Option<Value> {
    let kind =
        super::elements::attr_kind(rewriter.ctx(), ty, super::elements::Elements::One(value))?;
    let attr = rewriter.ctx_mut().intern_attr(kind);
    Some(emit(
        rewriter,
        before,
        "arith.constant",
        vec![],
        ty,
        vec![("value".to_string(), attr)],
    ))
}

/// Replaces `op`'s one result with `value` and erases it.
pub(super) fn replace(rewriter: &mut Rewriter, op: OpId, value: Value) -> bool {
    rewriter.replace_op(op, &[value]);
    true
}
