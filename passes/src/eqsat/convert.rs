//! From a function's graph ops to an e-graph and back.
//!
//! Every single-result graph op on static tensors becomes an e-node. Everything else (ops
//! of other dialects, multi-result ops such as `graph.split`, ops with discardable
//! attributes) stays in the function as it is: its results are opaque leaves of the
//! e-graph, and its operands, like the terminator's, are the roots extraction must
//! compute. The extracted graph is rebuilt in front of the first op that needs each
//! value, each op located at the fused locations of the input ops of its class.

use std::collections::{HashMap, HashSet};

use egg::{Id, Language};
use tb_dialects::graph::GraphOp;
use tb_dialects::graph::builder::op_state_with_types;
use tb_dialects::graph::types::{static_tensor, tensor_type};
use tb_ir::attributes::{AttrKind, DenseArrayData, DenseData, DenseElement};
use tb_ir::float::{bits_from_f64, bits_to_f64};
use tb_ir::location::LocationKind;
use tb_ir::ods::OpKind;
use tb_ir::{Attr, BlockId, Context, FloatKind, Location, OpId, Signedness, TypeKind, Value};

use super::analysis::{GraphEGraph, TensorInfo};
use super::language::{AttrValue, Attrs, GraphNode};

/// A function body as an e-graph.
pub struct Converted {
    pub egraph: GraphEGraph,
    /// The values leaves stand for, with the op defining each (`None`: a block argument).
    pub leaves: Vec<(Value, Option<OpId>)>,
    /// The modeled ops in order, with their class.
    pub modeled: Vec<(OpId, Id)>,
    /// The input graph's node of each class.
    pub original: HashMap<Id, GraphNode>,
    /// The ops left in place, in order.
    pub kept: Vec<OpId>,
    pub classes: HashMap<Value, Id>,
}

impl Converted {
    /// Classes that ops left in place use: what extraction must compute.
    pub fn roots(&self, ctx: &Context) -> Vec<Id> {
        let mut roots = Vec::new();
        for &op in &self.kept {
            for v in &ctx.op(op).operands {
                if let Some(&c) = self.classes.get(v) {
                    roots.push(self.egraph.find(c));
                }
            }
        }
        roots
    }
}

fn modeled_kind(ctx: &Context, op: OpId) -> Option<GraphOp> {
    let kind = GraphOp::of(ctx, op)?;
    let data = ctx.op(op);
    let static_values = data
        .operands
        .iter()
        .chain(&data.results)
        .all(|&v| static_tensor(ctx, ctx.value_type(v)).is_some());
    (data.results.len() == 1
        && data.regions.is_empty()
        && data.successors.is_empty()
        && ctx.dictionary_entries(data.attributes).is_empty()
        && static_values)
        .then_some(kind)
}

fn tensor_info(ctx: &Context, v: Value) -> Option<TensorInfo> {
    let (shape, element) = static_tensor(ctx, ctx.value_type(v))?;
    Some(TensorInfo {
        shape: shape.to_vec(),
        element,
    })
}

/// Builds the e-graph of `block`'s graph ops; `None` if it has none, or if an op of the
/// block has regions (`graph.if`): their ops use the block's values directly, which
/// rebuilding (it rewires only the operands of the ops it keeps) would leave dangling.
pub fn to_egraph(ctx: &Context, block: BlockId) -> Option<Converted> {
    if ctx
        .block_ops(block)
        .any(|op| !ctx.op(op).regions.is_empty())
    {
        return None;
    }
    let mut egraph = GraphEGraph::default();
    let mut classes: HashMap<Value, Id> = HashMap::new();
    let mut leaves = Vec::new();
    let mut modeled = Vec::new();
    let mut kept = Vec::new();
    let mut original = HashMap::new();
    let leaf = |egraph: &mut GraphEGraph,
                v: Value,
                owner: Option<OpId>,
                leaves: &mut Vec<(Value, Option<OpId>)>,
                original: &mut HashMap<Id, GraphNode>| {
        let node = GraphNode::Leaf(leaves.len() as u32);
        let id = egraph.add(node.clone());
        original.insert(id, node);
        egraph[id].data.info = tensor_info(ctx, v);
        leaves.push((v, owner));
        id
    };
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        let Some(kind) = modeled_kind(ctx, op) else {
            kept.push(op);
            for &r in &ctx.op(op).results {
                if static_tensor(ctx, ctx.value_type(r)).is_some() {
                    let id = leaf(&mut egraph, r, Some(op), &mut leaves, &mut original);
                    classes.insert(r, id);
                }
            }
            continue;
        };
        let data = ctx.op(op);
        let mut args = Vec::new();
        for &v in &data.operands {
            let id = match classes.get(&v) {
                Some(&id) => id,
                None => {
                    let id = leaf(&mut egraph, v, None, &mut leaves, &mut original);
                    classes.insert(v, id);
                    id
                }
            };
            args.push(id);
        }
        let entries = data
            .properties
            .map(|p| ctx.dictionary_entries(p).to_vec())
            .unwrap_or_default();
        let attrs = Attrs::new(
            entries
                .into_iter()
                .map(|(k, a)| (k, decode(ctx, a)))
                .collect(),
        );
        let node = GraphNode::op(kind, attrs, args);
        let result = data.results[0];
        let id = egraph.add(node.clone());
        egraph[id].data.info = tensor_info(ctx, result);
        original.entry(id).or_insert(node);
        if let Some(splat) = uniform_constant(ctx, op, kind, result) {
            let s = egraph.add(splat);
            egraph.union(id, s);
        }
        classes.insert(result, id);
        modeled.push((op, id));
    }
    if modeled.is_empty() {
        return None;
    }
    egraph.rebuild();
    Some(Converted {
        egraph,
        leaves,
        modeled,
        original,
        kept,
        classes,
    })
}

