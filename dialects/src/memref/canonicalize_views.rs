//! Canonicalization patterns of `memref` views, as MLIR 22 has them: constant offsets,
//! sizes and strides become static (a `memref.cast` restores the old type), views of
//! casts see the more static type, views that change nothing disappear, and chains of
//! collapses or of expansions become one.

use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, OpId, Type, Value};

use super::canonicalize::{create, fold_constant_sizes, replace_with_cast};
use super::constraint::reassociation;
use super::index_list::{
    Mixed, constant_index, i64_array, mixed, segment_sizes, split, static_list,
};
use super::layout::{Described, MemRef, cast_only_erases};
use super::offsets::Slice;
use super::subview::{infer, subview_dropped_dims};

/// What a `reinterpret_cast` of another view may reinterpret directly: the source of a
/// reinterpret_cast or cast, or of a subview at offset zero.
pub(crate) fn reinterpret_source(ctx: &Context, op: OpId) -> Option<Value> {
    let source = ctx.defining_op(ctx.op(op).operands[0])?;
    match ctx.op_name(source) {
        super::REINTERPRET_CAST | super::CAST => Some(ctx.op(source).operands[0]),
        super::SUBVIEW => {
            let slice = Slice::of(ctx, source)?;
            slice
                .offsets
                .iter()
                .all(|o| o.constant(ctx) == Some(0))
                .then(|| ctx.op(source).operands[0])
        }
        _ => None,
    }
}

struct ReinterpretSource;

impl RewritePattern for ReinterpretSource {
    fn debug_name(&self) -> &'static str {
        "ReinterpretCastOfView"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::REINTERPRET_CAST)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let Some(source) = reinterpret_source(rewriter.ctx(), op) else {
            return false;
        };
        rewriter.set_operand(op, 0, source);
        true
    }
}

/// The result type of a subview of `source` with `slice`, reduced in rank as `op` is.
fn reduced_subview_type(
    ctx: &Context,
    op: OpId,
    source: &MemRef,
    [offsets, sizes, strides]: [&[i64]; 3],
) -> Option<Described> {
    let full = infer(ctx, source, offsets, sizes, strides)?;
    let dropped = subview_dropped_dims(ctx, op)?;
    let (full_strides, offset) = full.strides_and_offset();
    let keep = |i: &usize| !dropped.get(*i).copied().unwrap_or(false);
    Some(Described {
        shape: (0..full.shape.len())
            .filter(keep)
            .map(|i| full.shape[i])
            .collect(),
        strided: Some((
            (0..full.shape.len())
                .filter(keep)
                .map(|i| full_strides[i])
                .collect(),
            offset,
        )),
        ..full
    })
}

/// Builds a subview or reinterpret_cast `name` of `source` at `slice`, of type `ty`.
fn create_view(
    rewriter: &mut Rewriter,
    at: OpId,
    name: &str,
    source: Value,
    slice: [&[Mixed]; 3],
    ty: Type,
) -> Value {
    let mut operands = vec![source];
    let mut props = Vec::new();
    let mut segments = vec![1];
    for (entries, (attr, _, _)) in slice.iter().zip(super::offsets::LISTS) {
        let (values, statics) = split(entries);
        segments.push(values.len());
        operands.extend(values);
        props.push((attr.to_string(), i64_array(rewriter.ctx_mut(), &statics)));
    }
    let sizes = segment_sizes(rewriter.ctx_mut(), &segments);
    props.push(("operandSegmentSizes".to_string(), sizes));
    let op = create(rewriter, at, name, operands, vec![ty], props);
    rewriter.ctx().op(op).results[0]
}

fn statics(entries: &[Mixed]) -> Vec<i64> {
    split(entries).1
}

/// Constant offsets, sizes and strides of a subview become static; a cast restores the
/// old type. Negative offsets and sizes stay, as do zero strides and slices out of
/// bounds.
struct SubviewConstantArguments;

