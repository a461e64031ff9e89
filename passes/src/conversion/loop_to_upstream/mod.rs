//! `convert-loop-to-upstream`: the `loop` level in upstream MLIR's dialects, so that
//! `mlir-opt`, MLIR's lowering pipelines and its ExecutionEngine can take it.
//!
//! - `loop.for` becomes `scf.for` (iter_args kept; a bound given by a map becomes
//!   `affine.max` of the lower map's results and `affine.min` of the upper map's, or one
//!   `affine.apply`), `loop.parallel` becomes `scf.parallel` (its body ends in `scf.reduce`);
//! - `loop.load`/`loop.store` become `memref.load`/`memref.store`, and their vector forms
//!   `vector.load`/`vector.store`, at indices computed by one `affine.apply` per map result
//!   (an index that is a plain loop variable or a constant is used as it is);
//! - `loop.broadcast` becomes `vector.broadcast`, `loop.fma` `vector.fma` (`math.fma` on
//!   scalars), `loop.alloc`/`loop.dealloc` `memref.alloc`/`memref.dealloc` with the same
//!   alignment, and `loop.dot` (the integer micro-kernels' step) the `arith` and
//!   `vector.shuffle` ops that compute it ([`dot`]).
//!
//! Schedule annotations (`vectorize`, `unroll`, `parallel`, `#loop.schedule`) have no upstream
//! meaning and are dropped with their loops, as are TensorBind's `tb.*` attributes on
//! functions. `scf.parallel` is kept for `loop.parallel`, so what may run concurrently stays
//! visible. Buffers of signed and unsigned integers become signless ([`signless`]): MLIR's
//! `arith` takes only signless integers, and the loop level computes on signless scalars
//! with the signedness in the op already. Boolean globals get `dense<...>` literals for
//! their `dense_resource` blobs ([`bool_globals`]), which MLIR cannot translate to LLVM IR,
//! and `math.isinf`, which MLIR does not lower to LLVM, is written with `math.isfinite` and
//! `math.isnan` ([`isinf`]).

use tb_dialects::loop_::{self, Bound, LoopOp};
use tb_ir::affine::{AffineExpr, AffineMap};
use tb_ir::attributes::DenseArrayData;
use tb_ir::ods::OpKind;
use tb_ir::operation::OperationState;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Attr, AttrKind, Context, Diagnostic, OpId, Signedness, Type, TypeKind, Value};

use crate::schedule::build::At as Builder;

mod bool_globals;
mod dot;
mod isinf;
mod loop_allocas;
mod signless;

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-loop-to-upstream",
        description: "Convert the loop dialect to upstream MLIR's scf, affine, memref and vector dialects",
        options: &[],
        create: |_: &PassOptions| Box::new(ConvertLoopToUpstream),
    }
}

struct ConvertLoopToUpstream;

impl Pass for ConvertLoopToUpstream {
    fn argument(&self) -> &'static str {
        "convert-loop-to-upstream"
    }

    fn display_name(&self) -> &'static str {
        "ConvertLoopToUpstream"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        signless::make_integers_signless(ctx, op);
        bool_globals::inline_bool_resources(ctx, op);
        loop_allocas::heap_per_iteration(ctx, op);
        // Inner ops first (reversed pre-order): a loop's yield is replaced when the loop is,
        // so it must not be visited after.
        let mut ops = Vec::new();
        ctx.walk_nested(op, &mut |o| ops.push(o));
        for o in ops.into_iter().rev() {
            if let Some(kind) = LoopOp::of(ctx, o) {
                convert(ctx, o, kind)?;
            } else if ctx.op_name(o) == "func.func" {
                drop_tensorbind_attributes(ctx, o);
            } else if ctx.op_name(o) == "math.isinf" {
                isinf::expand(ctx, o);
            }
        }
        Ok(())
    }
}

/// Removes `tb.*` discardable attributes (arena sizes and the like) from a function.
fn drop_tensorbind_attributes(ctx: &mut Context, func: OpId) {
    let AttrKind::Dictionary(entries) = ctx.attr_kind(ctx.op(func).attributes) else {
        return;
    };
    let kept: Vec<(String, Attr)> = entries
        .iter()
        .filter(|(name, _)| !name.starts_with("tb."))
        .cloned()
        .collect();
    if kept.len() != entries.len() {
        let attributes = ctx.dictionary_attr(kept);
        ctx.op_mut(func).attributes = attributes;
    }
}

