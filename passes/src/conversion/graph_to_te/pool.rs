//! Pooling. MaxPool is a max reduction over the window, reading `-inf` (the type's
//! lowest integer) outside the input and skipping NaNs; its optional Indices result is a min reduction of
//! the flat input positions that hold the maximum. AveragePool sums with zero padding and
//! divides by the number of positions that count (`count_include_pad`: explicit padding
//! counts, what ceil mode adds past it never does). Global pools reduce the spatial dims.

use tb_dialects::graph::pool_attrs;
use tb_dialects::graph::shape::{self, WindowGeometry};
use tb_ir::affine::AffineExpr;
use tb_ir::{Type, TypeKind, Value};

use super::LowerFn;
use super::builder::{
    Body, CONSTANT_BUDGET, Cmp, Combiner, LowerResult, Lowering, Reduction, checked_mul,
    element_count, identity_exprs, is_float_type, no_lowering,
};
use super::conv::window_leaves_input;
use super::matmul::narrow;
use tb_dialects::graph::GraphOp;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::MaxPool => max_pool,
        GraphOp::AveragePool => average_pool,
        GraphOp::GlobalAveragePool => global_average_pool,
        GraphOp::GlobalMaxPool => global_max_pool,
        _ => return None,
    })
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::dim(d as u32)
}

/// The input position `o * stride + k * dilation - pad` of each spatial dimension, over
/// the domain `n, c, o_0.. | k_0..`.
fn window_exprs(g: &WindowGeometry) -> Vec<AffineExpr> {
    let ns = g.kernel.len();
    let mut exprs = vec![dim(0), dim(1)];
    for i in 0..ns {
        let (o, k) = (dim(2 + i), dim(2 + ns + i));
        exprs.push(o * g.strides[i] + k * g.dilations[i] - g.pads_begin[i]);
    }
    exprs
}

/// The smallest value of `element` (the max reduction's padding).
fn lowest(ctx: &tb_ir::Context, element: Type) -> f64 {
    match ctx.type_kind(element) {
        TypeKind::Integer { width, signedness } => {
            if *signedness == tb_ir::Signedness::Unsigned {
                0.0
            } else {
                -(2f64.powi(*width as i32 - 1))
            }
        }
        _ => f64::NEG_INFINITY,
    }
}

fn max_pool(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let attrs = pool_attrs(&a)?;
    let storage_order = a.i64("storage_order")?;
    let x = l.operand(0);
    let xs = l.shape(x);
    let g = shape::pool_geometry("MaxPool", &xs, &attrs).map_err(|e| e.message)?;
    let element = l.element(x);
    let padding = lowest(l.ctx, element);
    let exprs = window_exprs(&g);
    let padded = window_leaves_input(&g).then_some(padding);
    let float = is_float_type(l.ctx, element);
    // Max does not round: it reduces in the element type itself.
    let y = l.compute(
        &g.output,
        element,
        Some(Reduction {
            extents: &g.kernel,
            combiner: Combiner::Max,
        }),
        |b| {
            let v = read_window(b, x, exprs.clone(), padded);
            Ok(if float { skip_nan(b, v) } else { v })
        },
    )?;
    let mut results = vec![y];
    if l.num_results() > 1 {
        results.push(max_pool_indices(
            l,
            x,
            y,
            &g,
            storage_order,
            &exprs,
            padded,
        )?);
    }
    Ok(results)
}