/// Above this many elements a constant is not scanned for one repeated value.
const MAX_SCANNED: usize = 64;

/// The splat node of a `graph.constant` whose elements all have one float value (scalars
/// such as `0.5` or `sqrt(2)` included), so that rules can read the value.
fn uniform_constant(ctx: &Context, op: OpId, kind: GraphOp, result: Value) -> Option<GraphNode> {
    if kind != GraphOp::Constant {
        return None;
    }
    let (shape, element) = static_tensor(ctx, ctx.value_type(result))?;
    let TypeKind::Float(fk) = *ctx.type_kind(element) else {
        return None;
    };
    let AttrKind::DenseElements { data, .. } = ctx.attr_kind(ctx.op_inherent_or_attr(op, "value")?)
    else {
        return None;
    };
    let first = data.elements.first()?;
    if data.elements.len() > MAX_SCANNED || data.elements.iter().any(|e| e != first) {
        return None;
    }
    let DenseElement::Float(bits) = first else {
        return None;
    };
    Some(GraphNode::Splat {
        value: bits_to_f64(fk, *bits)?.to_bits(),
        element,
        shape: shape.to_vec(),
    })
}

fn is_int(ctx: &Context, ty: tb_ir::Type, width: u32) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Integer { width: w, signedness: Signedness::Signless } if *w == width)
}

fn is_f32(ctx: &Context, ty: tb_ir::Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Float(FloatKind::F32))
}

/// The typed form of an attribute where it has one that encodes back to the same attribute.
pub fn decode(ctx: &Context, attr: Attr) -> AttrValue {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty } if is_int(ctx, *ty, 64) => AttrValue::Int(*value as i64),
        AttrKind::Integer { value, ty } if is_int(ctx, *ty, 1) && (*value == 0 || *value == 1) => {
            AttrValue::Bool(*value == 1)
        }
        AttrKind::Float { bits, ty } if is_f32(ctx, *ty) => {
            match bits_to_f64(FloatKind::F32, *bits) {
                Some(v) => AttrValue::Float(v.to_bits()),
                None => AttrValue::Ir(attr),
            }
        }
        AttrKind::DenseArray {
            element,
            data: DenseArrayData::Int(values),
        } if is_int(ctx, *element, 64) => {
            AttrValue::Ints(values.iter().map(|&v| v as i64).collect())
        }
        AttrKind::String { value, ty: None } => match std::str::from_utf8(value) {
            Ok(text) => AttrValue::Str(text.to_string()),
            Err(_) => AttrValue::Ir(attr),
        },
        _ => AttrValue::Ir(attr),
    }
}

pub fn encode(ctx: &mut Context, value: &AttrValue) -> Option<Attr> {
    Some(match value {
        AttrValue::Int(v) => {
            let i64 = ctx.i64();
            ctx.integer_attr(*v as i128, i64)
        }
        AttrValue::Bool(v) => {
            let i1 = ctx.i1();
            ctx.integer_attr(*v as i128, i1)
        }
        AttrValue::Float(bits) => {
            let ty = ctx.float_type(FloatKind::F32);
            let bits = bits_from_f64(FloatKind::F32, f64::from_bits(*bits))?;
            ctx.intern_attr(AttrKind::Float { bits, ty })
        }
        AttrValue::Ints(v) => {
            let element = ctx.i64();
            ctx.intern_attr(AttrKind::DenseArray {
                element,
                data: DenseArrayData::Int(v.iter().map(|&x| x as i128).collect()),
            })
        }
        AttrValue::Str(text) => ctx.string_attr(text),
        AttrValue::Ir(a) => *a,
    })
}

