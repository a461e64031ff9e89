//! The `affine` dialect as MLIR 22 has it: loops, conditionals and memory accesses whose
//! bounds, conditions and subscripts are affine maps of index values (dims and symbols).
//!
//! ```mlir
//! %r = affine.for %i = max #lb(%a)[%n] to 10 step 2 iter_args(%acc = %zero) -> (f32) {
//!   %v = affine.load %A[%i + 1, symbol(%n)] : memref<100x100xf32>
//!   %s = affine.if #set(%i)[%n] -> f32 {
//!     affine.yield %v : f32
//!   } else {
//!     affine.yield %acc : f32
//!   }
//!   affine.yield %s : f32
//! }
//! %j = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]
//! ```
//!
//! Custom syntax, generic form and verifier messages follow MLIR's (see [`asm`] and
//! [`verify`]); which values may be dims and symbols is decided by [`scope`].

mod asm;
mod canonicalize;
mod compose;
mod delinearize_sum;
mod dma;
mod for_bounds;
mod if_condition;
mod linearize;
mod min_max;
mod ops;
mod scope;
mod ssa_map;
mod verify;

pub use dma::{DmaAccess, DmaStart, dma_start_parts, dma_wait_parts};
pub use ops::AffineOp;
pub use scope::{is_valid_dim, is_valid_symbol};

use tb_ir::affine::{AffineMap, IntegerSet};
use tb_ir::attributes::{AttrKind, DenseArrayData, DenseElement};
use tb_ir::ods::constraint::{
    AFFINE_MAP_ATTR, ANY_MEMREF, ANY_TYPE, ANY_VECTOR, ARRAY_ATTR, AttrConstraint,
    DENSE_I64_ARRAY_ATTR, INDEX, INDEX_ATTR, UNIT_ATTR,
};
use tb_ir::ods::{
    OpDef, PURE, attr, operand, operand_group, optional_attr, single_block_region, variadic,
};
use tb_ir::registry::{DialectInfo, OpTraits};
use tb_ir::{Attr, BlockId, Context, OpId, TypeKind, Value};

pub const APPLY: &str = "affine.apply";
pub const MIN: &str = "affine.min";
pub const MAX: &str = "affine.max";
pub const FOR: &str = "affine.for";
pub const IF: &str = "affine.if";
pub const YIELD: &str = "affine.yield";
pub const LOAD: &str = "affine.load";
pub const STORE: &str = "affine.store";
pub const PARALLEL: &str = "affine.parallel";
pub const PREFETCH: &str = "affine.prefetch";
pub const VECTOR_LOAD: &str = "affine.vector_load";
pub const VECTOR_STORE: &str = "affine.vector_store";
pub const DMA_START: &str = "affine.dma_start";
pub const DMA_WAIT: &str = "affine.dma_wait";
pub const DELINEARIZE_INDEX: &str = "affine.delinearize_index";
pub const LINEARIZE_INDEX: &str = "affine.linearize_index";

/// The value MLIR's static bases hold for a dynamic basis element.
pub const DYNAMIC_BASIS: i64 = i64::MIN;

const INTEGER_SET_ATTR: AttrConstraint = AttrConstraint {
    description: "IntegerSet attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::IntegerSet(_)),
};

const BOOL_ATTR: AttrConstraint = AttrConstraint {
    description: "bool attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { ty, .. }
            if matches!(c.type_kind(*ty), TypeKind::Integer { width: 1, .. }))
    },
};

const I32_ATTR: AttrConstraint = AttrConstraint {
    description: "32-bit signless integer attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::Integer { ty, .. }
            if matches!(c.type_kind(*ty), TypeKind::Integer { width: 32, .. }))
    },
};

const I32_ELEMENTS_ATTR: AttrConstraint = AttrConstraint {
    description: "32-bit signless integer elements attribute",
    check: |c, a| {
        matches!(c.attr_kind(a), AttrKind::DenseElements { ty, .. }
            if c.type_kind(*ty).element().is_some_and(|e|
                matches!(c.type_kind(e), TypeKind::Integer { width: 32, .. })))
    },
};

/// Ops with a single-block body.
const LOOP_LIKE: OpTraits = OpTraits {
    single_block: true,
    ..OpDef::EMPTY.traits
};

/// `affine.apply`, `affine.min` and `affine.max` share their form.
const MAP_OF_INDICES: OpDef = OpDef {
    operands: &[variadic("mapOperands", INDEX)],
    results: &[operand("result", INDEX)],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    traits: PURE,
    custom_assembly: Some((asm::parse_map_op, asm::print_map_op)),
    verify: Some(verify::map_op),
    fold: Some(canonicalize::fold_map_op),
    ..OpDef::EMPTY
};

