//! Composite-op recognition: subgraphs that exporters spell out op by op (GELU through
//! `erf`, softmax through `exp` and a sum, layer normalization through two means,
//! attention as matmul, scale, mask, softmax and matmul over heads) become
//! the one graph op the lowering turns into a single fused kernel.

use std::collections::HashSet;

use egg::Id;
use tb_dialects::graph::GraphOp;

use super::super::language::{AttrValue, Attrs};
use super::{Builder, Family, Index, Rewrite, Rule, Typed};

pub(super) static RULES: &[&Rule] = &[
    &Rule {
        name: "gelu-from-erf",
        family: Family::Composite,
        reason: "x * 0.5 * (1 + erf(x / sqrt 2)) is graph.gelu: one elementwise kernel instead of five",
        search: gelu_from_erf,
    },
    &Rule {
        name: "gelu-from-tanh",
        family: Family::Composite,
        reason: "0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) is graph.gelu with approximate = tanh: one elementwise kernel instead of nine",
        search: gelu_from_tanh,
    },
    &Rule {
        name: "softmax-from-exp",
        family: Family::Composite,
        reason: "exp(x - max(x)) / sum(exp(x - max(x))) along one axis is graph.softmax: one kernel instead of five",
        search: softmax_from_exp,
    },
    &Rule {
        name: "layernorm-from-moments",
        family: Family::Composite,
        reason: "(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * g + b over trailing axes is graph.layer_normalization: one kernel instead of nine",
        search: layernorm_from_moments,
    },
    &Rule {
        name: "attention-from-softmax",
        family: Family::Composite,
        reason: "softmax(Q·Kᵀ·scale [+ mask]) · V over heads is graph.attention: the exponential once per score, no scaled or masked score tensor, one kernel chain instead of five ops",
        search: attention_from_softmax,
    },
];

/// Whether `a` is `b` up to `f32` rounding of the constant.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

fn is_scalar(ix: &Index, id: Id, value: f64) -> bool {
    ix.scalar(id).is_some_and(|v| close(v, value))
}

/// The operand pairs of the binary `kind` nodes in `id`.
fn binary(ix: &Index, id: Id, kind: GraphOp) -> Vec<(Id, Id)> {
    ix.ops_in(id, kind)
        .filter_map(|(_, args)| match args {
            [a, b] => Some((*a, *b)),
            _ => None,
        })
        .collect()
}

/// The operand of the unary `kind` nodes in `id`, with their attributes.
fn unary<'a>(ix: &Index<'a>, id: Id, kind: GraphOp) -> Vec<(&'a Attrs, Id)> {
    ix.ops_in(id, kind)
        .filter_map(|(attrs, args)| match args {
            [a] => Some((attrs, *a)),
            _ => None,
        })
        .collect()
}

/// The `x` of `id = x / sqrt(2)` or `x * (1 / sqrt(2))`.
fn scaled_by_inv_sqrt2(ix: &Index, id: Id) -> Vec<Id> {
    let sqrt2 = std::f64::consts::SQRT_2;
    let mut out: Vec<Id> = binary(ix, id, GraphOp::Div)
        .into_iter()
        .filter(|&(_, c)| is_scalar(ix, c, sqrt2))
        .map(|(x, _)| x)
        .collect();
    for (a, b) in binary(ix, id, GraphOp::Mul) {
        for (x, c) in [(a, b), (b, a)] {
            if is_scalar(ix, c, 1.0 / sqrt2) {
                out.push(x);
            }
        }
    }
    out
}

/// The `x` of `id = 1 + erf(x / sqrt(2))` (either operand order).
fn one_plus_erf(ix: &Index, id: Id) -> Vec<Id> {
    let mut out = Vec::new();
    for (a, b) in binary(ix, id, GraphOp::Add) {
        for (one, e) in [(a, b), (b, a)] {
            if !is_scalar(ix, one, 1.0) {
                continue;
            }
            for (_, arg) in unary(ix, e, GraphOp::Erf) {
                out.extend(scaled_by_inv_sqrt2(ix, arg));
            }
        }
    }
    out
}

/// The three factors of `id` written as a product of a product and a factor.
fn three_factors(ix: &Index, id: Id) -> Vec<[Id; 3]> {
    let mut out = Vec::new();
    for (a, b) in binary(ix, id, GraphOp::Mul) {
        for (pair, single) in [(a, b), (b, a)] {
            for (p, q) in binary(ix, pair, GraphOp::Mul) {
                out.push([p, q, single]);
            }
        }
    }
    out
}

