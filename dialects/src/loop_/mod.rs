//! The `loop` dialect: buffers and affine loop nests, the level where scheduling happens
//! (a nest's schedule is the typed `#loop.schedule` attribute, [`Schedule`]; the passes
//! that apply it live in `tb_passes::schedule`). Parallel loops run on threads.
//!
//! ```mlir
//! %m = loop.alloc() : memref<64x64xf32>
//! loop.parallel (%i) = (0) to (64) step (1) {
//!   loop.for %j = 0 to 64 step 8 vectorize = 8 {
//!     %v = loop.vector_load %a[%i, %j] : memref<64x64xf32>, vector<8xf32>
//!     %s = loop.load %b[(d0) -> (d0, 0)](%i) : memref<64x1xf32>
//!     %w = loop.broadcast %s : f32 to vector<8xf32>
//!     %r = loop.fma %v, %w, %v : vector<8xf32>
//!     loop.vector_store %r, %m[%i, %j] : memref<64x64xf32>, vector<8xf32>
//!   }
//! }
//! loop.dealloc %m : memref<64x64xf32>
//! ```
//!
//! Loop bounds are affine maps of index operands (dims, then symbols), as in MLIR's
//! `affine.for`: the lower bound is the maximum of its map's results, the upper bound the
//! minimum of its map's results; the upper bound is exclusive. Loop bodies end with an
//! implicit `loop.yield`. Schedule decisions are loop attributes: `unroll = U`,
//! `vectorize = W` and `parallel`.
//!
//! A `loop.for` can carry values from one iteration to the next, as MLIR's `scf.for`
//! does: `iter_args(%acc = %init) -> (f32)` adds a body argument per carried value, the
//! body's `loop.yield %next : f32` gives its value for the next iteration, and the loop's
//! results are the values after the last one (the inits when it runs no iteration):
//!
//! ```mlir
//! %sum = loop.for %k = 0 to 16 iter_args(%acc = %zero) -> (f32) {
//!   %x = loop.load %a[%k] : memref<16xf32>
//!   %next = arith.addf %acc, %x : f32
//!   loop.yield %next : f32
//! }
//! ```
//!
//! Loads and stores of integer memrefs carry signless scalars (`memref<8xui8>` loads an
//! `i8`), as `te` bodies do: the arith ops on them carry the signedness.
//!
//! `loop.dot` is the step of integer micro-kernels: each i32 lane of `acc` adds the dot
//! product of the group `a` (`G` integers, sign-extended, or zero-extended with
//! `unsigned_lhs`) with its own `G` consecutive elements of `b` (sign-extended):
//!
//! ```mlir
//! %r = loop.dot %acc, %a, %b : vector<8xi32>, vector<2xi16>, vector<16xi16>
//! ```
//!
//! [`loop_dims`], [`induction_vars`] and [`body`] are the "loop-like" queries later passes
//! and the interpreter use for both `loop.for` and `loop.parallel`; [`inits`],
//! [`iter_args`] and [`yielded`] give the loop-carried values (none for `loop.parallel`).

mod asm;
mod canonicalize;
mod kinds;
mod schedule;
mod verify;

pub use kinds::LoopOp;
pub use schedule::{Packing, Schedule};

use tb_ir::affine::AffineMap;
use tb_ir::attributes::{AttrKind, DenseArrayData};
use tb_ir::ods::constraint::{
    AFFINE_MAP_ATTR, ANY_MEMREF, ANY_TYPE, ANY_VECTOR, ARRAY_ATTR, DENSE_I64_ARRAY_ATTR,
    FLOAT_LIKE, I64_ATTR, INDEX, UNIT_ATTR,
};
use tb_ir::ods::{
    OpDef, PURE, attr, operand, operand_group, optional_attr, single_block_region, variadic,
};
use tb_ir::registry::OpTraits;
use tb_ir::{BlockId, Context, OpId, Value};

