//! `math` ops, elementwise on scalars, vectors and tensors: computed in `f64` and rounded
//! to the operand's format, which is at least as accurate as any compiled version.

use tb_dialects::math::MathOp;
use tb_ir::OpId;

use super::arith::elementwise;
use super::value::{RtValue, Scalar, unsigned};
use super::{Env, ExecResult, Handler, Interpreter};

type UnaryFloat = fn(f64) -> f64;

fn float_unary(interp: &mut Interpreter, env: &mut Env, op: OpId, f: UnaryFloat) -> ExecResult {
    elementwise(interp, env, op, &|s| Ok(Scalar::Float(f(s[0].as_float()))))
}

macro_rules! unary {
    ($($name:ident => $f:expr),* $(,)?) => {
        $(fn $name(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
            float_unary(interp, env, op, $f)
        })*
    };
}

unary! {
    absf => f64::abs,
    acos => f64::acos,
    acosh => f64::acosh,
    asin => f64::asin,
    asinh => f64::asinh,
    atan => f64::atan,
    atanh => f64::atanh,
    cbrt => f64::cbrt,
    ceil => f64::ceil,
    cos => f64::cos,
    cosh => f64::cosh,
    erf => libm::erf,
    erfc => libm::erfc,
    exp => f64::exp,
    exp2 => f64::exp2,
    expm1 => f64::exp_m1,
    floor => f64::floor,
    log => f64::ln,
    log10 => f64::log10,
    log1p => f64::ln_1p,
    log2 => f64::log2,
    round => f64::round,
    roundeven => f64::round_ties_even,
    rsqrt => |x| 1.0 / x.sqrt(),
    sin => f64::sin,
    sinh => f64::sinh,
    sqrt => f64::sqrt,
    tan => f64::tan,
    tanh => f64::tanh,
    trunc => f64::trunc,
}

fn atan2(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    // MLIR 22 folds atan2(±0, ±0) to NaN (C's atan2 gives ±0 or ±pi); the interpreter
    // agrees with the folder, so canonicalization never changes a result.
    elementwise(interp, env, op, &|s| {
        let (y, x) = (s[0].as_float(), s[1].as_float());
        Ok(Scalar::Float(if y == 0.0 && x == 0.0 {
            f64::NAN
        } else {
            y.atan2(x)
        }))
    })
}

fn copysign(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(s[0].as_float().copysign(s[1].as_float())))
    })
}

fn powf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(s[0].as_float().powf(s[1].as_float())))
    })
}

fn fpowi(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(s[0].as_float().powf(s[1].as_int() as f64)))
    })
}

fn fma(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(
            s[0].as_float().mul_add(s[1].as_float(), s[2].as_float()),
        ))
    })
}

fn clampf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    // NaN bounds or value propagate, as the op's max-then-min expansion does.
    elementwise(interp, env, op, &|s| {
        let (v, lo, hi) = (s[0].as_float(), s[1].as_float(), s[2].as_float());
        Ok(Scalar::Float(if v.is_nan() || lo.is_nan() || hi.is_nan() {
            f64::NAN
        } else {
            v.max(lo).min(hi)
        }))
    })
}

/// `math.sincos`: two results from one operand.
fn sincos(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise_into(interp, env, op, 0, f64::sin)?;
    elementwise_into(interp, env, op, 1, f64::cos)
}

/// Applies `f` to operand 0 element by element and stores result `index`.
fn elementwise_into(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    index: usize,
    f: fn(f64) -> f64,
) -> ExecResult {
    let elem = interp.result_elem(op, index)?;
    let value = match interp.arg(env, op, 0)? {
        RtValue::Scalar(s) => RtValue::Scalar(elem.normalize(Scalar::Float(f(s.as_float())))),
        RtValue::Tensor(t) => {
            let mut data = crate::tensor::TensorData::zeros(elem.dtype()?, t.numel());
            for i in 0..t.numel() {
                let x = super::value::read_element(t.data(), i).as_float();
                super::value::write_element(&mut data, i, elem.normalize(Scalar::Float(f(x))));
            }
            RtValue::Tensor(crate::tensor::Tensor::new(t.shape().to_vec(), data).map_err(|e| e.0)?)
        }
        RtValue::Buffer(_) => return Err("operand is a buffer".into()),
    };
    interp.set_result(env, op, index, value)
}

