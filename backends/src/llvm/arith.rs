//! `arith` ops on scalars and (flat) vectors: each is one LLVM instruction or intrinsic with
//! the same semantics, as MLIR's `arith-to-llvm` lowering emits. Overflow flags become
//! `nsw`/`nuw`, fast-math flags become LLVM's.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode, IntValue};
use inkwell::values::{FastMathFlags, InstructionValue};
use inkwell::{FloatPredicate, IntPredicate};
use tb_dialects::arith::{self, ArithOp};
use tb_ir::attributes::DenseElement;
use tb_ir::ods::OpKind;
use tb_ir::printer::attr_to_string;
use tb_ir::{AttrKind, Context, OpId, Type, TypeKind};

use super::DialectTranslation;
use super::translator::{Handler, TResult, Translator};
use super::types::{element_type, scalar_type, vector_lanes};

/// The ops of `arith`, on scalars and vectors.
pub(crate) struct ArithTranslation;

impl DialectTranslation for ArithTranslation {
    fn handler(&self, ir: &Context, op: OpId) -> Option<Handler> {
        use ArithOp as A;
        Some(match ArithOp::of(ir, op)? {
            A::Constant => constant,
            A::AddI => addi,
            A::AddUIExtended => addui_extended,
            A::SubI => subi,
            A::MulI => muli,
            A::MulSIExtended => mulsi_extended,
            A::MulUIExtended => mului_extended,
            A::DivSI => divsi,
            A::DivUI => divui,
            A::CeilDivSI => ceildivsi,
            A::CeilDivUI => ceildivui,
            A::FloorDivSI => floordivsi,
            A::RemSI => remsi,
            A::RemUI => remui,
            A::AndI => andi,
            A::OrI => ori,
            A::XOrI => xori,
            A::ShLI => shli,
            A::ShRSI => shrsi,
            A::ShRUI => shrui,
            A::MaxSI => maxsi,
            A::MaxUI => maxui,
            A::MinSI => minsi,
            A::MinUI => minui,
            A::AddF => addf,
            A::SubF => subf,
            A::MulF => mulf,
            A::DivF => divf,
            A::RemF => remf,
            A::MaximumF => maximumf,
            A::MinimumF => minimumf,
            A::MaxNumF => maxnumf,
            A::MinNumF => minnumf,
            A::NegF => negf,
            A::CmpI => cmpi,
            A::CmpF => cmpf,
            A::Select => select_op,
            A::ExtSI => extsi,
            A::ExtUI => extui,
            A::TruncI => trunci,
            A::ExtF => extf,
            A::TruncF => truncf,
            // Their scales pass through f8E8M0FNU (OCP MX), which this backend has no
            // type for: reported as unsupported ops.
            A::ScalingExtF | A::ScalingTruncF => return None,
            A::SIToFP => sitofp,
            A::UIToFP => uitofp,
            A::FPToSI => fptosi,
            A::FPToUI => fptoui,
            A::IndexCast => index_cast,
            A::IndexCastUI => index_castui,
            A::Bitcast => bitcast,
        })
    }
}

// ---- flags ----

/// LLVM fast-math flags of an op's `fastmath` attribute.
pub(crate) fn fast_math_flags(tr: &Translator, op: OpId) -> FastMathFlags {
    let flags = arith::FastMathFlags::of(tr.ir, op);
    [
        (arith::FastMathFlags::REASSOC, FastMathFlags::AllowReassoc),
        (arith::FastMathFlags::NNAN, FastMathFlags::NoNaNs),
        (arith::FastMathFlags::NINF, FastMathFlags::NoInfs),
        (arith::FastMathFlags::NSZ, FastMathFlags::NoSignedZeros),
        (arith::FastMathFlags::ARCP, FastMathFlags::AllowReciprocal),
        (arith::FastMathFlags::CONTRACT, FastMathFlags::AllowContract),
        (arith::FastMathFlags::AFN, FastMathFlags::ApproxFunc),
    ]
    .into_iter()
    .filter(|(flag, _)| flags.contains(*flag))
    .fold(FastMathFlags::empty(), |all, (_, llvm)| all | llvm)
}

