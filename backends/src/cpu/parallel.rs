//! Parallel loops on the runtime's thread pool.
//!
//! The body of a `loop.parallel` (or a `loop.for` marked `parallel`) is outlined into
//! `void body(ctx *, i64 begin, i64 end)`, which runs iterations `[begin, end)` of the
//! outermost dimension (the inner dimensions stay loops inside it). When the outermost
//! dimension has few iterations (a convolution's blocks of output channels), the next
//! dimensions with constant bounds are collapsed into it, so there is enough to share
//! between threads; the body recovers each index by division. The values the body uses
//! from outside are stored in a context struct on the caller's stack, and the loop becomes
//!
//! ```c
//! tb_rt_parallel_for(body, &ctx, trip_count, threads);
//! ```
//!
//! The JIT binds `tb_rt_parallel_for` to the thread pool in [`super::runtime`]. Emitted
//! objects and libraries carry a weak definition that runs the iterations in order, so
//! they link on their own; the runtime library ([`super::runtime_library`]), linked into
//! shared libraries built with threads and written by `--emit=c-runtime`, is the strong
//! one with a thread pool.

use inkwell::AddressSpace;
use inkwell::IntPredicate;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, StructType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PointerValue,
};
use rustc_hash::FxHashSet;
use tb_ir::{BlockId, OpId, Value};

use super::loops::{LoopHints, Range, emit_loop, emit_nest};
use super::translate::{TResult, Translator};

/// The runtime function parallel loops call.
pub const PARALLEL_FOR: &str = "tb_rt_parallel_for";

/// Values used inside `op`'s regions but defined outside `op`, in first-use order.
pub(crate) fn captured_values(tr: &Translator, op: OpId) -> Vec<Value> {
    let ir = tr.ir;
    let mut inside: FxHashSet<Value> = FxHashSet::default();
    let mut order = Vec::new();
    for &region in &ir.op(op).regions {
        for &block in &ir.region(region).blocks {
            inside.extend(ir.block(block).args.iter().copied());
        }
    }
    ir.walk_nested(op, &mut |inner| {
        for &r in &ir.op(inner).results {
            inside.insert(r);
        }
        for &region in &ir.op(inner).regions {
            for &block in &ir.region(region).blocks {
                inside.extend(ir.block(block).args.iter().copied());
            }
        }
    });
    ir.walk_nested(op, &mut |inner| {
        for &v in &ir.op(inner).operands {
            if !inside.contains(&v) && !order.contains(&v) {
                order.push(v);
            }
        }
    });
    order
}

/// `void <outlined>.body(fields...)`: internal and always inlined into `outlined` (a
/// parallel body or a kernel taking a context struct), with its attributes but `noinline`,
/// and `noalias` on the parameters of the fields `noalias` marks (the captured buffers
/// disjoint from every other one; fields past its end, bounds, get none).
fn noalias_body<'ctx>(
    tr: &Translator<'_, 'ctx>,
    outlined: FunctionValue<'ctx>,
    fields: &[BasicValueEnum<'ctx>],
    noalias: &[bool],
) -> TResult<FunctionValue<'ctx>> {
    let types: Vec<BasicMetadataTypeEnum> = fields.iter().map(|f| f.get_type().into()).collect();
    let name = format!("{}.body", outlined.get_name().to_string_lossy());
    let inner = tr.module.add_function(
        &name,
        tr.llvm.void_type().fn_type(&types, false),
        Some(Linkage::Internal),
    );
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    for attribute in outlined.attributes(AttributeLoc::Function) {
        if !(attribute.is_enum() && attribute.get_enum_kind_id() == noinline) {
            inner.add_attribute(AttributeLoc::Function, attribute);
        }
    }
    let attribute = |name: &str| {
        tr.llvm
            .create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0)
    };
    inner.add_attribute(AttributeLoc::Function, attribute("alwaysinline"));
    for (i, (&distinct, field)) in noalias.iter().zip(fields).enumerate() {
        if distinct && field.is_pointer_value() {
            inner.add_attribute(AttributeLoc::Param(i as u32), attribute("noalias"));
        }
    }
    Ok(inner)
}

