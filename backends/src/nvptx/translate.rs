//! The NVPTX target's translation registry: the shared `arith`, `math` (integer ops),
//! `cf` and loop/memref translations, and its own for the `gpu` ops and float math,
//! which calls NVIDIA's libdevice (`__nv_expf`, ...) as CUDA compilers do.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue};
use tb_dialects::gpu::{self, GpuOp, ShuffleMode};
use tb_dialects::loop_::LoopOp;
use tb_dialects::math::MathOp;
use tb_dialects::memref::MemRefOp;
use tb_ir::ods::OpKind;
use tb_ir::{Context, FloatKind, OpId, TypeKind};

use crate::cpu::{buffers, loops};
use crate::llvm::translator::{Handler, TResult, Translations, Translator};
use crate::llvm::{ArithTranslation, CfTranslation, DialectTranslation, MathTranslation};

pub(crate) static NVPTX_TRANSLATIONS: Translations = Translations {
    target: "NVPTX",
    dialects: &[
        &ArithTranslation,
        &NvptxMathTranslation,
        &CfTranslation,
        &GpuTranslation,
        &KernelMemRefTranslation,
        &KernelLoopTranslation,
        &super::mma::VectorTranslation,
        &super::mma::NvgpuTranslation,
    ],
};

/// The ops of `gpu` inside kernels.
struct GpuTranslation;

impl DialectTranslation for GpuTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        Some(match GpuOp::of(ir, op)? {
            GpuOp::BlockId | GpuOp::ThreadId | GpuOp::BlockDim | GpuOp::GridDim => dimension,
            GpuOp::Barrier => barrier,
            GpuOp::Shuffle => shuffle,
            // Launches are kernels of their own, not ops inside one; the terminator
            // needs no code (the kernel returns after its body).
            GpuOp::Launch | GpuOp::Terminator => return None,
        })
    }
}

/// Buffers inside kernels: loads, stores and views. Kernels do not allocate.
struct KernelMemRefTranslation;

impl DialectTranslation for KernelMemRefTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        let kind = MemRefOp::of(ir, op)?;
        use MemRefOp as M;
        match kind {
            M::Alloc | M::Dealloc | M::Global | M::GetGlobal => None,
            _ => buffers::memref_handler(kind),
        }
    }
}

/// Loops run sequentially inside a thread.
struct KernelLoopTranslation;

impl DialectTranslation for KernelLoopTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        let kind = LoopOp::of(ir, op)?;
        match kind {
            LoopOp::For | LoopOp::Parallel => Some(loops::loop_handler()),
            LoopOp::Load | LoopOp::Store => buffers::loop_handler(kind),
            // A register tile's multiply-adds (`loop-gpu-register-tile`): `fma.rn`.
            LoopOp::Fma => Some(crate::llvm::vector::fma),
            // Wide copies of tiles (`ld.global.v4`, `st.shared.v4` where the op promises
            // 16-byte alignment).
            LoopOp::VectorLoad => Some(crate::llvm::vector::vector_load),
            LoopOp::VectorStore => Some(crate::llvm::vector::vector_store),
            LoopOp::Alloc | LoopOp::Dealloc | LoopOp::Broadcast | LoopOp::Dot | LoopOp::Yield => {
                None
            }
        }
    }
}

/// The special register holding a thread's id or a launch size: `tid`, `ntid`, `ctaid`,
/// `nctaid` for x, y, z, widened to `index`.
pub(crate) fn special_register<'ctx>(
    tr: &Translator<'_, 'ctx>,
    register: &str,
    dim: gpu::Dimension,
) -> TResult<IntValue<'ctx>> {
    let name = format!("llvm.nvvm.read.ptx.sreg.{register}.{}", dim.name());
    let value = tr.call_intrinsic(&name, &[], &[])?.into_int_value();
    Ok(tr
        .builder
        .build_int_z_extend(value, tr.llvm.i64_type(), "")?)
}

