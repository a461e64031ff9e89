//! `memref.subview`'s type rules, as MLIR states them: the result type a slice of a
//! strided memref has, which dimensions a rank-reduced result drops, and the verifier.

use std::collections::BTreeMap;

use tb_ir::ods::operand_group;
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Diagnostic, OpId};

use super::layout::{Described, MemRef, add, mul};
use super::offsets::{self, static_lists};
use super::verify::error;

/// The type of the slice of `source` at `offsets` with `sizes` and `strides`, before any
/// rank reduction: offset and strides compose with the source's.
pub(crate) fn infer(
    ctx: &Context,
    source: &MemRef,
    offsets: &[i64],
    sizes: &[i64],
    strides: &[i64],
) -> Option<Described> {
    let (source_strides, source_offset) = source.strides_and_offset(ctx)?;
    let offset = offsets
        .iter()
        .zip(&source_strides)
        .fold(source_offset, |acc, (&o, &s)| add(acc, mul(o, s)));
    let strides = source_strides
        .iter()
        .zip(strides)
        .map(|(&a, &b)| mul(a, b))
        .collect();
    Some(Described {
        shape: sizes.to_vec(),
        element: source.element,
        strided: Some((strides, offset)),
        memory_space: source.memory_space,
    })
}

/// Which dimensions of `original` a `reduced` shape drops: greedily matched sizes, the
/// others must be 1. `None` if the shapes do not match that way.
pub(crate) fn rank_reduction_mask(original: &[i64], reduced: &[i64]) -> Option<Vec<bool>> {
    let mut next = 0;
    let mut dropped = vec![false; original.len()];
    for (i, &size) in original.iter().enumerate() {
        if next < reduced.len() && size == reduced[next] {
            next += 1;
            continue;
        }
        if size != 1 {
            return None;
        }
        dropped[i] = true;
    }
    (next == reduced.len()).then_some(dropped)
}

/// Which unit dimensions a rank-reducing view drops, telling them apart by their strides
/// where sizes alone cannot (MLIR's `computeMemRefRankReductionMask`). `sizes` are the
/// static sizes of the slice (`DYNAMIC` for operands).
pub(crate) fn dropped_dims(
    original: (&[i64], &[i64]),
    reduced: (usize, Option<&[i64]>),
    sizes: &[i64],
) -> Option<Vec<bool>> {
    let (original_shape, original_strides) = original;
    let (reduced_rank, reduced_strides) = reduced;
    let mut dropped = vec![false; original_shape.len()];
    if original_shape.len() == reduced_rank {
        return Some(dropped);
    }
    for (d, &size) in sizes.iter().enumerate() {
        if size == 1 && d < dropped.len() {
            dropped[d] = true;
        }
    }
    let count = |d: &[bool]| d.iter().filter(|&&x| x).count();
    if count(&dropped) + reduced_rank == original_shape.len() {
        return Some(dropped);
    }
    // More unit dims than dropped ones: a dim is dropped only if its stride is missing
    // from the reduced strides as often as it occurs.
    let reduced_strides = reduced_strides?;
    let occurrences = |strides: &[i64]| {
        let mut map = BTreeMap::new();
        for &s in strides {
            *map.entry(s).or_insert(0usize) += 1;
        }
        map
    };
    let mut unaccounted = occurrences(original_strides);
    let candidate = occurrences(reduced_strides);
    for d in 0..dropped.len() {
        if !dropped[d] {
            continue;
        }
        let stride = original_strides[d];
        let have = unaccounted.get(&stride).copied().unwrap_or(0);
        let want = candidate.get(&stride).copied().unwrap_or(0);
        match have.cmp(&want) {
            std::cmp::Ordering::Greater => *unaccounted.entry(stride).or_insert(0) -= 1,
            std::cmp::Ordering::Equal => dropped[d] = false,
            std::cmp::Ordering::Less => return None,
        }
    }
    (count(&dropped) + reduced_rank == original_shape.len()).then_some(dropped)
}

/// The dimensions of the source a subview drops, as MLIR's `getDroppedDims`.
pub(crate) fn subview_dropped_dims(ctx: &Context, op: OpId) -> Option<Vec<bool>> {
    let data = ctx.op(op);
    let source = MemRef::of(ctx, ctx.value_type(data.operands[0]))?;
    let result = MemRef::of(ctx, ctx.value_type(*data.results.first()?))?;
    let [_, sizes, _] = static_lists(ctx, op)?;
    let (source_strides, _) = source.strides_and_offset(ctx)?;
    let result_strides = result.strides_and_offset(ctx).map(|(s, _)| s);
    dropped_dims(
        (&source.shape, &source_strides),
        (result.rank(), result_strides.as_deref()),
        &sizes,
    )
}

pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (source_ty, result_ty) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    let (Some(source), Some(result)) = (MemRef::of(ctx, source_ty), MemRef::of(ctx, result_ty))
    else {
        return Ok(());
    };
    let rank = source.rank();
    offsets::verify(ctx, op, [rank, rank, rank])?;
    let Some([offsets, sizes, strides]) = static_lists(ctx, op) else {
        return Ok(());
    };
    let text = |t| tb_ir::printer::type_to_string(ctx, t);
    if source.memory_space != result.memory_space {
        return error(
            ctx,
            op,
            format!(
                "different memory spaces specified for base memref type '{}' and subview memref type '{}'",
                text(source_ty),
                text(result_ty)
            ),
        );
    }
    let Some(expected) = infer(ctx, &source, &offsets, &sizes, &strides) else {
        return error(
            ctx,
            op,
            format!("base type '{}' is not strided", text(source_ty)),
        );
    };
    let mismatch = |what: &str| {
        error(
            ctx,
            op,
            format!(
                "expected result type to be '{}' or a rank-reduced version. (mismatch of result {what}), but got '{}'",
                expected.to_text(ctx),
                text(result_ty)
            ),
        )
    };
    if !expected.is(ctx, result_ty) {
        if result.rank() > expected.shape.len() {
            return error(
                ctx,
                op,
                format!(
                    "expected result rank to be smaller or equal to the source rank, but got '{}'",
                    text(result_ty)
                ),
            );
        }
        if rank_reduction_mask(&expected.shape, &result.shape).is_none() {
            return mismatch("sizes");
        }
        if expected.element != result.element {
            return error(
                ctx,
                op,
                format!(
                    "expected result element type to be '{}', but got '{}'",
                    text(expected.element),
                    text(result_ty)
                ),
            );
        }
    }
    let (expected_strides, expected_offset) = expected.strides_and_offset();
    let Some((result_strides, result_offset)) = result.strides_and_offset(ctx) else {
        return mismatch("layout");
    };
    if expected_offset != result_offset {
        return mismatch("layout");
    }
    let Some(dropped) = dropped_dims(
        (&expected.shape, &expected_strides),
        (result.rank(), Some(&result_strides)),
        &sizes,
    ) else {
        return mismatch("layout");
    };
    let kept: Vec<i64> = expected_strides
        .iter()
        .zip(&dropped)
        .filter(|(_, d)| !**d)
        .map(|(s, _)| *s)
        .collect();
    if kept != result_strides {
        return mismatch("layout");
    }
    match bounds_error(&source.shape, [&offsets, &sizes, &strides]) {
        Some(message) => error(ctx, op, message),
        None => Ok(()),
    }
}

/// Why a static slice leaves a static source dimension, if it does.
fn bounds_error(shape: &[i64], [offsets, sizes, strides]: [&[i64]; 3]) -> Option<String> {
    for (i, &dim) in shape.iter().enumerate() {
        let (offset, size, stride) = (*offsets.get(i)?, *sizes.get(i)?, *strides.get(i)?);
        if dim == DYNAMIC || offset == DYNAMIC {
            continue;
        }
        if offset >= dim {
            return Some(format!("offset {i} is out-of-bounds: {offset} >= {dim}"));
        }
        if size == DYNAMIC || stride == DYNAMIC {
            continue;
        }
        let last = offset as i128 + (size as i128 - 1) * stride as i128;
        if last >= dim as i128 {
            return Some(format!(
                "slice along dimension {i} runs out-of-bounds: {last} >= {dim}"
            ));
        }
    }
    None
}

/// Whether a static slice stays inside the static dimensions of `shape`.
pub(crate) fn slice_in_bounds(shape: &[i64], lists: &[Vec<i64>; 3]) -> bool {
    bounds_error(shape, [&lists[0], &lists[1], &lists[2]]).is_none()
}

/// The dynamic size operand behind result dimension `dim` of a subview.
pub(crate) fn dynamic_size_of_result_dim(
    ctx: &Context,
    op: OpId,
    dim: usize,
) -> Option<tb_ir::Value> {
    let dropped = subview_dropped_dims(ctx, op)?;
    let source_dim = (0..dropped.len()).filter(|&d| !dropped[d]).nth(dim)?;
    let [_, sizes, _] = static_lists(ctx, op)?;
    if sizes.get(source_dim) != Some(&DYNAMIC) {
        return None;
    }
    let index = sizes[..source_dim]
        .iter()
        .filter(|&&s| s == DYNAMIC)
        .count();
    operand_group(ctx, op, 2).get(index).copied()
}
