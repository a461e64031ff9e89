//! Linear quantization imported as arithmetic on the graph dialect's ops, the way ONNX's
//! reference computes it: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
//! MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv. Integer products run as
//! `i32` matmuls of the widened 8-bit operands, zero points applied after them through
//! row and column sums (so the CPU pipeline's integer micro-kernel computes them on the
//! 8-bit data); convolutions likewise, as `i32` convolutions of the widened operands
//! (the input padded with its zero point) with the zero points applied after them
//! through window and weight sums. Quantized results are rounded half to even, shifted
//! by the zero point and saturated to the target type's range.

use tb_dialects::graph::shape;
use tb_interpreter::{DType, Tensor};

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, ints_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use super::narrow_cast::round_to_float;
use crate::attribute::NodeAttrs;
use crate::narrow::{FloatFormat, NarrowType};

/// The range of an integer quantized type, or an error for the others.
fn quantized_range(dtype: DType) -> Result<(f64, f64), Problem> {
    Ok(match dtype {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::U16 => (0.0, 65535.0),
        DType::I16 => (-32768.0, 32767.0),
        other => {
            return Err(Problem::unsupported(format!(
                "quantization to {other} is not supported (uint8, int8, uint16 and int16 are)"
            )));
        }
    })
}

fn normalize_axis(axis: i64, rank: usize) -> Result<usize, Problem> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Problem::invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// A scale or zero point (input `i`) made to broadcast against a tensor of `shape`:
/// one element as is, a vector along `axis` (per-axis), or blocks of `block_size` along
/// `axis` repeated to `shape` (blocked).
fn along_axis(
    cx: &NodeCx,
    e: &mut Expander,
    i: usize,
    shape: &[i64],
    axis: i64,
    block_size: i64,
) -> Result<String, Problem> {
    let name = cx.node.input[i].as_str();
    let v = cx.shape(i)?;
    let count: i64 = v.iter().product();
    if count == 1 {
        return Ok(if v.is_empty() {
            name.to_string()
        } else {
            let scalar = e.ints(&[]);
            e.op("Reshape", &[name, &scalar], vec![])
        });
    }
    let axis = normalize_axis(axis, shape.len())?;
    if block_size > 0 {
        let blocks = (shape[axis] + block_size - 1) / block_size;
        let mut expected = shape.to_vec();
        expected[axis] = blocks;
        if v != expected.as_slice() {
            return Err(Problem::invalid(format!(
                "input '{name}' must have shape {expected:?} for blocks of {block_size} along \
                 axis {axis}, got {v:?}"
            )));
        }
        let repeat: Vec<i64> = (0..shape[axis]).map(|k| k / block_size).collect();
        let repeat = e.ints(&repeat);
        return Ok(e.op(
            "Gather",
            &[name, &repeat],
            vec![int_attr("axis", axis as i64)],
        ));
    }
    if v != [shape[axis]] {
        return Err(Problem::invalid(format!(
            "input '{name}' must hold one value or one per element of axis {axis} ({}), got \
             shape {v:?}",
            shape[axis]
        )));
    }
    let mut view = vec![1; shape.len()];
    view[axis] = shape[axis];
    let view = e.ints(&view);
    Ok(e.op("Reshape", &[name, &view], vec![]))
}

/// `round(value) + zero_point`, saturated to `target`'s range and cast to it; `value` and
/// `zero_point` are of the float type `work`.
fn requantize(
    e: &mut Expander,
    value: &str,
    zero_point: Option<&str>,
    work: DType,
    target: Quantized,
    out: &str,
) -> Result<(), Problem> {
    let (dtype, (lo, hi)) = match target {
        Quantized::Int(dtype) => (dtype, quantized_range(dtype)?),
        Quantized::NarrowInt(carrier, (lo, hi)) => (carrier, (lo as f64, hi as f64)),
        Quantized::Float(format, saturate) => {
            // To a narrow float: rounded by the cast itself, with no integer rounding first.
            let value = match zero_point {
                Some(zp) => e.op("Add", &[value, zp], vec![]),
                None => value.to_string(),
            };
            let value = if work == DType::F32 {
                value
            } else {
                cast(e, &value, DType::F32)
            };
            round_to_float(e, &value, format, saturate, out);
            return Ok(());
        }
    };
    let rounded = e.op("Round", &[value], vec![]);
    let shifted = match zero_point {
        Some(zp) => e.op("Add", &[&rounded, zp], vec![]),
        None => rounded,
    };
    let lo = e.scalar_like(lo, work);
    let hi = e.scalar_like(hi, work);
    let saturated = e.op("Clip", &[&shifted, &lo, &hi], vec![]);
    e.op_to("Cast", &[&saturated], vec![to_attr(dtype)], out);
    Ok(())
}

