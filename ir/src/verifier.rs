//! The IR verifier: block structure, successors, registered-op verifiers, SSA dominance in
//! CFG regions, isolation from above and symbol tables.

use std::collections::HashMap;

use crate::attributes::AttrKind;
use crate::block::BlockId;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::dominance::DominatorTree;
use crate::operation::OpId;
use crate::region::RegionId;
use crate::value::{Value, ValueDef};

/// Verifies `op` and everything nested in it; returns the first error found.
pub fn verify(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    verify_all(ctx, op).map_err(|mut errors| errors.swap_remove(0))
}

/// Verifies `op` and everything nested in it, as MLIR does: the ops nested in an op
/// isolated from above (a function) are verified apart from their surroundings, so an
/// error in one function does not hide the first error of another. Returns at least one
/// error on failure, in the order of the ops.
pub fn verify_all(ctx: &Context, op: OpId) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier {
        ctx,
        dominators: HashMap::new(),
        op_positions: rustc_hash::FxHashMap::default(),
        numbered_blocks: rustc_hash::FxHashSet::default(),
    };
    v.verify_op(op)?;
    // As in MLIR, the symbols an op refers to are checked last, once the whole tree (and
    // every symbol table in it) is known to be valid.
    let mut preorder = vec![op];
    ctx.walk_nested(op, &mut |inner| preorder.push(inner));
    for op in preorder {
        if let Some(verify) = ctx.op_info_of(op).and_then(|i| i.def?.verify_symbol_uses) {
            verify(ctx, op).map_err(|e| vec![e])?;
        }
    }
    Ok(())
}

struct Verifier<'a> {
    ctx: &'a Context,
    /// Dominator trees per CFG region, computed on demand.
    dominators: HashMap<RegionId, DominatorTree>,
    /// Each op's position in its block, for the blocks in `numbered_blocks`: the order of
    /// two ops of a block in O(1) once the block is numbered. A map, not a table over all
    /// ops: verifying one function of a large module must not cost the module's size.
    op_positions: rustc_hash::FxHashMap<OpId, u32>,
    numbered_blocks: rustc_hash::FxHashSet<BlockId>,
}

