//! The `te` dialect: tensor expressions in the style of TVM/Souffle.
//!
//! `te.compute` defines every element of its result by a single-block region whose index
//! block arguments walk the iteration domain: first one per result dimension, then one per
//! reduction axis. The body reads its inputs only through `te.read` with an affine map from
//! the whole domain to the input's indices, and ends with `te.yield` of the element value;
//! reduction axes fold the yielded values with a combiner (`sum`, `max`, `min`, `prod`).
//!
//! ```mlir
//! %c = te.compute (%a, %b) [%i, %j] reduce [%k] in [16] combiner = sum {
//!   %x = te.read %a[(d0, d1, d2) -> (d0, d2)] : tensor<4x16xf32>
//!   %y = te.read %b[(d0, d1, d2) -> (d2, d1)] : tensor<16x8xf32>
//!   %p = "arith.mulf"(%x, %y) : (f32, f32) -> f32
//!   te.yield %p : f32
//! } : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
//! ```
//!
//! Scalars in a body are signless, as `arith` computes on signless integers only: a read
//! of a `tensor<4xui8>` (or `si8`) gives an `i8`, and a body of a `tensor<4xui8>` result
//! yields an `i8`. Unsigned data keeps its bits; the arith op that needs it carries the
//! signedness (`arith.divui`, `arith.cmpi ult`, `arith.uitofp` ...), and a reduction over
//! an unsigned result compares unsigned with its `max` and `min` combiners. Floats and
//! signless integers are read and yielded as themselves ([`scalar_type`]).
//!
//! Because every access is an affine map over the domain, producer inlining is map
//! composition; [`domain`], [`read_map`] and friends expose that to passes.
//!
//! Two reads go beyond a plain affine access, for the operators that need them:
//!
//! - `te.read %a[map] {padding = 0.0 : f32}` may leave the input's bounds; outside them it
//!   yields `padding` (zero-padded convolutions, `-inf`-padded max pooling, `Pad`);
//! - `te.read_at %a[%i, %j] : tensor<...>` reads at index values the body computes (gather,
//!   one-hot style lookups); an index outside the input is undefined behaviour, so lowerings
//!   must clamp or wrap indices first, as ONNX's negative indices require anyway.
//!
//! Outside any `te.compute`, `te.extract %t[%i, %j] : tensor<4x8xi1>` reads one element of a
//! tensor as a scalar (`te.extract %c[] : tensor<i1>` for a 0-d one): the condition of an
//! `scf.if`, the trip count of an `scf.for`. Run-time control flow at this level is
//! upstream `scf` on tensors (`scf.if`/`scf.for`/`scf.while` yielding and carrying
//! tensors), whose regions hold `te.compute`s, scalar `arith` and nested `scf`. A
//! `te.compute` body may use index and scalar values defined above it (an `scf.for`'s
//! induction variable, an extracted scalar); tensors it reads are always its inputs.

mod asm;
mod combiner;
mod ops;
mod verify;

use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::ods::constraint::{
    AFFINE_MAP_ATTR, ANY_ATTR, ANY_RANKED_TENSOR, ANY_TYPE, DENSE_I64_ARRAY_ATTR, INDEX,
};
use tb_ir::ods::{OpDef, PURE, attr, operand, optional_attr, single_block_region, variadic};
use tb_ir::registry::OpTraits;
use tb_ir::{BlockId, Context, OpId, TypeKind, Value};

pub use combiner::Combiner;
pub use ops::{ComputeOp, ExtractOp, ReadAtOp, ReadOp, TeOp};
pub(crate) use verify::check_map_bounds;

pub const COMPUTE: &str = "te.compute";
pub const READ: &str = "te.read";
pub const READ_AT: &str = "te.read_at";
pub const YIELD: &str = "te.yield";
pub const EXTRACT: &str = "te.extract";

/// `#te.combiner<...>` (or, from builders that still write it so, a string naming one).
const COMBINER_ATTR: tb_ir::ods::AttrConstraint = tb_ir::ods::AttrConstraint {
    description: "#te.combiner attribute",
    check: |ctx, attr| {
        ctx.typed_attr::<Combiner>(attr).is_some() || ctx.attr_as_str(attr).is_some()
    },
};

static COMPUTE_DEF: OpDef = OpDef {
    name: COMPUTE,
    summary: "defines each element of a tensor by a region over an iteration domain",
    operands: &[variadic("inputs", ANY_RANKED_TENSOR)],
    results: &[operand("result", ANY_RANKED_TENSOR)],
    attributes: &[
        optional_attr("reduction_extents", DENSE_I64_ARRAY_ATTR),
        optional_attr("combiner", COMBINER_ATTR),
    ],
    regions: &[single_block_region("body")],
    traits: OpTraits {
        single_block: true,
        ..PURE
    },
    custom_assembly: Some((asm::parse_compute, asm::print_compute)),
    verify: Some(verify::compute),
    fold: Some(verify::fold_compute),
    ..OpDef::EMPTY
};

