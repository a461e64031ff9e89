//! Buffers: allocation, element access and views, for `loop.*` and `memref.*` ops.
//!
//! Heap buffers come from `aligned_alloc` (64 bytes unless the op asks for more, the size
//! rounded up to a multiple of the alignment as C requires) and go back with `free`.
//! `memref.alloca` reserves stack space in the function's entry block, so an alloca inside
//! a loop does not grow the stack per iteration. View ops only change the static layout in
//! the type (see [`super::memref`]), so their result is their source's pointer.

use inkwell::AddressSpace;
use inkwell::types::BasicType;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode, IntValue, PointerValue};
use tb_dialects::loop_;
use tb_dialects::loop_::LoopOp;
use tb_dialects::memref::MemRefOp;
use tb_ir::{AttrKind, OpId};

use super::affine;
use super::loops::{LoopHints, Range, emit_loop};
use super::memref::{
    MemRefLayout, byte_size, element_memory_type, element_pointer, operand_layout,
};
use super::translate::{Handler, TResult, Translator};
use super::types::is_i1;

/// The alignment of buffers this backend allocates unless an op asks for more: a cache
/// line, and enough for any vector load of the widest registers.
pub const BUFFER_ALIGNMENT: u64 = 64;

/// The handler of a loop buffer op (`Alloc`, `Dealloc`, `Load`, `Store`).
pub(crate) fn loop_handler(kind: LoopOp) -> Option<Handler> {
    Some(match kind {
        LoopOp::Alloc => alloc,
        LoopOp::Dealloc => dealloc,
        LoopOp::Load => loop_load,
        LoopOp::Store => loop_store,
        _ => return None,
    })
}

/// The handler of a memref op; `memref.global`s are defined with the module.
pub(crate) fn memref_handler(kind: MemRefOp) -> Option<Handler> {
    use MemRefOp as M;
    Some(match kind {
        M::Alloc => alloc,
        M::Alloca => alloca,
        M::Dealloc => dealloc,
        M::Load => memref_load,
        M::Store => memref_store,
        M::Copy => copy,
        M::Cast | M::Subview | M::ReinterpretCast | M::CollapseShape | M::ExpandShape => view,
        M::View => byte_view,
        M::Dim => dim,
        M::Rank => rank,
        M::GetGlobal => get_global,
        M::Prefetch => prefetch,
        // Defined with the module; realloc and reshape are not compiled (yet): reported as
        // ops without a translation.
        // The assumption, metadata, transpose, memory-space, atomic and DMA ops are not
        // compiled either.
        M::Global
        | M::Realloc
        | M::Reshape
        | M::AssumeAlignment
        | M::AtomicRmw
        | M::AtomicYield
        | M::GenericAtomicRmw
        | M::DistinctObjects
        | M::DmaStart
        | M::DmaWait
        | M::ExtractStridedMetadata
        | M::MemorySpaceCast
        | M::Transpose => return None,
    })
}

/// The alignment an allocation op asks for, at least [`BUFFER_ALIGNMENT`].
fn requested_alignment(tr: &Translator, op: OpId) -> TResult<u64> {
    let asked = match tr.attr(op, "alignment").map(|a| tr.ir.attr_kind(a)) {
        Some(AttrKind::Integer { value, .. }) => *value,
        _ => 0,
    };
    if asked < 0 || (asked > 0 && (asked & (asked - 1)) != 0) {
        return Err(format!("alignment must be a positive power of two, but got {asked}").into());
    }
    Ok((asked as u64).max(BUFFER_ALIGNMENT))
}

/// The elements of a buffer of `layout`'s shape, or an error when the count does not fit
/// in `i64` (where the layout's own product would wrap).
pub(crate) fn checked_elements(layout: &MemRefLayout) -> Result<u64, String> {
    if layout.shape.contains(&0) {
        return Ok(0);
    }
    layout
        .shape
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d).filter(|_| d > 0))
        .map(|n| n as u64)
        .ok_or_else(|| format!("a buffer of shape {:?} has too many elements", layout.shape))
}

