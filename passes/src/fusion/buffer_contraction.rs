//! Buffers that a fused nest keeps apart by its outer loop become one small buffer per
//! iteration. After `loop-fuse` a convolution kernel and the transposition of its sums
//! (with the epilogue) share one nest: each iteration writes its tile of the channels-last
//! scratch buffer and reads it back at once. The scratch buffer is still as large as the
//! whole result, so its lines are written back to memory although no other iteration
//! ever reads them; contracted to the tile, it stays in the first-level cache.
//!
//! A `loop.alloc` qualifies when all its accesses (loads and stores, scalar or vector,
//! of the buffer itself, not a view) lie in one nest without loop-carried values, its
//! other uses are deallocations, and, for every induction variable `iv` of the nest's
//! outermost loop, some dimension is indexed in every access as `a * iv + rest` with the
//! same `a`, no outside value, and a joint range of `rest` narrower than `a * step`. Then
//! no element is touched by two iterations and none is read after the nest, so each
//! iteration may have a buffer of its own. That buffer (a `memref.alloca` at the start of
//! the outermost body: stack space of the thread running the iteration) keeps the other
//! dimensions and, for each split one, the range of `rest`; accesses index it by
//! `rest - min(rest)`.

use std::collections::HashMap;

use tb_dialects::loop_;
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::{BlockId, Context, OpId, TypeKind, Value};

use super::compose::set_read_map;
use super::nest_access::{BufferKey, NestAccess, nest_accesses};
use super::nest_fusion::splits_dimension;
use crate::schedule::build::At;

/// The largest buffer per iteration contraction creates, in bytes: it lives on the stack
/// of the thread that runs the iteration.
pub const MAX_CONTRACTED_BYTES: i64 = 128 * 1024;

/// Contracts every qualifying buffer allocated in `blocks`; returns how many.
pub fn contract_buffers(ctx: &mut Context, blocks: &[BlockId]) -> u64 {
    let mut contracted = 0;
    for &block in blocks {
        let allocs: Vec<OpId> = ctx
            .block_ops(block)
            .filter(|&op| ctx.op_name(op) == loop_::ALLOC && ctx.op(op).operands.is_empty())
            .collect();
        for alloc in allocs {
            if let Some(plan) = contraction(ctx, alloc) {
                apply(ctx, alloc, plan);
                contracted += 1;
            }
        }
    }
    contracted
}

/// How a buffer is contracted.
struct Contraction {
    nest: OpId,
    shape: Vec<i64>,
    element: tb_ir::Type,
    /// Per access op: its new map.
    maps: Vec<(OpId, AffineMap)>,
    deallocs: Vec<OpId>,
}