/// MaxPool's Indices: the first flat input position (row-major, or column-major within
/// each plane for `storage_order = 1`) of each window that holds the maximum, NaNs counting
/// as `-inf` (so a window of NaNs only gives its first position, as in onnxruntime), or -1
/// for a window wholly in the padding, as the kernel gives.
fn max_pool_indices(
    l: &mut Lowering,
    x: Value,
    y: Value,
    g: &WindowGeometry,
    storage_order: i64,
    exprs: &[AffineExpr],
    padded: Option<f64>,
) -> LowerResult<Value> {
    let xs = l.shape(x);
    let ns = g.kernel.len();
    // Flat positions are i64: every product below is at most the input's element count.
    element_count(&xs)?;
    let plane = element_count(&g.input_spatial)?;
    // The reduction finds the least row-major position, the window's first hit as the
    // kernel and onnxruntime scan it; column-major comes after (below), since the least
    // column-major position of a tie is another element.
    let mut flat = (dim(0) * xs[1] + dim(1)) * plane;
    let mut stride = 1;
    for i in (0..ns).rev() {
        flat = flat + exprs[2 + i].clone() * stride;
        stride *= g.input_spatial[i];
    }
    let i64_ty = l.ctx.i64();
    let rank = g.output.len();
    let float = is_float_type(l.ctx, l.element(x));
    let indices = l.compute(
        &g.output,
        i64_ty,
        Some(Reduction {
            extents: &g.kernel,
            combiner: Combiner::Min,
        }),
        |b| {
            let v = read_window(b, x, exprs.to_vec(), padded);
            let v = if float { skip_nan(b, v) } else { v };
            let max = b.read(y, identity_exprs(rank));
            let mut hit = b.cmp(Cmp::Eq, v, max);
            // Padding never counts, even where it equals the maximum.
            let spatial = if padded.is_some() { &exprs[2..] } else { &[] };
            for (i, e) in spatial.iter().enumerate() {
                let at = b.apply(e);
                let zero = b.index_constant(0);
                let end = b.index_constant(g.input_spatial[i]);
                let after_start = b.cmp(Cmp::Ge, at, zero);
                let before_end = b.cmp(Cmp::Lt, at, end);
                hit = b.and(hit, after_start);
                hit = b.and(hit, before_end);
            }
            let position = b.apply(&flat);
            let position = b.index_cast(position, i64_ty);
            let none = b.constant(i64::MAX as f64, i64_ty);
            Ok(b.select(hit, position, none))
        },
    )?;
    let padding_windows = padded.is_some() && some_window_in_padding(g);
    let column_major = storage_order == 1 && plane > 0;
    if !padding_windows && !column_major {
        return Ok(indices);
    }
    let sizes = g.input_spatial.clone();
    l.map(&g.output, i64_ty, &[indices], |b, v| {
        let mut c = |n: i64| b.constant(n as f64, i64_ty);
        let (none, minus_one) = (c(i64::MAX), c(-1));
        let mut index = v[0];
        if column_major {
            let plane_size = b.constant(plane as f64, i64_ty);
            let planes = b.div(index, plane_size);
            let mut row_major = b.rem(index, plane_size);
            index = b.mul(planes, plane_size);
            let mut col_stride = 1;
            let col_strides: Vec<i64> = sizes
                .iter()
                .map(|&d| {
                    let s = col_stride;
                    col_stride *= d;
                    s
                })
                .collect();
            for i in (0..ns).rev() {
                let size = b.constant(sizes[i] as f64, i64_ty);
                let coordinate = b.rem(row_major, size);
                row_major = b.div(row_major, size);
                let stride = b.constant(col_strides[i] as f64, i64_ty);
                let term = b.mul(coordinate, stride);
                index = b.add(index, term);
            }
        }
        // Where no position counted, the min reduction left its identity.
        let missing = b.cmp(Cmp::Eq, v[0], none);
        Ok(b.select(missing, minus_one, index))
    })
}

/// Whether some window of `g` holds no input position (pads as large as the dilated
/// kernel allow it).
fn some_window_in_padding(g: &WindowGeometry) -> bool {
    !g.output.contains(&0)
        && (0..g.kernel.len()).any(|i| {
            let span = WindowSpan::new(g, i, false);
            (0..g.output_spatial[i]).any(|o| span.count(o) == 0)
        })
}

/// `v`, or `-inf` where it is NaN: MaxPool skips NaNs, as the kernel and onnxruntime do
/// (a window of NaNs only gives `-inf`).
fn skip_nan(b: &mut Body, v: Value) -> Value {
    let nan = b.math_predicate("math.isnan", v);
    let lowest = b.constant_like(f64::NEG_INFINITY, v);
    b.select(nan, lowest, v)
}

