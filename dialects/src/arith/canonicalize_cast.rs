//! Canonicalization patterns of `arith`'s casts, as MLIR 22 has them (patterns, and the
//! folds that change a cast's operand in place): chains of extensions, truncations, index
//! casts and bitcasts collapse to one cast, and a truncation of a conversion from an
//! integer converts directly.

use super::attrs::RoundingMode;
use super::rules::{add_rules, def, emit, int_or_splat, replace, ty, width};
use tb_ir::Type;
use tb_ir::rewrite::{PatternSet, Rewriter};
use tb_ir::{Context, OpId, Value};

fn result_type(ctx: &Context, op: OpId) -> Type {
    ctx.value_type(ctx.op(op).results[0])
}

fn operand(ctx: &Context, op: OpId) -> Value {
    ctx.op(op).operands[0]
}

/// `ext(ext(x))` → `ext(x)` for the same extension (an in-place fold in MLIR).
fn extension_of_same(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let name = ctx.op_name(op).to_string();
    let Some((_, inner)) = def(ctx, operand(ctx, op), &name) else {
        return false;
    };
    rewriter.set_operand(op, 0, inner[0]);
    true
}

/// `extsi(extui(x))` → `extui(x)`: the sign bit of a zero extension is zero.
fn extsi_of_extui(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let Some((_, inner)) = def(ctx, operand(ctx, op), "arith.extui") else {
        return false;
    };
    let to = result_type(ctx, op);
    let new = emit(rewriter, op, "arith.extui", vec![inner[0]], to, vec![]);
    replace(rewriter, op, new)
}

/// `trunci(ext(x))` with `x` wider than the result, and `trunci(trunci(x))`, truncate `x`
/// directly (in place, as MLIR's folder does).
fn truncation_of_cast(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let input = operand(ctx, op);
    let to_width = width(ctx, ctx.op(op).results[0]);
    for ext in ["arith.extui", "arith.extsi"] {
        if let Some((_, inner)) = def(ctx, input, ext)
            && width(ctx, inner[0]) > to_width
        {
            rewriter.set_operand(op, 0, inner[0]);
            return true;
        }
    }
    if let Some((_, inner)) = def(ctx, input, "arith.trunci") {
        rewriter.set_operand(op, 0, inner[0]);
        return true;
    }
    false
}

/// `trunci(ext(x))` → `ext(x)` when the truncation drops only extension bits (the result
/// stays wider than `x`).
fn truncation_of_extension(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let input = operand(ctx, op);
    let result = ctx.op(op).results[0];
    for ext in ["arith.extsi", "arith.extui"] {
        let Some((_, inner)) = def(ctx, input, ext) else {
            continue;
        };
        let (x, mid, out) = (width(ctx, inner[0]), width(ctx, input), width(ctx, result));
        if mid > out && out > x && x > Some(0) {
            let to = ty(ctx, result);
            let new = emit(rewriter, op, ext, vec![inner[0]], to, vec![]);
            return replace(rewriter, op, new);
        }
    }
    false
}

/// `trunci(shrsi(x, c))` → `trunci(shrui(x, c))` when the shift drops exactly the bits the
/// truncation drops, so the sign bits shifted in never survive.
fn truncation_of_signed_shift(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let input = operand(ctx, op);
    let Some((_, shift)) = def(ctx, input, "arith.shrsi") else {
        return false;
    };
    let (Some(x_width), Some(out_width), Some(amount)) = (
        width(ctx, shift[0]),
        width(ctx, ctx.op(op).results[0]),
        int_or_splat(ctx, shift[1]),
    ) else {
        return false;
    };
    if i128::from(x_width) - i128::from(out_width) != amount {
        return false;
    }
    let shifted_ty = ty(ctx, input);
    let new_shift = emit(rewriter, op, "arith.shrui", shift, shifted_ty, vec![]);
    rewriter.set_operand(op, 0, new_shift);
    true
}

/// `truncf(extf(x))` → `truncf(x)` when `x` is wider than the result and the extension's
/// format holds every value of `x` (in place, as MLIR's folder does).
fn truncf_of_extf(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let input = operand(ctx, op);
    let Some((_, inner)) = def(ctx, input, "arith.extf") else {
        return false;
    };
    let kind = |t: Type| match ctx.type_kind(tb_ir::ods::constraint::element_or_self(ctx, t)) {
        tb_ir::TypeKind::Float(k) => Some(*k),
        _ => None,
    };
    let (Some(src), Some(mid), Some(out)) = (
        kind(ty(ctx, inner[0])),
        kind(ty(ctx, input)),
        kind(result_type(ctx, op)),
    ) else {
        return false;
    };
    if !(super::float_eval::represents(mid, src) && src.width() > out.width()) {
        return false;
    }
    rewriter.set_operand(op, 0, inner[0]);
    true
}

/// `truncf(sitofp(x))` → `sitofp(x)` (and `uitofp`) without an explicit rounding mode.
fn truncf_of_int_to_float(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    if RoundingMode::of(ctx, op).is_some() {
        return false;
    }
    let input = operand(ctx, op);
    for conversion in ["arith.sitofp", "arith.uitofp"] {
        if let Some((_, inner)) = def(ctx, input, conversion) {
            let to = result_type(ctx, op);
            let new = emit(rewriter, op, conversion, inner, to, vec![]);
            return replace(rewriter, op, new);
        }
    }
    false
}

/// `index_cast(extsi(x))` → `index_cast(x)`, `index_castui(extui(x))` → `index_castui(x)`.
fn index_cast_of_extension(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let ext = if ctx.op_name(op) == "arith.index_cast" {
        "arith.extsi"
    } else {
        "arith.extui"
    };
    let Some((_, inner)) = def(ctx, operand(ctx, op), ext) else {
        return false;
    };
    rewriter.set_operand(op, 0, inner[0]);
    true
}

/// `bitcast(bitcast(x))` → `bitcast(x)`.
fn bitcast_of_bitcast(op: OpId, rewriter: &mut Rewriter) -> bool {
    let ctx = rewriter.ctx();
    let Some((_, inner)) = def(ctx, operand(ctx, op), "arith.bitcast") else {
        return false;
    };
    rewriter.set_operand(op, 0, inner[0]);
    true
}

pub(crate) fn extui(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.extui", "ExtUIOfExtUI", extension_of_same)],
    );
}

pub(crate) fn extsi(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.extsi", "ExtSIOfExtSI", extension_of_same),
            ("arith.extsi", "ExtSIOfExtUI", extsi_of_extui),
        ],
    );
}

pub(crate) fn trunci(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.trunci", "TruncIOfCast", truncation_of_cast),
            ("arith.trunci", "TruncIExtToExt", truncation_of_extension),
            (
                "arith.trunci",
                "TruncIShrSIToTrunciShrUI",
                truncation_of_signed_shift,
            ),
        ],
    );
}

pub(crate) fn truncf(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[
            ("arith.truncf", "TruncFOfExtF", truncf_of_extf),
            ("arith.truncf", "TruncFIToFPToIToFP", truncf_of_int_to_float),
        ],
    );
}

pub(crate) fn index_cast(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[(
            "arith.index_cast",
            "IndexCastOfExtSI",
            index_cast_of_extension,
        )],
    );
}

pub(crate) fn index_castui(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[(
            "arith.index_castui",
            "IndexCastUIOfExtUI",
            index_cast_of_extension,
        )],
    );
}

pub(crate) fn bitcast(patterns: &mut PatternSet) {
    add_rules(
        patterns,
        &[("arith.bitcast", "BitcastOfBitcast", bitcast_of_bitcast)],
    );
}
