//! Forks: child contexts that another thread can own, for running passes on ops isolated
//! from above side by side (see `pass::threading`).
//!
//! A fork shares the interned types, attributes and op names of its parent (their ids mean
//! the same in both), the registered dialects and ops, and the resource blobs, and has empty
//! arenas of its own, in its parent's id space. Ops are copied in with an [`Importer`]; the
//! parent takes the fork's IR back with [`Context::adopt`], copying nothing.

use std::collections::HashMap;

use crate::context::Context;
use crate::import::Importer;
use crate::operation::OpId;
use crate::symbol_table::symbol_name;

impl Context {
    /// A fork of this context. Freezes the interning tables first (cheap when nothing was
    /// interned since the last fork), hence `&mut`.
    pub fn fork(&mut self) -> Context {
        self.types.freeze();
        self.attrs.freeze();
        self.op_names.freeze();
        Context {
            types: self.types.share(),
            attrs: self.attrs.share(),
            op_names: self.op_names.share(),
            ops: self.ops.fork(),
            blocks: self.blocks.fork(),
            regions: self.regions.fork(),
            values: self.values.fork(),
            resources: std::sync::Arc::clone(&self.resources),
            external_resources: self.external_resources.clone(),
            allow_unregistered_dialects: self.allow_unregistered_dialects,
            dialects: self.dialects.clone(),
            registered_ops: self.registered_ops.clone(),
            // Indexed by op name ids and holding attribute ids, which the fork shares.
            op_info_by_name: self.op_info_by_name.clone(),
            dialect_infos: self.dialect_infos.clone(),
            parsed_defaults: self.parsed_defaults.clone(),
            attr_parsers: self.attr_parsers.clone(),
            type_parsers: self.type_parsers.clone(),
            op_kind_by_name: self.op_kind_by_name.clone(),
        }
    }

    /// Takes the IR of `fork` (a fork of this context), keeping its ids: forks draw ids
    /// from their parent's space, so nothing is copied. Call
    /// [`Importer::translate_in_place`](crate::import::Importer::translate_in_place) first on
    /// every op tree of the fork that is to be used here: the rest of the fork's IR comes
    /// along unreachable and must not be used. Returns `false`, taking nothing, when `fork`
    /// is not a fork of this context (or of one of its forks).
    pub fn adopt(&mut self, fork: Context) -> bool {
        let ok = self.ops.can_adopt(&fork.ops)
            && self.blocks.can_adopt(&fork.blocks)
            && self.regions.can_adopt(&fork.regions)
            && self.values.can_adopt(&fork.values);
        if !ok {
            return false;
        }
        self.ops.adopt(fork.ops);
        self.blocks.adopt(fork.blocks);
        self.regions.adopt(fork.regions);
        self.values.adopt(fork.values);
        true
    }

    /// Gives `target` the regions, name, properties, attributes and location of `source`,
    /// which is unlinked and erased. What `target`'s regions held is erased. Both must have
    /// no operands, results or successors.
    pub fn take_body(&mut self, target: OpId, source: OpId) -> Result<(), String> {
        for op in [target, source] {
            let data = self.op(op);
            if !data.operands.is_empty() || !data.results.is_empty() || !data.successors.is_empty()
            {
                return Err(format!(
                    "cannot move the body of '{}': it has operands, results or successors",
                    self.op_name(op)
                ));
            }
        }
        self.unlink_op(source);
        // Erase the old body: a plain walk, since this runs on the calling thread for every
        // op a threaded pipeline ran on.
        let mut stack = vec![target];
        while let Some(op) = stack.pop() {
            for &region in &self.ops[op.0 as usize].regions {
                for &block in &self.regions[region.0 as usize].blocks {
                    let mut inner = self.blocks[block.0 as usize].first;
                    while let Some(i) = inner {
                        stack.push(i);
                        inner = self.ops[i.0 as usize].next;
                    }
                }
            }
            if op != target {
                self.ops[op.0 as usize].erased = true;
            }
        }
        for region in std::mem::take(&mut self.ops[target.0 as usize].regions) {
            self.regions[region.0 as usize].parent = None;
        }
        let regions = std::mem::take(&mut self.ops[source.0 as usize].regions);
        for &region in &regions {
            self.regions[region.0 as usize].parent = Some(target);
        }
        let s = &mut self.ops[source.0 as usize];
        s.erased = true;
        let (name, properties, attributes, loc) = (s.name, s.properties, s.attributes, s.loc);
        let t = &mut self.ops[target.0 as usize];
        t.regions = regions;
        t.name = name;
        t.properties = properties;
        t.attributes = attributes;
        t.loc = loc;
        Ok(())
    }
}

