//! `nvgpu`'s asynchronous copies on NVPTX: `device_async_copy` as LLVM's
//! `llvm.nvvm.cp.async.{ca,cg}.shared.global.{4,8,16}[.s]` (`cp.async` in PTX, from the
//! source element's address in the global space to the destination's in the shared
//! space), `device_async_create_group` as `cp.async.commit_group` and
//! `device_async_wait` as `cp.async.wait_group N`. Tokens carry no value on the device.

use inkwell::AddressSpace;
use inkwell::values::{BasicValueEnum, PointerValue};
use tb_dialects::nvgpu;
use tb_ir::{OpId, Value};

use crate::llvm::memref::{MemRefLayout, element_pointer};
use crate::llvm::translator::{TResult, Translator};

/// The address of element `indices` of `memref`, cast to `space` (1: global, 3: shared).
fn element_in_space<'ctx>(
    tr: &Translator<'_, 'ctx>,
    memref: Value,
    indices: &[Value],
    space: u16,
) -> TResult<PointerValue<'ctx>> {
    let layout = MemRefLayout::of(tr.ir, tr.ir.value_type(memref))?;
    let BasicValueEnum::PointerValue(base) = tr.value(memref)? else {
        return Err("copies a value that is not a buffer".into());
    };
    let indices = indices
        .iter()
        .map(|&v| tr.int_value(v))
        .collect::<TResult<Vec<_>>>()?;
    let generic = element_pointer(tr, base, &layout, &indices)?;
    let ty = tr.llvm.ptr_type(AddressSpace::from(space));
    Ok(tr.builder.build_address_space_cast(generic, ty, "")?)
}

/// A token: nothing on the device.
fn token<'ctx>(tr: &Translator<'_, 'ctx>) -> BasicValueEnum<'ctx> {
    tr.llvm.i32_type().const_zero().into()
}

pub(super) fn copy(tr: &mut Translator, op: OpId) -> TResult {
    let copy = nvgpu::async_copy(tr.ir, op).ok_or("is malformed")?;
    let (dst, dst_indices) = (copy.dst, copy.dst_indices.to_vec());
    let (src, src_indices) = (copy.src, copy.src_indices.to_vec());
    let bytes = copy.dst_elements * element_bytes(tr, dst)?;
    let cache = if copy.bypass_l1 { "cg" } else { "ca" };
    let shared = element_in_space(tr, dst, &dst_indices, 3)?;
    let global = element_in_space(tr, src, &src_indices, 1)?;
    let mut args: Vec<BasicValueEnum> = vec![shared.into(), global.into()];
    let suffix = match copy.src_elements {
        // The source size in bytes: the rest of the destination is zero-filled.
        Some(count) => {
            let count = tr.int_value(count)?;
            let i32_ty = tr.llvm.i32_type();
            let count = tr
                .builder
                .build_int_truncate_or_bit_cast(count, i32_ty, "")?;
            let size = i32_ty.const_int((bytes / copy.dst_elements) as u64, false);
            args.push(tr.builder.build_int_mul(count, size, "")?.into());
            ".s"
        }
        None => "",
    };
    let name = format!("llvm.nvvm.cp.async.{cache}.shared.global.{bytes}{suffix}");
    tr.call_void_intrinsic(&name, &[], &args)?;
    let token = token(tr);
    tr.set_result(op, 0, token)
}

fn element_bytes(tr: &Translator, memref: Value) -> TResult<i64> {
    let layout = MemRefLayout::of(tr.ir, tr.ir.value_type(memref))?;
    Ok(layout.element_kind(tr.ir)?.size_in_bytes() as i64)
}

pub(super) fn create_group(tr: &mut Translator, op: OpId) -> TResult {
    tr.call_void_intrinsic("llvm.nvvm.cp.async.commit.group", &[], &[])?;
    let token = token(tr);
    tr.set_result(op, 0, token)
}

pub(super) fn wait(tr: &mut Translator, op: OpId) -> TResult {
    let keep = nvgpu::groups_in_flight(tr.ir, op);
    let keep = tr.llvm.i32_type().const_int(keep as u64, false);
    tr.call_void_intrinsic("llvm.nvvm.cp.async.wait.group", &[], &[keep.into()])
}
