//! Linear-algebra batching (TASO's most profitable substitution): matmuls that share their
//! left operand become one matmul on the concatenated weights, followed by slices.

use std::collections::BTreeMap;

use egg::Id;
use tb_dialects::graph::GraphOp;

use super::super::language::{AttrValue, Attrs};
use super::{Builder, Family, Index, Rewrite, Rule};

pub(super) static RULES: &[&Rule] = &[&Rule {
    name: "matmul-batch-shared-lhs",
    family: Family::Batching,
    reason: "x @ w1, x @ w2 = slices of x @ concat(w1, w2): one kernel reads x once (attention's Q/K/V)",
    search: batch_matmuls,
}];

/// At most this many matmuls are batched into one.
const MAX_BATCH: usize = 16;

fn batch_matmuls(ix: &Index) -> Vec<Rewrite> {
    // Matmuls by left operand whose weights are 2-D `graph.constant`s (not concatenations
    // this rule made: those would be batched again, without end).
    let mut groups: BTreeMap<Id, Vec<(Id, Id)>> = BTreeMap::new();
    for &(class, _, args) in ix.ops(GraphOp::Matmul) {
        let [x, w] = args else { continue };
        let is_weight = ix.is_literal(*w) && ix.info(*w).is_some_and(|i| i.rank() == 2);
        let group = groups.entry(*x).or_default();
        if is_weight && !group.iter().any(|&(c, _)| c == class) && group.len() < MAX_BATCH {
            group.push((class, *w));
        }
    }
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for (x, members) in groups {
        if members.len() < 2 {
            continue;
        }
        let t = (|| {
            let weights = members
                .iter()
                .map(|&(_, w)| b.class(w))
                .collect::<Option<Vec<_>>>()?;
            let widths: Vec<i64> = weights.iter().map(|w| w.info.shape[1]).collect();
            let concat = b.op(
                GraphOp::Concat,
                Attrs::new(vec![("axis".into(), AttrValue::Int(1))]),
                weights,
            )?;
            let product = b.binary(GraphOp::Matmul, b.class(x)?, concat)?;
            let last = product.info.rank() as i64 - 1;
            let mut offset = 0;
            let mut rewrites = Vec::new();
            for (&(class, _), width) in members.iter().zip(widths) {
                let slice = b.op(
                    GraphOp::Slice,
                    Attrs::new(vec![
                        ("axes".into(), AttrValue::Ints(vec![last])),
                        ("ends".into(), AttrValue::Ints(vec![offset + width])),
                        ("starts".into(), AttrValue::Ints(vec![offset])),
                        ("steps".into(), AttrValue::Ints(vec![1])),
                    ]),
                    vec![product.clone()],
                )?;
                rewrites.push(b.rewrite(class, slice)?);
                offset += width;
            }
            Some(rewrites)
        })();
        out.extend(t.into_iter().flatten());
    }
    out
}