/// The type a quantization produces.
#[derive(Clone, Copy)]
enum Quantized {
    /// uint8, int8, uint16 or int16.
    Int(DType),
    /// A 4- or 2-bit integer: its carrier and range.
    NarrowInt(DType, (i64, i64)),
    /// An 8- or 4-bit float, in f32, and whether it saturates.
    Float(FloatFormat, bool),
}

impl Quantized {
    fn of(cx: &NodeCx, dtype: DType, narrow: Option<NarrowType>) -> Result<Quantized, Problem> {
        let Some(narrow) = narrow else {
            quantized_range(dtype)?;
            return Ok(Quantized::Int(dtype));
        };
        if let Some(range) = narrow.int_range() {
            return Ok(Quantized::NarrowInt(narrow.carrier(), range));
        }
        let format = narrow.float_format().ok_or_else(|| {
            Problem::unsupported(format!(
                "quantization to {} is not supported",
                narrow.name()
            ))
        })?;
        let saturate = cx.node.attr_int_or("saturate", 1).map_err(attr_problem)? != 0;
        Ok(Quantized::Float(format, saturate))
    }
}

fn cast(e: &mut Expander, v: &str, dtype: DType) -> String {
    e.op("Cast", &[v], vec![to_attr(dtype)])
}

/// The quantized type a node produces: its zero point's, else `output_dtype`, else uint8.
fn quantized_type(cx: &NodeCx, zero_point: usize) -> Result<Quantized, Problem> {
    if cx.has_input(zero_point) {
        let input = cx.input(zero_point)?;
        return Quantized::of(cx, input.dtype, input.narrow);
    }
    match cx.node.attr_int("output_dtype").map_err(attr_problem)? {
        Some(t) if t != 0 => {
            let code = i32::try_from(t).unwrap_or(0);
            if let Some(narrow) = NarrowType::from_onnx(code) {
                return Quantized::of(cx, narrow.carrier(), Some(narrow));
            }
            let dtype = crate::dtype_from_onnx(code).ok_or_else(|| {
                Problem::unsupported(format!("output_dtype {t} is not a supported element type"))
            })?;
            Quantized::of(cx, dtype, None)
        }
        _ => Ok(Quantized::Int(DType::U8)),
    }
}

fn check_float(cx: &NodeCx, i: usize, what: &str) -> Result<DType, Problem> {
    let dtype = cx.input(i)?.dtype;
    if !dtype.is_float() {
        return Err(Problem::invalid(format!(
            "{what} must be a floating-point tensor, got {dtype}"
        )));
    }
    Ok(dtype)
}

/// QuantizeLinear: `saturate(round(x / y_scale) + y_zero_point)`, per tensor, per axis or
/// per block.
pub fn quantize_linear(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    if n.attr_int("precision")
        .map_err(attr_problem)?
        .is_some_and(|p| p != 0)
    {
        return Err(Problem::unsupported(
            "QuantizeLinear's 'precision' attribute is not supported",
        ));
    }
    let dtype = check_float(cx, 0, "x")?;
    let out_type = quantized_type(cx, 2)?;
    let shape = cx.shape(0)?.to_vec();
    let axis = n.attr_int_or("axis", 1).map_err(attr_problem)?;
    let block_size = n.attr_int_or("block_size", 0).map_err(attr_problem)?;
    let mut e = Expander::new(n);
    let scale = along_axis(cx, &mut e, 1, &shape, axis, block_size)?;
    let quotient = e.op("Div", &[&n.input[0], &scale], vec![]);
    // Half-precision quotients are rounded in f32, where every quantized value is exact.
    let work = if dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let quotient = if dtype == work {
        quotient
    } else {
        cast(&mut e, &quotient, work)
    };
    let zero_point = if cx.has_input(2) {
        let zp = along_axis(cx, &mut e, 2, &shape, axis, block_size)?;
        Some(cast(&mut e, &zp, work))
    } else {
        None
    };
    requantize(
        &mut e,
        &quotient,
        zero_point.as_deref(),
        work,
        out_type,
        &n.output[0],
    )?;
    Ok(Lowering::Expand(e.finish()))
}

