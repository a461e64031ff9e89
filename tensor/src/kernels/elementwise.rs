//! Elementwise operators: unary activations and math, binary arithmetic with numpy
//! broadcasting, variadic Max/Min/Sum/Mean, comparisons, logic, Where and Clip.
//!
//! Float math is evaluated in f64 and rounded once to the element type, which for
//! `+ - * /` and `sqrt` is exactly the correctly rounded f32/f16 result. Integer arithmetic
//! wraps in the element type; integer Div truncates toward zero and fails on a zero divisor.

use crate::shape;

use super::index::{broadcast_map2, broadcast_map3};
use super::{KernelResult, fail, make, output_count, same_dtype};
use crate::tensor::{DType, Element, Tensor, TensorData, with_data};

pub use crate::unary::Unary;

/// How the kernels evaluate the graph dialect's unary functions.
trait UnaryEval {
    /// ONNX's name of the operator, for messages.
    fn onnx_name(self) -> &'static str;
    /// The function on reals.
    fn eval(self, x: f64) -> f64;
    /// The function on integers, `None` where ONNX defines it for floats only.
    fn eval_int(self, x: i128) -> Option<i128>;
}

impl UnaryEval for Unary {
    fn onnx_name(self) -> &'static str {
        match self {
            Unary::Relu => "Relu",
            Unary::LeakyRelu { .. } => "LeakyRelu",
            Unary::ThresholdedRelu { .. } => "ThresholdedRelu",
            Unary::Elu { .. } => "Elu",
            Unary::Selu { .. } => "Selu",
            Unary::Celu { .. } => "Celu",
            Unary::Sigmoid => "Sigmoid",
            Unary::HardSigmoid { .. } => "HardSigmoid",
            Unary::HardSwish => "HardSwish",
            Unary::Tanh => "Tanh",
            Unary::Gelu { .. } => "Gelu",
            Unary::Softplus => "Softplus",
            Unary::Softsign => "Softsign",
            Unary::Mish => "Mish",
            Unary::Swish { .. } => "Swish",
            Unary::Shrink { .. } => "Shrink",
            Unary::Erf => "Erf",
            Unary::Exp => "Exp",
            Unary::Log => "Log",
            Unary::Sqrt => "Sqrt",
            Unary::Reciprocal => "Reciprocal",
            Unary::Neg => "Neg",
            Unary::Abs => "Abs",
            Unary::Sign => "Sign",
            Unary::Floor => "Floor",
            Unary::Ceil => "Ceil",
            Unary::Round => "Round",
            Unary::Sin => "Sin",
            Unary::Cos => "Cos",
            Unary::Tan => "Tan",
            Unary::Asin => "Asin",
            Unary::Acos => "Acos",
            Unary::Atan => "Atan",
            Unary::Sinh => "Sinh",
            Unary::Cosh => "Cosh",
            Unary::Asinh => "Asinh",
            Unary::Acosh => "Acosh",
            Unary::Atanh => "Atanh",
        }
    }

    fn eval(self, x: f64) -> f64 {
        let sigmoid = |x: f64| {
            if x >= 0.0 {
                1.0 / (1.0 + (-x).exp())
            } else {
                x.exp() / (1.0 + x.exp())
            }
        };
        // ln(1 + e^x) without overflow for large x.
        let softplus = |x: f64| {
            if x > 0.0 {
                x + (-x).exp().ln_1p()
            } else {
                x.exp().ln_1p()
            }
        };
        match self {
            // `x < 0 ? 0 : x`, as onnxruntime computes it: NaN and -0 stay themselves
            // (`f64::max` would turn NaN into 0).
            Unary::Relu => not_below(x, 0.0),
            Unary::LeakyRelu { alpha } => {
                if x < 0.0 {
                    alpha * x
                } else {
                    x
                }
            }
            Unary::ThresholdedRelu { alpha } => {
                if x > alpha {
                    x
                } else {
                    0.0
                }
            }
            Unary::Elu { alpha } => {
                if x < 0.0 {
                    alpha * x.exp_m1()
                } else {
                    x
                }
            }
            Unary::Selu { alpha, gamma } => gamma * if x <= 0.0 { alpha * x.exp_m1() } else { x },
            Unary::Celu { alpha } => {
                let a = alpha;
                not_below(x, 0.0) + not_above(a * (x / a).exp_m1(), 0.0)
            }
            Unary::Sigmoid => sigmoid(x),
            Unary::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            Unary::HardSwish => x * (x / 6.0 + 0.5).clamp(0.0, 1.0),
            Unary::Tanh => x.tanh(),
            Unary::Gelu {
                tanh_approximation: false,
            } => 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)),
            Unary::Gelu {
                tanh_approximation: true,
            } => {
                let c = (2.0 / std::f64::consts::PI).sqrt();
                0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
            }
            Unary::Softplus => softplus(x),
            Unary::Softsign => x / (1.0 + x.abs()),
            Unary::Mish => x * softplus(x).tanh(),
            Unary::Swish { alpha } => x * sigmoid(alpha * x),
            Unary::Shrink { lambd, bias } => shrink(x, lambd, bias),
            Unary::Erf => libm::erf(x),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Sqrt => x.sqrt(),
            Unary::Reciprocal => 1.0 / x,
            Unary::Neg => -x,
            Unary::Abs => x.abs(),
            Unary::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x // 0, -0 and NaN map to themselves
                }
            }
            Unary::Floor => x.floor(),
            Unary::Ceil => x.ceil(),
            Unary::Round => x.round_ties_even(),
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Atan => x.atan(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Asinh => x.asinh(),
            Unary::Acosh => x.acosh(),
            Unary::Atanh => x.atanh(),
        }
    }

    /// The integer version, for the operators ONNX defines on integers.
    fn eval_int(self, x: i128) -> Option<i128> {
        match self {
            Unary::Relu => Some(x.max(0)),
            Unary::Neg => Some(-x),
            Unary::Abs => Some(x.abs()),
            Unary::Sign => Some(x.signum()),
            _ => None,
        }
    }
}