/// The register each of the launch body's twelve arguments reads.
pub(crate) const BODY_ARG_REGISTERS: [&str; 4] = ["ctaid", "tid", "nctaid", "ntid"];

fn dimension(tr: &mut Translator, op: OpId) -> TResult {
    let dim = gpu::dimension(tr.ir, op).ok_or("has no valid dimension")?;
    let register = match GpuOp::of(tr.ir, op) {
        Some(GpuOp::BlockId) => "ctaid",
        Some(GpuOp::ThreadId) => "tid",
        Some(GpuOp::GridDim) => "nctaid",
        _ => "ntid",
    };
    let value = special_register(tr, register, dim)?;
    tr.set_result(op, 0, value)
}

fn barrier(tr: &mut Translator, _op: OpId) -> TResult {
    // LLVM 21 renamed `llvm.nvvm.barrier0`; either spelling means `bar.sync 0`.
    if inkwell::intrinsics::Intrinsic::find("llvm.nvvm.barrier.cta.sync.aligned.all").is_some() {
        let zero = tr.llvm.i32_type().const_zero();
        call_void_intrinsic(tr, "llvm.nvvm.barrier.cta.sync.aligned.all", &[zero.into()])
    } else {
        call_void_intrinsic(tr, "llvm.nvvm.barrier0", &[])
    }
}

fn call_void_intrinsic<'ctx>(
    tr: &Translator<'_, 'ctx>,
    name: &str,
    args: &[BasicValueEnum<'ctx>],
) -> TResult {
    let intrinsic = inkwell::intrinsics::Intrinsic::find(name)
        .ok_or_else(|| format!("LLVM has no intrinsic '{name}'"))?;
    let declaration = intrinsic
        .get_declaration(tr.module, &[])
        .ok_or_else(|| format!("cannot declare '{name}'"))?;
    let args: Vec<_> = args.iter().map(|&a| a.into()).collect();
    tr.builder.build_call(declaration, &args, "")?;
    Ok(())
}

/// `shfl.sync` over all 32 lanes of the warp, with the predicate saying whether the source
/// lane was inside the segment.
fn shuffle(tr: &mut Translator, op: OpId) -> TResult {
    let mode = gpu::shuffle_mode(tr.ir, op).ok_or("has no valid mode")?;
    let value = tr.operand(op, 0)?;
    let offset = tr.operand(op, 1)?.into_int_value();
    let width = tr.operand(op, 2)?.into_int_value();
    let i32_ty = tr.llvm.i32_type();
    let (suffix, as_i32) = match value.get_type() {
        BasicTypeEnum::FloatType(t) if t == tr.llvm.f32_type() => ("f32p", false),
        BasicTypeEnum::IntType(t) if t.get_bit_width() == 32 => ("i32p", false),
        BasicTypeEnum::IntType(t) if t.get_bit_width() == 64 => {
            return Err("shuffles of 64-bit values are not supported on NVPTX yet".into());
        }
        _ => ("i32p", true),
    };
    if as_i32 {
        return Err("shuffles of 64-bit values are not supported on NVPTX yet".into());
    }
    let kind = match mode {
        ShuffleMode::Xor => "bfly",
        ShuffleMode::Up => "up",
        ShuffleMode::Down => "down",
        ShuffleMode::Idx => "idx",
    };
    // The clamp operand: lanes outside [segment start, segment start + width) are invalid;
    // PTX encodes the segment mask in bits 8-12 and the clamp value in bits 0-4.
    let segment_mask = tr.builder.build_left_shift(
        tr.builder
            .build_int_sub(i32_ty.const_int(32, false), width, "")?,
        i32_ty.const_int(8, false),
        "",
    )?;
    let clamp = if mode == ShuffleMode::Up {
        segment_mask
    } else {
        tr.builder
            .build_or(segment_mask, i32_ty.const_int(31, false), "")?
    };
    let all_lanes = i32_ty.const_all_ones();
    let name = format!("llvm.nvvm.shfl.sync.{kind}.{suffix}");
    let result = tr.call_intrinsic(
        &name,
        &[],
        &[all_lanes.into(), value, offset.into(), clamp.into()],
    )?;
    let pair = result.into_struct_value();
    let shuffled = tr.builder.build_extract_value(pair, 0, "")?;
    let valid = tr.builder.build_extract_value(pair, 1, "")?;
    tr.set_result(op, 0, shuffled)?;
    tr.set_result(op, 1, valid)
}