fn gelu_from_erf(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for &(class, _, _) in ix.ops(GraphOp::Mul) {
        if !seen.insert(class) {
            continue;
        }
        'factors: for factors in three_factors(ix, class) {
            // Some order of the factors is (0.5, 1 + erf(x / sqrt 2), x).
            for (half, erf, x) in [
                (0, 1, 2),
                (0, 2, 1),
                (1, 0, 2),
                (1, 2, 0),
                (2, 0, 1),
                (2, 1, 0),
            ] {
                let (half, erf, x) = (factors[half], factors[erf], factors[x]);
                if is_scalar(ix, half, 0.5) && one_plus_erf(ix, erf).contains(&x) {
                    let t = b
                        .class(x)
                        .and_then(|x| b.op(GraphOp::Gelu, Attrs::default(), vec![x]));
                    if let Some(r) = t.and_then(|t| b.rewrite(class, t)) {
                        out.push(r);
                        break 'factors;
                    }
                }
            }
        }
    }
    out
}

/// Whether `id` is `x³`: `x ^ 3`, `(x * x) * x` or `x * (x * x)`.
fn is_cube_of(ix: &Index, id: Id, x: Id) -> bool {
    let square = |s: Id| {
        binary(ix, s, GraphOp::Mul)
            .into_iter()
            .any(|(a, b)| a == x && b == x)
    };
    binary(ix, id, GraphOp::Pow)
        .into_iter()
        .any(|(a, e)| a == x && is_scalar(ix, e, 3.0))
        || binary(ix, id, GraphOp::Mul)
            .into_iter()
            .any(|(a, b)| (a == x && square(b)) || (b == x && square(a)))
}

/// The `x` of `id = x + 0.044715 * x³` (either operand order of the add and the mul).
fn tanh_gelu_inner(ix: &Index, id: Id) -> Vec<Id> {
    let mut out = Vec::new();
    for (a, b) in binary(ix, id, GraphOp::Add) {
        for (x, term) in [(a, b), (b, a)] {
            for (c, cube) in binary(ix, term, GraphOp::Mul) {
                for (c, cube) in [(c, cube), (cube, c)] {
                    if is_scalar(ix, c, 0.044715) && is_cube_of(ix, cube, x) {
                        out.push(x);
                    }
                }
            }
        }
    }
    out
}

/// The `x` of `id = 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x³))` (either operand order).
fn one_plus_tanh(ix: &Index, id: Id) -> Vec<Id> {
    let k = (2.0 / std::f64::consts::PI).sqrt();
    let mut out = Vec::new();
    for (a, b) in binary(ix, id, GraphOp::Add) {
        for (one, t) in [(a, b), (b, a)] {
            if !is_scalar(ix, one, 1.0) {
                continue;
            }
            for (_, arg) in unary(ix, t, GraphOp::Tanh) {
                for (c, inner) in binary(ix, arg, GraphOp::Mul) {
                    for (c, inner) in [(c, inner), (inner, c)] {
                        if is_scalar(ix, c, k) {
                            out.extend(tanh_gelu_inner(ix, inner));
                        }
                    }
                }
            }
        }
    }
    out
}

fn gelu_from_tanh(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for &(class, _, _) in ix.ops(GraphOp::Mul) {
        if !seen.insert(class) {
            continue;
        }
        'factors: for f in three_factors(ix, class) {
            for (half, t, x) in [
                (0, 1, 2),
                (0, 2, 1),
                (1, 0, 2),
                (1, 2, 0),
                (2, 0, 1),
                (2, 1, 0),
            ] {
                let (half, t, x) = (f[half], f[t], f[x]);
                if is_scalar(ix, half, 0.5) && one_plus_tanh(ix, t).contains(&x) {
                    let attrs =
                        Attrs::new(vec![("approximate".into(), AttrValue::Str("tanh".into()))]);
                    let t = b.class(x).and_then(|x| b.op(GraphOp::Gelu, attrs, vec![x]));
                    if let Some(r) = t.and_then(|t| b.rewrite(class, t)) {
                        out.push(r);
                        break 'factors;
                    }
                }
            }
        }
    }
    out
}

/// A reduction's axes in `[0, rank)`, sorted, if it keeps the reduced dimensions.
fn kept_axes(attrs: &Attrs, rank: usize) -> Option<Vec<usize>> {
    if !attrs.bool("keepdims").unwrap_or(true) {
        return None;
    }
    let mut axes = attrs
        .ints("axes")?
        .iter()
        .map(|&a| {
            let a = if a < 0 { a + rank as i64 } else { a };
            usize::try_from(a).ok().filter(|&a| a < rank)
        })
        .collect::<Option<Vec<usize>>>()?;
    axes.sort_unstable();
    axes.dedup();
    (!axes.is_empty()).then_some(axes)
}

