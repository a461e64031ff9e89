//! Constant tensors as attributes: `dense<...>` for small ones, `dense_resource<...>` with a
//! blob in the context's resource table for weights, and the scalar attributes that ONNX's
//! constant inputs become (Clip's `min`, Pad's `constant_value`, Range's `start` ...).

use std::collections::HashSet;
use std::sync::Arc;

use tb_interpreter::{DType, Tensor, TensorData};
use tb_ir::attributes::{DenseData, DenseElement};
use tb_ir::context::ResourceBlob;
use tb_ir::{Attr, AttrKind, Context, FloatKind};

use super::types::{element_type, tensor_type};

/// Tensors with at most this many elements are written inline as `dense<...>`; larger ones
/// go to the resource trailer, as weights do in MLIR.
pub const MAX_INLINE_ELEMENTS: usize = 16;

/// Every element as a dense literal element (floats as their raw bits).
fn dense_elements(data: &TensorData) -> Vec<DenseElement> {
    let ints = |v: &mut dyn Iterator<Item = i128>| v.map(DenseElement::Int).collect();
    match data {
        TensorData::F32(v) => v
            .iter()
            .map(|x| DenseElement::Float(x.to_bits().into()))
            .collect(),
        TensorData::F64(v) => v
            .iter()
            .map(|x| DenseElement::Float(x.to_bits().into()))
            .collect(),
        TensorData::F16(v) => v
            .iter()
            .map(|x| DenseElement::Float(x.to_bits().into()))
            .collect(),
        TensorData::BF16(v) => v
            .iter()
            .map(|x| DenseElement::Float(x.to_bits().into()))
            .collect(),
        TensorData::I8(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::I16(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::I32(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::I64(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::U8(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::U16(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::U32(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::U64(v) => ints(&mut v.iter().map(|&x| x.into())),
        TensorData::Bool(v) => ints(&mut v.iter().map(|&x| x.into())),
    }
}

/// The little-endian bytes of every element, as a `dense_resource` blob holds them.
pub fn raw_bytes(data: &TensorData) -> Vec<u8> {
    fn le<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(f).collect()
    }
    match data {
        TensorData::F32(v) => le(v, |x| x.to_le_bytes()),
        TensorData::F64(v) => le(v, |x| x.to_le_bytes()),
        TensorData::F16(v) => le(v, |x| x.to_le_bytes()),
        TensorData::BF16(v) => le(v, |x| x.to_le_bytes()),
        TensorData::I8(v) => le(v, |x| x.to_le_bytes()),
        TensorData::I16(v) => le(v, |x| x.to_le_bytes()),
        TensorData::I32(v) => le(v, |x| x.to_le_bytes()),
        TensorData::I64(v) => le(v, |x| x.to_le_bytes()),
        TensorData::U8(v) => v.clone(),
        TensorData::U16(v) => le(v, |x| x.to_le_bytes()),
        TensorData::U32(v) => le(v, |x| x.to_le_bytes()),
        TensorData::U64(v) => le(v, |x| x.to_le_bytes()),
        TensorData::Bool(v) => v.iter().map(|&b| b as u8).collect(),
    }
}

/// `dense<...> : tensor<...>` holding `t`, a splat when every element is the same.
pub fn dense_attr(ctx: &mut Context, t: &Tensor) -> Attr {
    let ty = tensor_type(ctx, t.shape(), t.dtype());
    let mut elements = dense_elements(t.data());
    let splat = elements.len() > 1 && elements.iter().all(|e| *e == elements[0]);
    if splat {
        elements.truncate(1);
    }
    ctx.intern_attr(AttrKind::DenseElements {
        ty,
        data: DenseData { splat, elements },
    })
}

/// Resource handles in use, so that two ONNX names that sanitize alike stay apart.
#[derive(Default)]
pub struct ResourceNames {
    used: HashSet<String>,
}

impl ResourceNames {
    /// A handle for `name` that is a valid bare identifier (`[A-Za-z_][A-Za-z0-9_$.]*`)
    /// and not taken yet.
    pub fn handle(&mut self, ctx: &Context, name: &str) -> String {
        let mut base: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            base.insert(0, '_');
        }
        let mut handle = base.clone();
        let mut n = 1;
        while self.used.contains(&handle) || ctx.resources.contains_key(&handle) {
            handle = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(handle.clone());
        handle
    }
}

/// The attribute a constant op holds: inline when small, else a blob named after `name`.
pub fn elements_attr(ctx: &mut Context, names: &mut ResourceNames, name: &str, t: &Tensor) -> Attr {
    let all_same = {
        let e = dense_elements(t.data());
        e.iter().all(|x| *x == e[0])
    };
    if t.numel() <= MAX_INLINE_ELEMENTS || all_same {
        return dense_attr(ctx, t);
    }
    let handle = names.handle(ctx, name);
    let blob = ResourceBlob {
        alignment: t.dtype().size_in_bytes().max(1) as u32,
        data: raw_bytes(t.data()),
    };
    Arc::make_mut(&mut ctx.resources).insert(handle.clone(), blob);
    let ty = tensor_type(ctx, t.shape(), t.dtype());
    ctx.intern_attr(AttrKind::DenseResource { handle, ty })
}

/// The only element of `t` (any shape with one element) as a scalar attribute of `t`'s
/// element type.
pub fn scalar_attr(ctx: &mut Context, t: &Tensor) -> Option<Attr> {
    if t.numel() != 1 {
        return None;
    }
    let ty = element_type(ctx, t.dtype());
    let element = dense_elements(t.data())[0];
    Some(match element {
        DenseElement::Float(bits) => ctx.intern_attr(AttrKind::Float { bits, ty }),
        DenseElement::Int(value) => ctx.integer_attr(value, ty),
        _ => return None,
    })
}

/// A float scalar of `dtype` (which must be a float type) with value `v`.
pub fn float_attr(ctx: &mut Context, dtype: DType, v: f64) -> Option<Attr> {
    let kind = match dtype {
        DType::F32 => FloatKind::F32,
        DType::F64 => FloatKind::F64,
        DType::F16 => FloatKind::F16,
        DType::BF16 => FloatKind::BF16,
        _ => return None,
    };
    let bits = tb_ir::float::bits_from_f64(kind, v)?;
    let ty = ctx.float_type(kind);
    Some(ctx.intern_attr(AttrKind::Float { bits, ty }))
}
