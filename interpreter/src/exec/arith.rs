//! `arith` ops on scalars, vectors and tensors, with MLIR's semantics: integers wrap in
//! their width, signedness is chosen by the op, floats round to their format after each op.
//! Where MLIR leaves the result undefined (division by zero, over-wide shifts), the
//! interpreter reports an error instead of inventing a value.

use tb_dialects::arith::predicate::{compare_floats, compare_ints};
use tb_dialects::arith::{
    ArithOp, CmpFPredicate, CmpIPredicate, RoundingMode, add_carries, mul_high,
};
use tb_ir::{FloatKind, OpId};

use super::value::{ElemType, RtValue, Scalar, unsigned};
use super::{Env, ExecResult, Handler, Interpreter, attr};
use crate::tensor::TensorData;

/// Applies `f` to the operands of `op` element by element (scalars broadcast over shaped
/// operands, as `arith.select`'s condition does) and stores the single result.
pub(super) fn elementwise(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    f: &dyn Fn(&[Scalar]) -> Result<Scalar, String>,
) -> ExecResult {
    elementwise_result(interp, env, op, 0, f)
}

/// [`elementwise`] for result `index` of an op with several results.
fn elementwise_result(
    interp: &mut Interpreter,
    env: &mut Env,
    op: OpId,
    index: usize,
    f: &dyn Fn(&[Scalar]) -> Result<Scalar, String>,
) -> ExecResult {
    let ctx = interp.ctx;
    let count = ctx.op(op).operands.len();
    let args = (0..count)
        .map(|i| interp.arg(env, op, i))
        .collect::<ExecResult<Vec<_>>>()?;
    let result_elem = interp.result_elem(op, index)?;
    let shape = args.iter().find_map(|a| match a {
        RtValue::Tensor(t) => Some(t.shape().to_vec()),
        _ => None,
    });
    let mut scalars = vec![Scalar::Int(0); count];
    let value = match shape {
        None => {
            for (k, a) in args.iter().enumerate() {
                scalars[k] = match a {
                    RtValue::Scalar(s) => *s,
                    other => return Err(format!("operand #{k} is {}", other.kind_name()).into()),
                };
            }
            RtValue::Scalar(result_elem.normalize(f(&scalars)?))
        }
        Some(shape) => {
            for (k, a) in args.iter().enumerate() {
                match a {
                    RtValue::Tensor(t) if t.shape() != shape.as_slice() => {
                        return Err(format!(
                            "operand #{k} has shape {:?}, expected {shape:?}",
                            t.shape()
                        )
                        .into());
                    }
                    RtValue::Buffer(_) => {
                        return Err(format!("operand #{k} is a buffer").into());
                    }
                    _ => {}
                }
            }
            let n = shape.iter().product::<i64>() as usize;
            let mut out = TensorData::zeros(result_elem.dtype()?, n);
            for i in 0..n {
                for (k, a) in args.iter().enumerate() {
                    scalars[k] = match a {
                        RtValue::Scalar(s) => *s,
                        RtValue::Tensor(t) => super::value::read_element(t.data(), i),
                        RtValue::Buffer(_) => unreachable!("rejected above"),
                    };
                }
                super::value::write_element(&mut out, i, result_elem.normalize(f(&scalars)?));
            }
            RtValue::Tensor(crate::tensor::Tensor::new(shape, out).map_err(|e| e.0)?)
        }
    };
    interp.set_result(env, op, index, value)
}

type IntFn = fn(i64, i64, u32) -> Result<i64, String>;
type FloatFn = fn(f64, f64) -> f64;
type CastFn = fn(Scalar, ElemType, ElemType) -> Result<Scalar, String>;

fn int_binary(interp: &mut Interpreter, env: &mut Env, op: OpId, f: IntFn) -> ExecResult {
    let w = interp.operand_elem(op, 0)?.width();
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Int(f(s[0].as_int(), s[1].as_int(), w)?))
    })
}

fn float_binary(interp: &mut Interpreter, env: &mut Env, op: OpId, f: FloatFn) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(Scalar::Float(f(s[0].as_float(), s[1].as_float())))
    })
}

fn cast(interp: &mut Interpreter, env: &mut Env, op: OpId, f: CastFn) -> ExecResult {
    let (from, to) = (interp.operand_elem(op, 0)?, interp.result_elem(op, 0)?);
    elementwise(interp, env, op, &|s| f(s[0], from, to))
}

