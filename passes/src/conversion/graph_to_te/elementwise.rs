//! Elementwise ops: activations and unary math, binary arithmetic and comparisons with
//! numpy broadcasting (a size-1 dimension reads index 0), logic, `where`, `clip`, `cast`
//! and the variadic max/min/sum/mean. Each becomes one `te.compute` whose body applies
//! the scalar function; f16/bf16 compute in f32.

use tb_dialects::graph::attrs::Scalar;
use tb_dialects::graph::{Unary, UnaryOfOp};
use tb_ir::Value;

use super::LowerFn;
use super::builder::{Body, Cmp, LowerResult, Lowering, is_float_type, is_unsigned, no_lowering};
use tb_dialects::graph::GraphOp;
use tb_ir::ods::OpKind;

pub(super) fn lowering(kind: GraphOp) -> Option<LowerFn> {
    use GraphOp as G;
    Some(match kind {
        G::Identity => identity,
        G::Cast => cast,
        G::Clip => clip,
        G::IsNan => is_nan,
        G::IsInf => is_inf,
        G::Not => not,
        G::Add | G::Sub | G::Mul | G::Div | G::Mod | G::Pow | G::Prelu => arithmetic,
        G::Equal | G::Less | G::LessOrEqual | G::Greater | G::GreaterOrEqual => compare,
        G::And | G::Or | G::Xor => logic,
        G::BitwiseAnd | G::BitwiseOr | G::BitwiseXor | G::BitwiseNot => bitwise,
        G::BitShift => bit_shift,
        G::Where => where_,
        G::Max | G::Min | G::Sum | G::Mean => variadic,
        _ if Unary::is_unary_op(kind.name()) => unary,
        _ => return None,
    })
}

fn short_name(l: &Lowering) -> String {
    let name = l.ctx.op_name(l.op);
    name.strip_prefix("graph.").unwrap_or(name).to_string()
}

fn identity(l: &mut Lowering) -> LowerResult {
    Ok(vec![l.operand(0)])
}

fn unary(l: &mut Lowering) -> LowerResult {
    let kind = Unary::of(l.ctx, l.op)?.ok_or_else(|| no_lowering("not a unary op"))?;
    let x = l.operand(0);
    let (shape, element) = (l.shape(x), l.element(x));
    let y = l.map(&shape, element, &[x], |b, v| Ok(apply_unary(b, kind, v[0])))?;
    Ok(vec![y])
}