/// DequantizeLinear: `(x - x_zero_point) * x_scale`, in the scale's type (or
/// `output_dtype`).
pub fn dequantize_linear(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let x_type = cx.input(0)?.dtype;
    if !x_type.is_int() && cx.input(0)?.narrow.is_none() {
        return Err(Problem::unsupported(format!(
            "DequantizeLinear of {x_type} tensors is not supported (integers and the narrow \
             types only)"
        )));
    }
    let scale_type = check_float(cx, 1, "x_scale")?;
    let out_type = match n.attr_int("output_dtype").map_err(attr_problem)? {
        Some(t) if t != 0 => crate::dtype_from_onnx(t as i32).ok_or_else(|| {
            Problem::unsupported(format!("output_dtype {t} is not a supported element type"))
        })?,
        _ => scale_type,
    };
    let shape = cx.shape(0)?.to_vec();
    let axis = n.attr_int_or("axis", 1).map_err(attr_problem)?;
    let block_size = n.attr_int_or("block_size", 0).map_err(attr_problem)?;
    let work = if scale_type == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let mut e = Expander::new(n);
    let x = cast(&mut e, &n.input[0], work);
    let centered = if cx.has_input(2) {
        let zp = along_axis(cx, &mut e, 2, &shape, axis, block_size)?;
        let zp = cast(&mut e, &zp, work);
        e.op("Sub", &[&x, &zp], vec![])
    } else {
        x
    };
    let scale = along_axis(cx, &mut e, 1, &shape, axis, block_size)?;
    let scale = if scale_type == work {
        scale
    } else {
        cast(&mut e, &scale, work)
    };
    if out_type == work {
        e.op_to("Mul", &[&centered, &scale], vec![], &n.output[0]);
    } else {
        let y = e.op("Mul", &[&centered, &scale], vec![]);
        e.op_to("Cast", &[&y], vec![to_attr(out_type)], &n.output[0]);
    }
    Ok(Lowering::Expand(e.finish()))
}

/// DynamicQuantizeLinear: uint8 quantization whose range covers `[min(x, 0), max(x, 0)]`;
/// gives `y`, `y_scale` and `y_zero_point`.
pub fn dynamic_quantize_linear(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(3)?;
    let n = cx.node;
    let dtype = cx.input(0)?.dtype;
    if dtype != DType::F32 {
        return Err(Problem::invalid(format!(
            "x must be a float32 tensor, got {dtype}"
        )));
    }
    let output = |k: usize| {
        n.output
            .get(k)
            .filter(|o| !o.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("{}/tb.output{k}", n.output[0]))
    };
    let (y, scale_out, zp_out) = (output(0), output(1), output(2));
    let mut e = Expander::new(n);
    let x = n.input[0].as_str();
    let zero = e.scalar_like(0.0, DType::F32);
    let all = vec![int_attr("keepdims", 0)];
    let low = e.op("ReduceMin", &[x], all.clone());
    let low = e.op("Min", &[&low, &zero], vec![]);
    let high = e.op("ReduceMax", &[x], all);
    let high = e.op("Max", &[&high, &zero], vec![]);
    let span = e.op("Sub", &[&high, &low], vec![]);
    let levels = e.scalar_like(255.0, DType::F32);
    e.op_to("Div", &[&span, &levels], vec![], &scale_out);
    let low_steps = e.op("Div", &[&low, &scale_out], vec![]);
    let zp = e.op("Sub", &[&zero, &low_steps], vec![]);
    let top = e.scalar_like(255.0, DType::F32);
    let zp = e.op("Clip", &[&zp, &zero, &top], vec![]);
    let zp = e.op("Round", &[&zp], vec![]);
    e.op_to("Cast", &[&zp], vec![to_attr(DType::U8)], &zp_out);
    e.op_to("QuantizeLinear", &[x, &scale_out, &zp_out], vec![], &y);
    Ok(Lowering::Expand(e.finish()))
}

