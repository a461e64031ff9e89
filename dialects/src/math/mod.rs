//! The `math` dialect: elementwise mathematical functions on float and integer scalars,
//! vectors and tensors, with MLIR 22's names, syntax and constant folds. Every op is
//! pure; float ops carry a `fastmath` property like `arith`'s.

mod fold;
mod libm;
mod ops;
mod verify;

use tb_ir::ods::constraint::{BOOL_LIKE, FLOAT_LIKE, SIGNLESS_INTEGER_LIKE};
use tb_ir::ods::{ArgDef, OpDef, PURE, operand};
use tb_ir::registry::{DialectInfo, FoldFn, InferInput};
use tb_ir::{Context, Type};

use crate::arith::FASTMATH;
pub use ops::MathOp;

const FLOAT_UNARY: &[ArgDef] = &[operand("operand", FLOAT_LIKE)];
const FLOAT_BINARY: &[ArgDef] = &[operand("lhs", FLOAT_LIKE), operand("rhs", FLOAT_LIKE)];
const FLOAT_TERNARY: &[ArgDef] = &[
    operand("a", FLOAT_LIKE),
    operand("b", FLOAT_LIKE),
    operand("c", FLOAT_LIKE),
];
const FLOAT_RESULT: &[ArgDef] = &[operand("result", FLOAT_LIKE)];
const INT_UNARY: &[ArgDef] = &[operand("operand", SIGNLESS_INTEGER_LIKE)];
const INT_RESULT: &[ArgDef] = &[operand("result", SIGNLESS_INTEGER_LIKE)];
const BOOL_RESULT: &[ArgDef] = &[operand("result", BOOL_LIKE)];

/// `math.<name> %x fastmath<...> : T` on floats.
const fn float_unary(name: &'static str, fold: Option<FoldFn>) -> OpDef {
    OpDef {
        name,
        operands: FLOAT_UNARY,
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
        fold,
        ..OpDef::EMPTY
    }
}

/// `math.<name> %x, %y fastmath<...> : T` on floats.
const fn float_binary(name: &'static str, fold: FoldFn) -> OpDef {
    OpDef {
        name,
        operands: FLOAT_BINARY,
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
        fold: Some(fold),
        ..OpDef::EMPTY
    }
}

/// `math.<name> %x : T` on integers.
const fn int_unary(name: &'static str, fold: FoldFn) -> OpDef {
    OpDef {
        name,
        operands: INT_UNARY,
        results: INT_RESULT,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$operand attr-dict `:` type($result)"),
        fold: Some(fold),
        ..OpDef::EMPTY
    }
}

/// `math.is<class> %x : T`, an `i1` (or `i1` vector or tensor) per element.
const fn classification(name: &'static str, fold: FoldFn) -> OpDef {
    OpDef {
        name,
        operands: FLOAT_UNARY,
        results: BOOL_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        format: Some("$operand attr-dict `:` type($operand)"),
        verify: Some(verify::classification),
        fold: Some(fold),
        infer_types: Some(infer_i1_like),
        ..OpDef::EMPTY
    }
}