fn apply_unary(b: &mut Body, kind: Unary, x: Value) -> Value {
    let c = |b: &mut Body, v: f64| b.constant_like(v, x);
    match kind {
        Unary::Relu => {
            let zero = c(b, 0.0);
            not_below(b, x, zero)
        }
        Unary::LeakyRelu { alpha } => {
            let (zero, alpha) = (c(b, 0.0), c(b, alpha));
            let negative = b.cmp(Cmp::Lt, x, zero);
            let scaled = b.mul(alpha, x);
            b.select(negative, scaled, x)
        }
        Unary::ThresholdedRelu { alpha } => {
            let (zero, alpha) = (c(b, 0.0), c(b, alpha));
            let above = b.cmp(Cmp::Gt, x, alpha);
            b.select(above, x, zero)
        }
        Unary::Elu { alpha } => {
            let (zero, alpha) = (c(b, 0.0), c(b, alpha));
            let negative = b.cmp(Cmp::Lt, x, zero);
            let e = b.math("math.expm1", x);
            let scaled = b.mul(alpha, e);
            b.select(negative, scaled, x)
        }
        Unary::Selu { alpha, gamma } => {
            let (zero, alpha, gamma) = (c(b, 0.0), c(b, alpha), c(b, gamma));
            let not_positive = b.cmp(Cmp::Le, x, zero);
            let e = b.math("math.expm1", x);
            let scaled = b.mul(alpha, e);
            let v = b.select(not_positive, scaled, x);
            b.mul(gamma, v)
        }
        Unary::Celu { alpha } => {
            let (zero, alpha) = (c(b, 0.0), c(b, alpha));
            let positive = not_below(b, x, zero);
            let q = b.div(x, alpha);
            let e = b.math("math.expm1", q);
            let scaled = b.mul(alpha, e);
            let negative = not_above(b, scaled, zero);
            b.add(positive, negative)
        }
        Unary::Sigmoid => sigmoid(b, x),
        Unary::HardSigmoid { alpha, beta } => {
            let (alpha, beta) = (c(b, alpha), c(b, beta));
            let v = b.mul(alpha, x);
            let v = b.add(v, beta);
            clamp01(b, v)
        }
        Unary::HardSwish => {
            let (sixth, half) = (c(b, 1.0 / 6.0), c(b, 0.5));
            let v = b.mul(x, sixth);
            let v = b.add(v, half);
            let v = clamp01(b, v);
            b.mul(x, v)
        }
        Unary::Gelu {
            tanh_approximation: false,
        } => {
            let (half, one, inv_sqrt2) =
                (c(b, 0.5), c(b, 1.0), c(b, std::f64::consts::FRAC_1_SQRT_2));
            let v = b.mul(x, inv_sqrt2);
            let v = b.math("math.erf", v);
            let v = b.add(one, v);
            let hx = b.mul(half, x);
            b.mul(hx, v)
        }
        Unary::Gelu {
            tanh_approximation: true,
        } => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            let (half, one, k, cubic) = (c(b, 0.5), c(b, 1.0), c(b, k), c(b, 0.044715));
            let x3 = b.mul(x, x);
            let x3 = b.mul(x3, x);
            let v = b.mul(cubic, x3);
            let v = b.add(x, v);
            let v = b.mul(k, v);
            let v = b.math("math.tanh", v);
            let v = b.add(one, v);
            let hx = b.mul(half, x);
            b.mul(hx, v)
        }
        Unary::Softplus => softplus(b, x),
        Unary::Softsign => {
            let one = c(b, 1.0);
            let a = b.abs(x);
            let d = b.add(one, a);
            b.div(x, d)
        }
        Unary::Mish => {
            let s = softplus(b, x);
            let t = b.math("math.tanh", s);
            b.mul(x, t)
        }
        Unary::Swish { alpha } => {
            let alpha = c(b, alpha);
            let ax = b.mul(alpha, x);
            let s = sigmoid(b, ax);
            b.mul(x, s)
        }
        Unary::Shrink { lambd, bias } => {
            let (zero, lambd, minus_lambd, bias) =
                (c(b, 0.0), c(b, lambd), c(b, -lambd), c(b, bias));
            let below = b.cmp(Cmp::Lt, x, minus_lambd);
            let above = b.cmp(Cmp::Gt, x, lambd);
            let raised = b.add(x, bias);
            let lowered = b.sub(x, bias);
            let rest = b.select(above, lowered, zero);
            b.select(below, raised, rest)
        }
        Unary::Reciprocal => {
            let one = c(b, 1.0);
            b.div(one, x)
        }
        Unary::Neg => b.neg(x),
        Unary::Abs => b.abs(x),
        Unary::Sign => {
            let (zero, one, minus_one) = (c(b, 0.0), c(b, 1.0), c(b, -1.0));
            let positive = b.cmp(Cmp::Gt, x, zero);
            let negative = b.cmp(Cmp::Lt, x, zero);
            // 0, -0 and NaN map to themselves (integers: 0).
            let rest = b.select(negative, minus_one, x);
            b.select(positive, one, rest)
        }
        Unary::Tanh => b.math("math.tanh", x),
        Unary::Erf => b.math("math.erf", x),
        Unary::Exp => b.math("math.exp", x),
        Unary::Log => b.math("math.log", x),
        Unary::Sqrt => b.math("math.sqrt", x),
        Unary::Floor => b.math("math.floor", x),
        Unary::Ceil => b.math("math.ceil", x),
        Unary::Round => b.math("math.roundeven", x),
        Unary::Sin => b.math("math.sin", x),
        Unary::Cos => b.math("math.cos", x),
        Unary::Tan => b.math("math.tan", x),
        Unary::Asin => b.math("math.asin", x),
        Unary::Acos => b.math("math.acos", x),
        Unary::Atan => b.math("math.atan", x),
        Unary::Sinh => b.math("math.sinh", x),
        Unary::Cosh => b.math("math.cosh", x),
        Unary::Asinh => b.math("math.asinh", x),
        Unary::Acosh => b.math("math.acosh", x),
        Unary::Atanh => b.math("math.atanh", x),
    }
}