/// An integer operand minus its zero point (input `zp`), in `work`; `view` reshapes a
/// per-row or per-channel zero point so it broadcasts.
fn centered(
    cx: &NodeCx,
    e: &mut Expander,
    v: usize,
    zp: usize,
    work: DType,
    view: Option<Vec<i64>>,
) -> Result<String, Problem> {
    let value = cast(e, &cx.node.input[v], work);
    if !cx.has_input(zp) {
        return Ok(value);
    }
    let count: i64 = cx.shape(zp)?.iter().product();
    let zero_point = match view {
        Some(view) if count > 1 => {
            let view = e.ints(&view);
            e.op("Reshape", &[&cx.node.input[zp], &view], vec![])
        }
        _ => cx.node.input[zp].clone(),
    };
    let zero_point = cast(e, &zero_point, work);
    Ok(e.op("Sub", &[&value, &zero_point], vec![]))
}

fn check_integer(cx: &NodeCx, inputs: &[usize]) -> Result<(), Problem> {
    for &i in inputs {
        let dtype = cx.input(i)?.dtype;
        if !matches!(dtype, DType::U8 | DType::I8) {
            return Err(Problem::invalid(format!(
                "input '{}' must be uint8 or int8, got {dtype}",
                cx.node.input[i]
            )));
        }
    }
    Ok(())
}

/// A per-row zero point of a matrix `[.., M, K]` as `[M, 1]`.
fn row_view(shape: &[i64]) -> Option<Vec<i64>> {
    (shape.len() >= 2).then(|| vec![shape[shape.len() - 2], 1])
}

/// Whether zero point input `zp` is absent or a constant of zeros.
fn zero_point_is_zero(cx: &NodeCx, zp: usize) -> bool {
    if !cx.has_input(zp) {
        return true;
    }
    cx.input(zp).ok().and_then(|i| i.constant).is_some_and(|t| {
        t.to_i64_vec()
            .is_ok_and(|values| values.iter().all(|&v| v == 0))
    })
}

