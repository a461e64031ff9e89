//! Symbols: ops named by a `sym_name` string inside an op with the symbol-table trait.

use std::collections::HashMap;

use crate::context::Context;
use crate::operation::OpId;
use crate::pass::Analysis;

/// The `sym_name` of `op`, if it defines a symbol.
pub fn symbol_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.op_inherent_or_attr(op, "sym_name")
        .and_then(|a| ctx.attr_as_str(a))
}

/// The closest op enclosing `op` (not `op` itself) that holds a symbol table.
pub fn nearest_symbol_table(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.op_traits(p).is_some_and(|t| t.symbol_table) {
            return Some(p);
        }
        cur = ctx.parent_op(p);
    }
    None
}

/// The op named `name` directly inside the symbol table `table`.
pub fn lookup_symbol_in(ctx: &Context, table: OpId, name: &str) -> Option<OpId> {
    ctx.op(table)
        .regions
        .iter()
        .flat_map(|&r| ctx.region(r).blocks.iter())
        .flat_map(|&b| ctx.block_ops(b))
        .find(|&op| symbol_name(ctx, op) == Some(name))
}

/// Resolves a flat symbol reference as seen from `from`: the nearest symbol table first.
pub fn lookup_symbol(ctx: &Context, from: OpId, name: &str) -> Option<OpId> {
    let mut table = nearest_symbol_table(ctx, from);
    while let Some(t) = table {
        if let Some(found) = lookup_symbol_in(ctx, t, name) {
            return Some(found);
        }
        table = nearest_symbol_table(ctx, t);
    }
    None
}

/// The symbols directly inside one symbol-table op, by name: one walk, then lookups in
/// constant time. Cached by the pass manager as an [`Analysis`] of that op.
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    symbols: HashMap<String, OpId>,
}

impl SymbolTable {
    /// The symbols defined directly inside `table`; of two with one name, the first.
    pub fn build(ctx: &Context, table: OpId) -> SymbolTable {
        let mut symbols = HashMap::new();
        for &region in &ctx.op(table).regions {
            for &block in &ctx.region(region).blocks {
                for op in ctx.block_ops(block) {
                    if let Some(name) = symbol_name(ctx, op) {
                        symbols.entry(name.to_string()).or_insert(op);
                    }
                }
            }
        }
        SymbolTable { symbols }
    }

    /// The op named `name`, as [`lookup_symbol_in`] would find it.
    pub fn lookup(&self, name: &str) -> Option<OpId> {
        self.symbols.get(name).copied()
    }

    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}

impl Analysis for SymbolTable {
    fn compute(ctx: &Context, op: OpId) -> Self {
        SymbolTable::build(ctx, op)
    }
}
