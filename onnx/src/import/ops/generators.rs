//! Operators whose outputs are known at import time or that forward an input: Constant,
//! Shape, Size (every shape is static), ConstantOfShape and Range (their shape inputs
//! become attributes), Identity and Dropout (inference: the input itself), and the constants
//! a static shape fixes: EyeLike and the Hann, Hamming and Blackman windows.

use tb_interpreter::{DType, Tensor, TensorData};

use super::super::attrs::ints_attr;
use super::super::constants::scalar_attr;
use super::super::error::{Problem, ProblemKind};
use super::super::node::{Lowering, NodeCx, Output, attr_problem};
use super::super::sizes::{FOLD_BUDGET, check_shape, nonzero_product};
use crate::attribute::NodeAttrs;

/// Constant: whichever `value*` attribute is set.
pub fn constant(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let node = cx.node;
    let t = if let Some(t) = node.attr_tensor("value").map_err(attr_problem)? {
        t
    } else if let Some(v) = node.attr_float("value_float").map_err(attr_problem)? {
        Tensor::scalar(v)
    } else if let Some(v) = node.attr_floats("value_floats").map_err(attr_problem)? {
        Tensor::vector(v)
    } else if let Some(v) = node.attr_int("value_int").map_err(attr_problem)? {
        Tensor::scalar(v)
    } else if let Some(v) = node.attr_ints("value_ints").map_err(attr_problem)? {
        Tensor::vector(v)
    } else if node
        .attribute
        .iter()
        .any(|a| a.name.starts_with("value_string"))
    {
        return Err(Problem::new(
            ProblemKind::UnsupportedType,
            "string constants are not supported",
        ));
    } else if node.attribute("sparse_value").is_some() {
        return Err(Problem::unsupported("sparse constants are not supported"));
    } else {
        return Err(Problem::invalid("has no value attribute"));
    };
    Ok(Lowering::Outputs(vec![Output::Constant(t)]))
}

/// ConstantOfShape: the shape input and the one-element `value` become attributes.
pub fn constant_of_shape(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let shape = cx.constant_ints(0, "shape")?;
    check_shape(&shape).map_err(|m| Problem::invalid(format!("input 'shape': {m}")))?;
    let mut attrs = vec![("shape".to_string(), ints_attr(cx.ctx, &shape))];
    if let Some(v) = cx.node.attr_tensor("value").map_err(attr_problem)? {
        let a = scalar_attr(cx.ctx, &v)
            .ok_or_else(|| Problem::invalid("attribute 'value' must hold one element"))?;
        attrs.push(("value".into(), a));
    }
    Ok(cx.plan("graph.constant_of_shape", vec![], attrs))
}

/// Range: `start`, `limit` and `delta` become scalar attributes. The element count is
/// checked here, in wide arithmetic, before any shape rule computes it in 64 bits.
pub fn range(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let mut attrs = Vec::new();
    let mut bounds = Vec::new();
    for (i, key) in ["start", "limit", "delta"].into_iter().enumerate() {
        let t = cx.constant(i, key)?;
        bounds.push(t.to_f64_vec().first().copied().unwrap_or(0.0));
        let a = scalar_attr(cx.ctx, t)
            .ok_or_else(|| Problem::invalid(format!("input '{key}' must be a scalar")))?;
        attrs.push((key.to_string(), a));
    }
    let [start, limit, delta] = bounds[..] else {
        return Err(Problem::invalid("Range takes start, limit and delta"));
    };
    let count = ((limit - start) / delta).ceil();
    if count.is_finite() && count > (1u64 << 62) as f64 {
        return Err(Problem::invalid(format!(
            "start {start}, limit {limit} and delta {delta} make {count:e} elements, more \
             than 2^62"
        )));
    }
    Ok(cx.plan("graph.range", vec![], attrs))
}

/// Shape: known from the input's static type (with opset 15's `start`/`end`).
pub fn shape(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let dims = cx.shape(0)?.to_vec();
    let rank = dims.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
    let start = clamp(cx.node.attr_int_or("start", 0).map_err(attr_problem)?);
    let end = clamp(cx.node.attr_int_or("end", rank).map_err(attr_problem)?);
    let part = dims[start..end.max(start)].to_vec();
    Ok(Lowering::Outputs(vec![Output::Constant(Tensor::vector(
        part,
    ))]))
}

/// Size: the number of elements, known from the static type.
pub fn size(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let n = check_shape(cx.shape(0)?).map_err(Problem::invalid)?;
    Ok(Lowering::Outputs(vec![Output::Constant(Tensor::scalar(n))]))
}

