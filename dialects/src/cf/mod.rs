//! The `cf` dialect: unstructured control flow between the blocks of a region, as MLIR's
//! `cf` has it — `cf.br`, `cf.cond_br`, `cf.switch` and `cf.assert`, with MLIR 22's
//! syntax, verifiers and canonicalization patterns.
//!
//! ```mlir
//! cf.cond_br %c weights([3, 5]), ^bb1(%a : i32), ^bb2
//! cf.switch %x : i32, [
//!   default: ^bb3(%a : i32),
//!   42: ^bb4
//! ]
//! cf.assert %ok, "index in range"
//! ```
//!
//! The operands a branch passes to each successor ([`successor_operands`]) bind the
//! successor's block arguments; the verifier checks their number and types.

mod asm;
mod canonicalize;
mod ops;
mod verify;

use tb_ir::attributes::{AttrKind, DenseArrayData, DenseElement};
use tb_ir::ods::OpKind;
use tb_ir::ods::constraint::{ANY_TYPE, AttrConstraint, STRING_ATTR, TypeConstraint, is_i1};
use tb_ir::ods::{OpDef, attr, operand, optional_attr, segment_sizes, variadic};
use tb_ir::registry::OpTraits;
use tb_ir::{Context, OpId, TypeKind, Value};

pub use ops::CfOp;

pub const BR: &str = "cf.br";
pub const COND_BR: &str = "cf.cond_br";
pub const SWITCH: &str = "cf.switch";
pub const ASSERT: &str = "cf.assert";

const I1: TypeConstraint = TypeConstraint {
    description: "1-bit signless integer",
    check: is_i1,
    buildable: Some(|c| c.integer_type(1, tb_ir::Signedness::Signless)),
};

const INTEGER: TypeConstraint = TypeConstraint {
    description: "integer",
    check: |c, t| matches!(c.type_kind(t), TypeKind::Integer { .. }),
    buildable: None,
};

const DENSE_I32_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    description: "i32 dense array attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::DenseArray { element, .. }
            if matches!(c.type_kind(*element), TypeKind::Integer { width: 32, .. }))
    },
};

const INT_ELEMENTS_ATTR: AttrConstraint = AttrConstraint {
    description: "integer elements attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::DenseElements { ty, .. }
            if c.type_kind(*ty).element().is_some_and(|e|
                matches!(c.type_kind(e), TypeKind::Integer { .. } | TypeKind::Index)))
    },
};

const BRANCH: OpTraits = OpTraits {
    terminator: true,
    pure: true,
    ..OpDef::EMPTY.traits
};

static BR_DEF: OpDef = OpDef {
    name: BR,
    summary: "branch to a block, passing it values",
    operands: &[variadic("destOperands", ANY_TYPE)],
    traits: BRANCH,
    custom_assembly: Some((asm::parse_br, asm::print_br)),
    verify: Some(verify::br),
    canonicalize: Some(canonicalize::br_patterns),
    ..OpDef::EMPTY
};

static COND_BR_DEF: OpDef = OpDef {
    name: COND_BR,
    summary: "branch to one of two blocks on an i1 condition",
    operands: &[
        operand("condition", I1),
        variadic("trueDestOperands", ANY_TYPE),
        variadic("falseDestOperands", ANY_TYPE),
    ],
    attributes: &[optional_attr("branch_weights", DENSE_I32_ARRAY_ATTR)],
    traits: BRANCH,
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_cond_br, asm::print_cond_br)),
    verify: Some(verify::cond_br),
    canonicalize: Some(canonicalize::cond_br_patterns),
    ..OpDef::EMPTY
};

static SWITCH_DEF: OpDef = OpDef {
    name: SWITCH,
    summary: "branch to the block of the case equal to an integer, or to a default",
    operands: &[
        operand("flag", INTEGER),
        variadic("defaultOperands", ANY_TYPE),
        variadic("caseOperands", ANY_TYPE),
    ],
    attributes: &[
        optional_attr("case_values", INT_ELEMENTS_ATTR),
        attr("case_operand_segments", DENSE_I32_ARRAY_ATTR),
        optional_attr("branch_weights", DENSE_I32_ARRAY_ATTR),
    ],
    traits: BRANCH,
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_switch, asm::print_switch)),
    verify: Some(verify::switch),
    canonicalize: Some(canonicalize::switch_patterns),
    ..OpDef::EMPTY
};

static ASSERT_DEF: OpDef = OpDef {
    name: ASSERT,
    summary: "aborts with a message when its i1 operand is false",
    operands: &[operand("arg", I1)],
    attributes: &[attr("msg", STRING_ATTR)],
    format: Some("$arg `,` $msg attr-dict"),
    canonicalize: Some(canonicalize::assert_patterns),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [&BR_DEF, &COND_BR_DEF, &SWITCH_DEF, &ASSERT_DEF] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<CfOp>()
}

// ---- queries shared by the verifier, canonicalization and the interpreter ----

/// The values `op` (a `cf` branch) passes to its successor `index`, or `None` when its
/// operand segments are malformed.
pub fn successor_operands(ctx: &Context, op: OpId, index: usize) -> Option<Vec<Value>> {
    let operands = &ctx.op(op).operands;
    let range = match CfOp::of(ctx, op)? {
        CfOp::Br => (index == 0).then_some(0..operands.len())?,
        CfOp::CondBr => {
            let sizes = segment_sizes(ctx, op)?;
            let [1, on_true, on_false] = sizes[..] else {
                return None;
            };
            match index {
                0 => 1..1 + on_true,
                1 => 1 + on_true..1 + on_true + on_false,
                _ => return None,
            }
        }
        CfOp::Switch => {
            let sizes = segment_sizes(ctx, op)?;
            let [1, default, _] = sizes[..] else {
                return None;
            };
            if index == 0 {
                1..1 + default
            } else {
                let cases = case_operand_segments(ctx, op)?;
                let start = 1 + default + cases.get(..index - 1)?.iter().sum::<usize>();
                start..start + *cases.get(index - 1)?
            }
        }
        CfOp::Assert => return None,
    };
    operands.get(range).map(<[Value]>::to_vec)
}

/// The number of operands `cf.switch` passes to each case destination.
pub fn case_operand_segments(ctx: &Context, op: OpId) -> Option<Vec<usize>> {
    dense_i32_array(ctx, ctx.op_inherent_or_attr(op, "case_operand_segments")?)
}

/// The values of `cf.switch`'s cases, in order (empty without `case_values`).
pub fn case_values(ctx: &Context, op: OpId) -> Option<Vec<i128>> {
    let Some(attr) = ctx.op_inherent_or_attr(op, "case_values") else {
        return Some(Vec::new());
    };
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(attr) else {
        return None;
    };
    let count = usize::try_from(ctx.type_kind(*ty).num_elements().ok()?).ok()?;
    let ints = data
        .elements
        .iter()
        .map(|e| match e {
            DenseElement::Int(v) => Some(*v),
            _ => None,
        })
        .collect::<Option<Vec<i128>>>()?;
    if data.splat {
        Some(vec![*ints.first()?; count])
    } else {
        Some(ints)
    }
}

/// The `branch_weights` of a conditional branch or switch, if it has them.
pub fn branch_weights(ctx: &Context, op: OpId) -> Option<Vec<usize>> {
    dense_i32_array(ctx, ctx.op_inherent_or_attr(op, "branch_weights")?)
}

fn dense_i32_array(ctx: &Context, attr: tb_ir::Attr) -> Option<Vec<usize>> {
    match ctx.attr_kind(attr) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => values.iter().map(|&v| usize::try_from(v).ok()).collect(),
        _ => None,
    }
}
