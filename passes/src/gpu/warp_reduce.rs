//! Reductions spread over the 32 lanes of a warp.
//!
//! `convert-te-to-loop` writes a reduction as a `loop.for` carrying its accumulator inside
//! the parallel loop over the outputs. Mapped one output per thread, a reduction over a
//! long axis (a softmax or layer-norm row, a global pool) runs serially in a few threads
//! and leaves the GPU nearly idle. Mapped one output per warp instead, lane `l` folds the
//! elements `l, l + 32, l + 64, ...` into a partial value that starts from the combiner's
//! identity, five `gpu.shuffle xor` steps (16, 8, 4, 2, 1) combine the 32 partials, and the
//! loop's original initial value is folded in last. The butterfly leaves the same value in
//! every lane, so the code after the reduction (the epilogue and its stores) runs in each
//! lane unchanged: the lanes store equal values to equal addresses.
//!
//! Floating-point sums are reassociated, as every parallel reduction is.

use tb_dialects::arith::ArithOp;
use tb_dialects::gpu::{self, ShuffleMode, WARP_SIZE};
use tb_dialects::loop_::{self, LoopOp};
use tb_dialects::te::Combiner;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::ods::OpKind;
use tb_ir::value::ValueDef;
use tb_ir::{AttrKind, Context, FloatKind, OpId, TypeKind, Value};

use crate::conversion::te_to_loop::builder::Builder;

/// Outputs few enough that one thread each cannot fill a GPU: their reductions go to warps
/// even when lanes then read with a stride.
const FEW_OUTPUTS: i64 = 1 << 13;

/// A `loop.for` that folds one value per iteration into its single accumulator.
pub(super) struct Reduction {
    op: OpId,
    combiner: Combiner,
    unsigned: bool,
    lower: i64,
    step: i64,
    pub(super) extent: i64,
}

impl Reduction {
    /// The reduction's `loop.for`.
    pub(super) fn op(&self) -> OpId {
        self.op
    }
}

/// The reductions directly inside `parallel`'s body.
pub(super) fn reductions(ctx: &Context, parallel: OpId) -> Vec<Reduction> {
    let Some(body) = loop_::body(ctx, parallel) else {
        return Vec::new();
    };
    ctx.block_ops(body)
        .filter_map(|op| reduction(ctx, op))
        .collect()
}

/// Whether the reductions of a parallel loop over `outputs` points should run on warps:
/// one is at least `min_extent` long, and either the outputs are few or every lane reads
/// consecutive elements (so a warp's loads coalesce).
pub(super) fn prefers_warps(
    ctx: &Context,
    reductions: &[Reduction],
    outputs: i64,
    min_extent: i64,
) -> bool {
    min_extent > 0
        && reductions.iter().any(|r| r.extent >= min_extent)
        && (outputs <= FEW_OUTPUTS || reductions.iter().all(|r| reads_along(ctx, r)))
}

/// Which combiner an `arith` op is, and whether it compares unsigned.
fn combiner_of(kind: ArithOp) -> Option<(Combiner, bool)> {
    Some(match kind {
        ArithOp::AddF | ArithOp::AddI => (Combiner::Sum, false),
        ArithOp::MulF | ArithOp::MulI => (Combiner::Prod, false),
        ArithOp::MaximumF | ArithOp::MaxSI => (Combiner::Max, false),
        ArithOp::MaxUI => (Combiner::Max, true),
        ArithOp::MinimumF | ArithOp::MinSI => (Combiner::Min, false),
        ArithOp::MinUI => (Combiner::Min, true),
        _ => return None,
    })
}

/// Whether a warp can shuffle values of `ty` (32-bit scalars).
fn shuffles(ctx: &Context, ty: tb_ir::Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Float(FloatKind::F32) | TypeKind::Integer { width: 32, .. }
    )
}