pub fn identity(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.input(0)?;
    Ok(Lowering::Outputs(vec![Output::Input(0)]))
}

/// Dropout at inference: the output is the input and the mask all true. Training mode
/// (a true `training_mode` input) is not supported.
pub fn dropout(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    if cx.has_input(2) {
        let training = cx.constant(2, "training_mode")?;
        if training.to_f64_vec().first().copied().unwrap_or(0.0) != 0.0 {
            return Err(Problem::unsupported(
                "training_mode = true (random dropout) is not supported",
            ));
        }
    }
    let mut outputs = vec![Output::Input(0)];
    if cx.num_outputs() > 1 {
        let input = cx.input(0)?;
        let n = nonzero_product(input.shape.iter().map(|&d| d as i128))
            .map(|_| input.shape.iter().product::<i64>())
            .filter(|&n| n <= FOLD_BUDGET)
            .ok_or_else(|| {
                Problem::unsupported(format!(
                    "the mask output would be a constant of more than {FOLD_BUDGET} elements"
                ))
            })? as usize;
        let mask = Tensor::new(input.shape.clone(), TensorData::Bool(vec![true; n]))
            .map_err(|e| Problem::invalid(e.0))?;
        outputs.push(Output::Constant(mask));
    }
    Ok(Lowering::Outputs(outputs))
}

/// The element type an attribute names (`dtype`, `output_datatype`), or `default`.
fn dtype_attr(cx: &NodeCx, name: &str, default: DType) -> Result<DType, Problem> {
    match cx.node.attr_int(name).map_err(attr_problem)? {
        None => Ok(default),
        Some(code) => crate::dtype_from_onnx(code as i32).ok_or_else(|| {
            Problem::new(
                ProblemKind::UnsupportedType,
                format!("{name} {code} is not a supported element type"),
            )
        }),
    }
}

/// A constant computed at import time, within the folding budget.
fn generated(shape: Vec<i64>, values: Vec<f64>, dtype: DType) -> Result<Lowering, Problem> {
    if values.len() as i64 > FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "the output would be a constant of more than {FOLD_BUDGET} elements"
        )));
    }
    let t = Tensor::from_vec(shape, values).map_err(|e| Problem::invalid(e.0))?;
    Ok(Lowering::Outputs(vec![Output::Constant(t.cast(dtype))]))
}

/// EyeLike: ones on the `k`-th diagonal of a matrix shaped like the input, zeros
/// elsewhere; only the input's (static) shape matters.
pub fn eye_like(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let shape = cx.shape(0)?.to_vec();
    let [rows, cols] = shape[..] else {
        return Err(Problem::invalid(format!(
            "expects a 2-D input, got shape {shape:?}"
        )));
    };
    let dtype = dtype_attr(cx, "dtype", cx.input(0)?.dtype)?;
    let k = cx.node.attr_int_or("k", 0).map_err(attr_problem)?;
    if rows.saturating_mul(cols) > FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "the output would be a constant of more than {FOLD_BUDGET} elements"
        )));
    }
    let values = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| if j - i == k { 1.0 } else { 0.0 }))
        .collect();
    generated(shape, values, dtype)
}

/// HannWindow, HammingWindow and BlackmanWindow: `a0 - a1 cos(2πn/N) + a2 cos(4πn/N)`
/// for n in 0..size, N being `size` (periodic) or `size - 1` (symmetric).
pub fn window(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let size = match cx.constant_ints(0, "size")?.as_slice() {
        [s] => *s,
        other => {
            return Err(Problem::invalid(format!(
                "input 'size' must hold one integer, got {}",
                other.len()
            )));
        }
    };
    if !(0..=FOLD_BUDGET).contains(&size) {
        return Err(Problem::invalid(format!(
            "size must be between 0 and {FOLD_BUDGET}, got {size}"
        )));
    }
    let dtype = dtype_attr(cx, "output_datatype", DType::F32)?;
    let periodic = cx.node.attr_int_or("periodic", 1).map_err(attr_problem)? != 0;
    let (a0, a1, a2) = match cx.node.op_type.as_str() {
        "HannWindow" => (0.5, 0.5, 0.0),
        "HammingWindow" => (25.0 / 46.0, 21.0 / 46.0, 0.0),
        _ => (0.42, 0.5, 0.08),
    };
    let period = if periodic { size } else { size - 1 } as f64;
    let tau = 2.0 * std::f64::consts::PI;
    let values = (0..size)
        .map(|n| {
            let phase = tau * n as f64 / period;
            a0 - a1 * phase.cos() + a2 * (2.0 * phase).cos()
        })
        .collect();
    generated(vec![size], values, dtype)
}