impl RewritePattern for SubviewConstantArguments {
    fn debug_name(&self) -> &'static str {
        "OpWithOffsetSizesAndStridesConstantArgumentFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::SUBVIEW)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(slice) = Slice::of(ctx, op) else {
            return false;
        };
        let mut changed = false;
        let mut fold = |entries: &[Mixed], accept: fn(i64) -> bool| -> Vec<Mixed> {
            entries
                .iter()
                .map(|&e| match e {
                    Mixed::Dynamic(v) => match constant_index(ctx, v).filter(|&c| accept(c)) {
                        Some(c) => {
                            changed = true;
                            Mixed::Static(c)
                        }
                        None => e,
                    },
                    e => e,
                })
                .collect()
        };
        let offsets = fold(&slice.offsets, |c| c >= 0);
        let sizes = fold(&slice.sizes, |c| c >= 0);
        // A zero stride stays dynamic, as MLIR keeps it.
        let strides = fold(&slice.strides, |c| c != 0);
        if !changed {
            return false;
        }
        let source = ctx.op(op).operands[0];
        let Some(source_ty) = MemRef::of(ctx, ctx.value_type(source)) else {
            return false;
        };
        let lists = [statics(&offsets), statics(&sizes), statics(&strides)];
        if !super::subview::slice_in_bounds(&source_ty.shape, &lists) {
            return false;
        }
        let Some(ty) = reduced_subview_type(ctx, op, &source_ty, [&lists[0], &lists[1], &lists[2]])
        else {
            return false;
        };
        let ty = ty.build(rewriter.ctx_mut());
        let value = create_view(
            rewriter,
            op,
            super::SUBVIEW,
            source,
            [&offsets, &sizes, &strides],
            ty,
        );
        replace_with_cast(rewriter, op, value);
        true
    }
}

/// A subview of all of a source at offset 0 with unit strides is the source (or a cast
/// of it to the subview's type).
struct TrivialSubview;

impl RewritePattern for TrivialSubview {
    fn debug_name(&self) -> &'static str {
        "TrivialSubViewOpFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::SUBVIEW)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let source = data.operands[0];
        let (Some(source_ty), Some(result_ty), Some(slice)) = (
            MemRef::of(ctx, ctx.value_type(source)),
            MemRef::of(ctx, ctx.value_type(data.results[0])),
            Slice::of(ctx, op),
        ) else {
            return false;
        };
        let trivial = source_ty.rank() == result_ty.rank()
            && slice.offsets.iter().all(|o| o.constant(ctx) == Some(0))
            && slice.strides.iter().all(|s| s.constant(ctx) == Some(1))
            && slice
                .sizes
                .iter()
                .zip(&source_ty.shape)
                .all(|(s, &d)| s.constant(ctx) == Some(d) && d != DYNAMIC);
        if !trivial {
            return false;
        }
        replace_with_cast(rewriter, op, source);
        true
    }
}

/// `subview(cast(%x))` → `cast(subview(%x))` when the cast only forgets static
/// information: the subview then sees the more static type.
struct SubviewOfCast;

impl RewritePattern for SubviewOfCast {
    fn debug_name(&self) -> &'static str {
        "SubViewOpMemRefCastFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::SUBVIEW)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let operand = ctx.op(op).operands[0];
        let Some(cast) = ctx
            .defining_op(operand)
            .filter(|&p| ctx.op_name(p) == super::CAST)
        else {
            return false;
        };
        let source = ctx.op(cast).operands[0];
        if !cast_only_erases(ctx, ctx.value_type(source), ctx.value_type(operand)) {
            return false;
        }
        let (Some(source_ty), Some(slice)) =
            (MemRef::of(ctx, ctx.value_type(source)), Slice::of(ctx, op))
        else {
            return false;
        };
        let lists = [
            statics(&slice.offsets),
            statics(&slice.sizes),
            statics(&slice.strides),
        ];
        let Some(ty) = reduced_subview_type(ctx, op, &source_ty, [&lists[0], &lists[1], &lists[2]])
        else {
            return false;
        };
        let ty = ty.build(rewriter.ctx_mut());
        let value = create_view(
            rewriter,
            op,
            super::SUBVIEW,
            source,
            [&slice.offsets, &slice.sizes, &slice.strides],
            ty,
        );
        replace_with_cast(rewriter, op, value);
        true
    }
}

