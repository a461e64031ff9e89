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
//! Unsupported input is refused before anything changes ([`legality`]).

mod allocation;
mod builder;
mod combiner;
mod compute;
mod constants;
mod index_arith;
mod legality;
mod reads;
mod signature;

use tb_dialects::{func, te};
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::{Context, Diagnostic, OpId, TypeKind};

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
        for &function in &functions {
            legality::check_function(ctx, function)?;
        }
        // Functions already on buffers keep their own conventions.
        let on_tensors: Vec<OpId> = functions
            .iter()
            .copied()
            .filter(|&f| signature::involves_tensors(ctx, f))
            .collect();
        signature::bufferize_signatures(ctx, &functions);
        let mut globals = Globals::new(ctx, &module_ops, first);
        for function in on_tensors {
            convert_body(ctx, function, &mut globals);
        }
        Ok(())
    }
}

/// Converts the body of `function` (if it has one), whose signature is already on buffers.
fn convert_body(ctx: &mut Context, function: OpId, globals: &mut Globals) {
    let Some(block) = ctx
        .op(function)
        .regions
        .first()
        .and_then(|&r| ctx.entry_block(r))
    else {
        return;
    };
    let mut owned = Owned::default();
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        match ctx.op_name(op) {
            te::COMPUTE => owned.allocations.push(compute::lower(ctx, op)),
            func::CALL => {
                owned
                    .call_results
                    .extend(ctx.op(op).results.iter().copied().filter(|&r| {
                        matches!(ctx.type_kind(ctx.value_type(r)), TypeKind::MemRef { .. })
                    }))
            }
            _ if constants::is_tensor_constant(ctx, op) => constants::lower(ctx, op, globals),
            _ => {}
        }
    }
    allocation::finish(ctx, block, &owned);
}