/// The surroundings of forked ops, rebuilt in the fork so that what passes and verifiers
/// may read from above an isolated op reads the same: each ancestor (name, properties,
/// attributes, location, regions and blocks without arguments), and in each ancestor's
/// blocks a body-less copy ("stub") of every op that defines a symbol, in order, so symbol
/// lookups (`func.call` checking its callee's type) resolve. Each forked op has a stub at
/// its place until [`Scaffold::place`] puts the op itself there. Other ops are left out.
pub struct Scaffold {
    stubs: Vec<Option<OpId>>,
}

impl Scaffold {
    /// Builds the scaffold of `targets`, ops directly inside `anchor` in `parent`, in the
    /// fork `child`.
    pub fn build(
        child: &mut Context,
        parent: &Context,
        importer: &mut Importer,
        anchor: OpId,
        targets: &[OpId],
    ) -> Scaffold {
        let index: HashMap<OpId, usize> =
            targets.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        let mut chain = vec![anchor];
        while let Some(p) = chain.last().and_then(|&op| parent.parent_op(op)) {
            chain.push(p);
        }
        chain.reverse();
        let mut stubs = vec![None; targets.len()];
        let mut shell = stub(child, parent, importer, chain[0]);
        for (level, &ancestor) in chain.iter().enumerate() {
            let below = chain.get(level + 1).copied();
            let mut next_shell = None;
            for &region in &parent.op(ancestor).regions {
                let new_region = child.create_region(Some(shell));
                child.ops[shell.0 as usize].regions.push(new_region);
                for &block in &parent.region(region).blocks {
                    let new_block = child.create_block();
                    child.append_block(new_region, new_block);
                    for op in parent.block_ops(block) {
                        let wanted = Some(op) == below
                            || below.is_none() && index.contains_key(&op)
                            || symbol_name(parent, op).is_some();
                        if !wanted {
                            continue;
                        }
                        let copy = stub(child, parent, importer, op);
                        child.append_op(new_block, copy);
                        if Some(op) == below {
                            next_shell = Some(copy);
                        } else if below.is_none()
                            && let Some(&i) = index.get(&op)
                        {
                            stubs[i] = Some(copy);
                        }
                    }
                }
            }
            match next_shell {
                Some(s) => shell = s,
                None => break,
            }
        }
        Scaffold { stubs }
    }

    /// Puts `op` (of the fork) at the place of target `i`; an op that was not directly
    /// inside the anchor stays detached.
    pub fn place(&mut self, child: &mut Context, i: usize, op: OpId) {
        if let Some(stub) = self.stubs.get_mut(i).and_then(Option::take) {
            child.insert_op_before(stub, op);
            child.unlink_op(stub);
        }
    }
}

/// `op` of `parent` without operands, results, successors or regions, in `child`.
fn stub(child: &mut Context, parent: &Context, importer: &mut Importer, op: OpId) -> OpId {
    let data = parent.op(op);
    let name = importer.import_op_name(child, parent, data.name);
    let properties = data
        .properties
        .map(|p| importer.import_attr(child, parent, p));
    let attributes = importer.import_attr(child, parent, data.attributes);
    let loc = importer.import_attr(child, parent, data.loc);
    OpId(child.ops.push(crate::operation::OpData::detached(
        name, properties, attributes, loc,
    )))
}
