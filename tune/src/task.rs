//! Tasks: the distinct kernels of a model. A model is lowered to the loop level (the CPU
//! pipeline's front half, [`FRONT_PIPELINE`]); each top-level loop nest of a function is a
//! kernel. A kernel is extracted as a standalone module (`func.func @task` on buffer
//! arguments, returning the buffers it writes) that can be compiled and run alone, and is
//! keyed by a structural hash of that module's text: ops, types, shapes and attributes,
//! never SSA names, locations or weight values. A buffer the kernel reads from a constant
//! global (its weights) stays a constant global in the task, with every element 1: the
//! passes that need constant operands (weights packed at compile time, Winograd's
//! transformed weights) then schedule the task as they schedule the model, and two
//! kernels that differ only in their weights are one task.

use std::collections::HashMap;

use tb_dialects::loop_;
use tb_ir::attributes::{DenseData, DenseElement};
use tb_ir::float::bits_from_f64;
use tb_ir::operation::OperationState;
use tb_ir::pass::{Instrumentation, PassManager, PassRegistry, Pipeline};
use tb_ir::printer::{PrintOptions, print_operation};
use tb_ir::symbol_table::lookup_symbol;
use tb_ir::value::ValueDef;
use tb_ir::{Attr, AttrKind, Context, OpId, TypeKind, Value};

/// The part of the CPU pipeline ([`tb_passes::pipelines::CPU`]) before scheduling: what
/// turns a model into the loop nests the tuner schedules, after equality saturation and
/// fusion, so a task is a kernel as the compiled model runs it (`tb-run --db` lowers with
/// it and then runs the whole CPU pipeline, whose graph and te passes then find nothing
/// left to do).
pub const FRONT_PIPELINE: &str = "builtin.module(graph-eqsat, canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize)";

/// The name of the function a task module holds.
pub const TASK_FUNCTION: &str = "task";

/// One distinct kernel of a model.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The structural hash of [`Task::ir`], 16 hex digits.
    pub key: String,
    /// The standalone module (MLIR text, generic form) holding `func.func @task`.
    pub ir: String,
    /// How many times the kernel occurs in the model.
    pub weight: usize,
    /// Where it first occurs: `@function#nest`.
    pub origin: String,
}

/// A top-level loop nest of a function, and the task it is an instance of.
pub struct Kernel {
    pub function: String,
    pub nest: OpId,
    /// `None` when the nest cannot be extracted (see [`extract`]).
    pub task: Option<Task>,
}

/// Runs a textual pass pipeline on `op`, verifying nothing (callers verify where needed).
pub fn run_pipeline(ctx: &mut Context, op: OpId, pipeline: &str) -> Result<(), String> {
    let parsed = Pipeline::parse(pipeline).map_err(|e| format!("invalid pipeline: {e}"))?;
    let mut registry = PassRegistry::new();
    tb_passes::register_all(&mut registry);
    let mut manager = PassManager::new(&parsed, &registry)?;
    manager
        .run(ctx, op, &Instrumentation::default())
        .map_err(|d| d.message)
}

/// A stable 64-bit FNV-1a hash of `text`, as 16 hex digits.
pub fn structural_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The functions of `module` and their top-level loop nests, in program order.
pub fn kernels(ctx: &mut Context, module: OpId) -> Vec<Kernel> {
    let mut found = Vec::new();
    for (name, nests) in function_nests(ctx, module) {
        for (index, nest) in nests.into_iter().enumerate() {
            let task = extract(ctx, nest).map(|(ir, key)| Task {
                key,
                ir,
                weight: 1,
                origin: format!("@{name}#{index}"),
            });
            found.push(Kernel {
                function: name.clone(),
                nest,
                task,
            });
        }
    }
    found
}

/// Each function of `module`, by name, with its top-level loop nests, in program order
/// (the nests [`kernels`] makes kernels of).
pub fn function_nests(ctx: &Context, module: OpId) -> Vec<(String, Vec<OpId>)> {
    let mut out = Vec::new();
    for func in top_ops(ctx, module) {
        if ctx.op_name(func) != "func.func" {
            continue;
        }
        let name = tb_ir::symbol_table::symbol_name(ctx, func)
            .unwrap_or("")
            .to_owned();
        let Some(&body) = ctx
            .op(func)
            .regions
            .first()
            .and_then(|r| ctx.region(*r).blocks.first())
        else {
            continue;
        };
        let nests = ctx
            .block_ops(body)
            .filter(|&op| loop_::is_loop(ctx, op))
            .collect();
        out.push((name, nests));
    }
    out
}