fn verify_one(ctx: &Context, op: OpId) -> Result<(), String> {
    let info = ctx.op_info_of(op).ok_or("unregistered")?;
    if let Some(def) = info.def {
        tb_ir::ods::verify_op(ctx, op, def).map_err(|d| d.message)?;
    }
    if let Some(verify) = info.verify {
        verify(ctx, op).map_err(|d| d.message)?;
    }
    Ok(())
}

/// Why the extracted graph could not be rebuilt (the function is then left as it was).
#[derive(Debug)]
pub struct RebuildFailed(pub String);

/// Replaces the modeled ops of `conv` with the graph `choice` extracts. Returns the ops
/// created, in order.
pub fn rebuild(
    ctx: &mut Context,
    conv: &Converted,
    choice: &HashMap<Id, GraphNode>,
    origin: &HashMap<Id, Vec<Id>>,
) -> Result<Vec<OpId>, RebuildFailed> {
    let egraph = &conv.egraph;
    // Classes rules created, by canonical id, with the canonical classes they were for.
    let mut origin_of: HashMap<Id, Vec<Id>> = HashMap::new();
    let mut created: Vec<&Id> = origin.keys().collect();
    created.sort();
    for id in created {
        let list = origin_of.entry(egraph.find(*id)).or_default();
        for &o in &origin[id] {
            let o = egraph.find(o);
            if !list.contains(&o) {
                list.push(o);
            }
        }
    }
    // Input ops' locations by class.
    let mut locations: HashMap<Id, Vec<Location>> = HashMap::new();
    for &(op, id) in &conv.modeled {
        let list = locations.entry(egraph.find(id)).or_default();
        let loc = ctx.op(op).loc;
        if !list.contains(&loc) {
            list.push(loc);
        }
    }
    let original: HashMap<Id, GraphNode> = conv
        .original
        .iter()
        .map(|(&id, node)| {
            (
                egraph.find(id),
                node.clone().map_children(|c| egraph.find(c)),
            )
        })
        .collect();
    let mut builder = Rebuilder {
        egraph,
        choice,
        origin: origin_of,
        original,
        locations,
        leaves: &conv.leaves,
        available: HashSet::new(),
        values: HashMap::new(),
        created: Vec::new(),
    };
    let saved: Vec<(OpId, Vec<Value>)> = conv
        .kept
        .iter()
        .map(|&op| (op, ctx.op(op).operands.to_vec()))
        .collect();
    let mut result = (|| {
        for &op in &conv.kept {
            let operands = ctx.op(op).operands.clone();
            for (i, v) in operands.iter().enumerate() {
                if let Some(&c) = conv.classes.get(v) {
                    let new = builder.value(ctx, egraph.find(c), op)?;
                    if new != *v {
                        ctx.set_operand(op, i, new);
                    }
                }
            }
            builder.available.insert(op);
        }
        Ok(())
    })();
    // Rules and the analysis are checked by tests; a rebuilt op that does not verify is a
    // bug there, reported rather than left in the IR.
    if result.is_ok() {
        for &op in &builder.created {
            if let Err(d) = verify_one(ctx, op) {
                result = Err(RebuildFailed(format!(
                    "rebuilt '{}' does not verify: {d}",
                    ctx.op_name(op)
                )));
                break;
            }
        }
    }
    if let Err(e) = result {
        for (op, operands) in saved {
            for (i, v) in operands.into_iter().enumerate() {
                if ctx.op(op).operands[i] != v {
                    ctx.set_operand(op, i, v);
                }
            }
        }
        for &op in builder.created.iter().rev() {
            ctx.erase_op(op);
        }
        return Err(e);
    }
    for &(op, _) in conv.modeled.iter().rev() {
        ctx.erase_op(op);
    }
    Ok(builder.created)
}

struct Rebuilder<'a> {
    egraph: &'a GraphEGraph,
    choice: &'a HashMap<Id, GraphNode>,
    origin: HashMap<Id, Vec<Id>>,
    /// The input graph's node of each class.
    original: HashMap<Id, GraphNode>,
    locations: HashMap<Id, Vec<Location>>,
    leaves: &'a [(Value, Option<OpId>)],
    /// Kept ops already passed: their results may be used.
    available: HashSet<OpId>,
    values: HashMap<Id, Value>,
    created: Vec<OpId>,
}

