//! The `vector` ops that build and take apart fragments: `vector.from_elements` and
//! `vector.extract` at constant positions.

use tb_dialects::vector::{self, VectorOp};

use super::value::{ElemType, RtValue, read_element, static_shape, write_element};
use super::{Env, ExecResult, Handler, Interpreter};
use crate::tensor::{Tensor, TensorData};

pub(super) fn handler(kind: VectorOp) -> Option<Handler> {
    Some(match kind {
        VectorOp::FromElements => from_elements,
        VectorOp::Extract => extract,
    })
}

fn from_elements(interp: &mut Interpreter, env: &mut Env, op: tb_ir::OpId) -> ExecResult {
    let ty = interp.result_type(op, 0);
    let shape = static_shape(interp.ctx, ty)?;
    let elem = ElemType::of(interp.ctx, ty)?;
    let n = interp.ctx.op(op).operands.len();
    let mut data = TensorData::zeros(elem.dtype()?, n);
    for i in 0..n {
        write_element(&mut data, i, interp.scalar_arg(env, op, i)?);
    }
    let vector = Tensor::new(shape, data).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(vector))
}

fn extract(interp: &mut Interpreter, env: &mut Env, op: tb_ir::OpId) -> ExecResult {
    let ctx = interp.ctx;
    let position = vector::extract_position(ctx, op).ok_or("has no static_position")?;
    let source = interp.tensor_arg(env, op, 0)?;
    let shape = source.shape().to_vec();
    if position.len() > shape.len() {
        return Err("has more positions than its vector has dimensions".into());
    }
    // Row-major: the position picks a block of the trailing dimensions' size.
    let block: i64 = shape[position.len()..].iter().product();
    let mut start = 0i64;
    for (&p, &d) in position.iter().zip(&shape) {
        if !(0..d).contains(&p) {
            return Err(format!("position {p} is outside a dimension of {d}").into());
        }
        start = start * d + p;
    }
    let start = (start * block) as usize;
    if position.len() == shape.len() {
        let value = read_element(source.data(), start);
        return interp.set_result(env, op, 0, RtValue::Scalar(value));
    }
    let mut data = TensorData::zeros(source.data().dtype(), block as usize);
    for i in 0..block as usize {
        write_element(&mut data, i, read_element(source.data(), start + i));
    }
    let part = Tensor::new(shape[position.len()..].to_vec(), data).map_err(|e| e.0)?;
    interp.set_result(env, op, 0, RtValue::Tensor(part))
}
