//! Canonicalization patterns of `memref`, as MLIR 22 has them: constant sizes become
//! static (with a `memref.cast` back to the old type), allocations only stored to and
//! freed are erased, users take a cast's source when the cast only forgets static
//! information, and copies that move nothing are erased. Views have theirs in
//! `canonicalize_views`.

use tb_ir::ods::operand_group;
use tb_ir::operation::OperationState;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::types::DYNAMIC;
use tb_ir::{Attr, Context, OpId, Type, Value};

use super::index_list::{constant_index, segment_sizes};
use super::layout::{MemRef, cast_only_erases};

/// Creates `name` before `at`, at its location, and returns its first result (if any).
pub(crate) fn create(
    rewriter: &mut Rewriter,
    at: OpId,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    properties: Vec<(String, Attr)>,
) -> OpId {
    let loc = rewriter.ctx().op(at).loc;
    let ctx = rewriter.ctx_mut();
    let name = ctx.intern_op_name(name);
    let properties = (!properties.is_empty()).then(|| ctx.dictionary_attr(properties));
    rewriter.create_op_before(
        at,
        OperationState {
            name,
            operands,
            result_types,
            successors: vec![],
            num_regions: 0,
            properties,
            attributes: vec![],
            loc,
        },
    )
}

fn create_cast(rewriter: &mut Rewriter, at: OpId, value: Value, ty: Type) -> Value {
    let cast = create(rewriter, at, super::CAST, vec![value], vec![ty], vec![]);
    rewriter.ctx().op(cast).results[0]
}

/// Replaces `op` by `value`, through a cast when the types differ.
pub(crate) fn replace_with_cast(rewriter: &mut Rewriter, op: OpId, value: Value) {
    let ty = rewriter.ctx().value_type(rewriter.ctx().op(op).results[0]);
    let value = if rewriter.ctx().value_type(value) == ty {
        value
    } else {
        create_cast(rewriter, op, value, ty)
    };
    rewriter.replace_op(op, &[value]);
}

/// Sizes of `ty`'s dynamic dimensions: the constant, non-negative ones become static.
/// Returns the new shape and the sizes still dynamic, or `None` if nothing changes.
pub(crate) fn fold_constant_sizes(
    ctx: &Context,
    ty: &MemRef,
    sizes: &[Value],
) -> Option<(Vec<i64>, Vec<Value>)> {
    let mut remaining = Vec::new();
    let mut dynamic = sizes.iter();
    let mut changed = false;
    let mut shape = Vec::with_capacity(ty.rank());
    for &d in &ty.shape {
        if d != DYNAMIC {
            shape.push(d);
            continue;
        }
        let size = *dynamic.next()?;
        match constant_index(ctx, size).filter(|&c| c >= 0) {
            Some(c) => {
                changed = true;
                shape.push(c);
            }
            None => {
                remaining.push(size);
                shape.push(DYNAMIC);
            }
        }
    }
    changed.then_some((shape, remaining))
}

/// `alloc(%c4)` → `cast(alloc() : memref<4x..>)`.
struct AllocConstantSizes(&'static str);

impl RewritePattern for AllocConstantSizes {
    fn debug_name(&self) -> &'static str {
        "SimplifyAllocConst"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(ty) = MemRef::of(ctx, ctx.value_type(ctx.op(op).results[0])) else {
            return false;
        };
        let sizes = operand_group(ctx, op, 0).to_vec();
        let symbols = operand_group(ctx, op, 1).to_vec();
        let Some((shape, remaining)) = fold_constant_sizes(ctx, &ty, &sizes) else {
            return false;
        };
        let alignment = ctx.op_inherent_or_attr(op, "alignment");
        let ctx = rewriter.ctx_mut();
        let new_ty = ty.with_shape(shape).build(ctx);
        let mut props = vec![(
            "operandSegmentSizes".to_string(),
            segment_sizes(ctx, &[remaining.len(), symbols.len()]),
        )];
        props.extend(alignment.map(|a| ("alignment".to_string(), a)));
        let operands = remaining.into_iter().chain(symbols).collect();
        let alloc = create(rewriter, op, self.0, operands, vec![new_ty], props);
        let value = rewriter.ctx().op(alloc).results[0];
        replace_with_cast(rewriter, op, value);
        true
    }
}

/// An allocation only stored into and freed is erased with those users.
struct DeadAlloc(&'static str);

impl RewritePattern for DeadAlloc {
    fn debug_name(&self) -> &'static str {
        "SimplifyDeadAlloc"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let memref = ctx.op(op).results[0];
        let mut users: Vec<OpId> = ctx.value(memref).uses.iter().map(|u| u.op).collect();
        users.dedup();
        let removable = users.iter().all(|&user| match ctx.op_name(user) {
            super::DEALLOC => true,
            super::STORE => ctx.op(user).operands[0] != memref,
            _ => false,
        });
        if !removable {
            return false;
        }
        for user in users {
            rewriter.erase_op(user);
        }
        rewriter.erase_op(op);
        true
    }
}

/// `op(cast(%x))` → `op(%x)`: users of a cast from a ranked memref take its source
/// (MLIR's `foldMemRefCast`), or, with `only_erasing`, only if the cast merely forgets
/// static information.
struct TakeCastSource {
    root: &'static str,
    /// An operand that is not a memref the op accesses (a stored value).
    skip: Option<usize>,
    only_erasing: bool,
}

