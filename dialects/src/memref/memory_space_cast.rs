//! `memref.memory_space_cast`: the same buffer seen in another memory space, as MLIR 22
//! has it: only the memory space may change, a cast to its own type is its source, and a
//! cast of a cast starts from the first source.

use tb_ir::printer::type_to_string;
use tb_ir::registry::FoldResult;
use tb_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use tb_ir::{Attr, Context, Diagnostic, OpId, Type, TypeKind};

use super::layout::MemRef;
use super::verify::op_error;

/// Same element type, and for ranked memrefs the same shape and layout.
fn cast_compatible(ctx: &Context, from: Type, to: Type) -> bool {
    match (MemRef::of(ctx, from), MemRef::of(ctx, to)) {
        (Some(a), Some(b)) => a.element == b.element && a.layout == b.layout && a.shape == b.shape,
        _ => match (ctx.type_kind(from), ctx.type_kind(to)) {
            (
                TypeKind::UnrankedMemRef { element: a, .. },
                TypeKind::UnrankedMemRef { element: b, .. },
            ) => a == b,
            _ => false,
        },
    }
}

pub(crate) fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let data = ctx.op(op);
    let (from, to) = (
        ctx.value_type(data.operands[0]),
        ctx.value_type(data.results[0]),
    );
    if cast_compatible(ctx, from, to) {
        return Ok(());
    }
    op_error(
        ctx,
        op,
        format!(
            "operand type '{}' and result type '{}' are cast incompatible",
            type_to_string(ctx, from),
            type_to_string(ctx, to)
        ),
    )
}

/// A cast to the source's own type is the source.
pub(crate) fn fold(ctx: &Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let data = ctx.op(op);
    let source = data.operands[0];
    (ctx.value_type(source) == ctx.value_type(data.results[0]))
        .then(|| vec![FoldResult::Value(source)])
}

/// `memory_space_cast(memory_space_cast(%x))` casts `%x`, in place.
struct CastOfCast;

impl RewritePattern for CastOfCast {
    fn debug_name(&self) -> &'static str {
        "MemorySpaceCastOfMemorySpaceCast"
    }

    fn root(&self) -> Option<&'static str> {
        Some(super::MEMORY_SPACE_CAST)
    }

    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter) -> bool {
        let ctx = rewriter.ctx();
        let Some(inner) = ctx
            .defining_op(ctx.op(op).operands[0])
            .filter(|&i| ctx.op_name(i) == super::MEMORY_SPACE_CAST)
        else {
            return false;
        };
        let source = ctx.op(inner).operands[0];
        rewriter.set_operand(op, 0, source);
        true
    }
}

pub(crate) fn canonicalize(patterns: &mut PatternSet) {
    patterns.add(Box::new(CastOfCast));
}
