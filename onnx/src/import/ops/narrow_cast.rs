//! Cast and CastLike to and from the narrow types ([`crate::narrow`]), which travel in
//! carrier tensors. From a narrow type nothing is left to do: the carrier holds the exact
//! values, so a plain cast of the carrier converts them. To a narrow type, the value is
//! rounded the way ONNX specifies, in simpler ops:
//! - a float format: round to nearest even at the binade's spacing (found by comparing
//!   `|x|` with each power of two of the format's exponent range), then, above the largest
//!   finite value, saturate (the default), or give ±inf (FLOAT8E5M2) or NaN; FLOAT4E2M1
//!   always saturates and takes NaN to 0;
//! - an integer type: truncate, then wrap into the type's range, as numpy's conversion
//!   (ONNX's reference) does.

use tb_interpreter::DType;

use super::super::error::Problem;
use super::super::expansion::{Expander, int_attr, to_attr};
use super::super::node::{Lowering, NodeCx, attr_problem};
use super::simple;
use crate::attribute::NodeAttrs;
use crate::narrow::{FloatFormat, NarrowType};

/// Cast: to a narrow type by rounding; anything else as the graph dialect's cast.
pub fn cast(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    let to = cx.node.attr_int("to").map_err(attr_problem)?;
    match to
        .and_then(|t| i32::try_from(t).ok())
        .and_then(NarrowType::from_onnx)
    {
        Some(narrow) => cast_to_narrow(cx, narrow),
        None => simple::convert(cx, "graph.cast"),
    }
}

/// CastLike: to the second input's type, which may be narrow.
pub fn cast_like(cx: &mut NodeCx) -> Result<Lowering, Problem> {
    match cx.input(1)?.narrow {
        Some(narrow) => cast_to_narrow(cx, narrow),
        None => simple::cast_like(cx),
    }
}

fn cast_to_narrow(cx: &mut NodeCx, narrow: NarrowType) -> Result<Lowering, Problem> {
    cx.at_most_outputs(1)?;
    let n = cx.node;
    let saturate = n.attr_int_or("saturate", 1).map_err(attr_problem)? != 0;
    let dtype = cx.input(0)?.dtype;
    let mut e = Expander::new(n);
    let out = n.output[0].as_str();
    if let Some(format) = narrow.float_format() {
        if !(dtype.is_float() || dtype.is_int()) {
            return Err(Problem::unsupported(format!(
                "Cast of {dtype} tensors to {} is not supported",
                narrow.name()
            )));
        }
        let x = carried(&mut e, &n.input[0], dtype, DType::F32);
        round_to_float(&mut e, &x, format, saturate, out);
    } else if let Some(range) = narrow.int_range() {
        if dtype == DType::Bool {
            e.op_to("Cast", &[&n.input[0]], vec![to_attr(narrow.carrier())], out);
        } else {
            let x = carried(&mut e, &n.input[0], dtype, DType::I64);
            wrap_to_int(&mut e, &x, range, narrow.carrier(), out);
        }
    } else {
        return Err(Problem::unsupported(format!(
            "Cast to {} (power-of-two rounding) is not supported",
            narrow.name()
        )));
    }
    Ok(Lowering::Expand(e.finish()))
}

/// `x` as a `work` tensor.
fn carried(e: &mut Expander, x: &str, dtype: DType, work: DType) -> String {
    if dtype == work {
        x.to_string()
    } else {
        e.op("Cast", &[x], vec![to_attr(work)])
    }
}

/// Writes to `out` the f32 `x` rounded to `format`.
pub fn round_to_float(e: &mut Expander, x: &str, format: FloatFormat, saturate: bool, out: &str) {
    let FloatFormat {
        mantissa_bits: m,
        min_exponent,
        max,
        has_inf,
        has_nan,
    } = format;
    let f32_scalar = |e: &mut Expander, v: f64| e.scalar_like(v, DType::F32);
    // The spacing of representable values around |x|: 2^(exponent - m), the exponent
    // clamped below at the smallest normal one (subnormals share its spacing).
    let magnitude = e.op("Abs", &[x], vec![]);
    let max_exponent = max.log2().floor() as i32;
    let mut spacing = f32_scalar(e, 2f64.powi(min_exponent - m));
    for k in min_exponent + 1..=max_exponent {
        let bound = f32_scalar(e, 2f64.powi(k));
        let in_binade = e.op("GreaterOrEqual", &[&magnitude, &bound], vec![]);
        let step = f32_scalar(e, 2f64.powi(k - m));
        spacing = e.op("Where", &[&in_binade, &step, &spacing], vec![]);
    }
    // Scaling by a power of two is exact, so this rounds once, half to even.
    let steps = e.op("Div", &[x, &spacing], vec![]);
    let steps = e.op("Round", &[&steps], vec![]);
    let rounded = e.op("Mul", &[&steps, &spacing], vec![]);
    // Beyond the largest finite value: saturate, or overflow to ±inf or NaN. Comparisons
    // with NaN are false, so NaN passes through.
    let (high, low) = if saturate || !has_nan {
        (f32_scalar(e, max), f32_scalar(e, -max))
    } else if has_inf {
        (
            f32_scalar(e, f64::INFINITY),
            f32_scalar(e, f64::NEG_INFINITY),
        )
    } else {
        let nan = f32_scalar(e, f64::NAN);
        (nan.clone(), nan)
    };
    let top = f32_scalar(e, max);
    let bottom = f32_scalar(e, -max);
    let above = e.op("Greater", &[&rounded, &top], vec![]);
    let below = e.op("Less", &[&rounded, &bottom], vec![]);
    let clamped_low = e.op("Where", &[&below, &low, &rounded], vec![]);
    if has_nan {
        e.op_to("Where", &[&above, &high, &clamped_low], vec![], out);
    } else {
        // A format without NaN (FLOAT4E2M1) takes NaN to zero.
        let clamped = e.op("Where", &[&above, &high, &clamped_low], vec![]);
        let is_nan = e.op("IsNaN", &[x], vec![]);
        let zero = f32_scalar(e, 0.0);
        e.op_to("Where", &[&is_nan, &zero, &clamped], vec![], out);
    }
}

/// Writes to `out` the i64 `x` wrapped into `[lo, hi]`, as a `carrier` tensor.
fn wrap_to_int(e: &mut Expander, x: &str, (lo, hi): (i64, i64), carrier: DType, out: &str) {
    let i64_scalar = |e: &mut Expander, v: i64| e.scalar_like(v as f64, DType::I64);
    let low = i64_scalar(e, lo);
    let modulus = i64_scalar(e, hi - lo + 1);
    let offset = e.op("Sub", &[x, &low], vec![]);
    // fmod = 0: the remainder takes the divisor's sign, so it lies in [0, modulus).
    let wrapped = e.op("Mod", &[&offset, &modulus], vec![int_attr("fmod", 0)]);
    let value = e.op("Add", &[&wrapped, &low], vec![]);
    e.op_to("Cast", &[&value], vec![to_attr(carrier)], out);
}