macro_rules! int_op {
    ($name:ident, |$a:ident, $b:ident, $w:ident| $body:expr) => {
        fn $name(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
            int_binary(interp, env, op, |$a, $b, $w| $body)
        }
    };
}

macro_rules! float_op {
    ($name:ident, |$a:ident, $b:ident| $body:expr) => {
        fn $name(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
            float_binary(interp, env, op, |$a, $b| $body)
        }
    };
}

macro_rules! cast_op {
    ($name:ident, |$v:ident, $from:ident, $to:ident| $body:expr) => {
        fn $name(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
            cast(interp, env, op, |$v, $from, $to| $body)
        }
    };
}

fn nonzero(b: i64) -> Result<i64, String> {
    if b == 0 {
        Err("divides by zero".into())
    } else {
        Ok(b)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Rounding {
    Up,
    Down,
}

/// The quotient of two signed `w`-bit values rounded toward +inf (`Up`) or -inf (`Down`);
/// division by zero and the overflowing `MIN / -1` are undefined.
fn signed_division(a: i64, b: i64, w: u32, rounding: Rounding) -> Result<i64, String> {
    // i1 `true` is -1 as a signed value.
    let (a, b) = if w == 1 { (-(a & 1), -(b & 1)) } else { (a, b) };
    let b = nonzero(b)?;
    let min = if w >= 64 {
        i64::MIN
    } else {
        -(1i64 << (w - 1))
    };
    if a == min && b == -1 {
        return Err(format!("overflows: {a} / -1 in {w} bits"));
    }
    let (q, r) = (a / b, a % b);
    // Truncation rounded toward zero; an inexact quotient moves one step away from it
    // when its sign agrees with the rounding direction.
    let positive = (a < 0) == (b < 0);
    Ok(match rounding {
        Rounding::Up if r != 0 && positive => q + 1,
        Rounding::Down if r != 0 && !positive => q - 1,
        _ => q,
    })
}

fn shift_amount(b: i64, w: u32) -> Result<u32, String> {
    let amount = unsigned(b, w);
    if amount >= w as u64 {
        return Err(format!(
            "shifts by {amount}, not less than the bit width {w}"
        ));
    }
    Ok(amount as u32)
}

int_op!(addi, |a, b, _w| Ok(a.wrapping_add(b)));
int_op!(subi, |a, b, _w| Ok(a.wrapping_sub(b)));
int_op!(muli, |a, b, _w| Ok(a.wrapping_mul(b)));
int_op!(divsi, |a, b, _w| Ok(a.wrapping_div(nonzero(b)?)));
int_op!(divui, |a, b, w| Ok(
    (unsigned(a, w) / unsigned(nonzero(b)?, w)) as i64
));
int_op!(ceildivsi, |a, b, w| signed_division(a, b, w, Rounding::Up));
int_op!(floordivsi, |a, b, w| signed_division(
    a,
    b,
    w,
    Rounding::Down
));
int_op!(ceildivui, |a, b, w| {
    let (a, b) = (unsigned(a, w), unsigned(nonzero(b)?, w));
    Ok((a / b + u64::from(a % b != 0)) as i64)
});
int_op!(remsi, |a, b, _w| Ok(a.wrapping_rem(nonzero(b)?)));
int_op!(remui, |a, b, w| Ok(
    (unsigned(a, w) % unsigned(nonzero(b)?, w)) as i64
));
int_op!(andi, |a, b, _w| Ok(a & b));
int_op!(ori, |a, b, _w| Ok(a | b));
int_op!(xori, |a, b, _w| Ok(a ^ b));
int_op!(maxsi, |a, b, _w| Ok(a.max(b)));
int_op!(minsi, |a, b, _w| Ok(a.min(b)));
int_op!(maxui, |a, b, w| Ok(if unsigned(a, w) >= unsigned(b, w) {
    a
} else {
    b
}));
int_op!(minui, |a, b, w| Ok(if unsigned(a, w) <= unsigned(b, w) {
    a
} else {
    b
}));
int_op!(shli, |a, b, w| Ok(a.wrapping_shl(shift_amount(b, w)?)));
int_op!(shrsi, |a, b, w| Ok(a >> shift_amount(b, w)?));
int_op!(shrui, |a, b, w| Ok(
    (unsigned(a, w) >> shift_amount(b, w)?) as i64
));

float_op!(addf, |a, b| a + b);
float_op!(subf, |a, b| a - b);
float_op!(mulf, |a, b| a * b);
float_op!(divf, |a, b| a / b);
float_op!(remf, |a, b| a % b);
float_op!(maximumf, |a, b| maximum(a, b));
float_op!(minimumf, |a, b| -maximum(-a, -b));
float_op!(maxnumf, |a, b| if a.is_nan() {
    b
} else if b.is_nan() {
    a
} else {
    maximum(a, b)
});
float_op!(minnumf, |a, b| if a.is_nan() {
    b
} else if b.is_nan() {
    a
} else {
    -maximum(-a, -b)
});

/// IEEE `maximum`: NaN if either is NaN, and +0 above -0.
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { b } else { a }
    } else {
        a.max(b)
    }
}

