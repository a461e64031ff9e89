//! Structural edits through the [`Rewriter`]: attributes, moving ops, creating and merging
//! blocks, moving regions and cloning. Like the rewriter's other methods they record what
//! changed, so a driver revisits the ops involved.

use std::collections::HashMap;

use super::pattern::Rewriter;
use crate::attributes::Attr;
use crate::block::BlockId;
use crate::location::Location;
use crate::operation::OpId;
use crate::region::RegionId;
use crate::types::Type;
use crate::value::Value;

impl Rewriter<'_> {
    /// Sets (or replaces) the discardable attribute `name` of `op`.
    pub fn set_attr(&mut self, op: OpId, name: &str, value: Attr) {
        let dict = self.ctx().op(op).attributes;
        let updated = self.dictionary_with(dict, name, Some(value));
        self.ctx_mut().op_mut(op).attributes = updated;
        self.note_changed(op);
    }

    /// Removes the discardable attribute `name` of `op`; returns what it was.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> Option<Attr> {
        let dict = self.ctx().op(op).attributes;
        let old = self.ctx().dictionary_get(dict, name)?;
        let updated = self.dictionary_with(dict, name, None);
        self.ctx_mut().op_mut(op).attributes = updated;
        self.note_changed(op);
        Some(old)
    }

    /// Sets (or replaces) the inherent attribute (property) `name` of `op`.
    pub fn set_property(&mut self, op: OpId, name: &str, value: Attr) {
        let dict = match self.ctx().op(op).properties {
            Some(dict) => dict,
            None => self.ctx_mut().dictionary_attr(Vec::new()),
        };
        let updated = self.dictionary_with(dict, name, Some(value));
        self.ctx_mut().op_mut(op).properties = Some(updated);
        self.note_changed(op);
    }

    /// Moves `op` (with its regions) right before `before`, possibly into another block.
    pub fn move_op_before(&mut self, op: OpId, before: OpId) {
        self.ctx_mut().unlink_op(op);
        self.ctx_mut().insert_op_before(before, op);
        self.note_changed(op);
    }

    /// Moves `op` (with its regions) to the end of `block`.
    pub fn move_op_to_end(&mut self, op: OpId, block: BlockId) {
        self.ctx_mut().unlink_op(op);
        self.ctx_mut().append_op(block, op);
        self.note_changed(op);
    }

    /// A new block at the end of `region`, with one argument per `(type, location)`.
    pub fn create_block(&mut self, region: RegionId, args: &[(Type, Location)]) -> BlockId {
        let block = self.ctx_mut().create_block();
        self.ctx_mut().append_block(region, block);
        for &(ty, loc) in args {
            self.ctx_mut().add_block_argument(block, ty, Some(loc));
        }
        self.changed = true;
        block
    }

    /// Moves the ops of `block` right before `before` and erases `block`, its arguments
    /// replaced by `args` (MLIR's `inlineBlockBefore`). `block` must not be the block of
    /// `before`.
    pub fn inline_block_before(&mut self, block: BlockId, before: OpId, args: &[Value]) {
        let params = self.ctx().block(block).args.clone();
        assert_eq!(
            params.len(),
            args.len(),
            "inline_block_before needs one value per block argument"
        );
        for (param, &arg) in params.into_iter().zip(args) {
            self.replace_all_uses(param, arg);
        }
        let ops: Vec<OpId> = self.ctx().block_ops(block).collect();
        for op in ops {
            self.move_op_before(op, before);
        }
        self.ctx_mut().erase_block(block);
    }

    /// Moves every block of `region` into `dest`, before `before` (at the end when `None`),
    /// leaving `region` empty (MLIR's `inlineRegionBefore`).
    pub fn inline_region_before(
        &mut self,
        region: RegionId,
        dest: RegionId,
        before: Option<BlockId>,
    ) {
        let blocks = self.ctx_mut().take_blocks(region);
        self.ctx_mut().insert_blocks(dest, before, &blocks);
        let ops: Vec<OpId> = blocks
            .iter()
            .flat_map(|&b| self.ctx().block_ops(b).collect::<Vec<_>>())
            .collect();
        self.touched.extend(ops);
        self.changed = true;
    }

    /// A deep copy of `op` right before `before`; operands found in `mapping` are replaced,
    /// and every value the copy defines is added to it.
    pub fn clone_op_before(
        &mut self,
        op: OpId,
        before: OpId,
        mapping: &mut HashMap<Value, Value>,
    ) -> OpId {
        let copy = self.ctx_mut().clone_op(op, mapping);
        self.ctx_mut().insert_op_before(before, copy);
        self.note_changed(copy);
        copy
    }

    fn note_changed(&mut self, op: OpId) {
        self.touched.push(op);
        self.changed = true;
    }

    /// `dict` with `name` set to `value` (or removed when `None`).
    fn dictionary_with(&mut self, dict: Attr, name: &str, value: Option<Attr>) -> Attr {
        let mut entries: Vec<(String, Attr)> = self
            .ctx()
            .dictionary_entries(dict)
            .iter()
            .filter(|(key, _)| key != name)
            .cloned()
            .collect();
        if let Some(value) = value {
            entries.push((name.to_string(), value));
        }
        self.ctx_mut().dictionary_attr(entries)
    }
}
