//! Algebraic rules: commutativity, constants grouped by associativity, factoring
//! (distributivity read right to left) and scalar factors moved into matmul weights.

use tb_dialects::graph::GraphOp;

use super::{Builder, Family, Index, Rewrite, Rule};

pub(super) static RULES: &[&Rule] = &[
    &Rule {
        name: "add-commute",
        family: Family::Algebraic,
        reason: "a + b = b + a lets the other rules match either operand order",
        search: |ix| commute(ix, GraphOp::Add),
    },
    &Rule {
        name: "mul-commute",
        family: Family::Algebraic,
        reason: "a * b = b * a lets the other rules match either operand order",
        search: |ix| commute(ix, GraphOp::Mul),
    },
    &Rule {
        name: "add-group-constants",
        family: Family::Algebraic,
        reason: "(x + c1) + c2 = x + (c1 + c2): one runtime add, the other folds",
        search: |ix| group_constants(ix, GraphOp::Add),
    },
    &Rule {
        name: "mul-group-constants",
        family: Family::Algebraic,
        reason: "(x * c1) * c2 = x * (c1 * c2): one runtime mul, the other folds",
        search: |ix| group_constants(ix, GraphOp::Mul),
    },
    &Rule {
        name: "mul-factor-add",
        family: Family::Algebraic,
        reason: "x * a + x * b = x * (a + b): one multiplication instead of two",
        search: factor_mul,
    },
    &Rule {
        name: "matmul-factor-add",
        family: Family::Algebraic,
        reason: "x @ a + x @ b = x @ (a + b): one matmul; a + b folds when both are weights",
        search: factor_matmul,
    },
    &Rule {
        name: "matmul-absorb-column-scale",
        family: Family::Algebraic,
        reason: "(x @ w) * c = x @ (w * c) for c scaling columns: the scale folds into constant weights",
        search: absorb_scale,
    },
];

fn commute(ix: &Index, kind: GraphOp) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    ix.ops(kind)
        .iter()
        .filter(|(_, _, args)| args.len() == 2 && args[0] != args[1])
        .filter_map(|&(class, attrs, args)| {
            let t = b.op(
                kind,
                attrs.clone(),
                vec![b.class(args[1])?, b.class(args[0])?],
            )?;
            b.rewrite(class, t)
        })
        .collect()
}

fn group_constants(ix: &Index, kind: GraphOp) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(kind) {
        let [inner, c2] = args else { continue };
        if !ix.is_constant(*c2) || ix.is_constant(*inner) {
            continue;
        }
        for (_, inner_args) in ix.ops_in(*inner, kind) {
            let [x, c1] = inner_args else { continue };
            if !ix.is_constant(*c1) || ix.is_constant(*x) {
                continue;
            }
            let Some(folded) = b
                .class(*c1)
                .zip(b.class(*c2))
                .and_then(|(c1, c2)| b.binary(kind, c1, c2))
            else {
                continue;
            };
            let t = b.class(*x).and_then(|x| b.binary(kind, x, folded));
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

fn factor_mul(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Add) {
        let [l, r] = args else { continue };
        for (_, la) in ix.ops_in(*l, GraphOp::Mul) {
            for (_, ra) in ix.ops_in(*r, GraphOp::Mul) {
                if la[0] != ra[0] {
                    continue;
                }
                let t = (|| {
                    let sum = b.binary(GraphOp::Add, b.class(la[1])?, b.class(ra[1])?)?;
                    b.binary(GraphOp::Mul, b.class(la[0])?, sum)
                })();
                out.extend(t.and_then(|t| b.rewrite(class, t)));
            }
        }
    }
    out
}

fn factor_matmul(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Add) {
        let [l, r] = args else { continue };
        for (_, la) in ix.ops_in(*l, GraphOp::Matmul) {
            for (_, ra) in ix.ops_in(*r, GraphOp::Matmul) {
                // Same left operand, weights of one shape (so their sum broadcasts nothing).
                if la[0] != ra[0] || ix.info(la[1]) != ix.info(ra[1]) {
                    continue;
                }
                let t = (|| {
                    let sum = b.binary(GraphOp::Add, b.class(la[1])?, b.class(ra[1])?)?;
                    b.binary(GraphOp::Matmul, b.class(la[0])?, sum)
                })();
                out.extend(t.and_then(|t| b.rewrite(class, t)));
            }
        }
    }
    out
}

fn absorb_scale(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Mul) {
        let [m, c] = args else { continue };
        let (Some(ci), true) = (ix.info(*c), ix.is_constant(*c)) else {
            continue;
        };
        for (_, ma) in ix.ops_in(*m, GraphOp::Matmul) {
            let Some(wi) = ix.info(ma[1]) else { continue };
            // The scale may only vary along the last axis (the matmul's columns) and must
            // not add axes to the weights.
            let n = *wi.shape.last().unwrap_or(&1);
            let columns_only = ci.rank() <= wi.rank()
                && wi.rank() >= 2
                && ci.shape.iter().rev().skip(1).all(|&d| d == 1)
                && ci.shape.last().is_none_or(|&d| d == 1 || d == n);
            if !columns_only {
                continue;
            }
            let t = (|| {
                let scaled = b.binary(GraphOp::Mul, b.class(ma[1])?, b.class(*c)?)?;
                if scaled.info != *wi {
                    return None;
                }
                b.binary(GraphOp::Matmul, b.class(ma[0])?, scaled)
            })();
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}
