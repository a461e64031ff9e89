//! Regions: an ordered list of blocks owned by an operation.

use crate::block::BlockId;
use crate::context::Context;
use crate::operation::OpId;

/// A region id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct RegionId(pub(crate) u32);

#[derive(Clone, Debug, Default)]
pub struct RegionData {
    pub blocks: Vec<BlockId>,
    pub parent: Option<OpId>,
}

impl Context {
    pub fn create_region(&mut self, parent: Option<OpId>) -> RegionId {
        RegionId(self.regions.push(RegionData {
            blocks: Vec::new(),
            parent,
        }))
    }

    pub fn region(&self, region: RegionId) -> &RegionData {
        &self.regions[region.0 as usize]
    }

    /// Appends `block` to `region`.
    pub fn append_block(&mut self, region: RegionId, block: BlockId) {
        self.blocks[block.0 as usize].parent = Some(region);
        self.regions[region.0 as usize].blocks.push(block);
    }

    /// Makes the detached `region` the last region of `op`.
    pub fn attach_region(&mut self, op: OpId, region: RegionId) {
        self.regions[region.0 as usize].parent = Some(op);
        self.ops[op.0 as usize].regions.push(region);
    }

    /// Detaches every block of `region` (in order), leaving it empty.
    pub fn take_blocks(&mut self, region: RegionId) -> Vec<BlockId> {
        let blocks = std::mem::take(&mut self.regions[region.0 as usize].blocks);
        for &block in &blocks {
            self.blocks[block.0 as usize].parent = None;
        }
        blocks
    }

    /// Inserts detached `blocks` into `region` before `before` (at the end when `None`, or
    /// when `before` is not in `region`).
    pub fn insert_blocks(&mut self, region: RegionId, before: Option<BlockId>, blocks: &[BlockId]) {
        for &block in blocks {
            self.blocks[block.0 as usize].parent = Some(region);
        }
        let list = &mut self.regions[region.0 as usize].blocks;
        let at = before
            .and_then(|b| list.iter().position(|&x| x == b))
            .unwrap_or(list.len());
        list.splice(at..at, blocks.iter().copied());
    }

    /// The entry block of `region`, if it has any block.
    pub fn entry_block(&self, region: RegionId) -> Option<BlockId> {
        self.region(region).blocks.first().copied()
    }
}
