//! Operators imported as their ONNX function bodies, in simpler operators the graph
//! dialect has: RMSNormalization, MeanVarianceNormalization, LpNormalization,
//! GroupNormalization, LRN, LpPool, OneHot, CumProd and CenterCropPad. Each is checked against ONNX's own
//! expected outputs by the conformance suite, interpreted and compiled.

use tb_interpreter::DType;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, string_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use crate::attribute::NodeAttrs;

fn normalize_axis(axis: i64, rank: usize) -> Result<usize, Problem> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Problem::invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

fn float_input(cx: &NodeCx, i: usize) -> Result<DType, Problem> {
    let dtype = cx.input(i)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::unsupported(format!(
            "{} of {dtype} tensors is not supported (floating-point only)",
            cx.node.op_type
        )));
    }
    Ok(dtype)
}

/// `x` in f32 when `stash` asks for it and `x` is narrower (f16, bf16).
fn stashed(e: &mut Expander, x: &str, dtype: DType, stash: bool) -> (String, bool) {
    if stash && matches!(dtype, DType::F16 | DType::BF16) {
        (e.op("Cast", &[x], vec![to_attr(DType::F32)]), true)
    } else {
        (x.to_string(), false)
    }
}

fn output(cx: &NodeCx) -> Result<String, Problem> {
    cx.at_most_outputs(1)?;
    Ok(cx.node.output[0].clone())
}