fn reduction(ctx: &Context, op: OpId) -> Option<Reduction> {
    if LoopOp::of(ctx, op) != Some(LoopOp::For) {
        return None;
    }
    let dims = loop_::loop_dims(ctx, op)?;
    let [dim] = dims.as_slice() else {
        return None;
    };
    let lower = match dim.lower.map.constant_results()?.as_slice() {
        [l] => *l,
        _ => return None,
    };
    let upper = match dim.upper.map.constant_results()?.as_slice() {
        [u] => *u,
        _ => return None,
    };
    if dim.step <= 0 || upper <= lower || loop_::inits(ctx, op).len() != 1 {
        return None;
    }
    let result = *ctx.op(op).results.first()?;
    if !shuffles(ctx, ctx.value_type(result)) {
        return None;
    }
    let acc = *loop_::iter_args(ctx, op).first()?;
    let [next] = loop_::yielded(ctx, op)[..] else {
        return None;
    };
    let ValueDef::Result { op: combine, .. } = ctx.value(next).def else {
        return None;
    };
    let (combiner, unsigned) = combiner_of(ArithOp::of(ctx, combine)?)?;
    let operands = &ctx.op(combine).operands;
    let folds_acc = operands.len() == 2
        && (operands[0] == acc) != (operands[1] == acc)
        && ctx.value(acc).uses.len() == 1
        && ctx.parent_op(combine) == Some(op);
    // The body may only read memory and compute: its iterations are reordered.
    let mut pure = true;
    ctx.walk_nested(op, &mut |inner| {
        let name = ctx.op_name(inner);
        pure &= matches!(LoopOp::of(ctx, inner), Some(LoopOp::Load | LoopOp::Yield))
            || ((name.starts_with("arith.") || name.starts_with("math."))
                && ctx.op(inner).regions.is_empty());
    });
    (folds_acc && pure).then(|| Reduction {
        op,
        combiner,
        unsigned,
        lower,
        step: dim.step,
        extent: (upper - lower + dim.step - 1) / dim.step,
    })
}

/// Whether every load in the reduction that depends on its induction variable reads
/// consecutive elements as it grows: the variable is a load index that only the access
/// map's last result uses, with coefficient one.
fn reads_along(ctx: &Context, r: &Reduction) -> bool {
    let iv = loop_::induction_vars(ctx, r.op)[0];
    let mut along = true;
    ctx.walk_nested(r.op, &mut |load| {
        if LoopOp::of(ctx, load) != Some(LoopOp::Load) {
            return;
        }
        let indices = &ctx.op(load).operands[1..];
        if !indices.contains(&iv) {
            // A load through an index computed from the variable: assume the worst.
            along &= indices.iter().all(|&v| !derived_from(ctx, v, iv, r.op));
            return;
        }
        let Some(map) = loop_::access_map(ctx, load) else {
            along = false;
            return;
        };
        along &= indices
            .iter()
            .enumerate()
            .all(|(p, &v)| v != iv || unit_stride_last(&map, p as u32, indices.len()));
    });
    along
}

/// Whether `map`'s last result grows by one with dim `p` and no other result uses it.
fn unit_stride_last(map: &AffineMap, p: u32, dims: usize) -> bool {
    let Some((last, others)) = map.results.split_last() else {
        return false;
    };
    if others.iter().any(|e| e.is_function_of_dim(p)) || !last.is_pure_affine() {
        return false;
    }
    let mut at = vec![0i64; dims];
    let symbols = vec![0i64; map.num_symbols as usize];
    let base = last.evaluate(&at, &symbols);
    at[p as usize] = 1;
    matches!((base, last.evaluate(&at, &symbols)), (Some(b), Some(n)) if n - b == 1)
}

/// Whether `value` is computed (inside `scope`) from `iv`.
fn derived_from(ctx: &Context, value: Value, iv: Value, scope: OpId) -> bool {
    if value == iv {
        return true;
    }
    match ctx.value(value).def {
        ValueDef::Result { op, .. } if ctx.parent_op(op).is_some_and(|p| p == scope) => ctx
            .op(op)
            .operands
            .iter()
            .any(|&v| derived_from(ctx, v, iv, scope)),
        _ => false,
    }
}

/// Rewrites `r` so that lane `lane` of a warp folds every 32nd element and the warp
/// combines the partial values with shuffles; `r`'s result is then the whole reduction in
/// every lane.
pub(super) fn spread_over_lanes(ctx: &mut Context, r: &Reduction, lane: Value) {
    let partial = fold_strided(ctx, r, lane, i64::from(WARP_SIZE));
    let warp = combine_lanes(ctx, r, partial);
    finish(ctx, r, warp);
}

/// The type of `r`'s accumulator.
pub(super) fn value_type(ctx: &Context, r: &Reduction) -> tb_ir::Type {
    ctx.value_type(ctx.op(r.op).results[0])
}

/// The `arith` op that combines two partial values of `r`.
fn combine_name(ctx: &Context, r: &Reduction) -> &'static str {
    let float = matches!(ctx.type_kind(value_type(ctx, r)), TypeKind::Float(_));
    r.combiner.arith_op(float, r.unsigned).name()
}

