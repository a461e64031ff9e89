//! The `arith` dialect: integer and floating-point arithmetic, comparisons, selection,
//! casts and constants, with MLIR 22's names, syntax, folds and canonical forms.

mod asm;
pub mod attrs;
mod canonicalize;
mod canonicalize_cast;
mod canonicalize_float;
mod canonicalize_int;
mod canonicalize_select;
mod constant;
mod elements;
mod extended;
pub mod float_eval;
mod fold;
mod ops;
pub mod predicate;
mod rules;

use tb_ir::ods::constraint::{
    ANY_ATTR, BOOL_LIKE, FLOAT_LIKE, I64_ATTR, SIGNLESS_INTEGER_LIKE,
    SIGNLESS_INTEGER_LIKE_NO_INDEX, UNIT_ATTR,
};
use tb_ir::ods::{
    AttrConstraint, AttrSyntax, OpDef, PURE, TypeConstraint, attr, operand, optional_attr,
};
use tb_ir::registry::{DialectInfo, OpTraits};
use tb_ir::{Context, Type};

pub(crate) use constant::materialize as materialize_constant;
pub use constant::{build_constant, constant_result_name};
pub(crate) use fold::{with_element, wrap};

use attrs::OVERFLOW_FLAGS;
pub use attrs::{
    CMPF_PREDICATES, CMPI_PREDICATES, CmpFPredicate, CmpIPredicate, FASTMATH_FLAGS, FastMathFlags,
    OverflowFlags, RoundingMode,
};
pub use extended::{add_carries, mul_high};
pub use ops::{ArithOp, BinaryOp, CmpFOp, CmpIOp};

const FASTMATH_ATTR: AttrConstraint = AttrConstraint {
    description: "Floating point fast math flags",
    check: attrs::is_fastmath,
};

/// Whether `attr` is an `i64` attribute in `0..count`: one of the predicate values.
fn in_range(ctx: &Context, attr: tb_ir::Attr, count: i128) -> bool {
    (I64_ATTR.check)(ctx, attr)
        && matches!(ctx.attr_kind(attr), tb_ir::AttrKind::Integer { value, .. } if (0..count).contains(value))
}

const CMPI_PREDICATE_ATTR: AttrConstraint = AttrConstraint {
    description: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
    check: |c, a| in_range(c, a, 10),
};

const CMPF_PREDICATE_ATTR: AttrConstraint = AttrConstraint {
    description: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
    check: |c, a| in_range(c, a, 16),
};

const OVERFLOW_ATTR: AttrConstraint = AttrConstraint {
    description: "Integer overflow arith flags",
    check: attrs::is_overflow,
};

const ROUNDING_MODE_ATTR: AttrConstraint = AttrConstraint {
    description: "Floating point rounding mode",
    check: attrs::is_rounding_mode,
};

/// `fastmath` where MLIR declares it optional rather than defaulted (`extf`, `truncf`):
/// present means written, `fastmath<none>` included.
const OPTIONAL_FASTMATH: tb_ir::ods::AttrDef =
    optional_attr("fastmath", FASTMATH_ATTR).with_syntax(AttrSyntax::BitEnum(&FASTMATH_FLAGS));

const EXACT: &[tb_ir::ods::AttrDef] = &[optional_attr("isExact", UNIT_ATTR)];

const OVERFLOW: &[tb_ir::ods::AttrDef] = &[optional_attr("overflowFlags", OVERFLOW_ATTR)
    .with_default("#arith.overflow<none>")
    .with_syntax(AttrSyntax::BitEnum(&OVERFLOW_FLAGS))];

/// The `fastmath` property of floating-point ops, `none` by default.
pub const FASTMATH: &[tb_ir::ods::AttrDef] = &[optional_attr("fastmath", FASTMATH_ATTR)
    .with_default("#arith.fastmath<none>")
    .with_syntax(AttrSyntax::BitEnum(&FASTMATH_FLAGS))];

const INT_BINARY: &[tb_ir::ods::ArgDef] = &[
    operand("lhs", SIGNLESS_INTEGER_LIKE),
    operand("rhs", SIGNLESS_INTEGER_LIKE),
];
const INT_RESULT: &[tb_ir::ods::ArgDef] = &[operand("result", SIGNLESS_INTEGER_LIKE)];
const FLOAT_BINARY: &[tb_ir::ods::ArgDef] =
    &[operand("lhs", FLOAT_LIKE), operand("rhs", FLOAT_LIKE)];