static READ_DEF: OpDef = OpDef {
    name: READ,
    summary: "reads an input of the enclosing te.compute through an affine map of the domain",
    operands: &[operand("input", ANY_RANKED_TENSOR)],
    results: &[operand("result", ANY_TYPE)],
    attributes: &[
        attr("map", AFFINE_MAP_ATTR),
        optional_attr("padding", ANY_ATTR),
    ],
    traits: PURE,
    custom_assembly: Some((asm::parse_read, asm::print_read)),
    verify: Some(verify::read),
    ..OpDef::EMPTY
};

static READ_AT_DEF: OpDef = OpDef {
    name: READ_AT,
    summary: "reads an input of the enclosing te.compute at index values computed in the body",
    operands: &[
        operand("input", ANY_RANKED_TENSOR),
        variadic("indices", INDEX),
    ],
    results: &[operand("result", ANY_TYPE)],
    traits: PURE,
    custom_assembly: Some((asm::parse_read_at, asm::print_read_at)),
    verify: Some(verify::read_at),
    ..OpDef::EMPTY
};

static EXTRACT_DEF: OpDef = OpDef {
    name: EXTRACT,
    summary: "reads one element of a tensor as a scalar, outside any te.compute",
    operands: &[
        operand("tensor", ANY_RANKED_TENSOR),
        variadic("indices", INDEX),
    ],
    results: &[operand("result", ANY_TYPE)],
    traits: PURE,
    custom_assembly: Some((asm::parse_extract, asm::print_extract)),
    verify: Some(verify::extract),
    ..OpDef::EMPTY
};

static YIELD_DEF: OpDef = OpDef {
    name: YIELD,
    summary: "yields the element value of a te.compute body",
    operands: &[operand("value", ANY_TYPE)],
    traits: OpTraits {
        terminator: true,
        ..PURE
    },
    format: Some("$value attr-dict `:` type($value)"),
    verify: Some(verify::yield_op),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    ctx.register_attr::<Combiner>();
    for def in [
        &COMPUTE_DEF,
        &READ_DEF,
        &READ_AT_DEF,
        &EXTRACT_DEF,
        &YIELD_DEF,
    ] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<TeOp>()
}

// ---- queries for passes and the interpreter ----

/// The extents of a `te.compute`'s reduction axes (empty without reduction).
pub fn reduction_extents(ctx: &Context, compute: OpId) -> Vec<i64> {
    match ctx
        .op_inherent_or_attr(compute, "reduction_extents")
        .map(|a| ctx.attr_kind(a))
    {
        Some(AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        }) => values.iter().map(|&v| v as i64).collect(),
        _ => Vec::new(),
    }
}

/// The keyword of the combiner of a reducing `te.compute` (`sum`, `max`, `min`, `prod`),
/// if any; [`ComputeOp::combiner`] gives it typed.
pub fn combiner(ctx: &Context, compute: OpId) -> Option<&'static str> {
    ComputeOp(compute).combiner(ctx).map(Combiner::keyword)
}

/// The result shape of a `te.compute` (`DYNAMIC` for unknown extents).
pub fn result_shape(ctx: &Context, compute: OpId) -> Vec<i64> {
    let result = ctx.op(compute).results.first().copied();
    result
        .and_then(|r| {
            ctx.type_kind(ctx.value_type(r))
                .shape()
                .map(<[i64]>::to_vec)
        })
        .unwrap_or_default()
}

/// The iteration domain: the result shape, then the reduction extents.
pub fn domain(ctx: &Context, compute: OpId) -> Vec<i64> {
    let mut extents = result_shape(ctx, compute);
    extents.extend(reduction_extents(ctx, compute));
    extents
}

/// The body block of a `te.compute`.
pub fn body(ctx: &Context, compute: OpId) -> Option<BlockId> {
    ctx.op(compute)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
}

/// The index block arguments of a `te.compute` (result dims, then reduction axes).
pub fn indices(ctx: &Context, compute: OpId) -> Vec<Value> {
    body(ctx, compute)
        .map(|b| ctx.block(b).args.to_vec())
        .unwrap_or_default()
}

/// The affine map of a `te.read`.
pub fn read_map(ctx: &Context, read: OpId) -> Option<&tb_ir::affine::AffineMap> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(read, "map")?) {
        AttrKind::AffineMap(map) => Some(map),
        _ => None,
    }
}

/// The value a padded `te.read` yields outside its input, if it is padded.
pub fn read_padding(ctx: &Context, read: OpId) -> Option<tb_ir::Attr> {
    ctx.op_inherent_or_attr(read, "padding")
}

/// The nearest `te.compute` around `op`.
pub fn enclosing_compute(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut at = ctx.parent_op(op);
    while let Some(p) = at {
        if ctx.op_name(p) == COMPUTE {
            return Some(p);
        }
        at = ctx.parent_op(p);
    }
    None
}

/// The type a body reads and yields elements of `shaped` (a tensor, memref or vector
/// type) in: its element type without signedness.
pub fn scalar_type(ctx: &mut Context, shaped: tb_ir::Type) -> Option<tb_ir::Type> {
    let element = ctx.type_kind(shaped).element()?;
    Some(ctx.signless(element))
}

/// The element type of a ranked tensor or memref.
pub(crate) fn element_type(ctx: &Context, ty: tb_ir::Type) -> Option<tb_ir::Type> {
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { element, .. } | TypeKind::MemRef { element, .. } => Some(*element),
        _ => None,
    }
}