/// `r`'s combiner applied to `a` and `b`, built before `r`.
pub(super) fn combine(ctx: &mut Context, r: &Reduction, a: Value, b: Value) -> Value {
    let at = Builder::before(r.op, ctx.op(r.op).loc);
    let name = combine_name(ctx, r);
    at.binary(ctx, name, a, b)
}

/// The combiner's identity for `r`, built before `r`.
pub(super) fn identity(ctx: &mut Context, r: &Reduction) -> Value {
    let at = Builder::before(r.op, ctx.op(r.op).loc);
    let ty = value_type(ctx, r);
    let attr = r
        .combiner
        .identity_attr(ctx, ty, r.unsigned)
        .expect("32-bit scalar types have identities");
    at.constant(ctx, attr, ty)
}

/// Before `r`: a copy of `r`'s loop in which the worker `first` (of `workers`) folds the
/// elements `first, first + workers, ...` into a partial value that starts from the
/// combiner's identity; returns that value. `r`'s body moves into the copy.
pub(super) fn fold_strided(ctx: &mut Context, r: &Reduction, first: Value, workers: i64) -> Value {
    let loc = ctx.op(r.op).loc;
    let at = Builder::before(r.op, loc);
    let ty = value_type(ctx, r);
    let start = identity(ctx, r);
    // worker w starts at lower + w * step and strides by `workers` steps.
    let lower = ctx.intern_attr(AttrKind::AffineMap(AffineMap::new(
        1,
        0,
        vec![AffineExpr::dim(0) * r.step + r.lower],
    )));
    let upper = ctx.intern_attr(AttrKind::AffineMap(AffineMap::constant(
        r.lower + r.extent * r.step,
    )));
    let i64_ty = ctx.i64();
    let step = ctx.integer_attr((r.step * workers).into(), i64_ty);
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let segments = ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: tb_ir::attributes::DenseArrayData::Int(vec![1, 0, 1]),
    });
    let strided = at.create(
        ctx,
        loop_::FOR,
        vec![first, start],
        vec![ty],
        vec![
            ("lower_bound", lower),
            ("upper_bound", upper),
            ("step", step),
            ("operandSegmentSizes", segments),
        ],
        1,
    );
    let old_region = ctx.op(r.op).regions[0];
    let new_region = ctx.op(strided).regions[0];
    for block in ctx.take_blocks(old_region) {
        ctx.append_block(new_region, block);
    }
    ctx.op(strided).results[0]
}

/// Before `r`: five `gpu.shuffle xor` steps (16, 8, 4, 2, 1) that combine the 32 lanes'
/// `value`s; returns the combination, the same in every lane.
pub(super) fn combine_lanes(ctx: &mut Context, r: &Reduction, value: Value) -> Value {
    let loc = ctx.op(r.op).loc;
    let after = Builder::before(r.op, loc);
    let ty = ctx.value_type(value);
    let warp = i64::from(WARP_SIZE);
    let i32_ty = ctx.integer_type(32, tb_ir::Signedness::Signless);
    let width = {
        let attr = ctx.integer_attr(warp.into(), i32_ty);
        after.constant(ctx, attr, i32_ty)
    };
    let mode = gpu::shuffle_mode_attr(ctx, ShuffleMode::Xor);
    let i1 = ctx.integer_type(1, tb_ir::Signedness::Signless);
    let mut value = value;
    let mut offset = warp / 2;
    while offset >= 1 {
        let attr = ctx.integer_attr(offset.into(), i32_ty);
        let offset_value = after.constant(ctx, attr, i32_ty);
        let shuffle = after.create(
            ctx,
            gpu::SHUFFLE,
            vec![value, offset_value, width],
            vec![ty, i1],
            vec![("mode", mode)],
            0,
        );
        let other = ctx.op(shuffle).results[0];
        value = combine(ctx, r, value, other);
        offset /= 2;
    }
    value
}

/// Folds `r`'s initial value into `all` (the whole reduction of its elements), makes
/// that `r`'s result and erases `r`.
pub(super) fn finish(ctx: &mut Context, r: &Reduction, all: Value) {
    let result = ctx.op(r.op).results[0];
    let init = loop_::inits(ctx, r.op)[0];
    let whole = combine(ctx, r, init, all);
    ctx.replace_all_uses(result, whole);
    ctx.erase_op(r.op);
}