/// `(a - a_zp) @ (b - b_zp)` in int32 for the integer inputs `a`, `b` and their zero
/// points (per tensor, per row of `a`, per column of `b`). The matmul multiplies the
/// widened 8-bit operands themselves, so `te-fuse` inlines the widening into it and the
/// integer micro-kernel reads 8-bit data; the zero points are applied after it with the
/// row and column sums: `a @ b - rowsum(a) * b_zp - a_zp * colsum(b) + K * a_zp * b_zp`,
/// exact in int32. A vector operand (rank 1) subtracts its zero points first instead.
fn integer_product(
    cx: &NodeCx,
    e: &mut Expander,
    [a, a_zp, b, b_zp]: [usize; 4],
) -> Result<String, Problem> {
    let a_shape = cx.shape(a)?.to_vec();
    let b_shape = cx.shape(b)?.to_vec();
    if a_shape.len() < 2 || b_shape.len() < 2 {
        let a = centered(cx, e, a, a_zp, DType::I32, row_view(&a_shape))?;
        let b = centered(cx, e, b, b_zp, DType::I32, None)?;
        return Ok(e.op("MatMul", &[&a, &b], vec![]));
    }
    let n = cx.node;
    let a32 = cast(e, &n.input[a], DType::I32);
    let b32 = cast(e, &n.input[b], DType::I32);
    let mut product = e.op("MatMul", &[&a32, &b32], vec![]);
    let keep = vec![int_attr("keepdims", 1)];
    let a_point = (!zero_point_is_zero(cx, a_zp)).then(|| {
        let count: i64 = cx.shape(a_zp).map_or(1, |s| s.iter().product());
        let point = if count > 1 {
            let view = e.ints(&[a_shape[a_shape.len() - 2], 1]);
            e.op("Reshape", &[&n.input[a_zp], &view], vec![])
        } else {
            n.input[a_zp].clone()
        };
        cast(e, &point, DType::I32)
    });
    let b_point = (!zero_point_is_zero(cx, b_zp)).then(|| cast(e, &n.input[b_zp], DType::I32));
    if let Some(b_point) = &b_point {
        let last = e.ints(&[-1]);
        let row_sums = e.op("ReduceSum", &[&a32, &last], keep.clone());
        let term = e.op("Mul", &[&row_sums, b_point], vec![]);
        product = e.op("Sub", &[&product, &term], vec![]);
    }
    if let Some(a_point) = &a_point {
        let rows = e.ints(&[-2]);
        let column_sums = e.op("ReduceSum", &[&b32, &rows], keep);
        let term = e.op("Mul", &[a_point, &column_sums], vec![]);
        product = e.op("Sub", &[&product, &term], vec![]);
    }
    if let (Some(a_point), Some(b_point)) = (&a_point, &b_point) {
        let k = e.scalar_like(a_shape[a_shape.len() - 1] as f64, DType::I32);
        let points = e.op("Mul", &[a_point, b_point], vec![]);
        let term = e.op("Mul", &[&points, &k], vec![]);
        product = e.op("Add", &[&product, &term], vec![]);
    }
    Ok(product)
}