/// `1 / (1 + exp(-x))`.
pub(super) fn sigmoid(b: &mut Body, x: Value) -> Value {
    let one = b.constant_like(1.0, x);
    let n = b.neg(x);
    let e = b.math("math.exp", n);
    let d = b.add(one, e);
    b.div(one, d)
}

/// `ln(1 + e^x)` without overflow: `x + ln(1 + e^-x)` for positive `x`.
fn softplus(b: &mut Body, x: Value) -> Value {
    let zero = b.constant_like(0.0, x);
    let positive = b.cmp(Cmp::Gt, x, zero);
    let n = b.neg(x);
    let e_neg = b.math("math.exp", n);
    let l_neg = b.math("math.log1p", e_neg);
    let large = b.add(x, l_neg);
    let e = b.math("math.exp", x);
    let small = b.math("math.log1p", e);
    b.select(positive, large, small)
}

/// `v` clamped to `[0, 1]`; NaN stays NaN (onnxruntime's HardSigmoid and HardSwish).
fn clamp01(b: &mut Body, v: Value) -> Value {
    let (zero, one) = (b.constant_like(0.0, v), b.constant_like(1.0, v));
    let v = not_below(b, v, zero);
    not_above(b, v, one)
}

/// `v < lo ? lo : v`: the maximum of `v` and `lo` where NaN propagates and -0 stays -0,
/// as onnxruntime's Relu (`cwiseMax`) computes it.
fn not_below(b: &mut Body, v: Value, lo: Value) -> Value {
    let below = b.cmp(Cmp::Lt, v, lo);
    b.select(below, lo, v)
}

/// `v > hi ? hi : v`: the minimum of `v` and `hi` where NaN propagates.
fn not_above(b: &mut Body, v: Value, hi: Value) -> Value {
    let above = b.cmp(Cmp::Gt, v, hi);
    b.select(above, hi, v)
}

fn not(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (shape, element) = (l.shape(x), l.element(x));
    Ok(vec![l.map(&shape, element, &[x], |b, v| Ok(b.not(v[0])))?])
}

fn is_nan(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let shape = l.shape(x);
    let i1 = l.ctx.i1();
    Ok(vec![l.map(&shape, i1, &[x], |b, v| {
        Ok(b.cmpf_pred("uno", v[0], v[0]))
    })?])
}

fn is_inf(l: &mut Lowering) -> LowerResult {
    let a = l.attrs();
    let (negative, positive) = (a.bool("detect_negative")?, a.bool("detect_positive")?);
    let x = l.operand(0);
    let shape = l.shape(x);
    let i1 = l.ctx.i1();
    Ok(vec![l.map(&shape, i1, &[x], |b, v| {
        let mut result = b.constant(0.0, i1);
        for (detect, inf) in [(negative, f64::NEG_INFINITY), (positive, f64::INFINITY)] {
            if detect {
                let inf = b.constant_like(inf, v[0]);
                let hit = b.cmp(Cmp::Eq, v[0], inf);
                result = b.or(result, hit);
            }
        }
        Ok(result)
    })?])
}

fn cast(l: &mut Lowering) -> LowerResult {
    let x = l.operand(0);
    let (from, to) = (l.element(x), l.result_element(0));
    if from == to {
        return Ok(vec![x]);
    }
    let shape = l.shape(x);
    // The same bits in another signedness (ui8 to i8) are the elements themselves.
    let same_bits = l.ctx.signless(from) == l.ctx.signless(to);
    // Read in the narrow type itself: widening first would round twice.
    Ok(vec![l.compute(&shape, to, None, |b| {
        let v = b.read(x, super::builder::identity_exprs(shape.len()));
        Ok(if same_bits { v } else { b.cast(v, to) })
    })?])
}

