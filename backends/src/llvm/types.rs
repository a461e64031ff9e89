//! IR types as LLVM types.
//!
//! Scalars map one to one (`index` is `i64`), vectors of any rank become one flat LLVM vector
//! in row-major lane order (every vector op the `loop` level has is elementwise or moves
//! whole rows, so the flat form loses nothing), and memrefs become an opaque pointer: with
//! static shapes and layouts the pointer is all a buffer needs at run time (see
//! [`super::memref`]).

use inkwell::AddressSpace;
use inkwell::context::Context as LlvmContext;
use inkwell::types::{BasicType, BasicTypeEnum};
use tb_ir::printer::type_to_string;
use tb_ir::{Context, FloatKind, Signedness, Type, TypeKind};

/// The element types the CPU backend computes with and passes across its C ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementKind {
    /// `i1`: one byte (0 or 1) in memory, `bool` in C.
    Bool,
    /// Integers of 8, 16, 32 or 64 bits; `unsigned` for `ui<N>` types.
    Int {
        bits: u32,
        unsigned: bool,
    },
    /// `index`: a 64-bit signed integer.
    Index,
    F16,
    BF16,
    F32,
    F64,
}

impl ElementKind {
    /// The element kind of scalar type `ty`, or why the backend cannot use it.
    pub fn of(ir: &Context, ty: Type) -> Result<ElementKind, String> {
        Ok(match ir.type_kind(ty) {
            TypeKind::Integer { width: 1, .. } => ElementKind::Bool,
            TypeKind::Integer { width, signedness } if matches!(width, 8 | 16 | 32 | 64) => {
                ElementKind::Int {
                    bits: *width,
                    unsigned: *signedness == Signedness::Unsigned,
                }
            }
            TypeKind::Index => ElementKind::Index,
            TypeKind::Float(FloatKind::F16) => ElementKind::F16,
            TypeKind::Float(FloatKind::BF16) => ElementKind::BF16,
            TypeKind::Float(FloatKind::F32) => ElementKind::F32,
            TypeKind::Float(FloatKind::F64) => ElementKind::F64,
            _ => {
                return Err(format!(
                    "type '{}' is not supported by the CPU backend",
                    type_to_string(ir, ty)
                ));
            }
        })
    }

    /// Bytes one element takes in memory.
    pub fn size_in_bytes(self) -> u64 {
        match self {
            ElementKind::Bool => 1,
            ElementKind::Int { bits, .. } => u64::from(bits / 8),
            ElementKind::Index => 8,
            ElementKind::F16 | ElementKind::BF16 => 2,
            ElementKind::F32 => 4,
            ElementKind::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementKind::F16 | ElementKind::BF16 | ElementKind::F32 | ElementKind::F64
        )
    }

    /// The C type of one element, as the generated header spells it. 16-bit floats in
    /// buffers are passed as their bits (`uint16_t`), which every C compiler accepts.
    pub fn c_type(self, in_buffer: bool) -> &'static str {
        match self {
            ElementKind::Bool => "bool",
            ElementKind::Int {
                bits,
                unsigned: false,
            } => match bits {
                8 => "int8_t",
                16 => "int16_t",
                32 => "int32_t",
                _ => "int64_t",
            },
            ElementKind::Int {
                bits,
                unsigned: true,
            } => match bits {
                8 => "uint8_t",
                16 => "uint16_t",
                32 => "uint32_t",
                _ => "uint64_t",
            },
            ElementKind::Index => "int64_t",
            ElementKind::F16 if in_buffer => "uint16_t",
            ElementKind::BF16 if in_buffer => "uint16_t",
            ElementKind::F16 => "_Float16",
            ElementKind::BF16 => "__bf16",
            ElementKind::F32 => "float",
            ElementKind::F64 => "double",
        }
    }
}

