//! Vector ops of the `loop` dialect as LLVM vector code.
//!
//! A `vector<RxW>` value is one flat `<R*W x T>` LLVM vector. `loop.vector_load` and
//! `loop.vector_store` move it as `R` rows of `W` consecutive elements along the buffer's
//! innermost dimension: a row is a single vector load/store when that dimension has unit
//! stride, and `W` scalar accesses otherwise. Accesses assume only element alignment, so
//! any buffer a caller passes works; LLVM widens alignment where it can prove more.

use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{
    BasicValue, BasicValueEnum, InstructionOpcode, IntValue, PointerValue, VectorValue,
};
use tb_dialects::loop_;
use tb_dialects::loop_::LoopOp;
use tb_ir::Context;
use tb_ir::ods::OpKind;

use super::DialectTranslation;
use tb_ir::{OpId, TypeKind};

use super::affine;
use super::memref::{MemRefLayout, element_memory_type, element_pointer, operand_layout};
use super::translator::{Handler, TResult, Translator};
use super::types::{element_type, is_i1, vector_of};

/// The vector ops of `loop`: loads, stores, broadcasts and fused multiply-adds on LLVM
/// vectors.
pub(crate) struct VectorTranslation;

impl DialectTranslation for VectorTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        Some(match LoopOp::of(ir, op)? {
            LoopOp::VectorLoad => vector_load,
            LoopOp::VectorStore => vector_store,
            LoopOp::Broadcast => broadcast,
            LoopOp::Fma => fma,
            LoopOp::Dot => super::int_dot::dot,
            _ => return None,
        })
    }
}

/// `scalar` in every lane of a value of type `like` (a vector type); `scalar` itself when
/// `like` is a scalar type.
pub(crate) fn splat<'ctx>(
    tr: &Translator<'_, 'ctx>,
    scalar: BasicValueEnum<'ctx>,
    like: BasicTypeEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let BasicTypeEnum::VectorType(vector_type) = like else {
        return Ok(scalar);
    };
    let b = &tr.builder;
    let i32_type = tr.llvm.i32_type();
    let single =
        b.build_insert_element(vector_type.get_poison(), scalar, i32_type.const_zero(), "")?;
    let mask = i32_type.vec_type(vector_type.get_size()).const_zero();
    Ok(
        b.build_shuffle_vector(single, vector_type.get_poison(), mask, "")?
            .into(),
    )
}

/// `f` applied to each lane of `value` (or to `value` itself when it is a scalar).
pub(crate) fn map_lanes<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    value: BasicValueEnum<'ctx>,
    f: &mut dyn FnMut(
        &mut Translator<'a, 'ctx>,
        BasicValueEnum<'ctx>,
    ) -> TResult<BasicValueEnum<'ctx>>,
) -> TResult<BasicValueEnum<'ctx>> {
    let BasicValueEnum::VectorValue(vector) = value else {
        return f(tr, value);
    };
    let lanes = vector.get_type().get_size();
    let mut results = Vec::with_capacity(lanes as usize);
    for lane in 0..lanes {
        let index = tr.llvm.i32_type().const_int(u64::from(lane), false);
        let element = tr.builder.build_extract_element(vector, index, "")?;
        results.push(f(tr, element)?);
    }
    Ok(gather(tr, &results)?.into())
}

/// A vector of the given scalars, in order.
fn gather<'ctx>(
    tr: &Translator<'_, 'ctx>,
    lanes: &[BasicValueEnum<'ctx>],
) -> TResult<VectorValue<'ctx>> {
    let first = lanes.first().ok_or("makes a vector without lanes")?;
    let ty = vector_of(first.get_type(), lanes.len() as u32);
    let mut vector = ty.get_poison();
    for (i, &lane) in lanes.iter().enumerate() {
        let index = tr.llvm.i32_type().const_int(i as u64, false);
        vector = tr.builder.build_insert_element(vector, lane, index, "")?;
    }
    Ok(vector)
}

/// Lanes `start..start + count` of `vector` as a vector of their own.
fn slice<'ctx>(
    tr: &Translator<'_, 'ctx>,
    vector: VectorValue<'ctx>,
    start: u32,
    count: u32,
) -> TResult<VectorValue<'ctx>> {
    if start == 0 && count == vector.get_type().get_size() {
        return Ok(vector);
    }
    let i32_type = tr.llvm.i32_type();
    let mask: Vec<IntValue> = (start..start + count)
        .map(|i| i32_type.const_int(u64::from(i), false))
        .collect();
    Ok(tr.builder.build_shuffle_vector(
        vector,
        vector.get_type().get_poison(),
        VectorType::const_vector(&mask),
        "",
    )?)
}