/// Ends the outlined function being built by calling its body proper
/// ([`noalias_body`]) on `fields`, then starts translating into that body: the
/// translator's function becomes the body, at its entry, with no values mapped yet.
pub(crate) fn enter_noalias_body<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    outlined: FunctionValue<'ctx>,
    fields: &[BasicValueEnum<'ctx>],
    noalias: &[bool],
) -> TResult<FunctionValue<'ctx>> {
    let inner = noalias_body(tr, outlined, fields, noalias)?;
    let args: Vec<BasicMetadataValueEnum> = fields.iter().map(|&v| v.into()).collect();
    tr.builder.build_call(inner, &args, "")?;
    tr.builder.build_return(None)?;
    tr.function = Some(inner);
    tr.builder
        .position_at_end(tr.llvm.append_basic_block(inner, "entry"));
    tr.values.clear();
    Ok(inner)
}

/// The op defining `v` when an outlined body makes it again rather than reading it from
/// its context: a constant or a global's address (no operands, no side effects).
pub(crate) fn rematerializable(ir: &tb_ir::Context, v: Value) -> Option<OpId> {
    let def = ir.defining_op(v)?;
    let op = ir.op(def);
    let cheap = matches!(ir.op_name(def), "arith.constant" | "memref.get_global");
    (cheap && op.operands.is_empty() && op.regions.is_empty()).then_some(def)
}

/// A struct of `fields` in a stack slot of the current function (allocated in its entry
/// block), filled at the builder's position: the context an outlined body reads.
pub(crate) fn store_context<'ctx>(
    tr: &Translator<'_, 'ctx>,
    fields: &[BasicValueEnum<'ctx>],
    name: &str,
) -> TResult<(StructType<'ctx>, PointerValue<'ctx>)> {
    let field_types: Vec<BasicTypeEnum> = fields.iter().map(|f| f.get_type()).collect();
    let context_type = tr.llvm.struct_type(&field_types, false);
    let context = tr.entry_builder()?.build_alloca(context_type, name)?;
    for (i, &field) in fields.iter().enumerate() {
        let at = tr
            .builder
            .build_struct_gep(context_type, context, i as u32, "")?;
        tr.builder.build_store(at, field)?;
    }
    Ok((context_type, context))
}

/// The `(ctx, begin, end)` type of outlined bodies.
fn body_type<'ctx>(tr: &Translator<'_, 'ctx>) -> inkwell::types::FunctionType<'ctx> {
    let ptr = tr.llvm.ptr_type(AddressSpace::default());
    let i64_type = tr.llvm.i64_type();
    tr.llvm
        .void_type()
        .fn_type(&[ptr.into(), i64_type.into(), i64_type.into()], false)
}

/// `tb_rt_parallel_for(body, ctx, n, threads)`, declared once; with a weak sequential
/// definition unless the JIT provides the real one.
fn parallel_for<'ctx>(tr: &Translator<'_, 'ctx>) -> TResult<FunctionValue<'ctx>> {
    if let Some(f) = tr.module.get_function(PARALLEL_FOR) {
        return Ok(f);
    }
    let ptr = tr.llvm.ptr_type(AddressSpace::default());
    let i64_type = tr.llvm.i64_type();
    let params: [BasicMetadataTypeEnum; 4] =
        [ptr.into(), ptr.into(), i64_type.into(), i64_type.into()];
    let function = tr.module.add_function(
        PARALLEL_FOR,
        tr.llvm.void_type().fn_type(&params, false),
        None,
    );
    if tr.runtime_provided {
        return Ok(function);
    }
    // void tb_rt_parallel_for(body, ctx, n, threads) { body(ctx, 0, n); }
    function.set_linkage(Linkage::WeakAny);
    let builder = tr.llvm.create_builder();
    builder.position_at_end(tr.llvm.append_basic_block(function, "entry"));
    let param = |i| function.get_nth_param(i).ok_or("missing parameter");
    let body = param(0)?.into_pointer_value();
    let args = [
        param(1)?.into(),
        i64_type.const_zero().into(),
        param(2)?.into(),
    ];
    builder.build_indirect_call(body_type(tr), body, &args, "")?;
    builder.build_return(None)?;
    Ok(function)
}

