//! The memory accesses of a loop nest, seen from its outermost loop: for each load and
//! store, which buffer it touches and, per dimension of the memref it indexes, the index
//! as an affine expression of the nest's outer induction variables, of the inner loops'
//! induction variables (with the ranges their bounds give them) and of values defined
//! outside the nest. Sibling-nest fusion ([`super::nest_fusion`]) asks of these whether
//! two iterations of the outer loop can touch the same element.

use std::collections::{BTreeMap, HashMap, HashSet};

use tb_dialects::loop_;
use tb_ir::affine::{AffineExpr, AffineMap, Interval, expr_interval};
use tb_ir::value::ValueDef;
use tb_ir::{Context, OpId, TypeKind, Value};

/// The memory a buffer lives in, as far as aliasing goes: two accesses may touch the same
/// bytes only when their buffers have the same key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BufferKey {
    /// A buffer allocated in the function (`loop.alloc`, `memref.alloc`).
    Allocation(Value),
    /// A global, by symbol name (every `memref.get_global` of it is the same memory).
    Global(String),
    /// Any other memref (function arguments, results of calls): they may alias each other.
    External,
}

/// One load or store inside a nest.
#[derive(Clone, Debug)]
pub struct NestAccess {
    pub op: OpId,
    /// The memref operand (possibly a view).
    pub memref: Value,
    pub key: BufferKey,
    pub write: bool,
    /// Per memref dimension, the index over [`IndexSpace`]'s dims and symbols; `None` when
    /// it depends on a value computed inside the nest that is not an induction variable.
    pub indices: Vec<Option<AffineExpr>>,
    /// Elements touched along the last dimension (a vector's length; 1 for scalars).
    pub width: i64,
}

/// The variables the indices of a nest's accesses are written over: dims `0..outer` are
/// the outer loop's induction variables, the following dims the inner loops' (each with a
/// range when its bounds give one), symbols the values defined outside the nest.
#[derive(Clone, Debug, Default)]
pub struct IndexSpace {
    pub outer: usize,
    pub inner_ranges: Vec<Option<Interval>>,
    /// Symbol position of each outside value, shared by the nests being compared.
    pub symbols: HashMap<Value, u32>,
}

impl IndexSpace {
    /// The range of every dim, outer ones unknown.
    pub fn dim_ranges(&self) -> Vec<Option<Interval>> {
        let mut ranges = vec![None; self.outer];
        ranges.extend(self.inner_ranges.iter().copied());
        ranges
    }
}

/// The accesses of a nest, or the op that makes its effects unknown.
pub struct NestAccesses {
    pub accesses: Vec<NestAccess>,
    pub space: IndexSpace,
}

/// Ops that give another view of their first operand's buffer.
pub fn is_view(ctx: &Context, op: OpId) -> bool {
    matches!(
        ctx.op_name(op),
        "memref.subview"
            | "memref.view"
            | "memref.reinterpret_cast"
            | "memref.cast"
            | "memref.collapse_shape"
            | "memref.expand_shape"
            | "memref.reshape"
    )
}

/// The buffer `memref` is a view of, and its aliasing key.
pub fn buffer_key(ctx: &Context, memref: Value) -> (Value, BufferKey) {
    let mut root = memref;
    loop {
        match ctx.value(root).def {
            ValueDef::Result { op, .. } if is_view(ctx, op) => root = ctx.op(op).operands[0],
            ValueDef::Result { op, .. } => {
                let key = match ctx.op_name(op) {
                    loop_::ALLOC | "memref.alloc" | "memref.alloca" => BufferKey::Allocation(root),
                    "memref.get_global" => match global_name(ctx, op) {
                        Some(name) => BufferKey::Global(name),
                        None => BufferKey::External,
                    },
                    _ => BufferKey::External,
                };
                return (root, key);
            }
            ValueDef::BlockArgument { .. } | ValueDef::Placeholder => {
                return (root, BufferKey::External);
            }
        }
    }
}

fn global_name(ctx: &Context, op: OpId) -> Option<String> {
    let attr = ctx.op_inherent_or_attr(op, "name")?;
    match ctx.attr_kind(attr) {
        tb_ir::AttrKind::SymbolRef { root, .. } => Some(root.to_string()),
        _ => None,
    }
}

/// What a nested op does to memory, for the analysis.
enum Effect {
    None,
    Read { memref: usize, first_index: usize },
    Write { memref: usize, first_index: usize },
}

fn effect(ctx: &Context, op: OpId) -> Result<Effect, String> {
    let name = ctx.op_name(op);
    Ok(match name {
        loop_::LOAD | loop_::VECTOR_LOAD | "memref.load" => Effect::Read {
            memref: 0,
            first_index: 1,
        },
        loop_::STORE | loop_::VECTOR_STORE | "memref.store" => Effect::Write {
            memref: 1,
            first_index: 2,
        },
        loop_::FOR | loop_::PARALLEL | loop_::YIELD | loop_::ALLOC | loop_::DEALLOC => Effect::None,
        "scf.if" | "scf.yield" => Effect::None,
        // A hint: it reads nothing the program sees and writes nothing.
        "memref.prefetch" => Effect::None,
        _ if crate::is_pure(ctx, op) => Effect::None,
        _ => {
            return Err(format!(
                "'{name}' has effects the fusion cannot see through"
            ));
        }
    })
}

