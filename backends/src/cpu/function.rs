//! Functions: `func.func` bodies, `func.return` and `func.call`.
//!
//! A function called inside the module (or private) gets an internal LLVM function with
//! the plain calling convention: a memref is a pointer, a scalar a value, and several
//! results come back as a struct. A public function gets an exported entry point with the
//! C ABI of [`super::abi`] instead, translated from the same body: its results are written
//! through the output pointers, and a returned buffer that the function allocates itself is
//! not allocated at all — the allocation becomes the caller's output buffer, so nothing is
//! copied. Other returned buffers (arguments, globals, views) are copied out.

use inkwell::AddressSpace;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, PointerValue};
use rustc_hash::FxHashMap;
use tb_ir::{AttrKind, Context, OpId, TypeKind};

use super::abi::{self, EntryPoint, Role};
use super::buffers::{copy_buffer, store_element};
use super::memref::MemRefLayout;
use super::translate::{Error, TResult, Translator};

/// What an exported entry point being defined writes its results to.
pub(crate) struct EntryState<'ctx> {
    /// The output pointer of each function result.
    pub outputs: Vec<PointerValue<'ctx>>,
    /// Allocations that are returned: they use output `i` instead of fresh memory.
    pub returned_allocs: FxHashMap<OpId, usize>,
    /// The stack slot of the status result, returned by the entry point.
    pub status: Option<PointerValue<'ctx>>,
}

impl<'ctx> EntryState<'ctx> {
    pub fn output_for(&self, alloc: OpId) -> Option<PointerValue<'ctx>> {
        self.returned_allocs.get(&alloc).map(|&i| self.outputs[i])
    }

    pub fn is_output(&self, pointer: PointerValue<'ctx>) -> bool {
        self.outputs.contains(&pointer)
    }
}

/// The LLVM function type of the internal version of a function.
fn internal_type<'ctx>(
    tr: &Translator<'_, 'ctx>,
    func: OpId,
) -> TResult<inkwell::types::FunctionType<'ctx>> {
    let (inputs, results) = abi::signature(tr.ir, func).ok_or("has no function type")?;
    let params = inputs
        .iter()
        .map(|&t| Ok(tr.llvm_type(t)?.into()))
        .collect::<TResult<Vec<BasicMetadataTypeEnum>>>()?;
    let results = results
        .iter()
        .map(|&t| tr.llvm_type(t))
        .collect::<TResult<Vec<BasicTypeEnum>>>()?;
    Ok(match results.as_slice() {
        [] => tr.llvm.void_type().fn_type(&params, false),
        [one] => one.fn_type(&params, false),
        many => tr.llvm.struct_type(many, false).fn_type(&params, false),
    })
}

/// Declares the internal version of `func` under its own symbol.
pub(crate) fn declare_internal<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    func: OpId,
    name: &str,
) -> TResult<FunctionValue<'ctx>> {
    let fn_type = internal_type(tr, func)?;
    let has_body = abi::body(tr.ir, func).is_some();
    // A declaration is an external symbol; a definition stays inside the module.
    let linkage = if has_body {
        Linkage::Internal
    } else {
        Linkage::External
    };
    let function = tr.module.add_function(name, fn_type, Some(linkage));
    if has_body {
        add_target_attributes(tr, function);
    }
    tr.functions.insert(name.to_owned(), function);
    Ok(function)
}

fn string_attribute(ctx: &inkwell::context::Context, key: &str, value: &str) -> Attribute {
    ctx.create_string_attribute(key, value)
}

/// The CPU the function is compiled for, as clang records `-mcpu`/`-mattr`, and `nounwind`
/// (compiled code never unwinds).
fn add_target_attributes(tr: &Translator, function: FunctionValue) {
    if !tr.target.cpu.is_empty() {
        function.add_attribute(
            AttributeLoc::Function,
            string_attribute(tr.llvm, "target-cpu", &tr.target.cpu),
        );
    }
    if !tr.target.features.is_empty() {
        function.add_attribute(
            AttributeLoc::Function,
            string_attribute(tr.llvm, "target-features", &tr.target.features),
        );
    }
    let nounwind = Attribute::get_named_enum_kind_id("nounwind");
    function.add_attribute(
        AttributeLoc::Function,
        tr.llvm.create_enum_attribute(nounwind, 0),
    );
}

