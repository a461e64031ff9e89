//! The host C library's math functions, the ones MLIR's folders call: evaluating
//! constants with the same functions keeps folded values bit-identical to `mlir-opt`'s
//! (Rust's own `f32::acosh` and friends are computed differently).

unsafe extern "C" {
    safe fn acos(x: f64) -> f64;
    safe fn acosf(x: f32) -> f32;
    safe fn acosh(x: f64) -> f64;
    safe fn acoshf(x: f32) -> f32;
    safe fn asin(x: f64) -> f64;
    safe fn asinf(x: f32) -> f32;
    safe fn asinh(x: f64) -> f64;
    safe fn asinhf(x: f32) -> f32;
    safe fn atan(x: f64) -> f64;
    safe fn atanf(x: f32) -> f32;
    safe fn atanh(x: f64) -> f64;
    safe fn atanhf(x: f32) -> f32;
    safe fn cos(x: f64) -> f64;
    safe fn cosf(x: f32) -> f32;
    safe fn cosh(x: f64) -> f64;
    safe fn coshf(x: f32) -> f32;
    safe fn erf(x: f64) -> f64;
    safe fn erff(x: f32) -> f32;
    safe fn erfc(x: f64) -> f64;
    safe fn erfcf(x: f32) -> f32;
    safe fn exp(x: f64) -> f64;
    safe fn expf(x: f32) -> f32;
    safe fn exp2(x: f64) -> f64;
    safe fn exp2f(x: f32) -> f32;
    safe fn expm1(x: f64) -> f64;
    safe fn expm1f(x: f32) -> f32;
    safe fn log(x: f64) -> f64;
    safe fn logf(x: f32) -> f32;
    safe fn log10(x: f64) -> f64;
    safe fn log10f(x: f32) -> f32;
    safe fn log1p(x: f64) -> f64;
    safe fn log1pf(x: f32) -> f32;
    safe fn log2(x: f64) -> f64;
    safe fn log2f(x: f32) -> f32;
    safe fn round(x: f64) -> f64;
    safe fn roundf(x: f32) -> f32;
    safe fn sin(x: f64) -> f64;
    safe fn sinf(x: f32) -> f32;
    safe fn sinh(x: f64) -> f64;
    safe fn sinhf(x: f32) -> f32;
    safe fn sqrt(x: f64) -> f64;
    safe fn sqrtf(x: f32) -> f32;
    safe fn tan(x: f64) -> f64;
    safe fn tanf(x: f32) -> f32;
    safe fn tanh(x: f64) -> f64;
    safe fn tanhf(x: f32) -> f32;
    safe fn trunc(x: f64) -> f64;
    safe fn truncf(x: f32) -> f32;
    safe fn atan2(x: f64, y: f64) -> f64;
    safe fn atan2f(x: f32, y: f32) -> f32;
    safe fn pow(x: f64, y: f64) -> f64;
    safe fn powf(x: f32, y: f32) -> f32;
}

/// A function of one float in its `float` and `double` variants (`expf`, `exp`).
#[derive(Clone, Copy)]
pub(crate) struct Unary {
    pub f32: extern "C" fn(f32) -> f32,
    pub f64: extern "C" fn(f64) -> f64,
}

/// A function of two floats in its `float` and `double` variants (`powf`, `pow`).
#[derive(Clone, Copy)]
pub(crate) struct Binary {
    pub f32: extern "C" fn(f32, f32) -> f32,
    pub f64: extern "C" fn(f64, f64) -> f64,
}

pub(crate) const ACOS: Unary = Unary {
    f32: acosf,
    f64: acos,
};
pub(crate) const ACOSH: Unary = Unary {
    f32: acoshf,
    f64: acosh,
};
pub(crate) const ASIN: Unary = Unary {
    f32: asinf,
    f64: asin,
};
pub(crate) const ASINH: Unary = Unary {
    f32: asinhf,
    f64: asinh,
};
pub(crate) const ATAN: Unary = Unary {
    f32: atanf,
    f64: atan,
};
pub(crate) const ATANH: Unary = Unary {
    f32: atanhf,
    f64: atanh,
};
pub(crate) const COS: Unary = Unary {
    f32: cosf,
    f64: cos,
};
pub(crate) const COSH: Unary = Unary {
    f32: coshf,
    f64: cosh,
};
pub(crate) const ERF: Unary = Unary {
    f32: erff,
    f64: erf,
};
pub(crate) const ERFC: Unary = Unary {
    f32: erfcf,
    f64: erfc,
};
pub(crate) const EXP: Unary = Unary {
    f32: expf,
    f64: exp,
};
pub(crate) const EXP2: Unary = Unary {
    f32: exp2f,
    f64: exp2,
};
pub(crate) const EXPM1: Unary = Unary {
    f32: expm1f,
    f64: expm1,
};
pub(crate) const LOG: Unary = Unary {
    f32: logf,
    f64: log,
};
pub(crate) const LOG10: Unary = Unary {
    f32: log10f,
    f64: log10,
};
pub(crate) const LOG1P: Unary = Unary {
    f32: log1pf,
    f64: log1p,
};
pub(crate) const LOG2: Unary = Unary {
    f32: log2f,
    f64: log2,
};
pub(crate) const ROUND: Unary = Unary {
    f32: roundf,
    f64: round,
};
pub(crate) const SIN: Unary = Unary {
    f32: sinf,
    f64: sin,
};
pub(crate) const SINH: Unary = Unary {
    f32: sinhf,
    f64: sinh,
};
pub(crate) const SQRT: Unary = Unary {
    f32: sqrtf,
    f64: sqrt,
};
pub(crate) const TAN: Unary = Unary {
    f32: tanf,
    f64: tan,
};
pub(crate) const TANH: Unary = Unary {
    f32: tanhf,
    f64: tanh,
};
pub(crate) const TRUNC: Unary = Unary {
    f32: truncf,
    f64: trunc,
};
pub(crate) const ATAN2: Binary = Binary {
    f32: atan2f,
    f64: atan2,
};
pub(crate) const POW: Binary = Binary {
    f32: powf,
    f64: pow,
};
