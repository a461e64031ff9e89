//! The `scf` dialect: structured control flow as MLIR 22 has it — loops with loop-carried
//! values (`scf.for`, `scf.while`, `scf.parallel` with `scf.reduce`), conditionals
//! (`scf.if`, `scf.index_switch`) and `scf.execute_region`, with MLIR's custom syntax,
//! verifiers and canonicalization patterns.
//!
//! ```mlir
//! %sum = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %zero) -> (f32) {
//!   %x = memref.load %a[%i] : memref<?xf32>
//!   %next = arith.addf %acc, %x : f32
//!   scf.yield %next : f32
//! }
//! %r = scf.if %c -> (i32) {
//!   scf.yield %a : i32
//! } else {
//!   scf.yield %b : i32
//! }
//! ```
//!
//! Bodies that yield nothing may leave their `scf.yield` implicit (it is added on parsing
//! and elided on printing), as in MLIR. The queries below ([`for_bounds`],
//! [`yield_of`], ...) are shared by the verifiers, the patterns, the interpreter and the
//! conversions.

mod asm;
mod canonicalize;
mod canonicalize_if;
mod canonicalize_parallel;
mod ops;
mod successor_values;
mod verify;

pub use ops::ScfOp;

use tb_ir::ods::constraint::{ANY_TYPE, DENSE_I64_ARRAY_ATTR, INDEX, UNIT_ATTR, is_i1};
use tb_ir::ods::constraint::{TypeConstraint, is_index, is_signless_integer};
use tb_ir::ods::{
    OpDef, PURE, attr, operand, operand_group, optional_attr, region, single_block_region,
    variadic, variadic_single_block_regions,
};
use tb_ir::registry::OpTraits;
use tb_ir::{BlockId, Context, OpId, RegionId, Value};

pub const FOR: &str = "scf.for";
pub const IF: &str = "scf.if";
pub const YIELD: &str = "scf.yield";
pub const WHILE: &str = "scf.while";
pub const CONDITION: &str = "scf.condition";
pub const EXECUTE_REGION: &str = "scf.execute_region";
pub const INDEX_SWITCH: &str = "scf.index_switch";
pub const PARALLEL: &str = "scf.parallel";
pub const REDUCE: &str = "scf.reduce";
pub const REDUCE_RETURN: &str = "scf.reduce.return";

const SIGNLESS_INTEGER_OR_INDEX: TypeConstraint = TypeConstraint {
    description: "signless integer or index",
    check: |c, t| is_signless_integer(c, t) || is_index(c, t),
    buildable: None,
};

const I1: TypeConstraint = TypeConstraint {
    description: "1-bit signless integer",
    check: is_i1,
    buildable: Some(|c| c.integer_type(1, tb_ir::Signedness::Signless)),
};

/// A terminator of an scf region: pure, ends its block.
const REGION_TERMINATOR: OpTraits = OpTraits {
    terminator: true,
    ..PURE
};