/// Float `math` ops call libdevice; integer and classification ops use the shared
/// translation (LLVM's NVPTX backend selects their intrinsics directly).
struct NvptxMathTranslation;

impl DialectTranslation for NvptxMathTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        let kind = MathOp::of(ir, op)?;
        if libdevice_name(kind).is_some() {
            Some(libdevice_call)
        } else {
            MathTranslation.handler(ir, op)
        }
    }
}

/// The libdevice function computing `kind` (`exp` for `__nv_expf` / `__nv_exp`).
fn libdevice_name(kind: MathOp) -> Option<&'static str> {
    use MathOp as M;
    Some(match kind {
        M::AbsF => "fabs",
        M::Ceil => "ceil",
        M::Floor => "floor",
        M::Trunc => "trunc",
        M::Round => "round",
        M::RoundEven => "rint",
        M::Sqrt => "sqrt",
        M::Rsqrt => "rsqrt",
        M::Exp => "exp",
        M::Exp2 => "exp2",
        M::ExpM1 => "expm1",
        M::Log => "log",
        M::Log2 => "log2",
        M::Log10 => "log10",
        M::Log1p => "log1p",
        M::Sin => "sin",
        M::Cos => "cos",
        M::Tan => "tan",
        M::Asin => "asin",
        M::Acos => "acos",
        M::Atan => "atan",
        M::Sinh => "sinh",
        M::Cosh => "cosh",
        M::Tanh => "tanh",
        M::Asinh => "asinh",
        M::Acosh => "acosh",
        M::Atanh => "atanh",
        M::Erf => "erf",
        M::Erfc => "erfc",
        M::Cbrt => "cbrt",
        M::Atan2 => "atan2",
        M::CopySign => "copysign",
        M::PowF => "pow",
        M::Fma => "fma",
        _ => return None,
    })
}

/// `__nv_<name>f` on f32 (16-bit floats widened to it), `__nv_<name>` on f64.
fn libdevice_call(tr: &mut Translator, op: OpId) -> TResult {
    let kind = MathOp::of(tr.ir, op).ok_or("is not a math op")?;
    let name = libdevice_name(kind).ok_or("has no libdevice function")?;
    let ty = tr.result_type(op, 0)?;
    let TypeKind::Float(float) = tr.ir.type_kind(ty) else {
        return Err("takes scalar floats on NVPTX (vector math is not supported there yet)".into());
    };
    let (symbol, compute) = match float {
        FloatKind::F64 => (format!("__nv_{name}"), tr.llvm.f64_type()),
        FloatKind::F32 | FloatKind::F16 | FloatKind::BF16 => {
            (format!("__nv_{name}f"), tr.llvm.f32_type())
        }
        other => return Err(format!("has no NVPTX translation for {other:?}").into()),
    };
    let mut args = Vec::new();
    for i in 0..tr.ir.op(op).operands.len() {
        let v = tr.operand(op, i)?.into_float_value();
        let v = if v.get_type() == compute {
            v
        } else {
            tr.builder.build_float_ext(v, compute, "")?
        };
        args.push(BasicValueEnum::from(v));
    }
    let result = tr
        .call_libc(&symbol, Some(compute.into()), &args)?
        .ok_or("libdevice call returned nothing")?
        .into_float_value();
    let out = tr.llvm_type(ty)?.into_float_type();
    let result = if out == compute {
        result
    } else {
        tr.builder.build_float_trunc(result, out, "")?
    };
    tr.set_result(op, 0, result)
}