/// The distinct tasks of `module` (already at the loop level), each weighted by how many
/// kernels are instances of it, in order of first occurrence.
pub fn tasks(ctx: &mut Context, module: OpId) -> Vec<Task> {
    let mut out: Vec<Task> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for kernel in kernels(ctx, module) {
        let Some(task) = kernel.task else { continue };
        match index.get(&task.key) {
            Some(&i) => out[i].weight += 1,
            None => {
                index.insert(task.key.clone(), out.len());
                out.push(task);
            }
        }
    }
    out
}

fn top_ops(ctx: &Context, module: OpId) -> Vec<OpId> {
    ctx.op(module)
        .regions
        .first()
        .and_then(|r| ctx.region(*r).blocks.first())
        .map(|&b| ctx.block_ops(b).collect())
        .unwrap_or_default()
}

fn is_memref(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_kind(ctx.value_type(v)), TypeKind::MemRef { .. })
}

/// Whether `v` is defined inside `nest` (by an op nested in it or a block of it).
fn defined_inside(ctx: &Context, v: Value, nest: OpId) -> bool {
    let mut owner = match ctx.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        ValueDef::BlockArgument { block, .. } => {
            ctx.block(block).parent.and_then(|r| ctx.region(r).parent)
        }
        ValueDef::Placeholder => return false,
    };
    while let Some(op) = owner {
        if op == nest {
            return true;
        }
        owner = ctx.parent_op(op);
    }
    false
}

/// The standalone module of `nest` as text, and its structural hash; `None` when the nest
/// yields values, uses a scalar computed outside it other than a constant, or reads a
/// buffer it also writes (its initial contents would be an input the task cannot own).
pub fn extract(ctx: &mut Context, nest: OpId) -> Option<(String, String)> {
    if !ctx.op(nest).results.is_empty() {
        return None;
    }
    let mut ops = vec![nest];
    ctx.walk_nested(nest, &mut |op| ops.push(op));
    let mut outside: Vec<Value> = Vec::new();
    let mut written: Vec<Value> = Vec::new();
    let mut read: Vec<Value> = Vec::new();
    for &op in &ops {
        let name = ctx.op_name(op).to_owned();
        for &v in ctx.op(op).operands.iter() {
            if !defined_inside(ctx, v, nest) && !outside.contains(&v) {
                outside.push(v);
            }
            if is_memref(ctx, v) {
                if name.ends_with("store") {
                    written.push(v);
                } else {
                    read.push(v);
                }
            }
        }
    }
    let mut constants = Vec::new();
    let mut arguments = Vec::new();
    let mut weights = Vec::new();
    let mut results = Vec::new();
    for &v in &outside {
        if is_memref(ctx, v) {
            if written.contains(&v) {
                if read.contains(&v) {
                    return None;
                }
                results.push(v);
            } else if let Some(splat) = constant_of_ones(ctx, v) {
                weights.push((v, splat));
            } else {
                arguments.push(v);
            }
            continue;
        }
        match ctx.value(v).def {
            ValueDef::Result { op, .. }
                if ctx.op_name(op) == "arith.constant" && ctx.op(op).operands.is_empty() =>
            {
                constants.push(op)
            }
            _ => return None,
        }
    }
    if results.is_empty() {
        return None;
    }
    let loc = ctx.op(nest).loc;
    let create = |ctx: &mut Context, name: &str, operands, types, regions, props| {
        let name = ctx.intern_op_name(name);
        ctx.create_op(OperationState {
            name,
            operands,
            result_types: types,
            successors: vec![],
            num_regions: regions,
            properties: props,
            attributes: vec![],
            loc,
        })
    };
    let module = create(ctx, "builtin.module", vec![], vec![], 1, None);
    let module_block = ctx.create_block();
    ctx.append_block(ctx.op(module).regions[0], module_block);
    let body = ctx.create_block();
    let mut mapping = HashMap::new();
    let arg_types: Vec<_> = arguments.iter().map(|&v| ctx.value_type(v)).collect();
    for (&v, &ty) in arguments.iter().zip(&arg_types) {
        let arg = ctx.add_block_argument(body, ty, None);
        mapping.insert(v, arg);
    }
    for &c in &constants {
        let copy = ctx.clone_op(c, &mut mapping);
        ctx.append_op(body, copy);
    }
    for (i, &(v, initial)) in weights.iter().enumerate() {
        let ty = ctx.value_type(v);
        let name = format!("__task_constant_{i}");
        let properties = vec![
            ("sym_name".to_string(), ctx.string_attr(&name)),
            ("sym_visibility".to_string(), ctx.string_attr("private")),
            ("type".to_string(), ctx.intern_attr(AttrKind::Type(ty))),
            ("initial_value".to_string(), initial),
            ("constant".to_string(), ctx.unit_attr()),
        ];
        let properties = ctx.dictionary_attr(properties);
        let global = create(ctx, "memref.global", vec![], vec![], 0, Some(properties));
        ctx.append_op(module_block, global);
        let symbol = ctx.intern_attr(AttrKind::SymbolRef {
            root: name,
            nested: vec![],
        });
        let symbol = ctx.dictionary_attr(vec![("name".to_string(), symbol)]);
        let get = create(ctx, "memref.get_global", vec![], vec![ty], 0, Some(symbol));
        ctx.append_op(body, get);
        mapping.insert(v, ctx.op(get).results[0]);
    }
    let result_types: Vec<_> = results.iter().map(|&v| ctx.value_type(v)).collect();
    let mut returned = Vec::new();
    for (&v, &ty) in results.iter().zip(&result_types) {
        let alloc = create(ctx, loop_::ALLOC, vec![], vec![ty], 0, None);
        tb_ir::ods::fill_defaults(ctx, alloc);
        ctx.append_op(body, alloc);
        let buffer = ctx.op(alloc).results[0];
        mapping.insert(v, buffer);
        returned.push(buffer);
    }
    let copy = ctx.clone_op(nest, &mut mapping);
    ctx.op_mut(copy).attributes = ctx.dictionary_attr(vec![]);
    ctx.append_op(body, copy);
    let ret = create(ctx, "func.return", returned, vec![], 0, None);
    ctx.append_op(body, ret);
    let fty = ctx.function_type(arg_types, result_types);
    let props = vec![
        ("sym_name".to_string(), ctx.string_attr(TASK_FUNCTION)),
        ("function_type".to_string(), ctx.type_attr(fty)),
    ];
    let props = ctx.dictionary_attr(props);
    let func = create(ctx, "func.func", vec![], vec![], 1, Some(props));
    ctx.append_block(ctx.op(func).regions[0], body);
    ctx.append_op(module_block, func);
    let verified = tb_ir::verifier::verify(ctx, module).is_ok();
    let text = print_operation(
        ctx,
        module,
        PrintOptions {
            generic: true,
            debug_info: false,
            local_scope: true,
        },
    );
    ctx.erase_op(module);
    if !verified {
        return None;
    }
    let key = structural_hash(&text);
    Some((text, key))
}

