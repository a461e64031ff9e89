//! The term language of the e-graph: graph ops by their typed kind with their attributes
//! as part of the node, values the e-graph does not model as opaque leaves, and splat
//! constants that rules introduce (an epsilon, a zero bias).

use std::cmp::Ordering;
use std::fmt;

use egg::{Id, Language};
use tb_dialects::graph::GraphOp;
use tb_ir::Type;
use tb_ir::ods::OpKind;

/// A graph op kind, ordered by its position in [`GraphOp`] (egg wants ordered nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind(pub GraphOp);

impl Ord for Kind {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.index().cmp(&other.0.index())
    }
}

impl PartialOrd for Kind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An attribute value. The common graph attribute types are decoded so rules can read
/// and build them without the IR context; anything else stays an interned IR attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttrValue {
    /// An `i64` integer attribute.
    Int(i64),
    /// An `array<i64: ...>`.
    Ints(Vec<i64>),
    /// An `f32` float attribute, as the bits of its `f64` value.
    Float(u64),
    /// An `i1` attribute.
    Bool(bool),
    /// An untyped string attribute (`approximate = "tanh"`).
    Str(String),
    /// Any other attribute (a constant's elements, strings, types).
    Ir(tb_ir::Attr),
}

/// A node's attributes, sorted by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Attrs(pub Vec<(String, AttrValue)>);

impl Attrs {
    pub fn new(mut entries: Vec<(String, AttrValue)>) -> Attrs {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Attrs(entries)
    }

    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        match self.get(name)? {
            AttrValue::Ints(v) => Some(v),
            _ => None,
        }
    }

    pub fn float(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            AttrValue::Float(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            AttrValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The same attributes with `name` set to `value`.
    pub fn with(&self, name: &str, value: AttrValue) -> Attrs {
        let mut entries: Vec<(String, AttrValue)> =
            self.0.iter().filter(|(k, _)| k != name).cloned().collect();
        entries.push((name.to_string(), value));
        Attrs::new(entries)
    }
}

/// One e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GraphNode {
    /// A single-result graph op over the e-classes of its operands.
    Op {
        kind: Kind,
        attrs: Attrs,
        args: Vec<Id>,
    },
    /// A value the e-graph does not look into (a function argument, a result of an op it
    /// cannot model), by its index in the conversion's leaf table.
    Leaf(u32),
    /// A constant tensor of `shape` whose elements all equal `value` (as `f64` bits).
    Splat {
        value: u64,
        element: Type,
        shape: Vec<i64>,
    },
}

/// A node's operator without its children, for egg's matching.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Discriminant {
    Op(Kind, Attrs, usize),
    Leaf(u32),
    Splat(u64, Type, Vec<i64>),
}

impl GraphNode {
    pub fn op(kind: GraphOp, attrs: Attrs, args: Vec<Id>) -> GraphNode {
        GraphNode::Op {
            kind: Kind(kind),
            attrs,
            args,
        }
    }

    /// The graph op kind, for op nodes.
    pub fn kind(&self) -> Option<GraphOp> {
        match self {
            GraphNode::Op { kind, .. } => Some(kind.0),
            _ => None,
        }
    }

    pub fn attrs(&self) -> Option<&Attrs> {
        match self {
            GraphNode::Op { attrs, .. } => Some(attrs),
            _ => None,
        }
    }
}

impl Language for GraphNode {
    type Discriminant = Discriminant;

    fn discriminant(&self) -> Discriminant {
        match self {
            GraphNode::Op { kind, attrs, args } => {
                Discriminant::Op(*kind, attrs.clone(), args.len())
            }
            GraphNode::Leaf(i) => Discriminant::Leaf(*i),
            GraphNode::Splat {
                value,
                element,
                shape,
            } => Discriminant::Splat(*value, *element, shape.clone()),
        }
    }

    fn matches(&self, other: &Self) -> bool {
        self.discriminant() == other.discriminant()
    }

    fn children(&self) -> &[Id] {
        match self {
            GraphNode::Op { args, .. } => args,
            _ => &[],
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            GraphNode::Op { args, .. } => args,
            _ => &mut [],
        }
    }
}

impl fmt::Display for GraphNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphNode::Op { kind, .. } => write!(f, "{}", kind.0.name()),
            GraphNode::Leaf(i) => write!(f, "leaf{i}"),
            GraphNode::Splat { value, .. } => write!(f, "splat({})", f64::from_bits(*value)),
        }
    }
}