static APPLY_DEF: OpDef = OpDef {
    name: APPLY,
    summary: "the single result of an affine map applied to index values",
    canonicalize: Some(canonicalize::apply_patterns),
    ..MAP_OF_INDICES
};

static MIN_DEF: OpDef = OpDef {
    name: MIN,
    summary: "the smallest result of an affine map applied to index values",
    canonicalize: Some(canonicalize::min_patterns),
    ..MAP_OF_INDICES
};

static MAX_DEF: OpDef = OpDef {
    name: MAX,
    summary: "the largest result of an affine map applied to index values",
    canonicalize: Some(canonicalize::max_patterns),
    ..MAP_OF_INDICES
};

static FOR_DEF: OpDef = OpDef {
    name: FOR,
    summary: "a loop from the max of a lower bound map to the min of an upper bound map, \
              carrying values from one iteration to the next",
    operands: &[
        variadic("lowerBoundOperands", INDEX),
        variadic("upperBoundOperands", INDEX),
        variadic("inits", ANY_TYPE),
    ],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[
        attr("lowerBoundMap", AFFINE_MAP_ATTR),
        attr("upperBoundMap", AFFINE_MAP_ATTR),
        attr("step", INDEX_ATTR).with_default("1 : index"),
    ],
    regions: &[single_block_region("region")],
    traits: LOOP_LIKE,
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_for, asm::print_for)),
    verify: Some(verify::for_op),
    canonicalize: Some(canonicalize::for_patterns),
    ..OpDef::EMPTY
};

static IF_DEF: OpDef = OpDef {
    name: IF,
    summary: "runs its then region when its operands satisfy an integer set, else its \
              else region",
    operands: &[variadic("operands", ANY_TYPE)],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[attr("condition", INTEGER_SET_ATTR)],
    regions: &[
        single_block_region("thenRegion"),
        single_block_region("elseRegion"),
    ],
    traits: LOOP_LIKE,
    custom_assembly: Some((asm::parse_if, asm::print_if)),
    verify: Some(verify::if_op),
    canonicalize: Some(canonicalize::if_patterns),
    ..OpDef::EMPTY
};

static YIELD_DEF: OpDef = OpDef {
    name: YIELD,
    summary: "ends the body of an affine.for, affine.if or affine.parallel with its values",
    operands: &[variadic("operands", ANY_TYPE)],
    traits: OpTraits {
        terminator: true,
        ..PURE
    },
    format: Some("attr-dict ($operands^ `:` type($operands))?"),
    verify: Some(verify::yield_op),
    ..OpDef::EMPTY
};

static LOAD_DEF: OpDef = OpDef {
    name: LOAD,
    summary: "loads the element of a memref at an affine map of index values",
    operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
    results: &[operand("result", ANY_TYPE)],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_load, asm::print_load)),
    verify: Some(verify::load),
    canonicalize: Some(canonicalize::load_patterns),
    ..OpDef::EMPTY
};

static STORE_DEF: OpDef = OpDef {
    name: STORE,
    summary: "stores a value into a memref at an affine map of index values",
    operands: &[
        operand("value", ANY_TYPE),
        operand("memref", ANY_MEMREF),
        variadic("indices", INDEX),
    ],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_store, asm::print_store)),
    verify: Some(verify::store),
    canonicalize: Some(canonicalize::store_patterns),
    ..OpDef::EMPTY
};

static VECTOR_LOAD_DEF: OpDef = OpDef {
    name: VECTOR_LOAD,
    summary: "loads a vector of consecutive elements along the innermost dimensions of a \
              memref, starting at an affine map of index values",
    operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
    results: &[operand("result", ANY_VECTOR)],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_vector_load, asm::print_vector_load)),
    verify: Some(verify::vector_load),
    canonicalize: Some(canonicalize::vector_load_patterns),
    ..OpDef::EMPTY
};

static VECTOR_STORE_DEF: OpDef = OpDef {
    name: VECTOR_STORE,
    summary: "stores a vector into consecutive elements along the innermost dimensions of \
              a memref, starting at an affine map of index values",
    operands: &[
        operand("value", ANY_VECTOR),
        operand("memref", ANY_MEMREF),
        variadic("indices", INDEX),
    ],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_vector_store, asm::print_vector_store)),
    verify: Some(verify::vector_store),
    canonicalize: Some(canonicalize::vector_store_patterns),
    ..OpDef::EMPTY
};

/// The DMA ops have no declared properties in MLIR: their maps (`src_map`, `dst_map`,
/// `tag_map`) are ordinary attributes, and their operands one list split by those maps.
static DMA_START_DEF: OpDef = OpDef {
    name: DMA_START,
    summary: "starts copying elements from one memref to another, signalling completion \
              through a tag memref",
    operands: &[variadic("operands", ANY_TYPE)],
    custom_assembly: Some((dma::parse_start, dma::print_start)),
    verify: Some(dma::verify_start),
    ..OpDef::EMPTY
};