fn ipowi(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        let (base, exp) = (s[0].as_int(), s[1].as_int());
        // Negative exponents give 0 except for bases 1 and -1, as MLIR's expansion does;
        // 0 to a negative power is undefined.
        Ok(Scalar::Int(match exp {
            e if e >= 0 => base.wrapping_pow(e.min(u32::MAX as i64) as u32),
            _ if base == 1 => 1,
            e if base == -1 => {
                if e % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ if base == 0 => return Err("raises 0 to a negative power".into()),
            _ => 0,
        }))
    })
}

fn int_unary(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    f: fn(i64, u32) -> i64,
) -> ExecResult {
    let w = interp.operand_elem(op, 0)?.width();
    elementwise(interp, env, op, &|s| Ok(Scalar::Int(f(s[0].as_int(), w))))
}

fn absi(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    int_unary(interp, env, op, |v, _| v.wrapping_abs())
}

fn ctlz(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    int_unary(interp, env, op, |v, w| {
        (unsigned(v, w).leading_zeros() - (64 - w)) as i64
    })
}

fn cttz(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    int_unary(interp, env, op, |v, w| {
        unsigned(v, w).trailing_zeros().min(w) as i64
    })
}

fn ctpop(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    int_unary(interp, env, op, |v, w| unsigned(v, w).count_ones() as i64)
}

fn classify(interp: &mut Interpreter, env: &mut Env, op: OpId, f: fn(f64) -> bool) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Int(f(s[0].as_float()) as i64))
    })
}

fn isnan(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    classify(interp, env, op, f64::is_nan)
}

fn isinf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    classify(interp, env, op, f64::is_infinite)
}

fn isfinite(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    classify(interp, env, op, f64::is_finite)
}

fn isnormal(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    // The operand is already rounded to its format, but normality depends on the format's
    // exponent range, so check in that format.
    let elem = interp.operand_elem(op, 0)?;
    let min_normal = match elem {
        super::value::ElemType::Float(tb_ir::FloatKind::F16) => 6.103_515_625e-5,
        super::value::ElemType::Float(tb_ir::FloatKind::BF16)
        | super::value::ElemType::Float(tb_ir::FloatKind::F32) => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    };
    elementwise(interp, env, op, &|s| {
        let x = s[0].as_float().abs();
        Ok(Scalar::Int((x.is_finite() && x >= min_normal) as i64))
    })
}

pub(super) fn handler(kind: MathOp) -> Handler {
    use MathOp as M;
    match kind {
        M::AbsF => absf,
        M::Acos => acos,
        M::Acosh => acosh,
        M::Asin => asin,
        M::Asinh => asinh,
        M::Atan => atan,
        M::Atanh => atanh,
        M::Cbrt => cbrt,
        M::Ceil => ceil,
        M::Cos => cos,
        M::Cosh => cosh,
        M::Erf => erf,
        M::Erfc => erfc,
        M::Exp => exp,
        M::Exp2 => exp2,
        M::ExpM1 => expm1,
        M::Floor => floor,
        M::Log => log,
        M::Log10 => log10,
        M::Log1p => log1p,
        M::Log2 => log2,
        M::Round => round,
        M::RoundEven => roundeven,
        M::Rsqrt => rsqrt,
        M::Sin => sin,
        M::Sinh => sinh,
        M::Sqrt => sqrt,
        M::Tan => tan,
        M::Tanh => tanh,
        M::Trunc => trunc,
        M::Atan2 => atan2,
        M::CopySign => copysign,
        M::PowF => powf,
        M::FPowI => fpowi,
        M::Fma => fma,
        M::ClampF => clampf,
        M::SinCos => sincos,
        M::IPowI => ipowi,
        M::AbsI => absi,
        M::CtLz => ctlz,
        M::CtTz => cttz,
        M::CtPop => ctpop,
        M::IsNan => isnan,
        M::IsInf => isinf,
        M::IsFinite => isfinite,
        M::IsNormal => isnormal,
    }
}