fn softmax_from_exp(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Div) {
        let [num, den] = args else { continue };
        let Some(rank) = ix.info(class).map(|i| i.rank()) else {
            continue;
        };
        for (sum_attrs, summed) in unary(ix, *den, GraphOp::ReduceSum) {
            let Some(&[axis]) = kept_axes(sum_attrs, rank).as_deref() else {
                continue;
            };
            if ix.egraph.find(summed) != ix.egraph.find(*num) {
                continue;
            }
            for (_, d) in unary(ix, *num, GraphOp::Exp) {
                // exp(x - max(x)) / sum(...) and the unshifted exp(x) / sum(exp(x)): both
                // are softmax(x) (the shifted form is what softmax computes; the other is
                // the same up to overflow, which softmax avoids).
                let mut inputs = vec![d];
                for (x, m) in binary(ix, d, GraphOp::Sub) {
                    let shifted = unary(ix, m, GraphOp::ReduceMax)
                        .into_iter()
                        .any(|(a, mx)| mx == x && kept_axes(a, rank) == Some(vec![axis]));
                    if shifted {
                        inputs.push(x);
                    }
                }
                for x in inputs {
                    let t = b.class(x).map(|x| {
                        let info = x.info.clone();
                        let attrs = Attrs::new(vec![("axis".into(), AttrValue::Int(axis as i64))]);
                        b.op_typed(GraphOp::Softmax, attrs, vec![x], info)
                    });
                    out.extend(t.and_then(|t| b.rewrite(class, t)));
                }
            }
        }
    }
    out
}

/// The `v` of `id = sqrt(v + eps)` with the scalar `eps`.
fn sqrt_plus_eps(ix: &Index, id: Id) -> Vec<(Id, f64)> {
    let mut out = Vec::new();
    for (_, sum) in unary(ix, id, GraphOp::Sqrt) {
        for (a, c) in binary(ix, sum, GraphOp::Add) {
            for (v, e) in [(a, c), (c, a)] {
                if let Some(eps) = ix.scalar(e) {
                    out.push((v, eps));
                }
            }
        }
    }
    out
}

/// Whether `id` is `d * d` or `d ^ 2`.
fn is_square_of(ix: &Index, id: Id, d: Id) -> bool {
    binary(ix, id, GraphOp::Mul)
        .into_iter()
        .any(|(a, c)| a == d && c == d)
        || binary(ix, id, GraphOp::Pow)
            .into_iter()
            .any(|(a, e)| a == d && is_scalar(ix, e, 2.0))
}

/// `(x, first normalized axis, eps)` of `id = (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)`
/// with both means over the trailing axes.
fn normalized(ix: &Index, id: Id) -> Vec<(Id, usize, f64)> {
    let Some(rank) = ix.info(id).map(|i| i.rank()) else {
        return Vec::new();
    };
    let trailing = |axes: Option<Vec<usize>>| {
        let axes = axes?;
        let first = axes[0];
        (axes == (first..rank).collect::<Vec<_>>()).then_some(first)
    };
    let mut out = Vec::new();
    for (d, s) in binary(ix, id, GraphOp::Div) {
        for (x, m) in binary(ix, d, GraphOp::Sub) {
            let Some(axis) = unary(ix, m, GraphOp::ReduceMean)
                .into_iter()
                .find(|&(_, mx)| mx == x)
                .and_then(|(a, _)| trailing(kept_axes(a, rank)))
            else {
                continue;
            };
            for (v, eps) in sqrt_plus_eps(ix, s) {
                let variance = unary(ix, v, GraphOp::ReduceMean)
                    .into_iter()
                    .any(|(a, sq)| {
                        trailing(kept_axes(a, rank)) == Some(axis) && is_square_of(ix, sq, d)
                    });
                if variance && eps >= 0.0 {
                    out.push((x, axis, eps));
                }
            }
        }
    }
    out
}

fn layer_norm(
    b: &Builder,
    x: Id,
    axis: usize,
    eps: f64,
    scale: Typed,
    bias: Option<Typed>,
) -> Option<Typed> {
    let x = b.class(x)?;
    // LayerNormalization's scale and bias broadcast to X, never beyond it.
    let fits = |t: &Typed| t.info.rank() <= x.info.rank() && t.info.element == x.info.element;
    if !fits(&scale) || bias.as_ref().is_some_and(|t| !fits(t)) {
        return None;
    }
    let attrs = Attrs::new(vec![
        ("axis".into(), AttrValue::Int(axis as i64)),
        (
            "epsilon".into(),
            AttrValue::Float((eps as f32 as f64).to_bits()),
        ),
        ("stash_type".into(), AttrValue::Int(1)),
    ]);
    let info = x.info.clone();
    let mut operands = vec![x, scale];
    operands.extend(bias);
    Some(b.op_typed(GraphOp::LayerNormalization, attrs, operands, info))
}

