//! Tensor-core fragments on NVPTX: `vector.from_elements` and `vector.extract` on the
//! backend's flat vectors, and `nvgpu.mma.sync` as LLVM's `llvm.nvvm.mma.m16n8k16.row.col`
//! intrinsics (`mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}...` in PTX).

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, VectorValue};
use tb_dialects::nvgpu::{self, NvgpuOp};
use tb_dialects::vector::{self, VectorOp};
use tb_ir::ods::OpKind;
use tb_ir::{Context, FloatKind, OpId};

use crate::llvm::DialectTranslation;
use crate::llvm::translator::{Handler, TResult, Translator};

pub(super) struct VectorTranslation;

impl DialectTranslation for VectorTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        Some(match VectorOp::of(ir, op)? {
            VectorOp::FromElements => from_elements,
            VectorOp::Extract => extract,
        })
    }
}

pub(super) struct NvgpuTranslation;

impl DialectTranslation for NvgpuTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        Some(match NvgpuOp::of(ir, op)? {
            NvgpuOp::MmaSync => mma_sync,
            NvgpuOp::LdMatrix => ldmatrix,
            NvgpuOp::DeviceAsyncCopy => super::async_copy::copy,
            NvgpuOp::DeviceAsyncCreateGroup => super::async_copy::create_group,
            NvgpuOp::DeviceAsyncWait => super::async_copy::wait,
        })
    }
}

fn from_elements(tr: &mut Translator, op: OpId) -> TResult {
    let ty = tr.llvm_type(tr.result_type(op, 0)?)?;
    let BasicTypeEnum::VectorType(vector_ty) = ty else {
        return Err("has a result that is not a vector".into());
    };
    let mut vector = vector_ty.get_poison();
    for i in 0..tr.ir.op(op).operands.len() {
        let element = tr.operand(op, i)?;
        let at = tr.llvm.i32_type().const_int(i as u64, false);
        vector = tr.builder.build_insert_element(vector, element, at, "")?;
    }
    tr.set_result(op, 0, vector)
}

fn extract(tr: &mut Translator, op: OpId) -> TResult {
    let source_ty = tr.operand_type(op, 0)?;
    let (shape, _) = vector::vector_shape(tr.ir, source_ty).ok_or("takes a vector")?;
    let shape = shape.to_vec();
    let position = vector::extract_position(tr.ir, op).ok_or("has no static_position")?;
    let block: i64 = shape[position.len()..].iter().product();
    let start = position
        .iter()
        .zip(&shape)
        .fold(0i64, |at, (&p, &d)| at * d + p)
        * block;
    let source = tr.operand(op, 0)?.into_vector_value();
    let i32_ty = tr.llvm.i32_type();
    if position.len() == shape.len() {
        let at = i32_ty.const_int(start as u64, false);
        let value = tr.builder.build_extract_element(source, at, "")?;
        return tr.set_result(op, 0, value);
    }
    let part = lanes(tr, source, start as u32, block as u32)?;
    tr.set_result(op, 0, part)
}

/// Lanes `start .. start + count` of `vector`, as a vector of their own.
fn lanes<'ctx>(
    tr: &Translator<'_, 'ctx>,
    vector: VectorValue<'ctx>,
    start: u32,
    count: u32,
) -> TResult<VectorValue<'ctx>> {
    let i32_ty = tr.llvm.i32_type();
    let mask: Vec<_> = (start..start + count)
        .map(|i| i32_ty.const_int(u64::from(i), false))
        .collect();
    let mask = inkwell::types::VectorType::const_vector(&mask);
    Ok(tr.builder.build_shuffle_vector(vector, vector, mask, "")?)
}

/// The 16x8x16 multiply-accumulate: `A`'s eight and `B`'s four 16-bit values go in pairs
/// (`<2 x half>`, or `i32` words for bf16, as the intrinsics take them), `C`'s four floats
/// one by one, and the four floats returned become the result vector.
fn mma_sync(tr: &mut Translator, op: OpId) -> TResult {
    let kind = nvgpu::operand_kind(tr.ir, op).ok_or("takes f16 or bf16 fragments")?;
    let (name, as_words) = match kind {
        FloatKind::F16 => ("llvm.nvvm.mma.m16n8k16.row.col.f32.f32", false),
        FloatKind::BF16 => ("llvm.nvvm.mma.m16n8k16.row.col.bf16", true),
        other => return Err(format!("has no tensor-core form for {other:?}").into()),
    };
    let mut args: Vec<BasicValueEnum> = Vec::with_capacity(10);
    for (operand, pairs) in [(0, 4), (1, 2)] {
        let fragment = tr.operand(op, operand)?.into_vector_value();
        for pair in 0..pairs {
            let two = lanes(tr, fragment, 2 * pair, 2)?;
            let arg: BasicValueEnum = if as_words {
                tr.builder.build_bit_cast(two, tr.llvm.i32_type(), "")?
            } else {
                two.into()
            };
            args.push(arg);
        }
    }
    let accumulators = tr.operand(op, 2)?.into_vector_value();
    for i in 0..4 {
        let at = tr.llvm.i32_type().const_int(i, false);
        args.push(tr.builder.build_extract_element(accumulators, at, "")?);
    }
    let sums = tr.call_intrinsic(name, &[], &args)?.into_struct_value();
    let mut result = accumulators.get_type().get_poison();
    for i in 0..4 {
        let sum = tr.builder.build_extract_value(sums, i, "")?;
        let at = tr.llvm.i32_type().const_int(u64::from(i), false);
        result = tr.builder.build_insert_element(result, sum, at, "")?;
    }
    tr.set_result(op, 0, result)
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16` from the lane's row address in the
/// shared space: one 32-bit word per matrix, each a pair of the fragment's elements.
fn ldmatrix(tr: &mut Translator, op: OpId) -> TResult {
    use crate::llvm::memref::{element_pointer, operand_layout};
    let (tiles, transpose) =
        nvgpu::ldmatrix_form(tr.ir, op).ok_or("has no numTiles or transpose")?;
    let layout = operand_layout(tr, op, 0)?;
    let base = tr.pointer_operand(op, 0)?;
    let indices = crate::cpu::buffers::index_operands(tr, op, 1)?;
    let generic = element_pointer(tr, base, &layout, &indices)?;
    let shared_ty = tr.llvm.ptr_type(inkwell::AddressSpace::from(3u16));
    let shared = tr
        .builder
        .build_address_space_cast(generic, shared_ty, "")?;
    let name = format!(
        "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{tiles}{}.b16",
        if transpose { ".trans" } else { "" }
    );
    let words = tr.call_intrinsic(&name, &[shared_ty.into()], &[shared.into()])?;
    let result_ty = tr.llvm_type(tr.result_type(op, 0)?)?.into_vector_type();
    let pair_ty = result_ty.get_element_type().into_float_type().vec_type(2);
    let mut result = result_ty.get_poison();
    for m in 0..tiles as u32 {
        let word = if tiles == 1 {
            words
        } else {
            tr.builder
                .build_extract_value(words.into_struct_value(), m, "")?
        };
        let pair = tr
            .builder
            .build_bit_cast(word, pair_ty, "")?
            .into_vector_value();
        for h in 0..2u32 {
            let i32_ty = tr.llvm.i32_type();
            let element = tr.builder.build_extract_element(
                pair,
                i32_ty.const_int(u64::from(h), false),
                "",
            )?;
            let at = i32_ty.const_int(u64::from(2 * m + h), false);
            result = tr.builder.build_insert_element(result, element, at, "")?;
        }
    }
    tr.set_result(op, 0, result)
}
