//! Blocks: arguments and an ordered list of operations, inside a region.

use smallvec::SmallVec;

use crate::context::Context;
use crate::location::Location;
use crate::operation::OpId;
use crate::region::RegionId;
use crate::types::Type;
use crate::value::{Value, ValueDef};

/// A block id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct BlockId(pub(crate) u32);

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub args: SmallVec<[Value; 4]>,
    pub first: Option<OpId>,
    pub last: Option<OpId>,
    pub parent: Option<RegionId>,
}

impl Context {
    pub fn create_block(&mut self) -> BlockId {
        BlockId(self.blocks.push(BlockData::default()))
    }

    pub fn block(&self, block: BlockId) -> &BlockData {
        &self.blocks[block.0 as usize]
    }

    pub fn add_block_argument(&mut self, block: BlockId, ty: Type, loc: Option<Location>) -> Value {
        let index = self.blocks[block.0 as usize].args.len() as u32;
        let value = self.new_value(ty, ValueDef::BlockArgument { block, index }, loc);
        self.blocks[block.0 as usize].args.push(value);
        value
    }

    /// Removes the last argument of `block`, which must have no uses (how a conversion
    /// takes back an argument it added).
    pub fn pop_block_argument(&mut self, block: BlockId) -> Option<Value> {
        let last = *self.blocks[block.0 as usize].args.last()?;
        if !self.value(last).uses.is_empty() {
            return None;
        }
        self.blocks[block.0 as usize].args.pop()
    }

    /// Appends a detached operation at the end of `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        let last = self.blocks[block.0 as usize].last;
        {
            let data = &mut self.ops[op.0 as usize];
            data.parent = Some(block);
            data.prev = last;
            data.next = None;
        }
        match last {
            Some(last) => self.ops[last.0 as usize].next = Some(op),
            None => self.blocks[block.0 as usize].first = Some(op),
        }
        self.blocks[block.0 as usize].last = Some(op);
    }

    /// Inserts a detached operation right before `before`.
    pub fn insert_op_before(&mut self, before: OpId, op: OpId) {
        let block = self
            .op(before)
            .parent
            .expect("insertion point is in a block");
        let prev = self.op(before).prev;
        {
            let data = &mut self.ops[op.0 as usize];
            data.parent = Some(block);
            data.prev = prev;
            data.next = Some(before);
        }
        self.ops[before.0 as usize].prev = Some(op);
        match prev {
            Some(prev) => self.ops[prev.0 as usize].next = Some(op),
            None => self.blocks[block.0 as usize].first = Some(op),
        }
    }

    /// Detaches `op` from its block without destroying it.
    pub fn unlink_op(&mut self, op: OpId) {
        let Some(block) = self.op(op).parent else {
            return;
        };
        let (prev, next) = (self.op(op).prev, self.op(op).next);
        match prev {
            Some(p) => self.ops[p.0 as usize].next = next,
            None => self.blocks[block.0 as usize].first = next,
        }
        match next {
            Some(n) => self.ops[n.0 as usize].prev = prev,
            None => self.blocks[block.0 as usize].last = prev,
        }
        let data = &mut self.ops[op.0 as usize];
        data.parent = None;
        data.prev = None;
        data.next = None;
    }

    /// Removes `block` from its region and erases its operations. Uses of its values must
    /// be gone or in ops erased along with it.
    pub fn erase_block(&mut self, block: BlockId) {
        let ops: Vec<OpId> = self.block_ops(block).collect();
        for op in ops.into_iter().rev() {
            self.erase_op(op);
        }
        if let Some(region) = self.blocks[block.0 as usize].parent.take() {
            self.regions[region.0 as usize]
                .blocks
                .retain(|&b| b != block);
        }
    }

    /// Removes `blocks`, all of `region`, and erases their operations, with one pass over
    /// the region's block list (erasing them one at a time costs a pass each). Uses of
    /// their values must be gone or in ops erased along with them.
    pub fn erase_blocks(&mut self, region: RegionId, blocks: &[BlockId]) {
        for &block in blocks {
            let ops: Vec<OpId> = self.block_ops(block).collect();
            for op in ops.into_iter().rev() {
                self.erase_op(op);
            }
            self.blocks[block.0 as usize].parent = None;
        }
        let erased: rustc_hash::FxHashSet<BlockId> = blocks.iter().copied().collect();
        self.regions[region.0 as usize]
            .blocks
            .retain(|b| !erased.contains(b));
    }

    /// The operations of `block`, in order.
    pub fn block_ops(&self, block: BlockId) -> BlockOps<'_> {
        BlockOps {
            ctx: self,
            next: self.block(block).first,
        }
    }

    /// The last operation of `block`, which terminates it when the block is well formed.
    pub fn block_terminator(&self, block: BlockId) -> Option<OpId> {
        self.block(block).last
    }
}

/// Iterator over a block's operations.
pub struct BlockOps<'a> {
    ctx: &'a Context,
    next: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let op = self.next?;
        self.next = self.ctx.op(op).next;
        Some(op)
    }
}