/// Translates the body of `func` into `function`, whose parameters start with the
/// function's arguments.
fn define_body<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    func: OpId,
    function: FunctionValue<'ctx>,
) -> TResult {
    let ir = tr.ir;
    let region = ir.op(func).regions[0];
    let body = abi::body(ir, func).ok_or("has no body")?;
    tr.values.clear();
    tr.blocks.clear();
    for (&arg, param) in ir.block(body).args.iter().zip(function.get_param_iter()) {
        tr.values.insert(arg, param);
    }
    let entry = tr.llvm.append_basic_block(function, "entry");
    // The other blocks the entry reaches, dominators first (so every value is translated
    // before its uses), each an LLVM block whose arguments are phis. Blocks the entry
    // does not reach need no code.
    let order = reachable_in_preorder(ir, body);
    for &block in &order[1..] {
        let llvm_block = tr.llvm.append_basic_block(function, "");
        tr.builder.position_at_end(llvm_block);
        let mut phis = Vec::new();
        for &arg in &ir.block(block).args {
            let ty = tr.llvm_type(ir.value_type(arg))?;
            let phi = tr.builder.build_phi(ty, "")?;
            tr.values.insert(arg, phi.as_basic_value());
            phis.push(phi);
        }
        tr.blocks.insert(block, (llvm_block, phis));
    }
    debug_assert!(ir.region(region).blocks.first() == Some(&body));
    tr.builder.position_at_end(entry);
    tr.function = Some(function);
    let mut result = tr.translate_block(body, false);
    for &block in &order[1..] {
        if result.is_err() {
            break;
        }
        // After the block's phis.
        let llvm_block = tr.blocks[&block].0;
        tr.builder.position_at_end(llvm_block);
        result = tr.translate_block(block, false);
    }
    tr.function = None;
    tr.blocks.clear();
    result
}

/// The blocks reached from `entry` through branches, in depth-first preorder: a block's
/// dominators come before it.
fn reachable_in_preorder(ir: &tb_ir::Context, entry: tb_ir::BlockId) -> Vec<tb_ir::BlockId> {
    let mut order = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![entry];
    while let Some(block) = stack.pop() {
        if !seen.insert(block) {
            continue;
        }
        order.push(block);
        if let Some(terminator) = ir.block(block).last {
            for &next in ir.op(terminator).successors.iter().rev() {
                if !seen.contains(&next) {
                    stack.push(next);
                }
            }
        }
    }
    order
}

/// Defines the internal version of `func` (declared before).
pub(crate) fn define_internal(tr: &mut Translator, func: OpId, name: &str) -> TResult {
    let function = *tr.functions.get(name).ok_or("was not declared")?;
    define_body(tr, func, function)
}

/// Allocations `func` returns directly, by result index (each at most once), whose buffer
/// can be the caller's output.
fn returned_allocs(ir: &Context, func: OpId) -> FxHashMap<OpId, usize> {
    let mut found = FxHashMap::default();
    let Some(body) = abi::body(ir, func) else {
        return found;
    };
    let Some(ret) = ir
        .block(body)
        .last
        .filter(|&t| ir.op_name(t) == "func.return")
    else {
        return found;
    };
    for (i, &v) in ir.op(ret).operands.iter().enumerate() {
        if let tb_ir::value::ValueDef::Result { op, .. } = ir.value(v).def
            && matches!(ir.op_name(op), "loop.alloc" | "memref.alloc")
            && MemRefLayout::of(ir, ir.value_type(v)).is_ok_and(|l| l.is_contiguous())
        {
            found.entry(op).or_insert(i);
        }
    }
    found
}