fn instruction<'ctx>(value: BasicValueEnum<'ctx>) -> Option<InstructionValue<'ctx>> {
    value.as_instruction_value()
}

/// Puts the op's fast-math flags on the instruction that computed `value` (constants that
/// the builder folded have none).
pub(crate) fn apply_fast_math(tr: &Translator, op: OpId, value: BasicValueEnum) {
    let flags = fast_math_flags(tr, op);
    if !flags.is_empty()
        && let Some(inst) = instruction(value)
        && inst.can_use_fast_math_flags()
    {
        let _ = inst.set_fast_math_flags(flags);
    }
}

fn apply_overflow(tr: &Translator, op: OpId, value: BasicValueEnum) {
    let flags = arith::OverflowFlags::of(tr.ir, op);
    if let Some(inst) = instruction(value) {
        if flags.nsw {
            let _ = inst.set_no_signed_wrap_flag(true);
        }
        if flags.nuw {
            let _ = inst.set_no_unsigned_wrap_flag(true);
        }
    }
}

// ---- binary ops ----

fn binary<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    op: OpId,
    opcode: InstructionOpcode,
) -> TResult<BasicValueEnum<'ctx>> {
    let lhs = tr.operand(op, 0)?;
    let rhs = tr.operand(op, 1)?;
    Ok(tr.builder.build_binop(opcode, lhs, rhs, "")?)
}

/// Puts `exact` on a division or right shift whose op has MLIR's `exact` flag.
fn apply_exact(tr: &Translator, op: OpId, value: BasicValueEnum) {
    if tr.ir.op_inherent_or_attr(op, "isExact").is_some()
        && let Some(inst) = instruction(value)
    {
        let _ = inst.set_exact_flag(true);
    }
}

macro_rules! int_ops {
    ($($name:ident => $opcode:ident),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            let value = binary(tr, op, InstructionOpcode::$opcode)?;
            apply_overflow(tr, op, value);
            apply_exact(tr, op, value);
            tr.set_result(op, 0, value)
        })*
    };
}

int_ops! {
    addi => Add,
    subi => Sub,
    muli => Mul,
    divsi => SDiv,
    divui => UDiv,
    remsi => SRem,
    remui => URem,
    andi => And,
    ori => Or,
    xori => Xor,
    shli => Shl,
    shrsi => AShr,
    shrui => LShr,
}

// ---- rounded divisions and extended arithmetic ----

/// The integer constant `value` (sign-extended) of scalar or vector integer type `ty`.
fn int_splat<'ctx>(ty: BasicTypeEnum<'ctx>, value: i64) -> TResult<BasicValueEnum<'ctx>> {
    match ty {
        BasicTypeEnum::IntType(t) => Ok(t.const_int(value as u64, true).into()),
        BasicTypeEnum::VectorType(v) => {
            let c = v
                .get_element_type()
                .into_int_type()
                .const_int(value as u64, true);
            let lanes = vec![c; v.get_size() as usize];
            Ok(inkwell::types::VectorType::const_vector(&lanes).into())
        }
        _ => Err("expects integer operands".into()),
    }
}

fn build<'ctx>(
    tr: &Translator<'_, 'ctx>,
    opcode: InstructionOpcode,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    Ok(tr.builder.build_binop(opcode, lhs, rhs, "")?)
}

