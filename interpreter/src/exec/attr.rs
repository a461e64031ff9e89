//! Conversions between IR constants and run-time values: integer, float, `dense<...>` and
//! `dense_resource<...>` attributes, and function arguments given as tensors.

use tb_ir::attributes::DenseElement;
use tb_ir::float::bits_to_f64;
use tb_ir::printer::type_to_string;
use tb_ir::{Attr, AttrKind, Context, Type, TypeKind};

use super::buffer::Buffer;
use super::value::{ElemType, RtValue, Scalar, static_shape, write_element};
use crate::tensor::{Tensor, TensorData};

/// The run-time value of constant `attr` for a result of type `ty`.
pub fn attr_to_value(ctx: &Context, attr: Attr, ty: Type) -> Result<RtValue, String> {
    let elem = ElemType::of(ctx, ty)?;
    let scalar_of = |e: &DenseElement| -> Result<Scalar, String> {
        match (e, elem) {
            (DenseElement::Int(v), _) => Ok(elem.normalize(Scalar::Int(*v as i64))),
            (DenseElement::Float(bits), ElemType::Float(kind)) => bits_to_f64(kind, *bits)
                .map(Scalar::Float)
                .ok_or_else(|| "unsupported float format".to_string()),
            _ => Err("complex constants are not supported by the interpreter".into()),
        }
    };
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => {
            Ok(RtValue::Scalar(elem.normalize(Scalar::Int(*value as i64))))
        }
        AttrKind::Float { bits, ty: fty } => match ctx.type_kind(*fty) {
            TypeKind::Float(kind) => bits_to_f64(*kind, *bits)
                .map(|f| RtValue::Scalar(Scalar::Float(f)))
                .ok_or_else(|| "unsupported float format".into()),
            _ => Err("float attribute of a non-float type".into()),
        },
        AttrKind::DenseElements { data, .. } => {
            let shape = static_shape(ctx, ty)?;
            let n = shape.iter().product::<i64>() as usize;
            let mut out = TensorData::zeros(elem.dtype()?, n);
            if data.splat {
                let v = scalar_of(data.elements.first().ok_or("empty splat")?)?;
                for i in 0..n {
                    write_element(&mut out, i, v);
                }
            } else {
                if data.elements.len() != n {
                    return Err(format!(
                        "dense constant has {} elements, its type {} needs {n}",
                        data.elements.len(),
                        type_to_string(ctx, ty)
                    ));
                }
                for (i, e) in data.elements.iter().enumerate() {
                    write_element(&mut out, i, scalar_of(e)?);
                }
            }
            shaped_value(ctx, ty, Tensor::new(shape, out).map_err(|e| e.0)?)
        }
        AttrKind::DenseResource { handle, .. } => {
            let blob = ctx
                .resources
                .get(handle)
                .ok_or_else(|| format!("dense_resource '{handle}' has no blob in the file"))?;
            let shape = static_shape(ctx, ty)?;
            let dtype = elem.dtype()?;
            let n = shape.iter().product::<i64>() as usize;
            let want = n * dtype.size_in_bytes();
            if blob.data.len() != want {
                return Err(format!(
                    "dense_resource '{handle}' holds {} bytes, {} needs {want}",
                    blob.data.len(),
                    type_to_string(ctx, ty)
                ));
            }
            let data = crate::npy::decode(dtype, false, &blob.data);
            shaped_value(ctx, ty, Tensor::new(shape, data).map_err(|e| e.0)?)
        }
        _ => Err(format!(
            "constant {} is not supported by the interpreter",
            tb_ir::printer::attr_to_string(ctx, attr)
        )),
    }
}

/// `tensor` as a value of the shaped type `ty`: a buffer for memrefs, else the tensor.
fn shaped_value(ctx: &Context, ty: Type, tensor: Tensor) -> Result<RtValue, String> {
    Ok(match ctx.type_kind(ty) {
        TypeKind::MemRef { .. } => RtValue::Buffer(Buffer::from_tensor(&tensor)),
        _ => RtValue::Tensor(tensor),
    })
}

/// A function argument of type `ty` given as `tensor`: dtype and shape must match exactly.
pub(super) fn tensor_as_argument(
    ctx: &Context,
    ty: Type,
    tensor: &Tensor,
) -> Result<RtValue, String> {
    let elem = ElemType::of(ctx, ty)?;
    let dtype = elem.dtype()?;
    if tensor.dtype() != dtype {
        return Err(format!(
            "expected {} elements for {}, got {}",
            dtype,
            type_to_string(ctx, ty),
            tensor.dtype()
        ));
    }
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { .. } | TypeKind::MemRef { .. } | TypeKind::Vector { .. } => {
            let shape = static_shape(ctx, ty)?;
            if tensor.shape() != shape.as_slice() {
                return Err(format!(
                    "expected shape {:?} for {}, got {:?}",
                    shape,
                    type_to_string(ctx, ty),
                    tensor.shape()
                ));
            }
            shaped_value(ctx, ty, tensor.clone())
        }
        _ => {
            if tensor.numel() != 1 {
                return Err(format!(
                    "expected one element for scalar {}, got shape {:?}",
                    type_to_string(ctx, ty),
                    tensor.shape()
                ));
            }
            Ok(RtValue::Scalar(super::value::read_element(
                tensor.data(),
                0,
            )))
        }
    }
}

/// `value` seen as type `ty`: tensors and buffers convert into each other by copying.
pub(super) fn convert_for_type(ctx: &Context, ty: Type, value: RtValue) -> Result<RtValue, String> {
    Ok(match (ctx.type_kind(ty), value) {
        (TypeKind::MemRef { .. }, RtValue::Tensor(t)) => RtValue::Buffer(Buffer::from_tensor(&t)),
        (TypeKind::RankedTensor { .. } | TypeKind::Vector { .. }, RtValue::Buffer(b)) => {
            RtValue::Tensor(b.to_tensor()?)
        }
        (_, v) => v,
    })
}
