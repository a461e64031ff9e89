//! `inline`: replaces `func.call`s to small single-block functions by a copy of the callee's
//! body. Calls inside the callee itself (recursion) are left alone.

use std::collections::HashMap;

use tb_ir::pass::{OptionKind, Pass, PassInfo, PassOptionInfo, PassOptions};
use tb_ir::symbol_table::lookup_symbol;
use tb_ir::{AttrKind, Context, Diagnostic, OpId};

const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo {
        name: "max-ops",
        kind: OptionKind::Int,
        default: "32",
        help: "Inline callees with at most this many ops",
    },
    PassOptionInfo {
        name: "max-iterations",
        kind: OptionKind::Int,
        default: "4",
        help: "Rounds of inlining (calls exposed by inlining are inlined next round)",
    },
];

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "inline",
        description: "Inline calls to small single-block functions",
        options: OPTIONS,
        create: |o: &PassOptions| {
            Box::new(Inline {
                max_ops: o.int("max-ops").max(0) as usize,
                max_iterations: o.int("max-iterations").max(1) as usize,
            })
        },
    }
}

struct Inline {
    max_ops: usize,
    max_iterations: usize,
}

impl Pass for Inline {
    fn argument(&self) -> &'static str {
        "inline"
    }

    fn display_name(&self) -> &'static str {
        "Inliner"
    }

    fn options(&self) -> Vec<(String, String)> {
        vec![
            ("max-ops".into(), self.max_ops.to_string()),
            ("max-iterations".into(), self.max_iterations.to_string()),
        ]
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> Result<(), Diagnostic> {
        for _ in 0..self.max_iterations {
            let mut calls = Vec::new();
            ctx.walk_nested(root, &mut |op| {
                if ctx.op_name(op) == "func.call" {
                    calls.push(op);
                }
            });
            let mut inlined = false;
            for call in calls {
                if let Some(callee) = self.inlinable_callee(ctx, call) {
                    inline_call(ctx, call, callee);
                    inlined = true;
                }
            }
            if !inlined {
                break;
            }
        }
        Ok(())
    }
}

impl Inline {
    /// The callee of `call` if its body is one block of at most `max_ops` ops ending in
    /// `func.return`, and the call is not inside it.
    fn inlinable_callee(&self, ctx: &Context, call: OpId) -> Option<OpId> {
        let AttrKind::SymbolRef { root, nested } =
            ctx.attr_kind(ctx.op_inherent_or_attr(call, "callee")?)
        else {
            return None;
        };
        if !nested.is_empty() {
            return None;
        }
        let callee = lookup_symbol(ctx, call, root).filter(|&f| ctx.op_name(f) == "func.func")?;
        let region = *ctx.op(callee).regions.first()?;
        let [block] = ctx.region(region).blocks.as_slice() else {
            return None;
        };
        let ops: Vec<OpId> = ctx.block_ops(*block).collect();
        let last = *ops.last()?;
        let mut enclosing = ctx.parent_op(call);
        while let Some(p) = enclosing {
            if p == callee {
                return None;
            }
            enclosing = ctx.parent_op(p);
        }
        (ctx.op_name(last) == "func.return" && ops.len() <= self.max_ops).then_some(callee)
    }
}

fn inline_call(ctx: &mut Context, call: OpId, callee: OpId) {
    let region = ctx.op(callee).regions[0];
    let block = ctx.region(region).blocks[0];
    let mut mapping: HashMap<_, _> = ctx
        .block(block)
        .args
        .iter()
        .copied()
        .zip(ctx.op(call).operands.iter().copied())
        .collect();
    let body: Vec<OpId> = ctx.block_ops(block).collect();
    let (ret, body) = body
        .split_last()
        .expect("checked: the body ends in func.return");
    for &op in body {
        let copy = ctx.clone_op(op, &mut mapping);
        ctx.insert_op_before(call, copy);
    }
    let returned: Vec<_> = ctx
        .op(*ret)
        .operands
        .iter()
        .map(|v| *mapping.get(v).unwrap_or(v))
        .collect();
    let results = ctx.op(call).results.to_vec();
    for (from, to) in results.into_iter().zip(returned) {
        ctx.replace_all_uses(from, to);
    }
    ctx.erase_op(call);
}