/// `floordivsi` (`up == false`) and `ceildivsi` (`up == true`), as `arith-expand` writes
/// them: the truncated quotient `q = a / b`, moved one step toward -inf (or +inf) when
/// the division is inexact (`q * b != a`) and the exact quotient is negative (or
/// positive), i.e. the operands' signs differ (or agree).
fn rounded_signed_division(tr: &mut Translator, op: OpId, up: bool) -> TResult {
    let (a, b) = (tr.operand(op, 0)?, tr.operand(op, 1)?);
    let ty = a.get_type();
    let zero = int_splat(ty, 0)?;
    let quotient = build(tr, InstructionOpcode::SDiv, a, b)?;
    let product = build(tr, InstructionOpcode::Mul, quotient, b)?;
    let inexact = icmp(tr, IntPredicate::NE, a, product)?;
    let a_negative = icmp(tr, IntPredicate::SLT, a, zero)?;
    let b_negative = icmp(tr, IntPredicate::SLT, b, zero)?;
    let signs = if up {
        IntPredicate::EQ
    } else {
        IntPredicate::NE
    };
    let sign_matches = icmp(tr, signs, a_negative, b_negative)?;
    let adjust = build(tr, InstructionOpcode::And, inexact, sign_matches)?;
    let step = int_splat(ty, if up { 1 } else { -1 })?;
    let adjusted = build(tr, InstructionOpcode::Add, quotient, step)?;
    let value = select(tr, adjust, adjusted, quotient)?;
    tr.set_result(op, 0, value)
}

fn floordivsi(tr: &mut Translator, op: OpId) -> TResult {
    rounded_signed_division(tr, op, false)
}

fn ceildivsi(tr: &mut Translator, op: OpId) -> TResult {
    rounded_signed_division(tr, op, true)
}

/// `ceildivui(n, m)` is `n == 0 ? 0 : (n - 1) / m + 1`, which cannot overflow.
fn ceildivui(tr: &mut Translator, op: OpId) -> TResult {
    let (n, m) = (tr.operand(op, 0)?, tr.operand(op, 1)?);
    let ty = n.get_type();
    let (zero, one) = (int_splat(ty, 0)?, int_splat(ty, 1)?);
    let is_zero = icmp(tr, IntPredicate::EQ, n, zero)?;
    let below = build(tr, InstructionOpcode::Sub, n, one)?;
    let quotient = build(tr, InstructionOpcode::UDiv, below, m)?;
    let rounded_up = build(tr, InstructionOpcode::Add, quotient, one)?;
    let value = select(tr, is_zero, zero, rounded_up)?;
    tr.set_result(op, 0, value)
}

/// The integer type (or vector of it) like `ty` with elements `width` bits wide.
fn with_int_width<'ctx>(
    tr: &Translator<'_, 'ctx>,
    ty: BasicTypeEnum<'ctx>,
    width: u32,
) -> TResult<BasicTypeEnum<'ctx>> {
    let element = tr
        .llvm
        .custom_width_int_type(std::num::NonZeroU32::new(width).ok_or("bad integer width")?)
        .map_err(|e| e.to_string())?;
    Ok(match ty {
        BasicTypeEnum::VectorType(v) => element.vec_type(v.get_size()).into(),
        _ => element.into(),
    })
}

/// `mulsi_extended`/`mului_extended`: both operands extended to twice their width, one
/// multiplication, and the product's halves truncated back, as `arith-to-llvm` does.
fn mul_extended(tr: &mut Translator, op: OpId, signed: bool) -> TResult {
    let (a, b) = (tr.operand(op, 0)?, tr.operand(op, 1)?);
    let ty = a.get_type();
    let width = int_width(tr, tr.operand_type(op, 0)?);
    let wide = with_int_width(tr, ty, 2 * width)?;
    let extend = if signed {
        InstructionOpcode::SExt
    } else {
        InstructionOpcode::ZExt
    };
    let wide_a = tr.builder.build_cast(extend, a, wide, "")?;
    let wide_b = tr.builder.build_cast(extend, b, wide, "")?;
    let product = build(tr, InstructionOpcode::Mul, wide_a, wide_b)?;
    let low = tr
        .builder
        .build_cast(InstructionOpcode::Trunc, product, ty, "")?;
    let shift = int_splat(wide, i64::from(width))?;
    let shifted = build(tr, InstructionOpcode::LShr, product, shift)?;
    let high = tr
        .builder
        .build_cast(InstructionOpcode::Trunc, shifted, ty, "")?;
    tr.set_result(op, 0, low)?;
    tr.set_result(op, 1, high)
}