/// Constant sizes of a view become static; a cast restores the old type.
struct ViewConstantSizes;

impl RewritePattern for ViewConstantSizes {
    fn debug_name(&self) -> &'static str {
        "ViewOpShapeFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::VIEW)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let Some(ty) = MemRef::of(ctx, ctx.value_type(data.results[0])) else {
            return false;
        };
        let (source, shift) = (data.operands[0], data.operands[1]);
        let sizes = data.operands[2..].to_vec();
        let Some((shape, remaining)) = fold_constant_sizes(ctx, &ty, &sizes) else {
            return false;
        };
        let new_ty = ty.with_shape(shape).build(rewriter.ctx_mut());
        let operands = [source, shift].into_iter().chain(remaining).collect();
        let view = create(rewriter, op, super::VIEW, operands, vec![new_ty], vec![]);
        let value = rewriter.ctx().op(view).results[0];
        replace_with_cast(rewriter, op, value);
        true
    }
}

/// Every static or constant entry of a reinterpret_cast, and every entry the result
/// type pins down, becomes static; a cast restores the old type.
struct ReinterpretConstantArguments;

impl RewritePattern for ReinterpretConstantArguments {
    fn debug_name(&self) -> &'static str {
        "ReinterpretCastOpConstantFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::REINTERPRET_CAST)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let source = data.operands[0];
        let (Some(slice), Some(result)) = (
            Slice::of(ctx, op),
            MemRef::of(ctx, ctx.value_type(data.results[0])),
        ) else {
            return false;
        };
        let Some((result_strides, result_offset)) = result.strides_and_offset(ctx) else {
            return false;
        };
        if slice.offsets.len() != 1
            || slice.sizes.len() != result.rank()
            || slice.strides.len() != result.rank()
        {
            return false;
        }
        // Known from the type first, else from a constant operand.
        let constify = |entries: &[Mixed], known: &[i64]| -> Vec<Mixed> {
            entries
                .iter()
                .zip(known)
                .map(|(&e, &k)| match (k, e.constant(ctx)) {
                    (k, _) if k != DYNAMIC => Mixed::Static(k),
                    (_, Some(c)) => Mixed::Static(c),
                    _ => e,
                })
                .collect()
        };
        let offsets = constify(&slice.offsets, &[result_offset]);
        let sizes = constify(&slice.sizes, &result.shape);
        let strides = constify(&slice.strides, &result_strides);
        let count = |lists: [&[Mixed]; 3]| {
            lists
                .iter()
                .flat_map(|l| l.iter())
                .filter(|e| matches!(e, Mixed::Static(_)))
                .count()
        };
        if count([&offsets, &sizes, &strides])
            == count([&slice.offsets, &slice.sizes, &slice.strides])
        {
            return false;
        }
        let Some((element, space)) = super::layout::element_and_space(ctx, ctx.value_type(source))
        else {
            return false;
        };
        let ty = Described {
            shape: split(&sizes).1,
            element,
            strided: Some((split(&strides).1, split(&offsets).1[0])),
            memory_space: space,
        }
        .build(rewriter.ctx_mut());
        let value = create_view(
            rewriter,
            op,
            super::REINTERPRET_CAST,
            source,
            [&offsets, &sizes, &strides],
            ty,
        );
        replace_with_cast(rewriter, op, value);
        true
    }
}