fn contraction(ctx: &Context, alloc: OpId) -> Option<Contraction> {
    let buffer = ctx.op(alloc).results[0];
    let TypeKind::MemRef {
        shape,
        element,
        layout: None,
        memory_space: None,
    } = ctx.type_kind(ctx.value_type(buffer))
    else {
        return None;
    };
    if shape.iter().any(|&d| d < 0) {
        return None;
    }
    let block = ctx.op(alloc).parent?;
    let (mut accesses, mut deallocs, mut nest) = (Vec::new(), Vec::new(), None);
    for u in &ctx.value(buffer).uses {
        let name = ctx.op_name(u.op);
        match (name, u.index) {
            (loop_::DEALLOC, 0) => deallocs.push(u.op),
            (loop_::LOAD | loop_::VECTOR_LOAD, 0) | (loop_::STORE | loop_::VECTOR_STORE, 1) => {
                let top = ancestor_in(ctx, u.op, block)?;
                if nest.is_some_and(|n| n != top) {
                    return None;
                }
                nest = Some(top);
                accesses.push(u.op);
            }
            _ => return None,
        }
    }
    let nest = nest?;
    if !loop_::is_loop(ctx, nest)
        || !ctx.op(nest).results.is_empty()
        || !loop_::inits(ctx, nest).is_empty()
    {
        return None;
    }
    let steps: Vec<i64> = loop_::loop_dims(ctx, nest)?
        .iter()
        .map(|d| d.step)
        .collect();
    let ivs = loop_::induction_vars(ctx, nest);
    let mut symbols = HashMap::new();
    let analysed = nest_accesses(ctx, nest, &mut symbols).ok()?;
    let mine: Vec<&NestAccess> = analysed
        .accesses
        .iter()
        .filter(|a| a.key == BufferKey::Allocation(buffer))
        .collect();
    if mine.len() != accesses.len() || mine.iter().any(|a| a.memref != buffer) {
        return None;
    }
    let rank = shape.len();
    let mut new_shape = shape.clone();
    // Per memref dimension: the outer induction variable it is split by, and the lowest
    // `rest`.
    let mut split: Vec<Option<(Value, i64)>> = vec![None; rank];
    for (l, &step) in steps.iter().enumerate() {
        let (p, footprint) = (0..rank).filter(|&p| split[p].is_none()).find_map(|p| {
            splits_dimension(&mine, &analysed.space, p, l as u32, step, rank)
                .filter(|f| f.symbol_terms.is_empty())
                .map(|f| (p, f))
        })?;
        split[p] = Some((ivs[l], footprint.lo));
        new_shape[p] = footprint.hi.checked_sub(footprint.lo)?.checked_add(1)?;
    }
    let bytes = new_shape
        .iter()
        .try_fold(element_bytes(ctx, *element)?, |n, &d| n.checked_mul(d))?;
    if bytes > MAX_CONTRACTED_BYTES || new_shape == *shape {
        return None;
    }
    let maps = mine
        .iter()
        .map(|a| Some((a.op, contracted_map(ctx, a.op, &split)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Contraction {
        nest,
        shape: new_shape,
        element: *element,
        maps,
        deallocs,
    })
}

/// The ancestor of `op` (or `op` itself) that lies in `block`.
fn ancestor_in(ctx: &Context, op: OpId, block: BlockId) -> Option<OpId> {
    let mut current = op;
    while ctx.op(current).parent != Some(block) {
        current = ctx.parent_op(current)?;
    }
    Some(current)
}

fn element_bytes(ctx: &Context, element: tb_ir::Type) -> Option<i64> {
    let bits = match ctx.type_kind(element) {
        TypeKind::Float(kind) => i64::from(kind.width()),
        TypeKind::Integer { width, .. } => i64::from(*width),
        TypeKind::Index => 64,
        _ => return None,
    };
    Some((bits + 7) / 8)
}

/// The access's map with each split dimension indexed by `rest - lo`: the outer
/// induction variable that splits it set to zero (the index is linear in it).
fn contracted_map(ctx: &Context, op: OpId, split: &[Option<(Value, i64)>]) -> Option<AffineMap> {
    let map = loop_::access_map(ctx, op)?;
    let first_index = if ctx.op_name(op).ends_with("store") {
        2
    } else {
        1
    };
    let operands = &ctx.op(op).operands[first_index..];
    if operands.len() != map.num_inputs() as usize || map.results.len() != split.len() {
        return None;
    }
    let num_dims = map.num_dims as usize;
    let results = map
        .results
        .iter()
        .zip(split)
        .map(|(result, how)| match how {
            None => result.clone(),
            Some((iv, lo)) => {
                let input = |i: usize| {
                    if operands[i] == *iv {
                        AffineExpr::constant(0)
                    } else if i < num_dims {
                        AffineExpr::dim(i as u32)
                    } else {
                        AffineExpr::symbol((i - num_dims) as u32)
                    }
                };
                let dims: Vec<AffineExpr> = (0..num_dims).map(input).collect();
                let symbols: Vec<AffineExpr> = (num_dims..operands.len()).map(input).collect();
                (result.replace_dims_and_symbols(&dims, &symbols) - *lo).simplify()
            }
        })
        .collect();
    Some(AffineMap::new(map.num_dims, map.num_symbols, results))
}

fn apply(ctx: &mut Context, alloc: OpId, plan: Contraction) {
    let body = loop_::body(ctx, plan.nest).expect("a loop has a body");
    let first = ctx
        .block(body)
        .first
        .expect("a loop body ends with its terminator");
    let ty = ctx.intern_type(TypeKind::MemRef {
        shape: plan.shape,
        element: plan.element,
        layout: None,
        memory_space: None,
    });
    let at = At {
        before: first,
        loc: ctx.op(alloc).loc,
    };
    let tile = at.alloca(ctx, ty, loop_::alignment(ctx, alloc));
    let old = ctx.op(alloc).results[0];
    for (op, map) in plan.maps {
        let at = if ctx.op_name(op).ends_with("store") {
            1
        } else {
            0
        };
        ctx.set_operand(op, at, tile);
        set_read_map(ctx, op, map);
    }
    for dealloc in plan.deallocs {
        ctx.erase_op(dealloc);
    }
    debug_assert!(ctx.value(old).uses.is_empty());
    ctx.erase_op(alloc);
}