fn mulsi_extended(tr: &mut Translator, op: OpId) -> TResult {
    mul_extended(tr, op, true)
}

fn mului_extended(tr: &mut Translator, op: OpId) -> TResult {
    mul_extended(tr, op, false)
}

/// `addui_extended` through `llvm.uadd.with.overflow`, whose `{sum, carry}` are the results.
fn addui_extended(tr: &mut Translator, op: OpId) -> TResult {
    let (a, b) = (tr.operand(op, 0)?, tr.operand(op, 1)?);
    let pair = tr.call_intrinsic("llvm.uadd.with.overflow", &[a.get_type()], &[a, b])?;
    let BasicValueEnum::StructValue(pair) = pair else {
        return Err("llvm.uadd.with.overflow returns no pair".into());
    };
    let sum = tr.builder.build_extract_value(pair, 0, "")?;
    let carry = tr.builder.build_extract_value(pair, 1, "")?;
    tr.set_result(op, 0, sum)?;
    tr.set_result(op, 1, carry)
}

macro_rules! float_ops {
    ($($name:ident => $opcode:ident),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            let value = binary(tr, op, InstructionOpcode::$opcode)?;
            apply_fast_math(tr, op, value);
            tr.set_result(op, 0, value)
        })*
    };
}

float_ops! {
    addf => FAdd,
    subf => FSub,
    mulf => FMul,
    divf => FDiv,
    remf => FRem,
}

/// An op computed by a two-operand LLVM intrinsic overloaded on the operand type.
fn binary_intrinsic(tr: &mut Translator, op: OpId, intrinsic: &str, float: bool) -> TResult {
    let lhs = tr.operand(op, 0)?;
    let rhs = tr.operand(op, 1)?;
    let value = tr.call_intrinsic(intrinsic, &[lhs.get_type()], &[lhs, rhs])?;
    if float {
        apply_fast_math(tr, op, value);
    }
    tr.set_result(op, 0, value)
}

macro_rules! intrinsic_ops {
    ($($name:ident => ($intrinsic:literal, $float:literal)),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            binary_intrinsic(tr, op, $intrinsic, $float)
        })*
    };
}

intrinsic_ops! {
    maxsi => ("llvm.smax", false),
    maxui => ("llvm.umax", false),
    minsi => ("llvm.smin", false),
    minui => ("llvm.umin", false),
    // IEEE maximum/minimum: NaN-propagating, -0 < +0 (MLIR's maximumf/minimumf).
    maximumf => ("llvm.maximum", true),
    minimumf => ("llvm.minimum", true),
    // IEEE maxNum/minNum: a NaN operand yields the other one.
    maxnumf => ("llvm.maxnum", true),
    minnumf => ("llvm.minnum", true),
}

fn negf(tr: &mut Translator, op: OpId) -> TResult {
    let value = match tr.operand(op, 0)? {
        BasicValueEnum::FloatValue(v) => tr.builder.build_float_neg(v, "")?.into(),
        BasicValueEnum::VectorValue(v) => tr.builder.build_float_neg(v, "")?.into(),
        _ => return Err("expects a float operand".into()),
    };
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

// ---- comparisons and select ----

/// `icmp` on scalars or vectors.
pub(crate) fn icmp<'ctx>(
    tr: &Translator<'_, 'ctx>,
    predicate: IntPredicate,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let b = &tr.builder;
    Ok(match (lhs, rhs) {
        (BasicValueEnum::IntValue(l), BasicValueEnum::IntValue(r)) => {
            b.build_int_compare(predicate, l, r, "")?.into()
        }
        (BasicValueEnum::VectorValue(l), BasicValueEnum::VectorValue(r)) => {
            b.build_int_compare(predicate, l, r, "")?.into()
        }
        _ => return Err("compares values of different kinds".into()),
    })
}