/// MatMulInteger: `(A - a_zero_point) @ (B - b_zero_point)` in int32.
pub fn matmul_integer(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    check_integer(cx, &[0, 1])?;
    let n = cx.node;
    let mut e = Expander::new(n);
    let product = integer_product(cx, &mut e, [0, 2, 1, 3])?;
    e.op_to("Identity", &[&product], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}

/// A per-output-channel view `[M, 1, ...]` for a weight of `shape`.
fn channel_view(shape: &[i64]) -> Option<Vec<i64>> {
    let mut view = vec![1; shape.len()];
    *view.first_mut()? = shape[0];
    Some(view)
}

/// `(x - x_zp) conv (w - w_zp)` (plus an int32 `bias`) in int32, for the 8-bit inputs
/// of a ConvInteger or QLinearConv node. As for the matmuls, the convolution multiplies
/// the widened 8-bit operands themselves, so the CPU pipeline computes it on the 8-bit
/// data (`convert-graph-to-te` writes an unpadded integer conv as a matmul over the
/// windows, which `loop-int-matmul-microkernel` blocks), and the zero points are applied
/// after it: `sum x w - w_zp * winsum(x) - x_zp * (sum w - K w_zp)` over each window of
/// `K` taps. The input is first padded with `x_zp` (not 0), so padded taps are centered
/// zeros and every window has all `K` taps.
fn integer_conv(
    cx: &NodeCx,
    e: &mut Expander,
    [x, x_zp, w, w_zp]: [usize; 4],
    bias: Option<usize>,
) -> Result<String, Problem> {
    let n = cx.node;
    let (x_shape, w_shape) = (cx.shape(x)?.to_vec(), cx.shape(w)?.to_vec());
    let attrs = shape::ConvAttrs {
        kernel_shape: n.attr_ints("kernel_shape").map_err(attr_problem)?,
        strides: n
            .attr_ints("strides")
            .map_err(attr_problem)?
            .unwrap_or_default(),
        pads: n
            .attr_ints("pads")
            .map_err(attr_problem)?
            .unwrap_or_default(),
        dilations: n
            .attr_ints("dilations")
            .map_err(attr_problem)?
            .unwrap_or_default(),
        group: n.attr_int_or("group", 1).map_err(attr_problem)?,
        auto_pad: shape::AutoPad::parse(
            &n.attr_string_or("auto_pad", "NOTSET")
                .map_err(attr_problem)?,
        )
        .map_err(Problem::invalid)?,
    };
    let g = shape::conv_geometry(&x_shape, &w_shape, None, &attrs)
        .map_err(|e| Problem::invalid(e.message))?;
    let (groups, m) = (attrs.group.max(1), w_shape[0]);
    let ns = g.kernel.len();
    let taps = w_shape[1..].iter().product::<i64>();
    let scalar_point = |i: usize, what: &str| -> Result<(), Problem> {
        if cx.has_input(i) && cx.shape(i)?.iter().product::<i64>() != 1 {
            return Err(Problem::invalid(format!(
                "{what} must hold one value (per-tensor), got shape {:?}",
                cx.shape(i)?
            )));
        }
        Ok(())
    };
    scalar_point(x_zp, "x_zero_point")?;
    if cx.has_input(w_zp) {
        let count: i64 = cx.shape(w_zp)?.iter().product();
        if count != 1 && cx.shape(w_zp)? != [m] {
            return Err(Problem::invalid(format!(
                "w_zero_point must hold one value or one per output channel ({m}), got shape \
                 {:?}",
                cx.shape(w_zp)?
            )));
        }
    }
    let x_point = (!zero_point_is_zero(cx, x_zp)).then(|| {
        let scalar = e.ints(&[]);
        e.op("Reshape", &[&n.input[x_zp], &scalar], vec![])
    });
    let padded = pad_with_zero_point(cx, e, [x, x_zp], x_point.as_deref(), &g)?;
    let x32 = cast(e, &padded, DType::I32);
    let w32 = cast(e, &n.input[w], DType::I32);
    // The window attributes without the padding, which is now in the input.
    let mut window = vec![int_attr("group", groups)];
    window.push(ints_attr("kernel_shape", &g.kernel));
    window.push(ints_attr("strides", &g.strides));
    window.push(ints_attr("dilations", &g.dilations));
    let mut operands = vec![x32.clone(), w32.clone()];
    if let Some(b) = bias {
        operands.push(n.input[b].clone());
    }
    let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
    let mut product = e.op("Conv", &refs, window.clone());
    // Per output channel values broadcast over [N, M, spatial...] as [M, 1, ...].
    let mut channel = vec![m];
    channel.extend(std::iter::repeat_n(1, ns));
    let w_point = (!zero_point_is_zero(cx, w_zp)).then(|| {
        let point = if cx.shape(w_zp).map_or(1, |s| s.iter().product::<i64>()) > 1 {
            let view = e.ints(&channel);
            e.op("Reshape", &[&n.input[w_zp], &view], vec![])
        } else {
            let scalar = e.ints(&[]);
            e.op("Reshape", &[&n.input[w_zp], &scalar], vec![])
        };
        cast(e, &point, DType::I32)
    });
    if let Some(w_point) = &w_point {
        let sums = window_sums(e, &x32, &x_shape, &g, groups, m, &window);
        let term = e.op("Mul", &[w_point, &sums], vec![]);
        product = e.op("Sub", &[&product, &term], vec![]);
    }
    if let Some(x_point) = &x_point {
        let x_point = cast(e, x_point, DType::I32);
        let axes: Vec<i64> = (1..w_shape.len() as i64).collect();
        let axes = e.ints(&axes);
        let keep = vec![int_attr("keepdims", 1)];
        let weight_sums = e.op("ReduceSum", &[&w32, &axes], keep);
        let view = e.ints(&channel);
        let mut weight_sums = e.op("Reshape", &[&weight_sums, &view], vec![]);
        if let Some(w_point) = &w_point {
            let k = e.scalar_like(taps as f64, DType::I32);
            let all = e.op("Mul", &[w_point, &k], vec![]);
            weight_sums = e.op("Sub", &[&weight_sums, &all], vec![]);
        }
        let term = e.op("Mul", &[&x_point, &weight_sums], vec![]);
        product = e.op("Sub", &[&product, &term], vec![]);
    }
    Ok(product)
}

/// Input `x` padded by the geometry's pads with `point` (input `x_zp`, the zero point, as a
/// scalar of `x`'s type; zero when absent). A constant zero point is Pad's constant value; one
/// computed at run time fills the border through a constant mask.
fn pad_with_zero_point(
    cx: &NodeCx,
    e: &mut Expander,
    [x, x_zp]: [usize; 2],
    point: Option<&str>,
    g: &shape::WindowGeometry,
) -> Result<String, Problem> {
    let n = cx.node;
    let name = n.input[x].as_str();
    if g.pads_begin.iter().chain(&g.pads_end).all(|&p| p == 0) {
        return Ok(name.to_string());
    }
    let mut pads = vec![0, 0];
    pads.extend(&g.pads_begin);
    pads.extend([0, 0]);
    pads.extend(&g.pads_end);
    let pads = e.ints(&pads);
    let dtype = cx.input(x)?.dtype;
    // The zero point's value when known now.
    let known = match point {
        None => Some(0),
        Some(_) => cx
            .input(x_zp)?
            .constant
            .and_then(|t| t.to_i64_vec().ok())
            .and_then(|v| v.first().copied()),
    };
    if let Some(value) = known {
        let value = e.constant(Tensor::scalar(value as f64).cast(dtype));
        return Ok(e.op("Pad", &[name, &pads, &value], vec![]));
    }
    let point = point.unwrap_or(name);
    let zero = e.constant(Tensor::scalar(0.0).cast(dtype));
    let zero_padded = e.op("Pad", &[name, &pads, &zero], vec![]);
    // inside[1, 1, padded spatial...]: true where the padded input holds x.
    let mut mask_shape = vec![1, 1];
    let mut inside = vec![true];
    for d in 0..g.kernel.len() {
        let (begin, size, end) = (g.pads_begin[d], g.input_spatial[d], g.pads_end[d]);
        let total = begin + size + end;
        mask_shape.push(total);
        let axis: Vec<bool> = (0..total).map(|i| i >= begin && i < begin + size).collect();
        inside = inside
            .iter()
            .flat_map(|&outer| axis.iter().map(move |&a| outer && a))
            .collect();
    }
    let mask = Tensor::from_vec(mask_shape, inside)
        .map_err(|e| Problem::invalid(format!("the padding mask: {e}")))?;
    let mask = e.constant(mask);
    Ok(e.op("Where", &[&mask, &zero_padded, point], vec![]))
}

/// The sums of the padded int32 input `x32` over each window of the convolution, per
/// group, as `[N, M, out...]` (or `[N, 1, out...]` for one group): the channels of each
/// group summed first, then a convolution by ones over the taps.
fn window_sums(
    e: &mut Expander,
    x32: &str,
    x_shape: &[i64],
    g: &shape::WindowGeometry,
    groups: i64,
    m: i64,
    window: &[crate::proto::AttributeProto],
) -> String {
    let batch = x_shape[0];
    let spatial: Vec<i64> = (0..g.kernel.len())
        .map(|d| g.input_spatial[d] + g.pads_begin[d] + g.pads_end[d])
        .collect();
    let mut split = vec![batch, groups, x_shape[1] / groups];
    split.extend(&spatial);
    let split = e.ints(&split);
    let grouped = e.op("Reshape", &[x32, &split], vec![]);
    let channel_axis = e.ints(&[2]);
    let summed = e.op(
        "ReduceSum",
        &[&grouped, &channel_axis],
        vec![int_attr("keepdims", 0)],
    );
    let mut ones_shape = vec![groups, 1];
    ones_shape.extend(&g.kernel);
    let count: i64 = ones_shape.iter().product();
    let ones = Tensor::from_vec(ones_shape, vec![1i32; count as usize])
        .expect("the ones' length matches their shape");
    let ones = e.constant(ones);
    let sums = e.op("Conv", &[&summed, &ones], window.to_vec());
    if groups == 1 {
        return sums;
    }
    // [N, G, out...] -> [N, G, M/G, out...] -> [N, M, out...].
    let mut spread = vec![batch, groups, 1];
    spread.extend(&g.output_spatial);
    let spread = e.ints(&spread);
    let spread = e.op("Reshape", &[&sums, &spread], vec![]);
    let mut full = vec![batch, groups, m / groups];
    full.extend(&g.output_spatial);
    let full = e.ints(&full);
    let expanded = e.op("Expand", &[&spread, &full], vec![]);
    let out = e.ints(&g.output);
    e.op("Reshape", &[&expanded, &out], vec![])
}

/// ConvInteger: the convolution of `x - x_zero_point` and `w - w_zero_point` (per output
/// channel), in int32.
pub fn conv_integer(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    check_integer(cx, &[0, 1])?;
    let n = cx.node;
    let mut e = Expander::new(n);
    let y = integer_conv(cx, &mut e, [0, 2, 1, 3], None)?;
    e.op_to("Identity", &[&y], vec![], &n.output[0]);
    Ok(Lowering::Expand(e.finish()))
}

/// `a_scale * b_scale / y_scale` in the scales' type, then in `f64`; `b_view` reshapes
/// a per-channel `b_scale`.
fn multiplier(
    cx: &NodeCx,
    e: &mut Expander,
    scales: [usize; 3],
    b_view: Option<Vec<i64>>,
) -> Result<String, Problem> {
    let [a, b, y] = scales.map(|i| cx.node.input[i].clone());
    let b_count: i64 = cx.shape(scales[1])?.iter().product();
    let b = match b_view {
        Some(view) if b_count > 1 => {
            let view = e.ints(&view);
            e.op("Reshape", &[&b, &view], vec![])
        }
        _ => b,
    };
    let product = e.op("Mul", &[&a, &b], vec![]);
    let ratio = e.op("Div", &[&product, &y], vec![]);
    Ok(cast(e, &ratio, DType::F64))
}

/// QLinearMatMul: `saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale / y_scale)
/// + y_zp)`.
pub fn qlinear_matmul(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    check_integer(cx, &[0, 3])?;
    let n = cx.node;
    let out_type = Quantized::of(cx, cx.input(7)?.dtype, None)?;
    let mut e = Expander::new(n);
    let product = integer_product(cx, &mut e, [0, 2, 3, 5])?;
    let product = cast(&mut e, &product, DType::F64);
    let multiplier = multiplier(cx, &mut e, [1, 4, 6], None)?;
    let scaled = e.op("Mul", &[&product, &multiplier], vec![]);
    let zp = cast(&mut e, &n.input[7], DType::F64);
    requantize(
        &mut e,
        &scaled,
        Some(&zp),
        DType::F64,
        out_type,
        &n.output[0],
    )?;
    Ok(Lowering::Expand(e.finish()))
}

/// QLinearConv: the convolution of the centered operands (plus the int32 bias), scaled by
/// `x_scale * w_scale / y_scale` (per output channel where `w_scale` is) and requantized.
pub fn qlinear_conv(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    check_integer(cx, &[0, 3])?;
    let n = cx.node;
    let w_shape = cx.shape(3)?.to_vec();
    let out_type = Quantized::of(cx, cx.input(7)?.dtype, None)?;
    if cx.has_input(8) && cx.input(8)?.dtype != DType::I32 {
        return Err(Problem::invalid(format!(
            "B must be an int32 tensor, got {}",
            cx.input(8)?.dtype
        )));
    }
    let mut e = Expander::new(n);
    let bias = cx.has_input(8).then_some(8);
    let y = integer_conv(cx, &mut e, [0, 2, 3, 5], bias)?;
    let y = cast(&mut e, &y, DType::F64);
    // A per-channel scale broadcasts over [N, M, spatial...] as [M, 1, ...].
    let view = channel_view(&w_shape[..w_shape.len().saturating_sub(1)]);
    let multiplier = multiplier(cx, &mut e, [1, 4, 6], view)?;
    let scaled = e.op("Mul", &[&y, &multiplier], vec![]);
    let zp = cast(&mut e, &n.input[7], DType::F64);
    requantize(
        &mut e,
        &scaled,
        Some(&zp),
        DType::F64,
        out_type,
        &n.output[0],
    )?;
    Ok(Lowering::Expand(e.finish()))
}
