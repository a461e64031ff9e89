//! `loop` ops: buffers, affine loop nests and (vector) accesses. Parallel loops run their
//! iterations one after another in order; schedule annotations (unroll, vectorize) do not
//! change what a loop computes, so the interpreter ignores them. A `loop.for`'s iter_args
//! start as its inits, take what each iteration yields, and end as its results.

use tb_dialects::loop_::{self, Bound, LoopOp};
use tb_ir::affine::AffineMap;
use tb_ir::{Context, OpId, TypeKind};

use super::buffer::Buffer;
use super::value::{ElemType, RtValue, Scalar, read_element, static_shape, write_element};
use super::{Env, ExecError, ExecResult, Handler, Interpreter};
use crate::tensor::{Tensor, TensorData};

/// The handler of each `loop` op; `loop.yield` is run by the loop that holds it.
pub(super) fn handler(kind: LoopOp) -> Option<Handler> {
    Some(match kind {
        LoopOp::Alloc => alloc,
        LoopOp::Dealloc => dealloc,
        LoopOp::For | LoopOp::Parallel => run_loop,
        LoopOp::Load => load,
        LoopOp::Store => store,
        LoopOp::VectorLoad => vector_load,
        LoopOp::VectorStore => vector_store,
        LoopOp::Broadcast => broadcast,
        LoopOp::Fma => fma,
        LoopOp::Dot => dot,
        LoopOp::Yield => return None,
    })
}