/// The initial value of a task's stand-in for `v` when `v` is read from a constant global
/// (`memref.get_global` of a `constant` `memref.global`) of a static shape and a float or
/// integer element type: every element 1.
fn constant_of_ones(ctx: &mut Context, v: Value) -> Option<Attr> {
    let ValueDef::Result { op: get, .. } = ctx.value(v).def else {
        return None;
    };
    if ctx.op_name(get) != "memref.get_global" {
        return None;
    }
    let name = ctx.op_inherent_or_attr(get, "name")?;
    let AttrKind::SymbolRef { root, .. } = ctx.attr_kind(name).clone() else {
        return None;
    };
    let global = lookup_symbol(ctx, get, &root)?;
    if ctx.op_name(global) != "memref.global" {
        return None;
    }
    ctx.op_inherent_or_attr(global, "constant")?;
    let TypeKind::MemRef {
        shape,
        element,
        layout: None,
        ..
    } = ctx.type_kind(ctx.value_type(v)).clone()
    else {
        return None;
    };
    if shape.iter().any(|&d| d < 0) {
        return None;
    }
    let one = match ctx.type_kind(element).clone() {
        TypeKind::Float(kind) => DenseElement::Float(bits_from_f64(kind, 1.0)?),
        TypeKind::Integer { .. } => DenseElement::Int(1),
        _ => return None,
    };
    let ty = ctx.intern_type(TypeKind::RankedTensor {
        shape,
        element,
        encoding: None,
    });
    Some(ctx.intern_attr(AttrKind::DenseElements {
        ty,
        data: DenseData {
            splat: true,
            elements: vec![one],
        },
    }))
}

/// Parses a task module (or any module text) into a fresh context.
pub fn parse_module(text: &str) -> Result<(Context, OpId), String> {
    let mut ctx = Context::new();
    tb_dialects::register_all(&mut ctx).map_err(|bug| format!("internal error: {bug}"))?;
    let module = tb_ir::parser::parse_source(
        &mut ctx,
        text,
        "<task>",
        &tb_ir::parser::ParseOptions::default(),
    )
    .map_err(|d| d.message)?;
    tb_ir::verifier::verify(&ctx, module).map_err(|d| d.message)?;
    Ok((ctx, module))
}

/// The first top-level loop nest of the task function of a task module.
pub fn task_nest(ctx: &Context, module: OpId) -> Option<OpId> {
    let func = top_ops(ctx, module)
        .into_iter()
        .find(|&f| ctx.op_name(f) == "func.func")?;
    let body = *ctx.region(*ctx.op(func).regions.first()?).blocks.first()?;
    ctx.block_ops(body).find(|&op| loop_::is_loop(ctx, op))
}