/// `fcmp` on scalars or vectors.
pub(crate) fn fcmp<'ctx>(
    tr: &Translator<'_, 'ctx>,
    predicate: FloatPredicate,
    lhs: BasicValueEnum<'ctx>,
    rhs: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let b = &tr.builder;
    Ok(match (lhs, rhs) {
        (BasicValueEnum::FloatValue(l), BasicValueEnum::FloatValue(r)) => {
            b.build_float_compare(predicate, l, r, "")?.into()
        }
        (BasicValueEnum::VectorValue(l), BasicValueEnum::VectorValue(r)) => {
            b.build_float_compare(predicate, l, r, "")?.into()
        }
        _ => return Err("compares values of different kinds".into()),
    })
}

/// `select` with a scalar or vector condition.
pub(crate) fn select<'ctx>(
    tr: &Translator<'_, 'ctx>,
    condition: BasicValueEnum<'ctx>,
    then: BasicValueEnum<'ctx>,
    otherwise: BasicValueEnum<'ctx>,
) -> TResult<BasicValueEnum<'ctx>> {
    let b = &tr.builder;
    Ok(match condition {
        BasicValueEnum::IntValue(c) => b.build_select(c, then, otherwise, "")?,
        BasicValueEnum::VectorValue(c) => b.build_select(c, then, otherwise, "")?,
        _ => return Err("expects an i1 condition".into()),
    })
}

fn cmpi(tr: &mut Translator, op: OpId) -> TResult {
    use arith::CmpIPredicate as P;
    let p = match P::of(tr.ir, op).ok_or("has no known predicate")? {
        P::Eq => IntPredicate::EQ,
        P::Ne => IntPredicate::NE,
        P::Slt => IntPredicate::SLT,
        P::Sle => IntPredicate::SLE,
        P::Sgt => IntPredicate::SGT,
        P::Sge => IntPredicate::SGE,
        P::Ult => IntPredicate::ULT,
        P::Ule => IntPredicate::ULE,
        P::Ugt => IntPredicate::UGT,
        P::Uge => IntPredicate::UGE,
    };
    let value = icmp(tr, p, tr.operand(op, 0)?, tr.operand(op, 1)?)?;
    tr.set_result(op, 0, value)
}

fn cmpf(tr: &mut Translator, op: OpId) -> TResult {
    use arith::CmpFPredicate as P;
    let p = match P::of(tr.ir, op).ok_or("has no known predicate")? {
        P::False => FloatPredicate::PredicateFalse,
        P::Oeq => FloatPredicate::OEQ,
        P::Ogt => FloatPredicate::OGT,
        P::Oge => FloatPredicate::OGE,
        P::Olt => FloatPredicate::OLT,
        P::Ole => FloatPredicate::OLE,
        P::One => FloatPredicate::ONE,
        P::Ord => FloatPredicate::ORD,
        P::Ueq => FloatPredicate::UEQ,
        P::Ugt => FloatPredicate::UGT,
        P::Uge => FloatPredicate::UGE,
        P::Ult => FloatPredicate::ULT,
        P::Ule => FloatPredicate::ULE,
        P::Une => FloatPredicate::UNE,
        P::Uno => FloatPredicate::UNO,
        P::True => FloatPredicate::PredicateTrue,
    };
    let value = fcmp(tr, p, tr.operand(op, 0)?, tr.operand(op, 1)?)?;
    apply_fast_math(tr, op, value);
    tr.set_result(op, 0, value)
}