pub const ALLOC: &str = "loop.alloc";
pub const DEALLOC: &str = "loop.dealloc";
pub const FOR: &str = "loop.for";
pub const PARALLEL: &str = "loop.parallel";
pub const LOAD: &str = "loop.load";
pub const STORE: &str = "loop.store";
pub const VECTOR_LOAD: &str = "loop.vector_load";
pub const VECTOR_STORE: &str = "loop.vector_store";
pub const BROADCAST: &str = "loop.broadcast";
pub const FMA: &str = "loop.fma";
pub const DOT: &str = "loop.dot";
pub const YIELD: &str = "loop.yield";

/// The alignment, in bytes, `loop.alloc` gives buffers unless told otherwise.
pub const DEFAULT_ALIGNMENT: i64 = 64;

static ALLOC_DEF: OpDef = OpDef {
    name: ALLOC,
    summary: "allocates an aligned buffer; operands give its dynamic sizes",
    operands: &[variadic("dynamic_sizes", INDEX)],
    results: &[operand("memref", ANY_MEMREF)],
    attributes: &[attr("alignment", I64_ATTR).with_default("64 : i64")],
    custom_assembly: Some((asm::parse_alloc, asm::print_alloc)),
    verify: Some(verify::alloc),
    ..OpDef::EMPTY
};

static DEALLOC_DEF: OpDef = OpDef {
    name: DEALLOC,
    summary: "frees a buffer of loop.alloc",
    operands: &[operand("memref", ANY_MEMREF)],
    format: Some("$memref attr-dict `:` type($memref)"),
    ..OpDef::EMPTY
};

/// Schedule annotations shared by both loops.
const FOR_ATTRS: &[tb_ir::ods::AttrDef] = &[
    attr("lower_bound", AFFINE_MAP_ATTR),
    attr("upper_bound", AFFINE_MAP_ATTR),
    attr("step", I64_ATTR).with_default("1 : i64"),
    optional_attr("unroll", I64_ATTR),
    optional_attr("vectorize", I64_ATTR),
    optional_attr("parallel", UNIT_ATTR),
];

static FOR_DEF: OpDef = OpDef {
    name: FOR,
    summary: "a loop over [max(lower map), min(upper map)) with a positive step, carrying \
              values from one iteration to the next",
    operands: &[
        variadic("lower_operands", INDEX),
        variadic("upper_operands", INDEX),
        variadic("inits", ANY_TYPE),
    ],
    results: &[variadic("results", ANY_TYPE)],
    attributes: FOR_ATTRS,
    regions: &[single_block_region("body")],
    traits: OpTraits {
        single_block: true,
        ..OpDef::EMPTY.traits
    },
    attr_sized_operand_segments: true,
    custom_assembly: Some((asm::parse_for, asm::print_for)),
    verify: Some(verify::for_op),
    canonicalize: Some(canonicalize::for_patterns),
    ..OpDef::EMPTY
};

static PARALLEL_DEF: OpDef = OpDef {
    name: PARALLEL,
    summary: "a multi-dimensional loop whose iterations are independent",
    operands: &[
        variadic("lower_operands", INDEX),
        variadic("upper_operands", INDEX),
    ],
    attributes: &[
        attr("lower_bounds", ARRAY_ATTR),
        attr("upper_bounds", ARRAY_ATTR),
        attr("steps", DENSE_I64_ARRAY_ATTR),
        optional_attr("unroll", I64_ATTR),
        optional_attr("vectorize", I64_ATTR),
    ],
    regions: &[single_block_region("body")],
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

static LOAD_DEF: OpDef = OpDef {
    name: LOAD,
    summary: "loads an element at an affine map of index operands",
    operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
    results: &[operand("result", ANY_TYPE)],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_load, asm::print_load)),
    verify: Some(verify::access),
    ..OpDef::EMPTY
};

static STORE_DEF: OpDef = OpDef {
    name: STORE,
    summary: "stores an element at an affine map of index operands",
    operands: &[
        operand("value", ANY_TYPE),
        operand("memref", ANY_MEMREF),
        variadic("indices", INDEX),
    ],
    attributes: &[attr("map", AFFINE_MAP_ATTR)],
    custom_assembly: Some((asm::parse_store, asm::print_store)),
    verify: Some(verify::access),
    ..OpDef::EMPTY
};

