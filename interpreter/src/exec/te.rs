//! `te` ops: `te.compute` evaluates its body once per point of its iteration domain and
//! folds reduction axes with its combiner, in the result's element type (each partial sum is
//! rounded as compiled code rounds it; max and min of an unsigned result compare unsigned); `te.read` reads an input through its affine map
//! (yielding its padding outside a padded input), `te.read_at` at computed indices, `te.extract` one element outside any body.

use tb_dialects::te::{self, Combiner, ComputeOp, TeOp};
use tb_ir::OpId;

use super::attr::attr_to_value;
use super::value::{ElemType, RtValue, Scalar, read_element, static_shape, write_element};
use super::{Env, ExecError, ExecResult, Handler, Interpreter};
use crate::tensor::{Tensor, TensorData};

/// The handler of a te op; `te.yield` ends a body and is not executed as an op.
pub(super) fn handler(kind: TeOp) -> Option<Handler> {
    match kind {
        TeOp::Compute => Some(compute),
        TeOp::Read => Some(read),
        TeOp::ReadAt => Some(read_at),
        TeOp::Extract => Some(extract),
        TeOp::Yield => None,
    }
}

fn is_unsigned(elem: ElemType) -> bool {
    matches!(elem, ElemType::Int { unsigned: true, .. })
}

/// The value of a reduction over no elements, in the interpreter's scalar form.
fn identity(combiner: Combiner, elem: ElemType) -> Scalar {
    if elem.is_float() {
        Scalar::Float(combiner.float_identity())
    } else {
        Scalar::Int(combiner.int_identity(elem.width(), is_unsigned(elem)) as i64)
    }
}

/// `acc` combined with `v`, values of `elem` (the combiner's own semantics).
fn combine(combiner: Combiner, elem: ElemType, acc: Scalar, v: Scalar) -> Scalar {
    match (acc, v) {
        (Scalar::Float(a), Scalar::Float(b)) => Scalar::Float(combiner.combine_floats(a, b)),
        (a, b) => Scalar::Int(combiner.combine_ints(
            a.as_int(),
            b.as_int(),
            elem.width(),
            is_unsigned(elem),
        )),
    }
}

fn compute(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let result_ty = interp.result_type(op, 0);
    let elem = ElemType::of(ctx, result_ty)?;
    let shape = static_shape(ctx, result_ty)?;
    let reduction = te::reduction_extents(ctx, op);
    let combiner = match ComputeOp(op).combiner(ctx) {
        Some(c) => Some(c),
        None if reduction.is_empty() => None,
        None => return Err("has reduction axes but no (known) combiner".into()),
    };
    let body = te::body(ctx, op).ok_or("has no body")?;
    let rank = shape.len();
    let n = shape.iter().product::<i64>() as usize;
    let reduction_points = reduction.iter().product::<i64>() as usize;
    let mut domain_shape = shape.clone();
    domain_shape.extend(&reduction);

    let mut out = TensorData::zeros(elem.dtype()?, n);
    interp.te_domains.push(vec![0; domain_shape.len()]);
    let result = (|| -> ExecResult {
        for flat in 0..n {
            let mut value = match combiner {
                Some(c) if reduction_points == 0 => identity(c, elem),
                _ => Scalar::Int(0),
            };
            for r in 0..reduction_points {
                set_point(interp, &domain_shape, rank, flat, r);
                let v = eval_body(interp, env, body)?;
                value = match combiner {
                    Some(c) if r > 0 => elem.normalize(combine(c, elem, value, v)),
                    _ => v,
                };
            }
            write_element(&mut out, flat, elem.normalize(value));
        }
        Ok(())
    })();
    interp.te_domains.pop();
    result?;
    let tensor = Tensor::new(shape, out).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(tensor))
}

/// Sets the innermost domain to result element `flat` and reduction point `r`.
fn set_point(interp: &mut Interpreter, domain: &[i64], rank: usize, flat: usize, r: usize) {
    let point = interp.te_domains.last_mut().expect("pushed by compute");
    let (mut f, mut rr) = (flat as i64, r as i64);
    for k in (0..rank).rev() {
        point[k] = f % domain[k];
        f /= domain[k];
    }
    for k in (rank..domain.len()).rev() {
        point[k] = rr % domain[k];
        rr /= domain[k];
    }
}

fn eval_body(interp: &mut Interpreter, env: &mut Env, body: tb_ir::BlockId) -> ExecResult<Scalar> {
    let point = interp.te_domains.last().expect("pushed by compute");
    let args = point
        .iter()
        .map(|&i| RtValue::Scalar(Scalar::Int(i)))
        .collect();
    let yielded = interp
        .run_nested_block(env, body, args)
        .map_err(|d| ExecError::Located(Box::new(d)))?;
    match yielded.as_slice() {
        [RtValue::Scalar(s)] => Ok(*s),
        _ => Err("body must yield one scalar".into()),
    }
}

fn read(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let map = te::read_map(ctx, op).ok_or("has no affine map")?;
    let point = interp
        .te_domains
        .last()
        .ok_or("is not inside a te.compute being evaluated")?;
    let indices = map
        .evaluate(point, &[])
        .ok_or("cannot evaluate its map at this point")?;
    let input = interp.tensor_arg(env, op, 0)?;
    let inside = indices
        .iter()
        .zip(input.shape())
        .all(|(&i, &extent)| (0..extent).contains(&i));
    let v = match te::read_padding(ctx, op) {
        Some(padding) if !inside => {
            let ty = interp.result_type(op, 0);
            match attr_to_value(ctx, padding, ty)? {
                RtValue::Scalar(s) => s,
                _ => return Err("padding must be a scalar attribute".into()),
            }
        }
        _ => read_element(input.data(), flat_index(input.shape(), &indices)?),
    };
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

/// `te.read_at`: the indices are operands; outside the input is undefined behaviour.
fn read_at(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let count = interp.ctx.op(op).operands.len();
    let indices = (1..count)
        .map(|i| interp.scalar_arg(env, op, i).map(Scalar::as_int))
        .collect::<ExecResult<Vec<i64>>>()?;
    let input = interp.tensor_arg(env, op, 0)?;
    let v = read_element(input.data(), flat_index(input.shape(), &indices)?);
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

/// `te.extract`: one element of a tensor as a scalar; an index outside it is an error.
fn extract(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let count = interp.ctx.op(op).operands.len();
    let indices = (1..count)
        .map(|i| interp.index_arg(env, op, i))
        .collect::<ExecResult<Vec<i64>>>()?;
    let input = interp.tensor_arg(env, op, 0)?;
    let v = read_element(input.data(), flat_index(input.shape(), &indices)?);
    interp.set_result(env, op, 0, RtValue::Scalar(v))
}

/// The row-major position of `indices` in `shape`, checked.
pub(super) fn flat_index(shape: &[i64], indices: &[i64]) -> Result<usize, String> {
    if shape.len() != indices.len() {
        return Err(format!(
            "{} indices for a rank-{} tensor",
            indices.len(),
            shape.len()
        ));
    }
    let mut at = 0i64;
    for (k, (&i, &extent)) in indices.iter().zip(shape).enumerate() {
        if i < 0 || i >= extent {
            return Err(format!(
                "reads index {i} of dimension {k} of size {extent} (indices {indices:?})"
            ));
        }
        at = at * extent + i;
    }
    Ok(at as usize)
}