/// `arith.addui_extended`: the wrapped sum, and whether it carried out.
fn addui_extended(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let w = interp.operand_elem(op, 0)?.width();
    elementwise_result(interp, env, op, 0, &|s| {
        Ok(Scalar::Int(s[0].as_int().wrapping_add(s[1].as_int())))
    })?;
    elementwise_result(interp, env, op, 1, &|s| {
        let carry = add_carries(s[0].as_int() as i128, s[1].as_int() as i128, w);
        Ok(Scalar::Int(carry as i64))
    })
}

/// `arith.mulsi_extended`/`arith.mului_extended`: the low and high halves of the
/// double-width product.
fn mul_extended(interp: &mut Interpreter, env: &mut Env, op: OpId, signed: bool) -> ExecResult {
    let w = interp.operand_elem(op, 0)?.width();
    elementwise_result(interp, env, op, 0, &|s| {
        Ok(Scalar::Int(s[0].as_int().wrapping_mul(s[1].as_int())))
    })?;
    elementwise_result(interp, env, op, 1, &|s| {
        let high = mul_high(s[0].as_int() as i128, s[1].as_int() as i128, w, signed);
        Ok(Scalar::Int(high as i64))
    })
}

fn mulsi_extended(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    mul_extended(interp, env, op, true)
}

fn mului_extended(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    mul_extended(interp, env, op, false)
}

fn negf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| Ok(Scalar::Float(-s[0].as_float())))
}

fn cmpi(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let p = CmpIPredicate::of(interp.ctx, op).ok_or("has no known predicate")?;
    let w = interp.operand_elem(op, 0)?.width();
    elementwise(interp, env, op, &|s| {
        let r = compare_ints(p, s[0].as_int() as i128, s[1].as_int() as i128, w);
        Ok(Scalar::Int(r as i64))
    })
}

fn cmpf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let p = CmpFPredicate::of(interp.ctx, op).ok_or("has no known predicate")?;
    elementwise(interp, env, op, &|s| {
        let r = compare_floats(p, s[0].as_float(), s[1].as_float());
        Ok(Scalar::Int(r as i64))
    })
}

fn select(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    elementwise(interp, env, op, &|s| {
        Ok(if s[0].as_int() != 0 { s[1] } else { s[2] })
    })
}

fn constant(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    let ctx = interp.ctx;
    let value = ctx
        .op_inherent_or_attr(op, "value")
        .ok_or("has no value attribute")?;
    let v = attr::attr_to_value(ctx, value, interp.result_type(op, 0))?;
    interp.set_result(env, op, 0, v)
}

cast_op!(extsi, |v, from, _to| Ok(Scalar::Int(
    if from.width() == 1 {
        -(v.as_int() & 1)
    } else {
        v.as_int()
    }
)));
cast_op!(extui, |v, from, _to| Ok(Scalar::Int(
    unsigned(v.as_int(), from.width()) as i64
)));
cast_op!(trunc_int, |v, _from, _to| Ok(v));
cast_op!(extf, |v, _from, _to| Ok(v));

/// `truncf` rounds to nearest, ties to even, when normalizing its result; the directed
/// rounding modes are not modelled.
fn truncf(interp: &mut Interpreter, env: &mut Env, op: OpId) -> ExecResult {
    rounding_is_nearest_even(interp, op)?;
    cast(interp, env, op, |v, _from, _to| Ok(v))
}

fn rounding_is_nearest_even(interp: &Interpreter, op: OpId) -> ExecResult {
    match RoundingMode::of(interp.ctx, op) {
        None | Some(RoundingMode::ToNearestEven) => Ok(()),
        Some(mode) => Err(format!(
            "rounding mode '{}' is not supported by the interpreter",
            mode.keyword()
        )
        .into()),
    }
}
/// `scaling_extf`/`scaling_truncf` convert their scales through f8E8M0FNU (OCP MX), a
/// format the interpreter does not compute with; it says so rather than guess.
fn scaling_cast(_interp: &mut Interpreter, _env: &mut Env, _op: OpId) -> ExecResult {
    Err("is not supported by the interpreter: its scales round through f8E8M0FNU".into())
}