const FLOAT_RESULT: &[tb_ir::ods::ArgDef] = &[operand("result", FLOAT_LIKE)];

const COMMUTATIVE: OpTraits = OpTraits {
    commutative: true,
    ..PURE
};

const INT_FORMAT_OVERFLOW: &str =
    "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)";
const INT_FORMAT: &str = "$lhs `,` $rhs attr-dict `:` type($result)";
const FLOAT_FORMAT: &str = "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)";
const CAST_FORMAT: &str = "$in attr-dict `:` type($in) `to` type($out)";

/// A binary integer op `arith.<name>`.
const fn int_binary(
    name: &'static str,
    traits: OpTraits,
    overflow: bool,
    fold: tb_ir::registry::FoldFn,
) -> OpDef {
    int_binary_with(name, traits, overflow, fold, None)
}

const fn int_binary_with(
    name: &'static str,
    traits: OpTraits,
    overflow: bool,
    fold: tb_ir::registry::FoldFn,
    canonicalize: Option<tb_ir::registry::CanonicalizeFn>,
) -> OpDef {
    OpDef {
        name,
        operands: INT_BINARY,
        results: INT_RESULT,
        attributes: if overflow { OVERFLOW } else { &[] },
        traits,
        same_operands_and_result_type: true,
        format: Some(if overflow {
            INT_FORMAT_OVERFLOW
        } else {
            INT_FORMAT
        }),
        fold: Some(fold),
        canonicalize,
        ..OpDef::EMPTY
    }
}

const MUL_EXTENDED_RESULTS: &[tb_ir::ods::ArgDef] = &[
    operand("low", SIGNLESS_INTEGER_LIKE),
    operand("high", SIGNLESS_INTEGER_LIKE),
];

/// `arith.mulsi_extended`/`arith.mului_extended`: the low and high halves of the
/// double-width product, both of the operands' type.
const fn mul_extended(
    name: &'static str,
    fold: tb_ir::registry::FoldFn,
    canonicalize: tb_ir::registry::CanonicalizeFn,
) -> OpDef {
    OpDef {
        name,
        summary: "multiplication returning the low and high halves of the wide product",
        operands: INT_BINARY,
        results: MUL_EXTENDED_RESULTS,
        traits: COMMUTATIVE,
        all_types_match: &[&["lhs", "rhs", "low", "high"]],
        format: Some("$lhs `,` $rhs attr-dict `:` type($lhs)"),
        fold: Some(fold),
        canonicalize: Some(canonicalize),
        result_names: Some(extended::low_high_names),
        ..OpDef::EMPTY
    }
}

/// A binary integer op with MLIR's `exact` flag (`divsi`, `divui`, `shrsi`, `shrui`).
const fn exact_binary(name: &'static str, fold: tb_ir::registry::FoldFn) -> OpDef {
    OpDef {
        attributes: EXACT,
        format: None,
        custom_assembly: Some((asm::parse_exact_binary, asm::print_exact_binary)),
        ..int_binary(name, PURE, false, fold)
    }
}

const fn float_binary(
    name: &'static str,
    traits: OpTraits,
    fold: tb_ir::registry::FoldFn,
) -> OpDef {
    OpDef {
        name,
        operands: FLOAT_BINARY,
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits,
        same_operands_and_result_type: true,
        format: Some(FLOAT_FORMAT),
        fold: Some(fold),
        ..OpDef::EMPTY
    }
}

/// A cast `arith.<name>` from `$from`-constrained to `$to`-constrained types.
macro_rules! cast {
    ($name:literal, $from:expr, $to:expr) => {
        cast!($name, $from, $to, &[], CAST_FORMAT)
    };
    ($name:literal, $from:expr, $to:expr, $attributes:expr, $format:expr) => {
        OpDef {
            name: $name,
            operands: &[operand("in", $from)],
            results: &[operand("out", $to)],
            attributes: $attributes,
            traits: PURE,
            format: Some($format),
            verify: Some(fold::verify_cast),
            fold: Some(fold::fold_cast),
            ..OpDef::EMPTY
        }
    };
}

