//! `loop.for` and `loop.parallel` as LLVM loops.
//!
//! Each loop dimension becomes a header-tested loop `for (iv = lb; iv < ub; iv += step)`
//! whose bounds are the maximum (lower) and minimum (upper) of the bound maps' results,
//! evaluated once before the loop. Schedule attributes become loop metadata on the back
//! edge, which LLVM's O3 pipeline honours: `unroll = U` is `llvm.loop.unroll.count`, and
//! `vectorize = W` on a loop that is still scalar asks the loop vectorizer for width `W`
//! (a body that already computes on `vector` values needs nothing more). Parallel loops
//! are handed to the runtime's thread pool when the module is compiled with threads (see
//! [`super::parallel`]); otherwise they run in order, as the interpreter runs them.
//!
//! The iter_args of a `loop.for` are phis in its header: the inits come from before the
//! loop, the yielded values from the latch, and the loop's results are the header phis
//! (the loop exits from its header). Unrolling and vectorizing such loops is LLVM's: the
//! vectorizer turns the phis into vector reductions, which with an explicit width it may
//! reassociate, as it does for any loop it is told to vectorize.

use inkwell::IntPredicate;
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionValue, IntValue};
use llvm_sys::core::{
    LLVMGetMDKindIDInContext, LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMMetadataAsValue,
    LLVMSetMetadata, LLVMValueAsMetadata,
};
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::LLVMMetadataRef;
use tb_dialects::loop_;
use tb_ir::{BlockId, OpId, TypeKind, Value};

use super::affine;
use super::translate::{Handler, TResult, Translator};

/// The translation of a loop op: both kinds of loop share one, which reads `parallel`.
pub(crate) fn loop_handler() -> Handler {
    translate_loop
}

/// What the loop metadata of one LLVM loop asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LoopHints {
    /// `llvm.loop.unroll.count` (1 disables unrolling).
    pub unroll: Option<u32>,
    /// `llvm.loop.vectorize.width`, for loops whose body is still scalar.
    pub vector_width: Option<u32>,
}

impl LoopHints {
    pub(crate) fn is_empty(&self) -> bool {
        self.unroll.is_none() && self.vector_width.is_none()
    }
}

/// One evaluated loop dimension.
#[derive(Clone, Copy)]
pub(crate) struct Range<'ctx> {
    pub lower: IntValue<'ctx>,
    pub upper: IntValue<'ctx>,
    pub step: i64,
}

/// The body of a loop being emitted: called with the induction variable, the builder at the
/// start of the body; it may leave the builder in another block (the loop's latch).
pub(crate) type LoopBody<'t, 'a, 'ctx> =
    dyn FnMut(&mut Translator<'a, 'ctx>, IntValue<'ctx>) -> TResult + 't;

/// Emits `for (iv = lower; iv < upper; iv += step) body(iv)` at the builder's position and
/// leaves the builder after the loop.
pub(crate) fn emit_loop<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    range: Range<'ctx>,
    hints: LoopHints,
    body: &mut LoopBody<'_, 'a, 'ctx>,
) -> TResult {
    emit_carrying_loop(tr, range, hints, &[], &mut |tr, iv, _| {
        body(tr, iv)?;
        Ok(Vec::new())
    })?;
    Ok(())
}

/// The body of a loop carrying values: called like a [`LoopBody`] with the values carried
/// into this iteration too; gives the values carried to the next iteration.
pub(crate) type CarryingLoopBody<'t, 'a, 'ctx> = dyn FnMut(
        &mut Translator<'a, 'ctx>,
        IntValue<'ctx>,
        &[BasicValueEnum<'ctx>],
    ) -> TResult<Vec<BasicValueEnum<'ctx>>>
    + 't;

