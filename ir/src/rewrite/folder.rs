//! Constants during folding, as MLIR's canonicalizer keeps them: folds materialize
//! constants where the folded op was; each sweep then keeps one constant per (dialect,
//! value, type) and insertion region (the nearest region whose op is isolated from
//! above), moved to the front of that region's entry block in order of appearance.

use rustc_hash::FxHashMap;

use crate::attributes::Attr;
use crate::block::BlockId;
use crate::context::Context;
use crate::operation::{OpId, OpName};
use crate::region::RegionId;
use crate::registry::FoldResult;
use crate::types::Type;
use crate::value::{Value, ValueDef};

#[derive(Default)]
pub struct ConstantFolder {
    uniqued: FxHashMap<ConstantKey, OpId>,
    /// The constants this folder placed, with the keys that name them.
    owned: FxHashMap<OpId, Vec<ConstantKey>>,
}

/// The constant op's name stands for its dialect: a dialect has one constant op.
type ConstantKey = (RegionId, OpName, Attr, Type);

/// The constant a constant-like op materializes: its `value` attribute.
pub fn constant_value(ctx: &Context, op: OpId) -> Option<Attr> {
    let info = ctx.op_info_of(op)?;
    if !info.traits.constant_like {
        return None;
    }
    ctx.op_inherent_or_attr(op, "value")
}

/// Per operand of `op`, the constant it is known to be.
pub fn constant_operands(ctx: &Context, op: OpId) -> Vec<Option<Attr>> {
    ctx.op(op)
        .operands
        .iter()
        .map(|&v| match ctx.value(v).def {
            ValueDef::Result { op: producer, .. } => constant_value(ctx, producer),
            _ => None,
        })
        .collect()
}

fn dialect_of(ctx: &Context, op: OpId) -> String {
    let name = ctx.op_name(op);
    name.split_once('.').map_or(name, |(d, _)| d).to_string()
}

/// The region constants of `block` go to: climb while the region's op is a registered,
/// non-isolated op that sits in a block.
fn insertion_region(ctx: &Context, mut block: BlockId) -> Option<RegionId> {
    loop {
        let region = ctx.block(block).parent?;
        let Some(parent) = ctx.region(region).parent else {
            return Some(region);
        };
        let isolated = ctx.op_traits(parent).is_none_or(|t| t.isolated_from_above);
        match ctx.op(parent).parent {
            Some(b) if !isolated => block = b,
            _ => return Some(region),
        }
    }
}

impl ConstantFolder {
    pub fn is_owned(&self, op: OpId) -> bool {
        self.owned.contains_key(&op)
    }

    /// Forgets an erased constant.
    pub fn notify_erased(&mut self, op: OpId) {
        for key in self.owned.remove(&op).unwrap_or_default() {
            if self.uniqued.get(&key) == Some(&op) {
                self.uniqued.remove(&key);
            }
        }
    }

    /// Registers an existing constant op: a duplicate of a known constant is replaced by
    /// it (returns true); otherwise it moves to the front of its insertion block.
    pub fn insert_known_constant(&mut self, ctx: &mut Context, op: OpId) -> bool {
        if self.owned.contains_key(&op) {
            return false;
        }
        let Some(value) = constant_value(ctx, op) else {
            return false;
        };
        let Some(block) = ctx.op(op).parent else {
            return false;
        };
        let Some(region) = insertion_region(ctx, block) else {
            return false;
        };
        let Some(&result) = ctx.op(op).results.first() else {
            return false;
        };
        let key = (region, ctx.op(op).name, value, ctx.value_type(result));
        if let Some(&existing) = self.uniqued.get(&key) {
            let to = ctx.op(existing).results[0];
            ctx.replace_all_uses(result, to);
            ctx.erase_op(op);
            return true;
        }
        let entry = ctx.region(region).blocks[0];
        let at_front = ctx.block(entry).first == Some(op);
        let after_owned = ctx.op(op).prev.is_some_and(|p| self.owned.contains_key(&p));
        if block != entry || (!at_front && !after_owned) {
            ctx.unlink_op(op);
            match ctx.block(entry).first {
                Some(first) => ctx.insert_op_before(first, op),
                None => ctx.append_op(entry, op),
            }
        }
        self.uniqued.insert(key, op);
        self.owned.insert(op, vec![key]);
        false
    }

    /// Turns fold results into values, materializing constants right before `op`, as
    /// MLIR's driver does; the next sweep uniques and hoists them. `None` if a constant
    /// cannot be built.
    pub fn materialize(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        results: &[FoldResult],
        created: &mut Vec<OpId>,
    ) -> Option<Vec<Value>> {
        ctx.op(op).parent?;
        let dialect = dialect_of(ctx, op);
        let loc = ctx.op(op).loc;
        let types: Vec<Type> = ctx
            .op(op)
            .results
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let mut values = Vec::with_capacity(results.len());
        for (r, ty) in results.iter().zip(types) {
            let attr = match r {
                FoldResult::Value(v) => {
                    values.push(*v);
                    continue;
                }
                FoldResult::Attr(a) => *a,
                FoldResult::NewAttr(kind) => ctx.intern_attr(kind.clone()),
            };
            let materialize = ctx.dialect_info(&dialect)?.materialize_constant?;
            let constant = materialize(ctx, attr, ty, loc)?;
            ctx.insert_op_before(op, constant);
            created.push(constant);
            values.push(ctx.op(constant).results[0]);
        }
        Some(values)
    }
}