/// Emits the parallel loop `op` with evaluated `ranges` as a call into the runtime.
pub(crate) fn emit<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    op: OpId,
    ranges: &[Range<'ctx>],
    ivs: &[Value],
    body: BlockId,
    hints: LoopHints,
) -> TResult {
    let b = &tr.builder;
    let i64_type = tr.llvm.i64_type();
    let mut body_has_loops = false;
    tr.ir.walk_nested(op, &mut |inner| {
        body_has_loops |= tb_dialects::loop_::is_loop(tr.ir, inner);
    });
    let collapsed = collapsed_trips(ranges, hints.is_empty() && body_has_loops);
    let trips = if collapsed.len() > 1 {
        tr.i64_const(collapsed.iter().product())
    } else {
        // Trip count of the outermost dimension: max(0, ceil((ub - lb) / step)).
        let outer = ranges[0];
        let span = b.build_int_sub(outer.upper, outer.lower, "")?;
        let span = b.build_int_add(span, tr.i64_const(outer.step - 1), "")?;
        let trips = b.build_int_signed_div(span, tr.i64_const(outer.step), "")?;
        let positive = b.build_int_compare(IntPredicate::SGT, trips, tr.i64_const(0), "")?;
        b.build_select(positive, trips, tr.i64_const(0), "trips")?
            .into_int_value()
    };

    // The context: captured values, then the bounds of every dimension. Constants and
    // globals are made again inside the body instead: LLVM then knows their values (a
    // padding value, a constant weight buffer that no store can reach) where a field
    // loaded from the context would hide them.
    let (remade, captured): (Vec<Value>, Vec<Value>) = captured_values(tr, op)
        .into_iter()
        .partition(|&v| rematerializable(tr.ir, v).is_some());
    let mut fields: Vec<BasicValueEnum<'ctx>> = captured
        .iter()
        .map(|&v| tr.value(v))
        .collect::<TResult<_>>()?;
    for range in ranges {
        fields.push(range.lower.into());
        fields.push(range.upper.into());
    }
    let (context_type, context) = store_context(tr, &fields, "parallel.ctx")?;

    // The outlined body.
    let parent = tr.current_function()?;
    let name = format!("{}.parallel", parent.get_name().to_string_lossy());
    let outlined = tr
        .module
        .add_function(&name, body_type(tr), Some(Linkage::Internal));
    for attribute in parent.attributes(inkwell::attributes::AttributeLoc::Function) {
        outlined.add_attribute(inkwell::attributes::AttributeLoc::Function, attribute);
    }
    let resume = tr
        .builder
        .get_insert_block()
        .ok_or("is not inside a basic block")?;
    let saved_values = tr.values.clone();
    let saved_entry = tr.entry.take();
    tr.function = Some(outlined);
    let steps: Vec<i64> = ranges.iter().map(|r| r.step).collect();
    let noalias = super::disjoint_buffers::disjoint(tr.ir, &captured);
    let result = outline_body(
        tr,
        outlined,
        context_type,
        &captured,
        &noalias,
        &remade,
        &steps,
        &collapsed,
        ivs,
        body,
        hints,
    );
    tr.function = Some(parent);
    tr.entry = saved_entry;
    tr.values = saved_values;
    tr.builder.position_at_end(resume);
    result?;

    let runtime = parallel_for(tr)?;
    let threads = i64_type.const_int(tr.threads_hint as u64, false);
    tr.builder.build_call(
        runtime,
        &[
            outlined.as_global_value().as_pointer_value().into(),
            context.into(),
            trips.into(),
            threads.into(),
        ],
        "",
    )?;
    Ok(())
}

/// Threads take chunks of the outermost dimension; when it has fewer than this many
/// iterations (a convolution's few blocks of output channels), the dimensions after it
/// are collapsed into the distributed loop until it has as many.
const MIN_DISTRIBUTED_ITERATIONS: i64 = 64;