/// RMSNormalization: `x / sqrt(mean(x², axes ≥ axis) + epsilon) * scale`.
pub fn rms_normalization(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let rank = cx.shape(0)?.len();
    let n = cx.node;
    let axis = normalize_axis(n.attr_int_or("axis", -1).map_err(attr_problem)?, rank)?;
    let epsilon = n.attr_float_or("epsilon", 1e-5).map_err(attr_problem)?;
    let stash = n.attr_int_or("stash_type", 1).map_err(attr_problem)? == 1;
    let axes: Vec<i64> = (axis as i64..rank as i64).collect();
    let mut e = Expander::new(n);
    let (x, cast) = stashed(&mut e, &n.input[0], dtype, stash);
    let work = if cast { DType::F32 } else { dtype };
    let square = e.op("Mul", &[&x, &x], vec![]);
    let mean = e.op(
        "ReduceMean",
        &[&square],
        vec![ints_attr("axes", &axes), int_attr("keepdims", 1)],
    );
    let eps = e.scalar_like(f64::from(epsilon), work);
    let shifted = e.op("Add", &[&mean, &eps], vec![]);
    let rms = e.op("Sqrt", &[&shifted], vec![]);
    let normalized = e.op("Div", &[&x, &rms], vec![]);
    let normalized = if cast {
        e.op("Cast", &[&normalized], vec![to_attr(dtype)])
    } else {
        normalized
    };
    e.op_to("Mul", &[&normalized, &n.input[1]], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// MeanVarianceNormalization: `(x - mean) / (sqrt(mean(x²) - mean(x)²) + 1e-9)` over
/// `axes` (default 0, 2, 3), as ONNX's function body computes it.
pub fn mean_variance_normalization(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let n = cx.node;
    let axes = n
        .attr_ints("axes")
        .map_err(attr_problem)?
        .unwrap_or_else(|| vec![0, 2, 3]);
    let reduce = |e: &mut Expander, v: &str| {
        e.op(
            "ReduceMean",
            &[v],
            vec![ints_attr("axes", &axes), int_attr("keepdims", 1)],
        )
    };
    let mut e = Expander::new(n);
    let x = n.input[0].as_str();
    let mean = reduce(&mut e, x);
    let square = e.op("Mul", &[x, x], vec![]);
    let mean_of_square = reduce(&mut e, &square);
    let square_of_mean = e.op("Mul", &[&mean, &mean], vec![]);
    let variance = e.op("Sub", &[&mean_of_square, &square_of_mean], vec![]);
    let deviation = e.op("Sqrt", &[&variance], vec![]);
    let eps = e.scalar_like(1e-9, dtype);
    let denominator = e.op("Add", &[&deviation, &eps], vec![]);
    let centered = e.op("Sub", &[x, &mean], vec![]);
    e.op_to("Div", &[&centered, &denominator], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// LpNormalization: `x / ||x||_p` along `axis` (p is 1 or 2), 0 where the norm is 0 (as
/// ONNX's reference).
pub fn lp_normalization(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let rank = cx.shape(0)?.len();
    let n = cx.node;
    let axis = normalize_axis(n.attr_int_or("axis", -1).map_err(attr_problem)?, rank)?;
    let norm_op = match n.attr_int_or("p", 2).map_err(attr_problem)? {
        1 => "ReduceL1",
        2 => "ReduceL2",
        p => return Err(Problem::invalid(format!("p must be 1 or 2, got {p}"))),
    };
    let mut e = Expander::new(n);
    let norm = e.op(
        norm_op,
        &[&n.input[0]],
        vec![ints_attr("axes", &[axis as i64]), int_attr("keepdims", 1)],
    );
    let quotient = e.op("Div", &[&n.input[0], &norm], vec![]);
    let zero = e.scalar_like(0.0, dtype);
    let vanishes = e.op("Equal", &[&norm, &zero], vec![]);
    e.op_to("Where", &[&vanishes, &zero, &quotient], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// GroupNormalization: the channels split into `num_groups` groups, each normalized over
/// its channels and the spatial dimensions, then scaled and shifted per channel (opset 21)
/// or per group (opset 18).
pub fn group_normalization(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let shape = cx.shape(0)?.to_vec();
    let n = cx.node;
    let groups = n.attr_required::<i64>("num_groups").map_err(attr_problem)?;
    let epsilon = n.attr_float_or("epsilon", 1e-5).map_err(attr_problem)?;
    let stash = n.attr_int_or("stash_type", 1).map_err(attr_problem)? == 1;
    if shape.len() < 2 {
        return Err(Problem::invalid(format!(
            "expects an input of rank 2 or more, got rank {}",
            shape.len()
        )));
    }
    let channels = shape[1];
    if groups <= 0 || channels % groups != 0 {
        return Err(Problem::invalid(format!(
            "num_groups {groups} does not divide the {channels} channels"
        )));
    }
    let per_group = channels / groups;
    let spatial: i64 = shape[2..].iter().product();
    let per_channel_affine = cx.opset >= 21;
    let affine_len = if per_channel_affine { channels } else { groups };
    for (i, what) in [(1, "scale"), (2, "bias")] {
        if cx.shape(i)? != [affine_len] {
            return Err(Problem::invalid(format!(
                "{what} must have shape [{affine_len}] in opset {}, got {:?}",
                cx.opset,
                cx.shape(i)?
            )));
        }
    }
    let mut e = Expander::new(n);
    let (x, cast) = stashed(&mut e, &n.input[0], dtype, stash);
    let work = if cast { DType::F32 } else { dtype };
    let grouped_shape = e.ints(&[shape[0], groups, per_group, spatial]);
    let grouped = e.op("Reshape", &[&x, &grouped_shape], vec![]);
    let reduce = |e: &mut Expander, v: &str| {
        e.op(
            "ReduceMean",
            &[v],
            vec![ints_attr("axes", &[2, 3]), int_attr("keepdims", 1)],
        )
    };
    let mean = reduce(&mut e, &grouped);
    let centered = e.op("Sub", &[&grouped, &mean], vec![]);
    let square = e.op("Mul", &[&centered, &centered], vec![]);
    let variance = reduce(&mut e, &square);
    let eps = e.scalar_like(f64::from(epsilon), work);
    let shifted = e.op("Add", &[&variance, &eps], vec![]);
    let deviation = e.op("Sqrt", &[&shifted], vec![]);
    let normalized = e.op("Div", &[&centered, &deviation], vec![]);
    let normalized = if cast {
        e.op("Cast", &[&normalized], vec![to_attr(dtype)])
    } else {
        normalized
    };
    // Scale and bias broadcast over [groups, per_group, spatial].
    let affine_shape = if per_channel_affine {
        e.ints(&[groups, per_group, 1])
    } else {
        e.ints(&[groups, 1, 1])
    };
    let scale = e.op("Reshape", &[&n.input[1], &affine_shape], vec![]);
    let bias = e.op("Reshape", &[&n.input[2], &affine_shape], vec![]);
    let scaled = e.op("Mul", &[&normalized, &scale], vec![]);
    let shifted = e.op("Add", &[&scaled, &bias], vec![]);
    let original = e.ints(&shape);
    e.op_to("Reshape", &[&shifted, &original], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// LRN: `x / (bias + alpha / size * sum of x² over the size channels around)^beta`; the
/// channel window is an average pool of x² over a [N, 1, C, rest] view.
pub fn lrn(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let shape = cx.shape(0)?.to_vec();
    let n = cx.node;
    let size = n.attr_required::<i64>("size").map_err(attr_problem)?;
    let alpha = n.attr_float_or("alpha", 1e-4).map_err(attr_problem)?;
    let beta = n.attr_float_or("beta", 0.75).map_err(attr_problem)?;
    let bias = n.attr_float_or("bias", 1.0).map_err(attr_problem)?;
    if shape.len() < 3 || size <= 0 {
        return Err(Problem::invalid(format!(
            "expects an input of rank 3 or more and a positive size, got rank {} and size \
             {size}",
            shape.len()
        )));
    }
    let rest: i64 = shape[2..].iter().product();
    let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
    let mut e = Expander::new(n);
    let x = n.input[0].as_str();
    let square = e.op("Mul", &[x, x], vec![]);
    let view = e.ints(&[shape[0], 1, shape[1], rest]);
    let square = e.op("Reshape", &[&square, &view], vec![]);
    let window_mean = e.op(
        "AveragePool",
        &[&square],
        vec![
            ints_attr("kernel_shape", &[size, 1]),
            ints_attr("pads", &[before, 0, after, 0]),
            int_attr("count_include_pad", 1),
        ],
    );
    let original = e.ints(&shape);
    let window_mean = e.op("Reshape", &[&window_mean, &original], vec![]);
    // alpha / size * sum = alpha * mean.
    let alpha = e.scalar_like(f64::from(alpha), dtype);
    let scaled = e.op("Mul", &[&window_mean, &alpha], vec![]);
    let bias = e.scalar_like(f64::from(bias), dtype);
    let base = e.op("Add", &[&scaled, &bias], vec![]);
    let beta = e.scalar_like(f64::from(beta), dtype);
    let denominator = e.op("Pow", &[&base, &beta], vec![]);
    e.op_to("Div", &[x, &denominator], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// LpPool: `(sum over the window of |x|^p)^(1/p)`: an average pool (padding counted) of
/// `|x|^p` times the window's size.
pub fn lp_pool(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dtype = float_input(cx, 0)?;
    let n = cx.node;
    let kernel = n
        .attr_required::<Vec<i64>>("kernel_shape")
        .map_err(attr_problem)?;
    let p = n.attr_int_or("p", 2).map_err(attr_problem)?;
    if p <= 0 {
        return Err(Problem::invalid(format!("p must be positive, got {p}")));
    }
    if n.attr_int_or("ceil_mode", 0).map_err(attr_problem)? != 0 {
        return Err(Problem::unsupported(
            "LpPool with ceil_mode = 1 is not supported (a partial window's sum)",
        ));
    }
    let mut pool_attrs = vec![
        ints_attr("kernel_shape", &kernel),
        int_attr("count_include_pad", 1),
    ];
    for key in ["pads", "strides", "dilations"] {
        if let Some(v) = n.attr_ints(key).map_err(attr_problem)? {
            pool_attrs.push(ints_attr(key, &v));
        }
    }
    if let Some(pad) = n.attr_string("auto_pad").map_err(attr_problem)? {
        pool_attrs.push(string_attr("auto_pad", &pad));
    }
    let volume: i64 = kernel.iter().product();
    let mut e = Expander::new(n);
    let magnitude = e.op("Abs", &[&n.input[0]], vec![]);
    let power = e.scalar_like(p as f64, dtype);
    let powered = e.op("Pow", &[&magnitude, &power], vec![]);
    let mean = e.op("AveragePool", &[&powered], pool_attrs);
    let volume = e.scalar_like(volume as f64, dtype);
    let sum = e.op("Mul", &[&mean, &volume], vec![]);
    let root = e.scalar_like(1.0 / p as f64, dtype);
    e.op_to("Pow", &[&sum, &root], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// OneHot: `values[1]` where the position along the new `axis` equals the index
/// (negative indices count from `depth`), `values[0]` elsewhere. `depth` fixes the
/// result's shape, so it must be known at import time.
pub fn one_hot(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let indices_shape = cx.shape(0)?.to_vec();
    let depth = cx.constant(1, "depth")?;
    let depth = match depth.cast(DType::F64).as_slice::<f64>() {
        Some([d]) => d.trunc() as i64,
        _ => {
            return Err(Problem::invalid("input 'depth' must hold one number"));
        }
    };
    if depth <= 0 {
        return Err(Problem::invalid(format!(
            "depth must be positive, got {depth}"
        )));
    }
    if cx.shape(2)? != [2] {
        return Err(Problem::invalid(format!(
            "values must have shape [2], got {:?}",
            cx.shape(2)?
        )));
    }
    let n = cx.node;
    let out_rank = indices_shape.len() + 1;
    let axis = normalize_axis(n.attr_int_or("axis", -1).map_err(attr_problem)?, out_rank)?;
    let mut e = Expander::new(n);
    let indices = e.op("Cast", &[&n.input[0]], vec![to_attr(DType::I64)]);
    let zero = e.scalar_like(0.0, DType::I64);
    let depth_scalar = e.scalar_like(depth as f64, DType::I64);
    let negative = e.op("Less", &[&indices, &zero], vec![]);
    let wrapped = e.op("Add", &[&indices, &depth_scalar], vec![]);
    let indices = e.op("Where", &[&negative, &wrapped, &indices], vec![]);
    let axes = e.ints(&[axis as i64]);
    let indices = e.op("Unsqueeze", &[&indices, &axes], vec![]);
    // Positions 0..depth along `axis`, broadcast over the dimensions after it.
    let mut positions_shape = vec![depth];
    positions_shape.extend(std::iter::repeat_n(1, out_rank - axis - 1));
    let positions = tb_interpreter::Tensor::from_vec(positions_shape, (0..depth).collect())
        .map_err(|m| Problem::invalid(m.0))?;
    let positions = e.constant(positions);
    let hit = e.op("Equal", &[&indices, &positions], vec![]);
    let off_at = e.constant(tb_interpreter::Tensor::scalar(0i64));
    let on_at = e.constant(tb_interpreter::Tensor::scalar(1i64));
    let off = e.op("Gather", &[&n.input[2], &off_at], vec![]);
    let on = e.op("Gather", &[&n.input[2], &on_at], vec![]);
    e.op_to("Where", &[&hit, &on, &off], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}

/// CumProd: the product of the elements up to each position along `axis` (`axis` must be
/// known at import time). Position i of a [.., L, L, ..] view holds element j where j
/// takes part in i's product (j ≤ i, or j < i when `exclusive`, reversed with `reverse`)
/// and 1 elsewhere; a product over j reduces it.
pub fn cum_prod(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let shape = cx.shape(0)?.to_vec();
    let dtype = cx.input(0)?.dtype;
    let axis = match cx.constant_ints(1, "axis")?.as_slice() {
        [a] => normalize_axis(*a, shape.len())?,
        other => {
            return Err(Problem::invalid(format!(
                "input 'axis' must hold one integer, got {}",
                other.len()
            )));
        }
    };
    let n = cx.node;
    let exclusive = n.attr_int_or("exclusive", 0).map_err(attr_problem)? != 0;
    let reverse = n.attr_int_or("reverse", 0).map_err(attr_problem)? != 0;
    let len = shape[axis];
    if len.saturating_mul(len) > super::super::sizes::FOLD_BUDGET {
        return Err(Problem::unsupported(format!(
            "CumProd along an axis of {len} elements is not supported (at most 1024)"
        )));
    }
    let takes_part = |i: i64, j: i64| match (reverse, exclusive) {
        (false, false) => j <= i,
        (false, true) => j < i,
        (true, false) => j >= i,
        (true, true) => j > i,
    };
    let mut mask_shape = vec![len, len];
    mask_shape.extend(std::iter::repeat_n(1, shape.len() - axis - 1));
    let mask: Vec<bool> = (0..len)
        .flat_map(|i| (0..len).map(move |j| takes_part(i, j)))
        .collect();
    let mask = tb_interpreter::Tensor::new(mask_shape, tb_interpreter::TensorData::Bool(mask))
        .map_err(|m| Problem::invalid(m.0))?;
    let mut e = Expander::new(n);
    let mask = e.constant(mask);
    let position_axis = e.ints(&[axis as i64]);
    let spread = e.op("Unsqueeze", &[&n.input[0], &position_axis], vec![]);
    let one = e.scalar_like(1.0, dtype);
    let factors = e.op("Where", &[&mask, &spread, &one], vec![]);
    e.op_to(
        "ReduceProd",
        &[&factors],
        vec![
            ints_attr("axes", &[axis as i64 + 1]),
            int_attr("keepdims", 0),
        ],
        &out,
    );
    Ok(Lowering::Expand(e.finish()))
}

/// CenterCropPad: each of `axes` (all by default) cropped or zero-padded to the length
/// `shape` gives (known at import time), centered; an odd difference leaves the extra
/// element at the end.
pub fn center_crop_pad(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let out = output(cx)?;
    let dims = cx.shape(0)?.to_vec();
    let lengths = cx.constant_ints(1, "shape")?;
    let n = cx.node;
    let axes = match n.attr_ints("axes").map_err(attr_problem)? {
        Some(axes) => axes
            .iter()
            .map(|&a| normalize_axis(a, dims.len()))
            .collect::<Result<Vec<_>, _>>()?,
        None => (0..dims.len()).collect(),
    };
    if axes.len() != lengths.len() || lengths.iter().any(|&l| l < 0) {
        return Err(Problem::invalid(format!(
            "shape {lengths:?} must give one length (≥ 0) per axis of {axes:?}"
        )));
    }
    let rank = dims.len();
    let (mut starts, mut ends, mut crop_axes) = (Vec::new(), Vec::new(), Vec::new());
    let mut pads = vec![0; 2 * rank];
    for (&a, &len) in axes.iter().zip(&lengths) {
        let d = len - dims[a];
        if d < 0 {
            let start = -d / 2;
            starts.push(start);
            ends.push(start + len);
            crop_axes.push(a as i64);
        } else if d > 0 {
            pads[a] = d / 2;
            pads[rank + a] = d - d / 2;
        }
    }
    let mut e = Expander::new(n);
    let mut x = n.input[0].clone();
    if !crop_axes.is_empty() {
        let (s, en, ax) = (e.ints(&starts), e.ints(&ends), e.ints(&crop_axes));
        x = e.op("Slice", &[&x, &s, &en, &ax], vec![]);
    }
    let pads = e.ints(&pads);
    e.op_to("Pad", &[&x, &pads], vec![], &out);
    Ok(Lowering::Expand(e.finish()))
}
