//! The floating-point compute types (f32 and f64) and the dispatch that runs f16/bf16
//! kernels in f32 and rounds the results back.

use std::borrow::Cow;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

use half::{bf16, f16};

use super::{KernelResult, fail, same_dtype};
use crate::tensor::{DType, Element, Tensor, TensorData};

/// f32 or f64: the types float kernels compute in.
pub(crate) trait Real:
    Element
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
{
    const ZERO: Self;
    /// Wraps computed values as tensor data of `dtype` (f32 results may become f16/bf16).
    fn into_dtype(v: Vec<Self>, dtype: DType) -> TensorData;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    fn into_dtype(v: Vec<f32>, dtype: DType) -> TensorData {
        match dtype {
            DType::F16 => TensorData::F16(v.into_iter().map(f16::from_f32).collect()),
            DType::BF16 => TensorData::BF16(v.into_iter().map(bf16::from_f32).collect()),
            _ => TensorData::F32(v),
        }
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    fn into_dtype(v: Vec<f64>, _: DType) -> TensorData {
        TensorData::F64(v)
    }
}

/// Float inputs of one dtype, as f32 (widened from f16/bf16 when needed) or f64 slices.
pub(crate) enum FloatInputs<'a> {
    F32(Vec<Cow<'a, [f32]>>, DType),
    F64(Vec<&'a [f64]>),
}

/// Checks that all inputs share one floating-point dtype and exposes them for computing.
pub(crate) fn float_inputs<'a>(
    op: &'static str,
    inputs: &[&'a Tensor],
) -> KernelResult<FloatInputs<'a>> {
    let dt = same_dtype(op, inputs)?;
    let widen = |t: &'a Tensor| -> Cow<'a, [f32]> {
        match t.data() {
            TensorData::F32(v) => Cow::Borrowed(v),
            TensorData::F16(v) => Cow::Owned(v.iter().map(|x| x.to_f32()).collect()),
            TensorData::BF16(v) => Cow::Owned(v.iter().map(|x| x.to_f32()).collect()),
            _ => Cow::Owned(vec![]), // unreachable: dtype checked below
        }
    };
    match dt {
        DType::F32 | DType::F16 | DType::BF16 => Ok(FloatInputs::F32(
            inputs.iter().map(|t| widen(t)).collect(),
            dt,
        )),
        DType::F64 => Ok(FloatInputs::F64(
            inputs.iter().filter_map(|t| t.as_slice::<f64>()).collect(),
        )),
        _ => fail(
            op,
            format!("expected floating-point inputs (f16, bf16, f32, f64), got {dt}"),
        ),
    }
}

/// Runs `$body` (an expression over `$xs: Vec<&[T]>` returning `KernelResult<Vec<Vec<T>>>`)
/// with T = f32 or f64, and converts each output back to the inputs' dtype.
macro_rules! float_apply {
    ($op:expr, $inputs:expr, |$xs:ident| $body:expr) => {{
        use $crate::kernels::float::{FloatInputs, Real};
        match $crate::kernels::float::float_inputs($op, $inputs)? {
            FloatInputs::F32(owned, dt) => {
                let $xs: Vec<&[f32]> = owned.iter().map(|c| &**c).collect();
                let outs: Vec<Vec<f32>> = $body?;
                (
                    outs.into_iter()
                        .map(|o| f32::into_dtype(o, dt))
                        .collect::<Vec<_>>(),
                    dt,
                )
            }
            FloatInputs::F64(slices) => {
                let $xs: Vec<&[f64]> = slices;
                let outs: Vec<Vec<f64>> = $body?;
                (
                    outs.into_iter()
                        .map(|o| f64::into_dtype(o, $crate::tensor::DType::F64))
                        .collect::<Vec<_>>(),
                    $crate::tensor::DType::F64,
                )
            }
        }
    }};
}
pub(crate) use float_apply;