/// The bytes of a contiguous buffer of `layout`'s shape, checked: at most `i64::MAX`, the
/// largest size LLVM's and C's allocation functions take.
pub(crate) fn checked_byte_size(ir: &tb_ir::Context, layout: &MemRefLayout) -> Result<u64, String> {
    let element = layout.element_kind(ir)?.size_in_bytes();
    let fits = checked_elements(layout)?
        .checked_mul(element)
        .is_some_and(|b| i64::try_from(b).is_ok());
    if !fits {
        return Err(format!(
            "a buffer of shape {:?} takes more than 2^63 - 1 bytes",
            layout.shape
        ));
    }
    // The count is known to fit, so the layout's own arithmetic does not wrap.
    byte_size(ir, layout)
}

fn result_layout(tr: &Translator, op: OpId) -> TResult<MemRefLayout> {
    Ok(MemRefLayout::of(tr.ir, tr.result_type(op, 0)?)?)
}

fn alloc(tr: &mut Translator, op: OpId) -> TResult {
    let layout = result_layout(tr, op)?;
    // An exported function writes a returned allocation straight into the caller's buffer.
    if let Some(output) = tr.entry.as_ref().and_then(|e| e.output_for(op)) {
        return tr.set_result(op, 0, output);
    }
    let alignment = requested_alignment(tr, op)?;
    let size = checked_byte_size(tr.ir, &layout)?
        .max(1)
        .checked_next_multiple_of(alignment)
        .ok_or("buffer size overflows")?;
    let i64_type = tr.llvm.i64_type();
    let pointer = tr
        .call_libc(
            "aligned_alloc",
            Some(tr.llvm.ptr_type(AddressSpace::default()).into()),
            &[
                i64_type.const_int(alignment, false).into(),
                i64_type.const_int(size, false).into(),
            ],
        )?
        .ok_or("aligned_alloc returned no value")?;
    tr.set_result(op, 0, pointer)
}

fn alloca(tr: &mut Translator, op: OpId) -> TResult {
    let layout = result_layout(tr, op)?;
    let alignment = requested_alignment(tr, op)?;
    let count =
        u32::try_from(checked_elements(&layout)?).map_err(|_| "stack buffer is too large")?;
    let element = element_memory_type(tr, &layout)?;
    let at_entry = tr.entry_builder()?;
    let pointer = at_entry.build_alloca(element.array_type(count.max(1)), "")?;
    if let Some(inst) = pointer.as_instruction_value() {
        let _ = inst.set_alignment(alignment as u32);
    }
    tr.set_result(op, 0, pointer)
}

fn dealloc(tr: &mut Translator, op: OpId) -> TResult {
    let pointer = tr.pointer_operand(op, 0)?;
    // The caller owns an exported function's output buffers.
    if tr.entry.as_ref().is_some_and(|e| e.is_output(pointer)) {
        return Ok(());
    }
    tr.call_libc("free", None, &[pointer.into()])?;
    Ok(())
}

/// Loads the element at `pointer` (an `i1` is a byte in memory).
pub(crate) fn load_element<'ctx>(
    tr: &Translator<'_, 'ctx>,
    layout: &MemRefLayout,
    pointer: PointerValue<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let memory = element_memory_type(tr, layout)?;
    let value = tr.builder.build_load(memory, pointer, "")?;
    if let Some(inst) = value.as_instruction_value() {
        let _ = inst.set_alignment(layout.element_kind(tr.ir)?.size_in_bytes() as u32);
    }
    if is_i1(tr.ir, layout.element) {
        let i1 = tr.llvm.bool_type();
        return Ok(tr
            .builder
            .build_cast(InstructionOpcode::Trunc, value, i1, "")?);
    }
    Ok(value)
}

/// Stores `value` at `pointer` (an `i1` as a 0/1 byte).
pub(crate) fn store_element<'ctx>(
    tr: &Translator<'_, 'ctx>,
    layout: &MemRefLayout,
    pointer: PointerValue<'ctx>,
    value: BasicValueEnum<'ctx>,
) -> TResult {
    let value = if is_i1(tr.ir, layout.element) {
        let i8 = tr.llvm.i8_type();
        tr.builder
            .build_cast(InstructionOpcode::ZExt, value, i8, "")?
    } else {
        value
    };
    let store = tr.builder.build_store(pointer, value)?;
    let _ = store.set_alignment(layout.element_kind(tr.ir)?.size_in_bytes() as u32);
    Ok(())
}

