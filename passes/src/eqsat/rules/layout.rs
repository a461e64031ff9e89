//! Layout rules: transpose and reshape chains collapse, and transposes move past
//! elementwise ops so that they can meet and cancel.

use tb_dialects::graph::GraphOp;
use tb_ir::ods::OpKind;

use super::super::analysis::{is_binary_arith, is_unary_elementwise};
use super::{Builder, Family, Index, Rewrite, Rule, is_identity_perm, perm_of, transpose_attrs};

pub(super) static RULES: &[&Rule] = &[
    &Rule {
        name: "transpose-compose",
        family: Family::Layout,
        reason: "two transposes are one transpose by the composed permutation",
        search: transpose_compose,
    },
    &Rule {
        name: "transpose-identity",
        family: Family::Layout,
        reason: "a transpose by the identity permutation copies its input",
        search: transpose_identity,
    },
    &Rule {
        name: "reshape-compose",
        family: Family::Layout,
        reason: "a reshape-like op (reshape, flatten, squeeze, unsqueeze) of another is one reshape",
        search: reshape_compose,
    },
    &Rule {
        name: "reshape-identity",
        family: Family::Layout,
        reason: "a reshape-like op to its input's own shape copies its input",
        search: reshape_identity,
    },
    &Rule {
        name: "transpose-sink-unary",
        family: Family::Layout,
        reason: "f(transpose(x)) = transpose(f(x)) for elementwise f: moves transposes toward each other",
        search: sink_unary,
    },
    &Rule {
        name: "transpose-sink-binary",
        family: Family::Layout,
        reason: "transpose(a) op transpose(b) = transpose(a op b) for one permutation: one transpose instead of two",
        search: sink_binary,
    },
];

const RESHAPE_LIKE: [GraphOp; 4] = [
    GraphOp::Reshape,
    GraphOp::Flatten,
    GraphOp::Squeeze,
    GraphOp::Unsqueeze,
];

fn transpose_compose(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, attrs, args) in ix.ops(GraphOp::Transpose) {
        let Some(rank) = ix.info(class).map(|i| i.rank()) else {
            continue;
        };
        let outer = perm_of(attrs, rank);
        for (inner_attrs, inner_args) in ix.ops_in(args[0], GraphOp::Transpose) {
            let inner = perm_of(inner_attrs, rank);
            // out[i] = mid[outer[i]] = x[inner[outer[i]]].
            let composed: Option<Vec<i64>> = outer
                .iter()
                .map(|&o| inner.get(usize::try_from(o).ok()?).copied())
                .collect();
            let Some(composed) = composed else { continue };
            let t = b.class(inner_args[0]).and_then(|x| {
                if is_identity_perm(&composed) {
                    Some(x)
                } else {
                    b.op(GraphOp::Transpose, transpose_attrs(composed), vec![x])
                }
            });
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    out
}

fn transpose_identity(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    ix.ops(GraphOp::Transpose)
        .iter()
        .filter_map(|&(class, attrs, args)| {
            let rank = ix.info(class)?.rank();
            is_identity_perm(&perm_of(attrs, rank)).then_some(())?;
            b.rewrite(class, b.class(args[0])?)
        })
        .collect()
}

fn reshape_compose(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for kind in RESHAPE_LIKE {
        for &(class, _, args) in ix.ops(kind) {
            let Some(target) = ix.info(class).map(|i| i.shape.clone()) else {
                continue;
            };
            for inner in RESHAPE_LIKE {
                for (_, inner_args) in ix.ops_in(args[0], inner) {
                    let t = b
                        .class(inner_args[0])
                        .and_then(|x| b.reshape(x, target.clone()));
                    out.extend(t.and_then(|t| b.rewrite(class, t)));
                }
            }
        }
    }
    out
}

fn reshape_identity(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for kind in RESHAPE_LIKE {
        for &(class, _, args) in ix.ops(kind) {
            if args.len() == 1 && ix.info(class).is_some() && ix.info(class) == ix.info(args[0]) {
                out.extend(b.class(args[0]).and_then(|x| b.rewrite(class, x)));
            }
        }
    }
    out
}

fn sink_unary(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &kind in <GraphOp as OpKind>::ALL {
        if !is_unary_elementwise(kind) {
            continue;
        }
        for &(class, attrs, args) in ix.ops(kind) {
            for (t_attrs, t_args) in ix.ops_in(args[0], GraphOp::Transpose) {
                let t = (|| {
                    let inner = b.op(kind, attrs.clone(), vec![b.class(t_args[0])?])?;
                    b.op(GraphOp::Transpose, t_attrs.clone(), vec![inner])
                })();
                out.extend(t.and_then(|t| b.rewrite(class, t)));
            }
        }
    }
    out
}

fn sink_binary(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &kind in <GraphOp as OpKind>::ALL {
        if !is_binary_arith(kind) {
            continue;
        }
        for &(class, attrs, args) in ix.ops(kind) {
            let Some(rank) = ix.info(class).map(|i| i.rank()) else {
                continue;
            };
            for (la, l) in ix.ops_in(args[0], GraphOp::Transpose) {
                for (ra, r) in ix.ops_in(args[1], GraphOp::Transpose) {
                    let perm = perm_of(la, rank);
                    // One permutation, operands of one shape: no broadcasting to permute.
                    if perm != perm_of(ra, rank) || ix.info(l[0]) != ix.info(r[0]) {
                        continue;
                    }
                    let t = (|| {
                        let inner =
                            b.op(kind, attrs.clone(), vec![b.class(l[0])?, b.class(r[0])?])?;
                        b.op(GraphOp::Transpose, transpose_attrs(perm), vec![inner])
                    })();
                    out.extend(t.and_then(|t| b.rewrite(class, t)));
                }
            }
        }
    }
    out
}
