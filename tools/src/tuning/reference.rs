//! The interpreter's reference results of a task, on a sample when the task is large.
//!
//! The interpreter walks the IR (a few microseconds per innermost iteration), so the full
//! reference of a large kernel takes minutes: a ResNet-18 stage-1 convolution at 224x224
//! has 10^8 multiply-adds. Above [`SAMPLE_BUDGET`] innermost iterations, the reference
//! runs on a copy of the task whose top-level `loop.parallel` iterates over two corners of
//! its range only: a window at the start and a window at the end of every dimension (the
//! first full tiles, and the partial tiles a candidate leaves at the end). Iterations of a
//! parallel loop are independent, so the elements they write are exactly those of the full
//! run; the rest keep the interpreter's poison (NaN) and are not compared
//! ([`first_mismatch`] with `sampled`). Kernels with non-float results are always run in
//! full (their poison is not NaN).

use std::collections::HashMap;

use tb_dialects::loop_;
use tb_interpreter::Tensor;
use tb_ir::{Context, OpId};
use tb_tune::task::task_nest;

/// The file of a prepared task directory that says its reference is sampled.
pub const SAMPLED_MARK: &str = "sampled";

/// Innermost iterations the interpreter runs at most for a sampled reference (about a
/// second on this project's machine).
pub const SAMPLE_BUDGET: i64 = 1 << 19;

/// Iterations of the loops nested in `op` (siblings multiplied too: an upper bound).
fn inner_iterations(ctx: &Context, op: OpId) -> i64 {
    let mut product: i64 = 1;
    ctx.walk_nested(op, &mut |inner| {
        if inner != op
            && loop_::is_loop(ctx, inner)
            && let Some(dims) = loop_::loop_dims(ctx, inner)
        {
            for d in dims {
                product = product.saturating_mul(d.constant_trip_count().unwrap_or(1).max(1));
            }
        }
    });
    product
}

/// Rewrites the task `module` so that its nest runs on a sample of its iterations, when
/// the whole nest is over `budget` innermost iterations and is a `loop.parallel` with
/// constant bounds. Returns whether it did.
pub fn sample_iterations(ctx: &mut Context, module: OpId, budget: i64) -> bool {
    let Some(nest) = task_nest(ctx, module) else {
        return false;
    };
    if ctx.op_name(nest) != loop_::PARALLEL {
        return false;
    }
    let Some(dims) = loop_::loop_dims(ctx, nest) else {
        return false;
    };
    let mut bounds = Vec::new();
    for d in &dims {
        match (
            d.lower.constant(),
            d.upper.constant(),
            d.constant_trip_count(),
        ) {
            (Some(lo), Some(hi), Some(trips)) if trips > 0 => bounds.push((lo, hi, d.step, trips)),
            _ => return false,
        }
    }
    let inner = inner_iterations(ctx, nest);
    let total = bounds.iter().fold(inner, |n, b| n.saturating_mul(b.3));
    if total <= budget {
        return false;
    }
    // Halve the widest window until both corners fit the budget.
    let mut windows: Vec<i64> = bounds.iter().map(|b| b.3).collect();
    let work = |w: &[i64]| {
        w.iter()
            .fold(inner.saturating_mul(2), |n, &x| n.saturating_mul(x))
    };
    while work(&windows) > budget {
        let (widest, &size) = windows
            .iter()
            .enumerate()
            .max_by_key(|(_, w)| **w)
            .expect("a parallel loop has dimensions");
        if size <= 1 {
            break;
        }
        windows[widest] = (size + 1) / 2;
    }
    let start: Vec<(i64, i64)> = bounds
        .iter()
        .zip(&windows)
        .map(|(&(lo, _, step, _), &w)| (lo, lo + w * step))
        .collect();
    let end: Vec<(i64, i64)> = bounds
        .iter()
        .zip(&windows)
        .map(|(&(lo, hi, step, trips), &w)| (lo + (trips - w) * step, hi))
        .collect();
    let copy = ctx.clone_op(nest, &mut HashMap::new());
    ctx.insert_op_before(nest, copy);
    set_bounds(ctx, copy, &start);
    set_bounds(ctx, nest, &end);
    true
}

/// Gives the `loop.parallel` `op` the constant bounds `[lower, upper)` of each dimension.
fn set_bounds(ctx: &mut Context, op: OpId, ranges: &[(i64, i64)]) {
    let (lower, upper): (Vec<i64>, Vec<i64>) = ranges.iter().copied().unzip();
    tb_passes::schedule::set_parallel_bounds(ctx, op, &lower, &upper);
}

/// The first element of `actual` out of tolerance (`atol + rtol * |expected|`; NaN
/// matches NaN): `(flat index, actual, expected)`. With `sampled`, an element the
/// reference left unwritten (NaN) is not compared. An error when shapes or types differ.
pub fn first_mismatch(
    actual: &Tensor,
    expected: &Tensor,
    sampled: bool,
    rtol: f64,
    atol: f64,
) -> Result<Option<(usize, f64, f64)>, String> {
    if actual.shape() != expected.shape() || actual.dtype() != expected.dtype() {
        return Err(format!(
            "is {} {:?}, the interpreter's is {} {:?}",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
    }
    let pairs = actual.to_f64_vec().into_iter().zip(expected.to_f64_vec());
    for (i, (a, e)) in pairs.enumerate() {
        if e.is_nan() && (sampled || a.is_nan()) {
            continue;
        }
        let within = a == e || (a - e).abs() <= atol + rtol * e.abs();
        if !within {
            return Ok(Some((i, a, e)));
        }
    }
    Ok(None)
}
