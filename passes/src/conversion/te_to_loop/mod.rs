//! `convert-te-to-loop`: tensor expressions on tensors become loop nests on buffers.
//!
//! Every `func.func` of the module moves from tensors to memrefs (identity layout), the form
//! the CPU backend and `tb-run` take:
//!
//! - each `te.compute` gets a `loop.alloc` for its result and a loop nest that fills it
//!   ([`compute`]): a `loop.parallel` over the result dimensions with the reduction axes as
//!   inner `loop.for`s, the body cloned innermost and its reads turned into loads
//!   ([`reads`]);
//! - tensor constants become private constant `memref.global`s ([`constants`]);
//! - function signatures and call results become memrefs ([`signature`]);
//! - returned buffers are always fresh allocations of the returning function, and every
//!   other buffer it owns is freed after its last use ([`allocation`]).
//!
//! It is a dialect conversion (`tb_ir::rewrite::conversion`): afterwards no op may touch a
//! tensor (the `te` dialect is illegal, as is any op on tensors), the type converter turns
//! static tensors into identity-layout memrefs, and one pattern converts each family of ops
//! on tensors ([`patterns`]). Signatures and call results change type in place, and each
//! op is replaced by its buffer at once, so an op converted later sees buffers: no
//! `unrealized_conversion_cast` is left behind. The conversion is all or nothing:
//! unsupported input gets an error at every op (or function) responsible, and the module
//! is left exactly as it was ([`legality`]). Ownership (the frees and returned copies) is
//! settled afterwards, on the converted functions.

mod allocation;
pub(crate) mod builder;
mod combiner;
mod compute;
mod constants;
mod control_flow;
pub(crate) mod index_arith;
mod legality;
mod patterns;
mod reads;
mod signature;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use tb_dialects::func;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::rewrite::conversion::{
    ConversionMode, ConversionPattern, ConversionTarget, Legality, TypeConverter, apply_conversion,
};
use tb_ir::value::ValueDef;
use tb_ir::{BlockId, Context, Diagnostic, OpId, TypeKind, Value};

use allocation::Owned;
use constants::Globals;

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "convert-te-to-loop",
        description: "Lower tensor expressions on tensors to loop nests on buffers",
        options: &[],
        create: |_: &PassOptions| Box::new(ConvertTeToLoop),
    }
}

struct ConvertTeToLoop;

impl Pass for ConvertTeToLoop {
    fn argument(&self) -> &'static str {
        "convert-te-to-loop"
    }

    fn display_name(&self) -> &'static str {
        "ConvertTeToLoop"
    }

    fn anchor(&self) -> Option<&'static str> {
        Some("builtin.module")
    }

    fn run(&mut self, ctx: &mut Context, module: OpId) -> Result<(), Diagnostic> {
        let Some(body) = ctx
            .op(module)
            .regions
            .first()
            .and_then(|&r| ctx.entry_block(r))
        else {
            return Ok(());
        };
        let module_ops: Vec<OpId> = ctx.block_ops(body).collect();
        let functions: Vec<OpId> = module_ops
            .iter()
            .copied()
            .filter(|&op| ctx.op_name(op) == func::FUNC)
            .collect();
        let Some(&first) = functions.first() else {
            return Ok(());
        };
        // Functions already on buffers keep their own conventions.
        let on_tensors: Vec<OpId> = functions
            .iter()
            .copied()
            .filter(|&f| signature::involves_tensors(ctx, f))
            .collect();
        let allocations = Rc::new(RefCell::new(Vec::new()));
        let globals = Rc::new(RefCell::new(Globals::new(ctx, &module_ops, first)));
        let patterns: Vec<Box<dyn ConversionPattern>> = vec![
            Box::new(patterns::FunctionSignature),
            Box::new(patterns::CallsAndReturns),
            Box::new(patterns::Compute {
                allocations: Rc::clone(&allocations),
            }),
            Box::new(patterns::Extract),
            Box::new(control_flow::ScfOnTensors),
            Box::new(patterns::TensorConstant { globals }),
            Box::new(patterns::Unconvertible),
        ];
        apply_conversion(
            ctx,
            module,
            &target(),
            &patterns,
            &buffer_types(),
            ConversionMode::Full,
        )?;
        // Control flow gets buffers of its own for the tensors it gives and carries.
        let mut allocations = allocations.borrow().clone();
        for &function in &on_tensors {
            control_flow::settle(ctx, function, &mut allocations);
        }
        // The buffers of each block, in program order.
        let mut by_block: HashMap<BlockId, Vec<Value>> = HashMap::new();
        for &buffer in &allocations {
            if let ValueDef::Result { op, .. } = ctx.value(buffer).def
                && let Some(block) = ctx.op(op).parent
            {
                by_block.entry(block).or_default().push(buffer);
            }
        }
        for function in on_tensors {
            settle_ownership(ctx, function, &by_block);
        }
        Ok(())
    }
}