static FOR_DEF: OpDef = OpDef {
    name: FOR,
    summary: "a loop from a lower to an upper bound by a positive step, carrying values \
              from one iteration to the next",
    operands: &[
        operand("lowerBound", SIGNLESS_INTEGER_OR_INDEX),
        operand("upperBound", SIGNLESS_INTEGER_OR_INDEX),
        operand("step", SIGNLESS_INTEGER_OR_INDEX),
        variadic("initArgs", ANY_TYPE),
    ],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[optional_attr("unsignedCmp", UNIT_ATTR)],
    regions: &[single_block_region("region")],
    traits: OpTraits {
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    all_types_match: &[&["lowerBound", "upperBound", "step"]],
    custom_assembly: Some((asm::parse_for, asm::print_for)),
    verify: Some(verify::for_op),
    canonicalize: Some(canonicalize::for_patterns),
    ..OpDef::EMPTY
};

static IF_DEF: OpDef = OpDef {
    name: IF,
    summary: "runs its then region or its (optional) else region on an i1 condition",
    operands: &[operand("condition", I1)],
    results: &[variadic("results", ANY_TYPE)],
    regions: &[
        single_block_region("thenRegion"),
        single_block_region("elseRegion"),
    ],
    traits: OpTraits {
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((asm::parse_if, asm::print_if)),
    verify: Some(verify::if_op),
    canonicalize: Some(canonicalize::if_patterns),
    ..OpDef::EMPTY
};

static YIELD_DEF: OpDef = OpDef {
    name: YIELD,
    summary: "ends an scf region, giving the values of its parent (implicit when it gives none)",
    operands: &[variadic("results", ANY_TYPE)],
    traits: REGION_TERMINATOR,
    format: Some("attr-dict ($results^ `:` type($results))?"),
    verify: Some(verify::yield_op),
    ..OpDef::EMPTY
};

static WHILE_DEF: OpDef = OpDef {
    name: WHILE,
    summary: "a loop whose 'before' region computes the condition and the values passed on, \
              and whose 'after' region computes the next iteration's values",
    operands: &[variadic("inits", ANY_TYPE)],
    results: &[variadic("results", ANY_TYPE)],
    regions: &[region("before"), region("after")],
    custom_assembly: Some((asm::parse_while, asm::print_while)),
    verify: Some(verify::while_op),
    canonicalize: Some(canonicalize::while_patterns),
    ..OpDef::EMPTY
};

static CONDITION_DEF: OpDef = OpDef {
    name: CONDITION,
    summary: "ends the 'before' region of scf.while: continue with its values, or stop",
    operands: &[operand("condition", I1), variadic("args", ANY_TYPE)],
    traits: REGION_TERMINATOR,
    format: Some("`(` $condition `)` attr-dict ($args^ `:` type($args))?"),
    verify: Some(verify::condition),
    ..OpDef::EMPTY
};

static EXECUTE_REGION_DEF: OpDef = OpDef {
    name: EXECUTE_REGION,
    summary: "runs its region once: a scope whose blocks may branch among themselves",
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[optional_attr("no_inline", UNIT_ATTR)],
    regions: &[region("region")],
    custom_assembly: Some((asm::parse_execute_region, asm::print_execute_region)),
    verify: Some(verify::execute_region),
    canonicalize: Some(canonicalize::execute_region_patterns),
    ..OpDef::EMPTY
};

static INDEX_SWITCH_DEF: OpDef = OpDef {
    name: INDEX_SWITCH,
    summary: "runs the region of the case equal to an index, or the default region",
    operands: &[operand("arg", INDEX)],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[attr("cases", DENSE_I64_ARRAY_ATTR)],
    regions: &[
        single_block_region("defaultRegion"),
        variadic_single_block_regions("caseRegions"),
    ],
    traits: OpTraits {
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((asm::parse_index_switch, asm::print_index_switch)),
    verify: Some(verify::index_switch),
    canonicalize: Some(canonicalize::index_switch_patterns),
    ..OpDef::EMPTY
};

static PARALLEL_DEF: OpDef = OpDef {
    name: PARALLEL,
    summary: "a multi-dimensional loop whose iterations are independent, combining values \
              with scf.reduce",
    operands: &[
        variadic("lowerBound", INDEX),
        variadic("upperBound", INDEX),
        variadic("step", INDEX),
        variadic("initVals", ANY_TYPE),
    ],
    results: &[variadic("results", ANY_TYPE)],
    regions: &[single_block_region("region")],
    traits: OpTraits {
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_parallel, asm::print_parallel)),
    verify: Some(verify::parallel),
    canonicalize: Some(canonicalize::parallel_patterns),
    ..OpDef::EMPTY
};

static REDUCE_DEF: OpDef = OpDef {
    name: REDUCE,
    summary: "ends an scf.parallel body: each operand is combined by its reduction region",
    operands: &[variadic("operands", ANY_TYPE)],
    regions: &[variadic_single_block_regions("reductions")],
    traits: OpTraits {
        terminator: true,
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    custom_assembly: Some((asm::parse_reduce, asm::print_reduce)),
    verify: Some(verify::reduce),
    ..OpDef::EMPTY
};

static REDUCE_RETURN_DEF: OpDef = OpDef {
    name: REDUCE_RETURN,
    summary: "ends a reduction region of scf.reduce with the combined value",
    operands: &[operand("result", ANY_TYPE)],
    traits: REGION_TERMINATOR,
    format: Some("$result attr-dict `:` type($result)"),
    verify: Some(verify::reduce_return),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [
        &FOR_DEF,
        &IF_DEF,
        &YIELD_DEF,
        &WHILE_DEF,
        &CONDITION_DEF,
        &EXECUTE_REGION_DEF,
        &INDEX_SWITCH_DEF,
        &PARALLEL_DEF,
        &REDUCE_DEF,
        &REDUCE_RETURN_DEF,
    ] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<ScfOp>()
}

// ---- queries shared by the verifiers, the patterns, the interpreter and conversions ----

/// The entry block of `region`, if it has one.
pub fn entry(ctx: &Context, region: RegionId) -> Option<BlockId> {
    ctx.entry_block(region)
}

/// The terminator of the single block of `region` when it is an `scf.yield`.
pub fn yield_of(ctx: &Context, region: RegionId) -> Option<OpId> {
    let block = entry(ctx, region)?;
    ctx.block(block).last.filter(|&t| ctx.op_name(t) == YIELD)
}

/// The values the `scf.yield` ending `region` gives (empty without one).
pub fn yielded(ctx: &Context, region: RegionId) -> Vec<Value> {
    yield_of(ctx, region)
        .map(|t| ctx.op(t).operands.to_vec())
        .unwrap_or_default()
}

/// `scf.for`'s lower bound, upper bound and step.
pub fn for_bounds(ctx: &Context, op: OpId) -> Option<(Value, Value, Value)> {
    match ctx.op(op).operands[..] {
        [lb, ub, step, ..] => Some((lb, ub, step)),
        _ => None,
    }
}

/// The initial values of `scf.for`'s loop-carried values.
pub fn for_inits(ctx: &Context, op: OpId) -> &[Value] {
    ctx.op(op).operands.get(3..).unwrap_or(&[])
}

/// `scf.for`'s induction variable (the first body argument).
pub fn for_induction_var(ctx: &Context, op: OpId) -> Option<Value> {
    let block = entry(ctx, *ctx.op(op).regions.first()?)?;
    ctx.block(block).args.first().copied()
}

/// The body arguments that hold `scf.for`'s loop-carried values.
pub fn for_iter_args(ctx: &Context, op: OpId) -> Vec<Value> {
    let Some(block) = ctx.op(op).regions.first().and_then(|&r| entry(ctx, r)) else {
        return Vec::new();
    };
    ctx.block(block).args.iter().skip(1).copied().collect()
}

/// Whether `scf.for` compares its induction variable unsigned (`scf.for unsigned`).
pub fn for_is_unsigned(ctx: &Context, op: OpId) -> bool {
    ctx.op_inherent_or_attr(op, "unsignedCmp").is_some()
}

/// `scf.parallel`'s lower bounds, upper bounds, steps and initial values.
pub fn parallel_operands(ctx: &Context, op: OpId) -> [&[Value]; 4] {
    [
        operand_group(ctx, op, 0),
        operand_group(ctx, op, 1),
        operand_group(ctx, op, 2),
        operand_group(ctx, op, 3),
    ]
}

/// `scf.index_switch`'s case values, in the order of its case regions.
pub fn switch_cases(ctx: &Context, op: OpId) -> Vec<i64> {
    use tb_ir::attributes::{AttrKind, DenseArrayData};
    match ctx
        .op_inherent_or_attr(op, "cases")
        .map(|a| ctx.attr_kind(a))
    {
        Some(AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        }) => values.iter().map(|&v| v as i64).collect(),
        _ => Vec::new(),
    }
}
