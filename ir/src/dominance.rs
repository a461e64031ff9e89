//! Dominance between the blocks of a region.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::block::BlockId;
use crate::context::Context;
use crate::region::RegionId;

/// Immediate dominators of a region's blocks (iterative data-flow over reverse postorder).
pub fn immediate_dominators(ctx: &Context, region: RegionId) -> HashMap<BlockId, Option<BlockId>> {
    let blocks = &ctx.region(region).blocks;
    let mut idom: HashMap<BlockId, Option<BlockId>> = HashMap::new();
    let Some(&entry) = blocks.first() else {
        return idom;
    };
    let succs = |b: BlockId| -> Vec<BlockId> {
        ctx.block(b)
            .last
            .map(|t| ctx.op(t).successors.to_vec())
            .unwrap_or_default()
    };
    // Reverse postorder from the entry.
    let mut order = Vec::new();
    let mut visited = std::collections::HashSet::new();
    let mut stack = vec![(entry, 0usize)];
    visited.insert(entry);
    while let Some((b, i)) = stack.pop() {
        let s = succs(b);
        if i < s.len() {
            stack.push((b, i + 1));
            if visited.insert(s[i]) {
                stack.push((s[i], 0));
            }
        } else {
            order.push(b);
        }
    }
    order.reverse();
    let rpo: HashMap<BlockId, usize> = order.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut preds: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in &order {
        for s in succs(b) {
            preds.entry(s).or_default().push(b);
        }
    }
    let mut doms: HashMap<BlockId, BlockId> = HashMap::from([(entry, entry)]);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new_idom: Option<BlockId> = None;
            for &p in preds.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                if !doms.contains_key(&p) {
                    continue;
                }
                new_idom = Some(match new_idom {
                    None => p,
                    Some(cur) => {
                        let (mut x, mut y) = (p, cur);
                        while x != y {
                            while rpo[&x] > rpo[&y] {
                                x = doms[&x];
                            }
                            while rpo[&y] > rpo[&x] {
                                y = doms[&y];
                            }
                        }
                        x
                    }
                });
            }
            if let Some(d) = new_idom
                && doms.get(&b) != Some(&d)
            {
                doms.insert(b, d);
                changed = true;
            }
        }
    }
    for (&b, &d) in &doms {
        idom.insert(b, if b == entry { None } else { Some(d) });
    }
    idom
}

/// A region's dominator tree, numbered in preorder so that whether a block dominates
/// another is answered in O(1), whatever the depth of the tree (a chain of 100,000 blocks
/// is 100,000 deep): `a` dominates `b` when `b`'s preorder number lies in `a`'s subtree.
pub struct DominatorTree {
    /// Per block reachable from the entry: its preorder number and one past the last
    /// preorder number of its subtree.
    subtrees: FxHashMap<BlockId, (u32, u32)>,
}

impl DominatorTree {
    pub fn new(ctx: &Context, region: RegionId) -> DominatorTree {
        let idom = immediate_dominators(ctx, region);
        let mut children: FxHashMap<BlockId, Vec<BlockId>> = FxHashMap::default();
        let mut root = None;
        // Children in region order, so the numbering does not depend on hashing.
        for &block in &ctx.region(region).blocks {
            match idom.get(&block) {
                Some(Some(parent)) => children.entry(*parent).or_default().push(block),
                Some(None) => root = Some(block),
                None => {}
            }
        }
        let mut subtrees: FxHashMap<BlockId, (u32, u32)> = FxHashMap::default();
        let mut next = 0u32;
        // Depth-first without recursion: `(block, false)` enters, `(block, true)` leaves.
        let mut stack: Vec<(BlockId, bool)> = root.map(|r| (r, false)).into_iter().collect();
        while let Some((block, leaving)) = stack.pop() {
            if leaving {
                if let Some(subtree) = subtrees.get_mut(&block) {
                    subtree.1 = next;
                }
                continue;
            }
            subtrees.insert(block, (next, next + 1));
            next += 1;
            stack.push((block, true));
            for &child in children.get(&block).into_iter().flatten().rev() {
                stack.push((child, false));
            }
        }
        DominatorTree { subtrees }
    }

    /// Whether every path from the entry to `b` goes through `a`. A block dominates
    /// itself; as in MLIR and LLVM, a block the entry does not reach is dominated by every
    /// block (no path reaches it) and dominates no other block.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if a == b {
            return true;
        }
        match (self.subtrees.get(&a), self.subtrees.get(&b)) {
            (_, None) => true,
            (Some(&(start, end)), Some(&(at, _))) => start <= at && at < end,
            (None, Some(_)) => false,
        }
    }
}
