//! Kernels of large functions as functions of their own.
//!
//! A lowered model is one function whose body is a sequence of loop nests (kernels). LLVM's
//! loop passes analyse a whole function at once (scalar evolution, induction variables,
//! the vectorizer's legality checks), and their cost grows faster than linearly with the
//! number of loops in it: the YOLOv8n detector's 300-odd kernels took 30 s at `-O3` as one
//! function and 10 s as separate ones. So in a function with at least
//! [`OUTLINE_FROM_KERNELS`] top-level loops, each top-level loop that yields no values
//! becomes an internal `noinline` function `void kernel(ctx *)`, called with a context
//! struct (on the caller's stack) of the values the loop uses from outside, as parallel
//! loop bodies are (see [`super::parallel`]), and like them through a body proper whose
//! disjoint buffers are `noalias` ([`super::disjoint_buffers`]). Small functions, and the
//! lit tests that read their LLVM IR, keep their loops inline.

use inkwell::AddressSpace;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;
use tb_dialects::loop_;
use tb_ir::{OpId, Value};

use super::disjoint_buffers::disjoint;
use super::parallel::{captured_values, enter_noalias_body, rematerializable, store_context};
use super::translate::{TResult, Translator};

/// The number of top-level loops from which a function's kernels are outlined.
pub(crate) const OUTLINE_FROM_KERNELS: usize = 8;

/// Whether loop `op` is a top-level kernel of a function with many of them, to be
/// emitted as its own function.
pub(crate) fn should_outline(tr: &Translator, op: OpId) -> bool {
    let ir = tr.ir;
    if !ir.op(op).results.is_empty() || !loop_::inits(ir, op).is_empty() {
        return false;
    }
    let (Some(block), Some(parent)) = (ir.op(op).parent, ir.parent_op(op)) else {
        return false;
    };
    if ir.op_name(parent) != "func.func" {
        return false;
    }
    let is_loop = |o: OpId| matches!(ir.op_name(o), "loop.for" | "loop.parallel");
    ir.block_ops(block).filter(|&o| is_loop(o)).count() >= OUTLINE_FROM_KERNELS
}

/// Emits loop `op` as a call to a new internal function whose body `emit_loop` writes.
pub(crate) fn emit(
    tr: &mut Translator,
    op: OpId,
    emit_loop: fn(&mut Translator, OpId) -> TResult,
) -> TResult {
    // As for parallel bodies: constants and globals are made again inside, and the body
    // proper takes the fields as parameters, the disjoint buffers `noalias`.
    let (remade, captured): (Vec<Value>, Vec<Value>) = captured_values(tr, op)
        .into_iter()
        .partition(|&v| rematerializable(tr.ir, v).is_some());
    let noalias = disjoint(tr.ir, &captured);
    let fields: Vec<BasicValueEnum> = captured
        .iter()
        .map(|&v| tr.value(v))
        .collect::<TResult<_>>()?;
    let (context_type, context) = store_context(tr, &fields, "kernel.ctx")?;
    let field_types: Vec<BasicTypeEnum> = fields.iter().map(|f| f.get_type()).collect();

    let parent = tr.current_function()?;
    let ptr = tr.llvm.ptr_type(AddressSpace::default());
    let kernel_type = tr.llvm.void_type().fn_type(&[ptr.into()], false);
    let name = format!("{}.kernel", parent.get_name().to_string_lossy());
    let kernel = tr
        .module
        .add_function(&name, kernel_type, Some(Linkage::Internal));
    for attribute in parent.attributes(AttributeLoc::Function) {
        kernel.add_attribute(AttributeLoc::Function, attribute);
    }
    // Inlined back, the kernel would make the caller large again.
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    kernel.add_attribute(
        AttributeLoc::Function,
        tr.llvm.create_enum_attribute(noinline, 0),
    );

    let resume = tr
        .builder
        .get_insert_block()
        .ok_or("is not inside a basic block")?;
    let saved_values = tr.values.clone();
    let saved_entry = tr.entry.take();
    tr.function = Some(kernel);
    let result = (|| -> TResult {
        tr.builder
            .position_at_end(tr.llvm.append_basic_block(kernel, "entry"));
        let context = kernel
            .get_nth_param(0)
            .ok_or("missing parameter")?
            .into_pointer_value();
        let mut loaded = Vec::with_capacity(captured.len());
        for (i, ty) in field_types.iter().enumerate() {
            let at = tr
                .builder
                .build_struct_gep(context_type, context, i as u32, "")?;
            loaded.push(tr.builder.build_load(*ty, at, "")?);
        }
        let inner = enter_noalias_body(tr, kernel, &loaded, &noalias)?;
        for (&value, param) in captured.iter().zip(inner.get_param_iter()) {
            tr.values.insert(value, param);
        }
        for &value in &remade {
            if let Some(def) = rematerializable(tr.ir, value) {
                tr.translate_op(def)?;
            }
        }
        emit_loop(tr, op)?;
        tr.builder.build_return(None)?;
        Ok(())
    })();
    tr.function = Some(parent);
    tr.entry = saved_entry;
    tr.values = saved_values;
    tr.builder.position_at_end(resume);
    result?;
    tr.builder.build_call(kernel, &[context.into()], "")?;
    Ok(())
}