/// `collapse(collapse(%x))` → `collapse(%x)` and `expand(expand(%x))` → `expand(%x)`,
/// for memrefs of the identity layout.
struct ComposeReshapes(&'static str);

/// The groups of two reassociations applied in turn, as MLIR composes them.
fn compose_groups(producer: &[Vec<i64>], consumer: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let (mut producer, mut consumer) = (producer, consumer);
    if producer.len() == consumer.len() {
        return None;
    }
    if producer.len() < consumer.len() {
        std::mem::swap(&mut producer, &mut consumer);
    }
    if consumer.is_empty() {
        return Some(Vec::new());
    }
    if consumer.iter().map(Vec::len).sum::<usize>() != producer.len() {
        return None;
    }
    consumer
        .iter()
        .map(|group| {
            let mut composed = Vec::new();
            for &i in group {
                composed.extend_from_slice(producer.get(usize::try_from(i).ok()?)?);
            }
            Some(composed)
        })
        .collect()
}

fn reassociation_attr(ctx: &mut Context, groups: &[Vec<i64>]) -> Attr {
    let i64_ty = ctx.i64();
    let groups = groups
        .iter()
        .map(|g| {
            let items = g
                .iter()
                .map(|&i| ctx.integer_attr(i as i128, i64_ty))
                .collect();
            ctx.intern_attr(tb_ir::attributes::AttrKind::Array(items))
        })
        .collect();
    ctx.intern_attr(tb_ir::attributes::AttrKind::Array(groups))
}

impl RewritePattern for ComposeReshapes {
    fn debug_name(&self) -> &'static str {
        "ComposeReassociativeReshapeOps"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let Some(inner) = ctx
            .defining_op(data.operands[0])
            .filter(|&p| ctx.op_name(p) == self.0)
        else {
            return false;
        };
        let source = ctx.op(inner).operands[0];
        let result_ty = ctx.value_type(data.results[0]);
        let identity = |t: Type| MemRef::of(ctx, t).is_some_and(|m| m.has_identity_layout(ctx));
        if !identity(ctx.value_type(source))
            || !identity(ctx.value_type(data.operands[0]))
            || !identity(result_ty)
        {
            return false;
        }
        let groups = |o: OpId| reassociation(ctx, ctx.op_inherent_or_attr(o, "reassociation")?);
        let (Some(outer_groups), Some(inner_groups)) = (groups(op), groups(inner)) else {
            return false;
        };
        let Some(composed) = compose_groups(&inner_groups, &outer_groups) else {
            return false;
        };
        let output_shape = static_list(ctx, op, "static_output_shape");
        let mut operands = vec![source];
        operands.extend_from_slice(&data.operands[1..]);
        let ctx = rewriter.ctx_mut();
        let mut props = vec![(
            "reassociation".to_string(),
            reassociation_attr(ctx, &composed),
        )];
        if let Some(shape) = output_shape {
            props.push(("static_output_shape".to_string(), i64_array(ctx, &shape)));
        }
        let new = create(rewriter, op, self.0, operands, vec![result_ty], props);
        let value = rewriter.ctx().op(new).results[0];
        rewriter.replace_op(op, &[value]);
        true
    }
}

/// `collapse(expand(%x))` of identity layouts that lands at a lower rank than `%x` is one
/// collapse of `%x`; at `%x`'s own rank (and another type) it is a cast of `%x`; at a
/// higher rank, one expansion of `%x`.
struct ComposeCollapseOfExpand;

/// Groups of the lower-rank reassociation, in indices of the higher-rank one's groups,
/// when each lower group is a run of whole higher groups.
fn compose_across(higher: &[Vec<i64>], lower: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let mut next = 0usize;
    let mut composed = Vec::with_capacity(lower.len());
    for group in lower {
        let last = *group.last()?;
        let mut indices = Vec::new();
        while next < higher.len() {
            let rightmost = *higher[next].last()?;
            if rightmost > last {
                return None;
            }
            indices.push(next as i64);
            next += 1;
            if rightmost == last {
                break;
            }
        }
        composed.push(indices);
    }
    Some(composed)
}