/// A read of the window at `exprs`, padded with `padding` where it may leave the input.
fn read_window(b: &mut Body, x: Value, exprs: Vec<AffineExpr>, padding: Option<f64>) -> Value {
    match padding {
        Some(p) => b.read_padded(x, exprs, p),
        None => b.read(x, exprs),
    }
}

/// Which kernel positions count along one spatial dim: those whose input position
/// `o * stride + k * dilation - pad` lies in `[lo, hi)`.
struct WindowSpan {
    lo: i128,
    hi: i128,
    stride: i128,
    dilation: i128,
    pad: i128,
    kernel: i128,
}

impl WindowSpan {
    fn new(g: &WindowGeometry, i: usize, include_pad: bool) -> WindowSpan {
        let (lo, hi) = if include_pad {
            (
                -(g.pads_begin[i] as i128),
                g.input_spatial[i] as i128 + g.pads_end[i] as i128,
            )
        } else {
            (0, g.input_spatial[i] as i128)
        };
        WindowSpan {
            lo,
            hi,
            stride: g.strides[i] as i128,
            dilation: g.dilations[i].max(1) as i128,
            pad: g.pads_begin[i] as i128,
            kernel: g.kernel[i] as i128,
        }
    }

    /// How many kernel positions of output position `o` count, in closed form (no loop
    /// over the window, no overflow: i128 over i64 attributes).
    fn count(&self, o: i64) -> i64 {
        let base = o as i128 * self.stride - self.pad;
        let first = (self.lo - base).div_euclid(self.dilation)
            + i128::from((self.lo - base).rem_euclid(self.dilation) != 0);
        let last = (self.hi - 1 - base).div_euclid(self.dilation);
        let (first, last) = (first.max(0), last.min(self.kernel - 1));
        (last - first + 1).clamp(0, i64::MAX as i128) as i64
    }

    /// Whether every window of `outputs` positions lies wholly inside `[lo, hi)`: the
    /// windows move one way, so the first and the last decide.
    fn all_inside(&self, outputs: i64) -> bool {
        outputs == 0
            || (self.count(0) == self.kernel as i64
                && self.count(outputs - 1) == self.kernel as i64)
    }

    /// The count at the output index `o` (an index value of the body), as an index.
    fn count_in_body(&self, b: &mut Body, o: AffineExpr) -> LowerResult<Value> {
        let constant = |v: i128| {
            i64::try_from(v)
                .map(AffineExpr::constant)
                .map_err(|_| no_lowering("a pooling window beyond i64"))
        };
        let (stride, dilation) = (self.stride as i64, self.dilation as i64);
        // first = max(0, ceil((lo + pad - o * stride) / dilation)),
        // last = min(kernel - 1, floor((hi - 1 + pad - o * stride) / dilation)).
        let first = (constant(self.lo + self.pad)? - o.clone() * stride).ceil_div(dilation);
        let last = (constant(self.hi - 1 + self.pad)? - o * stride).floor_div(dilation);
        let (first, last) = (b.apply(&first), b.apply(&last));
        let zero = b.index_constant(0);
        let one = b.index_constant(1);
        let top = b.index_constant(self.kernel as i64 - 1);
        let first = b.max(first, zero);
        let last = b.min(last, top);
        let span = b.sub(last, first);
        let span = b.add(span, one);
        Ok(b.max(span, zero))
    }
}

/// How a spatial dim whose windows do not all count the same divides the average: by a
/// table read at the output index, or by the count computed from it (beyond
/// [`CONSTANT_BUDGET`] entries).
enum DimCount {
    Table(Value),
    Formula(WindowSpan),
}