fn select_op(tr: &mut Translator, op: OpId) -> TResult {
    let value = select(
        tr,
        tr.operand(op, 0)?,
        tr.operand(op, 1)?,
        tr.operand(op, 2)?,
    )?;
    tr.set_result(op, 0, value)
}

// ---- casts ----

fn cast(tr: &mut Translator, op: OpId, opcode: InstructionOpcode) -> TResult {
    let value = tr.operand(op, 0)?;
    let to = tr.llvm_type(tr.result_type(op, 0)?)?;
    let result = tr.builder.build_cast(opcode, value, to, "")?;
    tr.set_result(op, 0, result)
}

macro_rules! cast_ops {
    ($($name:ident => $opcode:ident),* $(,)?) => {
        $(fn $name(tr: &mut Translator, op: OpId) -> TResult {
            cast(tr, op, InstructionOpcode::$opcode)
        })*
    };
}

/// `trunci`, with its `nsw`/`nuw` flags.
fn trunci(tr: &mut Translator, op: OpId) -> TResult {
    let value = tr.operand(op, 0)?;
    let to = tr.llvm_type(tr.result_type(op, 0)?)?;
    let result = tr
        .builder
        .build_cast(InstructionOpcode::Trunc, value, to, "")?;
    apply_overflow(tr, op, result);
    tr.set_result(op, 0, result)
}

/// `truncf` in the default rounding (to nearest, ties to even); other rounding modes need
/// LLVM's constrained intrinsics, which this backend does not emit.
fn truncf(tr: &mut Translator, op: OpId) -> TResult {
    match arith::RoundingMode::of(tr.ir, op) {
        None | Some(arith::RoundingMode::ToNearestEven) => {}
        Some(mode) => {
            return Err(format!(
                "rounding mode '{}' is not supported by the CPU backend",
                mode.keyword()
            )
            .into());
        }
    }
    cast(tr, op, InstructionOpcode::FPTrunc)?;
    let value = tr.value(tr.ir.op(op).results[0])?;
    apply_fast_math(tr, op, value);
    Ok(())
}

fn extf(tr: &mut Translator, op: OpId) -> TResult {
    cast(tr, op, InstructionOpcode::FPExt)?;
    let value = tr.value(tr.ir.op(op).results[0])?;
    apply_fast_math(tr, op, value);
    Ok(())
}

cast_ops! {
    extsi => SExt,
    extui => ZExt,
    sitofp => SIToFP,
    uitofp => UIToFP,
    fptosi => FPToSI,
    fptoui => FPToUI,
    bitcast => BitCast,
}

fn int_width(tr: &Translator, ty: Type) -> u32 {
    match tr.ir.type_kind(element_type(tr.ir, ty)) {
        TypeKind::Integer { width, .. } => *width,
        _ => 64,
    }
}

/// Between `index` and integers: sign-extend (or zero-extend for `index_castui`) when
/// widening, truncate when narrowing, nothing at equal widths.
fn index_cast_with(tr: &mut Translator, op: OpId, signed: bool) -> TResult {
    let from = int_width(tr, tr.operand_type(op, 0)?);
    let to = int_width(tr, tr.result_type(op, 0)?);
    let opcode = match from.cmp(&to) {
        std::cmp::Ordering::Less if signed => InstructionOpcode::SExt,
        std::cmp::Ordering::Less => InstructionOpcode::ZExt,
        std::cmp::Ordering::Greater => InstructionOpcode::Trunc,
        std::cmp::Ordering::Equal => {
            let value = tr.operand(op, 0)?;
            return tr.set_result(op, 0, value);
        }
    };
    cast(tr, op, opcode)
}

fn index_cast(tr: &mut Translator, op: OpId) -> TResult {
    index_cast_with(tr, op, true)
}

fn index_castui(tr: &mut Translator, op: OpId) -> TResult {
    index_cast_with(tr, op, false)
}

// ---- constants ----

