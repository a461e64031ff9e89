//! `symbol-dce`: removes private symbols (`sym_visibility = "private"`) that nothing
//! references, repeating until the symbols left are all used or public.

use std::collections::HashSet;

use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::symbol_table::symbol_name;
use tb_ir::{Attr, AttrKind, Context, Diagnostic, OpId};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "symbol-dce",
        description: "Remove private symbols that are never referenced",
        options: &[],
        create: |_: &PassOptions| Box::new(SymbolDce),
    }
}

struct SymbolDce;

impl Pass for SymbolDce {
    fn argument(&self) -> &'static str {
        "symbol-dce"
    }

    fn display_name(&self) -> &'static str {
        "SymbolDCE"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        loop {
            let referenced = referenced_symbols(ctx, op);
            let mut dead = Vec::new();
            ctx.walk_nested(op, &mut |inner| {
                let private = ctx
                    .op_inherent_or_attr(inner, "sym_visibility")
                    .and_then(|v| ctx.attr_as_str(v))
                    == Some("private");
                if private && symbol_name(ctx, inner).is_some_and(|name| !referenced.contains(name))
                {
                    dead.push(inner);
                }
            });
            if dead.is_empty() {
                return Ok(());
            }
            for symbol in dead {
                if !ctx.op(symbol).erased {
                    ctx.erase_op(symbol);
                }
            }
        }
    }
}

/// Every name used by a symbol reference anywhere under `root`.
fn referenced_symbols(ctx: &Context, root: OpId) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut stack: Vec<Attr> = Vec::new();
    let mut ops = vec![root];
    ctx.walk_nested(root, &mut |op| ops.push(op));
    for op in ops {
        let data = ctx.op(op);
        stack.extend(data.properties);
        stack.push(data.attributes);
    }
    while let Some(attr) = stack.pop() {
        match ctx.attr_kind(attr) {
            AttrKind::SymbolRef { root, nested } => {
                names.insert(root.clone());
                names.extend(nested.iter().cloned());
            }
            AttrKind::Array(items) => stack.extend(items.iter().copied()),
            AttrKind::Dictionary(entries) => stack.extend(entries.iter().map(|(_, a)| *a)),
            _ => {}
        }
    }
    names
}