/// A buffer for a `memref` result: static dims from the type, `?` dims from `sizes` in order.
pub(super) fn new_buffer(ctx: &Context, ty: tb_ir::Type, sizes: &[i64]) -> ExecResult<Buffer> {
    let TypeKind::MemRef { shape, .. } = ctx.type_kind(ty) else {
        return Err("result is not a memref".into());
    };
    let mut dynamic = sizes.iter();
    let shape = shape
        .iter()
        .map(|&d| {
            if d >= 0 {
                Ok(d)
            } else {
                match dynamic.next() {
                    Some(&s) if s >= 0 => Ok(s),
                    Some(&s) => Err(format!("negative dynamic size {s}")),
                    None => Err("fewer dynamic sizes than dynamic dimensions".to_string()),
                }
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Buffer::alloc(ElemType::of(ctx, ty)?.dtype()?, shape))
}

fn alloc(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let sizes = (0..interp.ctx.op(op).operands.len())
        .map(|i| interp.index_arg(env, op, i))
        .collect::<ExecResult<Vec<_>>>()?;
    let buffer = new_buffer(interp.ctx, interp.result_type(op, 0), &sizes)?;
    interp.set_result(env, op, 0, RtValue::Buffer(buffer))
}

fn dealloc(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    Ok(interp.buffer_arg(env, op, 0)?.free()?)
}

/// The value of a bound: the maximum (lower) or minimum (upper) of its map's results.
pub(super) fn bound_value(env: &Env, bound: &Bound, lower: bool) -> ExecResult<i64> {
    let values = bound
        .operands
        .iter()
        .map(|v| match env.get(v) {
            Some(RtValue::Scalar(s)) => Ok(s.as_int()),
            _ => Err(ExecError::from("a loop bound operand has no index value")),
        })
        .collect::<ExecResult<Vec<_>>>()?;
    let results = apply_map(&bound.map, &values)?;
    let pick = if lower {
        results.iter().max()
    } else {
        results.iter().min()
    };
    pick.copied()
        .ok_or_else(|| ExecError::from("a loop bound map has no results"))
}

fn run_loop(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let dims = loop_::loop_dims(ctx, op).ok_or("has malformed bounds")?;
    let body = loop_::body(ctx, op).ok_or("has no body")?;
    let mut ranges = Vec::with_capacity(dims.len());
    for dim in &dims {
        if dim.step <= 0 {
            return Err(format!("has non-positive step {}", dim.step).into());
        }
        let lo = bound_value(env, &dim.lower, true)?;
        let hi = bound_value(env, &dim.upper, false)?;
        ranges.push((lo, hi, dim.step));
    }
    // The loop-carried values, from the inits to what each iteration yields.
    let mut carried = loop_::inits(ctx, op)
        .iter()
        .map(|v| {
            env.get(v)
                .cloned()
                .ok_or_else(|| ExecError::from("an iter_args init has not been computed"))
        })
        .collect::<ExecResult<Vec<RtValue>>>()?;
    let mut ivs: Vec<i64> = ranges.iter().map(|r| r.0).collect();
    let mut running = ranges.iter().all(|&(lo, hi, _)| lo < hi);
    while running {
        let mut args: Vec<RtValue> = ivs
            .iter()
            .map(|&i| RtValue::Scalar(Scalar::Int(i)))
            .collect();
        args.append(&mut carried);
        carried = interp
            .run_nested_block(env, body, args)
            .map_err(|d| ExecError::Located(Box::new(d)))?;
        // Advance the innermost dimension first.
        running = false;
        for k in (0..ivs.len()).rev() {
            ivs[k] += ranges[k].2;
            if ivs[k] < ranges[k].1 {
                running = true;
                break;
            }
            ivs[k] = ranges[k].0;
        }
    }
    if carried.len() != ctx.op(op).results.len() {
        return Err(format!(
            "carries {} values, but has {} results",
            carried.len(),
            ctx.op(op).results.len()
        )
        .into());
    }
    for (i, value) in carried.into_iter().enumerate() {
        interp.set_result(env, op, i, value)?;
    }
    Ok(())
}

fn apply_map(map: &AffineMap, operands: &[i64]) -> ExecResult<Vec<i64>> {
    let nd = map.num_dims as usize;
    if operands.len() != nd + map.num_symbols as usize {
        return Err(format!(
            "map {map} takes {} operands, {} given",
            nd + map.num_symbols as usize,
            operands.len()
        )
        .into());
    }
    map.evaluate(&operands[..nd], &operands[nd..])
        .ok_or_else(|| format!("map {map} cannot be evaluated at {operands:?}").into())
}

/// The buffer indices an access op addresses: its map applied to the index operands from
/// position `first`.
fn access_indices(interp: &Interpreter, env: &Env, op: OpId, first: usize) -> ExecResult<Vec<i64>> {
    let map = loop_::access_map(interp.ctx, op).ok_or("has no access map")?;
    let operands = (first..interp.ctx.op(op).operands.len())
        .map(|i| interp.index_arg(env, op, i))
        .collect::<ExecResult<Vec<_>>>()?;
    apply_map(&map, &operands)
}

fn load(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let buffer = interp.buffer_arg(env, op, 0)?;
    let indices = access_indices(interp, env, op, 1)?;
    super::gpu::note_shared_access(interp, op, 0, &buffer, &indices, false)?;
    let v = buffer.load(&indices)?;
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

fn store(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let value = interp.scalar_arg(env, op, 0)?;
    let buffer = interp.buffer_arg(env, op, 1)?;
    let indices = access_indices(interp, env, op, 2)?;
    super::gpu::note_shared_access(interp, op, 1, &buffer, &indices, true)?;
    Ok(buffer.store(&indices, value)?)
}

/// Calls `f(vector_position, buffer_indices)` for each element of a vector of `shape`
/// whose first element sits at `start`; the vector covers the buffer's trailing dimensions.
fn for_each_lane(
    start: &[i64],
    shape: &[i64],
    mut f: impl FnMut(usize, &[i64]) -> ExecResult,
) -> ExecResult {
    if shape.len() > start.len() {
        return Err(format!(
            "a rank-{} vector does not fit a rank-{} buffer",
            shape.len(),
            start.len()
        )
        .into());
    }
    let n = shape.iter().product::<i64>() as usize;
    let lead = start.len() - shape.len();
    let mut index = start.to_vec();
    let mut lane = vec![0i64; shape.len()];
    for flat in 0..n {
        for k in 0..shape.len() {
            index[lead + k] = start[lead + k] + lane[k];
        }
        f(flat, &index)?;
        super::buffer::increment(&mut lane, shape);
    }
    Ok(())
}

/// Fails when the vector access `op` promises an alignment its first element at `start`
/// does not have (buffers themselves start aligned, as allocations do on every target).
fn check_alignment(interp: &Interpreter, op: OpId, buffer: &Buffer, start: &[i64]) -> ExecResult {
    let Some(alignment) = loop_::access_alignment(interp.ctx, op) else {
        return Ok(());
    };
    let byte = buffer.position(start)? as i64 * buffer.dtype().size_in_bytes() as i64;
    if alignment > 0 && byte % alignment != 0 {
        return Err(format!(
            "is misaligned: element {start:?} lies at byte {byte} of its buffer, which is not a multiple of the promised alignment {alignment}"
        )
        .into());
    }
    Ok(())
}

pub(super) fn vector_load(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ty = interp.result_type(op, 0);
    let shape = static_shape(interp.ctx, ty)?;
    let elem = ElemType::of(interp.ctx, ty)?;
    let buffer = interp.buffer_arg(env, op, 0)?;
    let start = access_indices(interp, env, op, 1)?;
    check_alignment(interp, op, &buffer, &start)?;
    let mut data = TensorData::zeros(elem.dtype()?, shape.iter().product::<i64>() as usize);
    for_each_lane(&start, &shape, |flat, index| {
        super::gpu::note_shared_access(interp, op, 0, &buffer, index, false)?;
        write_element(&mut data, flat, buffer.load(index)?);
        Ok(())
    })?;
    let vector = Tensor::new(shape, data).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(vector))
}

pub(super) fn vector_store(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let vector = interp.tensor_arg(env, op, 0)?.clone();
    let buffer = interp.buffer_arg(env, op, 1)?;
    let start = access_indices(interp, env, op, 2)?;
    check_alignment(interp, op, &buffer, &start)?;
    for_each_lane(&start, vector.shape(), |flat, index| {
        super::gpu::note_shared_access(interp, op, 1, &buffer, index, true)?;
        Ok(buffer.store(index, read_element(vector.data(), flat))?)
    })
}

fn broadcast(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ty = interp.result_type(op, 0);
    let shape = static_shape(interp.ctx, ty)?;
    let elem = ElemType::of(interp.ctx, ty)?;
    let n = shape.iter().product::<i64>() as usize;
    let mut data = TensorData::zeros(elem.dtype()?, n);
    match interp.arg(env, op, 0)? {
        RtValue::Scalar(s) => {
            for i in 0..n {
                write_element(&mut data, i, *s);
            }
        }
        RtValue::Tensor(t) => {
            // A lower-rank vector repeats along the leading dimensions.
            let m = t.numel().max(1);
            if !n.is_multiple_of(m) || !shape.ends_with(t.shape()) {
                return Err(format!("cannot broadcast shape {:?} to {shape:?}", t.shape()).into());
            }
            for i in 0..n {
                write_element(&mut data, i, read_element(t.data(), i % m));
            }
        }
        RtValue::Buffer(_) => return Err("cannot broadcast a buffer".into()),
    }
    let vector = Tensor::new(shape, data).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(vector))
}

fn fma(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    super::arith::elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(
            s[0].as_float().mul_add(s[1].as_float(), s[2].as_float()),
        ))
    })
}