fn average_pool(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let attrs = pool_attrs(&a)?;
    let include_pad = a.bool("count_include_pad")?;
    let x = l.operand(0);
    let xs = l.shape(x);
    let g = shape::pool_geometry("AveragePool", &xs, &attrs).map_err(|e| e.message)?;
    let element = l.element(x);
    if !is_float_type(l.ctx, element) {
        return Err(no_lowering("AveragePool on integers"));
    }
    let acc = l.compute_type(element);
    let exprs = window_exprs(&g);
    let padded = window_leaves_input(&g).then_some(0.0);
    let sum = l.compute(
        &g.output,
        acc,
        Some(Reduction {
            extents: &g.kernel,
            combiner: Combiner::Sum,
        }),
        |b| {
            let v = read_window(b, x, exprs, padded);
            Ok(b.widen(v))
        },
    )?;
    // The divisor is a product of per-dimension counts: a constant where every output
    // position has the same count, else a small constant vector read at `o`, or for a
    // long dimension the count computed from `o`.
    let mut uniform = 1i64;
    let mut varying = Vec::new();
    for i in 0..g.kernel.len() {
        let span = WindowSpan::new(&g, i, include_pad);
        let outputs = g.output_spatial[i];
        if span.all_inside(outputs) {
            uniform = checked_mul(uniform, g.kernel[i], "the AveragePool window size")?;
            continue;
        }
        if outputs > CONSTANT_BUDGET {
            varying.push((i, DimCount::Formula(span)));
            continue;
        }
        let counts: Vec<i64> = (0..outputs).map(|o| span.count(o)).collect();
        match counts.first() {
            Some(&c) if counts.iter().all(|&x| x == c) => {
                uniform = checked_mul(uniform, c, "the AveragePool window size")?;
            }
            _ => {
                let values: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
                let table = l.dense(&[counts.len() as i64], acc, &values);
                varying.push((i, DimCount::Table(table)));
            }
        }
    }
    let rank = g.output.len();
    let y = l.compute(&g.output, element, None, |b| {
        let s = b.read(sum, identity_exprs(rank));
        let mut count =
            (uniform != 1 || varying.is_empty()).then(|| b.constant_like(uniform as f64, s));
        for (i, per_dim) in &varying {
            let c = match per_dim {
                DimCount::Table(table) => b.read(*table, vec![dim(2 + i)]),
                DimCount::Formula(span) => {
                    let n = span.count_in_body(b, dim(2 + i))?;
                    let i64_ty = b.ctx.i64();
                    let n = b.index_cast(n, i64_ty);
                    let acc_ty = b.ty(s);
                    b.cast(n, acc_ty)
                }
            };
            count = Some(match count {
                Some(n) => b.mul(n, c),
                None => c,
            });
        }
        let count = count.expect("a constant or a table");
        Ok(b.div(s, count))
    })?;
    Ok(vec![y])
}

/// A reduction of every spatial dim of `[N, C, D...]` into `[N, C, 1...]`.
fn global_reduce(l: &mut Lowering, combiner: Combiner) -> LowerResult<(Value, i64)> {
    let x = l.operand(0);
    let xs = l.shape(x);
    let out = l.result_shape(0);
    let element = l.element(x);
    let spatial = xs[2..].to_vec();
    let count = element_count(&spatial)?;
    let ty = if combiner == Combiner::Sum {
        l.compute_type(element)
    } else {
        element
    };
    if spatial.contains(&0) {
        let empty = if combiner == Combiner::Sum {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        return Ok((l.splat(&out, ty, empty), count));
    }
    let rank = out.len();
    let mut exprs = vec![dim(0), dim(1)];
    exprs.extend((0..spatial.len()).map(|i| dim(rank + i)));
    let r = l.compute(
        &out,
        ty,
        Some(Reduction {
            extents: &spatial,
            combiner,
        }),
        |b| {
            let v = b.read(x, exprs);
            Ok(if combiner == Combiner::Sum {
                b.widen(v)
            } else {
                v
            })
        },
    )?;
    Ok((r, count))
}

fn global_average_pool(l: &mut Lowering) -> LowerResult {
    let (sum, count) = global_reduce(l, Combiner::Sum)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let rank = out.len();
    let y = l.compute(&out, element, None, |b| {
        let s = b.read(sum, identity_exprs(rank));
        let n = b.constant_like(count as f64, s);
        Ok(b.div(s, n))
    })?;
    Ok(vec![y])
}

fn global_max_pool(l: &mut Lowering) -> LowerResult {
    let (max, _) = global_reduce(l, Combiner::Max)?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    Ok(vec![narrow(l, max, &out, element)?])
}