/// Emits `for (iv = lower, c = inits; iv < upper; iv += step) c = body(iv, c)` at the
/// builder's position and leaves the builder after the loop; gives the carried values after
/// the last iteration (the inits when there is none). Each carried value is a phi in the
/// loop header, as `iv` is.
pub(crate) fn emit_carrying_loop<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    range: Range<'ctx>,
    hints: LoopHints,
    inits: &[BasicValueEnum<'ctx>],
    body: &mut CarryingLoopBody<'_, 'a, 'ctx>,
) -> TResult<Vec<BasicValueEnum<'ctx>>> {
    let preheader = tr
        .builder
        .get_insert_block()
        .ok_or("is not inside a basic block")?;
    // Blocks go right after the current one, so nested loops read top to bottom.
    let exit = tr.llvm.insert_basic_block_after(preheader, "loop.exit");
    let header = tr.llvm.prepend_basic_block(exit, "loop.header");
    let body_block = tr.llvm.prepend_basic_block(exit, "loop.body");
    tr.builder.build_unconditional_branch(header)?;

    tr.builder.position_at_end(header);
    let i64_type = tr.llvm.i64_type();
    let phi = tr.builder.build_phi(i64_type, "iv")?;
    let iv = phi.as_basic_value().into_int_value();
    let carried_phis = inits
        .iter()
        .map(|init| Ok(tr.builder.build_phi(init.get_type(), "carried")?))
        .collect::<TResult<Vec<_>>>()?;
    let carried: Vec<BasicValueEnum> = carried_phis.iter().map(|p| p.as_basic_value()).collect();
    let more = tr
        .builder
        .build_int_compare(IntPredicate::SLT, iv, range.upper, "")?;
    tr.builder
        .build_conditional_branch(more, body_block, exit)?;

    tr.builder.position_at_end(body_block);
    let next_values = body(tr, iv, &carried)?;
    if next_values.len() != inits.len() {
        return Err(format!(
            "yields {} values to the next iteration, but carries {}",
            next_values.len(),
            inits.len()
        )
        .into());
    }
    let latch = tr
        .builder
        .get_insert_block()
        .ok_or("loop body left no basic block")?;
    let next = tr
        .builder
        .build_int_add(iv, tr.i64_const(range.step), "iv.next")?;
    let back_edge = tr.builder.build_unconditional_branch(header)?;
    if !hints.is_empty() {
        set_loop_metadata(tr, back_edge, hints);
    }
    phi.add_incoming(&[(&range.lower, preheader), (&next, latch)]);
    for ((phi, init), next) in carried_phis.iter().zip(inits).zip(&next_values) {
        phi.add_incoming(&[(init, preheader), (next, latch)]);
    }
    tr.builder.position_at_end(exit);
    Ok(carried)
}

/// Attaches a loop id `!{self, hints...}` to the back edge. LLVM-C has no call for a
/// distinct node, so the self reference goes through a temporary node, as LLVM's own
/// `MDNode::replaceOperandWith` idiom does.
fn set_loop_metadata(tr: &Translator, back_edge: InstructionValue, hints: LoopHints) {
    let ctx = tr.llvm.raw();
    let i32_type = tr.llvm.i32_type();
    let string = |s: &str| unsafe { LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len()) };
    let int = |v: u32| unsafe {
        LLVMValueAsMetadata(i32_type.const_int(u64::from(v), false).as_value_ref())
    };
    let node = |items: &mut [LLVMMetadataRef]| unsafe {
        LLVMMDNodeInContext2(ctx, items.as_mut_ptr(), items.len())
    };
    let mut items = Vec::new();
    let placeholder = unsafe { LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0) };
    items.push(placeholder);
    match hints.unroll {
        Some(1) => items.push(node(&mut [string("llvm.loop.unroll.disable")])),
        Some(count) => items.push(node(&mut [string("llvm.loop.unroll.count"), int(count)])),
        None => {}
    }
    if let Some(width) = hints.vector_width {
        items.push(node(&mut [string("llvm.loop.vectorize.enable"), unsafe {
            LLVMValueAsMetadata(tr.llvm.bool_type().const_int(1, false).as_value_ref())
        }]));
        items.push(node(&mut [string("llvm.loop.vectorize.width"), int(width)]));
    }
    let id = node(&mut items);
    unsafe {
        // Replaces (and frees) the placeholder: the loop id now refers to itself.
        LLVMMetadataReplaceAllUsesWith(placeholder, id);
        let kind = LLVMGetMDKindIDInContext(ctx, c"llvm.loop".as_ptr(), 9);
        LLVMSetMetadata(back_edge.as_value_ref(), kind, LLVMMetadataAsValue(ctx, id));
    }
}

/// Whether any op nested in `block` computes on vector values.
fn has_vector_ops(tr: &Translator, block: BlockId) -> bool {
    let ir = tr.ir;
    let is_vector = |v: &Value| matches!(ir.type_kind(ir.value_type(*v)), TypeKind::Vector { .. });
    let mut found = false;
    let mut visit = |op: OpId| {
        let data = ir.op(op);
        found |= data.results.iter().any(is_vector) || data.operands.iter().any(is_vector);
    };
    for op in ir.block_ops(block) {
        visit(op);
        ir.walk_nested(op, &mut visit);
    }
    found
}

