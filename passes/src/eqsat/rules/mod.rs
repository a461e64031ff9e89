//! The rewrite rules of `graph-eqsat`, one file per family.
//!
//! # Rule-author policy
//!
//! - **When a rule belongs here.** A rule states that two graph terms compute the same
//!   tensor for every input of the shapes it checks, under ONNX semantics, up to float
//!   rounding. Rewrites that are always profitable and local (`x + 0`, a reshape to the
//!   same type) belong to the graph dialect's folders and canonicalization patterns, which
//!   are cheaper; a rule belongs here when whether it pays depends on the rest of the graph
//!   (a transpose that only disappears after it meets another one, matmuls that are
//!   cheaper batched only if their slices fuse) and the cost model should decide.
//! - **Naming.** `<subject>-<action>[-<condition>]` in kebab case: `matmul-batch-shared-lhs`,
//!   `batchnorm-into-conv`. The name is what `--mlir-pass-statistics` counts and what the
//!   pass's `rules=` option selects. Every rule carries a one-line reason: why the other
//!   side can be cheaper.
//! - **Proof.** Every rule has a case in `passes/tests/eqsat_rules.rs`: random shapes and
//!   random tensors, the rule alone, extraction forced to the rewritten side, and the
//!   reference interpreter comparing both sides within float tolerance. The test walks
//!   [`all`] and fails for a rule without a case, so a rule cannot land unproven.
//! - **Checks before building.** A rule reads shapes and constant-ness from the e-class
//!   analysis and adds a term only if the term's type is the class's type (use
//!   [`Builder`], which refuses otherwise); a merge of two classes of different types is a
//!   bug in a rule.
//! - **Families.** `algebraic.rs` (identities of arithmetic), `layout.rs` (transposes and
//!   reshapes), `batching.rs` (several linear ops into one and back), `inference.rs`
//!   (constant parameters folded into weights), `composite.rs` (subgraphs recognized as
//!   one op). A composite op is recognized only when its graph->te lowering exists (check
//!   `passes/src/conversion/graph_to_te/`) and is one kernel; the recognized form must match
//!   the exporters' spelling exactly (read scalar constants with [`Index::scalar`], compare
//!   with float tolerance, accept both operand orders: commutativity is in the e-graph).
//! - **What blows the e-graph up.** Rules whose right side matches their own left side
//!   again (associativity with commutativity, distributivity in both directions,
//!   batching that re-batches its own concatenation): such a rule is written in one
//!   direction, toward fewer ops or toward constants grouped together, and requires its
//!   inputs to be leaves of the kind it consumes (batching only concatenates
//!   `graph.constant`s, and the split rules only produce weights that are not literal
//!   constants, so batching and splitting do not feed each other). Only commutativity is
//!   bidirectional: it adds one node per op. Rules that match deep patterns (composites)
//!   look up children through [`Index::ops_in`] instead of scanning all ops, so their cost
//!   is linear in the graph. Node, iteration and time limits stop saturation anyway, and
//!   the pass reports which one did (`stop-*` statistics).
//! - **Cost.** A rule never decides whether it pays: the cost model does, at extraction
//!   (greedy, or exact for graphs of at most `exact-max-classes` e-classes). A rule whose
//!   right side the analytical model cannot price (an op it has no formula for) gets the
//!   default of one kernel over its inputs' and output's bytes; give it a formula in
//!   `cost.rs` if that misprices it.

mod algebraic;
mod batching;
mod composite;
mod inference;
mod layout;

use std::collections::HashMap;

use egg::Id;
use tb_dialects::graph::GraphOp;
use tb_ir::Type;

use super::analysis::{GraphEGraph, TensorInfo, infer, info};
use super::language::{AttrValue, Attrs, GraphNode, Kind};

/// Rule families, as the issue and the statistics group them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Algebraic,
    Layout,
    Batching,
    Inference,
    Composite,
}

/// A rewrite rule: searches the e-graph and proposes terms equal to existing classes.
pub struct Rule {
    pub name: &'static str,
    pub family: Family,
    /// Why the rewritten side can be cheaper.
    pub reason: &'static str,
    pub search: fn(&Index) -> Vec<Rewrite>,
}

/// A term to add to the e-graph, over existing classes.
#[derive(Clone, Debug)]
pub enum Term {
    Class(Id),
    Op {
        kind: GraphOp,
        attrs: Attrs,
        args: Vec<Term>,
        /// The type, for ops whose shape rule the analysis does not have (a conv built
        /// as an intermediate of a rewrite, not merged into a typed class).
        info: Option<TensorInfo>,
    },
    Splat {
        value: f64,
        element: Type,
        shape: Vec<i64>,
    },
}

/// `term` equals the tensor of `class`.
#[derive(Clone, Debug)]
pub struct Rewrite {
    pub class: Id,
    pub term: Term,
}

/// Every rule, in the order saturation applies them.
pub fn all() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = Vec::new();
    rules.extend(algebraic::RULES);
    rules.extend(layout::RULES);
    rules.extend(batching::RULES);
    rules.extend(inference::RULES);
    rules.extend(composite::RULES);
    rules
}

/// An op node as rules see it: its class, attributes and operand classes.
pub type OpNode<'a> = (Id, &'a Attrs, &'a [Id]);

/// The e-graph's op nodes by kind, in class order, taken once per iteration so that every
/// rule sees the same graph and the order of matches is deterministic.
pub struct Index<'a> {
    pub egraph: &'a GraphEGraph,
    by_kind: HashMap<GraphOp, Vec<OpNode<'a>>>,
}