/// ONNX Shrink: `x + bias` below `-lambd`, `x - bias` above `lambd`, 0 between.
fn shrink(x: f64, lambd: f64, bias: f64) -> f64 {
    if x < -lambd {
        x + bias
    } else if x > lambd {
        x - bias
    } else {
        0.0
    }
}

/// `x < lo ? lo : x`: the maximum where NaN propagates and -0 stays -0, as onnxruntime's
/// activations compute it.
fn not_below(x: f64, lo: f64) -> f64 {
    if x < lo { lo } else { x }
}

/// `x > hi ? hi : x`: the minimum where NaN propagates.
fn not_above(x: f64, hi: f64) -> f64 {
    if x > hi { hi } else { x }
}

/// Applies a unary operator elementwise.
pub fn unary(x: &Tensor, op: Unary) -> KernelResult {
    fn go<T: Element>(v: &[T], op: Unary) -> Option<Vec<T>> {
        if T::DTYPE.is_float() {
            return Some(
                v.iter()
                    .map(|&a| T::from_f64(op.eval(a.to_f64())))
                    .collect(),
            );
        }
        op.eval_int(0)?;
        // Through i128 then back: Neg/Abs of the minimum value wrap, as in numpy.
        Some(
            v.iter()
                .map(|&a| T::from_i128(op.eval_int(a.to_i128()).unwrap_or_default()))
                .collect(),
        )
    }
    let dt = x.dtype();
    if dt == DType::Bool {
        return fail(op.onnx_name(), "is not defined on bool tensors");
    }
    let Some(data) = with_data!(x.data(), v => go(v, op).map(Element::into_data)) else {
        return fail(
            op.onnx_name(),
            format!("expected a floating-point tensor, got {dt}"),
        );
    };
    make(op.onnx_name(), x.shape().to_vec(), data)
}

/// IsNaN: true where the element is NaN (false for integers).
pub fn is_nan(x: &Tensor) -> KernelResult {
    let data = with_data!(x.data(), v => v.iter().map(|a| a.is_nan()).collect::<Vec<bool>>());
    make("IsNaN", x.shape().to_vec(), TensorData::Bool(data))
}

/// IsInf with the `detect_negative`/`detect_positive` attributes.
pub fn is_inf(x: &Tensor, detect_negative: bool, detect_positive: bool) -> KernelResult {
    let data = with_data!(x.data(), v => v
        .iter()
        .map(|a| {
            let f = a.to_f64();
            f.is_infinite() && ((f > 0.0 && detect_positive) || (f < 0.0 && detect_negative))
        })
        .collect::<Vec<bool>>());
    make("IsInf", x.shape().to_vec(), TensorData::Bool(data))
}

/// Clip to `[min, max]` (optional scalar inputs of the same dtype; absent bounds are the
/// type's extremes). NaN stays NaN; `min > max` gives `max`, as numpy.clip.
pub fn clip(x: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> KernelResult {
    const OP: &str = "Clip";
    for (name, b) in [("min", min), ("max", max)] {
        if let Some(b) = b {
            if b.numel() != 1 || b.rank() > 1 {
                return fail(
                    OP,
                    format!("{name} must be a scalar, got shape {:?}", b.shape()),
                );
            }
            same_dtype(OP, &[x, b])?;
        }
    }
    fn go<T: Element>(v: &[T], min: Option<&Tensor>, max: Option<&Tensor>) -> Vec<T> {
        let lo = min
            .and_then(|t| t.as_slice::<T>())
            .map_or(T::lowest(), |s| s[0]);
        let hi = max
            .and_then(|t| t.as_slice::<T>())
            .map_or(T::highest(), |s| s[0]);
        v.iter()
            .map(|&a| {
                let a = if a < lo { lo } else { a };
                if a > hi { hi } else { a }
            })
            .collect()
    }
    let data = with_data!(x.data(), v => Element::into_data(go(v, min, max)));
    make(OP, x.shape().to_vec(), data)
}

/// Binary arithmetic operators with numpy broadcasting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    /// `fmod = false`: the result has the divisor's sign (Python `%`, integers only);
    /// `fmod = true`: the dividend's sign (C `fmod`).
    Mod {
        fmod: bool,
    },
}

impl Binary {
    pub fn name(self) -> &'static str {
        match self {
            Binary::Add => "Add",
            Binary::Sub => "Sub",
            Binary::Mul => "Mul",
            Binary::Div => "Div",
            Binary::Mod { .. } => "Mod",
        }
    }
}