static VECTOR_LOAD_DEF: OpDef = OpDef {
    name: VECTOR_LOAD,
    summary: "loads a vector of consecutive elements along the innermost dimensions",
    operands: &[operand("memref", ANY_MEMREF), variadic("indices", INDEX)],
    results: &[operand("result", ANY_VECTOR)],
    attributes: &[
        attr("map", AFFINE_MAP_ATTR),
        optional_attr("alignment", I64_ATTR),
    ],
    custom_assembly: Some((asm::parse_load, asm::print_load)),
    verify: Some(verify::access),
    ..OpDef::EMPTY
};

static VECTOR_STORE_DEF: OpDef = OpDef {
    name: VECTOR_STORE,
    summary: "stores a vector of consecutive elements along the innermost dimensions",
    operands: &[
        operand("value", ANY_VECTOR),
        operand("memref", ANY_MEMREF),
        variadic("indices", INDEX),
    ],
    attributes: &[
        attr("map", AFFINE_MAP_ATTR),
        optional_attr("alignment", I64_ATTR),
    ],
    custom_assembly: Some((asm::parse_store, asm::print_store)),
    verify: Some(verify::access),
    ..OpDef::EMPTY
};

static BROADCAST_DEF: OpDef = OpDef {
    name: BROADCAST,
    summary: "splats a scalar into every lane of a vector",
    operands: &[operand("input", ANY_TYPE)],
    results: &[operand("result", ANY_VECTOR)],
    traits: PURE,
    format: Some("$input attr-dict `:` type($input) `to` type($result)"),
    verify: Some(verify::broadcast),
    ..OpDef::EMPTY
};

static FMA_DEF: OpDef = OpDef {
    name: FMA,
    summary: "fused multiply-add `a * b + c` of floats or float vectors",
    operands: &[
        operand("a", FLOAT_LIKE),
        operand("b", FLOAT_LIKE),
        operand("c", FLOAT_LIKE),
    ],
    results: &[operand("result", FLOAT_LIKE)],
    traits: PURE,
    same_operands_and_result_type: true,
    format: Some("$a `,` $b `,` $c attr-dict `:` type($result)"),
    ..OpDef::EMPTY
};

static DOT_DEF: OpDef = OpDef {
    name: DOT,
    summary: "integer dot products of lane groups accumulated into i32 lanes: \
              `acc[l] + sum over g of a[g] * b[G*l + g]` (the integer micro-kernel's step)",
    operands: &[
        operand("acc", ANY_VECTOR),
        operand("a", ANY_VECTOR),
        operand("b", ANY_VECTOR),
    ],
    results: &[operand("result", ANY_VECTOR)],
    attributes: &[optional_attr("unsigned_lhs", UNIT_ATTR)],
    traits: PURE,
    all_types_match: &[&["acc", "result"]],
    format: Some("$acc `,` $a `,` $b attr-dict `:` type($acc) `,` type($a) `,` type($b)"),
    verify: Some(verify::dot),
    ..OpDef::EMPTY
};

static YIELD_DEF: OpDef = OpDef {
    name: YIELD,
    summary: "ends a loop body and gives the values carried to the next iteration \
              (implicit in the custom form when it gives none)",
    operands: &[variadic("results", ANY_TYPE)],
    traits: OpTraits {
        terminator: true,
        ..PURE
    },
    format: Some("attr-dict ($results^ `:` type($results))?"),
    verify: Some(verify::yield_op),
    ..OpDef::EMPTY
};

pub fn register(ctx: &mut Context) -> Result<(), String> {
    for def in [
        &ALLOC_DEF,
        &DEALLOC_DEF,
        &FOR_DEF,
        &PARALLEL_DEF,
        &LOAD_DEF,
        &STORE_DEF,
        &VECTOR_LOAD_DEF,
        &VECTOR_STORE_DEF,
        &BROADCAST_DEF,
        &FMA_DEF,
        &DOT_DEF,
        &YIELD_DEF,
    ] {
        ctx.register_op_def(def)?;
    }
    ctx.register_attr::<Schedule>();
    ctx.register_op_kinds::<LoopOp>()
}

