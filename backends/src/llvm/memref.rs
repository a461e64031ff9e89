//! Memref descriptors: how a buffer is represented at run time and how an element is found.
//!
//! MLIR's memref descriptor is `{allocated, aligned, offset, sizes[], strides[]}`. Every
//! shape and layout here is static, so all but the aligned pointer are constants of the
//! type: a memref value is just that pointer, and element `(i0, ..., in)` lives at
//! `aligned + (offset + i0*s0 + ... + in*sn) * sizeof(element)`, exactly as in MLIR. View
//! ops (subview, cast, reshapes) therefore keep the pointer and change only the type.
//! Buffers this backend allocates are aligned by the allocator itself, so the allocated and
//! aligned pointers coincide and `free` gets the pointer back.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{IntValue, PointerValue};
use tb_ir::attributes::AttrKind;
use tb_ir::printer::type_to_string;
use tb_ir::types::DYNAMIC;
use tb_ir::{Context, Type, TypeKind};

use super::translator::{TResult, Translator};
use super::types::{ElementKind, memory_type};

/// The static shape and layout of a memref type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRefLayout {
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    /// The element type.
    pub element: Type,
}

/// Row-major strides of `shape`; `None` when one does not fit 64 bits.
pub fn contiguous_strides(shape: &[i64]) -> Option<Vec<i64>> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].checked_mul(shape[k + 1].max(1))?;
    }
    Some(strides)
}

impl MemRefLayout {
    /// The layout of memref type `ty`, or why the backend cannot handle it (dynamic sizes,
    /// offsets or strides, non-strided affine-map layouts, memory spaces other than a GPU
    /// block's shared memory).
    pub fn of(ir: &Context, ty: Type) -> Result<MemRefLayout, String> {
        let what = || type_to_string(ir, ty);
        let TypeKind::MemRef {
            shape,
            element,
            layout,
            memory_space,
        } = ir.type_kind(ty)
        else {
            return Err(format!("'{}' is not a ranked memref type", what()));
        };
        if shape.contains(&DYNAMIC) {
            return Err(format!(
                "dynamic sizes are not supported by the CPU backend ('{}')",
                what()
            ));
        }
        // A GPU block's shared buffer is addressed like any other (NVPTX kernels reach it
        // through a generic pointer, which LLVM narrows back to the shared space).
        if memory_space.is_some() && !tb_dialects::gpu::is_workgroup_memref(ir, ty) {
            return Err(format!(
                "memory spaces are not supported by the CPU backend ('{}')",
                what()
            ));
        }
        let dense = || {
            contiguous_strides(shape).ok_or_else(|| {
                format!("'{}' has more elements than 64-bit strides address", what())
            })
        };
        let (strides, offset) = match layout.map(|a| ir.attr_kind(a)) {
            None => (dense()?, 0),
            Some(AttrKind::AffineMap(map)) if map.is_identity() => (dense()?, 0),
            Some(AttrKind::Strided { strides, offset }) => {
                if strides.contains(&DYNAMIC) || *offset == DYNAMIC {
                    return Err(format!(
                        "dynamic strides or offsets are not supported by the CPU backend ('{}')",
                        what()
                    ));
                }
                if strides.len() != shape.len() {
                    return Err(format!("layout of '{}' does not match its rank", what()));
                }
                (strides.clone(), *offset)
            }
            Some(_) => {
                return Err(format!(
                    "only identity and strided layouts are supported by the CPU backend ('{}')",
                    what()
                ));
            }
        };
        Ok(MemRefLayout {
            shape: shape.clone(),
            strides,
            offset,
            element: *element,
        })
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn num_elements(&self) -> Option<i64> {
        self.shape.iter().try_fold(1i64, |n, &d| n.checked_mul(d))
    }

    /// Whether the elements are stored densely in row-major order from the pointer itself.
    pub fn is_contiguous(&self) -> bool {
        self.offset == 0 && contiguous_strides(&self.shape).is_some_and(|s| s == self.strides)
    }

    /// The element kind the C ABI and the JIT pass for this buffer.
    pub fn element_kind(&self, ir: &Context) -> Result<ElementKind, String> {
        ElementKind::of(ir, self.element)
    }
}

/// The layout of operand `i` of `op`.
pub(crate) fn operand_layout(tr: &Translator, op: tb_ir::OpId, i: usize) -> TResult<MemRefLayout> {
    Ok(MemRefLayout::of(tr.ir, tr.operand_type(op, i)?)?)
}

/// The LLVM type elements of `layout` have in memory.
pub(crate) fn element_memory_type<'ctx>(
    tr: &Translator<'_, 'ctx>,
    layout: &MemRefLayout,
) -> TResult<BasicTypeEnum<'ctx>> {
    // Buffers hold only the element kinds of the C ABI, so their sizes are whole bytes.
    layout.element_kind(tr.ir)?;
    Ok(memory_type(tr.llvm, tr.ir, layout.element)?)
}

/// The address of element `indices` (one `i64` per dimension) of the buffer at `base`.
pub(crate) fn element_pointer<'ctx>(
    tr: &Translator<'_, 'ctx>,
    base: PointerValue<'ctx>,
    layout: &MemRefLayout,
    indices: &[IntValue<'ctx>],
) -> TResult<PointerValue<'ctx>> {
    if indices.len() != layout.rank() {
        return Err(format!(
            "addresses a rank-{} buffer with {} indices",
            layout.rank(),
            indices.len()
        )
        .into());
    }
    let b = &tr.builder;
    // offset + sum(index * stride), leaving out terms that are known to be zero.
    let mut linear: Option<IntValue> = (layout.offset != 0).then(|| tr.i64_const(layout.offset));
    for (&index, &stride) in indices.iter().zip(&layout.strides) {
        if stride == 0 || index.get_zero_extended_constant() == Some(0) {
            continue;
        }
        let term = if stride == 1 {
            index
        } else {
            b.build_int_mul(index, tr.i64_const(stride), "")?
        };
        linear = Some(match linear {
            Some(sum) => b.build_int_add(sum, term, "")?,
            None => term,
        });
    }
    let element = element_memory_type(tr, layout)?;
    let Some(linear) = linear else {
        return Ok(base);
    };
    // In bounds of the buffer, as every access of a verified program is.
    Ok(unsafe { b.build_in_bounds_gep(element, base, &[linear], "")? })
}

/// The byte size of a contiguous buffer of `layout`'s shape.
pub(crate) fn byte_size(ir: &Context, layout: &MemRefLayout) -> Result<u64, String> {
    let element = layout.element_kind(ir)?.size_in_bytes();
    layout
        .num_elements()
        .and_then(|n| u64::try_from(n).ok())
        .and_then(|n| n.checked_mul(element))
        .ok_or_else(|| "buffer size overflows".to_string())
}