impl Verifier<'_> {
    /// Checks every op under `root` without recursion (IR built through the API can nest
    /// arbitrarily deep): structure and dominance top-down, then each op's own verifier,
    /// isolation and symbol table bottom-up, so nested ops are checked before their parents.
    /// Ops isolated from above (with regions) nested in `root` are verified each on its own
    /// once the rest of `root` is valid, and all their errors are returned (recursion only
    /// per level of isolated nesting).
    fn verify_op(&mut self, root: OpId) -> Result<(), Vec<Diagnostic>> {
        let mut isolated = Vec::new();
        let preorder = self
            .verify_invariants(root, &mut isolated)
            .map_err(|e| vec![e])?;
        let mut errors = Vec::new();
        for op in isolated {
            if let Err(mut found) = self.verify_op(op) {
                errors.append(&mut found);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        self.verify_region_invariants(&preorder)
            .map_err(|e| vec![e])
    }

    /// The checks of `root` and the ops nested in it, leaving out (and collecting into
    /// `isolated`) nested ops isolated from above with regions; returns the ops checked,
    /// in pre-order.
    fn verify_invariants(
        &mut self,
        root: OpId,
        isolated: &mut Vec<OpId>,
    ) -> Result<Vec<OpId>, Diagnostic> {
        let ctx = self.ctx;
        /// A step of the depth-first walk: an op to verify, or a block whose ops have all
        /// been verified, whose terminator is checked then (MLIR's order: an invalid op in a
        /// block is reported before the block's missing terminator).
        enum Step {
            Op(OpId),
            BlockDone(OpId, BlockId),
        }
        let mut preorder = Vec::new();
        let mut stack = vec![Step::Op(root)];
        while let Some(step) = stack.pop() {
            let op = match step {
                Step::Op(op) => op,
                Step::BlockDone(parent, block) => {
                    self.verify_terminator(parent, block)?;
                    continue;
                }
            };
            if op != root && is_isolated_with_regions(ctx, op) {
                isolated.push(op);
                continue;
            }
            preorder.push(op);
            self.verify_structure(op)?;
            // As in MLIR, an op's invariants and own verifier run before the checks of its
            // blocks and before its nested ops.
            if let Some(info) = ctx.op_info_of(op) {
                if let Some(def) = info.def {
                    crate::ods::verify_op(ctx, op, def)?;
                }
                if let Some(verify) = info.verify {
                    verify(ctx, op)?;
                }
                if info.traits.function_like {
                    verify_declaration_visibility(ctx, op, info.name)?;
                }
            }
            // A terminator's place is one of its own invariants, checked after its
            // parent-op constraint as MLIR orders the traits.
            if ctx.op_traits(op).is_some_and(|t| t.terminator) && ctx.op(op).next.is_some() {
                return Err(Diagnostic::error(
                    ctx.op(op).loc,
                    "must be the last operation in the parent block",
                ));
            }
            for &region in &ctx.op(op).regions {
                self.verify_region(op, region)?;
            }
            for &region in ctx.op(op).regions.iter().rev() {
                for &block in ctx.region(region).blocks.iter().rev() {
                    stack.push(Step::BlockDone(op, block));
                    let ops: Vec<OpId> = ctx.block_ops(block).collect();
                    stack.extend(ops.into_iter().rev().map(Step::Op));
                }
            }
        }
        Ok(preorder)
    }

    /// The checks of the ops `verify_invariants` visited that need their nested ops to be
    /// valid: dominance, isolation and symbol tables.
    fn verify_region_invariants(&mut self, preorder: &[OpId]) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        // As in MLIR, dominance is checked once every op is known to be valid.
        for &op in preorder {
            self.verify_dominance(op)?;
        }
        for &op in preorder.iter().rev() {
            let Some(info) = ctx.op_info_of(op) else {
                continue;
            };
            if info.traits.isolated_from_above {
                self.verify_isolation(op)?;
            }
            if info.traits.symbol_table {
                self.verify_symbol_table(op)?;
            }
        }
        Ok(())
    }

    /// The checks of one op that do not depend on its nested ops being valid.
    fn verify_structure(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let data = ctx.op(op);
        for (i, &v) in data.operands.iter().enumerate() {
            if matches!(ctx.value(v).def, ValueDef::Placeholder) {
                return Err(Diagnostic::error(
                    data.loc,
                    format!("operand #{i} is an unresolved forward reference"),
                ));
            }
        }
        self.verify_successors(op)?;
        // The single-block trait is one of the op's invariants.
        if let Some(traits) = ctx.op_traits(op)
            && traits.single_block
            && let Some(index) = data
                .regions
                .iter()
                .position(|&r| ctx.region(r).blocks.len() > 1)
        {
            return Err(Diagnostic::error(
                data.loc,
                format!(
                    "'{}' op expects region #{index} to have 0 or 1 blocks",
                    ctx.op_name(op)
                ),
            ));
        }
        Ok(())
    }

    fn verify_successors(&self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let data = ctx.op(op);
        if data.successors.is_empty() {
            return Ok(());
        }
        if data.next.is_some() {
            return Err(Diagnostic::error(
                data.loc,
                "operation with block successors must terminate its parent block",
            ));
        }
        let region = data.parent.and_then(|b| ctx.block(b).parent);
        for &succ in &data.successors {
            if ctx.block(succ).parent != region {
                return Err(Diagnostic::error(
                    data.loc,
                    "reference to block defined in another region",
                ));
            }
        }
        Ok(())
    }

    /// The checks of `op`'s region and its blocks that MLIR makes after the op's own
    /// invariants: the entry block has no predecessors, blocks that need a terminator are
    /// not empty, and only a block's last op branches.
    fn verify_region(&mut self, op: OpId, region: RegionId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let blocks = &ctx.region(region).blocks;
        if let Some(&entry) = blocks.first() {
            // The entry block may not be a branch target.
            for &b in blocks {
                if let Some(term) = ctx.block(b).last
                    && ctx.op(term).successors.contains(&entry)
                {
                    return Err(Diagnostic::error(
                        ctx.op(op).loc,
                        "entry block of region may not have predecessors",
                    ));
                }
            }
        }
        for &block in blocks {
            if needs_terminator(ctx, op, region) && ctx.block(block).last.is_none() {
                return Err(Diagnostic::error(
                    ctx.op(op).loc,
                    "empty block: expect at least a terminator",
                ));
            }
            for inner in ctx.block_ops(block) {
                // A branch in the middle of a block is reported as MLIR reports it.
                if !ctx.op(inner).successors.is_empty() && ctx.op(inner).next.is_some() {
                    return Err(Diagnostic::error(
                        ctx.op(inner).loc,
                        "operation with block successors must terminate its parent block",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A non-empty block of `op` whose region needs terminators must end with one; checked
    /// once the block's ops are verified.
    fn verify_terminator(&self, op: OpId, block: BlockId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (Some(region), Some(last)) = (ctx.block(block).parent, ctx.block(block).last) else {
            return Ok(());
        };
        if needs_terminator(ctx, op, region) && ctx.op_traits(last).is_some_and(|t| !t.terminator) {
            return Err(Diagnostic::error(
                ctx.op(last).loc,
                format!("block with no terminator, has '{}'", ctx.op_name(last)),
            ));
        }
        Ok(())
    }

    /// Every use must see its definition: in CFG regions it must dominate the use,
    /// elsewhere it must at least live in an enclosing region.
    fn verify_dominance(&mut self, user: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for (i, &v) in ctx.op(user).operands.iter().enumerate() {
            if !self.dominates(v, user) {
                let error = Diagnostic::error(
                    ctx.op(user).loc,
                    format!("operand #{i} does not dominate this use"),
                );
                return Err(self.with_definition_note(error, v, user));
            }
        }
        Ok(())
    }

    /// Adds the note that says where the offending operand `v` of `user` is defined, relative
    /// to the use (same block, same region, enclosing region, ...), as MLIR words it.
    fn with_definition_note(&self, error: Diagnostic, v: Value, user: OpId) -> Diagnostic {
        let ctx = self.ctx;
        let Some(use_block) = ctx.op(user).parent else {
            return error;
        };
        let use_region = ctx.block(use_block).parent;
        // How the definition's region relates to the use's: `(same, parent, child, neither)`.
        let relation = |def_region: Option<RegionId>| -> usize {
            if def_region == use_region {
                0
            } else if def_region.is_some_and(|r| self.region_is_proper_ancestor(r, use_region)) {
                1
            } else if use_region.is_some_and(|r| self.region_is_proper_ancestor(r, def_region)) {
                2
            } else {
                3
            }
        };
        match ctx.value(v).def {
            ValueDef::Result { op: def, .. } => {
                let Some(def_block) = ctx.op(def).parent else {
                    return error;
                };
                let place = if def_block == use_block {
                    "op in the same block"
                } else {
                    [
                        "op in the same region",
                        "op in a parent region",
                        "op in a child region",
                        "op is neither in a parent nor in a child region",
                    ][relation(ctx.block(def_block).parent)]
                };
                let loc = ctx.op(def).loc;
                error.with_note(loc, format!("operand defined here ({place})"))
            }
            ValueDef::BlockArgument { block, .. } => {
                let def_region = ctx.block(block).parent;
                let owner = def_region.and_then(|r| ctx.region(r).parent);
                let loc = match owner {
                    Some(owner) => ctx.op(owner).loc,
                    None => ctx.op(user).loc,
                };
                let Some(region) = def_region else {
                    return error.with_note(loc, " (block without parent)");
                };
                let index = ctx
                    .region(region)
                    .blocks
                    .iter()
                    .position(|&b| b == block)
                    .unwrap_or_default();
                let place = [
                    "in the same region",
                    "in a parent region",
                    "in a child region",
                    "neither in a parent nor in a child region",
                ][relation(def_region)];
                error.with_note(
                    loc,
                    format!("operand defined as a block argument (block #{index} {place})"),
                )
            }
            ValueDef::Placeholder => error,
        }
    }

    /// Whether `ancestor` strictly encloses `region` (through the ops that own regions).
    fn region_is_proper_ancestor(&self, ancestor: RegionId, region: Option<RegionId>) -> bool {
        let ctx = self.ctx;
        let mut current = region;
        while let Some(r) = current {
            let parent_block = ctx.region(r).parent.and_then(|op| ctx.op(op).parent);
            current = parent_block.and_then(|b| ctx.block(b).parent);
            if current == Some(ancestor) {
                return true;
            }
        }
        false
    }

    fn dominates(&mut self, v: Value, user: OpId) -> bool {
        let ctx = self.ctx;
        let def_block = match ctx.value(v).def {
            ValueDef::Result { op, .. } => match ctx.op(op).parent {
                Some(b) => b,
                None => return false,
            },
            ValueDef::BlockArgument { block, .. } => block,
            ValueDef::Placeholder => return false,
        };
        let Some(def_region) = ctx.block(def_block).parent else {
            return false;
        };
        // Walk up from the user to the op that sits directly in the definition's region.
        let mut anchor = user;
        loop {
            let Some(block) = ctx.op(anchor).parent else {
                return false;
            };
            if ctx.block(block).parent == Some(def_region) {
                break;
            }
            let Some(parent) = ctx.parent_op(anchor) else {
                return false;
            };
            anchor = parent;
        }
        let anchor_block = ctx.op(anchor).parent.expect("found in a block above");
        // Graph regions impose no order.
        if !has_ssa_dominance(ctx, def_region) {
            return true;
        }
        if anchor_block == def_block {
            return match ctx.value(v).def {
                ValueDef::BlockArgument { .. } => true,
                ValueDef::Result { op, .. } => op != anchor && self.comes_before(op, anchor),
                ValueDef::Placeholder => false,
            };
        }
        self.block_dominates(def_region, def_block, anchor_block)
    }

    /// Whether `a` comes before `b`, two ops of the same block.
    fn comes_before(&mut self, a: OpId, b: OpId) -> bool {
        let ctx = self.ctx;
        let Some(block) = ctx.op(a).parent else {
            return false;
        };
        if self.numbered_blocks.insert(block) {
            for (i, op) in ctx.block_ops(block).enumerate() {
                self.op_positions.insert(op, i as u32);
            }
        }
        match (self.op_positions.get(&a), self.op_positions.get(&b)) {
            (Some(a), Some(b)) => a < b,
            _ => false,
        }
    }

    fn block_dominates(&mut self, region: RegionId, a: BlockId, b: BlockId) -> bool {
        let ctx = self.ctx;
        self.dominators
            .entry(region)
            .or_insert_with(|| DominatorTree::new(ctx, region))
            .dominates(a, b)
    }

    /// Ops nested in an isolated op may only use values defined inside it.
    fn verify_isolation(&self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mut error = None;
        ctx.walk_nested(op, &mut |inner| {
            if error.is_some() {
                return;
            }
            for &v in &ctx.op(inner).operands {
                if !self.defined_within(v, op) {
                    error = Some(
                        Diagnostic::error(
                            ctx.op(inner).loc,
                            "using value defined outside the region",
                        )
                        .with_note(ctx.op(op).loc, "required by region isolation constraints"),
                    );
                    return;
                }
            }
        });
        error.map_or(Ok(()), Err)
    }

    fn defined_within(&self, v: Value, op: OpId) -> bool {
        let ctx = self.ctx;
        let mut block = match ctx.value(v).def {
            ValueDef::Result { op: def, .. } => ctx.op(def).parent,
            ValueDef::BlockArgument { block, .. } => Some(block),
            ValueDef::Placeholder => None,
        };
        while let Some(b) = block {
            let Some(owner) = ctx.block(b).parent.and_then(|r| ctx.region(r).parent) else {
                return false;
            };
            if owner == op {
                return true;
            }
            block = ctx.op(owner).parent;
        }
        false
    }

    fn verify_symbol_table(&self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mut seen: HashMap<&[u8], OpId> = HashMap::new();
        for &region in &ctx.op(op).regions {
            for &block in &ctx.region(region).blocks {
                for inner in ctx.block_ops(block) {
                    let Some(name) = ctx.op_inherent_or_attr(inner, "sym_name") else {
                        continue;
                    };
                    let AttrKind::String { value, .. } = ctx.attr_kind(name) else {
                        continue;
                    };
                    if let Some(&prev) = seen.get(value.as_slice()) {
                        return Err(Diagnostic::error(
                            ctx.op(inner).loc,
                            format!(
                                "redefinition of symbol named '{}'",
                                String::from_utf8_lossy(value)
                            ),
                        )
                        .with_note(ctx.op(prev).loc, "see existing symbol definition here"));
                    }
                    seen.insert(value.as_slice(), inner);
                }
            }
        }
        Ok(())
    }
}

/// An op verified on its own, as MLIR verifies ops isolated from above that have regions.
fn is_isolated_with_regions(ctx: &Context, op: OpId) -> bool {
    !ctx.op(op).regions.is_empty() && ctx.op_traits(op).is_some_and(|t| t.isolated_from_above)
}

/// A function-like symbol without a body is a declaration: as in MLIR, only a private or
/// nested symbol may be one, since a public symbol must be defined where it is seen.
fn verify_declaration_visibility(ctx: &Context, op: OpId, name: &str) -> Result<(), Diagnostic> {
    let regions = &ctx.op(op).regions;
    let is_declaration =
        !regions.is_empty() && regions.iter().all(|&r| ctx.region(r).blocks.is_empty());
    let visibility = ctx
        .op_inherent_or_attr(op, "sym_visibility")
        .and_then(|a| ctx.attr_as_str(a));
    if is_declaration && matches!(visibility, None | Some("public")) {
        return Err(Diagnostic::error(
            ctx.op(op).loc,
            format!("'{name}' op symbol declaration cannot have public visibility"),
        ));
    }
    Ok(())
}

/// Whether values in `region` must dominate their uses: regions of registered ops unless
/// they declare graph regions; regions of unregistered ops when they have several blocks
/// (a lone block may be a graph region, as MLIR assumes).
pub fn has_ssa_dominance(ctx: &Context, region: RegionId) -> bool {
    match ctx.region(region).parent.and_then(|op| ctx.op_traits(op)) {
        Some(traits) => !traits.graph_regions,
        None => ctx.region(region).parent.is_some() && ctx.region(region).blocks.len() > 1,
    }
}

/// Registered ops say whether their blocks need terminators; an unregistered op's lone block
/// may be a graph region, but several blocks form a CFG.
fn needs_terminator(ctx: &Context, op: OpId, region: RegionId) -> bool {
    match ctx.op_traits(op) {
        Some(t) => !t.no_terminator && !t.graph_regions,
        None => ctx.region(region).blocks.len() > 1,
    }
}
