//! Copying IR from one context into another: an operation with everything nested in it,
//! and the types, attributes and operation names it refers to.
//!
//! Ids that the two contexts share (a context and its forks share the ids interned before
//! the fork) are kept as they are; any other type, attribute or name is re-interned in the
//! destination by its structure. The copy has the same structure as the original down to
//! the order of every use list, so a pass behaves the same on either.

use crate::attributes::Attr;
use crate::block::BlockId;
use crate::context::Context;
use crate::diagnostics::Diagnostic;
use crate::id_map::IdMap;
use crate::operation::{OpData, OpId, OpName};
use crate::types::Type;
use crate::value::{Use, Value, ValueData, ValueDef};

const NONE: u32 = u32::MAX;

/// Slots of source ids (see `Arena::slot`) mapped to destination ids, cleared cheaply
/// after each copy.
#[derive(Default)]
struct DenseMap {
    to: Vec<u32>,
    touched: Vec<usize>,
}

impl DenseMap {
    fn set(&mut self, slot: usize, to: u32) {
        let i = slot;
        if i >= self.to.len() {
            let len = (i + 1).max(self.to.len() * 2);
            self.to.resize(len, NONE);
        }
        self.to[i] = to;
        self.touched.push(slot);
    }

    fn get(&self, slot: usize) -> Option<u32> {
        self.to.get(slot).copied().filter(|&t| t != NONE)
    }

    fn clear(&mut self) {
        for slot in self.touched.drain(..) {
            self.to[slot] = NONE;
        }
    }
}

/// Re-interned ids of the source (offset by the shared prefix), kept across copies.
#[derive(Default)]
struct Memo(Vec<u32>);

impl Memo {
    fn get(&self, i: usize) -> Option<u32> {
        self.0.get(i).copied().filter(|&t| t != NONE)
    }

    fn set(&mut self, i: usize, to: u32) {
        if i >= self.0.len() {
            self.0.resize(i + 1, NONE);
        }
        self.0[i] = to;
    }
}

/// Copies IR from one source context into one destination context. Keep one importer per
/// (destination, source) pair: it remembers what it re-interned.
pub struct Importer {
    /// Leading type, attribute and op-name ids that mean the same in both contexts.
    shared: (usize, usize, usize),
    types: Memo,
    attrs: Memo,
    names: Memo,
    ops: DenseMap,
    blocks: DenseMap,
    values: DenseMap,
    /// Values copied by the current copy, with their copies.
    copied_values: Vec<(Value, Value)>,
}

/// An importer bound to its two contexts for one call.
struct Bound<'a> {
    imp: &'a mut Importer,
    dst: &'a mut Context,
    src: &'a Context,
}

impl IdMap for Bound<'_> {
    fn ty(&mut self, ty: Type) -> Type {
        let Some(i) = (ty.0 as usize).checked_sub(self.imp.shared.0) else {
            return ty;
        };
        if let Some(t) = self.imp.types.get(i) {
            return Type(t);
        }
        let src = self.src;
        let kind = src.type_kind(ty).map_ids(self);
        let mapped = self.dst.intern_type(kind);
        self.imp.types.set(i, mapped.0);
        mapped
    }

    fn attr(&mut self, attr: Attr) -> Attr {
        let Some(i) = (attr.0 as usize).checked_sub(self.imp.shared.1) else {
            return attr;
        };
        if let Some(a) = self.imp.attrs.get(i) {
            return Attr(a);
        }
        let src = self.src;
        let kind = src.attr_kind(attr).map_ids(self);
        let mapped = self.dst.intern_attr(kind);
        self.imp.attrs.set(i, mapped.0);
        mapped
    }
}

impl Importer {
    pub fn new(dst: &Context, src: &Context) -> Importer {
        Importer {
            shared: (
                dst.types.common_prefix(&src.types),
                dst.attrs.common_prefix(&src.attrs),
                dst.op_names.common_prefix(&src.op_names),
            ),
            types: Memo::default(),
            attrs: Memo::default(),
            names: Memo::default(),
            ops: DenseMap::default(),
            blocks: DenseMap::default(),
            values: DenseMap::default(),
            copied_values: Vec::new(),
        }
    }