/// The LLVM type of a scalar IR type. Integers of any width are allowed inside a module;
/// only the C ABI restricts widths (through [`ElementKind`]).
pub fn scalar_type<'ctx>(
    llvm: &'ctx LlvmContext,
    ir: &Context,
    ty: Type,
) -> Result<BasicTypeEnum<'ctx>, String> {
    Ok(match ir.type_kind(ty) {
        TypeKind::Integer { width, .. } => llvm
            .custom_width_int_type(
                std::num::NonZeroU32::new(*width).ok_or("zero-width integers are not supported")?,
            )
            .map_err(|e| e.to_string())?
            .as_basic_type_enum(),
        TypeKind::Index => llvm.i64_type().as_basic_type_enum(),
        TypeKind::Float(FloatKind::F16) => llvm.f16_type().as_basic_type_enum(),
        TypeKind::Float(FloatKind::BF16) => llvm.bf16_type().as_basic_type_enum(),
        TypeKind::Float(FloatKind::F32) => llvm.f32_type().as_basic_type_enum(),
        TypeKind::Float(FloatKind::F64) => llvm.f64_type().as_basic_type_enum(),
        _ => {
            return Err(format!(
                "type '{}' is not supported by the CPU backend",
                type_to_string(ir, ty)
            ));
        }
    })
}

/// The number of lanes of a fixed-size vector type (the product of its shape).
pub fn vector_lanes(ir: &Context, ty: Type) -> Result<Option<u32>, String> {
    let TypeKind::Vector {
        shape, scalable, ..
    } = ir.type_kind(ty)
    else {
        return Ok(None);
    };
    if scalable.iter().any(|&s| s) {
        return Err(format!(
            "scalable vector type '{}' is not supported by the CPU backend",
            type_to_string(ir, ty)
        ));
    }
    let lanes = shape.iter().try_fold(1u32, |acc, &d| {
        u32::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    });
    match lanes {
        Some(n) if n > 0 => Ok(Some(n)),
        _ => Err(format!(
            "vector type '{}' has no lanes or too many",
            type_to_string(ir, ty)
        )),
    }
}

/// The LLVM type of an SSA value of IR type `ty`: scalars, flat vectors, and a pointer for
/// a memref.
pub fn value_type<'ctx>(
    llvm: &'ctx LlvmContext,
    ir: &Context,
    ty: Type,
) -> Result<BasicTypeEnum<'ctx>, String> {
    match ir.type_kind(ty) {
        TypeKind::MemRef { .. } => Ok(llvm.ptr_type(AddressSpace::default()).into()),
        TypeKind::Vector { element, .. } => {
            let lanes = vector_lanes(ir, ty)?.unwrap_or(1);
            Ok(vector_of(scalar_type(llvm, ir, *element)?, lanes).into())
        }
        _ => scalar_type(llvm, ir, ty),
    }
}

/// A vector of `lanes` elements of the scalar type `element`.
pub fn vector_of(element: BasicTypeEnum<'_>, lanes: u32) -> inkwell::types::VectorType<'_> {
    match element {
        BasicTypeEnum::IntType(t) => t.vec_type(lanes),
        BasicTypeEnum::FloatType(t) => t.vec_type(lanes),
        // [`scalar_type`] only makes ints and floats.
        other => unreachable!("no vectors of {other:?}"),
    }
}

/// The type a scalar of IR type `ty` has in memory: `i1` takes a whole byte (as MLIR's
/// lowering and C's `bool` store it), everything else is stored as computed.
pub fn memory_type<'ctx>(
    llvm: &'ctx LlvmContext,
    ir: &Context,
    ty: Type,
) -> Result<BasicTypeEnum<'ctx>, String> {
    if is_i1(ir, ty) {
        return Ok(llvm.i8_type().into());
    }
    scalar_type(llvm, ir, ty)
}

/// Whether `ty` is `i1` (of any signedness).
pub fn is_i1(ir: &Context, ty: Type) -> bool {
    matches!(ir.type_kind(ty), TypeKind::Integer { width: 1, .. })
}

/// The element type of a shaped type, or the type itself.
pub fn element_type(ir: &Context, ty: Type) -> Type {
    ir.type_kind(ty).element().unwrap_or(ty)
}