cast_op!(sitofp, |v, _from, _to| Ok(Scalar::Float(v.as_int() as f64)));
cast_op!(uitofp, |v, from, _to| Ok(Scalar::Float(
    unsigned(v.as_int(), from.width()) as f64
)));
cast_op!(fptosi, |v, _from, _to| Ok(Scalar::Int(v.as_float() as i64)));
cast_op!(fptoui, |v, _from, _to| Ok(Scalar::Int(
    v.as_float() as u64 as i64
)));
cast_op!(index_cast, |v, from, _to| Ok(Scalar::Int(
    if from.width() == 1 {
        -(v.as_int() & 1)
    } else {
        v.as_int()
    }
)));
cast_op!(index_castui, |v, from, _to| Ok(Scalar::Int(
    unsigned(v.as_int(), from.width()) as i64
)));
cast_op!(bitcast, |v, from, to| bitcast_scalar(v, from, to));

fn bitcast_scalar(v: Scalar, from: ElemType, to: ElemType) -> Result<Scalar, String> {
    let bits: u64 = match (v, from) {
        (Scalar::Int(i), _) => unsigned(i, from.width()),
        (Scalar::Float(f), ElemType::Float(FloatKind::F16)) => {
            half::f16::from_f64(f).to_bits() as u64
        }
        (Scalar::Float(f), ElemType::Float(FloatKind::BF16)) => {
            half::bf16::from_f64(f).to_bits() as u64
        }
        (Scalar::Float(f), ElemType::Float(FloatKind::F32)) => (f as f32).to_bits() as u64,
        (Scalar::Float(f), _) => f.to_bits(),
    };
    Ok(match to {
        ElemType::Float(FloatKind::F16) => {
            Scalar::Float(half::f16::from_bits(bits as u16).to_f64())
        }
        ElemType::Float(FloatKind::BF16) => {
            Scalar::Float(half::bf16::from_bits(bits as u16).to_f64())
        }
        ElemType::Float(FloatKind::F32) => Scalar::Float(f32::from_bits(bits as u32) as f64),
        ElemType::Float(_) => Scalar::Float(f64::from_bits(bits)),
        _ => Scalar::Int(bits as i64),
    })
}

pub(super) fn handler(kind: ArithOp) -> Handler {
    use ArithOp as A;
    match kind {
        A::Constant => constant,
        A::AddI => addi,
        A::AddUIExtended => addui_extended,
        A::SubI => subi,
        A::MulI => muli,
        A::MulSIExtended => mulsi_extended,
        A::MulUIExtended => mului_extended,
        A::DivSI => divsi,
        A::DivUI => divui,
        A::CeilDivSI => ceildivsi,
        A::CeilDivUI => ceildivui,
        A::FloorDivSI => floordivsi,
        A::RemSI => remsi,
        A::RemUI => remui,
        A::AndI => andi,
        A::OrI => ori,
        A::XOrI => xori,
        A::MaxSI => maxsi,
        A::MinSI => minsi,
        A::MaxUI => maxui,
        A::MinUI => minui,
        A::ShLI => shli,
        A::ShRSI => shrsi,
        A::ShRUI => shrui,
        A::AddF => addf,
        A::SubF => subf,
        A::MulF => mulf,
        A::DivF => divf,
        A::RemF => remf,
        A::MaximumF => maximumf,
        A::MinimumF => minimumf,
        A::MaxNumF => maxnumf,
        A::MinNumF => minnumf,
        A::NegF => negf,
        A::CmpI => cmpi,
        A::CmpF => cmpf,
        A::Select => select,
        A::ExtSI => extsi,
        A::ExtUI => extui,
        A::TruncI => trunc_int,
        A::ExtF => extf,
        A::TruncF => truncf,
        A::ScalingExtF | A::ScalingTruncF => scaling_cast,
        A::SIToFP => sitofp,
        A::UIToFP => uitofp,
        A::FPToSI => fptosi,
        A::FPToUI => fptoui,
        A::IndexCast => index_cast,
        A::IndexCastUI => index_castui,
        A::Bitcast => bitcast,
    }
}
