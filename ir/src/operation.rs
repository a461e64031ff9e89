//! Operations: a name, operands, results, successors, regions, properties, attributes
//! and a location, linked into their parent block.

use smallvec::SmallVec;

use crate::attributes::Attr;
use crate::block::BlockId;
use crate::context::Context;
use crate::location::Location;
use crate::region::RegionId;
use crate::value::{Use, Value};

/// An operation id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct OpId(pub(crate) u32);

/// An interned operation name (`dialect.op`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct OpName(pub(crate) u32);

#[derive(Clone, Debug)]
pub struct OpData {
    pub name: OpName,
    pub operands: SmallVec<[Value; 4]>,
    pub results: SmallVec<[Value; 2]>,
    pub successors: SmallVec<[BlockId; 2]>,
    pub regions: SmallVec<[RegionId; 1]>,
    /// Inherent attributes (`<{...}>`), if any: a dictionary attribute.
    pub properties: Option<Attr>,
    /// Discardable attributes: a dictionary attribute (possibly empty).
    pub attributes: Attr,
    pub loc: Location,
    pub parent: Option<BlockId>,
    pub prev: Option<OpId>,
    pub next: Option<OpId>,
    pub erased: bool,
}

impl OpData {
    /// An op with no operands, results, successors or regions, in no block: the shell
    /// that copies between contexts fill in.
    pub(crate) fn detached(
        name: OpName,
        properties: Option<Attr>,
        attributes: Attr,
        loc: Location,
    ) -> OpData {
        OpData {
            name,
            operands: Default::default(),
            results: Default::default(),
            successors: Default::default(),
            regions: Default::default(),
            properties,
            attributes,
            loc,
            parent: None,
            prev: None,
            next: None,
            erased: false,
        }
    }
}

/// What a caller supplies to create an operation.
pub struct OperationState {
    pub name: OpName,
    pub operands: Vec<Value>,
    pub result_types: Vec<crate::Type>,
    pub successors: Vec<BlockId>,
    pub num_regions: usize,
    pub properties: Option<Attr>,
    pub attributes: Vec<(String, Attr)>,
    pub loc: Location,
}