/// Where the rows of a vector access start: the buffer layout, the vector's shape, and the
/// pointer to the first element of each row, in row-major order.
struct Rows<'ctx> {
    layout: MemRefLayout,
    width: u32,
    pointers: Vec<PointerValue<'ctx>>,
}

fn rows<'ctx>(
    tr: &Translator<'_, 'ctx>,
    op: OpId,
    memref_index: usize,
    vector_shape: &[i64],
) -> TResult<Rows<'ctx>> {
    let layout = operand_layout(tr, op, memref_index)?;
    let base = tr.pointer_operand(op, memref_index)?;
    let map = loop_::access_map(tr.ir, op).ok_or("has no access map")?;
    let indices = tr
        .operands_from(op, memref_index + 1)
        .iter()
        .map(|&v| tr.int_value(v))
        .collect::<TResult<Vec<_>>>()?;
    let start = affine::apply(tr, &map, &indices)?;
    let rank = layout.rank();
    let r = vector_shape.len();
    if r == 0 || r > rank {
        return Err(format!("a rank-{r} vector does not fit a rank-{rank} buffer").into());
    }
    let width = u32::try_from(vector_shape[r - 1]).map_err(|_| "vector row is too wide")?;
    let lead = rank - r;
    let row_shape = &vector_shape[..r - 1];
    let count: i64 = row_shape.iter().product();
    let mut pointers = Vec::with_capacity(count as usize);
    let mut row = vec![0i64; row_shape.len()];
    for _ in 0..count {
        let mut at = start.clone();
        for (k, &offset) in row.iter().enumerate() {
            if offset != 0 {
                at[lead + k] = tr
                    .builder
                    .build_int_add(at[lead + k], tr.i64_const(offset), "")?;
            }
        }
        pointers.push(element_pointer(tr, base, &layout, &at)?);
        // Next row, innermost vector dimension first.
        for k in (0..row.len()).rev() {
            row[k] += 1;
            if row[k] < row_shape[k] {
                break;
            }
            row[k] = 0;
        }
    }
    Ok(Rows {
        layout,
        width,
        pointers,
    })
}

fn vector_shape(tr: &Translator, ty: tb_ir::Type) -> TResult<Vec<i64>> {
    match tr.ir.type_kind(ty) {
        TypeKind::Vector { shape, .. } => Ok(shape.clone()),
        _ => Err("expects a vector type".into()),
    }
}

/// Element alignment, all an access may assume of a buffer passed from outside, unless
/// the op promises more (`{alignment = N}`) for its first element: that holds for whole
/// row of a unit-stride vector of one row, not for the lanes of a strided one or for the
/// rows after the first.
fn alignment(tr: &Translator, op: OpId, rows: &Rows) -> TResult<u32> {
    let element = rows.layout.element_kind(tr.ir)?.size_in_bytes() as u32;
    let promised = loop_::access_alignment(tr.ir, op).unwrap_or(0);
    let unit_stride = rows.layout.strides.last() == Some(&1);
    Ok(
        if unit_stride && rows.pointers.len() == 1 && promised > i64::from(element) {
            u32::try_from(promised).map_err(|_| "alignment is too large")?
        } else {
            element
        },
    )
}

pub(crate) fn vector_load(tr: &mut Translator, op: OpId) -> TResult {
    let result_type = tr.result_type(op, 0)?;
    let shape = vector_shape(tr, result_type)?;
    let rows = rows(tr, op, 0, &shape)?;
    let memory = element_memory_type(tr, &rows.layout)?;
    let align = alignment(tr, op, &rows)?;
    let unit_stride = rows.layout.strides.last() == Some(&1);
    let b = &tr.builder;
    let mut loaded = Vec::with_capacity(rows.pointers.len());
    for &pointer in &rows.pointers {
        let row = if unit_stride {
            let load = b.build_load(vector_of(memory, rows.width), pointer, "")?;
            set_alignment(load, align);
            load.into_vector_value()
        } else {
            let stride = *rows.layout.strides.last().unwrap_or(&1);
            let mut lanes = Vec::with_capacity(rows.width as usize);
            for lane in 0..rows.width {
                let at = lane_pointer(tr, memory, pointer, lane, stride)?;
                let load = b.build_load(memory, at, "")?;
                set_alignment(load, align);
                lanes.push(load);
            }
            gather(tr, &lanes)?
        };
        loaded.push(row);
    }
    let flat = concat(tr, &loaded)?;
    let value = if is_i1(tr.ir, element_type(tr.ir, result_type)) {
        let to = tr.llvm_type(result_type)?;
        tr.builder
            .build_cast(InstructionOpcode::Trunc, flat, to, "")?
    } else {
        flat.into()
    };
    tr.set_result(op, 0, value)
}