/// The loop metadata asked for by `op`'s schedule attributes.
fn hints_of(tr: &Translator, op: OpId, body: BlockId) -> TResult<LoopHints> {
    let positive = |v: Option<i64>, what: &str| -> TResult<Option<u32>> {
        v.map(|v| {
            u32::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or(format!("has an invalid {what} {v}"))
        })
        .transpose()
        .map_err(Into::into)
    };
    let unroll = positive(loop_::unroll_factor(tr.ir, op), "unroll factor")?;
    let width = positive(loop_::vector_width(tr.ir, op), "vector width")?;
    Ok(LoopHints {
        unroll,
        vector_width: width.filter(|&w| w > 1 && !has_vector_ops(tr, body)),
    })
}

fn translate_loop(tr: &mut Translator, op: OpId) -> TResult {
    if super::kernel_outline::should_outline(tr, op) {
        return super::kernel_outline::emit(tr, op, translate_loop_here);
    }
    translate_loop_here(tr, op)
}

/// Emits loop `op` in the function being defined.
fn translate_loop_here(tr: &mut Translator, op: OpId) -> TResult {
    let ir = tr.ir;
    let dims = loop_::loop_dims(ir, op).ok_or("has malformed bounds")?;
    let body = loop_::body(ir, op).ok_or("has no body")?;
    let mut ranges = Vec::with_capacity(dims.len());
    for dim in &dims {
        if dim.step <= 0 {
            return Err(format!("has non-positive step {}", dim.step).into());
        }
        let operands = |values: &[Value]| -> TResult<Vec<IntValue>> {
            values.iter().map(|&v| tr.int_value(v)).collect()
        };
        let lower = affine::bound(tr, &dim.lower.map, &operands(&dim.lower.operands)?, true)?;
        let upper = affine::bound(tr, &dim.upper.map, &operands(&dim.upper.operands)?, false)?;
        ranges.push(Range {
            lower,
            upper,
            step: dim.step,
        });
    }
    let ivs: Vec<Value> = dims.iter().map(|d| d.induction_var).collect();
    let hints = hints_of(tr, op, body)?;
    if !loop_::inits(ir, op).is_empty() {
        return translate_carrying_for(tr, op, ranges[0], ivs[0], body, hints);
    }
    if loop_::is_parallel(ir, op) && tr.threads {
        return super::parallel::emit(tr, op, &ranges, &ivs, body, hints);
    }
    emit_nest(tr, &ranges, &ivs, body, hints)
}

/// A `loop.for` with iter_args: one LLVM loop whose header has a phi per carried value.
/// Its iterations depend on each other, so a `parallel` mark cannot be honoured.
fn translate_carrying_for<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    op: OpId,
    range: Range<'ctx>,
    induction_var: Value,
    body: BlockId,
    hints: LoopHints,
) -> TResult {
    let ir = tr.ir;
    if loop_::is_parallel(ir, op) {
        return Err("carries values between iterations, so it cannot run in parallel".into());
    }
    let inits = loop_::inits(ir, op)
        .iter()
        .map(|&v| tr.value(v))
        .collect::<TResult<Vec<_>>>()?;
    let iter_args = loop_::iter_args(ir, op);
    let terminator = ir.block(body).last.ok_or("has an empty body")?;
    let finals = emit_carrying_loop(tr, range, hints, &inits, &mut |tr, iv, carried| {
        tr.values.insert(induction_var, iv.into());
        for (&arg, &value) in iter_args.iter().zip(carried) {
            tr.values.insert(arg, value);
        }
        tr.translate_block(body, true)?;
        ir.op(terminator)
            .operands
            .iter()
            .map(|&v| tr.value(v))
            .collect()
    })?;
    for (i, value) in finals.into_iter().enumerate() {
        tr.set_result(op, i, value)?;
    }
    Ok(())
}

/// Emits the loops of `ranges`, outermost first, around the ops of `body` (the schedule
/// hints go on the innermost loop, the one the annotations describe in a 1-D loop).
pub(crate) fn emit_nest<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    ranges: &[Range<'ctx>],
    ivs: &[Value],
    body: BlockId,
    hints: LoopHints,
) -> TResult {
    let Some((&first, rest)) = ranges.split_first() else {
        return tr.translate_block(body, true);
    };
    let inner_hints = if rest.is_empty() {
        hints
    } else {
        LoopHints::default()
    };
    emit_loop(tr, first, inner_hints, &mut |tr, iv| {
        tr.values.insert(ivs[0], iv.into());
        emit_nest(tr, rest, &ivs[1..], body, hints)
    })
}
