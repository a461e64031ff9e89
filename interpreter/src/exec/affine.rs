//! `affine` ops: maps applied to index values, loops, conditionals and accesses through
//! affine maps. `affine.parallel` runs its iterations one after another in order and
//! combines what each yields with its reductions, starting from the reduction's identity
//! (MLIR's `arith::getIdentityValue`); `affine.prefetch` does nothing. Vector accesses
//! read and write consecutive elements along the innermost dimensions, as `loop`'s do.
//! A DMA completes when it starts: `affine.dma_start` copies its elements at once (and
//! leaves the tag alone, whose contents MLIR does not define), `affine.dma_wait` does
//! nothing.

use tb_dialects::affine::{self, AffineOp, DYNAMIC_BASIS, REDUCTION_KINDS};
use tb_ir::affine::AffineMap;
use tb_ir::{OpId, Value};

use super::value::{ElemType, RtValue, Scalar, unsigned};
use super::{Env, ExecError, ExecResult, Handler, Interpreter};

/// The handler of each `affine` op; `affine.yield` is run by the op that holds it.
pub(super) fn handler(kind: AffineOp) -> Option<Handler> {
    Some(match kind {
        AffineOp::Apply | AffineOp::Min | AffineOp::Max => map_op,
        AffineOp::For => run_for,
        AffineOp::If => run_if,
        AffineOp::Load => load,
        AffineOp::Store => store,
        AffineOp::Parallel => run_parallel,
        AffineOp::Prefetch => |_, _, _| Ok(()),
        AffineOp::VectorLoad => super::loop_::vector_load,
        AffineOp::VectorStore => super::loop_::vector_store,
        AffineOp::DmaStart => dma_start,
        AffineOp::DmaWait => |_, _, _| Ok(()),
        AffineOp::DelinearizeIndex => delinearize,
        AffineOp::LinearizeIndex => linearize,
        AffineOp::Yield => return None,
    })
}

fn index_values(env: &Env, values: &[Value]) -> ExecResult<Vec<i64>> {
    values
        .iter()
        .map(|v| match env.get(v) {
            Some(RtValue::Scalar(s)) => Ok(s.as_int()),
            _ => Err(ExecError::from("an affine map operand has no index value")),
        })
        .collect()
}

fn apply(map: &AffineMap, operands: &[i64]) -> ExecResult<Vec<i64>> {
    let nd = map.num_dims as usize;
    if operands.len() != map.num_inputs() as usize {
        return Err(format!(
            "map {map} takes {} operands, {} given",
            map.num_inputs(),
            operands.len()
        )
        .into());
    }
    map.evaluate(&operands[..nd], &operands[nd..])
        .ok_or_else(|| format!("map {map} cannot be evaluated at {operands:?}").into())
}

fn map_op(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let map = affine::access_map(ctx, op).ok_or("has no map")?;
    let results = apply(&map, &index_values(env, &ctx.op(op).operands)?)?;
    let value = match ctx.op_name(op) {
        affine::MIN => results.iter().min(),
        affine::MAX => results.iter().max(),
        _ => results.first(),
    }
    .copied()
    .ok_or("has a map without results")?;
    interp.set_result(env, op, 0, RtValue::Scalar(Scalar::Int(value)))
}

/// The max of a lower bound map's results, or the min of an upper bound map's.
fn bound(ctx: &tb_ir::Context, env: &Env, op: OpId, lower: bool) -> ExecResult<i64> {
    let (name, operands) = if lower {
        ("lowerBoundMap", affine::lower_operands(ctx, op))
    } else {
        ("upperBoundMap", affine::upper_operands(ctx, op))
    };
    let map = affine::map_named(ctx, op, name).ok_or("has no bound map")?;
    let results = apply(&map, &index_values(env, operands)?)?;
    let pick = if lower {
        results.iter().max()
    } else {
        results.iter().min()
    };
    pick.copied()
        .ok_or_else(|| "a bound map has no results".into())
}

fn values_of(env: &Env, values: &[Value]) -> ExecResult<Vec<RtValue>> {
    values
        .iter()
        .map(|v| {
            env.get(v)
                .cloned()
                .ok_or_else(|| ExecError::from("an operand has not been computed"))
        })
        .collect()
}

fn set_results(interp: &Interpreter, env: &mut Env, op: OpId, values: Vec<RtValue>) -> ExecResult {
    if values.len() != interp.ctx.op(op).results.len() {
        return Err(format!(
            "gives {} values for {} results",
            values.len(),
            interp.ctx.op(op).results.len()
        )
        .into());
    }
    for (i, value) in values.into_iter().enumerate() {
        interp.set_result(env, op, i, value)?;
    }
    Ok(())
}