impl RewritePattern for ComposeCollapseOfExpand {
    fn debug_name(&self) -> &'static str {
        "ComposeCollapseOfExpandOp"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::COLLAPSE_SHAPE)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let data = ctx.op(op);
        let Some(expand) = ctx
            .defining_op(data.operands[0])
            .filter(|&p| ctx.op_name(p) == super::EXPAND_SHAPE)
        else {
            return false;
        };
        let source = ctx.op(expand).operands[0];
        let result_ty = ctx.value_type(data.results[0]);
        let identity = |t: Type| MemRef::of(ctx, t).is_some_and(|m| m.has_identity_layout(ctx));
        if !identity(ctx.value_type(source)) || !identity(ctx.value_type(data.operands[0])) {
            return false;
        }
        let source_ty = ctx.value_type(source);
        if source_ty == result_ty {
            return false;
        }
        let (Some(src), Some(res)) = (MemRef::of(ctx, source_ty), MemRef::of(ctx, result_ty))
        else {
            return false;
        };
        let groups = |o: OpId| reassociation(ctx, ctx.op_inherent_or_attr(o, "reassociation")?);
        let (Some(expand_groups), Some(collapse_groups)) = (groups(expand), groups(op)) else {
            return false;
        };
        if src.rank() == res.rank() {
            if src.shape != res.shape || !super::layout::cast_compatible(ctx, source_ty, result_ty)
            {
                return false;
            }
            replace_with_cast(rewriter, op, source);
            return true;
        }
        if src.rank() < res.rank() {
            return expand_instead(rewriter, op, expand, &collapse_groups, &expand_groups);
        }
        let Some(composed) = compose_across(&expand_groups, &collapse_groups) else {
            return false;
        };
        let attr = reassociation_attr(rewriter.ctx_mut(), &composed);
        let props = vec![("reassociation".to_string(), attr)];
        let new = create(
            rewriter,
            op,
            super::COLLAPSE_SHAPE,
            vec![source],
            vec![result_ty],
            props,
        );
        let value = rewriter.ctx().op(new).results[0];
        rewriter.replace_op(op, &[value]);
        true
    }
}

/// The size of one dimension of a new expand_shape: a static product, or the product of
/// the dynamic sizes (in order) and then of the static ones when it is not 1.
enum GroupSize {
    Static(i64),
    Dynamic(Vec<Value>, i64),
}

/// `collapse(expand(%x))` landing at a higher rank than `%x`: one expand_shape of `%x`
/// whose output sizes are the products of the first expansion's sizes over each collapsed
/// group, as MLIR's ComposeCollapseOfExpandOp builds them (`arith.muli`, with the static
/// part last as an `arith.constant`).
fn expand_instead(
    rewriter: &mut Rewriter,
    collapse: OpId,
    expand: OpId,
    collapse_groups: &[Vec<i64>],
    expand_groups: &[Vec<i64>],
) -> bool {
    let ctx = rewriter.ctx();
    let Some(composed) = compose_across(collapse_groups, expand_groups) else {
        return false;
    };
    let Some(sizes) = mixed(ctx, expand, "static_output_shape", 1) else {
        return false;
    };
    let mut group_sizes = Vec::with_capacity(collapse_groups.len());
    for group in collapse_groups {
        let (mut product, mut dynamic) = (1i64, Vec::new());
        for &i in group {
            let Some(&size) = usize::try_from(i).ok().and_then(|i| sizes.get(i)) else {
                return false;
            };
            match (size.constant(ctx), size) {
                (Some(c), _) => match product.checked_mul(c) {
                    Some(p) => product = p,
                    // An overflowing static size: leave the ops as they are.
                    None => return false,
                },
                (None, Mixed::Dynamic(v)) => dynamic.push(v),
                (None, Mixed::Static(_)) => return false,
            }
        }
        group_sizes.push(if dynamic.is_empty() {
            GroupSize::Static(product)
        } else {
            GroupSize::Dynamic(dynamic, product)
        });
    }
    let source = ctx.op(expand).operands[0];
    let result_ty = ctx.value_type(ctx.op(collapse).results[0]);
    let index = rewriter.ctx_mut().index_type();
    let mut output_shape = Vec::with_capacity(group_sizes.len());
    for size in group_sizes {
        let (dynamic, product) = match size {
            GroupSize::Static(product) => {
                output_shape.push(Mixed::Static(product));
                continue;
            }
            GroupSize::Dynamic(dynamic, product) => (dynamic, product),
        };
        let mut result = dynamic[0];
        for &factor in &dynamic[1..] {
            result = create_muli(rewriter, collapse, result, factor);
        }
        if product != 1 {
            let value = rewriter
                .ctx_mut()
                .intern_attr(tb_ir::attributes::AttrKind::Integer {
                    value: product as i128,
                    ty: index,
                });
            let constant = create(
                rewriter,
                collapse,
                "arith.constant",
                vec![],
                vec![index],
                vec![("value".to_string(), value)],
            );
            let constant = rewriter.ctx().op(constant).results[0];
            result = create_muli(rewriter, collapse, result, constant);
        }
        output_shape.push(Mixed::Dynamic(result));
    }
    let (dynamic_sizes, static_sizes) = split(&output_shape);
    let ctx = rewriter.ctx_mut();
    let props = vec![
        (
            "reassociation".to_string(),
            reassociation_attr(ctx, &composed),
        ),
        (
            "static_output_shape".to_string(),
            i64_array(ctx, &static_sizes),
        ),
    ];
    let mut operands = vec![source];
    operands.extend(dynamic_sizes);
    let new = create(
        rewriter,
        collapse,
        super::EXPAND_SHAPE,
        operands,
        vec![result_ty],
        props,
    );
    let value = rewriter.ctx().op(new).results[0];
    rewriter.replace_op(collapse, &[value]);
    true
}