fn layernorm_from_moments(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let mut out = Vec::new();
    // The normalization alone: a layer norm with a unit scale.
    for &(class, _, _) in ix.ops(GraphOp::Div) {
        for (x, axis, eps) in normalized(ix, class) {
            let Some(info) = ix.info(class) else { continue };
            let one = b.splat(1.0, info.element, vec![]);
            let t = layer_norm(&b, x, axis, eps, one, None);
            out.extend(t.and_then(|t| b.rewrite(class, t)));
        }
    }
    // With a scale, and with a scale and a shift.
    let scaled = |id: Id| -> Vec<(Id, Id)> {
        let mut found = Vec::new();
        for (a, c) in binary(ix, id, GraphOp::Mul) {
            for (n, g) in [(a, c), (c, a)] {
                if ix.info(n) == ix.info(id) && ix.ops_in(n, GraphOp::Div).next().is_some() {
                    found.push((n, g));
                }
            }
        }
        found
    };
    for &(class, _, _) in ix.ops(GraphOp::Mul) {
        for (n, g) in scaled(class) {
            for (x, axis, eps) in normalized(ix, n) {
                let t = b
                    .class(g)
                    .and_then(|g| layer_norm(&b, x, axis, eps, g, None));
                out.extend(t.and_then(|t| b.rewrite(class, t)));
            }
        }
    }
    for &(class, _, args) in ix.ops(GraphOp::Add) {
        let [l, r] = args else { continue };
        for (product, shift) in [(*l, *r), (*r, *l)] {
            if ix.info(product) != ix.info(class) {
                continue;
            }
            for (n, g) in scaled(product) {
                for (x, axis, eps) in normalized(ix, n) {
                    let t = (|| layer_norm(&b, x, axis, eps, b.class(g)?, Some(b.class(shift)?)))();
                    out.extend(t.and_then(|t| b.rewrite(class, t)));
                }
            }
        }
    }
    out
}

/// The `(scores, scale)` of `id = scores`, `scores * c`, `c * scores` or `scores / c`
/// with a scalar constant `c`.
fn scaled(ix: &Index, id: Id) -> Vec<(Id, f64)> {
    let mut out = vec![(id, 1.0)];
    for (a, b) in binary(ix, id, GraphOp::Mul) {
        for (x, c) in [(a, b), (b, a)] {
            if let Some(c) = ix.scalar(c) {
                out.push((x, c));
            }
        }
    }
    for (x, c) in binary(ix, id, GraphOp::Div) {
        if let Some(c) = ix.scalar(c).filter(|&c| c != 0.0) {
            out.push((x, 1.0 / c));
        }
    }
    out
}

/// The `(scores, scale, mask)` of a softmax input: a scaled score with an optional
/// additive mask (either operand order).
fn logits(ix: &Index, id: Id) -> Vec<(Id, f64, Option<Id>)> {
    let mut out: Vec<(Id, f64, Option<Id>)> = scaled(ix, id)
        .into_iter()
        .map(|(s, c)| (s, c, None))
        .collect();
    for (a, b) in binary(ix, id, GraphOp::Add) {
        for (x, mask) in [(a, b), (b, a)] {
            if ix.info(x) == ix.info(id) {
                out.extend(scaled(ix, x).into_iter().map(|(s, c)| (s, c, Some(mask))));
            }
        }
    }
    out
}

fn attention_from_softmax(ix: &Index) -> Vec<Rewrite> {
    let b = Builder::new(ix);
    let rank4 = |id: Id| ix.info(id).is_some_and(|i| i.rank() == 4);
    let mut out = Vec::new();
    for &(class, _, args) in ix.ops(GraphOp::Matmul) {
        let [probs, v] = args else { continue };
        if !rank4(*probs) || !rank4(*v) {
            continue;
        }
        for (softmax_attrs, z) in unary(ix, *probs, GraphOp::Softmax) {
            if !matches!(softmax_attrs.int("axis"), Some(-1 | 3)) {
                continue;
            }
            for (scores, scale, mask) in logits(ix, z) {
                for (q, kt) in binary(ix, scores, GraphOp::Matmul) {
                    if !rank4(q) || !rank4(kt) {
                        continue;
                    }
                    let t = (|| {
                        let k = b.op(
                            GraphOp::Transpose,
                            super::transpose_attrs(vec![0, 1, 3, 2]),
                            vec![b.class(kt)?],
                        )?;
                        let attrs = Attrs::new(vec![
                            ("is_causal".into(), AttrValue::Bool(false)),
                            (
                                "scale".into(),
                                AttrValue::Float((scale as f32 as f64).to_bits()),
                            ),
                            ("softcap".into(), AttrValue::Float(0f64.to_bits())),
                        ]);
                        let mut operands = vec![b.class(q)?, k, b.class(*v)?];
                        if let Some(m) = mask {
                            operands.push(b.class(m)?);
                        }
                        b.op(GraphOp::Attention, attrs, operands)
                    })();
                    out.extend(t.and_then(|t| b.rewrite(class, t)));
                }
            }
        }
    }
    out
}