fn run_for(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let body = affine::region_block(ctx, op, 0).ok_or("has no body")?;
    let step = affine::step(ctx, op).ok_or("has no step")?;
    if step <= 0 {
        return Err(format!("has non-positive step {step}").into());
    }
    let lo = bound(ctx, env, op, true)?;
    let hi = bound(ctx, env, op, false)?;
    let mut carried = values_of(env, affine::inits(ctx, op))?;
    let mut iv = lo;
    while iv < hi {
        let mut args = vec![RtValue::Scalar(Scalar::Int(iv))];
        args.append(&mut carried);
        carried = interp
            .run_nested_block(env, body, args)
            .map_err(|d| ExecError::Located(Box::new(d)))?;
        iv = match iv.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
    set_results(interp, env, op, carried)
}

fn run_if(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let set = affine::condition(ctx, op).ok_or("has no condition")?;
    let operands = index_values(env, &ctx.op(op).operands)?;
    let nd = set.num_dims as usize;
    let holds = set
        .contains(
            &operands[..nd.min(operands.len())],
            &operands[nd.min(operands.len())..],
        )
        .ok_or("condition cannot be evaluated")?;
    let region = if holds { 0 } else { 1 };
    let values = match affine::region_block(ctx, op, region) {
        Some(block) => interp
            .run_nested_block(env, block, Vec::new())
            .map_err(|d| ExecError::Located(Box::new(d)))?,
        None => Vec::new(),
    };
    set_results(interp, env, op, values)
}

/// The buffer indices of an access: its map applied to the operands from `first`.
fn access_indices(interp: &Interpreter, env: &Env, op: OpId, first: usize) -> ExecResult<Vec<i64>> {
    let map = affine::access_map(interp.ctx, op).ok_or("has no map")?;
    apply(
        &map,
        &index_values(env, &interp.ctx.op(op).operands[first..])?,
    )
}

fn load(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    let indices = access_indices(interp, env, op, 1)?;
    let v = buffer.load(&indices)?;
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

fn store(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let value = interp.scalar_arg(env, op, 0)?;
    let buffer = interp.buffer_arg(env, op, 1)?;
    let indices = access_indices(interp, env, op, 2)?;
    Ok(buffer.store(&indices, value)?)
}

/// The position of `indices` in the row-major order of `shape`'s elements.
fn linear_position(indices: &[i64], shape: &[i64]) -> i64 {
    indices.iter().zip(shape).fold(0i64, |acc, (&i, &extent)| {
        acc.wrapping_mul(extent).wrapping_add(i)
    })
}

/// The indices of row-major position `linear` in `shape`.
fn indices_at(mut linear: i64, shape: &[i64]) -> Vec<i64> {
    let mut indices = vec![0; shape.len()];
    for k in (1..shape.len()).rev() {
        indices[k] = linear % shape[k];
        linear /= shape[k];
    }
    if let Some(first) = indices.first_mut() {
        *first = linear;
    }
    indices
}

/// `affine.dma_start`: `num_elements` elements, consecutive in the row-major order of each
/// memref, copied from the source position to the destination position. MLIR leaves the
/// layout of a strided transfer to the target, so a strided one is refused.
fn dma_start(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let parts = affine::dma_start_parts(ctx, op).ok_or("has malformed operands")?;
    if parts.stride.is_some() {
        return Err("is strided: the interpreter runs only contiguous DMA transfers".into());
    }
    let src = interp.buffer_arg(env, op, 0)?;
    let dst = match env.get(&parts.dst.memref) {
        Some(RtValue::Buffer(b)) => b.clone(),
        _ => return Err("has a destination that is not a buffer".into()),
    };
    if src.dtype() != dst.dtype() {
        return Err("copies between memrefs of different element types".into());
    }
    let src_at = apply(&parts.src.map, &index_values(env, &parts.src.indices)?)?;
    let dst_at = apply(&parts.dst.map, &index_values(env, &parts.dst.indices)?)?;
    // The tag position is evaluated so that an invalid one is reported.
    apply(&parts.tag.map, &index_values(env, &parts.tag.indices)?)?;
    let count = index_values(env, &[parts.num_elements])?[0];
    if count < 0 {
        return Err(format!("copies a negative number of elements ({count})").into());
    }
    if count == 0 {
        return Ok(());
    }
    let mut starts = Vec::with_capacity(2);
    for (buffer, at, what) in [(&src, &src_at, "source"), (&dst, &dst_at, "destination")] {
        buffer.position(at)?;
        let start = linear_position(at, &buffer.shape);
        let size: i64 = buffer.shape.iter().product();
        if start.checked_add(count).is_none_or(|end| end > size) {
            return Err(format!(
                "copies {count} elements from position {at:?}, past the end of the {what} \
                 (shape {:?})",
                buffer.shape
            )
            .into());
        }
        starts.push(start);
    }
    let (src_start, dst_start) = (starts[0], starts[1]);
    // Read everything first: overlapping transfers are undefined in MLIR, and this keeps
    // them deterministic.
    let values = (0..count)
        .map(|k| src.load(&indices_at(src_start + k, &src.shape)))
        .collect::<Result<Vec<_>, String>>()?;
    for (k, value) in (0..count).zip(values) {
        dst.store(&indices_at(dst_start + k, &dst.shape), value)?;
    }
    Ok(())
}

/// The value a reduction starts from.
fn identity(kind: &str, elem: ElemType) -> Scalar {
    let width = elem.width();
    match kind {
        "addf" => Scalar::Float(0.0),
        "mulf" => Scalar::Float(1.0),
        "maximumf" | "maxnumf" => Scalar::Float(f64::NEG_INFINITY),
        "minimumf" | "minnumf" => Scalar::Float(f64::INFINITY),
        "muli" => Scalar::Int(1),
        "andi" | "minu" => Scalar::Int(-1),
        "maxs" => Scalar::Int(if width >= 64 {
            i64::MIN
        } else {
            -(1i64 << (width - 1))
        }),
        "mins" => Scalar::Int(if width >= 64 {
            i64::MAX
        } else {
            (1i64 << (width - 1)) - 1
        }),
        _ => Scalar::Int(0),
    }
}

/// `acc` combined with `x` by the reduction `kind`, in the type `elem`.
fn combine(kind: &str, elem: ElemType, acc: Scalar, x: Scalar) -> Scalar {
    let (a, b) = (acc.as_float(), x.as_float());
    let (i, j) = (acc.as_int(), x.as_int());
    let width = elem.width();
    let result = match kind {
        "addf" => Scalar::Float(a + b),
        "mulf" => Scalar::Float(a * b),
        "maximumf" if a.is_nan() || b.is_nan() => Scalar::Float(f64::NAN),
        "minimumf" if a.is_nan() || b.is_nan() => Scalar::Float(f64::NAN),
        "maximumf" | "maxnumf" => Scalar::Float(a.max(b)),
        "minimumf" | "minnumf" => Scalar::Float(a.min(b)),
        "addi" => Scalar::Int(i.wrapping_add(j)),
        "muli" => Scalar::Int(i.wrapping_mul(j)),
        "maxs" => Scalar::Int(i.max(j)),
        "mins" => Scalar::Int(i.min(j)),
        "maxu" => Scalar::Int(if unsigned(i, width) >= unsigned(j, width) {
            i
        } else {
            j
        }),
        "minu" => Scalar::Int(if unsigned(i, width) <= unsigned(j, width) {
            i
        } else {
            j
        }),
        "andi" => Scalar::Int(i & j),
        "ori" => Scalar::Int(i | j),
        "xori" => Scalar::Int(i ^ j),
        _ => x,
    };
    elem.normalize(result)
}

fn run_parallel(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let body = affine::region_block(ctx, op, 0).ok_or("has no body")?;
    let (lower, upper) = affine::parallel_bounds(ctx, op).ok_or("has malformed bounds")?;
    let operands = index_values(env, &ctx.op(op).operands)?;
    let split = (lower.map.num_inputs() as usize).min(operands.len());
    let lows = apply(&lower.map, &operands[..split])?;
    let highs = apply(&upper.map, &operands[split..])?;
    let group_values = |values: &[i64], groups: &[usize], max: bool| -> ExecResult<Vec<i64>> {
        let mut rest = values;
        let mut out = Vec::new();
        for &g in groups {
            if g == 0 || rest.len() < g {
                return Err("has malformed bound groups".into());
            }
            let (group, tail) = rest.split_at(g);
            out.push(if max {
                *group.iter().max().unwrap_or(&0)
            } else {
                *group.iter().min().unwrap_or(&0)
            });
            rest = tail;
        }
        Ok(out)
    };
    let lo = group_values(&lows, &lower.groups, true)?;
    let hi = group_values(&highs, &upper.groups, false)?;
    let steps = ctx
        .op_inherent_or_attr(op, "steps")
        .and_then(|a| affine::int_array(ctx, a))
        .ok_or("has no steps")?;
    if steps.len() != lo.len() || hi.len() != lo.len() || steps.iter().any(|&s| s <= 0) {
        return Err("has malformed steps".into());
    }
    let kinds: Vec<&str> = ctx
        .op_inherent_or_attr(op, "reductions")
        .and_then(|a| affine::int_array(ctx, a))
        .unwrap_or_default()
        .iter()
        .map(|&k| {
            usize::try_from(k)
                .ok()
                .and_then(|k| REDUCTION_KINDS.get(k))
                .copied()
        })
        .collect::<Option<Vec<_>>>()
        .ok_or("has an unknown reduction")?;
    let elems = (0..ctx.op(op).results.len())
        .map(|i| interp.result_elem(op, i))
        .collect::<ExecResult<Vec<_>>>()?;
    let mut acc: Vec<Scalar> = kinds
        .iter()
        .zip(&elems)
        .map(|(k, &e)| identity(k, e))
        .collect();
    let mut ivs = lo.clone();
    let mut running = lo.iter().zip(&hi).all(|(l, h)| l < h);
    while running {
        let args = ivs
            .iter()
            .map(|&i| RtValue::Scalar(Scalar::Int(i)))
            .collect();
        let yielded = interp
            .run_nested_block(env, body, args)
            .map_err(|d| ExecError::Located(Box::new(d)))?;
        if yielded.len() != acc.len() {
            return Err("yields a different number of values than it reduces".into());
        }
        for (k, value) in yielded.into_iter().enumerate() {
            let RtValue::Scalar(x) = value else {
                return Err("reduces a non-scalar value".into());
            };
            acc[k] = combine(kinds[k], elems[k], acc[k], x);
        }
        running = false;
        for d in (0..ivs.len()).rev() {
            ivs[d] += steps[d];
            if ivs[d] < hi[d] {
                running = true;
                break;
            }
            ivs[d] = lo[d];
        }
    }
    set_results(
        interp,
        env,
        op,
        acc.into_iter().map(RtValue::Scalar).collect(),
    )
}

/// The basis of a (de)linearization, with its dynamic entries' values.
fn basis(interp: &Interpreter, env: &Env, op: OpId, dynamic: &[Value]) -> ExecResult<Vec<i64>> {
    let statics = affine::static_basis(interp.ctx, op).ok_or("has no static_basis")?;
    let mut dynamic = index_values(env, dynamic)?.into_iter();
    statics
        .into_iter()
        .map(|b| {
            if b == DYNAMIC_BASIS {
                dynamic
                    .next()
                    .ok_or_else(|| "has too few dynamic basis values".into())
            } else {
                Ok(b)
            }
        })
        .collect()
}

fn delinearize(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let operands = interp.ctx.op(op).operands.to_vec();
    let mut linear = interp.index_arg(env, op, 0)?;
    let basis = basis(interp, env, op, &operands[1..])?;
    let results = interp.ctx.op(op).results.len();
    // With as many results as basis elements, the first element only bounds the first
    // result; with one more result, every element divides and the first result is the rest.
    let strides = if results == basis.len() {
        basis.get(1..).unwrap_or_default()
    } else {
        &basis[..]
    };
    if strides.len() + 1 != results {
        return Err("has a result count that does not fit its basis".into());
    }
    let mut out = vec![0i64; results];
    for (k, &b) in strides.iter().enumerate().rev() {
        if b <= 0 {
            return Err(format!("has non-positive basis element {b}").into());
        }
        out[k + 1] = linear.rem_euclid(b);
        linear = linear.div_euclid(b);
    }
    out[0] = linear;
    for (i, v) in out.into_iter().enumerate() {
        interp.set_result(env, op, i, RtValue::Scalar(Scalar::Int(v)))?;
    }
    Ok(())
}

fn linearize(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let indices = index_values(env, tb_ir::ods::operand_group(ctx, op, 0))?;
    let dynamic = tb_ir::ods::operand_group(ctx, op, 1).to_vec();
    let basis = basis(interp, env, op, &dynamic)?;
    // Index k > 0 is scaled by the basis element of its own dimension (the first element
    // may be left out, as it only bounds the first index).
    let Some(offset) = indices.len().checked_sub(basis.len()).filter(|&o| o <= 1) else {
        return Err("has an index count that does not fit its basis".into());
    };
    let mut linear = indices.first().copied().unwrap_or(0);
    for (k, &i) in indices.iter().enumerate().skip(1) {
        linear = linear.wrapping_mul(basis[k - offset]).wrapping_add(i);
    }
    interp.set_result(env, op, 0, RtValue::Scalar(Scalar::Int(linear)))
}