static DEFS: &[OpDef] = &[
    float_unary("math.absf", Some(fold::absf)),
    float_unary("math.acos", Some(fold::acos)),
    float_unary("math.acosh", Some(fold::acosh)),
    float_unary("math.asin", Some(fold::asin)),
    float_unary("math.asinh", Some(fold::asinh)),
    float_unary("math.atan", Some(fold::atan)),
    float_unary("math.atanh", Some(fold::atanh)),
    float_unary("math.cbrt", None),
    float_unary("math.ceil", Some(fold::ceil)),
    float_unary("math.cos", Some(fold::cos)),
    float_unary("math.cosh", Some(fold::cosh)),
    float_unary("math.erf", Some(fold::erf)),
    float_unary("math.erfc", Some(fold::erfc)),
    float_unary("math.exp", Some(fold::exp)),
    float_unary("math.exp2", Some(fold::exp2)),
    float_unary("math.expm1", Some(fold::expm1)),
    float_unary("math.floor", Some(fold::floor)),
    float_unary("math.log", Some(fold::log)),
    float_unary("math.log10", Some(fold::log10)),
    float_unary("math.log1p", Some(fold::log1p)),
    float_unary("math.log2", Some(fold::log2)),
    float_unary("math.round", Some(fold::round)),
    float_unary("math.roundeven", Some(fold::roundeven)),
    float_unary("math.rsqrt", None),
    float_unary("math.sin", Some(fold::sin)),
    float_unary("math.sinh", Some(fold::sinh)),
    float_unary("math.sqrt", Some(fold::sqrt)),
    float_unary("math.tan", Some(fold::tan)),
    float_unary("math.tanh", Some(fold::tanh)),
    float_unary("math.trunc", Some(fold::trunc)),
    float_binary("math.atan2", fold::atan2),
    float_binary("math.copysign", fold::copysign),
    float_binary("math.powf", fold::powf),
    OpDef {
        name: "math.fma",
        operands: FLOAT_TERNARY,
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$a `,` $b `,` $c (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "math.clampf",
        summary: "clamps a value to [min, max]",
        operands: &[
            operand("value", FLOAT_LIKE),
            operand("min", FLOAT_LIKE),
            operand("max", FLOAT_LIKE),
        ],
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some(
            "$value `to` ` ` `[` $min `,` $max `]` (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
        ),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "math.fpowi",
        summary: "a float raised to a signed integer power",
        operands: &[
            operand("lhs", FLOAT_LIKE),
            operand("rhs", SIGNLESS_INTEGER_LIKE),
        ],
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        all_types_match: &[&["lhs", "result"]],
        format: Some(
            "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs) `,` type($rhs)",
        ),
        verify: Some(verify::same_shape),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "math.sincos",
        summary: "the sine and cosine of a value",
        operands: FLOAT_UNARY,
        results: &[operand("sin", FLOAT_LIKE), operand("cos", FLOAT_LIKE)],
        attributes: FASTMATH,
        traits: PURE,
        all_types_match: &[&["operand", "sin", "cos"]],
        format: Some("$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($operand)"),
        result_names: Some(|_, _| vec![Some("sin".into()), Some("cos".into())]),
        ..OpDef::EMPTY
    },
    int_unary("math.absi", fold::absi),
    int_unary("math.ctlz", fold::ctlz),
    int_unary("math.cttz", fold::cttz),
    int_unary("math.ctpop", fold::ctpop),
    OpDef {
        name: "math.ipowi",
        operands: &[
            operand("lhs", SIGNLESS_INTEGER_LIKE),
            operand("rhs", SIGNLESS_INTEGER_LIKE),
        ],
        results: INT_RESULT,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$lhs `,` $rhs attr-dict `:` type($result)"),
        fold: Some(fold::ipowi),
        ..OpDef::EMPTY
    },
    classification("math.isfinite", fold::isfinite),
    classification("math.isinf", fold::isinf),
    classification("math.isnan", fold::isnan),
    classification("math.isnormal", fold::isnormal),
];

/// `i1` shaped like the operand.
fn infer_i1_like(ctx: &mut Context, input: &InferInput) -> Result<Vec<Type>, String> {
    let operand = *input
        .operand_types
        .first()
        .ok_or("classification needs an operand")?;
    let i1 = ctx.i1();
    Ok(vec![crate::arith::with_element(ctx, operand, i1)])
}

pub fn register(ctx: &mut Context) -> Result<(), String> {
    // Folded constants are `arith.constant`s, as MLIR's math dialect builds them.
    ctx.register_dialect_info(DialectInfo {
        namespace: "math",
        materialize_constant: Some(crate::arith::materialize_constant),
        print_attr: None,
    });
    for def in DEFS {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<MathOp>()
}
