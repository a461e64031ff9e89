//! Rounding to `bf16` without the C runtime's help.
//!
//! On a CPU without native bf16 conversion (x86 without AVX-512 BF16, for one), LLVM lowers
//! every `fptrunc` to `bfloat` — an explicit `arith.truncf`, and the rounding after each
//! bf16 `addf`/`mulf`, which LLVM computes in `float` — to calls of `__truncsfbf2` and
//! `__truncdfbf2`. Those live in compiler-rt or a recent libgcc (GCC 13 and later), so the
//! JIT and shared libraries linked against an older libgcc could not resolve them. Modules
//! that use bf16 therefore carry their own definitions: weak (a native runtime's copy, or
//! another module's, wins at link time) and hidden (never exported from a shared library).
//! Both round to nearest, ties to even, as the runtime functions do, and quiet NaNs.

use inkwell::builder::Builder;
use inkwell::context::Context as LlvmContext;
use inkwell::module::{Linkage, Module};
use inkwell::values::{GlobalValue, IntValue};
use inkwell::{FloatPredicate, GlobalVisibility, IntPredicate};
use tb_ir::{Context, FloatKind, OpId, TypeKind};

use super::types::element_type;

/// Whether any value computed or used in `module` has a bf16 element type.
pub(crate) fn uses_bf16(ir: &Context, module: OpId) -> bool {
    let mut found = false;
    ir.walk_nested(module, &mut |op| {
        let data = ir.op(op);
        found |= data
            .operands
            .iter()
            .chain(&data.results)
            .any(|&v| is_bf16(ir, ir.value_type(v)));
    });
    found
}

fn is_bf16(ir: &Context, ty: tb_ir::Type) -> bool {
    matches!(
        ir.type_kind(element_type(ir, ty)),
        TypeKind::Float(FloatKind::BF16)
    )
}

/// Defines `__truncsfbf2` (float to bf16) and `__truncdfbf2` (double to bf16) in `module`.
pub(crate) fn define_truncations<'ctx>(
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
) -> Result<(), String> {
    let builder = llvm.create_builder();
    define_from_float(llvm, module, &builder).map_err(|e| e.to_string())?;
    define_from_double(llvm, module, &builder).map_err(|e| e.to_string())?;
    Ok(())
}

type BuildResult<T> = Result<T, inkwell::builder::BuilderError>;

fn weak_hidden(function: GlobalValue) {
    function.set_linkage(Linkage::WeakAny);
    function.set_visibility(GlobalVisibility::Hidden);
}

/// The bf16 bits of the float whose bits are `bits` (an i32), rounded to nearest even;
/// `is_nan` selects a quiet NaN with the same sign and top payload bits.
fn round_float_bits<'ctx>(
    llvm: &'ctx LlvmContext,
    builder: &Builder<'ctx>,
    bits: IntValue<'ctx>,
    is_nan: IntValue<'ctx>,
) -> BuildResult<IntValue<'ctx>> {
    let i32_type = llvm.i32_type();
    let c = |v: u64| i32_type.const_int(v, false);
    let upper = builder.build_right_shift(bits, c(16), false, "upper")?;
    let lowest_kept = builder.build_and(upper, c(1), "lowest_kept")?;
    let bias = builder.build_int_add(c(0x7fff), lowest_kept, "bias")?;
    let rounded = builder.build_int_add(bits, bias, "rounded")?;
    let rounded_upper = builder.build_right_shift(rounded, c(16), false, "rounded_upper")?;
    let quiet_nan = builder.build_or(upper, c(0x40), "quiet_nan")?;
    let result = builder
        .build_select(is_nan, quiet_nan, rounded_upper, "bf16_bits")?
        .into_int_value();
    builder.build_int_truncate(result, llvm.i16_type(), "bf16_bits16")
}

fn define_from_float<'ctx>(
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
) -> BuildResult<()> {
    let fn_type = llvm.bf16_type().fn_type(&[llvm.f32_type().into()], false);
    let function = module.add_function("__truncsfbf2", fn_type, None);
    weak_hidden(function.as_global_value());
    builder.position_at_end(llvm.append_basic_block(function, "entry"));
    let value = function.get_nth_param(0).unwrap().into_float_value();
    let bits = builder
        .build_bit_cast(value, llvm.i32_type(), "bits")?
        .into_int_value();
    let is_nan = builder.build_float_compare(FloatPredicate::UNO, value, value, "is_nan")?;
    let result = round_float_bits(llvm, builder, bits, is_nan)?;
    let result = builder.build_bit_cast(result, llvm.bf16_type(), "result")?;
    builder.build_return(Some(&result))?;
    Ok(())
}

/// Double to bf16 in one correct rounding: first to float rounding to odd (truncate, then
/// set the lowest bit if anything was lost), which keeps the information the second
/// rounding, to nearest even at bf16, needs; two nearest-even roundings could round twice.
fn define_from_double<'ctx>(
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
) -> BuildResult<()> {
    let fn_type = llvm.bf16_type().fn_type(&[llvm.f64_type().into()], false);
    let function = module.add_function("__truncdfbf2", fn_type, None);
    weak_hidden(function.as_global_value());
    builder.position_at_end(llvm.append_basic_block(function, "entry"));
    let (i32_type, i64_type) = (llvm.i32_type(), llvm.i64_type());
    let value = function.get_nth_param(0).unwrap().into_float_value();
    let nearest = builder.build_float_trunc(value, llvm.f32_type(), "nearest")?;
    let back = builder.build_float_ext(nearest, llvm.f64_type(), "back")?;
    let inexact = builder.build_float_compare(FloatPredicate::ONE, back, value, "inexact")?;
    // |back| > |value|: the nearest float lies farther from zero; step one unit toward it.
    let magnitude = |v, name| -> BuildResult<IntValue> {
        let bits = builder.build_bit_cast(v, i64_type, name)?.into_int_value();
        builder.build_and(bits, i64_type.const_int(i64::MAX as u64, false), name)
    };
    let away = builder.build_int_compare(
        IntPredicate::UGT,
        magnitude(back, "back_magnitude")?,
        magnitude(value, "magnitude")?,
        "away",
    )?;
    let bits = builder
        .build_bit_cast(nearest, i32_type, "bits")?
        .into_int_value();
    let toward_zero = builder.build_int_sub(bits, i32_type.const_int(1, false), "toward_zero")?;
    let truncated = builder
        .build_select(away, toward_zero, bits, "truncated")?
        .into_int_value();
    let odd = builder.build_or(truncated, i32_type.const_int(1, false), "odd")?;
    let to_odd = builder
        .build_select(inexact, odd, bits, "to_odd")?
        .into_int_value();
    let is_nan = builder.build_float_compare(FloatPredicate::UNO, value, value, "is_nan")?;
    let result = round_float_bits(llvm, builder, to_odd, is_nan)?;
    let result = builder.build_bit_cast(result, llvm.bf16_type(), "result")?;
    builder.build_return(Some(&result))?;
    Ok(())
}
