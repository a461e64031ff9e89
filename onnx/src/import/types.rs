//! Element and tensor types: ONNX data types as the graph dialect spells them (signless
//! `i8`..`i64` for ONNX's signed integers, `ui8`..`ui64`, `i1` for bool).

use tb_interpreter::DType;
use tb_ir::{Context, FloatKind, Signedness, Type, TypeKind};

/// The IR element type of `dtype`.
pub fn element_type(ctx: &mut Context, dtype: DType) -> Type {
    let int = |ctx: &mut Context, w, s| ctx.integer_type(w, s);
    match dtype {
        DType::F32 => ctx.float_type(FloatKind::F32),
        DType::F64 => ctx.float_type(FloatKind::F64),
        DType::F16 => ctx.float_type(FloatKind::F16),
        DType::BF16 => ctx.float_type(FloatKind::BF16),
        DType::I8 => int(ctx, 8, Signedness::Signless),
        DType::I16 => int(ctx, 16, Signedness::Signless),
        DType::I32 => int(ctx, 32, Signedness::Signless),
        DType::I64 => int(ctx, 64, Signedness::Signless),
        DType::U8 => int(ctx, 8, Signedness::Unsigned),
        DType::U16 => int(ctx, 16, Signedness::Unsigned),
        DType::U32 => int(ctx, 32, Signedness::Unsigned),
        DType::U64 => int(ctx, 64, Signedness::Unsigned),
        DType::Bool => ctx.i1(),
    }
}

/// `tensor<shape x dtype>`.
pub fn tensor_type(ctx: &mut Context, shape: &[i64], dtype: DType) -> Type {
    let element = element_type(ctx, dtype);
    tb_dialects::graph::types::tensor_type(ctx, shape.to_vec(), element)
}

/// The dtype of an IR element type, if the interpreter has it.
pub fn dtype_of_element(ctx: &Context, ty: Type) -> Option<DType> {
    Some(match ctx.type_kind(ty) {
        TypeKind::Float(FloatKind::F32) => DType::F32,
        TypeKind::Float(FloatKind::F64) => DType::F64,
        TypeKind::Float(FloatKind::F16) => DType::F16,
        TypeKind::Float(FloatKind::BF16) => DType::BF16,
        TypeKind::Integer { width: 1, .. } => DType::Bool,
        TypeKind::Integer {
            width,
            signedness: Signedness::Unsigned,
        } => match width {
            8 => DType::U8,
            16 => DType::U16,
            32 => DType::U32,
            64 => DType::U64,
            _ => return None,
        },
        TypeKind::Integer { width, .. } => match width {
            8 => DType::I8,
            16 => DType::I16,
            32 => DType::I32,
            64 => DType::I64,
            _ => return None,
        },
        _ => return None,
    })
}

/// The static shape and dtype of a tensor type.
pub fn tensor_parts(ctx: &Context, ty: Type) -> Option<(Vec<i64>, DType)> {
    let (shape, element) = tb_dialects::graph::types::static_tensor(ctx, ty)?;
    Some((shape.to_vec(), dtype_of_element(ctx, element)?))
}