/// Applies a binary arithmetic operator; both inputs must have the same numeric dtype.
pub fn binary(a: &Tensor, b: &Tensor, op: Binary) -> KernelResult {
    let name = op.name();
    let dt = same_dtype(name, &[a, b])?;
    if dt == DType::Bool {
        return fail(name, "is not defined on bool tensors");
    }
    if dt.is_float() && op == (Binary::Mod { fmod: false }) {
        return fail(
            name,
            format!("fmod must be 1 for floating-point inputs ({dt})"),
        );
    }
    let out = shape::broadcast(name, &[a.shape(), b.shape()])?;
    output_count(name, &out)?;
    fn go<T: Element>(
        a: &[T],
        ash: &[i64],
        b: &Tensor,
        out: &[i64],
        op: Binary,
    ) -> KernelResult<Vec<T>> {
        let (b, bsh) = (b.as_slice::<T>().unwrap_or_default(), b.shape());
        if T::DTYPE.is_float() {
            let f = |g: fn(f64, f64) -> f64| {
                broadcast_map2(a, ash, b, bsh, out, |x, y| {
                    T::from_f64(g(x.to_f64(), y.to_f64()))
                })
            };
            return Ok(match op {
                Binary::Add => f(|x, y| x + y),
                Binary::Sub => f(|x, y| x - y),
                Binary::Mul => f(|x, y| x * y),
                Binary::Div => f(|x, y| x / y),
                Binary::Mod { .. } => f(|x, y| x % y),
            });
        }
        let zero = std::cell::Cell::new(false);
        let z = &zero;
        let f = |g: &mut dyn FnMut(i128, i128) -> i128| {
            broadcast_map2(a, ash, b, bsh, out, |x, y| {
                T::from_i128(g(x.to_i128(), y.to_i128()))
            })
        };
        // Integer division by zero is an error, not a panic.
        let checked = |g: fn(i128, i128) -> i128| {
            move |x: i128, y: i128| {
                if y == 0 {
                    z.set(true);
                    0
                } else {
                    g(x, y)
                }
            }
        };
        let v = match op {
            Binary::Add => f(&mut |x, y| x.wrapping_add(y)),
            Binary::Sub => f(&mut |x, y| x.wrapping_sub(y)),
            Binary::Mul => f(&mut |x, y| x.wrapping_mul(y)),
            Binary::Div => f(&mut checked(|x, y| x / y)),
            Binary::Mod { fmod: true } => f(&mut checked(|x, y| x % y)),
            // Python's %: the result takes the divisor's sign.
            Binary::Mod { fmod: false } => f(&mut checked(|x, y| {
                let r = x.rem_euclid(y);
                if y < 0 && r != 0 { r + y } else { r }
            })),
        };
        if zero.get() {
            return fail(op.name(), "integer division by zero");
        }
        Ok(v)
    }
    let data = with_data!(a.data(), v => Element::into_data(go(v, a.shape(), b, &out, op)?));
    make(name, out, data)
}

pub fn add(a: &Tensor, b: &Tensor) -> KernelResult {
    binary(a, b, Binary::Add)
}

pub fn sub(a: &Tensor, b: &Tensor) -> KernelResult {
    binary(a, b, Binary::Sub)
}

pub fn mul(a: &Tensor, b: &Tensor) -> KernelResult {
    binary(a, b, Binary::Mul)
}

pub fn div(a: &Tensor, b: &Tensor) -> KernelResult {
    binary(a, b, Binary::Div)
}