static DMA_WAIT_DEF: OpDef = OpDef {
    name: DMA_WAIT,
    summary: "blocks until the DMA signalling through a tag memref element has completed",
    operands: &[variadic("operands", ANY_TYPE)],
    custom_assembly: Some((dma::parse_wait, dma::print_wait)),
    verify: Some(dma::verify_wait),
    ..OpDef::EMPTY
};

static PARALLEL_DEF: OpDef = OpDef {
    name: PARALLEL,
    summary: "a multi-dimensional loop with independent iterations, whose results reduce \
              the values its body yields",
    operands: &[variadic("mapOperands", INDEX)],
    results: &[variadic("results", ANY_TYPE)],
    attributes: &[
        attr("reductions", ARRAY_ATTR),
        attr("lowerBoundsMap", AFFINE_MAP_ATTR),
        attr("lowerBoundsGroups", I32_ELEMENTS_ATTR),
        attr("upperBoundsMap", AFFINE_MAP_ATTR),
        attr("upperBoundsGroups", I32_ELEMENTS_ATTR),
        attr("steps", ARRAY_ATTR),
    ],
    regions: &[single_block_region("region")],
    traits: LOOP_LIKE,
    custom_assembly: Some((asm::parse_parallel, asm::print_parallel)),
    verify: Some(verify::parallel),
    canonicalize: Some(canonicalize::parallel_patterns),
    ..OpDef::EMPTY
};

static PREFETCH_DEF: OpDef = OpDef {
    name: PREFETCH,
    summary: "hints that an element of a memref will soon be read or written",
    operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
    attributes: &[
        attr("isWrite", BOOL_ATTR),
        attr("localityHint", I32_ATTR),
        attr("isDataCache", BOOL_ATTR),
        attr("map", AFFINE_MAP_ATTR),
    ],
    custom_assembly: Some((asm::parse_prefetch, asm::print_prefetch)),
    verify: Some(verify::prefetch),
    canonicalize: Some(canonicalize::prefetch_patterns),
    ..OpDef::EMPTY
};

static DELINEARIZE_INDEX_DEF: OpDef = OpDef {
    name: DELINEARIZE_INDEX,
    summary: "splits a linear index into a multi-index over a basis",
    operands: &[
        operand("linear_index", INDEX),
        variadic("dynamic_basis", INDEX),
    ],
    results: &[variadic("multi_index", INDEX)],
    attributes: &[attr("static_basis", DENSE_I64_ARRAY_ATTR)],
    traits: PURE,
    custom_assembly: Some((asm::parse_delinearize, asm::print_delinearize)),
    verify: Some(verify::delinearize),
    fold: Some(linearize::fold_delinearize),
    canonicalize: Some(linearize::delinearize_patterns),
    ..OpDef::EMPTY
};

static LINEARIZE_INDEX_DEF: OpDef = OpDef {
    name: LINEARIZE_INDEX,
    summary: "combines a multi-index over a basis into a linear index",
    operands: &[
        variadic("multi_index", INDEX),
        variadic("dynamic_basis", INDEX),
    ],
    results: &[operand("linear_index", INDEX)],
    attributes: &[
        attr("static_basis", DENSE_I64_ARRAY_ATTR),
        optional_attr("disjoint", UNIT_ATTR),
    ],
    traits: PURE,
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_linearize, asm::print_linearize)),
    verify: Some(verify::linearize),
    fold: Some(linearize::fold_linearize),
    canonicalize: Some(linearize::linearize_patterns),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    // Folded indices are `arith.constant`s, as MLIR's affine dialect builds them.
    ctx.register_dialect_info(DialectInfo {
        namespace: "affine",
        materialize_constant: Some(crate::arith::materialize_constant),
        print_attr: None,
    });
    for def in [
        &APPLY_DEF,
        &MIN_DEF,
        &MAX_DEF,
        &FOR_DEF,
        &IF_DEF,
        &YIELD_DEF,
        &LOAD_DEF,
        &STORE_DEF,
        &PARALLEL_DEF,
        &PREFETCH_DEF,
        &VECTOR_LOAD_DEF,
        &VECTOR_STORE_DEF,
        &DMA_START_DEF,
        &DMA_WAIT_DEF,
        &DELINEARIZE_INDEX_DEF,
        &LINEARIZE_INDEX_DEF,
    ] {
        ctx.register_op_def(def)?;
    }
    ctx.register_op_kinds::<AffineOp>()
}

// ---- queries shared by the printer, verifier, canonicalization and lowerings ----