/// Whether a `loop.dot` zero-extends its `a` operand (`unsigned_lhs`).
pub fn dot_unsigned_lhs(ctx: &Context, op: OpId) -> bool {
    ctx.op_inherent_or_attr(op, "unsigned_lhs").is_some()
}

// ---- loop-like queries ----

/// One bound of a loop dimension: an affine map and the index values it is applied to
/// (dims, then symbols).
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub map: AffineMap,
    pub operands: Vec<Value>,
}

impl Bound {
    /// The bound's value when its map is a single constant.
    pub fn constant(&self) -> Option<i64> {
        match self.map.results.as_slice() {
            [only] => only.constant_value(),
            _ => None,
        }
    }
}

/// One dimension of a loop: `max(lower) <= iv < min(upper)`, stepping by `step`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopDim {
    pub induction_var: Value,
    pub lower: Bound,
    pub upper: Bound,
    pub step: i64,
}

impl LoopDim {
    /// The number of iterations when both bounds are constant.
    pub fn constant_trip_count(&self) -> Option<i64> {
        let (lo, hi) = (self.lower.constant()?, self.upper.constant()?);
        if self.step <= 0 {
            return None;
        }
        Some(if hi <= lo {
            0
        } else {
            (hi - lo + self.step - 1) / self.step
        })
    }
}

/// Whether `op` is a `loop.for` or a `loop.parallel`.
pub fn is_loop(ctx: &Context, op: OpId) -> bool {
    matches!(ctx.op_name(op), FOR | PARALLEL)
}

/// The body block of a loop.
pub fn body(ctx: &Context, op: OpId) -> Option<BlockId> {
    ctx.op(op).regions.first().and_then(|&r| ctx.entry_block(r))
}

/// The induction variables of a loop (one for `loop.for`: the first body argument, the
/// others being its iter_args).
pub fn induction_vars(ctx: &Context, op: OpId) -> Vec<Value> {
    let Some(block) = body(ctx, op) else {
        return Vec::new();
    };
    let args = &ctx.block(block).args;
    if ctx.op_name(op) == FOR {
        return args.first().copied().into_iter().collect();
    }
    args.to_vec()
}

/// The initial values of a `loop.for`'s loop-carried values (none for `loop.parallel`).
pub fn inits(ctx: &Context, op: OpId) -> &[Value] {
    if ctx.op_name(op) != FOR {
        return &[];
    }
    operand_group(ctx, op, 2)
}

/// The body arguments that hold a `loop.for`'s loop-carried values in an iteration.
pub fn iter_args(ctx: &Context, op: OpId) -> Vec<Value> {
    match body(ctx, op) {
        Some(block) if ctx.op_name(op) == FOR => {
            ctx.block(block).args.iter().skip(1).copied().collect()
        }
        _ => Vec::new(),
    }
}

/// The values a loop body yields to the next iteration (the operands of its terminator).
pub fn yielded(ctx: &Context, op: OpId) -> Vec<Value> {
    body(ctx, op)
        .and_then(|b| ctx.block(b).last)
        .filter(|&t| ctx.op_name(t) == YIELD)
        .map(|t| ctx.op(t).operands.to_vec())
        .unwrap_or_default()
}

fn map_attr(ctx: &Context, attr: tb_ir::Attr) -> Option<AffineMap> {
    match ctx.attr_kind(attr) {
        AttrKind::AffineMap(m) => Some(m.clone()),
        _ => None,
    }
}