/// Defines the exported entry point of `func` with the C ABI of `entry`.
pub(crate) fn define_entry<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    func: OpId,
    entry: &EntryPoint,
) -> TResult<FunctionValue<'ctx>> {
    let ptr = tr.llvm.ptr_type(AddressSpace::default());
    let (inputs, _) = abi::signature(tr.ir, func).ok_or("has no function type")?;
    let mut params: Vec<BasicMetadataTypeEnum> = Vec::with_capacity(entry.params.len());
    for (param, i) in entry.params.iter().zip(0..) {
        params.push(match param.role {
            Role::Input if !param.is_pointer() => tr.llvm_type(inputs[i])?.into(),
            _ => ptr.into(),
        });
    }
    let fn_type = tr.llvm.i32_type().fn_type(&params, false);
    if tr.module.get_function(&entry.symbol).is_some() {
        return Err(format!(
            "exports '{}', a symbol already defined in the module",
            entry.symbol
        )
        .into());
    }
    let function = tr
        .module
        .add_function(&entry.symbol, fn_type, Some(Linkage::External));
    add_target_attributes(tr, function);
    let noalias = Attribute::get_named_enum_kind_id("noalias");
    let zeroext = Attribute::get_named_enum_kind_id("zeroext");
    for (index, param) in entry.params.iter().enumerate() {
        let loc = AttributeLoc::Param(index as u32);
        if param.is_pointer() {
            function.add_attribute(loc, tr.llvm.create_enum_attribute(noalias, 0));
        } else if param.element == super::types::ElementKind::Bool {
            // C passes `bool` zero-extended.
            function.add_attribute(loc, tr.llvm.create_enum_attribute(zeroext, 0));
        }
    }
    // The status lives in a stack slot of a block before the body's, zero unless a check
    // fails; the body's blocks follow it.
    let prologue = match &entry.status {
        Some(_) => {
            let block = tr.llvm.append_basic_block(function, "status");
            tr.builder.position_at_end(block);
            let slot = tr.builder.build_alloca(tr.llvm.i32_type(), "status")?;
            tr.builder
                .build_store(slot, tr.llvm.i32_type().const_zero())?;
            Some((block, slot))
        }
        None => None,
    };
    let status = prologue.map(|(_, slot)| slot);
    let mut pointers = function
        .get_param_iter()
        .skip(inputs.len())
        .map(|p| p.into_pointer_value());
    let results = abi::signature(tr.ir, func).map_or(0, |(_, r)| r.len());
    let mut outputs = Vec::with_capacity(results);
    for r in 0..results {
        let output = match (&entry.status, status) {
            (Some(s), Some(slot)) if s.result == r => Some(slot),
            _ => pointers.next(),
        };
        outputs.push(output.ok_or("has fewer output pointers than results")?);
    }
    tr.entry = Some(EntryState {
        outputs,
        returned_allocs: returned_allocs(tr.ir, func),
        status,
    });
    let result = define_body(tr, func, function);
    tr.entry = None;
    result?;
    if let Some((block, _)) = prologue {
        let body = block
            .get_next_basic_block()
            .ok_or("has no body block after its status block")?;
        tr.builder.position_at_end(block);
        tr.builder.build_unconditional_branch(body)?;
    }
    Ok(function)
}

/// Defines `int32_t <symbol>_packed(void **args)`, which loads each parameter of the entry
/// point from `args`, calls it and returns its status: the one signature the JIT needs.
pub(crate) fn define_packed<'ctx>(
    tr: &mut Translator<'_, 'ctx>,
    entry: &EntryPoint,
    target: FunctionValue<'ctx>,
) -> TResult {
    let ptr = tr.llvm.ptr_type(AddressSpace::default());
    let fn_type = tr.llvm.i32_type().fn_type(&[ptr.into()], false);
    let function = tr
        .module
        .add_function(&entry.packed_symbol(), fn_type, Some(Linkage::External));
    add_target_attributes(tr, function);
    let block = tr.llvm.append_basic_block(function, "entry");
    let b = &tr.builder;
    b.position_at_end(block);
    let args = function
        .get_first_param()
        .ok_or("packed wrapper has no parameter")?
        .into_pointer_value();
    let mut call_args: Vec<BasicMetadataValueEnum> = Vec::with_capacity(entry.params.len());
    for (i, (param, target_param)) in entry.params.iter().zip(target.get_param_iter()).enumerate() {
        let slot = unsafe { b.build_in_bounds_gep(ptr, args, &[tr.i64_const(i as i64)], "")? };
        let pointer = b.build_load(ptr, slot, "")?;
        let value: BasicValueEnum = if param.is_pointer() {
            pointer
        } else if param.element == super::types::ElementKind::Bool {
            let byte = b.build_load(tr.llvm.i8_type(), pointer.into_pointer_value(), "")?;
            b.build_int_truncate(byte.into_int_value(), tr.llvm.bool_type(), "")?
                .into()
        } else {
            b.build_load(target_param.get_type(), pointer.into_pointer_value(), "")?
        };
        call_args.push(value.into());
    }
    let status = b
        .build_call(target, &call_args, "")?
        .try_as_basic_value()
        .basic()
        .ok_or("the entry point returns no status")?;
    b.build_return(Some(&status))?;
    Ok(())
}