    fn bind<'a>(&'a mut self, dst: &'a mut Context, src: &'a Context) -> Bound<'a> {
        Bound {
            imp: self,
            dst,
            src,
        }
    }

    pub fn import_type(&mut self, dst: &mut Context, src: &Context, ty: Type) -> Type {
        self.bind(dst, src).ty(ty)
    }

    pub fn import_attr(&mut self, dst: &mut Context, src: &Context, attr: Attr) -> Attr {
        self.bind(dst, src).attr(attr)
    }

    pub fn import_op_name(&mut self, dst: &mut Context, src: &Context, name: OpName) -> OpName {
        self.bind(dst, src).op_name(name)
    }

    /// A diagnostic of `src` with its locations (and its notes') in `dst`.
    pub fn import_diagnostic(
        &mut self,
        dst: &mut Context,
        src: &Context,
        diag: &Diagnostic,
    ) -> Diagnostic {
        let mut b = self.bind(dst, src);
        let mut out = diag.clone();
        let mut stack = vec![&mut out];
        while let Some(d) = stack.pop() {
            d.loc = b.attr(d.loc);
            stack.extend(d.notes.iter_mut());
        }
        out
    }

    /// A detached copy of `op` (of `src`) in `dst`. Every operand of the ops copied must be
    /// defined inside `op`, as in an op isolated from above without operands; if not, the
    /// error names the op, and what was copied so far is left detached in `dst`.
    pub fn import_op(
        &mut self,
        dst: &mut Context,
        src: &Context,
        op: OpId,
    ) -> Result<OpId, String> {
        let result = self.bind(dst, src).copy_tree(op);
        self.ops.clear();
        self.blocks.clear();
        self.values.clear();
        self.copied_values.clear();
        result
    }

    /// Whether `src` interned types, attributes or op names that `dst` does not share.
    fn src_has_own_ids(&self, src: &Context) -> bool {
        src.types.len() > self.shared.0
            || src.attrs.len() > self.shared.1
            || src.op_names.len() > self.shared.2
    }

    /// Rewrites, in place, the type, attribute and op-name ids of `src` used by `op` and
    /// everything nested in it into ids of `dst` (interning them there as needed), for IR
    /// of a fork that is about to be adopted by `dst` (see [`Context::adopt`]).
    pub fn translate_in_place(&mut self, dst: &mut Context, src: &mut Context, op: OpId) {
        if !self.src_has_own_ids(src) {
            return;
        }
        // The arenas are rewritten while the interning tables are read: take them apart.
        let mut ops = std::mem::take(&mut src.ops);
        let mut values = std::mem::take(&mut src.values);
        let (blocks, regions) = (
            std::mem::take(&mut src.blocks),
            std::mem::take(&mut src.regions),
        );
        {
            let mut b = self.bind(dst, src);
            let mut stack = vec![op];
            while let Some(op) = stack.pop() {
                let data = &mut ops[op.0 as usize];
                data.name = b.op_name(data.name);
                data.properties = data.properties.map(|p| b.attr(p));
                data.attributes = b.attr(data.attributes);
                data.loc = b.attr(data.loc);
                let mut own_values: Vec<Value> = data.results.to_vec();
                for &region in &data.regions.clone() {
                    for &block in &regions[region.0 as usize].blocks {
                        own_values.extend(blocks[block.0 as usize].args.iter().copied());
                        let mut inner = blocks[block.0 as usize].first;
                        while let Some(i) = inner {
                            stack.push(i);
                            inner = ops[i.0 as usize].next;
                        }
                    }
                }
                for v in own_values {
                    let value = &mut values[v.0 as usize];
                    value.ty = b.ty(value.ty);
                    value.loc = value.loc.map(|l| b.attr(l));
                }
            }
        }
        src.ops = ops;
        src.values = values;
        src.blocks = blocks;
        src.regions = regions;
    }
}