/// The constant trip counts of the leading dimensions distributed together: empty when
/// only the outermost one is (its own trip count is enough, or the next is not constant).
/// The innermost dimension joins only when `innermost_joins`: its body runs loops of its
/// own, so the index arithmetic per iteration is negligible, and it carries no unroll or
/// vectorize hint, which belongs to a loop of its own.
fn collapsed_trips(ranges: &[Range], innermost_joins: bool) -> Vec<i64> {
    let constant_trips = |r: &Range| -> Option<i64> {
        let (lo, hi) = (
            r.lower.get_sign_extended_constant()?,
            r.upper.get_sign_extended_constant()?,
        );
        Some(if hi <= lo {
            0
        } else {
            (hi - lo + r.step - 1) / r.step
        })
    };
    let last = if innermost_joins {
        ranges.len()
    } else {
        ranges.len() - 1
    };
    let mut trips = Vec::new();
    let mut product: i64 = 1;
    for range in &ranges[..last] {
        if product >= MIN_DISTRIBUTED_ITERATIONS {
            break;
        }
        let Some(n) = constant_trips(range) else {
            break;
        };
        product = product.saturating_mul(n);
        trips.push(n);
    }
    if trips.len() < 2 { Vec::new() } else { trips }
}

#[allow(clippy::too_many_arguments)]
fn outline_body<'a, 'ctx>(
    tr: &mut Translator<'a, 'ctx>,
    function: FunctionValue<'ctx>,
    context_type: inkwell::types::StructType<'ctx>,
    captured: &[Value],
    noalias: &[bool],
    remade: &[Value],
    steps: &[i64],
    collapsed: &[i64],
    ivs: &[Value],
    body: BlockId,
    hints: LoopHints,
) -> TResult {
    let dims = steps.len();
    tr.builder
        .position_at_end(tr.llvm.append_basic_block(function, "entry"));
    let param = |i| function.get_nth_param(i).ok_or("missing parameter");
    let context = param(0)?.into_pointer_value();
    let mut loaded = Vec::with_capacity(captured.len() + 2 * dims + 2);
    for i in 0..context_type.count_fields() {
        let ty = context_type
            .get_field_type_at_index(i)
            .ok_or("context field missing")?;
        let at = tr.builder.build_struct_gep(context_type, context, i, "")?;
        loaded.push(tr.builder.build_load(ty, at, "")?);
    }
    loaded.push(param(1)?);
    loaded.push(param(2)?);
    // The body proper takes the fields as parameters, the disjoint buffers `noalias`, and
    // is inlined here: LLVM turns the parameters' `noalias` into alias scopes.
    let inner = enter_noalias_body(tr, function, &loaded, noalias)?;
    let fields: Vec<BasicValueEnum<'ctx>> = inner.get_param_iter().collect();
    let begin = fields[fields.len() - 2].into_int_value();
    let end = fields[fields.len() - 1].into_int_value();
    for (&v, &field) in captured.iter().zip(&fields) {
        tr.values.insert(v, field);
    }
    for &v in remade {
        if let Some(def) = rematerializable(tr.ir, v) {
            tr.translate_op(def)?;
        }
    }
    let bounds: Vec<IntValue> = fields[captured.len()..fields.len() - 2]
        .iter()
        .map(|f| f.into_int_value())
        .collect();
    let ranges: Vec<Range> = (0..dims)
        .map(|d| Range {
            lower: bounds[2 * d],
            upper: bounds[2 * d + 1],
            step: steps[d],
        })
        .collect();
    let k = collapsed.len().max(1);
    let inner_ranges = &ranges[k..];
    // The distributed loop is innermost only when it covers every dimension.
    let outer_hints = if k == dims {
        hints
    } else {
        LoopHints::default()
    };
    emit_loop(
        tr,
        Range {
            lower: begin,
            upper: end,
            step: 1,
        },
        outer_hints,
        &mut |tr, t| {
            // Iteration t of the distributed loop: one index per collapsed dimension,
            // the last one varying fastest; iv = lower + index * step.
            let mut rest = t;
            for d in (0..k).rev() {
                // The first index is what the others leave: below its trip count.
                let index = if d == 0 {
                    rest
                } else {
                    let count = tr.i64_const(collapsed[d]);
                    let index = tr.builder.build_int_unsigned_rem(rest, count, "")?;
                    rest = tr.builder.build_int_unsigned_div(rest, count, "")?;
                    index
                };
                let scaled = if ranges[d].step == 1 {
                    index
                } else {
                    tr.builder
                        .build_int_mul(index, tr.i64_const(ranges[d].step), "")?
                };
                let iv = tr.builder.build_int_add(ranges[d].lower, scaled, "")?;
                tr.values.insert(ivs[d], iv.into());
            }
            emit_nest(tr, inner_ranges, &ivs[k..], body, hints)
        },
    )?;
    tr.builder.build_return(None)?;
    Ok(())
}