fn clip(l: &mut Lowering) -> LowerResult {
    let bound = |name: &str| {
        let a = l.attrs();
        a.get(name)
            .and_then(|v| tb_dialects::graph::attrs::scalar(l.ctx, v))
            .map(|(_, s)| match s {
                Scalar::Int(i) => i as f64,
                Scalar::Float(f) => f,
            })
    };
    let (lo, hi) = (bound("min"), bound("max"));
    let x = l.operand(0);
    let (shape, element) = (l.shape(x), l.element(x));
    let y = l.map(&shape, element, &[x], |b, v| {
        let mut y = v[0];
        if let Some(lo) = lo {
            let lo = b.constant_like(lo, y);
            let below = b.cmp(Cmp::Lt, y, lo);
            y = b.select(below, lo, y);
        }
        if let Some(hi) = hi {
            let hi = b.constant_like(hi, y);
            let above = b.cmp(Cmp::Gt, y, hi);
            y = b.select(above, hi, y);
        }
        Ok(y)
    })?;
    Ok(vec![y])
}

fn arithmetic(l: &mut Lowering) -> LowerResult {
    let name = short_name(l);
    let fmod = name == "mod" && l.attrs().bool("fmod")?;
    let (a, b) = (l.operand(0), l.operand(1));
    let (shape, element) = (l.result_shape(0), l.result_element(0));
    // Unsigned `%` is the remainder, whatever `fmod` says.
    let remainder = fmod || is_float_type(l.ctx, element) || is_unsigned(l.ctx, element);
    let y = l.map(&shape, element, &[a, b], |body, v| {
        let (x, y) = (v[0], v[1]);
        Ok(match name.as_str() {
            "add" => body.add(x, y),
            "sub" => body.sub(x, y),
            "mul" => body.mul(x, y),
            "div" => body.div(x, y),
            "mod" if remainder => body.rem(x, y),
            "mod" => python_mod(body, x, y),
            "pow" => pow(body, x, y),
            // PRelu: x < 0 ? slope * x : x.
            _ => {
                let zero = body.constant_like(0.0, x);
                let negative = body.cmp(Cmp::Lt, x, zero);
                let scaled = body.mul(y, x);
                body.select(negative, scaled, x)
            }
        })
    })?;
    Ok(vec![y])
}

/// Integer `%` with the divisor's sign (Python's).
fn python_mod(b: &mut Body, x: Value, y: Value) -> Value {
    let r = b.rem(x, y);
    let zero = b.constant_like(0.0, x);
    let nonzero = b.cmp(Cmp::Ne, r, zero);
    let r_negative = b.cmp(Cmp::Lt, r, zero);
    let y_negative = b.cmp(Cmp::Lt, y, zero);
    let signs_differ = b.xor(r_negative, y_negative);
    let fix = b.and(nonzero, signs_differ);
    let shifted = b.add(r, y);
    b.select(fix, shifted, r)
}

/// Pow: floats (either side) through `math.powf` in the base's compute type; integers by
/// `math.ipowi` in the base's type.
fn pow(b: &mut Body, base: Value, exponent: Value) -> Value {
    let (bt, et) = (b.ty(base), b.ty(exponent));
    let base_float = is_float_type(b.ctx, bt);
    if base_float || is_float_type(b.ctx, et) {
        let ft = if base_float {
            bt
        } else {
            b.ctx.float_type(tb_ir::FloatKind::F64)
        };
        let x = b.cast(base, ft);
        let e = b.cast(exponent, ft);
        let p = b.op("math.powf", &[x, e], ft);
        b.cast(p, bt)
    } else {
        let e = b.cast(exponent, bt);
        b.op("math.ipowi", &[base, e], bt)
    }
}