fn convert(ctx: &mut Context, op: OpId, kind: LoopOp) -> Result<(), Diagnostic> {
    let b = Builder {
        before: op,
        loc: ctx.op(op).loc,
    };
    let operands: Vec<Value> = ctx.op(op).operands.to_vec();
    let results: Vec<Type> = ctx
        .op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let replacement: Vec<Value> = match kind {
        LoopOp::For => return convert_for(ctx, b, op),
        LoopOp::Parallel => return convert_parallel(ctx, b, op),
        LoopOp::Yield => return Ok(()),
        LoopOp::Alloc => {
            let alignment = loop_::alignment(ctx, op);
            let i64_ty = ctx.i64();
            let alignment = ctx.integer_attr(alignment.into(), i64_ty);
            let segments = segment_sizes(ctx, &[operands.len(), 0]);
            let created = b.create(
                ctx,
                "memref.alloc",
                operands,
                results,
                vec![("alignment", alignment), ("operandSegmentSizes", segments)],
                0,
            );
            ctx.op(created).results.to_vec()
        }
        LoopOp::Dealloc => {
            b.create(ctx, "memref.dealloc", operands, vec![], vec![], 0);
            vec![]
        }
        LoopOp::Load | LoopOp::VectorLoad => {
            let map = loop_::access_map(ctx, op).ok_or_else(|| missing(ctx, op, "map"))?;
            let indices = indices(ctx, b, &map, &operands[1..]);
            let name = if kind == LoopOp::Load {
                "memref.load"
            } else {
                "vector.load"
            };
            let mut all = vec![operands[0]];
            all.extend(indices);
            let created = b.create(ctx, name, all, results, vec![], 0);
            ctx.op(created).results.to_vec()
        }
        LoopOp::Store | LoopOp::VectorStore => {
            let map = loop_::access_map(ctx, op).ok_or_else(|| missing(ctx, op, "map"))?;
            let indices = indices(ctx, b, &map, &operands[2..]);
            let name = if kind == LoopOp::Store {
                "memref.store"
            } else {
                "vector.store"
            };
            let mut all = vec![operands[0], operands[1]];
            all.extend(indices);
            b.create(ctx, name, all, vec![], vec![], 0);
            vec![]
        }
        LoopOp::Broadcast => {
            let created = b.create(ctx, "vector.broadcast", operands, results, vec![], 0);
            ctx.op(created).results.to_vec()
        }
        LoopOp::Dot => vec![dot::lower(ctx, b, op)?],
        LoopOp::Fma => {
            let vector = matches!(ctx.type_kind(results[0]), TypeKind::Vector { .. });
            let name = if vector { "vector.fma" } else { "math.fma" };
            let created = b.create(ctx, name, operands, results, vec![], 0);
            ctx.op(created).results.to_vec()
        }
    };
    replace(ctx, op, &replacement);
    Ok(())
}

fn missing(ctx: &Context, op: OpId, what: &str) -> Diagnostic {
    Diagnostic::error(
        ctx.op(op).loc,
        format!("'{}' op has no {what}", ctx.op_name(op)),
    )
}

/// `loop.for` → `scf.for`, the body moved over (its arguments are already `scf.for`'s:
/// the induction variable, then the iter_args).
fn convert_for(ctx: &mut Context, b: Builder, op: OpId) -> Result<(), Diagnostic> {
    let dims = loop_::loop_dims(ctx, op).ok_or_else(|| missing(ctx, op, "bounds"))?;
    let [dim] = dims.as_slice() else {
        return Err(missing(ctx, op, "single dimension"));
    };
    let lower = bound(ctx, b, &dim.lower, "affine.max");
    let upper = bound(ctx, b, &dim.upper, "affine.min");
    let step = index_constant(ctx, b, dim.step);
    let mut operands = vec![lower, upper, step];
    operands.extend_from_slice(loop_::inits(ctx, op));
    let results: Vec<Type> = ctx
        .op(op)
        .results
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let new = b.create(ctx, "scf.for", operands, results, vec![], 1);
    move_body(ctx, op, new, "scf.yield");
    let replacement = ctx.op(new).results.to_vec();
    replace(ctx, op, &replacement);
    Ok(())
}

/// `loop.parallel` → `scf.parallel` with no reductions.
fn convert_parallel(ctx: &mut Context, b: Builder, op: OpId) -> Result<(), Diagnostic> {
    let dims = loop_::loop_dims(ctx, op).ok_or_else(|| missing(ctx, op, "bounds"))?;
    let lowers: Vec<Value> = dims
        .iter()
        .map(|d| bound(ctx, b, &d.lower, "affine.max"))
        .collect();
    let uppers: Vec<Value> = dims
        .iter()
        .map(|d| bound(ctx, b, &d.upper, "affine.min"))
        .collect();
    let steps: Vec<Value> = dims
        .iter()
        .map(|d| index_constant(ctx, b, d.step))
        .collect();
    let n = dims.len();
    let segments = segment_sizes(ctx, &[n, n, n, 0]);
    let operands = [lowers, uppers, steps].concat();
    let new = b.create(
        ctx,
        "scf.parallel",
        operands,
        vec![],
        vec![("operandSegmentSizes", segments)],
        1,
    );
    move_body(ctx, op, new, "scf.reduce");
    ctx.erase_op(op);
    Ok(())
}