/// Integer power by squaring with wrapping; negative exponents truncate like `1 / x^-e`.
fn int_pow(base: i128, e: i128) -> i128 {
    if e < 0 {
        return match base {
            1 => 1,
            -1 => {
                if e % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let (mut acc, mut b, mut e) = (1i128, base, e);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    acc
}

/// Pow: the exponent may have another numeric dtype; the result has the base's dtype.
pub fn pow(base: &Tensor, exponent: &Tensor) -> KernelResult {
    const OP: &str = "Pow";
    if base.dtype() == DType::Bool || exponent.dtype() == DType::Bool {
        return fail(OP, "is not defined on bool tensors");
    }
    let out = shape::broadcast(OP, &[base.shape(), exponent.shape()])?;
    output_count(OP, &out)?;
    fn go<T: Element, E: Element>(
        a: &[T],
        ash: &[i64],
        e: &[E],
        esh: &[i64],
        out: &[i64],
    ) -> Vec<T> {
        if T::DTYPE.is_float() || E::DTYPE.is_float() {
            broadcast_map2(a, ash, e, esh, out, |x, y| {
                T::from_f64(x.to_f64().powf(y.to_f64()))
            })
        } else {
            broadcast_map2(a, ash, e, esh, out, |x, y| {
                T::from_i128(int_pow(x.to_i128(), y.to_i128()))
            })
        }
    }
    let data = with_data!(base.data(), a => with_data!(exponent.data(), e => Element::into_data(go(a, base.shape(), e, exponent.shape(), &out))));
    make(OP, out, data)
}

/// Max or Min of one or more inputs with broadcasting; NaN propagates.
fn min_max(op: &'static str, inputs: &[&Tensor], is_max: bool) -> KernelResult {
    same_dtype(op, inputs)?;
    fn go<T: Element>(a: &[T], ash: &[i64], b: &Tensor, out: &[i64], is_max: bool) -> Vec<T> {
        let bv = b.as_slice::<T>().unwrap_or_default();
        broadcast_map2(a, ash, bv, b.shape(), out, |x, y| {
            if x.is_nan() || (!y.is_nan() && (if is_max { x >= y } else { x <= y })) {
                x
            } else {
                y
            }
        })
    }
    let mut acc = inputs[0].clone();
    for b in &inputs[1..] {
        let out = shape::broadcast(op, &[acc.shape(), b.shape()])?;
        output_count(op, &out)?;
        let data =
            with_data!(acc.data(), v => Element::into_data(go(v, acc.shape(), b, &out, is_max)));
        acc = make(op, out, data)?;
    }
    Ok(acc)
}

/// Max (variadic).
pub fn max(inputs: &[&Tensor]) -> KernelResult {
    min_max("Max", inputs, true)
}

/// Min (variadic).
pub fn min(inputs: &[&Tensor]) -> KernelResult {
    min_max("Min", inputs, false)
}

/// Sum (variadic Add).
pub fn sum(inputs: &[&Tensor]) -> KernelResult {
    let Some(first) = inputs.first() else {
        return fail("Sum", "needs at least one input");
    };
    let mut acc = (*first).clone();
    for b in &inputs[1..] {
        acc =
            binary(&acc, b, Binary::Add).map_err(|e| super::KernelError::new("Sum", e.message))?;
    }
    Ok(acc)
}

/// Mean (variadic, floating point): the sum divided by the number of inputs.
pub fn mean(inputs: &[&Tensor]) -> KernelResult {
    let s = sum(inputs).map_err(|e| super::KernelError::new("Mean", e.message))?;
    if !s.dtype().is_float() {
        return fail(
            "Mean",
            format!("expected floating-point inputs, got {}", s.dtype()),
        );
    }
    let n = Tensor::scalar(inputs.len() as f64).cast(s.dtype());
    binary(&s, &n, Binary::Div)
}

/// Comparison operators, producing bool tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    Equal,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Compare {
    pub fn name(self) -> &'static str {
        match self {
            Compare::Equal => "Equal",
            Compare::Less => "Less",
            Compare::LessOrEqual => "LessOrEqual",
            Compare::Greater => "Greater",
            Compare::GreaterOrEqual => "GreaterOrEqual",
        }
    }
}

/// Compares two tensors of the same dtype with broadcasting (IEEE: NaN compares false).
pub fn compare(a: &Tensor, b: &Tensor, op: Compare) -> KernelResult {
    let name = op.name();
    same_dtype(name, &[a, b])?;
    let out = shape::broadcast(name, &[a.shape(), b.shape()])?;
    output_count(name, &out)?;
    fn go<T: Element>(a: &[T], ash: &[i64], b: &Tensor, out: &[i64], op: Compare) -> Vec<bool> {
        let bv = b.as_slice::<T>().unwrap_or_default();
        let bsh = b.shape();
        match op {
            Compare::Equal => broadcast_map2(a, ash, bv, bsh, out, |x, y| x == y),
            Compare::Less => broadcast_map2(a, ash, bv, bsh, out, |x, y| x < y),
            Compare::LessOrEqual => broadcast_map2(a, ash, bv, bsh, out, |x, y| x <= y),
            Compare::Greater => broadcast_map2(a, ash, bv, bsh, out, |x, y| x > y),
            Compare::GreaterOrEqual => broadcast_map2(a, ash, bv, bsh, out, |x, y| x >= y),
        }
    }
    let v = with_data!(a.data(), v => go(v, a.shape(), b, &out, op));
    make(name, out, TensorData::Bool(v))
}

/// Boolean binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    And,
    Or,
    Xor,
}

fn bools<'a>(op: &'static str, t: &'a Tensor) -> KernelResult<&'a [bool]> {
    t.as_slice::<bool>().ok_or_else(|| {
        super::KernelError::new(op, format!("expected bool inputs, got {}", t.dtype()))
    })
}

/// And/Or/Xor of two bool tensors with broadcasting.
pub fn logic(a: &Tensor, b: &Tensor, op: Logic) -> KernelResult {
    let name = match op {
        Logic::And => "And",
        Logic::Or => "Or",
        Logic::Xor => "Xor",
    };
    let (av, bv) = (bools(name, a)?, bools(name, b)?);
    let out = shape::broadcast(name, &[a.shape(), b.shape()])?;
    output_count(name, &out)?;
    let v = match op {
        Logic::And => broadcast_map2(av, a.shape(), bv, b.shape(), &out, |x, y| x && y),
        Logic::Or => broadcast_map2(av, a.shape(), bv, b.shape(), &out, |x, y| x || y),
        Logic::Xor => broadcast_map2(av, a.shape(), bv, b.shape(), &out, |x, y| x != y),
    };
    make(name, out, TensorData::Bool(v))
}

/// Not of a bool tensor.
pub fn not(x: &Tensor) -> KernelResult {
    let v: Vec<bool> = bools("Not", x)?.iter().map(|&b| !b).collect();
    make("Not", x.shape().to_vec(), TensorData::Bool(v))
}