fn i64_attr(ctx: &Context, op: OpId, name: &str) -> Option<i64> {
    match ctx.attr_kind(ctx.op_inherent_or_attr(op, name)?) {
        AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The lower and upper bound maps of each dimension of a loop.
fn bound_maps(ctx: &Context, op: OpId) -> Option<(Vec<AffineMap>, Vec<AffineMap>, Vec<i64>)> {
    let maps = |name: &str| -> Option<Vec<AffineMap>> {
        let attr = ctx.op_inherent_or_attr(op, name)?;
        match ctx.attr_kind(attr) {
            AttrKind::Array(items) => items.iter().map(|&a| map_attr(ctx, a)).collect(),
            _ => map_attr(ctx, attr).map(|m| vec![m]),
        }
    };
    if ctx.op_name(op) == FOR {
        let step = i64_attr(ctx, op, "step").unwrap_or(1);
        return Some((maps("lower_bound")?, maps("upper_bound")?, vec![step]));
    }
    let steps = match ctx.attr_kind(ctx.op_inherent_or_attr(op, "steps")?) {
        AttrKind::DenseArray {
            data: DenseArrayData::Int(values),
            ..
        } => values.iter().map(|&v| v as i64).collect(),
        _ => return None,
    };
    Some((maps("lower_bounds")?, maps("upper_bounds")?, steps))
}

/// Splits `values` among `maps` by their input counts.
fn split_operands(maps: &[AffineMap], values: &[Value]) -> Option<Vec<Vec<Value>>> {
    let mut rest = values;
    let mut out = Vec::new();
    for map in maps {
        let n = map.num_inputs() as usize;
        if rest.len() < n {
            return None;
        }
        out.push(rest[..n].to_vec());
        rest = &rest[n..];
    }
    rest.is_empty().then_some(out)
}

/// Every dimension of a `loop.for` or `loop.parallel`, or `None` for a malformed loop.
pub fn loop_dims(ctx: &Context, op: OpId) -> Option<Vec<LoopDim>> {
    let (lowers, uppers, steps) = bound_maps(ctx, op)?;
    let lower_ops = split_operands(&lowers, operand_group(ctx, op, 0))?;
    let upper_ops = split_operands(&uppers, operand_group(ctx, op, 1))?;
    let ivs = induction_vars(ctx, op);
    if ivs.len() != lowers.len() || uppers.len() != lowers.len() || steps.len() != lowers.len() {
        return None;
    }
    Some(
        (0..ivs.len())
            .map(|i| LoopDim {
                induction_var: ivs[i],
                lower: Bound {
                    map: lowers[i].clone(),
                    operands: lower_ops[i].clone(),
                },
                upper: Bound {
                    map: uppers[i].clone(),
                    operands: upper_ops[i].clone(),
                },
                step: steps[i],
            })
            .collect(),
    )
}

/// The unroll factor of a loop, if annotated.
pub fn unroll_factor(ctx: &Context, op: OpId) -> Option<i64> {
    i64_attr(ctx, op, "unroll")
}

/// The vectorization width of a loop, if annotated.
pub fn vector_width(ctx: &Context, op: OpId) -> Option<i64> {
    i64_attr(ctx, op, "vectorize")
}

/// Whether a loop runs in parallel (`loop.parallel`, or `loop.for` marked `parallel`).
pub fn is_parallel(ctx: &Context, op: OpId) -> bool {
    ctx.op_name(op) == PARALLEL || ctx.op_inherent_or_attr(op, "parallel").is_some()
}

/// The name of the discardable attribute that carries a nest's [`Schedule`] on its
/// outermost loop.
pub const SCHEDULE_ATTR: &str = "loop.schedule";

/// The schedule attached to a loop nest's outermost loop, if any.
pub fn schedule(ctx: &Context, op: OpId) -> Option<&Schedule> {
    ctx.typed_attr::<Schedule>(ctx.op_inherent_or_attr(op, SCHEDULE_ATTR)?)
}

/// The affine map of a load or store.
pub fn access_map(ctx: &Context, op: OpId) -> Option<AffineMap> {
    map_attr(ctx, ctx.op_inherent_or_attr(op, "map")?)
}

/// The alignment in bytes a `loop.vector_load` or `loop.vector_store` promises for its
/// first element (`{alignment = 16}`, as MLIR's `vector.load` has it), if it gives one.
pub fn access_alignment(ctx: &Context, op: OpId) -> Option<i64> {
    i64_attr(ctx, op, "alignment")
}

/// The alignment of a `loop.alloc`, in bytes.
pub fn alignment(ctx: &Context, op: OpId) -> i64 {
    i64_attr(ctx, op, "alignment").unwrap_or(DEFAULT_ALIGNMENT)
}