/// The index operands of `op` from position `first`.
pub(crate) fn index_operands<'ctx>(
    tr: &Translator<'_, 'ctx>,
    op: OpId,
    first: usize,
) -> TResult<Vec<IntValue<'ctx>>> {
    tr.operands_from(op, first)
        .iter()
        .map(|&v| tr.int_value(v))
        .collect()
}

/// The element pointer of a `loop.load`/`loop.store`: its map applied to its indices.
fn loop_access<'ctx>(
    tr: &Translator<'_, 'ctx>,
    op: OpId,
    memref_index: usize,
) -> TResult<(MemRefLayout, PointerValue<'ctx>)> {
    let layout = operand_layout(tr, op, memref_index)?;
    let base = tr.pointer_operand(op, memref_index)?;
    let map = loop_::access_map(tr.ir, op).ok_or("has no access map")?;
    let indices = affine::apply(tr, &map, &index_operands(tr, op, memref_index + 1)?)?;
    let pointer = element_pointer(tr, base, &layout, &indices)?;
    Ok((layout, pointer))
}

fn loop_load(tr: &mut Translator, op: OpId) -> TResult {
    let (layout, pointer) = loop_access(tr, op, 0)?;
    let value = load_element(tr, &layout, pointer)?;
    tr.set_result(op, 0, value)
}

fn loop_store(tr: &mut Translator, op: OpId) -> TResult {
    let (layout, pointer) = loop_access(tr, op, 1)?;
    store_element(tr, &layout, pointer, tr.operand(op, 0)?)
}

fn memref_load(tr: &mut Translator, op: OpId) -> TResult {
    let layout = operand_layout(tr, op, 0)?;
    let base = tr.pointer_operand(op, 0)?;
    let pointer = element_pointer(tr, base, &layout, &index_operands(tr, op, 1)?)?;
    let value = load_element(tr, &layout, pointer)?;
    tr.set_result(op, 0, value)
}

fn memref_store(tr: &mut Translator, op: OpId) -> TResult {
    let layout = operand_layout(tr, op, 1)?;
    let base = tr.pointer_operand(op, 1)?;
    let pointer = element_pointer(tr, base, &layout, &index_operands(tr, op, 2)?)?;
    store_element(tr, &layout, pointer, tr.operand(op, 0)?)
}

/// `memref.prefetch`: `llvm.prefetch` of the element's address, with the op's read or
/// write, locality (0 to 3) and data or instruction cache.
fn prefetch(tr: &mut Translator, op: OpId) -> TResult {
    let layout = operand_layout(tr, op, 0)?;
    let base = tr.pointer_operand(op, 0)?;
    let pointer = element_pointer(tr, base, &layout, &index_operands(tr, op, 1)?)?;
    let int_attr = |name: &str| match tr.attr(op, name).map(|a| tr.ir.attr_kind(a)) {
        Some(AttrKind::Integer { value, .. }) => *value as u64,
        _ => 0,
    };
    let i32_type = tr.llvm.i32_type();
    let args = [
        pointer.into(),
        i32_type.const_int(int_attr("isWrite"), false).into(),
        i32_type
            .const_int(int_attr("localityHint").min(3), false)
            .into(),
        i32_type.const_int(int_attr("isDataCache"), false).into(),
    ];
    let intrinsic = inkwell::intrinsics::Intrinsic::find("llvm.prefetch")
        .ok_or("LLVM has no intrinsic 'llvm.prefetch'")?;
    let ptr_type = tr.llvm.ptr_type(AddressSpace::default());
    let declaration = intrinsic
        .get_declaration(tr.module, &[ptr_type.into()])
        .ok_or("cannot declare 'llvm.prefetch'")?;
    tr.builder.build_call(declaration, &args, "")?;
    Ok(())
}