fn compare(l: &mut Lowering) -> LowerResult {
    let cmp = match short_name(l).as_str() {
        "equal" => Cmp::Eq,
        "less" => Cmp::Lt,
        "less_or_equal" => Cmp::Le,
        "greater" => Cmp::Gt,
        _ => Cmp::Ge,
    };
    let (a, b) = (l.operand(0), l.operand(1));
    let shape = l.result_shape(0);
    let i1 = l.ctx.i1();
    Ok(vec![l.map(&shape, i1, &[a, b], |body, v| {
        Ok(body.cmp(cmp, v[0], v[1]))
    })?])
}

fn logic(l: &mut Lowering) -> LowerResult {
    let name = short_name(l);
    let (a, b) = (l.operand(0), l.operand(1));
    let shape = l.result_shape(0);
    let i1 = l.ctx.i1();
    Ok(vec![l.map(&shape, i1, &[a, b], |body, v| {
        Ok(match name.as_str() {
            "and" => body.and(v[0], v[1]),
            "or" => body.or(v[0], v[1]),
            _ => body.xor(v[0], v[1]),
        })
    })?])
}

/// BitwiseAnd/Or/Xor with broadcasting, and BitwiseNot (xor with all ones).
fn bitwise(l: &mut Lowering) -> LowerResult {
    let name = short_name(l);
    let inputs = l.operands();
    let (shape, element) = (l.result_shape(0), l.result_element(0));
    Ok(vec![l.map(&shape, element, &inputs, |body, v| {
        Ok(match name.as_str() {
            "bitwise_and" => body.and(v[0], v[1]),
            "bitwise_or" => body.or(v[0], v[1]),
            "bitwise_xor" => body.xor(v[0], v[1]),
            _ => {
                let ty = body.ty(v[0]);
                let ones = body.constant(-1.0, ty);
                body.xor(v[0], ones)
            }
        })
    })?])
}

/// BitShift of unsigned integers: a shift by the width or more gives 0. The arith shift
/// would be poison there, so such amounts shift by 0 and the result is then replaced.
fn bit_shift(l: &mut Lowering) -> LowerResult {
    let left = l.attrs().choice("direction", &["LEFT", "RIGHT"])? == "LEFT";
    let inputs = l.operands();
    let (shape, element) = (l.result_shape(0), l.result_element(0));
    let width = match *l.ctx.type_kind(element) {
        tb_ir::TypeKind::Integer { width, .. } => width,
        _ => return Err(no_lowering("BitShift of a non-integer type")),
    };
    Ok(vec![l.map(&shape, element, &inputs, |body, v| {
        let (x, amount) = (v[0], v[1]);
        let ty = body.ty(x);
        let (zero, width) = (
            body.constant_like(0.0, x),
            body.constant_like(f64::from(width), x),
        );
        let too_far = body.cmp(Cmp::Ge, amount, width);
        let amount = body.select(too_far, zero, amount);
        let shifted = body.op(
            if left { "arith.shli" } else { "arith.shrui" },
            &[x, amount],
            ty,
        );
        Ok(body.select(too_far, zero, shifted))
    })?])
}

fn where_(l: &mut Lowering) -> LowerResult {
    let inputs = l.operands();
    let (shape, element) = (l.result_shape(0), l.result_element(0));
    Ok(vec![l.map(&shape, element, &inputs, |body, v| {
        Ok(body.select(v[0], v[1], v[2]))
    })?])
}

/// Max/Min (NaN propagates), Sum and Mean of any number of broadcast inputs, folded left
/// to right as the kernels do.
fn variadic(l: &mut Lowering) -> LowerResult {
    let name = short_name(l);
    let inputs = l.operands();
    let (shape, element) = (l.result_shape(0), l.result_element(0));
    let count = inputs.len() as f64;
    Ok(vec![l.map(&shape, element, &inputs, |b, v| {
        let mut acc = v[0];
        for &x in &v[1..] {
            acc = match name.as_str() {
                "max" => b.max(acc, x),
                "min" => b.min(acc, x),
                _ => b.add(acc, x),
            };
        }
        if name == "mean" {
            let n = b.constant_like(count, acc);
            acc = b.div(acc, n);
        }
        Ok(acc)
    })?])
}