/// The affine map in attribute `name` of `op`.
pub fn map_named(ctx: &Context, op: OpId, name: &str) -> Option<AffineMap> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, name)?) {
        AttrKind::AffineMap(m) => Some(m.clone()),
        _ => None,
    }
}

/// The map of `affine.apply`/`min`/`max`/`load`/`store`/`prefetch`/`vector_load`/
/// `vector_store`.
pub fn access_map(ctx: &Context, op: OpId) -> Option<AffineMap> {
    map_named(ctx, op, "map")
}

/// The integer set of an `affine.if`.
pub fn condition(ctx: &Context, op: OpId) -> Option<IntegerSet> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, "condition")?) {
        AttrKind::IntegerSet(s) => Some(s.clone()),
        _ => None,
    }
}

/// The step of an `affine.for`.
pub fn step(ctx: &Context, op: OpId) -> Option<i64> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, "step")?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The lower bound operands of an `affine.for`.
pub fn lower_operands(ctx: &Context, op: OpId) -> &[Value] {
    operand_group(ctx, op, 0)
}

/// The upper bound operands of an `affine.for`.
pub fn upper_operands(ctx: &Context, op: OpId) -> &[Value] {
    operand_group(ctx, op, 1)
}

/// The initial values of an `affine.for`'s loop-carried values.
pub fn inits(ctx: &Context, op: OpId) -> &[Value] {
    operand_group(ctx, op, 2)
}

/// The entry block of region `index` of `op`, if it has one.
pub fn region_block(ctx: &Context, op: OpId, index: usize) -> Option<BlockId> {
    ctx.op(op)
        .regions
        .get(index)
        .and_then(|&r| ctx.entry_block(r))
}

/// The values the `affine.yield` ending `block` gives.
pub fn yielded(ctx: &Context, block: BlockId) -> Vec<Value> {
    ctx.block(block)
        .last
        .filter(|&t| ctx.op_name(t) == YIELD)
        .map(|t| ctx.op(t).operands.to_vec())
        .unwrap_or_default()
}

/// The i32 values of a `dense<...>` attribute (the bound groups of `affine.parallel`).
pub fn dense_ints(ctx: &Context, attr: Attr) -> Option<Vec<i64>> {
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(attr) else {
        return None;
    };
    let count = usize::try_from(ctx.type_kind(*ty).num_elements().ok()?).ok()?;
    let ints = data
        .elements
        .iter()
        .map(|e| match e {
            DenseElement::Int(v) => i64::try_from(*v).ok(),
            _ => None,
        })
        .collect::<Option<Vec<i64>>>()?;
    if data.splat {
        Some(vec![*ints.first()?; count])
    } else {
        Some(ints)
    }
}

/// The integers of an array attribute (`steps`, `reductions` of `affine.parallel`).
pub fn int_array(ctx: &Context, attr: Attr) -> Option<Vec<i64>> {
    let AttrKind::Array(items) = ctx.attr_kind(attr) else {
        return None;
    };
    items
        .iter()
        .map(|&a| match ctx.attr_kind(a) {
            AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
            _ => None,
        })
        .collect()
}

/// The `static_basis` of a (de)linearization, [`DYNAMIC_BASIS`] for dynamic entries.
pub fn static_basis(ctx: &Context, op: OpId) -> Option<Vec<i64>> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, "static_basis")?) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => values.iter().map(|&v| i64::try_from(v).ok()).collect(),
        _ => None,
    }
}

/// One `affine.parallel` bound: the results of its map in one group.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelBounds {
    /// The bound map and the groups of its results, one group per dimension.
    pub map: AffineMap,
    pub groups: Vec<usize>,
}

/// The lower and upper bounds of an `affine.parallel`.
pub fn parallel_bounds(ctx: &Context, op: OpId) -> Option<(ParallelBounds, ParallelBounds)> {
    let read = |map: &str, groups: &str| -> Option<ParallelBounds> {
        let map = map_named(ctx, op, map)?;
        let groups = dense_ints(ctx, ctx.op_inherent_or_attr(op, groups)?)?
            .into_iter()
            .map(|g| usize::try_from(g).ok())
            .collect::<Option<Vec<usize>>>()?;
        Some(ParallelBounds { map, groups })
    };
    Some((
        read("lowerBoundsMap", "lowerBoundsGroups")?,
        read("upperBoundsMap", "upperBoundsGroups")?,
    ))
}

/// The reduction kinds MLIR's `arith::AtomicRMWKind` names, by their enum value.
pub const REDUCTION_KINDS: &[&str] = &[
    "addf", "addi", "andi", "assign", "maximumf", "maxnumf", "maxs", "maxu", "minimumf", "minnumf",
    "mins", "minu", "mulf", "muli", "ori", "xori",
];