impl RewritePattern for TakeCastSource {
    fn debug_name(&self) -> &'static str {
        "FoldMemRefCast"
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let mut changes = Vec::new();
        for (i, &operand) in ctx.op(op).operands.iter().enumerate() {
            if Some(i) == self.skip {
                continue;
            }
            let Some(cast) = ctx
                .defining_op(operand)
                .filter(|&p| ctx.op_name(p) == super::CAST)
            else {
                continue;
            };
            let source = ctx.op(cast).operands[0];
            let source_ty = ctx.value_type(source);
            let foldable = if self.only_erasing {
                cast_only_erases(ctx, source_ty, ctx.value_type(operand))
            } else {
                MemRef::of(ctx, source_ty).is_some()
            };
            if foldable {
                changes.push((i, source));
            }
        }
        for &(i, source) in &changes {
            rewriter.set_operand(op, i, source);
        }
        !changes.is_empty()
    }
}

/// A copy of a memref onto itself, or of no elements, does nothing.
struct EraseNoOpCopy;

impl RewritePattern for EraseNoOpCopy {
    fn debug_name(&self) -> &'static str {
        "FoldSelfCopy"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::COPY)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let operands = &ctx.op(op).operands;
        let empty =
            |v: Value| MemRef::of(ctx, ctx.value_type(v)).is_some_and(|m| m.shape.contains(&0));
        if operands[0] != operands[1] && !empty(operands[0]) && !empty(operands[1]) {
            return false;
        }
        rewriter.erase_op(op);
        true
    }
}

pub(crate) fn alloc(patterns: &mut PatternSet) {
    patterns.add(Box::new(AllocConstantSizes(super::ALLOC)));
    patterns.add(Box::new(DeadAlloc(super::ALLOC)));
}

pub(crate) fn alloca(patterns: &mut PatternSet) {
    patterns.add(Box::new(AllocConstantSizes(super::ALLOCA)));
    patterns.add(Box::new(DeadAlloc(super::ALLOCA)));
}

fn take_cast_source(patterns: &mut PatternSet, root: &'static str, skip: Option<usize>) {
    patterns.add(Box::new(TakeCastSource {
        root,
        skip,
        only_erasing: false,
    }));
}

pub(crate) fn load(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::LOAD, None);
}

pub(crate) fn store(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::STORE, Some(0));
}

pub(crate) fn atomic_rmw(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::ATOMIC_RMW, Some(0));
}

pub(crate) fn dma_start(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::DMA_START, None);
}

pub(crate) fn dma_wait(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::DMA_WAIT, None);
}

pub(crate) fn prefetch(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::PREFETCH, None);
}

pub(crate) fn dealloc(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::DEALLOC, None);
}

pub(crate) fn dim(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::DIM, None);
    patterns.add(Box::new(DimOfReshape));
}

pub(crate) fn realloc(patterns: &mut PatternSet) {
    patterns.add(Box::new(DeadAlloc(super::REALLOC)));
}

/// `dim(reshape(%src, %shape), %i)` → `load %shape[%i]` (cast to `index` when the shape
/// holds integers), loaded right after the reshape so a later store to `%shape` does not
/// change it; only when `%i` is available there.
struct DimOfReshape;

impl RewritePattern for DimOfReshape {
    fn debug_name(&self) -> &'static str {
        "DimOfMemRefReshape"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::DIM)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let (source, index) = (ctx.op(op).operands[0], ctx.op(op).operands[1]);
        let tb_ir::value::ValueDef::Result { op: reshape, .. } = ctx.value(source).def else {
            return false;
        };
        if ctx.op_name(reshape) != super::RESHAPE || !available_at(ctx, index, reshape) {
            return false;
        }
        let Some(after) = ctx.op(reshape).next else {
            return false;
        };
        let shape = ctx.op(reshape).operands[1];
        let tb_ir::TypeKind::MemRef { element, .. } = *ctx.type_kind(ctx.value_type(shape)) else {
            return false;
        };
        let index_ty = ctx.value_type(ctx.op(op).results[0]);
        let load = create(
            rewriter,
            after,
            super::LOAD,
            vec![shape, index],
            vec![element],
            vec![],
        );
        let mut value = rewriter.ctx().op(load).results[0];
        if element != index_ty {
            let cast = create(
                rewriter,
                after,
                "arith.index_cast",
                vec![value],
                vec![index_ty],
                vec![],
            );
            value = rewriter.ctx().op(cast).results[0];
        }
        rewriter.replace_op(op, &[value]);
        true
    }
}

/// Whether `v` is defined before `at`: an argument of `at`'s block or of a block around
/// it, or the result of an op before `at` in its block or in a block around it.
fn available_at(ctx: &Context, v: Value, at: OpId) -> bool {
    let defining_block = match ctx.value(v).def {
        tb_ir::value::ValueDef::BlockArgument { block, .. } => block,
        tb_ir::value::ValueDef::Result { op, .. } => {
            let Some(block) = ctx.op(op).parent else {
                return false;
            };
            if ctx.op(at).parent == Some(block) {
                return ctx.block_ops(block).position(|o| o == op)
                    < ctx.block_ops(block).position(|o| o == at);
            }
            block
        }
        _ => return false,
    };
    // Walk out from `at` to see whether its blocks include the defining block.
    let mut current = Some(at);
    while let Some(op) = current {
        let Some(block) = ctx.op(op).parent else {
            return false;
        };
        if block == defining_block {
            return true;
        }
        current = ctx.block(block).parent.and_then(|r| ctx.region(r).parent);
    }
    false
}

pub(crate) fn cast(patterns: &mut PatternSet) {
    take_cast_source(patterns, super::CAST, None);
}

pub(crate) fn copy(patterns: &mut PatternSet) {
    patterns.add(Box::new(EraseNoOpCopy));
    patterns.add(Box::new(TakeCastSource {
        root: super::COPY,
        skip: None,
        only_erasing: true,
    }));
}