/// Collects the accesses of `nest` (a `loop.for` or `loop.parallel`), numbering the
/// outside values it indexes with into `symbols` (shared between the nests compared).
pub fn nest_accesses(
    ctx: &Context,
    nest: OpId,
    symbols: &mut HashMap<Value, u32>,
) -> Result<NestAccesses, String> {
    let outer_ivs = loop_::induction_vars(ctx, nest);
    let mut inside: Vec<OpId> = Vec::new();
    ctx.walk_nested(nest, &mut |op| inside.push(op));
    let inside_ops: HashSet<OpId> = inside.iter().copied().collect();

    // Dims: outer ivs first, inner ivs in pre-order, so an inner loop's bounds only refer
    // to dims already numbered.
    let mut dims: HashMap<Value, u32> = HashMap::new();
    for (i, &iv) in outer_ivs.iter().enumerate() {
        dims.insert(iv, i as u32);
    }
    let mut space = IndexSpace {
        outer: outer_ivs.len(),
        inner_ranges: Vec::new(),
        symbols: std::mem::take(symbols),
    };
    let mut accesses = Vec::new();
    let result = (|| {
        for &op in &inside {
            if loop_::is_loop(ctx, op) {
                let loop_dims = loop_::loop_dims(ctx, op).ok_or("a malformed inner loop")?;
                for dim in loop_dims {
                    let range = iv_range(ctx, &dim, &dims, &inside_ops, &mut space);
                    dims.insert(
                        dim.induction_var,
                        (space.outer + space.inner_ranges.len()) as u32,
                    );
                    space.inner_ranges.push(range);
                }
                continue;
            }
            let (memref_at, first_index, write) = match effect(ctx, op)? {
                Effect::None => continue,
                Effect::Read {
                    memref,
                    first_index,
                } => (memref, first_index, false),
                Effect::Write {
                    memref,
                    first_index,
                } => (memref, first_index, true),
            };
            let operands = &ctx.op(op).operands;
            let memref = operands[memref_at];
            let index_operands = &operands[first_index..];
            let map = if ctx.op_name(op).starts_with("memref.") {
                AffineMap::identity(index_operands.len() as u32)
            } else {
                loop_::access_map(ctx, op).ok_or("a load or store without an access map")?
            };
            let indices = access_indices(ctx, &map, index_operands, &dims, &inside_ops, &mut space);
            let (_, key) = buffer_key(ctx, memref);
            let width = vector_length(ctx, op, write);
            accesses.push(NestAccess {
                op,
                memref,
                key,
                write,
                indices,
                width,
            });
        }
        Ok::<(), String>(())
    })();
    *symbols = std::mem::take(&mut space.symbols);
    result?;
    space.symbols = symbols.clone();
    // Buffers allocated inside the nest are private to an iteration.
    accesses.retain(|a| {
        let (root, _) = buffer_key(ctx, a.memref);
        !defined_inside(ctx, root, &inside_ops)
    });
    Ok(NestAccesses { accesses, space })
}

/// Whether `v` is defined by an op inside the nest or is an argument of a block in it.
fn defined_inside(ctx: &Context, v: Value, inside: &HashSet<OpId>) -> bool {
    match ctx.value(v).def {
        ValueDef::Result { op, .. } => inside.contains(&op),
        ValueDef::BlockArgument { block, .. } => ctx
            .block(block)
            .parent
            .and_then(|r| ctx.region(r).parent)
            .is_some_and(|owner| inside.contains(&owner)),
        ValueDef::Placeholder => false,
    }
}

/// The number of elements a vector load or store touches (1 for scalars).
fn vector_length(ctx: &Context, op: OpId, write: bool) -> i64 {
    let value_ty = if write {
        ctx.value_type(ctx.op(op).operands[0])
    } else {
        match ctx.op(op).results.first() {
            Some(&r) => ctx.value_type(r),
            None => return 1,
        }
    };
    match ctx.type_kind(value_ty) {
        TypeKind::Vector { shape, .. } => shape.iter().product::<i64>().max(1),
        _ => 1,
    }
}

/// How an index operand enters the analysis.
fn operand_expr(
    ctx: &Context,
    v: Value,
    dims: &HashMap<Value, u32>,
    inside: &HashSet<OpId>,
    space: &mut IndexSpace,
) -> Option<AffineExpr> {
    if let Some(&d) = dims.get(&v) {
        return Some(AffineExpr::dim(d));
    }
    if let Some(c) = constant_index(ctx, v) {
        return Some(AffineExpr::constant(c));
    }
    if defined_inside(ctx, v, inside) {
        return None;
    }
    let next = space.symbols.len() as u32;
    Some(AffineExpr::symbol(*space.symbols.entry(v).or_insert(next)))
}