static DEFS: &[OpDef] = &[
    OpDef {
        name: "arith.constant",
        summary: "a constant integer, float, index or dense value",
        results: &[operand("result", tb_ir::ods::constraint::ANY_TYPE)],
        attributes: &[attr("value", ANY_ATTR)],
        traits: OpTraits {
            constant_like: true,
            ..PURE
        },
        format: Some("attr-dict $value"),
        verify: Some(constant::verify),
        infer_types: Some(constant::infer),
        result_names: Some(constant::result_names),
        ..OpDef::EMPTY
    },
    int_binary_with(
        "arith.addi",
        COMMUTATIVE,
        true,
        fold::addi,
        Some(canonicalize_int::addi),
    ),
    OpDef {
        name: "arith.addui_extended",
        summary: "unsigned addition returning the sum and the carry out",
        operands: INT_BINARY,
        results: &[
            operand("sum", SIGNLESS_INTEGER_LIKE),
            operand("overflow", BOOL_LIKE),
        ],
        traits: COMMUTATIVE,
        all_types_match: &[&["lhs", "rhs", "sum"]],
        format: Some("$lhs `,` $rhs attr-dict `:` type($sum) `,` type($overflow)"),
        verify: Some(extended::verify_addui_extended),
        fold: Some(extended::addui_extended),
        canonicalize: Some(canonicalize::addui_extended),
        result_names: Some(extended::sum_overflow_names),
        ..OpDef::EMPTY
    },
    int_binary_with(
        "arith.subi",
        PURE,
        true,
        fold::subi,
        Some(canonicalize_int::subi),
    ),
    int_binary_with(
        "arith.muli",
        COMMUTATIVE,
        true,
        fold::muli,
        Some(canonicalize_int::muli),
    ),
    mul_extended(
        "arith.mulsi_extended",
        extended::mulsi_extended,
        canonicalize::mulsi_extended,
    ),
    mul_extended(
        "arith.mului_extended",
        extended::mului_extended,
        canonicalize::mului_extended,
    ),
    exact_binary("arith.divsi", fold::divsi),
    exact_binary("arith.divui", fold::divui),
    int_binary("arith.ceildivsi", PURE, false, fold::ceildivsi),
    int_binary("arith.ceildivui", PURE, false, fold::ceildivui),
    int_binary("arith.floordivsi", PURE, false, fold::floordivsi),
    int_binary("arith.remsi", PURE, false, fold::remsi),
    int_binary("arith.remui", PURE, false, fold::remui),
    int_binary_with(
        "arith.andi",
        COMMUTATIVE,
        false,
        fold::andi,
        Some(canonicalize_int::andi),
    ),
    int_binary_with(
        "arith.ori",
        COMMUTATIVE,
        false,
        fold::ori,
        Some(canonicalize_int::ori),
    ),
    int_binary_with(
        "arith.xori",
        COMMUTATIVE,
        false,
        fold::xori,
        Some(canonicalize_int::xori),
    ),
    int_binary("arith.maxsi", COMMUTATIVE, false, fold::maxsi),
    int_binary("arith.maxui", COMMUTATIVE, false, fold::maxui),
    int_binary("arith.minsi", COMMUTATIVE, false, fold::minsi),
    int_binary("arith.minui", COMMUTATIVE, false, fold::minui),
    int_binary("arith.shli", PURE, true, fold::shli),
    exact_binary("arith.shrsi", fold::shrsi),
    exact_binary("arith.shrui", fold::shrui),
    float_binary("arith.addf", COMMUTATIVE, fold::addf),
    float_binary("arith.subf", PURE, fold::subf),
    OpDef {
        canonicalize: Some(canonicalize_float::mulf),
        ..float_binary("arith.mulf", COMMUTATIVE, fold::mulf)
    },
    OpDef {
        canonicalize: Some(canonicalize_float::divf),
        ..float_binary("arith.divf", PURE, fold::divf)
    },
    float_binary("arith.remf", PURE, fold::remf),
    float_binary("arith.maximumf", COMMUTATIVE, fold::maximumf),
    float_binary("arith.minimumf", COMMUTATIVE, fold::minimumf),
    float_binary("arith.maxnumf", COMMUTATIVE, fold::maxnumf),
    float_binary("arith.minnumf", COMMUTATIVE, fold::minnumf),
    OpDef {
        name: "arith.negf",
        operands: &[operand("operand", FLOAT_LIKE)],
        results: FLOAT_RESULT,
        attributes: FASTMATH,
        traits: PURE,
        same_operands_and_result_type: true,
        format: Some("$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
        fold: Some(fold::negf),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "arith.cmpi",
        operands: &[
            operand("lhs", SIGNLESS_INTEGER_LIKE),
            operand("rhs", SIGNLESS_INTEGER_LIKE),
        ],
        results: &[operand("result", BOOL_LIKE)],
        attributes: &[
            attr("predicate", CMPI_PREDICATE_ATTR).with_syntax(AttrSyntax::Enum(CMPI_PREDICATES))
        ],
        traits: PURE,
        same_type_operands: true,
        format: Some("$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)"),
        verify: Some(fold::verify_cmp),
        fold: Some(fold::cmpi),
        canonicalize: Some(canonicalize_int::cmpi),
        infer_types: Some(infer_cmpi),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "arith.cmpf",
        operands: &[operand("lhs", FLOAT_LIKE), operand("rhs", FLOAT_LIKE)],
        results: &[operand("result", BOOL_LIKE)],
        attributes: &[
            attr("predicate", CMPF_PREDICATE_ATTR).with_syntax(AttrSyntax::Enum(CMPF_PREDICATES)),
            FASTMATH[0],
        ],
        traits: PURE,
        same_type_operands: true,
        format: Some(
            "$predicate `,` $lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs)",
        ),
        verify: Some(fold::verify_cmp),
        fold: Some(fold::cmpf),
        canonicalize: Some(canonicalize_float::cmpf),
        infer_types: Some(infer_cmpf),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "arith.select",
        operands: &[
            operand("condition", BOOL_LIKE),
            operand("true_value", tb_ir::ods::constraint::ANY_TYPE),
            operand("false_value", tb_ir::ods::constraint::ANY_TYPE),
        ],
        results: &[operand("result", tb_ir::ods::constraint::ANY_TYPE)],
        traits: PURE,
        all_types_match: &[&["true_value", "false_value", "result"]],
        custom_assembly: Some((asm::parse_select, asm::print_select)),
        verify: Some(fold::verify_select),
        fold: Some(fold::select),
        canonicalize: Some(canonicalize_select::select),
        ..OpDef::EMPTY
    },
    OpDef {
        canonicalize: Some(canonicalize_cast::extsi),
        ..cast!(
            "arith.extsi",
            SIGNLESS_INTEGER_LIKE_NO_INDEX,
            SIGNLESS_INTEGER_LIKE_NO_INDEX
        )
    },
    OpDef {
        canonicalize: Some(canonicalize_cast::extui),
        ..cast!(
            "arith.extui",
            SIGNLESS_INTEGER_LIKE_NO_INDEX,
            SIGNLESS_INTEGER_LIKE_NO_INDEX
        )
    },
    OpDef {
        canonicalize: Some(canonicalize_cast::trunci),
        ..cast!(
            "arith.trunci",
            SIGNLESS_INTEGER_LIKE_NO_INDEX,
            SIGNLESS_INTEGER_LIKE_NO_INDEX,
            OVERFLOW,
            "$in (`overflow` `` $overflowFlags^)? attr-dict `:` type($in) `to` type($out)"
        )
    },
    cast!(
        "arith.extf",
        FLOAT_LIKE,
        FLOAT_LIKE,
        &[OPTIONAL_FASTMATH],
        "$in (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)"
    ),
    OpDef {
        attributes: &[
            optional_attr("roundingmode", ROUNDING_MODE_ATTR),
            OPTIONAL_FASTMATH,
        ],
        format: None,
        custom_assembly: Some((asm::parse_truncf, asm::print_truncf)),
        canonicalize: Some(canonicalize_cast::truncf),
        ..cast!("arith.truncf", FLOAT_LIKE, FLOAT_LIKE)
    },
    OpDef {
        name: "arith.scaling_extf",
        summary: "extension of floats multiplied by scales (OCP MX formats)",
        operands: &[operand("in", FLOAT_LIKE), operand("scale", FLOAT_LIKE)],
        results: &[operand("out", FLOAT_LIKE)],
        attributes: &[OPTIONAL_FASTMATH],
        traits: PURE,
        format: Some(
            "$in `,` $scale (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `,` type($scale) `to` type($out)",
        ),
        verify: Some(fold::verify_scaling_cast),
        ..OpDef::EMPTY
    },
    OpDef {
        name: "arith.scaling_truncf",
        summary: "truncation of floats divided by scales (OCP MX formats)",
        operands: &[operand("in", FLOAT_LIKE), operand("scale", FLOAT_LIKE)],
        results: &[operand("out", FLOAT_LIKE)],
        attributes: &[
            optional_attr("roundingmode", ROUNDING_MODE_ATTR),
            OPTIONAL_FASTMATH,
        ],
        traits: PURE,
        custom_assembly: Some((asm::parse_scaling_truncf, asm::print_truncf)),
        verify: Some(fold::verify_scaling_cast),
        ..OpDef::EMPTY
    },
    cast!("arith.sitofp", SIGNLESS_INTEGER_LIKE_NO_INDEX, FLOAT_LIKE),
    cast!("arith.uitofp", SIGNLESS_INTEGER_LIKE_NO_INDEX, FLOAT_LIKE),
    cast!("arith.fptosi", FLOAT_LIKE, SIGNLESS_INTEGER_LIKE_NO_INDEX),
    cast!("arith.fptoui", FLOAT_LIKE, SIGNLESS_INTEGER_LIKE_NO_INDEX),
    OpDef {
        canonicalize: Some(canonicalize_cast::index_cast),
        ..cast!("arith.index_cast", INDEX_CAST_TYPE, INDEX_CAST_TYPE)
    },
    OpDef {
        canonicalize: Some(canonicalize_cast::index_castui),
        ..cast!("arith.index_castui", INDEX_CAST_TYPE, INDEX_CAST_TYPE)
    },
    OpDef {
        canonicalize: Some(canonicalize_cast::bitcast),
        ..cast!("arith.bitcast", BITCAST_TYPE, BITCAST_TYPE)
    },
];

/// `index_cast` converts integer-like values and memrefs of integers, as in MLIR.
const INDEX_CAST_TYPE: TypeConstraint = TypeConstraint {
    description: "signless-integer-like or memref of signless-integer",
    check: |c, t| match c.type_kind(t) {
        tb_ir::TypeKind::MemRef { element, .. } => {
            tb_ir::ods::constraint::is_signless_integer(c, *element)
                || matches!(c.type_kind(*element), tb_ir::TypeKind::Index)
        }
        _ => (SIGNLESS_INTEGER_LIKE.check)(c, t),
    },
    buildable: None,
};

/// `arith.bitcast` reinterprets bits of a fixed width, so `index` is excluded; memrefs of
/// integers or floats are allowed, as in MLIR.
const BITCAST_TYPE: TypeConstraint = TypeConstraint {
    description: "signless-integer-or-float-like or memref of signless-integer or float",
    check: |c, t| {
        let scalar = |c: &Context, t: Type| {
            tb_ir::ods::constraint::is_signless_integer(c, t)
                || tb_ir::ods::constraint::is_float(c, t)
        };
        match c.type_kind(t) {
            tb_ir::TypeKind::MemRef { element, .. } => scalar(c, *element),
            _ => scalar(c, tb_ir::ods::constraint::element_or_self(c, t)),
        }
    },
    buildable: None,
};

/// `cmpi`'s result type, once its operand type is checked (MLIR's parser checks it
/// before deriving the result type from it).
fn infer_cmpi(ctx: &mut Context, input: &tb_ir::registry::InferInput) -> Result<Vec<Type>, String> {
    infer_i1_like(ctx, input, SIGNLESS_INTEGER_LIKE)
}

fn infer_cmpf(ctx: &mut Context, input: &tb_ir::registry::InferInput) -> Result<Vec<Type>, String> {
    infer_i1_like(ctx, input, FLOAT_LIKE)
}

/// `i1`, or a vector/tensor of `i1` shaped like the operand, which `operand` admits.
fn infer_i1_like(
    ctx: &mut Context,
    input: &tb_ir::registry::InferInput,
    operand_constraint: TypeConstraint,
) -> Result<Vec<Type>, String> {
    let operand = *input
        .operand_types
        .first()
        .ok_or("comparison needs operands")?;
    if !(operand_constraint.check)(ctx, operand) {
        return Err(format!(
            "'lhs' must be {}, but got '{}'",
            operand_constraint.description,
            tb_ir::printer::type_to_string(ctx, operand)
        ));
    }
    let i1 = ctx.i1();
    Ok(vec![fold::with_element(ctx, operand, i1)])
}

pub fn register(ctx: &mut Context) -> Result<(), String> {
    ctx.register_dialect_info(DialectInfo {
        namespace: "arith",
        materialize_constant: Some(constant::materialize),
        print_attr: None,
    });
    attrs::register(ctx);
    for def in DEFS {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<ArithOp>()
}