/// After the conversion no op touches a tensor; the ops of a `te.compute` body go with it.
fn target() -> ConversionTarget {
    let mut target = ConversionTarget::new();
    target
        .mark_unknown(Legality::Dynamic(legality::touches_no_tensors))
        .add_dialect("te", Legality::Illegal)
        .add_op(
            tb_dialects::te::READ,
            Legality::Dynamic(legality::in_compute_body),
        )
        .add_op(
            tb_dialects::te::READ_AT,
            Legality::Dynamic(legality::in_compute_body),
        )
        .add_op(
            tb_dialects::te::YIELD,
            Legality::Dynamic(legality::in_compute_body),
        )
        .add_op(func::FUNC, Legality::Dynamic(legality::function_is_legal));
    target
}

/// Ranked tensors become memrefs of the same shape and element type, identity layout.
fn buffer_types() -> TypeConverter {
    let mut types = TypeConverter::new();
    types.add_rule(Box::new(|ctx: &mut Context, ty| {
        matches!(ctx.type_kind(ty), TypeKind::RankedTensor { .. })
            .then(|| signature::buffer_type(ctx, ty))
    }));
    types
}

/// Frees what the converted `function` owns and returns only its own allocations
/// ([`allocation`]); `allocations` are the buffers made for `te.compute`s and control flow,
/// by block. The blocks of `scf` regions free what they own before they end.
fn settle_ownership(ctx: &mut Context, function: OpId, allocations: &HashMap<BlockId, Vec<Value>>) {
    let Some(block) = ctx
        .op(function)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
    else {
        return;
    };
    let mut region_blocks = Vec::new();
    ctx.walk_nested(function, &mut |op| {
        if ctx.op_name(op).starts_with("scf.") {
            for &region in &ctx.op(op).regions {
                region_blocks.extend(ctx.region(region).blocks.iter().copied());
            }
        }
    });
    for region_block in region_blocks {
        let owned = owned_by(ctx, region_block, allocations);
        allocation::free_owned(ctx, region_block, &owned);
    }
    let owned = owned_by(ctx, block, allocations);
    allocation::finish(ctx, block, &owned);
}

/// The buffers `block` owns: its allocations and the memrefs its calls return.
fn owned_by(ctx: &Context, block: BlockId, allocations: &HashMap<BlockId, Vec<Value>>) -> Owned {
    let mut owned = Owned {
        allocations: allocations.get(&block).cloned().unwrap_or_default(),
        call_results: Vec::new(),
    };
    for op in ctx.block_ops(block) {
        if ctx.op_name(op) == func::CALL {
            owned.call_results.extend(
                ctx.op(op).results.iter().copied().filter(|&r| {
                    matches!(ctx.type_kind(ctx.value_type(r)), TypeKind::MemRef { .. })
                }),
            );
        }
    }
    owned
}