/// Where(condition, X, Y) with three-way broadcasting.
pub fn where_(cond: &Tensor, x: &Tensor, y: &Tensor) -> KernelResult {
    const OP: &str = "Where";
    let c = bools(OP, cond)?;
    same_dtype(OP, &[x, y])?;
    let out = shape::broadcast(OP, &[cond.shape(), x.shape(), y.shape()])?;
    output_count(OP, &out)?;
    fn go<T: Element>(
        c: (&[bool], &[i64]),
        x: &[T],
        xsh: &[i64],
        y: &Tensor,
        out: &[i64],
    ) -> Vec<T> {
        let yv = y.as_slice::<T>().unwrap_or_default();
        broadcast_map3(
            c,
            (x, xsh),
            (yv, y.shape()),
            out,
            |c, a, b| if c { a } else { b },
        )
    }
    let data =
        with_data!(x.data(), v => Element::into_data(go((c, cond.shape()), v, x.shape(), y, &out)));
    make(OP, out, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    // The ONNX defaults of the attributed activations.
    const LEAKY_RELU: Unary = Unary::LeakyRelu { alpha: 0.01 };
    const HARD_SIGMOID: Unary = Unary::HardSigmoid {
        alpha: 0.2,
        beta: 0.5,
    };
    const SELU: Unary = Unary::Selu {
        alpha: 1.673_263_2,
        gamma: 1.050_701,
    };
    const ELU: Unary = Unary::Elu { alpha: 1.0 };
    use half::f16;

    fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
        Tensor::from_vec(shape.to_vec(), v.to_vec()).unwrap()
    }

    fn vals(t: &Tensor) -> Vec<f64> {
        t.to_f64_vec()
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-6 * y.abs().max(1.0) || (x.is_nan() && y.is_nan()),
                "{a:?} vs {b:?}"
            );
        }
    }

    /// NaN in, NaN out, as onnxruntime 1.31 gives for each of these (checked with its CPU
    /// provider); only ThresholdedRelu (`x > alpha ? x : 0`) makes 0 of it.
    #[test]
    fn activations_propagate_nan_as_onnxruntime_does() {
        let x = f32s(&[1], &[f32::NAN]);
        let run = |op| vals(&unary(&x, op).unwrap())[0];
        for op in [
            Unary::Relu,
            Unary::Celu { alpha: 1.0 },
            HARD_SIGMOID,
            Unary::HardSwish,
            LEAKY_RELU,
            ELU,
            SELU,
            Unary::Sign,
            Unary::Softplus,
            Unary::Softsign,
            Unary::Mish,
            Unary::Round,
        ] {
            assert!(run(op).is_nan(), "{op:?} of NaN is {}", run(op));
        }
        assert_eq!(run(Unary::ThresholdedRelu { alpha: 1.0 }), 0.0);
        // -0 stays -0 through Relu, as `x < 0 ? 0 : x` leaves it.
        let z = unary(&f32s(&[1], &[-0.0]), Unary::Relu).unwrap();
        assert!(vals(&z)[0].is_sign_negative());
    }

    #[test]
    fn activations() {
        let x = f32s(&[5], &[-2.0, -0.5, 0.0, 0.5, 2.0]);
        let run = |op| vals(&unary(&x, op).unwrap());
        close(&run(Unary::Relu), &[0.0, 0.0, 0.0, 0.5, 2.0]);
        close(&run(LEAKY_RELU), &[-0.02, -0.005, 0.0, 0.5, 2.0]);
        close(
            &run(Unary::Sigmoid),
            &[0.11920292, 0.37754067, 0.5, 0.62245933, 0.88079708],
        );
        close(
            &run(Unary::Tanh),
            &[-0.96402758, -0.46211716, 0.0, 0.46211716, 0.96402758],
        );
        close(
            &run(Unary::Erf),
            &[-0.99532227, -0.52049988, 0.0, 0.52049988, 0.99532227],
        );
        // Gelu(2) = 2 * Phi(2) = 1.95449974; tanh approximation 1.95459769.
        close(
            &run(Unary::Gelu {
                tanh_approximation: false,
            }),
            &[-0.04550026, -0.15426877, 0.0, 0.34573123, 1.95449974],
        );
        close(
            &run(Unary::Gelu {
                tanh_approximation: true,
            })[4..],
            &[1.95459769],
        );
        close(&run(HARD_SIGMOID), &[0.1, 0.4, 0.5, 0.6, 0.9]);
        close(
            &run(Unary::HardSwish),
            &[-0.33333333, -0.20833333, 0.0, 0.29166667, 1.66666667],
        );
        close(
            &run(Unary::Softplus),
            &[
                0.12692801,
                0.47407698,
                std::f64::consts::LN_2,
                0.97407698,
                2.12692801,
            ],
        );
        close(
            &run(Unary::Softsign),
            &[-0.66666667, -0.33333333, 0.0, 0.33333333, 0.66666667],
        );
        close(&run(ELU)[..2], &[-0.86466472, -0.39346934]);
        close(&run(SELU)[..1], &[-1.52016647]);
        close(&run(Unary::Celu { alpha: 2.0 })[..1], &[-1.26424112]);
        close(&run(Unary::Mish)[4..], &[1.94395896]);
        close(
            &run(Unary::ThresholdedRelu { alpha: 1.0 }),
            &[0.0, 0.0, 0.0, 0.0, 2.0],
        );
        close(&run(Unary::Round), &[-2.0, -0.0, 0.0, 0.0, 2.0]);
        close(&run(Unary::Sign), &[-1.0, -1.0, 0.0, 1.0, 1.0]);
        close(&run(Unary::Floor), &[-2.0, -1.0, 0.0, 0.0, 2.0]);
        close(&run(Unary::Ceil), &[-2.0, -0.0, 0.0, 1.0, 2.0]);
        close(&run(Unary::Abs), &[2.0, 0.5, 0.0, 0.5, 2.0]);
        close(&run(Unary::Neg), &[2.0, 0.5, -0.0, -0.5, -2.0]);
        close(&run(Unary::Reciprocal)[3..], &[2.0, 0.5]);
        // Softplus does not overflow.
        close(
            &vals(&unary(&f32s(&[1], &[100.0]), Unary::Softplus).unwrap()),
            &[100.0],
        );
        let r = unary(&f32s(&[3], &[2.5, 3.5, -2.5]), Unary::Round).unwrap();
        close(&vals(&r), &[2.0, 4.0, -2.0]);
        let nan = vals(&unary(&f32s(&[2], &[-1.0, 4.0]), Unary::Sqrt).unwrap());
        assert!(nan[0].is_nan() && nan[1] == 2.0);
        close(
            &vals(&unary(&f32s(&[1], &[1.0]), Unary::Exp).unwrap()),
            &[std::f32::consts::E as f64],
        );
        close(
            &vals(&unary(&f32s(&[1], &[1.0]), Unary::Log).unwrap()),
            &[0.0],
        );
        for op in [
            Unary::Sin,
            Unary::Cos,
            Unary::Tan,
            Unary::Asin,
            Unary::Acos,
            Unary::Atan,
            Unary::Sinh,
            Unary::Cosh,
            Unary::Asinh,
            Unary::Atanh,
        ] {
            let y = vals(&unary(&f32s(&[1], &[0.5]), op).unwrap())[0];
            let want = match op {
                Unary::Sin => 0.5f64.sin(),
                Unary::Cos => 0.5f64.cos(),
                Unary::Tan => 0.5f64.tan(),
                Unary::Asin => 0.5f64.asin(),
                Unary::Acos => 0.5f64.acos(),
                Unary::Atan => 0.5f64.atan(),
                Unary::Sinh => 0.5f64.sinh(),
                Unary::Cosh => 0.5f64.cosh(),
                Unary::Asinh => 0.5f64.asinh(),
                _ => 0.5f64.atanh(),
            };
            close(&[y], &[want]);
        }
        close(
            &vals(&unary(&f32s(&[1], &[2.0]), Unary::Acosh).unwrap()),
            &[2f64.acosh()],
        );
    }

    #[test]
    fn unary_dtypes() {
        let h = Tensor::vector(vec![f16::from_f32(-1.0), f16::from_f32(3.0)]);
        let y = unary(&h, Unary::Relu).unwrap();
        assert_eq!(y.dtype(), DType::F16);
        assert_eq!(vals(&y), vec![0.0, 3.0]);
        let i = Tensor::vector(vec![i8::MIN, -3, 0, 5]);
        assert_eq!(
            unary(&i, Unary::Neg).unwrap().typed::<i8>().unwrap(),
            &[i8::MIN, 3, 0, -5]
        );
        assert_eq!(
            unary(&i, Unary::Abs).unwrap().typed::<i8>().unwrap(),
            &[i8::MIN, 3, 0, 5]
        );
        assert_eq!(
            unary(&i, Unary::Relu).unwrap().typed::<i8>().unwrap(),
            &[0, 0, 0, 5]
        );
        assert_eq!(
            unary(&i, Unary::Sign).unwrap().typed::<i8>().unwrap(),
            &[-1, -1, 0, 1]
        );
        assert_eq!(
            unary(&i, Unary::Exp).unwrap_err().to_string(),
            "Exp: expected a floating-point tensor, got i8"
        );
        assert!(
            unary(&Tensor::vector(vec![true]), Unary::Relu)
                .unwrap_err()
                .message
                .contains("bool")
        );
        let x = f32s(&[4], &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0]);
        assert_eq!(
            is_nan(&x).unwrap().typed::<bool>().unwrap(),
            &[true, false, false, false]
        );
        assert_eq!(
            is_inf(&x, true, true).unwrap().typed::<bool>().unwrap(),
            &[false, true, true, false]
        );
        assert_eq!(
            is_inf(&x, false, true).unwrap().typed::<bool>().unwrap(),
            &[false, true, false, false]
        );
    }

    #[test]
    fn clip_bounds() {
        let x = f32s(&[4], &[-2.0, 0.5, 3.0, f32::NAN]);
        let y = clip(
            &x,
            Some(&Tensor::scalar(0.0f32)),
            Some(&Tensor::scalar(1.0f32)),
        )
        .unwrap();
        let v = vals(&y);
        assert_eq!(&v[..3], &[0.0, 0.5, 1.0]);
        assert!(v[3].is_nan());
        assert_eq!(
            vals(&clip(&x, None, Some(&Tensor::scalar(0.0f32))).unwrap())[..3],
            [-2.0, 0.0, 0.0]
        );
        let i = Tensor::vector(vec![-5i64, 5]);
        assert_eq!(
            clip(&i, Some(&Tensor::scalar(-1i64)), None)
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[-1, 5]
        );
        // min > max: everything becomes max.
        assert_eq!(
            clip(&i, Some(&Tensor::scalar(3i64)), Some(&Tensor::scalar(1i64)))
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[1, 1]
        );
        assert!(
            clip(&i, Some(&Tensor::scalar(0i32)), None)
                .unwrap_err()
                .message
                .contains("same type")
        );
        assert!(
            clip(&i, Some(&Tensor::vector(vec![0i64, 1])), None)
                .unwrap_err()
                .message
                .contains("scalar")
        );
    }

    #[test]
    fn arithmetic_with_broadcasting() {
        let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = f32s(&[3], &[10.0, 20.0, 30.0]);
        assert_eq!(
            vals(&add(&a, &b).unwrap()),
            vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
        );
        let c = f32s(&[2, 1], &[1.0, 2.0]);
        assert_eq!(
            vals(&sub(&a, &c).unwrap()),
            vec![0.0, 1.0, 2.0, 2.0, 3.0, 4.0]
        );
        assert_eq!(
            vals(&mul(&c, &b).unwrap()),
            vec![10.0, 20.0, 30.0, 20.0, 40.0, 60.0]
        );
        assert_eq!(
            vals(&div(&a, &Tensor::scalar(2.0f32)).unwrap()),
            vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        );
        assert_eq!(add(&c, &b).unwrap().shape(), &[2, 3]);
        assert!(
            add(&a, &f32s(&[2], &[1.0, 2.0]))
                .unwrap_err()
                .to_string()
                .starts_with("Add: shapes [2, 3], [2]")
        );
        assert!(
            add(&a, &Tensor::scalar(1.0f64))
                .unwrap_err()
                .message
                .contains("same type")
        );
        assert!(
            add(&Tensor::scalar(true), &Tensor::scalar(true))
                .unwrap_err()
                .message
                .contains("bool")
        );
        // Division by zero in floats is IEEE.
        assert_eq!(
            vals(&div(&Tensor::scalar(1.0f32), &Tensor::scalar(0.0f32)).unwrap()),
            vec![f64::INFINITY]
        );
    }

    #[test]
    fn integer_semantics() {
        let a = Tensor::vector(vec![7i32, -7, 7, -7]);
        let b = Tensor::vector(vec![2i32, 2, -2, -2]);
        assert_eq!(
            div(&a, &b).unwrap().typed::<i32>().unwrap(),
            &[3, -3, -3, 3]
        );
        assert_eq!(
            binary(&a, &b, Binary::Mod { fmod: false })
                .unwrap()
                .typed::<i32>()
                .unwrap(),
            &[1, 1, -1, -1]
        );
        assert_eq!(
            binary(&a, &b, Binary::Mod { fmod: true })
                .unwrap()
                .typed::<i32>()
                .unwrap(),
            &[1, -1, 1, -1]
        );
        let m = Tensor::vector(vec![i64::MIN]);
        assert_eq!(
            div(&m, &Tensor::vector(vec![-1i64]))
                .unwrap()
                .typed::<i64>()
                .unwrap(),
            &[i64::MIN]
        );
        assert_eq!(
            add(&Tensor::vector(vec![250u8]), &Tensor::vector(vec![10u8]))
                .unwrap()
                .typed::<u8>()
                .unwrap(),
            &[4]
        );
        assert_eq!(
            mul(
                &Tensor::vector(vec![u64::MAX]),
                &Tensor::vector(vec![u64::MAX])
            )
            .unwrap()
            .typed::<u64>()
            .unwrap(),
            &[1]
        );
        assert_eq!(
            div(&a, &Tensor::vector(vec![0i32]))
                .unwrap_err()
                .to_string(),
            "Div: integer division by zero"
        );
        assert!(binary(&a, &Tensor::scalar(0i32), Binary::Mod { fmod: false }).is_err());
        let f = f32s(&[2], &[-7.5, 7.5]);
        assert_eq!(
            vals(&binary(&f, &Tensor::scalar(2.0f32), Binary::Mod { fmod: true }).unwrap()),
            vec![-1.5, 1.5]
        );
        assert!(
            binary(&f, &f, Binary::Mod { fmod: false })
                .unwrap_err()
                .message
                .contains("fmod must be 1")
        );
    }

    #[test]
    fn powers() {
        let x = f32s(&[3], &[1.0, 2.0, 3.0]);
        assert_eq!(
            vals(&pow(&x, &Tensor::scalar(2i64)).unwrap()),
            vec![1.0, 4.0, 9.0]
        );
        assert_eq!(
            vals(&pow(&x, &f32s(&[3], &[4.0, 5.0, 0.5])).unwrap())[..2],
            [1.0, 32.0]
        );
        let i = Tensor::vector(vec![2i32, -3, 1, -1, 2]);
        let e = Tensor::vector(vec![10i64, 3, -5, -3, -1]);
        assert_eq!(
            pow(&i, &e).unwrap().typed::<i32>().unwrap(),
            &[1024, -27, 1, -1, 0]
        );
        assert_eq!(
            pow(&Tensor::vector(vec![2i32]), &Tensor::scalar(0.5f32))
                .unwrap()
                .typed::<i32>()
                .unwrap(),
            &[1]
        );
        assert!(pow(&x, &Tensor::scalar(true)).is_err());
    }

    #[test]
    fn variadic() {
        let a = f32s(&[3], &[1.0, 5.0, f32::NAN]);
        let b = f32s(&[3], &[4.0, 2.0, 0.0]);
        let c = f32s(&[1], &[3.0]);
        let m = vals(&max(&[&a, &b, &c]).unwrap());
        assert_eq!(&m[..2], &[4.0, 5.0]);
        assert!(m[2].is_nan());
        assert_eq!(vals(&min(&[&b, &c]).unwrap()), vec![3.0, 2.0, 0.0]);
        assert_eq!(vals(&max(&[&b]).unwrap()), vec![4.0, 2.0, 0.0]);
        assert_eq!(vals(&sum(&[&b, &c, &c]).unwrap()), vec![10.0, 8.0, 6.0]);
        assert_eq!(vals(&mean(&[&b, &c]).unwrap()), vec![3.5, 2.5, 1.5]);
        assert!(mean(&[&Tensor::scalar(1i32)]).is_err());
        assert!(sum(&[]).is_err());
        assert!(max(&[]).is_err());
        let i = max(&[&Tensor::vector(vec![1u8, 9]), &Tensor::vector(vec![5u8, 2])]).unwrap();
        assert_eq!(i.typed::<u8>().unwrap(), &[5, 9]);
    }

    #[test]
    fn comparisons_logic_where() {
        let a = f32s(&[3], &[1.0, 2.0, f32::NAN]);
        let b = f32s(&[1], &[2.0]);
        let run = |op| {
            compare(&a, &b, op)
                .unwrap()
                .typed::<bool>()
                .unwrap()
                .to_vec()
        };
        assert_eq!(run(Compare::Equal), vec![false, true, false]);
        assert_eq!(run(Compare::Less), vec![true, false, false]);
        assert_eq!(run(Compare::LessOrEqual), vec![true, true, false]);
        assert_eq!(run(Compare::Greater), vec![false, false, false]);
        assert_eq!(run(Compare::GreaterOrEqual), vec![false, true, false]);
        assert!(compare(&a, &Tensor::scalar(1i32), Compare::Less).is_err());
        let t = Tensor::vector(vec![true, true, false, false]);
        let u = Tensor::vector(vec![true, false, true, false]);
        assert_eq!(
            logic(&t, &u, Logic::And).unwrap().typed::<bool>().unwrap(),
            &[true, false, false, false]
        );
        assert_eq!(
            logic(&t, &u, Logic::Or).unwrap().typed::<bool>().unwrap(),
            &[true, true, true, false]
        );
        assert_eq!(
            logic(&t, &u, Logic::Xor).unwrap().typed::<bool>().unwrap(),
            &[false, true, true, false]
        );
        assert_eq!(
            not(&t).unwrap().typed::<bool>().unwrap(),
            &[false, false, true, true]
        );
        assert!(
            logic(&a, &u, Logic::And)
                .unwrap_err()
                .message
                .contains("expected bool")
        );
        let cond = Tensor::from_vec(vec![2, 1], vec![true, false]).unwrap();
        let w = where_(
            &cond,
            &f32s(&[3], &[1.0, 2.0, 3.0]),
            &Tensor::scalar(0.0f32),
        )
        .unwrap();
        assert_eq!(w.shape(), &[2, 3]);
        assert_eq!(vals(&w), vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
        assert!(where_(&a, &a, &a).is_err());
        assert!(where_(&cond, &a, &Tensor::scalar(0i32)).is_err());
    }

    /// Broadcasting laws on random shapes: commutativity, and agreement with explicit
    /// expansion through index arithmetic.
    #[test]
    fn broadcasting_properties() {
        let mut seed = 12345u64;
        let mut rnd = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            let rank = rnd(4) as usize;
            let full: Vec<i64> = (0..rank).map(|_| rnd(3) as i64 + 1).collect();
            let mut sub = |s: &[i64]| -> Vec<i64> {
                let drop = rnd(s.len() as u64 + 1) as usize;
                s[drop..]
                    .iter()
                    .map(|&d| if rnd(2) == 0 { 1 } else { d })
                    .collect()
            };
            let (sa, sb) = (sub(&full), sub(&full));
            let na: usize = sa.iter().product::<i64>() as usize;
            let nb: usize = sb.iter().product::<i64>() as usize;
            let a = Tensor::from_vec(sa.clone(), (0..na).map(|i| i as f32).collect()).unwrap();
            let b =
                Tensor::from_vec(sb.clone(), (0..nb).map(|i| (i * 100) as f32).collect()).unwrap();
            let ab = add(&a, &b).unwrap();
            assert_eq!(ab, add(&b, &a).unwrap());
            let out = ab.shape().to_vec();
            let v = vals(&ab);
            for (flat, got) in v.iter().enumerate() {
                let idx = ab.unravel(flat);
                let pick = |s: &[i64]| -> usize {
                    let lead = out.len() - s.len();
                    s.iter().enumerate().fold(0usize, |acc, (i, &d)| {
                        acc * d as usize + if d == 1 { 0 } else { idx[lead + i] as usize }
                    })
                };
                assert_eq!(*got, (pick(&sa) + pick(&sb) * 100) as f64);
            }
        }
    }
}
