//! Ops whose result is known from attributes and static shapes alone become
//! `arith.constant`s: `graph.constant` keeps its dense or dense_resource value;
//! ConstantOfShape is a splat, Range, Shape and Size are small dense tensors.

use tb_dialects::graph::attrs::scalar;
use tb_dialects::graph::shape;
use tb_ir::attributes::{AttrKind, DenseData, DenseElement};

use super::LowerFn;
use super::builder::{
    CONSTANT_BUDGET, LowerResult, Lowering, element_count, is_float_type, no_lowering,
};
use tb_dialects::graph::GraphOp;
use tb_ir::FloatKind;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    Some(match kind {
        GraphOp::Constant => constant,
        GraphOp::ConstantOfShape => constant_of_shape,
        GraphOp::Range => range,
        GraphOp::Shape => shape_of,
        GraphOp::Size => size,
        _ => return None,
    })
}

fn constant(l: &mut Lowering) -> LowerResult {
    let value = l
        .attrs()
        .get("value")
        .ok_or_else(|| no_lowering("no 'value' attribute"))?;
    let ty = l.result_type(0);
    Ok(vec![l.constant(value, ty)])
}

fn constant_of_shape(l: &mut Lowering) -> LowerResult {
    let ty = l.result_type(0);
    let value = l.attrs().get("value").map(|v| l.ctx.attr_kind(v).clone());
    let element = match value {
        Some(AttrKind::Integer { value, .. }) => DenseElement::Int(value),
        Some(AttrKind::Float { bits, .. }) => DenseElement::Float(bits),
        // ONNX's default value: an f32 zero.
        _ => DenseElement::Float(0),
    };
    let attr = l.ctx.intern_attr(AttrKind::DenseElements {
        ty,
        data: DenseData {
            splat: true,
            elements: vec![element],
        },
    });
    Ok(vec![l.constant(attr, ty)])
}

/// Range: `start + i * delta`, computed as the kernel computes it (f64 for floats, i64
/// for integers). Up to [`CONSTANT_BUDGET`] elements it is a constant; a longer range is a
/// `te.compute` of the formula, so the conversion never holds its elements.
fn range(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let get = |name: &str| {
        a.get(name)
            .and_then(|v| scalar(l.ctx, v))
            .map(|(_, s)| s.as_f64())
            .ok_or_else(|| no_lowering(format!("'{name}' is not a scalar")))
    };
    let (start, delta) = (get("start")?, get("delta")?);
    let (out, element) = (l.result_shape(0), l.result_element(0));
    let count = element_count(&out)?;
    if count <= CONSTANT_BUDGET {
        let values: Vec<f64> = (0..count).map(|i| start + i as f64 * delta).collect();
        return Ok(vec![l.dense(&out, element, &values)]);
    }
    let float = is_float_type(l.ctx, element);
    let y = l.compute(&out, element, None, |b| {
        let i64_ty = b.ctx.i64();
        let i = b.index(0);
        let i = b.index_cast(i, i64_ty);
        let wide = if float {
            b.ctx.float_type(FloatKind::F64)
        } else {
            i64_ty
        };
        let i = if float { b.cast(i, wide) } else { i };
        let (start, delta) = (b.constant(start, wide), b.constant(delta, wide));
        let step = b.mul(i, delta);
        Ok(b.add(start, step))
    })?;
    Ok(vec![y])
}

/// Shape: the (static) dimensions `start..end` of the operand.
fn shape_of(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (start, end) = (a.opt_i64("start")?, a.opt_i64("end")?);
    let dims = l.shape(l.operand(0));
    let (s, e) = shape::shape_bounds(&dims, start, end);
    let values: Vec<f64> = dims[s..e].iter().map(|&d| d as f64).collect();
    let (out, element) = (l.result_shape(0), l.result_element(0));
    Ok(vec![l.dense(&out, element, &values)])
}

fn size(l: &mut Lowering) -> LowerResult {
    let n = element_count(&l.shape(l.operand(0)))?;
    let (out, element) = (l.result_shape(0), l.result_element(0));
    Ok(vec![l.dense(&out, element, &[n as f64])])
}