/// Copies every element of `source` into `target` (same shape): one `memcpy` when both are
/// contiguous, else a loop nest over the elements.
pub(crate) fn copy_buffer<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    source: (PointerValue<'ctx>, &MemRefLayout),
    target: (PointerValue<'ctx>, &MemRefLayout),
) -> TResult {
    let (from, from_layout) = source;
    let (to, to_layout) = target;
    if from_layout.shape != to_layout.shape || from_layout.element != to_layout.element {
        return Err("copies between buffers of different shapes or element types".into());
    }
    if from_layout.is_contiguous() && to_layout.is_contiguous() {
        let size = checked_byte_size(tr.ir, from_layout)?;
        if size > 0 {
            let align = from_layout.element_kind(tr.ir)?.size_in_bytes() as u32;
            let bytes = tr.llvm.i64_type().const_int(size, false);
            tr.builder.build_memcpy(to, align, from, align, bytes)?;
        }
        return Ok(());
    }
    copy_elements(tr, from, from_layout, to, to_layout, &mut Vec::new())
}

fn copy_elements<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    from: PointerValue<'ctx>,
    from_layout: &MemRefLayout,
    to: PointerValue<'ctx>,
    to_layout: &MemRefLayout,
    indices: &mut Vec<IntValue<'ctx>>,
) -> TResult {
    let k = indices.len();
    if k == from_layout.rank() {
        let value = load_element(
            tr,
            from_layout,
            element_pointer(tr, from, from_layout, indices)?,
        )?;
        let at = element_pointer(tr, to, to_layout, indices)?;
        return store_element(tr, to_layout, at, value);
    }
    let range = Range {
        lower: tr.i64_const(0),
        upper: tr.i64_const(from_layout.shape[k]),
        step: 1,
    };
    emit_loop(tr, range, LoopHints::default(), &mut |tr, iv| {
        indices.push(iv);
        let done = copy_elements(tr, from, from_layout, to, to_layout, indices);
        indices.pop();
        done
    })
}

fn copy(tr: &mut Translator, op: OpId) -> TResult {
    let source = (tr.pointer_operand(op, 0)?, &operand_layout(tr, op, 0)?);
    let target = (tr.pointer_operand(op, 1)?, &operand_layout(tr, op, 1)?);
    copy_buffer(tr, source, target)
}

/// View ops: the pointer stays, the static layout of the result type says how to index it.
fn view(tr: &mut Translator, op: OpId) -> TResult {
    operand_layout(tr, op, 0)?;
    if !tr.ir.op(op).results.is_empty() {
        result_layout(tr, op)?;
        let pointer = tr.pointer_operand(op, 0)?;
        tr.set_result(op, 0, pointer)?;
    }
    Ok(())
}

/// `memref.view`: a typed buffer `byte_shift` bytes into a byte buffer.
fn byte_view(tr: &mut Translator, op: OpId) -> TResult {
    let source = operand_layout(tr, op, 0)?;
    if source.rank() != 1 || !source.is_contiguous() {
        return Err("expects a contiguous 1-D byte buffer".into());
    }
    result_layout(tr, op)?;
    let base = tr.pointer_operand(op, 0)?;
    let shift = *tr.operands_from(op, 1).first().ok_or("has no byte shift")?;
    let shift = tr.int_value(shift)?;
    let pointer = unsafe {
        tr.builder
            .build_in_bounds_gep(tr.llvm.i8_type(), base, &[shift], "")?
    };
    tr.set_result(op, 0, pointer)
}

fn dim(tr: &mut Translator, op: OpId) -> TResult {
    let layout = operand_layout(tr, op, 0)?;
    let index = *tr
        .operands_from(op, 1)
        .first()
        .ok_or("has no index operand")?;
    let index = tr.int_value(index)?;
    // The sizes are static: select among them (folds away for a constant index).
    let mut value = tr.i64_const(0);
    for (k, &size) in layout.shape.iter().enumerate().rev() {
        let is_k = tr.builder.build_int_compare(
            inkwell::IntPredicate::EQ,
            index,
            tr.i64_const(k as i64),
            "",
        )?;
        value = tr
            .builder
            .build_select(is_k, tr.i64_const(size), value, "")?
            .into_int_value();
    }
    tr.set_result(op, 0, value)
}

fn rank(tr: &mut Translator, op: OpId) -> TResult {
    let layout = operand_layout(tr, op, 0)?;
    let value = tr.i64_const(layout.rank() as i64);
    tr.set_result(op, 0, value)
}

fn get_global(tr: &mut Translator, op: OpId) -> TResult {
    let name = match tr.attr(op, "name").map(|a| tr.ir.attr_kind(a)) {
        Some(AttrKind::SymbolRef { root, nested }) if nested.is_empty() => root.clone(),
        _ => return Err("has no @name".into()),
    };
    let global =
        tr.globals.get(&name).copied().ok_or_else(|| {
            format!("refers to @{name}, which is not a memref.global of the module")
        })?;
    let pointer = global.as_pointer_value();
    tr.set_result(op, 0, pointer.as_basic_value_enum())
}