/// `loop.dot`: lane `l` of the result is `acc[l] + sum_g a[g] * b[G*l + g]`, `a`
/// zero-extended under `unsigned_lhs`, wrapping to i32 like the instructions it becomes.
fn dot(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let vector = |v: &RtValue| match v {
        RtValue::Tensor(t) => Ok(t.clone()),
        other => Err(format!("expects a vector, got {}", other.kind_name())),
    };
    let acc = vector(interp.arg(env, op, 0)?)?;
    let a = vector(interp.arg(env, op, 1)?)?;
    let b = vector(interp.arg(env, op, 2)?)?;
    let unsigned_lhs = loop_::dot_unsigned_lhs(interp.ctx, op);
    let width = (a.data().dtype().size_in_bytes() * 8) as u32;
    let group = a.numel();
    let lanes = acc.numel();
    if group == 0 || b.numel() != group * lanes {
        return Err("b must have a group of a's size per accumulator lane".into());
    }
    let mut data = acc.data().clone();
    for l in 0..lanes {
        let mut sum = read_element(acc.data(), l).as_int();
        for g in 0..group {
            let x = read_element(a.data(), g).as_int();
            let x = if unsigned_lhs {
                super::value::unsigned(x, width) as i64
            } else {
                x
            };
            sum += x * read_element(b.data(), group * l + g).as_int();
        }
        write_element(&mut data, l, Scalar::Int(super::value::wrap(sum, 32)));
    }
    let result = Tensor::new(acc.shape().to_vec(), data).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(result))
}