impl Context {
    /// Creates a detached operation with fresh, empty regions.
    pub fn create_op(&mut self, state: OperationState) -> OpId {
        // Results name their op, so the id comes first.
        let op = OpId(self.ops.next_id());
        let attributes = self.dictionary_attr(state.attributes);
        let results = state
            .result_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.new_value(
                    ty,
                    crate::value::ValueDef::Result {
                        op,
                        index: i as u32,
                    },
                    None,
                )
            })
            .collect();
        let pushed = self.ops.push(OpData {
            name: state.name,
            operands: SmallVec::new(),
            results,
            successors: state.successors.into_iter().collect(),
            regions: SmallVec::new(),
            properties: state.properties,
            attributes,
            loc: state.loc,
            parent: None,
            prev: None,
            next: None,
            erased: false,
        });
        debug_assert_eq!(pushed, op.0);
        for _ in 0..state.num_regions {
            let region = self.create_region(Some(op));
            self.ops[op.0 as usize].regions.push(region);
        }
        for value in state.operands {
            self.push_operand(op, value);
        }
        op
    }

    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op.0 as usize]
    }

    pub fn op_mut(&mut self, op: OpId) -> &mut OpData {
        &mut self.ops[op.0 as usize]
    }

    pub fn op_name(&self, op: OpId) -> &str {
        self.op_name_str(self.op(op).name)
    }

    /// Appends an operand, recording the use.
    pub fn push_operand(&mut self, op: OpId, value: Value) {
        let index = self.ops[op.0 as usize].operands.len() as u32;
        self.ops[op.0 as usize].operands.push(value);
        self.values[value.0 as usize].uses.push(Use { op, index });
    }

    /// Replaces operand `index` of `op`, moving the use.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) {
        let old = self.ops[op.0 as usize].operands[index];
        self.remove_use(old, op, index as u32);
        self.ops[op.0 as usize].operands[index] = value;
        self.values[value.0 as usize].uses.push(Use {
            op,
            index: index as u32,
        });
    }

    fn remove_use(&mut self, value: Value, op: OpId, index: u32) {
        let uses = &mut self.values[value.0 as usize].uses;
        if let Some(pos) = uses.iter().position(|u| u.op == op && u.index == index) {
            uses.swap_remove(pos);
        }
    }

    /// Redirects every use of `from` to `to`, in O(uses).
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.values[from.0 as usize].uses);
        for u in &uses {
            self.ops[u.op.0 as usize].operands[u.index as usize] = to;
        }
        self.values[to.0 as usize].uses.extend(uses);
    }

    /// The discardable attribute `name` of `op`.
    pub fn op_attr(&self, op: OpId, name: &str) -> Option<Attr> {
        self.dictionary_get(self.op(op).attributes, name)
    }

    /// The inherent (property) or discardable attribute `name` of `op`.
    pub fn op_inherent_or_attr(&self, op: OpId, name: &str) -> Option<Attr> {
        self.op(op)
            .properties
            .and_then(|p| self.dictionary_get(p, name))
            .or_else(|| self.op_attr(op, name))
    }

    /// Unlinks `op` from its block and erases it with everything nested in it. Its
    /// results must have no remaining uses outside it.
    pub fn erase_op(&mut self, op: OpId) {
        self.unlink_op(op);
        self.drop_op_tree(op);
    }

    fn drop_op_tree(&mut self, root: OpId) {
        let mut doomed = vec![root];
        self.walk_nested(root, &mut |op| doomed.push(op));
        for op in doomed {
            let operands = std::mem::take(&mut self.ops[op.0 as usize].operands);
            for (i, v) in operands.into_iter().enumerate() {
                self.remove_use(v, op, i as u32);
            }
            self.ops[op.0 as usize].erased = true;
        }
    }

    /// Operation ids nested under `op` (pre-order, excluding `op`), without recursion.
    pub fn walk_nested(&self, op: OpId, visit: &mut dyn FnMut(OpId)) {
        let mut stack: Vec<OpId> = Vec::new();
        let push_children = |ctx: &Context, op: OpId, stack: &mut Vec<OpId>| {
            for &region in ctx.op(op).regions.iter().rev() {
                for &block in ctx.region(region).blocks.iter().rev() {
                    let ops: Vec<OpId> = ctx.block_ops(block).collect();
                    stack.extend(ops.into_iter().rev());
                }
            }
        };
        push_children(self, op, &mut stack);
        while let Some(inner) = stack.pop() {
            visit(inner);
            push_children(self, inner, &mut stack);
        }
    }

    /// A detached deep copy of `op`: operands are looked up in `mapping` (values defined
    /// outside stay as they are), and every value the copy defines is added to it.
    pub fn clone_op(
        &mut self,
        op: OpId,
        mapping: &mut std::collections::HashMap<Value, Value>,
    ) -> OpId {
        let data = self.op(op).clone();
        let result_types = data.results.iter().map(|&r| self.value_type(r)).collect();
        // Successors inside a cloned region are remapped by the caller cloning the region.
        let successors = data.successors.to_vec();
        let copy = self.create_op(OperationState {
            name: data.name,
            operands: data
                .operands
                .iter()
                .map(|v| *mapping.get(v).unwrap_or(v))
                .collect(),
            result_types,
            successors,
            num_regions: 0,
            properties: data.properties,
            attributes: vec![],
            loc: data.loc,
        });
        self.ops[copy.0 as usize].attributes = data.attributes;
        for (&old, &new) in data.results.iter().zip(&self.op(copy).results.clone()) {
            mapping.insert(old, new);
        }
        for &region in &data.regions {
            let new_region = self.create_region(Some(copy));
            self.ops[copy.0 as usize].regions.push(new_region);
            let blocks = self.region(region).blocks.clone();
            let mut block_map = std::collections::HashMap::new();
            for &block in &blocks {
                let new_block = self.create_block();
                self.append_block(new_region, new_block);
                block_map.insert(block, new_block);
                for arg in self.block(block).args.clone() {
                    let ty = self.value_type(arg);
                    let loc = self.value(arg).loc;
                    let new_arg = self.add_block_argument(new_block, ty, loc);
                    mapping.insert(arg, new_arg);
                }
            }
            for &block in &blocks {
                for inner in self.block_ops(block).collect::<Vec<_>>() {
                    let inner_copy = self.clone_op(inner, mapping);
                    // Successors inside the region point at the copied blocks.
                    let succs = self.op(inner_copy).successors.clone();
                    self.ops[inner_copy.0 as usize].successors = succs
                        .iter()
                        .map(|b| *block_map.get(b).unwrap_or(b))
                        .collect();
                    self.append_op(block_map[&block], inner_copy);
                }
            }
        }
        copy
    }

    /// The operation that owns the block holding `op`.
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        let block = self.op(op).parent?;
        let region = self.block(block).parent?;
        self.region(region).parent
    }

    /// The operation whose result `value` is; `None` for a block argument (or a forward
    /// reference the parser has not resolved).
    pub fn defining_op(&self, value: Value) -> Option<OpId> {
        match self.value(value).def {
            crate::value::ValueDef::Result { op, .. } => Some(op),
            _ => None,
        }
    }

    /// Whether `op` is `ancestor` itself or lies (at any depth) inside its regions.
    pub fn is_inside(&self, ancestor: OpId, op: OpId) -> bool {
        std::iter::successors(Some(op), |&o| self.parent_op(o)).any(|o| o == ancestor)
    }
}
