//! `cse`: eliminates common subexpressions. A pure op identical to one that dominates it
//! (same name, operands, properties, attributes and result types) is replaced by it.
//! Nested regions see the ops of enclosing regions, except under isolated-from-above ops
//! (and unregistered ops, which might be).

use std::collections::HashMap;

use tb_ir::dominance::immediate_dominators;
use tb_ir::pass::{Pass, PassInfo, PassOptions};
use tb_ir::verifier::has_ssa_dominance;
use tb_ir::{Attr, BlockId, Context, Diagnostic, OpId, RegionId, Type, Value};

pub(crate) fn info() -> PassInfo {
    PassInfo {
        argument: "cse",
        description: "Eliminate common sub-expressions among pure operations",
        options: &[],
        create: |_: &PassOptions| Box::new(Cse),
    }
}

struct Cse;

/// What makes two pure ops interchangeable.
#[derive(Clone, PartialEq, Eq, Hash)]
struct OpKey {
    name: String,
    operands: Vec<Value>,
    properties: Option<Attr>,
    attributes: Attr,
    result_types: Vec<Type>,
}

/// Known ops in nested scopes, as a scoped hash table: one map from key to the ops known
/// under it (innermost last), and per open scope the keys it added, so a lookup costs the
/// same however deep the scopes nest (a chain of blocks nests a scope per block).
#[derive(Default)]
struct Scopes {
    known: HashMap<OpKey, Vec<OpId>>,
    added: Vec<Vec<OpKey>>,
}

impl Scopes {
    fn push(&mut self) {
        self.added.push(Vec::new());
    }

    fn pop(&mut self) {
        for key in self.added.pop().unwrap_or_default() {
            if let Some(ops) = self.known.get_mut(&key) {
                ops.pop();
                if ops.is_empty() {
                    self.known.remove(&key);
                }
            }
        }
    }

    fn lookup(&self, key: &OpKey) -> Option<OpId> {
        self.known.get(key).and_then(|ops| ops.last().copied())
    }

    /// Records `op` under `key` in the innermost scope (there is one per visited block).
    fn insert(&mut self, key: OpKey, op: OpId) {
        if let Some(added) = self.added.last_mut() {
            added.push(key.clone());
            self.known.entry(key).or_default().push(op);
        }
    }
}

impl Pass for Cse {
    fn argument(&self) -> &'static str {
        "cse"
    }

    fn display_name(&self) -> &'static str {
        "CSE"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        let regions = ctx.op(op).regions.to_vec();
        for region in regions {
            simplify_region(ctx, region, &mut Scopes::default());
        }
        Ok(())
    }
}

fn key(ctx: &Context, op: OpId) -> OpKey {
    let data = ctx.op(op);
    OpKey {
        name: ctx.op_name(op).to_string(),
        operands: data.operands.to_vec(),
        properties: data.properties,
        attributes: data.attributes,
        result_types: data.results.iter().map(|&r| ctx.value_type(r)).collect(),
    }
}

fn simplify_region(ctx: &mut Context, region: RegionId, scopes: &mut Scopes) {
    let blocks = ctx.region(region).blocks.clone();
    // A region without blocks (a function declaration's body) has nothing to simplify.
    let Some(&entry) = blocks.first() else {
        return;
    };
    if blocks.len() == 1 || !has_ssa_dominance(ctx, region) {
        // One block, or no dominance to respect: ops only see earlier ops of their block.
        for block in blocks {
            scopes.push();
            simplify_block(ctx, block, scopes);
            scopes.pop();
        }
        return;
    }
    // Walk the dominator tree so a block sees the ops of every block dominating it.
    let idom = immediate_dominators(ctx, region);
    let mut children: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in &blocks {
        if let Some(Some(parent)) = idom.get(&b) {
            children.entry(*parent).or_default().push(b);
        }
    }
    visit_dominator_tree(ctx, entry, &children, scopes);
}

/// Simplifies the blocks of the dominator tree under `root` in preorder, each seeing the
/// ops of its dominators. Iterative: a chain of blocks makes a tree as deep as it is long.
fn visit_dominator_tree(
    ctx: &mut Context,
    root: BlockId,
    children: &HashMap<BlockId, Vec<BlockId>>,
    scopes: &mut Scopes,
) {
    // `Some(block)` enters a block (opening its scope), `None` leaves the latest one.
    let mut stack = vec![Some(root)];
    while let Some(step) = stack.pop() {
        let Some(block) = step else {
            scopes.pop();
            continue;
        };
        scopes.push();
        simplify_block(ctx, block, scopes);
        stack.push(None);
        for &child in children
            .get(&block)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .rev()
        {
            stack.push(Some(child));
        }
    }
}

fn simplify_block(ctx: &mut Context, block: BlockId, scopes: &mut Scopes) {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    for op in ops {
        if crate::is_pure(ctx, op) {
            let k = key(ctx, op);
            if let Some(existing) = scopes.lookup(&k) {
                let (old, new) = (
                    ctx.op(op).results.to_vec(),
                    ctx.op(existing).results.to_vec(),
                );
                for (from, to) in old.into_iter().zip(new) {
                    ctx.replace_all_uses(from, to);
                }
                ctx.erase_op(op);
            } else {
                scopes.insert(k, op);
            }
            continue;
        }
        // An unregistered op might be isolated from above: as MLIR does, its regions start
        // with no known values rather than capture outer ones.
        let isolated = ctx.op_traits(op).is_none_or(|t| t.isolated_from_above);
        let regions = ctx.op(op).regions.to_vec();
        for region in regions {
            if isolated {
                simplify_region(ctx, region, &mut Scopes::default());
            } else {
                simplify_region(ctx, region, scopes);
            }
        }
    }
}