/// `map` applied to `operands` (dims, then symbols), over the nest's index space.
fn access_indices(
    ctx: &Context,
    map: &AffineMap,
    operands: &[Value],
    dims: &HashMap<Value, u32>,
    inside: &HashSet<OpId>,
    space: &mut IndexSpace,
) -> Vec<Option<AffineExpr>> {
    let exprs: Vec<Option<AffineExpr>> = operands
        .iter()
        .map(|&v| operand_expr(ctx, v, dims, inside, space))
        .collect();
    let num_dims = map.num_dims as usize;
    map.results
        .iter()
        .map(|result| {
            let mut unknown = false;
            result.walk(&mut |e| match e {
                AffineExpr::Dim(d) => unknown |= exprs.get(*d as usize).is_none_or(|x| x.is_none()),
                AffineExpr::Symbol(s) => {
                    unknown |= exprs
                        .get(num_dims + *s as usize)
                        .is_none_or(|x| x.is_none())
                }
                _ => {}
            });
            if unknown {
                return None;
            }
            // Unknown operands are not used by this result: any placeholder does.
            let dim_exprs: Vec<AffineExpr> = exprs[..num_dims]
                .iter()
                .map(|e| e.clone().unwrap_or(AffineExpr::constant(0)))
                .collect();
            let symbol_exprs: Vec<AffineExpr> = exprs[num_dims..]
                .iter()
                .map(|e| e.clone().unwrap_or(AffineExpr::constant(0)))
                .collect();
            Some(
                result
                    .replace_dims_and_symbols(&dim_exprs, &symbol_exprs)
                    .simplify(),
            )
        })
        .collect()
}

/// The values an induction variable takes, from constant parts of its bounds: at least
/// the largest lower-bound result known, below the smallest upper-bound result known.
fn iv_range(
    ctx: &Context,
    dim: &loop_::LoopDim,
    dims: &HashMap<Value, u32>,
    inside: &HashSet<OpId>,
    space: &mut IndexSpace,
) -> Option<Interval> {
    let ranges = space.dim_ranges();
    let mut bound_results = |bound: &loop_::Bound| -> Vec<Option<Interval>> {
        let indices = access_indices(ctx, &bound.map, &bound.operands, dims, inside, space);
        indices
            .into_iter()
            .map(|e| e.and_then(|e| expr_interval(&e, &ranges)))
            .collect()
    };
    // max(lower) is at least each lower result's least value.
    let lo = bound_results(&dim.lower)
        .into_iter()
        .flatten()
        .map(|i| i.lo)
        .max()?;
    // min(upper) is at most each upper result's greatest value.
    let hi_exclusive = bound_results(&dim.upper)
        .into_iter()
        .flatten()
        .map(|i| i.hi)
        .min()?;
    (hi_exclusive > lo).then_some(Interval {
        lo,
        hi: hi_exclusive - 1,
    })
}

/// The value of `v` when an integer `arith.constant` defines it.
fn constant_index(ctx: &Context, v: Value) -> Option<i64> {
    let ValueDef::Result { op, .. } = ctx.value(v).def else {
        return None;
    };
    match ctx.attr_kind(tb_ir::rewrite::folder::constant_value(ctx, op)?) {
        tb_ir::AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// The part of an index that moves with outer induction variable `outer_dim`:
/// `index = coefficient * iv + rest`, where `rest` depends on no outer induction variable.
/// Gives the coefficient, the range of `rest` without its symbol terms, and those terms
/// (which must agree between accesses for their footprints to be compared).
pub struct OuterStride {
    pub coefficient: i64,
    pub rest: Interval,
    pub symbol_terms: BTreeMap<u32, i64>,
}

/// Splits `index` along outer dim `outer_dim`, or `None` when it is not of that form.
pub fn outer_stride(index: &AffineExpr, outer_dim: u32, space: &IndexSpace) -> Option<OuterStride> {
    let linear = index.linear_form()?;
    let ranges = space.dim_ranges();
    let outer = space.outer as u32;
    let mut coefficient = 0;
    let mut rest = Interval {
        lo: linear.constant_term(),
        hi: linear.constant_term(),
    };
    let mut symbol_terms = BTreeMap::new();
    for (atom, k) in linear.terms() {
        match atom {
            AffineExpr::Dim(d) if *d == outer_dim => coefficient = k,
            AffineExpr::Symbol(s) => {
                symbol_terms.insert(*s, k);
            }
            _ => {
                if (0..outer).any(|d| atom.is_function_of_dim(d)) {
                    return None;
                }
                let range = expr_interval(atom, &ranges)?;
                let (a, b) = (range.lo.checked_mul(k)?, range.hi.checked_mul(k)?);
                rest = Interval {
                    lo: rest.lo.checked_add(a.min(b))?,
                    hi: rest.hi.checked_add(a.max(b))?,
                };
            }
        }
    }
    (coefficient != 0).then_some(OuterStride {
        coefficient,
        rest,
        symbol_terms,
    })
}