/// `arith.muli %lhs, %rhs : index` before `at`.
fn create_muli(rewriter: &mut Rewriter, at: OpId, lhs: Value, rhs: Value) -> Value {
    let ty = rewriter.ctx().value_type(lhs);
    let mul = create(rewriter, at, "arith.muli", vec![lhs, rhs], vec![ty], vec![]);
    rewriter.ctx().op(mul).results[0]
}

pub(crate) fn reinterpret_cast(patterns: &mut PatternSet) {
    super::metadata::reinterpret_cast(patterns);
    patterns.add(Box::new(ReinterpretSource));
    patterns.add(Box::new(ReinterpretConstantArguments));
}

pub(crate) fn subview(patterns: &mut PatternSet) {
    patterns.add(Box::new(SubviewConstantArguments));
    patterns.add(Box::new(SubviewOfCast));
    patterns.add(Box::new(TrivialSubview));
}

/// `view(cast(%x))` → `view(%x)`: a view reads the buffer, not the cast's type. Only when
/// `%x` itself is a valid view source (a contiguous 1-D byte buffer).
struct ViewOfCast;

impl RewritePattern for ViewOfCast {
    fn debug_name(&self) -> &'static str {
        "ViewOpMemrefCastFolder"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::VIEW)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(cast) = ctx
            .defining_op(ctx.op(op).operands[0])
            .filter(|&c| ctx.op_name(c) == super::CAST)
        else {
            return false;
        };
        let source = ctx.op(cast).operands[0];
        let source_ty = ctx.value_type(source);
        let valid_source = (super::constraint::BYTES_1D.check)(ctx, source_ty)
            && MemRef::of(ctx, source_ty).is_some_and(|m| m.has_identity_layout(ctx));
        if !valid_source {
            return false;
        }
        let mut operands = ctx.op(op).operands.to_vec();
        operands[0] = source;
        let result_ty = ctx.value_type(ctx.op(op).results[0]);
        let view = create(rewriter, op, super::VIEW, operands, vec![result_ty], vec![]);
        let value = rewriter.ctx().op(view).results[0];
        rewriter.replace_op(op, &[value]);
        true
    }
}

pub(crate) fn view(patterns: &mut PatternSet) {
    patterns.add(Box::new(ViewConstantSizes));
    patterns.add(Box::new(ViewOfCast));
}

pub(crate) fn expand_shape(patterns: &mut PatternSet) {
    patterns.add(Box::new(ComposeReshapes(super::EXPAND_SHAPE)));
    super::canonicalize_reshape_casts::expand_shape(patterns);
}

pub(crate) fn collapse_shape(patterns: &mut PatternSet) {
    patterns.add(Box::new(ComposeReshapes(super::COLLAPSE_SHAPE)));
    patterns.add(Box::new(ComposeCollapseOfExpand));
    super::canonicalize_reshape_casts::collapse_shape(patterns);
}