impl Bound<'_> {
    fn op_name(&mut self, name: OpName) -> OpName {
        let Some(i) = (name.0 as usize).checked_sub(self.imp.shared.2) else {
            return name;
        };
        if let Some(n) = self.imp.names.get(i) {
            return OpName(n);
        }
        let mapped = self.dst.intern_op_name(self.src.op_name_str(name));
        self.imp.names.set(i, mapped.0);
        mapped
    }

    fn new_value(&mut self, from: Value, def: ValueDef) -> Value {
        let data = self.src.value(from);
        let (ty, loc) = (data.ty, data.loc);
        let ty = self.ty(ty);
        let loc = loc.map(|l| self.attr(l));
        let v = Value(self.dst.values.push(ValueData {
            ty,
            def,
            loc,
            uses: Default::default(),
        }));
        let slot = self.src.values.slot(from.0);
        self.imp.values.set(slot, v.0);
        self.imp.copied_values.push((from, v));
        v
    }

    /// A copy of `op` alone: no operands, successors or regions yet, fresh results.
    fn new_op(&mut self, op: OpId) -> OpId {
        let data = self.src.op(op);
        let name = self.op_name(data.name);
        let properties = data.properties.map(|p| self.attr(p));
        let attributes = self.attr(data.attributes);
        let loc = self.attr(data.loc);
        let copy = OpId(
            self.dst
                .ops
                .push(OpData::detached(name, properties, attributes, loc)),
        );
        self.imp.ops.set(self.src.ops.slot(op.0), copy.0);
        for (index, &r) in data.results.iter().enumerate() {
            let index = index as u32;
            let v = self.new_value(r, ValueDef::Result { op: copy, index });
            self.dst.ops[copy.0 as usize].results.push(v);
        }
        copy
    }

    /// Copies the regions of `op` into `copy` (a copy of `op` alone), appending copies of
    /// the ops directly inside to `nested`.
    fn copy_regions(&mut self, op: OpId, copy: OpId, nested: &mut Vec<(OpId, OpId)>) {
        let src = self.src;
        for &region in &src.op(op).regions {
            let new_region = self.dst.create_region(Some(copy));
            self.dst.ops[copy.0 as usize].regions.push(new_region);
            for &block in &src.region(region).blocks {
                let new_block = self.dst.create_block();
                self.dst.append_block(new_region, new_block);
                self.imp.blocks.set(src.blocks.slot(block.0), new_block.0);
                for (index, &arg) in src.block(block).args.iter().enumerate() {
                    let index = index as u32;
                    let def = ValueDef::BlockArgument {
                        block: new_block,
                        index,
                    };
                    let v = self.new_value(arg, def);
                    self.dst.blocks[new_block.0 as usize].args.push(v);
                }
                for inner in src.block_ops(block) {
                    let inner_copy = self.new_op(inner);
                    self.dst.append_op(new_block, inner_copy);
                    nested.push((inner, inner_copy));
                }
            }
        }
    }

    fn copy_tree(&mut self, root: OpId) -> Result<OpId, String> {
        let src = self.src;
        // Create every op, block and value first: an operand may be defined later in
        // block order (in a graph region, or in a dominating block listed later).
        let root_copy = self.new_op(root);
        let mut pairs = vec![(root, root_copy)];
        let mut next = 0;
        while next < pairs.len() {
            let (op, copy) = pairs[next];
            self.copy_regions(op, copy, &mut pairs);
            next += 1;
        }
        for &(op, copy) in &pairs {
            let data = src.op(op);
            let imp = &*self.imp;
            let outside =
                |what: &str| format!("'{}' {what} outside the op being copied", src.op_name(op));
            let operands = data
                .operands
                .iter()
                .map(|v| imp.values.get(src.values.slot(v.0)).map(Value))
                .collect::<Option<_>>()
                .ok_or_else(|| outside("uses a value defined"))?;
            let successors = data
                .successors
                .iter()
                .map(|b| imp.blocks.get(src.blocks.slot(b.0)).map(BlockId))
                .collect::<Option<_>>()
                .ok_or_else(|| outside("branches to a block"))?;
            let d = &mut self.dst.ops[copy.0 as usize];
            d.operands = operands;
            d.successors = successors;
        }
        // Use lists in the original order: passes walk them, and must see the same order.
        // Uses by ops outside the copy (detached leftovers) are not carried over.
        for &(from, to) in &self.imp.copied_values {
            let uses = src.value(from).uses.iter().filter_map(|u| {
                let op = self.imp.ops.get(src.ops.slot(u.op.0))?;
                Some(Use {
                    op: OpId(op),
                    index: u.index,
                })
            });
            self.dst.values[to.0 as usize].uses = uses.collect();
        }
        Ok(root_copy)
    }
}

impl Context {
    /// A detached copy of `op` of another context, with what it refers to interned here.
    /// For many copies from one context, keep an [`Importer`].
    pub fn import_op(&mut self, src: &Context, op: OpId) -> Result<OpId, String> {
        Importer::new(self, src).import_op(self, src, op)
    }
}