impl<'a> Index<'a> {
    pub fn new(egraph: &'a GraphEGraph) -> Index<'a> {
        let mut ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        ids.sort();
        let mut by_kind: HashMap<GraphOp, Vec<OpNode<'a>>> = HashMap::new();
        for id in ids {
            for node in &egraph[id].nodes {
                if let GraphNode::Op { kind, attrs, args } = node {
                    by_kind.entry(kind.0).or_default().push((id, attrs, args));
                }
            }
        }
        Index { egraph, by_kind }
    }

    /// The nodes of `kind`: (class, attributes, operand classes).
    pub fn ops(&self, kind: GraphOp) -> &[OpNode<'a>] {
        self.by_kind.get(&kind).map_or(&[], |v| v.as_slice())
    }

    /// The nodes of `kind` in class `id`.
    pub fn ops_in(&self, id: Id, kind: GraphOp) -> impl Iterator<Item = (&'a Attrs, &'a [Id])> {
        self.egraph[id].nodes.iter().filter_map(move |n| match n {
            GraphNode::Op {
                kind: Kind(k),
                attrs,
                args,
            } if *k == kind => Some((attrs, args.as_slice())),
            _ => None,
        })
    }

    pub fn info(&self, id: Id) -> Option<&'a TensorInfo> {
        info(self.egraph, id)
    }

    /// Whether the class is computable from constants.
    pub fn is_constant(&self, id: Id) -> bool {
        self.egraph[id].data.constant
    }

    /// The value of every element of the class, if it is a constant whose elements are
    /// all equal (the conversion adds a splat node to such constants' classes).
    pub fn scalar(&self, id: Id) -> Option<f64> {
        self.egraph[id].nodes.iter().find_map(|n| match n {
            GraphNode::Splat { value, .. } => Some(f64::from_bits(*value)),
            _ => None,
        })
    }

    /// Whether the class holds a `graph.constant` itself (not a computation on constants).
    pub fn is_literal(&self, id: Id) -> bool {
        self.ops_in(id, GraphOp::Constant).next().is_some()
    }
}

/// Builds terms while tracking their types, so a rule adds a term only if it has the
/// type of the class it joins.
pub struct Builder<'i, 'a> {
    index: &'i Index<'a>,
}

/// A term with its type.
#[derive(Clone, Debug)]
pub struct Typed {
    pub term: Term,
    pub info: TensorInfo,
}

impl<'i, 'a> Builder<'i, 'a> {
    pub fn new(index: &'i Index<'a>) -> Self {
        Builder { index }
    }

    pub fn class(&self, id: Id) -> Option<Typed> {
        Some(Typed {
            term: Term::Class(id),
            info: self.index.info(id)?.clone(),
        })
    }

    /// `kind(args)` if its shape rule accepts the operands.
    pub fn op(&self, kind: GraphOp, attrs: Attrs, args: Vec<Typed>) -> Option<Typed> {
        let infos: Vec<&TensorInfo> = args.iter().map(|a| &a.info).collect();
        let info = infer(kind, &attrs, &infos)?;
        Some(Typed {
            term: Term::Op {
                kind,
                attrs,
                args: args.into_iter().map(|a| a.term).collect(),
                info: None,
            },
            info,
        })
    }

    /// An op whose type is given (ops without a shape rule here, like `graph.conv`).
    pub fn op_typed(
        &self,
        kind: GraphOp,
        attrs: Attrs,
        args: Vec<Typed>,
        info: TensorInfo,
    ) -> Typed {
        Typed {
            term: Term::Op {
                kind,
                attrs,
                args: args.into_iter().map(|a| a.term).collect(),
                info: Some(info.clone()),
            },
            info,
        }
    }

    pub fn binary(&self, kind: GraphOp, a: Typed, b: Typed) -> Option<Typed> {
        self.op(kind, Attrs::default(), vec![a, b])
    }

    pub fn reshape(&self, x: Typed, shape: Vec<i64>) -> Option<Typed> {
        if shape.contains(&0) {
            return None;
        }
        self.op(
            GraphOp::Reshape,
            Attrs::new(vec![
                ("allowzero".into(), AttrValue::Bool(false)),
                ("shape".into(), AttrValue::Ints(shape)),
            ]),
            vec![x],
        )
    }

    pub fn splat(&self, value: f64, element: Type, shape: Vec<i64>) -> Typed {
        Typed {
            term: Term::Splat {
                value,
                element,
                shape: shape.clone(),
            },
            info: TensorInfo { shape, element },
        }
    }

    /// The rewrite of `class` to `t`, if `t` has the class's type.
    pub fn rewrite(&self, class: Id, t: Typed) -> Option<Rewrite> {
        (self.index.info(class)? == &t.info).then_some(Rewrite {
            class,
            term: t.term,
        })
    }
}

/// Whether `perm` is `0, 1, ..., n-1`.
pub fn is_identity_perm(perm: &[i64]) -> bool {
    perm.iter().enumerate().all(|(i, &p)| p == i as i64)
}

/// The permutation a transpose applies: its `perm`, or the reversal ONNX defaults to.
pub fn perm_of(attrs: &Attrs, rank: usize) -> Vec<i64> {
    match attrs.ints("perm") {
        Some(p) => p.to_vec(),
        None => (0..rank as i64).rev().collect(),
    }
}

pub fn transpose_attrs(perm: Vec<i64>) -> Attrs {
    Attrs::new(vec![("perm".into(), AttrValue::Ints(perm))])
}