pub(crate) fn return_op(tr: &mut Translator, op: OpId) -> TResult {
    let values = (0..tr.ir.op(op).operands.len())
        .map(|i| tr.operand(op, i))
        .collect::<TResult<Vec<_>>>()?;
    let Some((outputs, status)) = tr.entry.as_ref().map(|e| (e.outputs.clone(), e.status)) else {
        match values.as_slice() {
            [] => tr.builder.build_return(None)?,
            [one] => tr.builder.build_return(Some(one))?,
            many => tr.builder.build_aggregate_return(many)?,
        };
        return Ok(());
    };
    if outputs.len() != values.len() {
        return Err(format!(
            "returns {} values, the function has {} results",
            values.len(),
            outputs.len()
        )
        .into());
    }
    for (i, (&value, &output)) in values.iter().zip(&outputs).enumerate() {
        let ty = tr.operand_type(op, i)?;
        match tr.ir.type_kind(ty) {
            TypeKind::MemRef { .. } => {
                let pointer = value.into_pointer_value();
                if pointer == output {
                    continue;
                }
                let from = MemRefLayout::of(tr.ir, ty)?;
                let to = MemRefLayout {
                    strides: super::memref::contiguous_strides(&from.shape)
                        .ok_or("returns a buffer too large for 64-bit strides")?,
                    offset: 0,
                    ..from.clone()
                };
                copy_buffer(tr, (pointer, &from), (output, &to))?;
            }
            _ => {
                let scalar = MemRefLayout {
                    shape: Vec::new(),
                    strides: Vec::new(),
                    offset: 0,
                    element: ty,
                };
                store_element(tr, &scalar, output, value)?;
            }
        }
    }
    let i32 = tr.llvm.i32_type();
    let code = match status {
        Some(slot) => tr.builder.build_load(i32, slot, "")?,
        None => i32.const_zero().into(),
    };
    tr.builder.build_return(Some(&code))?;
    Ok(())
}

pub(crate) fn call(tr: &mut Translator, op: OpId) -> TResult {
    let callee = match tr.attr(op, "callee").map(|a| tr.ir.attr_kind(a)) {
        Some(AttrKind::SymbolRef { root, nested }) if nested.is_empty() => root.clone(),
        _ => return Err("has no flat @callee".into()),
    };
    let function = *tr
        .functions
        .get(&callee)
        .ok_or_else(|| format!("calls @{callee}, which is not a function of the module"))?;
    let args = (0..tr.ir.op(op).operands.len())
        .map(|i| Ok(tr.operand(op, i)?.into()))
        .collect::<TResult<Vec<BasicMetadataValueEnum>>>()?;
    let call = tr.builder.build_call(function, &args, "")?;
    let results = tr.ir.op(op).results.len();
    if results == 0 {
        return Ok(());
    }
    let value = call
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| Error::from(format!("@{callee} returns no value")))?;
    if results == 1 {
        return tr.set_result(op, 0, value);
    }
    let aggregate = value.into_struct_value();
    for i in 0..results {
        let element = tr.builder.build_extract_value(aggregate, i as u32, "")?;
        tr.set_result(op, i, element)?;
    }
    Ok(())
}
