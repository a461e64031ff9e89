//! Dominance between the blocks of a region.

use std::collections::HashMap;

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