/// The rows, one after another, as one flat vector: each row is widened to the full length
/// and blended into place with a second shuffle.
fn concat<'ctx>(
    tr: &Translator<'_, 'ctx>,
    rows: &[VectorValue<'ctx>],
) -> TResult<VectorValue<'ctx>> {
    if let [only] = rows {
        return Ok(*only);
    }
    let first = rows.first().ok_or("makes a vector without rows")?;
    let width = first.get_type().get_size();
    let total = width * rows.len() as u32;
    let i32_type = tr.llvm.i32_type();
    let lane = |i: u32| i32_type.const_int(u64::from(i), false);
    let mut result = vector_of(first.get_type().get_element_type(), total).get_poison();
    for (r, &row) in rows.iter().enumerate() {
        let start = r as u32 * width;
        // The row's lanes in its place, the others don't care.
        let widen: Vec<IntValue> = (0..total)
            .map(|i| {
                if (start..start + width).contains(&i) {
                    lane(i - start)
                } else {
                    i32_type.get_poison()
                }
            })
            .collect();
        let widened = tr.builder.build_shuffle_vector(
            row,
            row.get_type().get_poison(),
            VectorType::const_vector(&widen),
            "",
        )?;
        // Lanes of this row from `widened` (indices past `total`), the rest from `result`.
        let blend: Vec<IntValue> = (0..total)
            .map(|i| {
                if (start..start + width).contains(&i) {
                    lane(total + i)
                } else {
                    lane(i)
                }
            })
            .collect();
        result = tr.builder.build_shuffle_vector(
            result,
            widened,
            VectorType::const_vector(&blend),
            "",
        )?;
    }
    Ok(result)
}

/// The address of lane `lane` of a row starting at `row` whose elements are `stride`
/// elements apart.
fn lane_pointer<'ctx>(
    tr: &Translator<'_, 'ctx>,
    memory: BasicTypeEnum<'ctx>,
    row: PointerValue<'ctx>,
    lane: u32,
    stride: i64,
) -> TResult<PointerValue<'ctx>> {
    if lane == 0 {
        return Ok(row);
    }
    let offset = tr.i64_const(i64::from(lane) * stride);
    Ok(unsafe { tr.builder.build_in_bounds_gep(memory, row, &[offset], "")? })
}

fn set_alignment(value: BasicValueEnum, align: u32) {
    if let Some(inst) = value.as_instruction_value() {
        let _ = inst.set_alignment(align);
    }
}

pub(crate) fn vector_store(tr: &mut Translator, op: OpId) -> TResult {
    let value_type = tr.operand_type(op, 0)?;
    let shape = vector_shape(tr, value_type)?;
    let rows = rows(tr, op, 1, &shape)?;
    let memory = element_memory_type(tr, &rows.layout)?;
    let align = alignment(tr, op, &rows)?;
    let mut value = match tr.operand(op, 0)? {
        BasicValueEnum::VectorValue(v) => v,
        _ => return Err("expects a vector value".into()),
    };
    if is_i1(tr.ir, element_type(tr.ir, value_type)) {
        let to = vector_of(memory, value.get_type().get_size());
        value = tr
            .builder
            .build_cast(InstructionOpcode::ZExt, value, to, "")?
            .into_vector_value();
    }
    let unit_stride = rows.layout.strides.last() == Some(&1);
    for (r, &pointer) in rows.pointers.iter().enumerate() {
        let row = slice(tr, value, r as u32 * rows.width, rows.width)?;
        let b = &tr.builder;
        if unit_stride {
            let store = b.build_store(pointer, row)?;
            let _ = store.set_alignment(align);
        } else {
            let stride = *rows.layout.strides.last().unwrap_or(&1);
            for lane in 0..rows.width {
                let index = tr.llvm.i32_type().const_int(u64::from(lane), false);
                let element = b.build_extract_element(row, index, "")?;
                let at = lane_pointer(tr, memory, pointer, lane, stride)?;
                let store = b.build_store(at, element)?;
                let _ = store.set_alignment(align);
            }
        }
    }
    Ok(())
}

fn broadcast(tr: &mut Translator, op: OpId) -> TResult {
    let scalar = tr.operand(op, 0)?;
    let to = tr.llvm_type(tr.result_type(op, 0)?)?;
    let value = splat(tr, scalar, to)?;
    tr.set_result(op, 0, value)
}

/// `a * b + c` with one rounding (`llvm.fma`), on scalars or vectors.
/// `loop.fma` on scalars or vectors: `llvm.fma` (one rounding).
pub(crate) fn fma(tr: &mut Translator, op: OpId) -> TResult {
    let args = [tr.operand(op, 0)?, tr.operand(op, 1)?, tr.operand(op, 2)?];
    let value = tr.call_intrinsic("llvm.fma", &[args[0].get_type()], &args)?;
    tr.set_result(op, 0, value)
}