/// An integer constant of `ty` holding the low bits of `value`.
fn int_constant<'ctx>(ty: inkwell::types::IntType<'ctx>, value: u128) -> IntValue<'ctx> {
    if ty.get_bit_width() <= 64 {
        ty.const_int(value as u64, false)
    } else {
        ty.const_int_arbitrary_precision(&[value as u64, (value >> 64) as u64])
    }
}

/// The constant of scalar type `ty` with raw bits `bits` (floats are built from their bits,
/// so every value, NaN payloads included, is exact).
pub(crate) fn scalar_constant<'ctx>(
    tr: &Translator<'_, 'ctx>,
    ty: Type,
    bits: u128,
) -> TResult<BasicValueEnum<'ctx>> {
    let llvm_type = scalar_type(tr.llvm, tr.ir, ty)?;
    match llvm_type {
        BasicTypeEnum::IntType(t) => Ok(int_constant(t, bits).into()),
        BasicTypeEnum::FloatType(t) => {
            let width = match tr.ir.type_kind(ty) {
                TypeKind::Float(kind) => kind.width(),
                _ => 32,
            };
            let int = tr
                .llvm
                .custom_width_int_type(std::num::NonZeroU32::new(width).ok_or("bad float width")?)
                .map_err(|e| e.to_string())?;
            // The builder folds a bitcast of a constant into a constant.
            Ok(tr.builder.build_bit_cast(int_constant(int, bits), t, "")?)
        }
        _ => Err("constant of an unsupported type".into()),
    }
}

fn element_bits(element: &DenseElement) -> TResult<u128> {
    match element {
        DenseElement::Int(v) => Ok(*v as u128),
        DenseElement::Float(bits) => Ok(*bits),
        _ => Err("complex constants are not supported by the CPU backend".into()),
    }
}

fn constant(tr: &mut Translator, op: OpId) -> TResult {
    let ty = tr.result_type(op, 0)?;
    let attr = tr.attr(op, "value").ok_or("has no value")?;
    let value = match tr.ir.attr_kind(attr) {
        AttrKind::Integer { value, .. } => scalar_constant(tr, ty, *value as u128)?,
        AttrKind::Float { bits, .. } => scalar_constant(tr, ty, *bits)?,
        AttrKind::DenseElements { data, .. } => {
            let Some(lanes) = vector_lanes(tr.ir, ty)? else {
                return Err(format!(
                    "dense constants of type '{}' are not supported by the CPU backend (only vectors)",
                    tb_ir::printer::type_to_string(tr.ir, ty)
                )
                .into());
            };
            let element = element_type(tr.ir, ty);
            let values = (0..lanes as usize)
                .map(|i| {
                    let e = if data.splat {
                        data.elements.first()
                    } else {
                        data.elements.get(i)
                    };
                    let bits = element_bits(e.ok_or("has too few dense elements")?)?;
                    scalar_constant(tr, element, bits)
                })
                .collect::<TResult<Vec<_>>>()?;
            const_vector(&values)?.as_basic_value_enum()
        }
        _ => {
            return Err(format!(
                "constant {} is not supported by the CPU backend",
                attr_to_string(tr.ir, attr)
            )
            .into());
        }
    };
    tr.set_result(op, 0, value)
}

/// A constant vector of scalar constants.
fn const_vector<'ctx>(
    values: &[BasicValueEnum<'ctx>],
) -> TResult<inkwell::values::VectorValue<'ctx>> {
    Ok(match values.first() {
        Some(BasicValueEnum::IntValue(_)) => {
            let v: Vec<IntValue> = values.iter().map(|v| v.into_int_value()).collect();
            inkwell::types::VectorType::const_vector(&v)
        }
        Some(BasicValueEnum::FloatValue(_)) => {
            let v: Vec<_> = values.iter().map(|v| v.into_float_value()).collect();
            inkwell::types::VectorType::const_vector(&v)
        }
        _ => return Err("vector constant of an unsupported type".into()),
    })
}