impl Rebuilder<'_> {
    /// The location of a rebuilt class: the fused locations of its input ops and of the
    /// input ops it absorbed (non-constant operands of its input node that the extracted
    /// graph no longer computes, such as the conv a batch norm was folded into), or else
    /// those of the class a rule built it for.
    fn location(&self, ctx: &mut Context, id: Id) -> Location {
        let mut locs: Vec<Location> = Vec::new();
        self.absorbed_locations(id, 0, &mut locs);
        if locs.is_empty() {
            // The input ops of the classes it was built for, through the classes rules
            // built on the way.
            let mut frontier = vec![id];
            let mut seen = HashSet::new();
            for _ in 0..16 {
                let mut next = Vec::new();
                for at in frontier {
                    for &o in self.origin.get(&at).into_iter().flatten() {
                        if !seen.insert(o) {
                            continue;
                        }
                        match self.locations.get(&o) {
                            Some(l) => {
                                for &l in l {
                                    if !locs.contains(&l) {
                                        locs.push(l);
                                    }
                                }
                            }
                            None => next.push(o),
                        }
                    }
                }
                if next.is_empty() {
                    break;
                }
                frontier = next;
            }
        }
        match locs.as_slice() {
            [] => ctx.unknown_loc(),
            [one] => *one,
            many => ctx.location(LocationKind::Fused {
                locations: many.to_vec(),
                metadata: None,
            }),
        }
    }

    fn absorbed_locations(&self, id: Id, depth: usize, out: &mut Vec<Location>) {
        for &l in self.locations.get(&id).into_iter().flatten() {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        let Some(node) = self.original.get(&id) else {
            return;
        };
        if depth >= 4 || self.choice.get(&id) == Some(node) {
            return;
        }
        for &c in node.children() {
            let c = self.egraph.find(c);
            if !self.choice.contains_key(&c) && !self.egraph[c].data.constant {
                self.absorbed_locations(c, depth + 1, out);
            }
        }
    }

    /// The value of class `id`, built in front of `before` if needed.
    fn value(&mut self, ctx: &mut Context, id: Id, before: OpId) -> Result<Value, RebuildFailed> {
        if let Some(&v) = self.values.get(&id) {
            return Ok(v);
        }
        let node = self
            .choice
            .get(&id)
            .ok_or_else(|| RebuildFailed(format!("class {id} was not extracted")))?
            .clone();
        let value = match &node {
            GraphNode::Leaf(i) => {
                let (v, owner) = self.leaves[*i as usize];
                if owner.is_some_and(|o| !self.available.contains(&o)) {
                    return Err(RebuildFailed(
                        "the extracted graph needs a value before the op that defines it".into(),
                    ));
                }
                v
            }
            GraphNode::Splat {
                value,
                element,
                shape,
            } => {
                let ty = tensor_type(ctx, shape.clone(), *element);
                let elem = match ctx.type_kind(*element) {
                    TypeKind::Float(k) => DenseElement::Float(
                        bits_from_f64(*k, f64::from_bits(*value))
                            .ok_or_else(|| RebuildFailed("splat out of range".into()))?,
                    ),
                    _ => DenseElement::Int(f64::from_bits(*value) as i128),
                };
                let attr = ctx.intern_attr(AttrKind::DenseElements {
                    ty,
                    data: DenseData {
                        splat: true,
                        elements: vec![elem],
                    },
                });
                let loc = self.location(ctx, id);
                self.create(
                    ctx,
                    "graph.constant",
                    vec![],
                    vec![("value".into(), attr)],
                    ty,
                    loc,
                    before,
                )
            }
            GraphNode::Op { kind, attrs, args } => {
                let mut operands = Vec::new();
                for &c in args {
                    operands.push(self.value(ctx, self.egraph.find(c), before)?);
                }
                let info = self.egraph[id]
                    .data
                    .info
                    .clone()
                    .ok_or_else(|| RebuildFailed(format!("class {id} has no type")))?;
                let ty = tensor_type(ctx, info.shape, info.element);
                let mut entries = Vec::new();
                for (k, v) in &attrs.0 {
                    let a = encode(ctx, v).ok_or_else(|| {
                        RebuildFailed(format!("attribute '{k}' cannot be encoded"))
                    })?;
                    entries.push((k.clone(), a));
                }
                let loc = self.location(ctx, id);
                self.create(ctx, kind.0.name(), operands, entries, ty, loc, before)
            }
        };
        self.values.insert(id, value);
        Ok(value)
    }

    #[allow(clippy::too_many_arguments)]
    fn create(
        &mut self,
        ctx: &mut Context,
        name: &str,
        operands: Vec<Value>,
        attrs: Vec<(String, Attr)>,
        ty: tb_ir::Type,
        loc: Location,
        before: OpId,
    ) -> Value {
        let state = op_state_with_types(ctx, name, operands, attrs, vec![ty], loc);
        let op = ctx.create_op(state);
        ctx.insert_op_before(before, op);
        self.created.push(op);
        ctx.op(op).results[0]
    }
}