/// Moves the body of loop `from` into the single region of `to`, ending it with
/// `terminator` (given the operands of the `loop.yield` it replaces, if any).
fn move_body(ctx: &mut Context, from: OpId, to: OpId, terminator: &str) {
    let source = ctx.op(from).regions[0];
    let target = ctx.op(to).regions[0];
    let blocks = ctx.take_blocks(source);
    ctx.insert_blocks(target, None, &blocks);
    let Some(&block) = blocks.first() else {
        return;
    };
    let last = ctx.block_terminator(block);
    let (operands, before) = match last {
        Some(t) if LoopOp::of(ctx, t) == Some(LoopOp::Yield) => {
            (ctx.op(t).operands.to_vec(), Some(t))
        }
        _ => (vec![], None),
    };
    let loc = ctx.op(to).loc;
    let name = ctx.intern_op_name(terminator);
    let new = ctx.create_op(OperationState {
        name,
        operands,
        result_types: vec![],
        successors: vec![],
        num_regions: 0,
        properties: None,
        attributes: vec![],
        loc,
    });
    ctx.append_op(block, new);
    if let Some(old) = before {
        ctx.erase_op(old);
    }
}

/// The value of a loop bound: a constant, a plain operand, one `affine.apply`, or
/// `combine` (`affine.max`/`affine.min`) of several results.
fn bound(ctx: &mut Context, b: Builder, bound: &Bound, combine: &str) -> Value {
    if let Some(c) = bound.constant() {
        return index_constant(ctx, b, c);
    }
    if let [only] = bound.map.results.as_slice() {
        return index_of(ctx, b, &bound.map, only, &bound.operands);
    }
    let index = ctx.index_type();
    let map = ctx.intern_attr(AttrKind::AffineMap(bound.map.clone()));
    let op = b.create(
        ctx,
        combine,
        bound.operands.clone(),
        vec![index],
        vec![("map", map)],
        0,
    );
    ctx.op(op).results[0]
}

/// One index per result of `map` applied to `operands`.
fn indices(ctx: &mut Context, b: Builder, map: &AffineMap, operands: &[Value]) -> Vec<Value> {
    map.results
        .iter()
        .map(|r| index_of(ctx, b, map, r, operands))
        .collect()
}

/// The value of `result` (a result of `map`) on `operands`: the operand itself for a plain
/// dim or symbol, a constant, or an `affine.apply` of the one-result map.
fn index_of(
    ctx: &mut Context,
    b: Builder,
    map: &AffineMap,
    result: &AffineExpr,
    operands: &[Value],
) -> Value {
    let simplified = result.simplify();
    if let Some(c) = simplified.constant_value() {
        return index_constant(ctx, b, c);
    }
    if let Some(d) = simplified.as_dim() {
        return operands[d as usize];
    }
    let single = AffineMap::new(map.num_dims, map.num_symbols, vec![simplified]);
    let map = ctx.intern_attr(AttrKind::AffineMap(single));
    let index = ctx.index_type();
    let op = b.create(
        ctx,
        "affine.apply",
        operands.to_vec(),
        vec![index],
        vec![("map", map)],
        0,
    );
    ctx.op(op).results[0]
}

fn replace(ctx: &mut Context, op: OpId, values: &[Value]) {
    let old = ctx.op(op).results.to_vec();
    for (from, &to) in old.into_iter().zip(values) {
        ctx.replace_all_uses(from, to);
    }
    ctx.erase_op(op);
}

fn segment_sizes(ctx: &mut Context, sizes: &[usize]) -> Attr {
    let i32_ty = ctx.integer_type(32, Signedness::Signless);
    ctx.intern_attr(AttrKind::DenseArray {
        element: i32_ty,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i128).collect()),
    })
}

/// An `index` constant created before `at`.
fn index_constant(ctx: &mut Context, at: Builder, value: i64) -> Value {
    let index = ctx.index_type();
    let value = ctx.integer_attr(value.into(), index);
    let op = at.create(
        ctx,
        "arith.constant",
        vec![],
        vec![index],
        vec![("value", value)],
        0,
    );
    ctx.op(op).results[0]
}
